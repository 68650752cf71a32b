"""``analyze check --format sarif``: the check result as SARIF 2.1.0 for code scanning.

One run; ``tool.driver.rules`` has one entry per code that has a result, from the code's
``@code`` block (title, explanation, declared severity); each result has the finding's
first location as ``locations`` and the others as ``relatedLocations``, repository-relative
under ``%SRCROOT%`` and percent-encoded as RFC 3986 wants (a space, ``%``, ``#`` or a
non-ASCII letter in a path is an escape, never a different file), and a ``partialFingerprints``
entry that does not depend on line numbers. Code scanning rejects a result without a location:
a finding that names no file or line (Git unavailable for ``@rev`` Evidence) is placed on the
memory dir's ``manifest.md``, and its ``locationFallback`` property says why. ``helpUri`` is absolute:
the documented base (:data:`HELP_URI`, the ``help-uri`` configuration key or ``--help-uri``)
with the code's anchor; a rule pack's code links to its ``@help`` URL, or to nothing (never to
the pack's local path). ``automationDetails.id`` is ``CATEGORY/`` from ``--sarif-category``, so
two uploads in one job stay apart. GitHub code scanning's documented upload limits (25,000 results and rules per run,
1,000 locations per result, 10 MB gzip-compressed) are kept by dropping the least severe
results last in result order, deterministically; the run's properties and stderr say so.
"""

from __future__ import annotations

import gzip
import json
import re
from typing import Any, Dict, List, Optional, Tuple

from urllib.parse import quote

from analyzer import __version__
from analyzer.contract.check_model import CheckResult
from analyzer.contract.results import Finding, Location
from analyzer.core.fingerprint import ruleset_fingerprint
from analyzer.project import vocab
from analyzer.render import findings as common

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
#: Where docs/findings.md is published: the default base of every built-in rule's ``helpUri``
#: (docs/ci.md; the ``help-uri`` configuration key overrides it, e.g. with a fork's copy).
HELP_URI = "https://pypi.org/project/memory-custodian-analyzer/"
DEFAULT_CATEGORY = "memory-analyzer/check"
MAX_RESULTS = 25_000  # GitHub: results per run (also rules per run)
MAX_LOCATIONS = 1_000  # GitHub: locations per result
MAX_GZIP_BYTES = 10 * 1024 * 1024  # GitHub: SARIF upload size, gzip-compressed


def _text(value: str) -> Dict[str, str]:
    return {"text": value}


def _name(title: str) -> str:
    # SARIF's rule name is an identifier: the title's words in PascalCase
    return "".join(w[:1].upper() + w[1:] for w in re.findall(r"[A-Za-z0-9]+", title))


def uri(path: str) -> str:
    """A repository-relative path as a URI reference (RFC 3986): every byte but unreserved
    characters and ``/`` percent-encoded, so ``a b%20#.md`` stays that file."""
    return quote(path, safe="/")


def help_link(code: str, result: Optional[CheckResult] = None, base: str = HELP_URI) -> str:
    """The absolute ``helpUri`` of a code: a rule pack's ``@help`` (``""`` without one; a local
    pack path is no link a reader of code scanning can open), else ``base#anchor``."""
    pack = common.pack_code(code, result) if result is not None else None
    if pack is not None:
        return pack[3]
    return f"{base.split('#', 1)[0]}#{common.anchor(code)}"


def rule(code: str, result: Optional[CheckResult] = None, base: str = HELP_URI) -> Dict[str, Any]:
    """A ``reportingDescriptor`` from the code's ``@code`` block (a rule pack's too)."""
    title, explanation, severity = common.describe(code, result)
    full = explanation.replace("\n", " ").strip() or title
    link = help_link(code, result, base)
    see = (f" See {link}.", f"\n\nSee [{code}]({link}).") if link else ("", "")
    out = {
        "id": code,
        "name": _name(title) or code,
        "shortDescription": _text(title),
        "fullDescription": _text(full),
        "help": {"text": full + see[0], "markdown": f"**{title}**\n\n{explanation}{see[1]}"},
        "defaultConfiguration": {"level": common.word_level(severity or "")},
        "properties": {"tags": ["memory-analyzer"]},
    }
    if link:
        out["helpUri"] = link
    return out


