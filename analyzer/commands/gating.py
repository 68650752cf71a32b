"""CI gating of a check result, as linters do it: ``--select`` / ``--ignore`` codes or code
prefixes, ``--baseline FILE`` (a previous ``check.result`` / ``report.result`` JSON or SARIF
document: findings whose fingerprint it holds are not reported again), and ``--fail-on``.

The findings, their severities and statuses are the rules'; gating only hides some of them,
and rules/check/shown.dl judges what is left (over the words of the findings left): the
status word of what a filtered family still shows, and the exit status of each family and of
the run by the threshold ``--fail-on`` names:

============  =====================================================================
``review``    fail on any REVIEW or WARNING finding or worse (the strictest)
``conflict``  fail on CONFLICT, INVALID or ERROR findings (the reference's rule)
``error``     fail on INVALID or ERROR findings only
``never``     never fail on findings
============  =====================================================================

Without any gating option the exit status stays the reference's, untouched. A family that
failed without a finding to show (a merge review Git could not answer: UNAVAILABLE) keeps
failing unless ``--fail-on never``: fail closed.

The command-line side, shared by ``analyze check`` and ``analyze report``, is here too: the
options (:func:`add_arguments`), the gate they make with its baseline read (:func:`make_gate`)
and the note a gated run prints (:func:`apply_gate`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Set

from analyzer.core import exitcodes
from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Finding, Location
from analyzer.project import vocab
from analyzer.query.program import shipped_program
from analyzer.render import findings as common


def unknown_patterns(patterns: Sequence[str], known: Set[str]) -> List[str]:
    """The ``--select`` / ``--ignore`` patterns that no known code starts with: a typo there
    would hide every finding and pass the gate, so it is an error, not an empty selection."""
    return [p for p in patterns if not any(code.startswith(p) for code in known)]


class BaselineError(Exception):
    """A baseline file that cannot be used (exit 2, code MA-BASELINE)."""


@dataclass
class Gate:
    """The gating options of one run (all empty: the reference's behaviour)."""

    fail_on: Optional[str] = None
    select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    baseline: Optional[str] = None
    known: Set[str] = field(default_factory=set)  # fingerprints of the baseline

    def active(self) -> bool:
        """Whether any option was given."""
        return bool(self.fail_on or self.select or self.ignore or self.baseline)

    def shown(self, finding: Finding, fingerprint: str) -> bool:
        """Whether a finding is reported: selected, not ignored, not in the baseline."""
        if self.select and not any(finding.code.startswith(p) for p in self.select):
            return False
        if any(finding.code.startswith(p) for p in self.ignore):
            return False
        return fingerprint not in self.known


#: largest baseline read (bytes); a SARIF log of 100,000 findings is about 100 MB
BASELINE_CAP = 256 * 1024 * 1024
#: JSON documents the baseline may be (``schema.name``), besides a memory-analyzer SARIF log
BASELINE_SHAPES = ("check.result", "report.result")
#: the SARIF driver name our logs carry (analyzer/render/check_sarif.py)
SARIF_DRIVER = "memory-analyzer"


def load_baseline(path: str) -> Set[str]:
    """The fingerprints of a previous run's JSON (check.result, report.result) or SARIF.

    The file may come from the project's configuration, so it is read as untrusted input:
    a regular file only (a FIFO never blocks, ``/dev/zero`` is refused before any read), at
    most :data:`BASELINE_CAP` bytes, strict UTF-8 JSON of bounded depth, and every value
    it is read for checked for its type. Anything else, a SARIF log of another tool or a
    document of another shape (JUnit, a truncated log) included, is :class:`BaselineError`:
    a baseline that cannot be read must never make every finding look new or old."""
    from analyzer.project.files import read_bytes

    data, problem = read_bytes(path, BASELINE_CAP, follow_symlinks=True)
    if problem is not None:
        raise BaselineError(f"{path}: cannot read the baseline: {problem}")
    return parse_baseline(data, path)


def parse_baseline(data: bytes, path: str) -> Set[str]:
    """The fingerprints a baseline's bytes hold, or :class:`BaselineError` naming ``path``
    (see :func:`load_baseline`; the fuzzers call this directly)."""
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BaselineError(f"{path}: the baseline is not UTF-8 (byte {exc.start})") from None
    except RecursionError:
        raise BaselineError(f"{path}: the baseline is nested too deeply to be a check document") from None
    except ValueError as exc:
        raise BaselineError(f"{path}: the baseline is not JSON (a JUnit or truncated file?): {exc}") from None
    if isinstance(document, dict) and "runs" in document:
        return _sarif_fingerprints(path, document)
    name = _get(document, "schema", "name")
    if name not in BASELINE_SHAPES or not isinstance(document.get("findings"), list):
        raise BaselineError(f"{path}: neither a memory-analyzer SARIF log nor a check.result / report.result "
                            f"JSON document")
    merge = document.get("merge")
    merged = merge.get("findings", []) if isinstance(merge, dict) else []
    if merge is not None and not isinstance(merge, dict) or not isinstance(merged, list):
        raise BaselineError(f"{path}: its merge review is not an object with a list of findings")
    found = [_finding(path, f) for f in [*document["findings"], *merged]]
    return set(common.fingerprints(found))


def _get(document, *keys):
    for key in keys:
        document = document.get(key) if isinstance(document, dict) else None
    return document


def _text(path: str, value, what: str) -> str:
    """``value`` when it is a string UTF-8 can hold (json accepts lone surrogates)."""
    if not isinstance(value, str):
        raise BaselineError(f"{path}: {what} is not a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BaselineError(f"{path}: {what} holds a lone surrogate, "
                            f"not text") from None
    return value


def _sarif_fingerprints(path: str, document: dict) -> Set[str]:
    runs = document["runs"]
    if not isinstance(runs, list) or not runs:
        raise BaselineError(f"{path}: a SARIF log without runs (truncated?)")
    out: Set[str] = set()
    for number, run in enumerate(runs, 1):
        driver = _get(run, "tool", "driver", "name")
        if driver != SARIF_DRIVER:
            shown = driver if isinstance(driver, str) else "no tool name"
            raise BaselineError(f"{path}: run {number} is a SARIF log of another tool ({shown[:60]!r}), "
                                f"not of {SARIF_DRIVER}")
        results = run.get("results")
        if not isinstance(results, list):
            raise BaselineError(f"{path}: run {number} has no list of results (truncated?)")
        for index, result in enumerate(results, 1):
            value = _get(result, "partialFingerprints", common.FINGERPRINT_KEY)
            out.add(_text(path, value, f"result {index}'s {common.FINGERPRINT_KEY}"))
    return out


def _finding(path: str, data) -> Finding:
    if not isinstance(data, dict):
        raise BaselineError(f"{path}: a finding is not an object")
    text = {key: _text(path, data.get(key, ""), f"a finding's {key}")
            for key in ("code", "family", "message", "subject", "facet", "at")}
    if not all(text[key] for key in ("code", "family", "message")):
        raise BaselineError(f"{path}: a finding lacks code, family, message or locations")
    lists = {}
    for key in ("entries", "scopes", "locations"):
        value = data.get(key, [] if key != "locations" else None)
        if not isinstance(value, list):
            raise BaselineError(f"{path}: a finding lacks code, family, message or locations")
        lists[key] = value
    locations = []
    for place in lists["locations"]:
        line, col = _get(place, "line"), _get(place, "col")
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (line, col)):
            raise BaselineError(f"{path}: a finding's location needs a path, a line and a column")
        locations.append(Location(_text(path, _get(place, "path"), "a location's path"), line, col))
    return Finding(text["code"], text["family"], text["message"],
                        entries=[_text(path, e, "an entry ID") for e in lists["entries"]],
                        subject=text["subject"], facet=text["facet"],
                        scopes=[_text(path, e, "a scope") for e in lists["scopes"]], at=text["at"],
                        locations=locations)


