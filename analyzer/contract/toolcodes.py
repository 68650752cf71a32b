"""The tool's own codes: rule-language diagnostics (DL…) and analyzer diagnostics (MA-…),
each with what it means and what to do about it. ``analyze explain DL108`` prints an entry;
a test checks that every code the source raises is listed here.

Protocol codes (MC-…) are not here: they live in the ``@code`` blocks of rules/*.dl.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional


@dataclass(frozen=True)
class ToolCode:
    """One DL or MA code: its meaning and the fix."""

    code: str
    meaning: str
    fix: str

    def render(self) -> str:
        """The entry as ``analyze explain`` prints it."""
        family = "rule-language diagnostic" if self.code.startswith("DL") else "analyzer diagnostic"
        return f"{self.code} ({family})\n\n{self.meaning}\n\nWhat to do: {self.fix}\n"


# what to do, for the DL codes whose meaning comes from the syntax and check tables
_FIXES: Dict[str, str] = {
    "DL001": "read the list of what was expected at the caret and correct the statement there.",
    "DL002": "end the statement with `.`, or put `,` between body literals.",
    "DL003": "write the rule as `head :- body.`.",
    "DL004": "close the argument list with `)`.",
    "DL005": "close the string with `\"` on the same line (write \\n for a line break).",
    "DL006": "give every column a type: `name: symbol` or `name: number`.",
    "DL007": "write the type as `symbol` or `number`, lowercase.",
    "DL008": "write negation as `!p(...)`.",
    "DL009": "write `<=` and `>=`.",
    "DL010": "write equality as a single `=`.",
    "DL011": "put `,` between the arguments.",
    "DL012": "remove the directive; types are only `symbol` and `number` and functors are builtins "
             "(docs/rule-language.md lists them).",
    "DL013": "remove the trailing comma, or give the rule a body literal after `:-`.",
    "DL014": "write the aggregate as `count : { body }` or `sum X : { body }`.",
    "DL015": "remove the character (identifiers are letters, digits and `_`; strings are in double quotes).",
    "DL016": "use only the escapes \\\" \\\\ \\n \\t inside strings.",
    "DL017": "check the path: `.include` is relative to the including file; `--rules` to the current directory.",
    "DL018": "break the cycle: include a shared file from both instead of each other.",
    "DL019": "use a number within -9223372036854775808..9223372036854775807 (64-bit signed), or a symbol.",
    "DL020": "compute the expression in steps: bind parts to variables (`Y = X * 2, Z = Y + 1`).",
    "DL021": "use cat(A, B, ...), strlen(S), substr(S, Start, Len), to_number(S) or to_string(N) as terms; "
             "call other builtins as literals with the result last, e.g. lower(S, L).",
    "DL101": "add a `.decl` for the relation (or `.include` the file that declares it); "
             "`analyze schema` lists the built-in relations.",
    "DL102": "use the first declaration's columns, or give the new relation another name.",
    "DL103": "give the atom as many arguments as the declaration has columns (`analyze schema REL`).",
    "DL104": "quote symbols (\"a\"), leave numbers bare, or compare in a column of the right type.",
    "DL105": "use the variable only in columns of one type, or introduce a second variable.",
    "DL106": "do arithmetic on numbers only; convert with to_number if a builtin offers it.",
    "DL107": "compare numbers with numbers and symbols with symbols.",
    "DL108": "bind the head variable in a positive body atom (or with `X = ...`).",
    "DL109": "bind the variable in a positive atom before negating; use `_` for columns you do not care about.",
    "DL110": "bind every variable of the comparison or expression in a positive atom.",
    "DL111": "bind the grouping variables outside the aggregate and the target inside it.",
    "DL112": "bind the builtin's input arguments first (docs/rule-language.md gives each builtin's modes).",
    "DL113": "replace `_` by a named variable bound in the body.",
    "DL114": "compute the inner aggregate in a rule of its own, then aggregate over that relation.",
    "DL115": "break the cycle: the negated relation may not depend on the rule's head.",
    "DL116": "break the cycle: the aggregated relation may not depend on the rule's head.",
    "DL117": "give facts constants only; a rule with variables needs a body.",
    "DL118": "pass a declared binary relation whose two columns have one type.",
    "DL119": "define a relation of your own; builtins cannot be rule heads.",
    "DL120": "rename the relation: the name is a builtin.",
    "DL121": "give every column its own name.",
    "DL122": "put the aggregate alone on one side of `=`, e.g. `N = count : { p(X) }`.",
    "DL123": "break the cycle: the graph builtin's relation may not depend on the rule's head.",
    "DL124": "correct the glob or regular expression constant.",
}

_OTHER: Dict[str, tuple] = {
    "DL900": ("the engine cannot evaluate the program or request (internal consistency)",
              "report it with the program and command line; it points at a bug in the analyzer."),
    "DL901": ("negation, an aggregate or a graph builtin depends on its own result (found while stratifying)",
              "break the cycle named in the message (DL115/DL116/DL123 say the same statically)."),
    "DL902": ("a resource limit stopped evaluation, proof building or output: too many derived tuples, too "
              "much time (analyze query: 60 s by default) or too much memory (by default half of the "
              "machine's); the message names the running rule and the largest relations",
              "narrow the goal or fix the rule named, or raise --max-tuples / --timeout / --max-memory if the "
              "size is expected (docs/reliability.md)."),
    "DL903": ("facts that do not fit the declarations: undeclared relation, arity, type, an unreadable or "
              "missing facts file or directory",
              "fix the facts file at the position named, or the `.decl` it should match; `.input` files "
              "are looked up in the --facts directory."),
    "DL904": ("a rule whose literals cannot be ordered for evaluation (a binding the checker missed)",
              "reorder or bind the variables explicitly; report it if the checker accepted the rule."),
    "DL905": ("division or modulo by zero during evaluation",
              "guard the divisor, e.g. `D != 0` before `X / D`."),
    "DL906": ("a relation that is not declared was asked of the engine",
              "declare the relation or correct its name (`analyze schema` lists them)."),
    "DL907": ("a value of the wrong type reached a rule during evaluation",
              "check the facts' column types against the declarations."),
    "DL908": ("a fact with a variable reached the engine",
              "give facts constants only."),
    "DL909": ("a relation was read before it was evaluated (library use with only=)",
              "include the relation in only=, or evaluate the whole program."),
    "DL910": ("a query pattern with the wrong arity or a term other than constants, variables and `_`",
              "match the relation's columns; use a goal with comparisons for expressions."),
    "DL911": ("statistics asked of an evaluation that did not record them",
              "evaluate with profile=True (`--stats` on the command line)."),
    "DL912": ("a proof asked of an evaluation without provenance",
              "evaluate with provenance=True (`--why` on the command line)."),
    "DL913": ("a program or goal nested too deeply to evaluate",
              "split deeply nested expressions into rules of their own."),
    "DL914": ("the program file cannot be read (missing, unreadable, or not a regular file: a FIFO, "
              "directory or device is named as such)", "check the PROGRAM.dl path and its permissions."),
    "DL915": ("a goal or added rule names a relation that is neither declared nor built in",
              "use the nearest known relation the message names, declare the relation in a rule pack, or "
              "list what exists with `analyze schema`."),
    "DL916": ("a query pattern with the wrong number of columns (goals report this as DL103)",
              "give as many arguments as the relation has columns."),
    "DL917": ("the goal can never match: one of its atoms is a base relation with no facts in this project "
              "and no rule deriving it",
              "check the relation is the one you meant; request relations (req_path, ...) need their option "
              "(--path, ...)."),
    "DL918": ("the goal reads a relation that depends on a request that was not given (for the read "
              "request: the task, touched paths, explicit modules)",
              "add --task (and --path, --rule, --profile, --area as needed), or ask a request-independent "
              "relation (`analyze schema --derived` shows what each relation reads)."),
    "DL919": ("an added rule or fact (-e, --rules, a shell line) defines a built-in relation",
              "give the relation a new name: added rules define relations of their own on top of the built-in ones."),
    "DL920": ("a program was queried without a goal and declares no .output or .printsize",
              "give a goal, or add `.output REL` to the program."),
    "DL921": ("a goal constant matches nothing in its column, while a value there differs from it only by case "
              "or a small edit (a warning: the answer and exit status are unchanged)",
              "use the value the warning names (`analyze query 'REL(...)'` lists a column's values); Entry, "
              "Subject and record IDs match in any case."),
    "DL930": ("an arithmetic result outside the number range (64-bit signed integers)",
              "bound the recursion that grows the number, e.g. `X < 1000000` in the rule named."),
    "DL931": ("a builtin (concat, concat3, replace) would build a symbol over the maximum length "
              "(16,777,216 characters)",
              "bound the recursion that grows the symbol, e.g. with strlen(S, N), N < 1000."),
    "DL932": ("an aggregate body with more relation atoms and builtin calls than the maximum (12)",
              "move part of the aggregate body into a rule of its own and aggregate over that relation."),
    "DL940": ("the SQL back end (analyze fleet) cannot compile a rule: a builtin mode without a SQL "
              "translation, or a graph builtin whose relation is not a constant",
              "evaluate the rule with the native engine (analyze query in each repository), or rewrite it with "
              "builtins docs/fleet.md lists as compiled."),
    "DL941": ("the SQL engine (DuckDB) failed while evaluating the compiled program",
              "the message carries the engine's error; --memory-limit raises DuckDB's memory limit."),
    "MA-PACK-HEADER": ("a rule pack's `@code` block is incomplete or wrong: a missing or unknown tag, a severity other "
                       "than ERROR/WARNING/INFO, an @relation no rule of the pack derives, an @message placeholder "
                       "that is not a column",
                       "complete the block as docs/rule-packs.md shows (@code, @title, @severity, @relation)."),
    "MA-PACK-CODE": ("a rule pack declares a code that is not a finding code of its own: MC- codes are the "
                     "protocol's, MA- and DL codes the analyzer's",
                     "give the pack's codes a prefix of your own, e.g. ACME-001."),
    "MA-PACK-COLLISION": ("a rule pack's code or relation is already taken: a built-in code, a code declared twice, "
                          "or a relation another pack (or rules/check/packs.dl) defines",
                          "rename the code or the relation; packs read each other's relations but define their own."),
    "MA-PACK-EMPTY": ("a rule pack given to `check --rules` declares no finding (no `/// @code` block)",
                      "add a `@code` block above the rule deriving the finding (docs/rule-packs.md)."),
    "MA-TEST-EMPTY": ("`analyze test DIR` found nothing to run: DIR is not a directory, or holds no pack (*.dl) "
                      "or no case (a subdirectory with expected.txt)",
                      "put the packs and one fixture project per case, each with expected.txt, in DIR "
                      "(docs/rule-packs.md)."),
    "MA-TEST-CASE": ("a case of `analyze test` cannot be run: its expected.txt cannot be read or its fixture "
                     "project cannot be checked (no memory dir, an unusable managed file)",
                     "fix the fixture named in the message; `analyze check --project-root CASE` shows the problem."),
    "MA-USAGE": ("a command line the command cannot answer (bad option value, unknown task, missing argument)",
                 "correct the option named in the message; `analyze COMMAND --help` lists them."),
    "MA-MEMDIR": ("the memory directory is missing or unusable (not a real directory under docs/)",
                  "create docs/memory (or pass --memory-dir) as a real directory, not a symlink."),
    "MA-MANIFEST-MISSING": ("docs/memory/manifest.md is missing", "add the manifest (spec §4)."),
    "MA-MARKDOWN": ("Markdown the protocol grammar cannot place (e.g. an entry heading without its block)",
                    "fix the line named so that it follows the entry format of spec §5."),
    "MA-FILE": ("a managed file problem (family of the MA-FILE-* codes)", "see the specific MA-FILE-* code."),
    "MA-FILE-BOM": ("a UTF-8 byte order mark at the start of a file (ignored)", "save the file without a BOM."),
    "MA-FILE-CRLF": ("CRLF line endings (read as LF)", "convert the file to LF line endings."),
    "MA-FILE-ENCODING": ("a managed file is not valid UTF-8; it is not loaded (fail closed)",
                         "re-encode the file as UTF-8."),
    "MA-FILE-NAME": ("a managed file's name is not valid UTF-8 (shown with \\xNN escapes); it is not read "
                     "(fail closed)", "rename the file to a UTF-8 name."),
    "MA-FILE-NOT-REGULAR": ("a managed path is not a regular file (directory, device, fifo)",
                            "replace it with a regular Markdown file or move it out of the memory dir."),
    "MA-FILE-NUL": ("a file contains NUL bytes", "remove the NUL bytes (the file is probably binary or corrupted)."),
    "MA-FILE-SYMLINK": ("a managed path is a symlink, which the protocol refuses", "replace the link by the file itself."),
    "MA-FILE-UNREADABLE": ("a managed file could not be read (permissions, I/O error, too large)",
                           "make the file readable; a file over the size cap (10 MiB) is read with a larger "
                           "--max-file-bytes."),
    "MA-SUBJECT": ("a Subject command refused (family of the MA-SUBJECT-* codes)", "see the specific MA-SUBJECT-* code."),
    "MA-SUBJECT-CONTRACT": ("`subject list`/`subject merge` need an exact, valid Protocol 0.7 manifest contract",
                            "fix the manifest error the message names (`analyze check --routing` lists them)."),
    "MA-SUBJECT-REGISTRY": ("`subject list`/`subject merge` need a Subject registry without issues",
                            "fix the registry issue the message names (`analyze check --conflicts` lists them)."),
    "MA-SUBJECT-MERGE": ("a `subject merge` preview was refused: source and target must differ and each must exist "
                         "exactly once as an active Subject",
                         "check both IDs with `analyze subject list`."),
    "MA-INDEX-DUPLICATE": ("an Entry ID held twice by the units a lookup indexes",
                           "give one of the entries a new ID (or archive the stale copy)."),
    "MA-BASELINE": ("the --baseline file cannot be read, or is neither a memory-analyzer SARIF log nor a "
                    "check.result / report.result JSON document",
                    "pass a file an earlier `analyze check --format json` or `--format sarif` wrote."),
    "MA-OUTPUT": ("an output the analyzer was asked to write cannot be written or is refused: standard output "
                  "on a full device, an --output target inside the memory dir or .git, a symlink or a path that "
                  "is not a regular file (FIFO, device, directory), or a file two --output options name; exit 2, "
                  "the output is incomplete",
                  "write to a regular file outside the memory dir and .git, one per --output, on a device with "
                  "space left."),
    "MA-FLEET-EXTRA": ("`analyze fleet` needs the optional extra `[fleet]` (duckdb, pyarrow, numpy), which is not "
                       "installed",
                       "pip install 'memory-custodian-analyzer[fleet]'."),
    "MA-FLEET-INPUT": ("a fleet source is neither a directory nor a file listing repository paths, or a "
                       "listed path is not a directory",
                       "name a directory of checkouts, one repository, or a file with one path a line."),
    "MA-CONFIG-READ": ("the project configuration file (.memory-analyzer.toml, or pyproject.toml with a "
                       "[tool.memory-analyzer] table) cannot be read, is not UTF-8, or TOML cannot be read here "
                       "(Python 3.10 without the tomli package)",
                       "fix the file's permissions or encoding, or install tomli on Python 3.10."),
    "MA-CONFIG-TOML": ("the project configuration file is not valid TOML", "correct the TOML at the line named."),
    "MA-CONFIG-UNKNOWN-KEY": ("the project configuration sets a key the analyzer does not know (a typo never "
                              "silently changes nothing)",
                              "use a key docs/ci.md lists (`format`, `fail-on`, ...)."),
    "MA-CONFIG-OUTPUT": ("the project configuration names output files (`output = [...]`): the analyzed project "
                         "must never direct a write, so output paths come only from the command line",
                         "remove the `output` key and pass --output [FORMAT:]FILE on the command line."),
    "MA-CONFIG-VALUE": ("a project configuration key has a value of the wrong type or outside its choices",
                        "give the value the message asks for."),
    "MA-INDEX-LOCAL": ("--local lookup refused: the local overlay is not located, not bound, or in REVIEW",
                       "bind the overlay (`memory-custodian local link`) or resolve its warnings."),
    "MA-INDEX-UNKNOWN": ("no entry has the ID asked for (possibly only in archive storage)",
                         "check the ID with `analyze list`; add --include-archive for archived entries."),
    "MA-PLAN": ("docs/memory/plan.md does not follow grammar/plan.lark (a step heading, Allow or Entries line, an "
                "item outside an Entries list, a step without Allow, a duplicate step)",
                "fix the line named: steps are `## Step <n> \u2014 <title>`, then `Allow: A, B`, optionally `Entries:` "
                "and `- <ID>` items."),
    "MA-HISTORY-BLINDSPOT": ("a commit of the readiness window has a unit or file that cannot be read (a blind "
                             "spot, as `analyze diff` reports it): its change has no class, so no reading is taken",
                             "run `analyze diff --base SHA~1 --head SHA` on the commit named to see the blind spots; "
                             "a later commit that fixes the file does not repair history: take the readings --as-of "
                             "a time after the commit left the 30-day window; until then `full` is not available."),
    "MA-MCP-SIZE": ("an `analyze mcp` tool answer is larger than the server's --max-answer-bytes: the tool error "
                    "holds its first bytes and a note with the whole answer's size",
                    "narrow the request (fewer paths, a narrower goal or check family), or start the server with a "
                    "larger --max-answer-bytes."),
    "MA-INTERNAL": ("the analyzer failed while answering (exit 3: an unexpected exception or an output that does "
                    "not match its declared shape); `analyze mcp` returns it as a tool error and keeps serving",
                    "report it with the request that caused it; the answer must not be trusted."),
    "MA-GIT": ("Git could not answer a history request (`diff`, `readiness`, `check --autonomy`, `restore`): "
               "a revision it cannot resolve, not a repository, history a shallow clone does not hold, an object "
               "a partial clone lacks, a file it cannot read",
               "name revisions Git resolves (`git rev-parse REV`), run inside the repository, fetch full history."),
}


def tool_codes() -> Dict[str, ToolCode]:
    """Every DL and MA code, sorted."""
    from analyzer.engine.check import CHECK_CODES
    from analyzer.engine.errors import syntax_codes

    out = {}
    for code, meaning in {**syntax_codes(), **CHECK_CODES}.items():
        out[code] = ToolCode(code, meaning, _FIXES.get(code, "see docs/rule-language.md."))
    for code, (meaning, fix) in _OTHER.items():
        out[code] = ToolCode(code, meaning, fix)
    return dict(sorted(out.items()))


def find(code: str) -> Optional[ToolCode]:
    """The entry of ``code`` (case-insensitive), or None."""
    return tool_codes().get(code.strip().upper())