def _location(loc, prefix: str, note: str = "") -> Dict[str, Any]:
    out: Dict[str, Any] = {"physicalLocation": {
        "artifactLocation": {"uri": uri(common.repo_path(loc, prefix)), "uriBaseId": "%SRCROOT%"},
    }}
    if loc.line > 0:  # line 0: the file itself, no region
        out["physicalLocation"]["region"] = {"startLine": loc.line, "startColumn": loc.col}
    if note:  # a line of another revision (merge review): the message names it
        out["message"] = _text(note)
    return out


def located(finding: Finding, memory_dir: str) -> Tuple[List[Location], str]:
    """The finding's locations, or (when it names no line) the one it falls back to and why:
    code scanning rejects a result without a location."""
    if finding.locations:
        return list(common.shown_locations(finding)), ""
    return [Location(f"{memory_dir}/manifest.md")], ("the finding names no file or line of the project; "
                                                      "placed on the memory dir's manifest")


def result_entry(finding: Finding, fingerprint: str, index: int, prefix: str,
                 memory_dir: str = "docs/memory") -> Dict[str, Any]:
    """A SARIF ``result`` of one finding."""
    where, fallback = located(finding, memory_dir)
    where = where[:MAX_LOCATIONS]
    out: Dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index,
        "level": common.level(finding),
        "message": _text(finding.message),
        "locations": [_location(l, prefix, common.revision_note(finding, 0)) for l in where[:1]],
        "partialFingerprints": {common.FINGERPRINT_KEY: fingerprint},
        "properties": {"family": finding.family, "severity": common.word(finding)},
    }
    if len(where) > 1:
        out["relatedLocations"] = [{"id": n, **_location(l, prefix, common.revision_note(finding, n))}
                                   for n, l in enumerate(where[1:], 1)]
    flows = [flow for flow in (code_flow(proof, prefix) for proof in finding.proofs or ()) if flow]
    if flows:  # --with-proofs
        out["codeFlows"] = flows
    if fallback:
        out["properties"]["locationFallback"] = fallback
    if common.shown_entries(finding):
        out["properties"]["entries"] = list(common.shown_entries(finding))
    if finding.scopes:
        out["properties"]["scopes"] = list(finding.scopes)
    for key in ("subject", "facet", "at"):
        if getattr(finding, key):
            out["properties"][key] = getattr(finding, key)
    if getattr(finding, "introduced", None) is not None:  # --introduced: where it started
        out["properties"]["introduced"] = finding.introduced.payload()
    return out


def code_flow(proof: Dict[str, Any], prefix: str) -> Optional[Dict[str, Any]]:
    """A ``codeFlow`` of one proof (``check --with-proofs``): the project lines of the facts it
    rests on, in proof order, each with its fact as message; None when no fact has a line."""
    from analyzer.query.proofs import fact_locations

    steps = [{"location": {**_location(Location(path, line, col), prefix), "message": _text(fact)}}
             for fact, path, line, col in fact_locations(proof)]
    if not steps:
        return None
    return {"message": _text(f"why {proof['relation']} holds"), "threadFlows": [{"locations": steps}]}


def _kept(findings: List[Finding], limit: int) -> List[int]:
    """Indexes of the findings kept under ``limit``: the most severe first, then result
    order; the kept ones stay in result order."""
    if len(findings) <= limit:
        return list(range(len(findings)))
    rank = vocab.level_ranks()  # most severe level first (rules/vocab/levels.dl)
    ranked = sorted(range(len(findings)), key=lambda i: (rank[common.level(findings[i])], i))
    return sorted(ranked[:limit])


