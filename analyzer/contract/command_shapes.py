"""The shapes of the JSON documents the analysis commands print (see :mod:`analyzer.contract.registry`).

Each command's tuple of :class:`~analyzer.contract.shapes.Shape` values is declared here and named in
its ``CommandSpec``; the history commands' shapes are in :mod:`analyzer.contract.history_shapes`.
docs/cli.md and docs/schemas/ are generated from them (``python -m analyzer.dev.gendocs``).
"""

from __future__ import annotations

from analyzer.contract.agent_shapes import AGENTS_READ
from analyzer.contract.shapes import Either, Enum, Obj, Shape, as_type, list_of
from analyzer.project import vocab

DIAGNOSTIC = Obj({"code": "str", "severity": "str", "message": "str", "path": "str", "line": "int", "col": "int"})
ERROR_BODY = Obj({"diagnostics": list_of(DIAGNOSTIC)})


QUERY_SHAPES = (
    Shape("result", 2, "the goal (and program, facts, added rules) is valid and evaluation finished", True,
          ("MATCH", "NO_MATCH"), (0,),
          Obj({"goal": "str", "pattern": "str", "relation": "str|null", "columns": "list[str]",
               "rows": "list[dict[str|int]]", "tuples": "list[list[str|int]]"},
              {"proofs": "list[any]", "proofs_note": "str", "profile": "list[dict[any]]"}),
          "status MATCH when the goal has at least one answer, else NO_MATCH. columns are the goal's "
          "variables (a one-atom goal without variables: the relation's declared columns); rows are "
          "objects keyed by column, tuples the same rows as lists; relation names the atom of a one-atom "
          "goal. pattern repeats goal (version 1 name). Version 2 added goal, columns and rows. "
          "proofs_note says which proofs --why left out (it stops at 100 proofs and 10,000 lines)."),
    Shape("outputs", 1, "PROGRAM.dl was given without a goal: its .output and .printsize relations", True,
          ("OK",), (0,),
          Obj({"relations": list_of(Obj({"name": "str", "columns": "list[str]", "tuples": "list[list[str|int]]"})),
               "sizes": list_of(Obj({"name": "str", "size": "int"}))})),
    Shape("error", 1, "the goal, program, facts or added rules are invalid, the goal needs a read request or "
          "can never match, or evaluation stopped at a limit", False,
          ("INVALID", "LIMIT"), (2,), ERROR_BODY,
          "INVALID: diagnostics name the bad input (DL… codes); LIMIT: a tuple, time (default 60 s) or memory limit stopped evaluation, proof building or output; the message names the running rule and the relation sizes (docs/reliability.md)."),
)

FACTS_SHAPES = (
    Shape("result", 1, "the project was read; problems in its files are diagnostic facts, not errors", True,
          ("OK", "DIAGNOSTICS"), (0,),
          Obj({"project_root": "str",
               "relations": list_of(Obj({"name": "str", "tuples": "list[list[str|int]]"})),
               "diagnostics": list_of(DIAGNOSTIC)}),
          "status DIAGNOSTICS when any file produced a diagnostic, else OK."),
    Shape("error", 1, "the project root or the options are unusable (no fact base could be built)", False,
          ("INVALID",), (2,), ERROR_BODY),
)

COMPLETENESS = Enum("COMPLETE", "INCOMPLETE", "AMBIGUOUS", "INVALID")
READ_MODULE = Obj({
    "path": "str",
    "disposition": Enum("loaded", "skipped", "missing-required", "missing-optional", "invalid"),
    "reasons": "list[str]", "primary_reason": "str", "details": "list[str]", "required": "bool",
    "matching_input": "str|null",
})
CONFLICT_FINDING = Obj({"code": "str", "status": "str", "message": "str", "entries": "list[str]",
                        "subject": "str", "facet": "str", "scopes": "list[str]"})
