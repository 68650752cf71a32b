"""Assertions for the ``expect`` objects of protocol scenarios (reference §15).

Text keys are checked on the text output; structured keys (dispositions, reasons, loaded,
omitted, findings, statuses) on the JSON output of the same request, so that both output
forms are held to the reference.
"""

from __future__ import annotations

import json
from typing import Callable, Dict, List

TEXT_STATUS_LINES = {
    "routing_completeness": "Routing completeness: ",
    "conflict_status": "Conflict status: ",
    "local_status": "Local overlay status: ",
    "canonical_task": "Canonical task: ",
}
JSON_STATUS_KEYS = {
    "routing_completeness": "routing_completeness",
    "conflict_status": "conflict_status",
    "local_status": "local_overlay_status",
    "canonical_task": "canonical_task",
}
IGNORED = {"note", "source", "files_unchanged"}


def check_expect(expect: Dict, run, data: Dict, rerun: Callable[[List[str]], object], other_scenario) -> None:
    """Assert every non-variant key of ``expect`` against a text run and its JSON twin."""
    for key, want in expect.items():
        if key.endswith("_variant") or key.startswith("also_") or key in IGNORED:
            continue
        _CHECKS[key](want, run, data, rerun, other_scenario)


def _conflict_findings(data) -> List[Dict]:
    """The conflict findings of a read result, or the findings of a check result."""
    if "conflict_findings" in data:
        return data["conflict_findings"]
    return data.get("findings", [])


def _exit_code(want, run, data, *_):
    assert run.exit_code == want, (run.stdout, run.stderr)
    assert data.get("exit_code", run.exit_code) == want


def _exit_nonzero(want, run, *_):
    assert (run.exit_code != 0) == bool(want), (run.stdout, run.stderr)


def _status(key):
    def check(want, run, data, *_):
        line = TEXT_STATUS_LINES[key] + want
        assert line in run.stdout.splitlines(), (line, run.stdout)
        if key == "conflict_status" and "families" in data:  # a check result
            assert data["families"]["conflicts"]["status"] == want
        else:
            assert data[JSON_STATUS_KEYS[key]] == want
    return check


def _modules(data, disposition):
    return [m["path"] for m in data["modules"] if m["disposition"] == disposition]


def _loaded(want, run, data, *_):
    assert _modules(data, "loaded") == want


def _loaded_includes(want, run, data, *_):
    assert set(want) <= set(_modules(data, "loaded"))


def _missing_optional(want, run, data, *_):
    assert _modules(data, "missing-optional") == want


def _dispositions(want, run, data, *_):
    got = {m["path"]: m["disposition"] for m in data["modules"]}
    for module, disposition in want.items():
        assert got.get(module) == disposition, (module, got)


def _reasons(want, run, data, *_):
    got = {m["path"]: m["primary_reason"] for m in data["modules"]}
    for module, reason in want.items():
        assert got.get(module) == reason, (module, got)


def _omitted(want, run, data, *_):
    assert [o["unit"] for o in data["budget_omissions"]] == want


def _findings(want, run, data, *_):
    codes = {f["code"] for f in _conflict_findings(data)}
    assert set(want) <= codes, codes


def _contains(stream):
    def check(want, run, data, *_):
        text = run.stdout if stream == "stdout" else run.stderr if stream == "stderr" else run.stdout + run.stderr
        for piece in want:
            assert piece in text, (piece, text)
            if stream == "stdout" and "merge" in data:
                assert _merge_shows(piece, data), (piece, data["merge"])
    return check


def _not_contains(want, run, data, *_):
    for piece in want:
        assert piece not in run.stdout, piece
        if "merge" in data:
            assert not _merge_shows(piece, data, strict=False), (piece, data["merge"])


def _merge_shows(piece: str, data: Dict, strict: bool = True) -> bool:
    """The JSON twin of a line of a merge review run (``check --conflicts --merge-base``)."""
    merge = data["merge"]
    codes = {f["code"] for f in merge["findings"]}
    texts = " ".join(f["message"] for f in merge["findings"]) + " " + (merge["error"] or "")
    if piece.startswith("Merge review status: "):
        return merge["status"] == piece.split(": ", 1)[1]
    if piece.startswith(("Merge review unavailable", "Conflict-free status was not established")):
        return merge["status"] == "UNAVAILABLE"
    if piece.startswith("Conflict status: "):
        return data["families"]["conflicts"]["status"] == piece.split(": ", 1)[1]
    if piece.startswith("MC-MERGE-"):
        return piece in codes
    if piece.startswith("MC-"):  # a worktree conflict code: the conflict block's findings
        return not strict or piece in {f["code"] for f in data["findings"]}
    return piece in texts


def _merge_status(want, run, data, *_):
    assert f"Merge review status: {want}" in run.stdout.splitlines(), run.stdout
    assert data["merge"]["status"] == want
    assert data["families"]["merge"]["status"] == want


def _exact(want, run, *_):
    assert run.stdout == want


def _line(want, run, *_):
    assert want in run.stdout.splitlines(), (want, run.stdout)


def _identical_to_command(want, run, data, rerun, _):
    assert rerun(want).stdout == run.stdout


def _identical_to_scenario(want, run, data, rerun, other_scenario):
    assert other_scenario(want).stdout == run.stdout


def _module_order(want, run, data, *_):
    assert _modules(data, "loaded") == want


def _messages(want, run, data, *_):
    messages = " ".join(f["message"] for f in _conflict_findings(data))
    for piece in want:
        assert piece in messages, (piece, messages)


_CHECKS: Dict[str, Callable] = {
    "exit_code": _exit_code,
    "exit_code_nonzero": _exit_nonzero,
    "loaded": _loaded,
    "loaded_includes": _loaded_includes,
    "missing_optional": _missing_optional,
    "dispositions": _dispositions,
    "reasons": _reasons,
    "omitted": _omitted,
    "findings": _findings,
    "stdout_contains": _contains("stdout"),
    "stderr_contains": _contains("stderr"),
    "stdout_or_stderr_contains": _contains("either"),
    "stdout_not_contains": _not_contains,
    "stdout_exact_derived": _exact,
    "stdout_line_derived": _line,
    "stdout_identical_to_command": _identical_to_command,
    "stdout_identical_to_scenario": _identical_to_scenario,
    "module_order_in_loaded": _module_order,
    "conflict_messages_contain": _messages,
    "merge_status": _merge_status,
    **{k: _status(k) for k in TEXT_STATUS_LINES},
}


def parse_json(run) -> Dict:
    """The JSON document a ``--format json`` run printed."""
    assert run.stdout.strip(), run.stderr
    return json.loads(run.stdout)
