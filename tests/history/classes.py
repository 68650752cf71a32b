"""A fixture history with one commit per change class (and one blind spot), shared by the
diff, autonomy and readiness tests. ``build(root)`` returns the commit ids by step name."""

from __future__ import annotations

from typing import Dict

from histrepo import Repo, entry

NEW_DEC = "MC-DEC-20261001-aaaa0001"
NEW_DEC2 = "MC-DEC-20261002-aaaa0002"
MERGED = "MC-DEC-20261003-aaaa0003"
CANDIDATE = "MC-INBOX-20261001-bbbb0001"
CON_A, CON_B = "MC-CON-20260902-3d4e5f60", "MC-CON-20260903-4e5f6071"
CENTS = "MC-DEC-20260910-1b2c3d4e"
AREA_API = "MC-CON-20260909-c6d7e8f9"
WEB = "MC-AREA-20260909-b5c6d7e8"
DNU = "MC-DNU-20260904-5f607182"

# step -> the (class/subkind, ID) list `analyze diff` must give for that one commit
GOLDEN = {
    "add-candidate": [("A/candidate", CANDIDATE)],
    "add-active": [("A/active", NEW_DEC)],
    "rewrite-inplace": [("C/inplace", NEW_DEC)],
    "metadata-evidence": [("E/evidence", CENTS)],
    "rewrite-supersede": [("C/supersede", NEW_DEC), ("C/supersede", NEW_DEC2)],
    "merge-entries": [("B/entries", CON_A), ("B/entries", CON_B), ("B/entries", MERGED)],
    "delete-hard": [("D/hard", DNU)],
    "delete-soft": [("D/soft", AREA_API)],
    "merge-subject": [("B/subject", "MC-SUBJ-20260901-0a0a0a05")],
}


def build(repo: Repo) -> Dict[str, str]:
    """Commit one step per class on top of the example; the commit ids by step."""
    shas: Dict[str, str] = {"init": repo.git("rev-parse", "HEAD").strip()}
    inbox = entry(CANDIDATE, "Cache product pages for a minute", "Product pages could be cached.",
                  status="candidate", field="Statement", subject="", evidence=("agent-observed",),
                  extra=("Candidate-Type: decision",)) + "\nPromotion-Requirement:\nConfirm with the web team.\n"
    repo.edit("inbox.md", "Entries are newest first.\n", "Entries are newest first.\n\n" + inbox)
    shas["add-candidate"] = repo.commit("Add a candidate")
    new = entry(NEW_DEC, "Checkout totals are shown with currency", "Totals are always shown with their currency.",
                facet="presentation")
    repo.edit("decisions.md", "Entries are newest first.\n", "Entries are newest first.\n\n" + new)
    shas["add-active"] = repo.commit("Add a decision")
    repo.edit("decisions.md", "Totals are always shown with their currency.", "Totals always show the ISO currency code.")
    shas["rewrite-inplace"] = repo.commit("Reword a decision")
    repo.edit("decisions.md", "- repo:api/orders.py\n- issue:#42\n", "- repo:api/orders.py\n- issue:#42\n- issue:#43\n")
    shas["metadata-evidence"] = repo.commit("More evidence")
    text = repo.read("decisions.md")
    start = text.index(f"## {NEW_DEC}")
    end = text.index("## ", start + 3)
    old = text[start:end]
    replaced = old.replace("Status: active", f"Status: superseded\nSuperseded-By: {NEW_DEC2}")
    successor = entry(NEW_DEC2, "Checkout totals show currency symbols", "Totals show the currency symbol.",
                      facet="presentation", extra=(f"Supersedes: {NEW_DEC}",))
    repo.write("decisions.md", text[:start] + successor + "\n" + replaced + text[end:])
    shas["rewrite-supersede"] = repo.commit("Supersede a decision")
    text = repo.read("constraints.md")
    for ident in (CON_A, CON_B):
        at = text.index(f"## {ident}")
        status = text.index("Status: active", at)
        text = text[:status] + f"Status: superseded\nSuperseded-By: {MERGED}" + text[status + len("Status: active"):]
    merged = entry(MERGED, "Payment calls are safe and bounded", "Card data never touches us; calls time out at 10 s.",
                   field="Constraint", subject="MC-SUBJ-20260901-0a0a0a02", facet="security",
                   extra=(f"Supersedes: {CON_A}",))
    repo.write("constraints.md", text.replace("# Constraints\n", "# Constraints\n\n" + merged, 1)
               if text.startswith("# Constraints\n") else merged + "\n" + text)
    shas["merge-entries"] = repo.commit("Merge two constraints")
    text = repo.read("do-not-use.md")
    start = text.index(f"## {DNU}")
    repo.write("do-not-use.md", text[:start].rstrip("\n") + "\n")
    shas["delete-hard"] = repo.commit("Drop a do-not-use entry")
    text = repo.read("areas/api.md")
    start = text.index(f"## {AREA_API}")
    unit = text[start:]
    repo.write("areas/api.md", text[:start].rstrip("\n") + "\n")
    repo.write("archive/api-2026.md", "# Archived API entries\n\n" + unit)
    shas["delete-soft"] = repo.commit("Archive an API constraint")
    repo.edit("subjects.md", "## MC-SUBJ-20260901-0a0a0a05 — Release cadence\n\nStatus: active\n",
              "## MC-SUBJ-20260901-0a0a0a05 — Release cadence\n\nStatus: merged\nMerged-Into: MC-SUBJ-20260901-0a0a0a01\n")
    shas["merge-subject"] = repo.commit("Merge a Subject")
    return shas