READ_SHAPES = (
    Shape("result", 2, "routing ran: valid routing input, or an invalid manifest/routing input "
          "(routing_completeness INVALID, a single invalid manifest.md module, error set)", True,
          COMPLETENESS.values, (0, 1, 2),
          Obj({
              "task": "str", "canonical_task": "str|null",
              "paths": list_of(Obj({"path": "str", "missing_on_disk": "bool"})),
              "explicit": "list[str]",
              "routing_completeness": COMPLETENESS, "shared_routing_completeness": COMPLETENESS,
              "incomplete_dimensions": "list[str]",
              "modules": list_of(READ_MODULE),
              "budget_omissions": list_of(Obj({"module": "str", "unit": "str"})),
              "oversized": list_of(Obj({"module": "str", "budget": "int"})),
              "warnings": "list[str]",
              "conflict_status": Enum(*vocab.statuses()),
              "conflict_findings": list_of(CONFLICT_FINDING),
              "local_overlay_status": Enum("DISABLED", "UNBOUND", "BOUND", "REVIEW"),
              "local_overlay_dir": Either((Obj({"path": "str|null",
                                                "state": Enum("disabled", "absent", "present", "unsafe")}),
                                           as_type("null"))),
              "local_warnings": "list[str]", "local_loaded": "list[str]",
              "strict": "bool", "approved": "bool", "exit_code": "int", "error": "str|null",
              "error_location": Either((Obj({"path": "str", "line": "int", "col": "int"}), as_type("null"))),
              "project_root": Either((Obj({"path": "str", "how": Enum("given", "found", "cwd")}), as_type("null"))),
              "context_pack": Obj({"text": "str", "sha256": "str"}),
          }),
          "status is the routing completeness; exit_code is the exit status of §8.7 (0, 1 or 2). modules are "
          "in the order the text shows them: grouped by disposition (loaded, skipped, missing-required, "
          "missing-optional, invalid), then module order (§8.2). canonical_task is echoed in INVALID results "
          "too; null only when the task itself has no canonical form. error_location is the file position "
          "of the input behind error (null when it is the command line or routing is valid); project_root "
          "is the root read and how it was chosen: given (--project-root), found (the nearest ancestor of "
          "the current directory holding the manifest) or cwd (none does). Version 2 added error_location "
          "and project_root."),
    Shape("error", 1, "the request cannot be evaluated: unknown --task, project root not a directory, or a "
          "memory file the read needs cannot be used (not readable, not UTF-8, over --max-file-bytes, a symlink, "
          "not a regular file): no pack", False,
          ("INVALID",), (2,), ERROR_BODY),
    AGENTS_READ,  # `read --tool` (analyzer/contract/agent_shapes.py)
)

# the merge review block of `check --conflicts --merge-base` (analyzer/render/merge_json.py)
MERGE_LOCATION = Obj({"path": "str", "line": "int", "col": "int", "revision": "str", "commit": "str"})
MERGE_FINDING = Obj({"code": "str", "family": "str", "status": Enum("CONFLICT", "REVIEW"), "message": "str",
                     "text": "str", "locations": list_of(MERGE_LOCATION)})
MERGE_BLOCK = Obj({
    "ref": "str",
    "status": Enum(*vocab.statuses()[:3], "UNAVAILABLE"),  # a merge review is never INVALID
    "exit_code": "int",
    "base": "str|null",
    "head": "str|null",
    "target": "str|null",
    "error": "str|null",
    "findings": list_of(MERGE_FINDING),
})


_BLOCK = vocab.names("block_status_rank")  # OK, FAILED, UNAVAILABLE (rules/vocab/gating.dl)
CHECK_STATUS = Enum(*_BLOCK[:2], *vocab.statuses(), *_BLOCK[2:])  # the order of docs/schemas
CHECK_FINDING = Obj(
    {"code": "str", "family": "str", "message": "str", "entries": "list[str]", "subject": "str", "facet": "str",
     "scopes": "list[str]", "locations": list_of(Obj({"path": "str", "line": "int", "col": "int"}))},
    {"status": "str", "severity": "str", "proofs": "list[dict[any]]", "at": "str",
     # `check --introduced`: the first-parent commit where the finding started ("worktree" for
     # uncommitted changes), its age in commits before HEAD, and whether it is exact (false:
     # present since that commit or earlier, the oldest read within --introduced-depth)
     "introduced": Obj({"commit": "str", "age": "int", "exact": "bool"})})


