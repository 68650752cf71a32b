"""Read-only Git: run ``git`` as a subprocess in the project and report what it printed.

Never writes to the repository: no command used here changes refs, the index or objects,
``GIT_OPTIONAL_LOCKS=0`` stops even optional lock files (such as an index refresh), and no
pager, editor or prompt can start. A missing ``git`` binary, a directory that is not a
repository or any non-zero exit is reported as a failure with Git's own message.
"""

from __future__ import annotations

import os
import subprocess
from typing import Tuple


def run_git(root: str, *args: str, timeout: float = 30.0) -> Tuple[bool, str]:
    """Run ``git <args>`` in ``root``; ``(True, stdout)`` on success, else ``(False, reason)``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", PAGER="cat", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        proc = subprocess.run(["git", "--no-pager", *args], cwd=root, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout)
    except FileNotFoundError:
        return False, "git is not installed"
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"git could not run: {exc}"
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, err[-1] if err else f"git exited with status {proc.returncode}"
    return True, out


def head_commit(root: str) -> Tuple[bool, str]:
    """The full hash HEAD names, or ``(False, reason)``."""
    ok, out = run_git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if not ok:
        return False, out if out and not out.startswith("git exited") else "no Git HEAD commit"
    return True, out.strip()