SUCCESSOR = "MC-DEC-20261005-cccc0001"
ELSEWHERE = "MC-CON-20261006-cccc0002"
# the classes `analyze diff` gives the steps agreeing_history adds to build
MORE = {
    "supersede-untouched": [("C/supersede", SUCCESSOR)],
    "supersede-elsewhere": [("C/supersede", ELSEWHERE)],
}


def agreeing_history(root):
    """build, then successors naming a predecessor the commit leaves as it is: in
    the same file, and in a file the commit does not change at all."""
    repo = Repo(root)
    shas = build(repo)
    successor = entry(SUCCESSOR, "Totals in minor units", "Order totals are integers in minor units.",
                      extra=(f"Supersedes: {CENTS}",))
    repo.write("decisions.md", repo.read("decisions.md").rstrip("\n") + "\n\n" + successor)
    shas["supersede-untouched"] = repo.commit("Add a successor, leave the predecessor as it is")
    other = entry(ELSEWHERE, "Cart state lives in the catalogue service", "The catalogue service keeps carts.",
                  field="Constraint", subject="MC-SUBJ-20260901-0a0a0a03", extra=(f"Supersedes: {WEB}",))
    repo.write("areas/catalogue.md", repo.read("areas/catalogue.md").rstrip("\n") + "\n\n" + other)
    shas["supersede-elsewhere"] = repo.commit("Supersede an entry of another file")
    return repo, shas


TWICE_X = "MC-CON-20261010-dddd0001"  # held twice across files
TWICE_Y = "MC-DEC-20261011-dddd0002"  # held twice in one file
# step -> the IDs `analyze diff sha~1 sha` reports as blind spots (held by more than one unit)
TWICE_BLIND = {
    "across-commit-only": [TWICE_X], "across-both": [TWICE_X], "across-parent-only": [TWICE_X],
    "same-commit-only": [TWICE_Y], "same-both": [TWICE_Y], "same-parent-only": [TWICE_Y],
}


def held_twice_history(root):
    """The example, then IDs held by two units: across two files and twice in one file, in
    the commit only (a second holder added), in both revisions (one holder changed) and in
    the parent only (a holder removed), each with the other holder left as it is; and a
    commit that changes another unit of a file holding an ID twice (no blind spot)."""
    repo = Repo(root)
    shas: Dict[str, str] = {"init": repo.git("rev-parse", "HEAD").strip()}

    def con(body: str) -> str:
        return entry(TWICE_X, "Stock counts are cached", body, field="Constraint",
                     subject="MC-SUBJ-20260901-0a0a0a03")

    def dec(body: str) -> str:
        return entry(TWICE_Y, "Orders are numbered per day", body, facet="presentation")

    def append(module: str, text: str) -> None:
        repo.write(module, repo.read(module).rstrip("\n") + "\n\n" + text)

    def second_holder(case: str, module: str, ident: str, unit, old: str, new: str) -> None:
        """Add a second unit holding ``ident`` at the end of ``module``, change it, drop it."""
        append(module, unit(f"Numbers and counts {old}."))
        shas[f"{case}-commit-only"] = repo.commit("Hold an ID a second time")
        if case == "same":
            repo.edit(module, "- repo:api/orders.py\n- issue:#42\n", "- repo:api/orders.py\n- issue:#42\n- issue:#43\n")
            shas["same-other-unit"] = repo.commit("Change another unit of that file")
        repo.edit(module, old, new)
        shas[f"{case}-both"] = repo.commit("Change the second holder")
        text = repo.read(module)
        repo.write(module, text[:text.rindex(f"\n\n## {ident}")] + "\n")
        shas[f"{case}-parent-only"] = repo.commit("Drop the second holder")

    append("constraints.md", con("Stock counts are cached for a minute."))
    shas["across-setup"] = repo.commit("Add a constraint")
    second_holder("across", "areas/catalogue.md", TWICE_X, con, "are cached for an hour", "are cached for a day")
    repo.edit("decisions.md", "Entries are newest first.\n", "Entries are newest first.\n\n" + dec("Numbers restart daily."))
    shas["same-setup"] = repo.commit("Add a decision")
    second_holder("same", "decisions.md", TWICE_Y, dec, "restart at midnight UTC", "restart at midnight local time")
    return repo, shas