def family_statuses(names) -> Obj:
    """``families``: each family run (all optional keys) to its status word and exit status."""
    return Obj({}, {name: Obj({"status": CHECK_STATUS, "exit_code": "int"}) for name in names})


# the error document of check and report: why nothing ran, with its exit status
EXIT_DIAGNOSTICS = Obj({"exit_code": "int", "diagnostics": list_of(DIAGNOSTIC)})


# what --select/--ignore/--baseline/--fail-on did (check and report; analyzer/commands/gating.py)
GATE = Obj({"fail_on": Enum(*vocab.fail_on()), "select": "list[str]", "ignore": "list[str]",
            "baseline": "str|null", "hidden": "int"})

CHECK_SHAPES = (
    Shape("result", 1, "the checks ran (findings are not a tool failure); one family, or every family with --all", True,
          CHECK_STATUS.values, (0, 1),
          Obj({"exit_code": "int",
               "families": family_statuses(("routing", "reachability", "freshness", "conflicts", "legacy", "merge",
                                            "packs", "security", "privacy", "hidden-text", "agents")),
               "findings": list_of(CHECK_FINDING)},
              {"merge": MERGE_BLOCK, "gate": GATE}),
          "status is the worst family status (OK/FAILED for routing, reachability, freshness and the legacy check; "
          "CLEAR/REVIEW/CONFLICT/INVALID for conflicts); exit_code the worst family exit status. families maps "
          "each family run to its status and exit code. Each finding has severity (quality checks: ERROR, WARNING, "
          "INFO) or status (conflict statuses; ERROR for the contract finding of the conflict block), the Entry IDs "
          "it involves as written, casefolded subject and facet, scopes, and locations: the path (relative to the "
          "project root), line and column of every entry, Subject, record or manifest line involved. A finding "
          "about one entry or reconciliation record has at (`entry ID`, `record ID`): that heading is its first "
          "location and its fingerprint (--baseline, SARIF) names it rather than every ID of its file. With "
          "--conflicts --merge-base REF, families.merge is the merge review (CLEAR/REVIEW/CONFLICT, or UNAVAILABLE "
          "when Git could not answer: exit 1, never CLEAR) and merge holds its block: ref, commits (base, head, "
          "target), the Git error, and its findings with locations on the revisions (revision label and commit). "
          "With --rules PACK.dl, families.packs is the rule-pack family (OK/FAILED) and its findings have family "
          "packs and the severity their @code block declares. With --with-proofs every "
          "finding has proofs: at most 3 proof trees, one per derived tuple the finding was selected from, each "
          "node {relation, tuple, rule, location, bindings, absent, builtins, children} as `analyze why` prints "
          "them (see_above for a subproof shown before), at most 200 nodes breadth first (elided: how many "
          "subproofs of a node were cut). With --select, --ignore, --baseline or --fail-on, findings holds only "
          "the findings the gate shows, exit_code is the gate's (analyzer/commands/gating.py), and gate says what it did "
          "(hidden: how many findings it hid); status and families stay the rules' words. With --introduced "
          "every finding has introduced: the first-parent commit of HEAD where its fingerprint first appears "
          "(worktree: uncommitted changes), its age in commits before HEAD, and exact (false: present since that "
          "commit or earlier, the oldest of the --introduced-depth memory commits read). With --all, families "
          "security and privacy are the scans of spec §9.8.6 (one finding per line and pattern, MA-SECRET-* and "
          "MA-PRIVACY-*, its message `<kind>: <redacted line>`) and hidden-text the characters a reviewer cannot "
          "see (MA-HIDDEN-*, located by line and column); no message ever holds a matched secret. With --agents (and "
          "--all), families.agents is the agent instruction files check (OK/FAILED, MA-AGENT-*, each finding at the "
          "file, line and column it is about; a repository without agent instruction files has no finding, only the "
          "text block's informational line)."),
    Shape("error", 1, "no check ran: the memory dir is missing (exit 1), is outside docs/ (exit 2), a managed "
          "file the check needs is unusable (a symlink, not a regular file, unreadable, not UTF-8 or over "
          "--max-file-bytes; one diagnostic per file; exit 2), the project configuration is (exit 2) or a --rules "
          "pack is wrong (exit 2)", False, ("INVALID",), (1, 2), EXIT_DIAGNOSTICS),
)

