"""The command registry: every command, its status, where its code lives and its output shapes.

This is the single list the CLI is built from (live commands only), that ``analyze
conformance`` checks the real parser against, and that docs/cli.md and docs/schemas/ are
generated from. A reserved command is declared but not offered; ``instead`` says what to use
until it lands. Lookups are fail-closed: an undeclared command or shape raises ``KeyError``,
never returns a default.

To add a command: append a ``CommandSpec`` (status "live" once its module exists), declare
each JSON document it prints as a ``Shape`` (see ``analyzer.contract.shapes`` for the type
language), print JSON only through ``analyzer.contract.output.emit_json``, then run
``python -m analyzer.dev.gendocs`` and commit the regenerated docs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence, Tuple

from analyzer.contract.shape_refs import Shapes

if TYPE_CHECKING:
    from analyzer.contract.shapes import Shape

LIVE, RESERVED = "live", "reserved"
# exit 1 of the index and Subject commands, as `check` (§9)
MEMORY_DIR_MISSING = (1, "the memory dir is missing (`Memory directory missing: <path>` on stderr)")


@dataclass(frozen=True)
class CommandSpec:
    """One CLI command: name, status (live|reserved), module, summary, output shapes."""

    name: str
    status: str
    module: str
    summary: str
    description: str = ""
    instead: Optional[str] = None
    shapes: Sequence["Shape"] = ()  # a tuple or :class:`Shapes`
    # what an exit status means: for text-only exits, and wherever a shape's "when" does not say
    # which of its exit codes applies (docs/cli.md prints these next to the shapes)
    exits: Tuple[Tuple[int, str], ...] = ()

    def shape(self, name: str) -> "Shape":
        """The declared shape ``name`` of this command; ``KeyError`` when undeclared."""
        for shape in self.shapes:
            if shape.name == name:
                return shape
        raise KeyError(f"command {self.name!r} declares no output shape {name!r}")


# ---- commands ---------------------------------------------------------------------------

COMMANDS: Tuple[CommandSpec, ...] = (
    CommandSpec(
        "read", LIVE, "analyzer.commands.read",
        "route a task to the memory modules it needs and print the context pack",
        "Decide which memory modules load for --task and the touched --path values (and explicit "
        "--rule/--profile/--area), why every other module does not, whether the pack is complete, "
        "and print the pack. Exit 0, 1 (strict gate) or 2 (invalid routing, a blocking conflict, or a memory "
        "file it needs but cannot use: no pack then).",
        shapes=Shapes("analyzer.contract.command_shapes:READ_SHAPES"),
        exits=((0, "the pack may be used: routing is not INVALID or AMBIGUOUS, the conflict status is CLEAR or "
                   "REVIEW, and --strict-routing (if given) approved it"),
               (1, "--strict-routing rejected an INCOMPLETE pack whose conflict status is not blocking, or "
                   "routing is AMBIGUOUS"),
               (2, "routing INVALID (bad manifest or routing input), conflict status CONFLICT or INVALID, or "
                   "--strict-routing rejected the pack for another reason (conflict, REVIEW on a substantial "
                   "task, entry-schema migration); also a request that cannot be evaluated: an unknown --task "
                   "or a memory file the read needs that cannot be used, each an `Error: ...` line on stderr "
                   "naming the file and the cause, no pack (the `error` shape with --format json)")),
    ),
    CommandSpec(
        "why", LIVE, "analyzer.commands.why",
        "print the proof of a module's routing disposition, or why a pattern does not hold",
        "Evaluate a read request with provenance and print the proof tree of MODULE's disposition "
        "(rule, manifest line, path and glob, or the missing input), or of every tuple matching --pattern, "
        "each under a one-line summary of its decisive evidence; --verbose adds the internal bookkeeping. "
        "A --pattern without tuples is explained: per rule that could derive it, the first body literal that "
        "fails, with the closest facts.",
        shapes=Shapes("analyzer.contract.command_shapes:WHY_SHAPES"),
        exits=((0, "the proofs were printed"),
               (2, "both or neither of MODULE and --pattern, an unknown --task, a bad --pattern, a MODULE "
                   "the project does not have, or a memory file the read needs that cannot be used: "
                   "a message on stderr, and the `error` shape on stdout with --format json")),
    ),
    CommandSpec(
        "facts", LIVE, "analyzer.commands.facts",
        "read a memory project and dump its fact base",
        "Parse every memory file of the project into the base relations of facts/schema.dl and print "
        "them (table, json) or write Soufflé .facts files (souffle --out DIR).",
        shapes=Shapes("analyzer.contract.command_shapes:FACTS_SHAPES"),
        exits=((0, "the fact base was built and printed (table), dumped (json) or written (souffle); problems "
                   "inside memory files are `diagnostic` facts and messages on stderr (the first 50, then a "
                   "count per code and file; JSON keeps all), not a failure"),
               (2, "the project root is not a directory, --format souffle lacks --out, or a --relation is "
                   "undeclared: the `error` shape with --format json, else a diagnostic on stderr")),
    ),
    CommandSpec(
        "query", LIVE, "analyzer.commands.query",
        "ask a goal of the project's memory (or of a datalog program) and print its answers",
        "Evaluate GOAL, a conjunction such as 'owner(I, M, Sc, S, F), !disposition(M, \"loaded\"), "
        "Sc != \"project\"', against the project's fact base and every built-in relation (`analyze "
        "schema` lists them), with the read request options for request-dependent relations; or "
        "against PROGRAM.dl and a Soufflé-style facts directory. Columns are named after the goal's "
        "variables. -e and --rules add rules; --why prints a proof per answer, --stats per-rule statistics.",
        shapes=Shapes("analyzer.contract.command_shapes:QUERY_SHAPES"),
        exits=((0, "the goal was answered (with or without answers), or a program's outputs were printed"),
               (2, "invalid goal, program, facts or added rules (DL… diagnostics), a relation that needs the read "
                   "request asked without one, a goal that can never match, an unknown --task, or a limit")),
    ),
    CommandSpec(
        "schema", LIVE, "analyzer.commands.schema",
        "list the relations a query can ask: base, request and derived, with columns and docs",
        "List every relation `analyze query` can name: base relations extracted from the project, the "
        "request relations and the relations the shipped rules derive, with column names and types, doc "
        "comments and the defining file:line; REL describes one relation, with the rules that derive it.",
        shapes=Shapes("analyzer.contract.command_shapes:SCHEMA_SHAPES"),
        exits=((0, "the relations were listed"), (2, "REL is not a known relation")),
    ),
    CommandSpec(
        "shell", LIVE, "analyzer.commands.shell",
        "ask the memory interactively: goals, rules, schema, proofs, with history and completion",
        "An interactive prompt over the project: a line is a goal (answered as by `analyze query`) or a rule; "
        ".schema [REL], .why GOAL, .whynot GOAL, .load PACK.dl, .task/.path to set the read request, .help. "
        "The project is read once.",
        exits=((0, "end of input or .quit"), (2, "the project root is not a directory")),
    ),
    CommandSpec(
        "mcp", LIVE, "analyzer.commands.mcp",
        "serve the project's memory to agents over the Model Context Protocol (stdio, read-only)",
        "An MCP server over standard input and output (the optional dependency: pip install "
        "'memory-custodian-analyzer[mcp]'). Its tools memory_read, memory_why, memory_whynot, memory_check, "
        "memory_query, memory_schema, memory_diff and memory_explain answer with the documents the commands "
        "print with --format json (explain and why-not: their text); the context pack is the resource "
        "memory://pack/{task}. Every call is bounded by --timeout and --max-answer-bytes, a failed call is a tool "
        "error carrying its code, answers are cached until a memory file changes. The documentation's MCP page configures hosts.",
        exits=((0, "standard input ended"),
               (2, "the `mcp` package is not installed (`MA-USAGE`, the pip command to install it on stderr)")),
    ),
    CommandSpec(
        "explain", LIVE, "analyzer.commands.explain",
        "print the catalogue entry of a finding or reason code, or what a DL/MA code means and what to do",
        "Print the catalogue entry of CODE, read from the metadata of the shipped rule files: title, kind, "
        "severity or status, the rule file and relation that derive it, the explanation and its fixtures. "
        "For the tool's own codes (DL…, MA-…) print what the code means and what to do about it.",
        exits=((0, "the code is in the catalogue, implemented by a rule file or reserved in rules/reserved.dl "
                   "(its entry says which); the entry is printed"),
               (2, "the catalogue has no such code (message on stderr, nothing on stdout)")),
    ),
    CommandSpec(
        "conformance", LIVE, "analyzer.dev.conformance",
        "check the real CLI, golden tests and generated docs against this registry",
        "A developer check: inspect the argparse parser the CLI is built from and, in a source checkout, "
        "the golden cases and the generated docs, and report each check by its stable id (CONF-…). From "
        "an installed package it runs the checks that need no source tree and says so in one line.",
        shapes=Shapes("analyzer.contract.command_shapes:CONFORMANCE_SHAPES"),
        exits=((0, "every check passed or was skipped"), (1, "at least one check failed")),
    ),
    CommandSpec(
        "check", LIVE, "analyzer.commands.check",
        "run the protocol's project checks (routing, reachability, freshness, conflicts)",
        "Check the whole project as the reference's `check` does: --conflicts, else --routing, else "
        "--reachability, else --freshness, else the reference's full legacy check (spec §9.8: core files, manifest "
        "metadata and policies, route files, the per-file entry, budget and unit rules, registry, relations, "
        "conflicts, optional folders, overlay, agent entry files, duplicate IDs, then the security and privacy "
        "scans; --security/--privacy list the scans' redacted findings). --all runs every family in one "
        "evaluation and prints each family's block (the legacy block without the scans). "
        "--format text|json|sarif|junit|github|markdown picks the output (SARIF 2.1.0 for code scanning, JUnit XML, "
        "GitHub workflow annotations, the Markdown reachability report of `analyze report`, with only the families "
        "run in its status and findings); --output FILE "
        "writes it to FILE instead of stdout and --output FORMAT:FILE writes another format too (repeatable), "
        "all from one evaluation. `[tool.memory-analyzer]` in the project's pyproject.toml, or "
        "`.memory-analyzer.toml`, sets defaults for these options; flags win. --rules PACK.dl "
        "(repeatable) adds the findings of a rule pack as one more family, `packs`. "
        "--base REV (with --autonomy plan|confirm|full) judges instead the memory changes the head made "
        "since it left REV (from their merge base, as `git diff REV...HEAD`; the `autonomy` shape). "
        "--introduced names, for each finding, the first-parent commit of HEAD where it started and its age in "
        "commits, like `git blame` for findings: the memory commits are read newest first (at most "
        "--introduced-depth N, default 100) until every finding is seen to start; one still present at the "
        "oldest commit read is `present since` it `or earlier` (JSON `exact` false). Only the memory dir is "
        "traced; source paths and the repository's file list are read as they are now.",
        shapes=Shapes("analyzer.contract.command_shapes:CHECK_SHAPES", "analyzer.contract.history_shapes:AUTONOMY_SHAPES"),
        exits=((0, "no family failed: quality checks without ERROR findings, conflict status CLEAR or REVIEW"),
               (1, "a quality check found an ERROR, the conflict status is CONFLICT or INVALID (a broken manifest "
                   "contract included), or the memory dir is missing (`Memory directory missing: <path>`)"),
               (2, "a managed file is unusable (a symlink, not a regular file, unreadable, not UTF-8 or over "
                   "--max-file-bytes): one `Error: <path>:<line>:<col>: <CODE> <cause>` line per file on stderr, "
                   "the project root is not a directory, the project configuration is unusable (`path:line:col: "
                   "MA-CONFIG-…` on stderr), an --output file cannot be written, a --rules pack is wrong "
                   "(`path:line:col: CODE …`), or --introduced cannot read the history it needs (no Git "
                   "repository, or a shallow clone that stops before the walk ends: the missing commit and "
                   "what to fetch are named)")),
    ),
    CommandSpec(
        "test", LIVE, "analyzer.commands.packtest",
        "run the unit tests of rule packs: fixture projects with expected findings",
        "Test rule packs as `opa test` tests policies: DIR's *.dl files (and --rules) are the packs, and every "
        "subdirectory of DIR holding expected.txt is a case, a fixture project whose pack findings must be "
        "exactly the lines of expected.txt (`CODE SEVERITY: message`, as check prints them). Prints PASS or "
        "FAIL per case, with a diff for each failure.",
        shapes=Shapes("analyzer.contract.command_shapes:TEST_SHAPES"),
        exits=((0, "every case passed"), (1, "at least one case failed"),
               (2, "bad input: no pack or no case, a wrong pack (`path:line:col: CODE …`), an unreadable expected "
                   "file or a fixture that cannot be checked")),
    ),
    CommandSpec(
        "report", LIVE, "analyzer.commands.report",
        "the CI reachability report: status, routing matrix, optional modules, graph, findings",
        "Run every check family and the report's relations in one evaluation and print the reachability "
        "report: a status row per family, the routing matrix of the canonical tasks x modules, every declared "
        "optional module with whether any repository file (git ls-files, else a walk) matches its globs, a "
        "Mermaid flowchart tasks -> modules -> entries with unreachable and outside-canonical entries marked "
        "(entries collapse into per-module counts past a node budget, modules into counted groups past mermaid's "
        "500 edges or 50,000 characters; --output mermaid:FILE writes the full graph), the findings by family with file:line "
        "links, and every entry in a table. Markdown stays under 1 MiB (GitHub's step summary) with a visible "
        "truncation note; --format json has the same content as the report.result shape. --fail-on, --select, "
        "--ignore and --baseline gate its findings and exit status as check's do.",
        shapes=Shapes("analyzer.contract.command_shapes:REPORT_SHAPES"),
        exits=((0, "no family failed (as check --all), or with gating options no finding shown fails --fail-on"),
               (1, "a family failed (as check --all) or a shown finding fails --fail-on, or the memory dir is "
                   "missing"),
               (2, "a managed file is unusable, the project root is not a directory, the project configuration or "
                   "the --baseline is unusable, or an --output file cannot be written")),
    ),
    CommandSpec(
        "list", LIVE, "analyzer.commands.list",
        "list canonical memory entries by ID",
        "List the formal entries of live canonical files, legacy units by stable reference "
        "(<file>#unit-<n>), reconciliation records, archive entries with --include-archive and bound local "
        "entries with --local, sorted by ID; --status and --scope narrow the list (exact values).",
        shapes=Shapes("analyzer.contract.command_shapes:LIST_SHAPES"),
        exits=((0, "the index was printed (possibly `- none`)"),
               MEMORY_DIR_MISSING,
               (2, "`Error: …` on stderr: an unusable managed file (one `Error: <path>:<line>:<col>: <CODE> <cause>` "
                   "line per file, as `read`), a memory dir outside docs/, a duplicate ID (canonical lookup is "
                   "unsafe), or --local with an overlay that is UNBOUND, under REVIEW or cannot be located "
                   "(an absent overlay has no entries to list)")),
    ),
    CommandSpec(
        "show", LIVE, "analyzer.commands.show",
        "print one memory entry by ID",
        "Print the unit the ID index holds for ID (an Entry or record ID, case-insensitive, or a legacy unit "
        "reference): `Source:`, for an entry with a Subject its historical and current canonical Subject ID "
        "(Merged-Into followed), then the unit text with schema-2 body wrapper fence lines hidden.",
        shapes=Shapes("analyzer.contract.command_shapes:SHOW_SHAPES"),
        exits=((0, "the unit was printed"),
               MEMORY_DIR_MISSING,
               (2, "`Error: …` on stderr: ID is not in the index, or any refusal of `list`")),
    ),
    CommandSpec(
        "subject", LIVE, "analyzer.commands.subject",
        "list subjects and preview subject merges",
        "`subject list` prints the active Subjects; `subject merge SOURCE --into TARGET` previews a merge "
        "(current and historical references, review notes, blockers, Plan ID) and never writes. Both need an "
        "exact, valid Protocol 0.7 manifest contract and a Subject registry without issues.",
        shapes=Shapes("analyzer.contract.command_shapes:SUBJECT_SHAPES"),
        exits=((0, "the list or the preview was printed (a preview with blockers still exits 0)"),
               MEMORY_DIR_MISSING,
               (2, "`Error: …` on stderr: an unusable managed file or memory dir (as `list`), an invalid or non-0.7 manifest "
                   "contract, a registry with issues, or merge Subjects that are equal, missing or not active")),
    ),
    CommandSpec(
        "diff", LIVE, "analyzer.commands.diff",
        "classify the memory changes between two revisions (A add, B merge, C rewrite, D delete, E metadata)",
        "Compare the memory dir at --base with --head (default: the work tree) and give every Entry, Subject "
        "and reconciliation record that differs one class with its sub-kind, its file:line on both sides and "
        "the commits that touched it. A unit that cannot be read is a BLINDSPOT, never an add or a delete. "
        "Read-only: Git is only queried.",
        shapes=Shapes("analyzer.contract.history_shapes:DIFF_SHAPES"),
        exits=((0, "every changed unit was classified (possibly none)"),
               (2, "a BLINDSPOT (a changed unit or a file that could not be read), a managed file that cannot "
                   "be used in either revision or the work tree (`analyze diff: error: <path>:<line>:<col>: "
                   "MA-FILE-… <cause> (in the work tree | at <rev>)`, as read reports it), or Git could not "
                   "answer: a revision it cannot resolve, not a repository, a revision a shallow or partial "
                   "clone does not hold (`analyze diff: error: …`, code MA-GIT); the `error` shape with --format json, check's error document in its CI "
                   "formats")),
    ),
    CommandSpec(
        "readiness", LIVE, "analyzer.commands.readiness",
        "take the readings R1-R4 that decide whether an agent may have full autonomy",
        "Read the memory commits of the 30 days before --as-of (default: the commit time of --head, never the "
        "wall clock) and take the readings: R1 the agent's changes are not degenerate, R2 it says no, R3 a real "
        "restore happened, R4 its revert/reject rate converges. Agent commits carry a `Memory-Agent:` trailer or "
        "match --agent-author (the configuration's `agent-authors`).",
        shapes=Shapes("analyzer.contract.history_shapes:READINESS_SHAPES"),
        exits=((0, "all four readings pass"), (1, "a reading fails or is null (not enough history)"),
               (2, "the history cannot be read (a managed file of a window commit that is not UTF-8: "
                   "`<path>:<line>:<col>: MA-FILE-ENCODING … (at <commit>)`), --as-of is not a time, a bad pattern "
                   "or configuration (`<file>:<line>:<col>: MA-CONFIG-…`)")),
    ),
    CommandSpec(
        "fleet", LIVE, "analyzer.commands.fleet",
        "check, report on, query or export many repositories at once, the rules evaluated in SQL",
        "fleet check|report|query|export SOURCE...: extract each repository (a directory of checkouts, one "
        "repository, or a file listing paths), evaluate rules/check/check.dl over them in DuckDB (check and "
        "report: 50 repositories at a time, while the next are extracted) and print each repository's "
        "`check --all` result, a fleet report, the answer to a datalog goal or SQL, or Parquet files. Needs the [fleet] extra: pip install 'memory-custodian-analyzer[fleet]'.",
        shapes=Shapes("analyzer.contract.fleet_shapes:FLEET_SHAPES"),
        exits=((0, "every repository's check exits 0 (check); the report, answer or files were written"),
               (1, "fleet check: the worst repository's `check --all` exits 1"),
               (2, "a repository's check exits 2 (query and export then answer nothing: each such "
                   "repository is named with its error), a source is unusable (MA-FLEET-INPUT), an optional "
                   "extra is missing (MA-FLEET-EXTRA), or the SQL back end cannot run the rules (DL940, DL941)")),
    ),
    CommandSpec(
        "restore", LIVE, "analyzer.commands.restore",
        "preview restoring one memory unit to its text at a base revision (never applied)",
        "Show the Entry, Subject or record --preview ID (or a free-form unit named as diff names it, "
        "`<file>#unit-<n>`) as it was at --base and a unit-level patch that "
        "`git apply --check` accepts against --head (default: the work tree). MA-ROLLBACK-002 warns when the unit "
        "changed again after the change, because a restore would discard those edits. Nothing is applied.",
        shapes=Shapes("analyzer.contract.history_shapes:RESTORE_SHAPES"),
        exits=((0, "READY (a patch is shown) or UNCHANGED (nothing to restore)"),
               (1, "WARNING: MA-ROLLBACK-002, the restore would discard later edits (the patch is still shown)"),
               (2, "the ID is in neither revision, its change cannot be read (BLINDSPOT), or Git cannot answer")),
    ),
)


def command(name: str) -> CommandSpec:
    """Look up a declared command; an undeclared name is an error, never a default."""
    for spec in COMMANDS:
        if spec.name == name:
            return spec
    raise KeyError(f"undeclared command {name!r}")


def shape(command_name: str, shape_name: str) -> "Shape":
    """Look up a declared output shape; ``KeyError`` for an undeclared command or shape."""
    return command(command_name).shape(shape_name)


def schema_name(command_name: str, shape_name: str) -> str:
    """The name a document carries in ``schema.name`` and its docs/schemas/ file stem."""
    return f"{command_name}.{shape_name}"