def sarif_document(result: CheckResult, prefix: str = "", limit: int = MAX_RESULTS,
                   options: Optional[Dict[str, str]] = None) -> Tuple[Dict[str, Any], int]:
    """The SARIF log and the number of results left out to stay within the upload limits.
    ``options``: ``help_uri`` (the base of built-in rules' links), ``category`` (of
    ``automationDetails.id``), ``memory_dir`` (for the fallback location)."""
    options = options or {}
    memory_dir = options.get("memory_dir") or "docs/memory"
    findings = common.all_findings(result)
    prints = common.fingerprints(findings)
    kept = _kept(findings, limit)
    codes = sorted({findings[i].code for i in kept})
    index = {code: n for n, code in enumerate(codes)}
    results = [result_entry(findings[i], prints[i], index[findings[i].code], prefix, memory_dir) for i in kept]
    omitted = len(findings) - len(kept)
    clipped = sum(1 for i in kept if len(findings[i].locations) > MAX_LOCATIONS)
    invocation: Dict[str, Any] = {"exitCode": result.exit_code, "executionSuccessful": result.failure is None}
    if result.failure is not None:
        notification: Dict[str, Any] = {"level": "error", "message": _text(result.failure.message),
                                        "descriptor": {"id": result.failure.code}}
        if result.failure.where.path:  # no file is at fault in a Git failure: no location, not an empty URI
            notification["locations"] = [{"physicalLocation": {
                "artifactLocation": {"uri": uri(prefix + result.failure.where.path), "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": result.failure.where.line, "startColumn": result.failure.where.col}}}]
        invocation["toolExecutionNotifications"] = [notification]
    properties: Dict[str, Any] = {
        "status": result.status,
        "families": {f.name: {"status": f.status, "exitCode": f.exit_code} for f in result.families},
        "rulesetFingerprint": ruleset_fingerprint(),
        "truncated": omitted > 0 or clipped > 0,
    }
    if result.gate is not None:
        properties["gate"] = dict(result.gate)
    if omitted or clipped:
        properties["truncation"] = {"omittedResults": omitted, "resultsWithClippedLocations": clipped,
                                    "limits": {"results": limit, "locationsPerResult": MAX_LOCATIONS}}
    run = {
        "tool": {"driver": {
            "name": "memory-analyzer", "version": __version__, "semanticVersion": __version__,
            "rules": [rule(code, result, options.get("help_uri") or HELP_URI) for code in codes],
        }},
        "automationDetails": {"id": (options.get("category") or DEFAULT_CATEGORY).rstrip("/") + "/"},
        "originalUriBaseIds": {"%SRCROOT%": {"description": _text("the root of the repository")}},
        "invocations": [invocation],
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": properties,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, omitted


_RESULTS = "\x00results\x00"


def dumps(document: Dict[str, Any]) -> str:
    """The printed SARIF: indented, ASCII, final newline, each result on one line. The results
    (thousands on a big project) go through the C encoder one by one: the indenting encoder
    is pure Python and cost more than the whole check otherwise (docs/performance.md)."""
    run = document["runs"][0]
    results = run["results"]
    run["results"] = _RESULTS
    try:
        text = json.dumps(document, indent=2, ensure_ascii=True)
    finally:
        run["results"] = results
    body = ",\n".join("        " + json.dumps(r, ensure_ascii=True) for r in results)
    return text.replace(json.dumps(_RESULTS), f"[\n{body}\n      ]" if results else "[]", 1) + "\n"


def render_sarif(result: CheckResult, prefix: str = "", warn=None, options: Optional[Dict[str, str]] = None) -> str:
    """The SARIF text; past the upload limits fewer results, with a note through ``warn``."""
    limit = MAX_RESULTS
    while True:
        document, omitted = sarif_document(result, prefix, limit, options)
        text = dumps(document)
        # compressing costs time: only a text over the limit can compress to over the limit
        if limit == 0 or len(text) <= MAX_GZIP_BYTES or \
                len(gzip.compress(text.encode("ascii"), mtime=0)) <= MAX_GZIP_BYTES:
            break
        limit = max(0, min(limit, len(common.all_findings(result))) // 2)
    if warn is not None and document["runs"][0]["properties"]["truncated"]:
        trunc = document["runs"][0]["properties"]["truncation"]
        warn(f"analyze check: SARIF truncated to GitHub code scanning's upload limits: {omitted} result(s) left "
             f"out, {trunc['resultsWithClippedLocations']} result(s) with locations cut to {MAX_LOCATIONS} "
             "(see runs[0].properties.truncation)")
    return text