REPORT_MATCH = Enum("yes", "no", "unknown")
REPORT_SHAPES = (
    Shape("result", 1, "the report ran: every check family plus the routing matrix, optional modules and the "
          "reachability graph (findings are not a tool failure)", True, CHECK_STATUS.values, (0, 1),
          Obj({"exit_code": "int",
               "families": family_statuses(("routing", "reachability", "freshness", "conflicts", "legacy", "security",
                                            "privacy", "hidden-text", "agents")),
               "findings": list_of(CHECK_FINDING),
               "tasks": "list[str]",
               "routes": list_of(Obj({"task": "str", "module": "str",
                                      "state": Enum("loaded", "optional", "missing", "absent")})),
               "modules": list_of(Obj({"module": "str", "folder": "str", "activation": "str", "exists": "bool",
                                       "globs": list_of(Obj({"glob": "str", "files": "int", "matched": REPORT_MATCH})),
                                       "matched": Either((REPORT_MATCH, as_type("null")))})),
               "repository_files": Obj({"source": Enum("git", "walk", "none"), "complete": "bool", "files": "int"}),
               "edges": list_of(Obj({"from": "str", "to": "str"})),
               "entries": list_of(Obj({"entry": "str", "module": "str",
                                       "mark": Enum("reachable", "unreachable", "outside", "unchecked")})),
               "agents": list_of(Obj({"tool": "str", "name": "str", "in_use": "str", "memory_reachable": "bool",
                                      "patterns": list_of(Obj({"pattern": "str", "file": "str", "mode": "str"}))}))},
              {"gate": GATE}),
          "status, exit_code, families and findings as check.result with --all. tasks are the canonical tasks in "
          "the reference's order; routes the routing matrix cells (loaded: a required route name whose file exists; "
          "optional: a `Load if present:` name or a task-routed rule whose file exists; missing: required but no "
          "file; absent: optional and no file); modules every declared optional module with its globs, how many "
          "repository files each matches and whether any does (unknown when the listing was cut short); "
          "repository_files how the files were listed (git ls-files, or a walk outside Git); edges the graph from "
          "tasks and the path/explicit inputs to modules; entries every active entry with its mark "
          "(unreachable and outside are the MC-REACH-001 cases; unchecked when the manifest contract is broken). "
          "With --select, --ignore, --baseline or --fail-on, findings and exit_code are the gate's and gate says "
          "what it did, as in check.result."),
    Shape("error", 1, "no report ran: the memory dir is missing (exit 1), a managed file is unusable (exit 2) or "
          "the project configuration is (exit 2)", False, ("INVALID",), (1, 2), EXIT_DIAGNOSTICS),
)


PROOF = "dict[any]"  # a proof tree node: relation, tuple, rule, location, bindings, absent, builtins, children

