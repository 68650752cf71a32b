"""The project configuration as committed at a Git revision (analyzer/project/config.py reads
the work tree's). ``check --base`` judges changes by the trust keys of the base's
configuration, not of the changes themselves (:data:`analyzer.project.config.TRUST_KEYS`)."""

from __future__ import annotations

from analyzer.history.git import Repo
from analyzer.project import config


def load_at(project_root: str, rev: str) -> config.Config:
    """The configuration as committed at revision ``rev`` (empty when it has none there);
    :class:`~analyzer.project.config.ConfigError` for an unusable file,
    :class:`~analyzer.history.git.GitError` when Git cannot answer (a revision it cannot resolve)."""
    repo = Repo(project_root)
    commit = repo.commit(rev)
    for name, table in ((config.OWN_FILE, ()), (config.PYPROJECT, ("tool", "memory-analyzer"))):
        shown = f"{name} at {rev}"
        out = repo._run(repo.top, ["ls-tree", "-z", "-l", "--full-tree", commit, "--", repo.prefix + name])
        records = [r.partition(b"\t")[0].decode("ascii", "replace").split() for r in out.split(b"\0") if r]
        if not records:
            continue
        mode, kind, oid, size = records[0][:4]
        if kind != "blob" or mode not in ("100644", "100755"):  # a symlink or a directory: fail closed
            raise config.ConfigError("MA-CONFIG-READ", "the configuration file is not a regular file", shown)
        if int(size) > config.CONFIG_CAP:
            raise config.ConfigError("MA-CONFIG-READ", "cannot read the configuration file: larger than "
                                     f"{config.CONFIG_CAP} bytes", shown)
        return config.parse(repo.blobs([oid])[oid], shown, table)
    return config.Config()