def apply(result: CheckResult, gate: Gate) -> CheckResult:
    """The result with only the findings the gate shows, and the gate's exit status. An error
    result, or a run without gating options, is returned as it is."""
    if result.failure is not None or not gate.active():
        return result
    findings = common.all_findings(result)
    keep = [gate.shown(f, p) for f, p in zip(findings, common.fingerprints(findings))]
    families, merge, shown_by, at = [], result.merge, [], 0
    for n, family in enumerate(result.families):
        kept = [f for i, f in enumerate(family.findings) if keep[at + i]]
        at += len(family.findings)
        families.append(dataclasses.replace(family, findings=kept, hidden=len(family.findings) - len(kept)))
        shown_by += [(n, common.word(f)) for f in kept]
        if family.block == "merge" and result.merge is not None:
            count = len(result.merge.findings)
            merge = dataclasses.replace(result.merge, findings=[f for f, k in zip(result.merge.findings,
                                                                                  keep[at:at + count]) if k])
            shown_by += [(n, common.word(f)) for f in merge.findings]
            at += count
    statuses, exits, exit_code = _judged(families, shown_by, gate.fail_on or "conflict")
    families = [dataclasses.replace(f, shown_status=statuses[n], shown_exit=exits[n]) if f.hidden else f
                for n, f in enumerate(families)]
    hidden = sum(1 for k in keep if not k)
    summary = {"fail_on": gate.fail_on or "conflict", "select": list(gate.select), "ignore": list(gate.ignore),
               "baseline": gate.baseline, "hidden": hidden}
    overall = None
    if hidden:  # only a filtered run shows a status of its own
        from analyzer.query.check import combine  # the one ranking of family statuses (loads the query layer)

        overall = combine([dataclasses.replace(f, status=f.shown_status or f.status) for f in families]).status
    return dataclasses.replace(result, families=families, merge=merge, exit_code=exit_code,
                               gate=summary, shown_status=overall)