WHY_SHAPES = (
    Shape("module", 1, "MODULE is a module the project has (a managed file, or a name a route or declaration "
          "names); its proofs explain its disposition, or why it is not in the result", True,
          ("PROVED",), (0,),
          Obj({"task": "str", "module": "str", "disposition": "str", "primary_reason": "str",
               "proofs": f"list[{PROOF}]"}),
          "proofs[0] proves the disposition tuple, proofs[1] (when present) the displayed reason. A module "
          "outside the result has disposition `not-in-result`, primary_reason the kind of its first "
          "`outside_reason` (invalid-routing, not-a-module, policy-exclusion, other-task, not-named; "
          "rules/read/outside.dl) and one proof per reason."),
    Shape("pattern", 1, "--pattern was given: one proof per matching derived tuple (possibly none)", True,
          ("PROVED", "NO_MATCH"), (0,),
          Obj({"task": "str", "pattern": "str", "relation": "str", "proofs": f"list[{PROOF}]"}),
          "NO_MATCH when no tuple matches the pattern; proofs is then empty."),
    Shape("error", 1, "the request cannot be answered: unknown --task or module, a bad --pattern, "
          "MODULE and --pattern both or neither given, a MODULE the project does not have, project root not a "
          "directory, or a memory file the read needs cannot be used", False,
          ("INVALID",), (2,), ERROR_BODY),
)

LOCATION = Obj({"path": "str", "line": "int", "col": "int"})
INDEX_ERROR = Obj({"exit_code": "int", "error": "str", "diagnostics": list_of(DIAGNOSTIC)})


def index_error_shape(what: str) -> Shape:
    """The ``error`` shape of an index or Subject command (the reference's ``Error: …`` cases)."""
    return Shape("error", 1, what, False, ("INVALID", "FAILED"), (1, 2), INDEX_ERROR,
                 "error is the message printed on stderr; diagnostics locate it (one per offending unit or "
                 "file). FAILED (exit 1) only for a missing memory dir, else INVALID (exit 2).")


INDEX_ENTRY = Obj({"id": "str", "status": "str", "scope": "str", "source": "str",
                   "kind": Enum("entry", "legacy", "record", "local"), "locations": list_of(LOCATION)})
LIST_SHAPES = (
    Shape("result", 1, "the index could be built: no refused input, no duplicate ID, and with --local an overlay "
          "that is BOUND (its entries listed) or absent (none to list)", True, ("OK",), (0,),
          Obj({"exit_code": "int",
               "filters": Obj({"status": "str|null", "scope": "str|null", "include_archive": "bool", "local": "bool"}),
               "local_overlay_status": "str|null",
               "entries": list_of(INDEX_ENTRY)}),
          "entries are sorted by (casefolded ID, source), as the text lists them; local_overlay_status is null "
          "without --local."),
    index_error_shape("the memory dir is missing or outside docs/, a managed file is unusable (a symlink, not a "
                      "regular file, unreadable, not UTF-8 or over --max-file-bytes; one diagnostic per file), an "
                      "ID occurs twice in the index, or --local was given and the overlay is UNBOUND, under REVIEW or "
                      "cannot be located"),
)

SHOW_SHAPES = (
    Shape("result", 1, "the index holds ID exactly once (no refused input, no duplicate ID in the index)", True,
          ("OK",), (0,),
          Obj({"exit_code": "int", "id": "str", "kind": Enum("entry", "legacy", "record", "local"),
               "entry_status": "str", "scope": "str", "source": "str",
               "subjects": list_of(Obj({"historical": "str", "current": "str"})),
               "text": "str", "locations": list_of(LOCATION)}),
          "entry_status, scope and source are the list columns; subjects pairs the entry's Subject with its "
          "current canonical Subject (Merged-Into followed; \"unresolved\" when it does not end at one active "
          "Subject); text is the unit with schema-2 body wrapper fence lines hidden."),
    index_error_shape("as `list`, and when ID is not in the index"),
)

