"""The conformance corpus: our own small projects for every behaviour the protocol's scenarios cover.

Each case is a dict:

- ``id``, ``covers`` (the behaviour in a sentence) and ``scenarios`` (the ids of the protocol
  scenarios of ../shared/spec/scenarios.jsonl whose behaviour it covers; the projects and words
  here are ours, built on the firing corpus's Kettle project);
- the project: ``manifest`` (a spec for corpus_project.manifest_text), ``edits`` ((old, new)
  replacements in the generated manifest), ``files`` (memory files written over the base),
  ``remove`` (memory files dropped), or ``from_corpus`` (a tests/corpus case folder, with its
  overlay and Git history);
- ``argv``: the command;
- the expectation: ``exit`` (a status, or "nonzero"), ``out``/``not_out``/``err``/``any_out``
  (text that stdout, stderr or either must hold or not), and, read from a second run with
  ``--format json``: ``fields`` (top-level values), ``loaded`` (the loaded modules in order),
  ``dispositions`` and ``reasons`` (per module), ``codes`` (finding codes that must appear),
  ``same_as`` (the id of a case whose stdout must be identical).
"""

from __future__ import annotations

from typing import Dict, List

READ_IMPL = ["read", "--task", "implementation", "--names-only"]
STRICT_IMPL = ["read", "--task", "implementation", "--strict-routing", "--names-only"]
CHECK_ROUTING = ["check", "--routing"]
CHECK_CONFLICTS = ["check", "--conflicts"]
NOT_APPROVED = "Context pack not approved for substantial work"
ROUTING_ERROR = "MC-ROUTING-007 ERROR"

# Routes closer to a freshly initialised memory: implementation may use preferences, and the
# maintenance route reads the inbox and, when present, the change log.
INIT_ROUTES = {"implementation": ["decisions.md", "do-not-use.md", "?preferences.md"],
               "maintenance": ["inbox.md", "do-not-use.md", "?changelog.md"],
               "history": ["decisions.md", "?changelog.md"]}
INBOX = {"inbox.md": "# Inbox\n\nNothing waits for review.\n"}


def decl(path: str, activation: str, tasks=(), paths=()) -> Dict[str, object]:
    """One optional module declaration for the manifest spec."""
    return {"path": path, "activation": activation, "tasks": list(tasks), "paths": list(paths)}


def module(title: str) -> str:
    """The text of an optional module with no entries."""
    return f"# {title}\n\nNotes that only matter in their own context.\n"


def subject(sid: str, title: str, extra: str = "", status: str = "active") -> str:
    """One Subject registry entry."""
    return (f"## {sid} — {title}\n\nStatus: {status}\nKind: concept\n{extra}Evidence:\n- user-confirmed\n\n"
            f"Aliases:\n- {title.lower()}\n")


# The base project's own Subjects, which its constraint and decision use.
BASE_SUBJECTS = (subject("MC-SUBJ-20270105-0000a001", "Brew timer"), subject("MC-SUBJ-20270105-0000a002", "Settings file"))


def registry(*subjects: str) -> str:
    """A Subject registry holding the base project's Subjects and ``subjects``."""
    return "# Subject Registry\n\n" + "\n".join((*BASE_SUBJECTS, *subjects))


def entry(eid: str, title: str, *, kind: str = "Decision", status: str = "active", scope: str = "project",
          subj: str = "", facet: str = "behavior", extra: str = "", evidence: str = "- user-confirmed\n",
          body: str = "Kettle keeps this.") -> str:
    """One schema-2 entry (``subj``/``facet`` empty leave the field out)."""
    fields = f"Status: {status}\n{extra}Scope: {scope}\n"
    fields += (f"Subject: {subj}\n" if subj else "") + (f"Facet: {facet}\n" if subj and facet else "")
    return f"## {eid} — {title}\n\n{fields}Evidence:\n{evidence}\n{kind}:\n{body}\n"


def doc(title: str, *entries: str) -> str:
    """A memory file holding ``entries``."""
    return f"# {title}\n\n" + "\n".join(entries)


CASES: List[dict] = []


def case(cid: str, covers: str, scenarios: List[str], argv: List[str], **spec) -> dict:
    """Register one case (see the module docstring for the keys)."""
    CASES.append({"id": cid, "covers": covers, "scenarios": scenarios, "argv": argv, **spec})
    return CASES[-1]