def _judged(families: list, shown: list, threshold: str):
    """``(status, exit, run exit)``: rules/check/shown.dl's answers for a gated run whose
    ``families`` say how many findings the gate hid and whose ``shown`` are ``(family,
    word)`` of the findings left: the status word of what each filtered family still shows
    and the exit status ``--fail-on threshold`` gives each family (by place), and the run's."""
    facts = {"gate_family": [(n, f.block, f.status, f.exit_code) for n, f in enumerate(families)],
             "gate_hid": [(n,) for n, f in enumerate(families) if f.hidden],
             "gate_shown": shown, "gate_threshold": [(threshold,)]}
    db = shipped_program("check/shown.dl").evaluate(facts)
    ((exit_code,),) = db.relation("gate_exit")
    return dict(db.relation("gate_shown_status")), dict(db.relation("gate_shown_exit")), exit_code


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the gating options (also set by the project configuration)."""
    vocab.lazy_choices(parser.add_argument(
        "--fail-on", default=None,
        help="exit 1 on findings at this level or worse: review (REVIEW, WARNING), conflict (CONFLICT, "
             "INVALID, ERROR: the reference's rule), error (INVALID, ERROR), never; default: the "
             "reference's exit rule"), "fail_on")
    parser.add_argument("--select", action="append", default=None, metavar="CODES",
                        help="report only these codes or code prefixes (comma-separated, repeatable), e.g. MC-FRESH")
    parser.add_argument("--ignore", action="append", default=None, metavar="CODES",
                        help="do not report these codes or code prefixes (comma-separated, repeatable)")
    parser.add_argument("--baseline", default=None, metavar="FILE",
                        help="report only findings not in FILE, a previous --format json or sarif output "
                             "(matched by fingerprint)")


def make_gate(args: argparse.Namespace, command: str = "check", extra_codes=(), on_error=None):
    """The gate of the command line with its baseline read, or exit 2 (an int) for an
    unusable baseline or a ``--select`` / ``--ignore`` pattern that matches no code the
    run can report (the catalogue's and ``extra_codes``, a rule pack's); ``command`` names
    the command in the error line; ``on_error(code, message)`` is told the error too (check
    writes it to its requested artefacts)."""
    def codes(values):
        return [c.strip() for value in values or () for c in value.split(",") if c.strip()]

    gate = Gate(args.fail_on, codes(args.select), codes(args.ignore), args.baseline)
    if gate.select or gate.ignore:
        from analyzer.contract import catalog

        known = {e.code for e in catalog.load().entries if e.kind not in catalog.VALUE_KINDS} | set(extra_codes)
        unknown = unknown_patterns(list(gate.select) + list(gate.ignore), known)
        if unknown:
            message = (f"--select/--ignore: no finding code starts with {', '.join(map(repr, unknown))} (codes are "
                       "case-sensitive, e.g. MC-FRESH or MC-CONFLICT-001; `analyze explain CODE` describes one)")
            print(f"analyze {command}: error: MA-USAGE: {message}", file=sys.stderr)
            if on_error is not None:
                on_error("MA-USAGE", message)
            return exitcodes.INVALID
    if args.baseline:
        try:
            gate.known = load_baseline(args.baseline)
        except BaselineError as exc:
            print(f"analyze {command}: error: MA-BASELINE: {exc}", file=sys.stderr)
            if on_error is not None:
                on_error("MA-BASELINE", str(exc))
            return exitcodes.INVALID
    return gate


def apply_gate(result, gate, command: str = "check"):
    """The gated result; a note on stderr when the gate hid findings or changed the exit."""
    gated = apply(result, gate)
    if gated.gate is not None and (gated.gate["hidden"] or gated.exit_code != result.exit_code):
        print(f"analyze {command}: {gated.gate['hidden']} finding(s) hidden by --select/--ignore/--baseline; "
              f"exit {gated.exit_code} by --fail-on {gated.gate['fail_on']}", file=sys.stderr)
    return gated