SUBJECT_REF = Obj({"id": "str", "source": "str", "status": "str", "locations": list_of(LOCATION)})
SUBJECT_UNIT = Obj({"id": "str", "title": "str", "unit": "str", "locations": list_of(LOCATION)})
SUBJECT_SHAPES = (
    Shape("list", 1, "`subject list`: the contract and the registry are clean", True, ("OK",), (0,),
          Obj({"exit_code": "int",
               "subjects": list_of(Obj({"id": "str", "title": "str", "kind": "str", "canonical_ref": "str|null",
                                        "locations": list_of(LOCATION)}))}),
          "the active Subjects sorted by casefolded ID; canonical_ref as written (null when absent)."),
    Shape("merge", 1, "`subject merge`: the contract and the registry are clean, SOURCE and TARGET differ and "
          "each is one active Subject", True, ("READY", "BLOCKED"), (0,),
          Obj({"exit_code": "int", "source": SUBJECT_UNIT, "target": SUBJECT_UNIT,
               "current_references": list_of(SUBJECT_REF), "historical_references": list_of(SUBJECT_REF),
               "reviews": "list[str]", "required": "list[str]",
               "blockers": list_of(Obj({"message": "str", "entries": "list[str]", "locations": list_of(LOCATION)})),
               "plan_id": "str"}),
          "a preview: nothing is written. BLOCKED when blockers is not empty (the preview still exits 0); "
          "required names the reconciliation a future merge needs; plan_id changes with any relevant edit."),
    index_error_shape("the memory dir is missing or outside docs/, a managed file is unusable (as `list`), the "
                      "manifest is not an "
                      "exact, valid 0.7 contract, the registry has issues, or the merge Subjects are not two "
                      "different active Subjects"),
)

RELATION_INFO = Obj({"name": "str", "kind": Enum("base", "request", "derived"), "doc": "str", "location": "str",
                     "columns": list_of(Obj({"name": "str", "type": Enum("symbol", "number"), "doc": "str"})),
                     "rules": "list[str]", "uses": "list[str]"})
SCHEMA_SHAPES = (
    Shape("result", 1, "the relations asked for (all, --derived, or REL)", True, ("OK",), (0,),
          Obj({"relations": list_of(RELATION_INFO)}),
          "location is the shipped file:line of the .decl; rules the file:line of each rule deriving the "
          "relation (empty for base and request relations); uses the relations those rules read."),
    Shape("error", 1, "REL is not a known relation (the message names the nearest)", False, ("INVALID",), (2,),
          ERROR_BODY),
)

TEST_SHAPES = (
    Shape("result", 1, "the packs loaded and every case ran (some may have failed)", True, ("PASS", "FAIL"), (0, 1),
          Obj({"exit_code": "int", "packs": "list[str]",
               "cases": list_of(Obj({"name": "str", "result": Enum("pass", "fail"), "expected": "list[str]",
                                     "actual": "list[str]", "diff": "list[str]"}))}),
          "status FAIL (exit 1) when any case failed. packs are the pack files tested (DIR's *.dl, then --rules); "
          "cases are in name order, each with its expected finding lines (sorted), the pack findings it "
          "reported (`CODE SEVERITY: message`, in check's order) and a unified diff from expected to actual "
          "(empty when it passed)."),
    Shape("error", 1, "nothing ran: DIR is not a directory or holds no pack or no case, a pack is wrong, an "
          "expected file cannot be read or a fixture project cannot be checked", False, ("INVALID",), (2,),
          ERROR_BODY),
)

CONFORMANCE_SHAPES = (
    Shape("result", 2, "the conformance checks ran (some may have failed)", True, ("PASS", "FAIL"), (0, 1),
          Obj({"source_tree": "bool",
               "checks": list_of(Obj({"id": "str", "title": "str", "result": Enum("pass", "fail", "skip"),
                                      "details": "list[str]", "notes": "list[str]"}))}),
          "status FAIL (exit 1) when any check failed; skipped checks do not fail. details say why a check "
          "failed or was skipped; notes are facts that do not fail it (such as which mentioned codes are "
          "reserved, not implemented). source_tree is false when run from an installed package (checks "
          "that need tests/ and docs/ are skipped). Version 2 added notes."),
)
