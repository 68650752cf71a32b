"""Regular expressions matched in time linear in the text: every pattern a user gives.

Python's ``re`` backtracks: ``(a+)+$`` against 34 letters and a mismatch takes minutes,
and an author name or a path is written by whoever wrote the repository. Patterns from the
configuration (``agent-authors``), the command line (``--agent-author``, ``packtest
--only``) and rule packs (``re_match``) are therefore compiled here to a Thompson automaton
and run as a lazily built DFA: each character of the text costs one dictionary lookup, or
one step of every automaton state when the DFA state is new, never a backtrack.

The language is the part of Python's syntax an automaton can match, with Python's meaning:
literals and escapes (``\\.``, ``\\t``, ``\\n``...), ``.`` (not a newline), classes
``[a-z_]``, ``[^...]``, ``\\d \\w \\s`` and their negations, groups ``(...)``, ``(?:...)``,
``(?P<name>...)``, ``|``, ``* + ? {m} {m,} {m,n}`` (lazy forms too; only the yes/no answer is
used), ``^`` and ``$`` at the text's ends (``$`` before a final newline too), and ``(?i)`` / ``(?s)`` at the start. Anything
else (lookaround, backreferences, ``\\b``, possessive quantifiers) is refused with
:class:`PatternError` saying what, so a pattern never silently means something else.
"""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

MAX_PROGRAM = 20_000  # automaton states at most (``x{1000}{1000}`` is refused, not built)
MAX_DFA_STATES = 4_096  # cached DFA states per pattern; past it the cache starts again


class PatternError(ValueError):
    """A pattern outside the language (or malformed); the message says what and where."""


# ---- parsing: pattern -> tree ---------------------------------------------------------------

Node = tuple  # ("char", pred) | ("cat", [nodes]) | ("alt", [nodes]) | ("rep", node, min, max|None)
#               | ("bol",) | ("eol",) | ("empty",)

_CLASS_ESCAPES: Dict[str, Callable[[str], bool]] = {
    "d": str.isdecimal, "D": lambda c: not c.isdecimal(),
    "w": lambda c: c.isalnum() or c == "_", "W": lambda c: not (c.isalnum() or c == "_"),
    "s": lambda c: c in " \t\n\r\f\v" or c.isspace(), "S": lambda c: not (c in " \t\n\r\f\v" or c.isspace()),
}
_CHAR_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "0": "\0"}
_REFUSED_ESCAPES = {"b": "word boundaries", "B": "word boundaries", "A": "\\A", "Z": "\\Z", "z": "\\z",
                    "G": "\\G"}


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p, self.i = pattern, 0
        self.icase = self.dotall = False
        while self.p.startswith("(?", self.i) and self._flags():
            pass

    def _flags(self) -> bool:
        j = self.i + 2
        while j < len(self.p) and self.p[j] in "is":
            j += 1
        if j == self.i + 2 or j >= len(self.p) or self.p[j] != ")":
            return False
        self.icase |= "i" in self.p[self.i + 2:j]
        self.dotall |= "s" in self.p[self.i + 2:j]
        self.i = j + 1
        return True

    def fail(self, what: str) -> PatternError:
        return PatternError(f"{what} at position {self.i} of {self.p!r}")

    def parse(self) -> Node:
        node = self._alt()
        if self.i < len(self.p):
            raise self.fail("unbalanced ')'")
        return node

    def _alt(self) -> Node:
        branches = [self._cat()]
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.i += 1
            branches.append(self._cat())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def _cat(self) -> Node:
        items: List[Node] = []
        while self.i < len(self.p) and self.p[self.i] not in "|)":
            items.append(self._repeat(self._atom()))
        return ("cat", items) if items else ("empty",)

    def _repeat(self, node: Node) -> Node:
        while self.i < len(self.p):
            c = self.p[self.i]
            if c in "*+?":
                self.i += 1
                low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            elif c == "{" and (bounds := self._braces()) is not None:
                low, high = bounds
            else:
                return node
            if node[0] in ("bol", "eol", "empty"):
                raise self.fail("nothing to repeat")
            if self.i < len(self.p) and self.p[self.i] == "?":
                self.i += 1  # lazy: the same yes/no answer
            elif self.i < len(self.p) and self.p[self.i] == "+":
                raise self.fail("a possessive quantifier is not supported")
            node = ("rep", node, low, high)
        return node

    def _braces(self) -> Optional[Tuple[int, Optional[int]]]:
        end = self.p.find("}", self.i)
        body = self.p[self.i + 1:end] if end > 0 else ""
        low, comma, high = body.partition(",")
        if end < 0 or not (low.isdigit() or (comma and not low)) or (high and not high.isdigit()) or not (
                low or high):
            return None  # Python reads it as literal text
        self.i = end + 1
        lo, hi = int(low or 0), (int(high) if high else (None if comma else int(low)))
        if hi is not None and hi < lo:
            raise self.fail("min repeat greater than max repeat")
        if max(lo, hi or 0) > 1000:
            raise self.fail("a repeat count over 1000 is not supported")
        return lo, hi

    def _atom(self) -> Node:
        c = self.p[self.i]
        self.i += 1
        if c == "(":
            if self.p.startswith("?:", self.i):
                self.i += 2
            elif self.p.startswith("?P<", self.i):
                end = self.p.find(">", self.i)
                if end < 0 or not self.p[self.i + 3:end].isidentifier():
                    raise self.fail("a bad group name")
                self.i = end + 1
            elif self.p.startswith("?", self.i):
                raise self.fail("lookaround, backreferences, conditionals and flags inside a pattern are not "
                                "supported")
            node = self._alt()
            if self.i >= len(self.p) or self.p[self.i] != ")":
                raise self.fail("missing ')'")
            self.i += 1
            return node
        if c == ")":
            raise self.fail("unbalanced ')'")
        if c in "*+?":
            raise self.fail("nothing to repeat")
        if c == "^":
            return ("bol",)
        if c == "$":
            return ("eol",)
        if c == ".":
            return ("char", (lambda ch: True) if self.dotall else (lambda ch: ch != "\n"))
        if c == "[":
            return ("char", self._class())
        if c == "\\":
            return ("char", self._escape())
        return ("char", self._literal(c))

    def _literal(self, c: str) -> Callable[[str], bool]:
        if self.icase and c.lower() != c.upper():
            forms = frozenset((c, c.lower(), c.upper()))
            return forms.__contains__
        return c.__eq__

    def _escape(self, in_class: bool = False):
        if self.i >= len(self.p):
            raise self.fail("a bad escape (end of pattern)")
        c = self.p[self.i]
        self.i += 1
        if c in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[c]
        if c in _CHAR_ESCAPES:
            return _CHAR_ESCAPES[c] if in_class else self._literal(_CHAR_ESCAPES[c])
        if c.isdigit() or c in _REFUSED_ESCAPES:
            raise self.fail(f"{_REFUSED_ESCAPES.get(c, 'a backreference')} is not supported")
        if c.isalnum():
            raise self.fail(f"a bad escape \\{c}")
        return c if in_class else self._literal(c)

    def _class(self) -> Callable[[str], bool]:
        negate = self.p.startswith("^", self.i)
        self.i += negate
        chars: set = set()
        ranges: List[Tuple[str, str]] = []
        tests: List[Callable[[str], bool]] = []
        first = True
        while True:
            if self.i >= len(self.p):
                raise self.fail("an unterminated character set")
            c = self.p[self.i]
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            self.i += 1
            item = self._escape(True) if c == "\\" else c
            if callable(item):
                tests.append(item)
                continue
            if self.p.startswith("-", self.i) and self.i + 1 < len(self.p) and self.p[self.i + 1] != "]":
                self.i += 1
                c2 = self.p[self.i]
                self.i += 1
                hi = self._escape(True) if c2 == "\\" else c2
                if callable(hi) or hi < item:
                    raise self.fail("a bad character range")
                ranges.append((item, hi))
            else:
                chars.add(item)
        icase = self.icase

        def member(ch: str) -> bool:
            for form in ((ch, ch.lower(), ch.upper()) if icase else (ch,)):
                if form in chars or any(lo <= form <= hi for lo, hi in ranges) or any(t(form) for t in tests):
                    return True
            return False

        return (lambda ch: not member(ch)) if negate else member


# ---- compiling: tree -> program -------------------------------------------------------------

# instructions: ("char", pred, next) | ("split", a, b) | ("jmp", a) | ("bol", next) | ("eol", next)
#               | ("match",)


class _Compiler:
    def __init__(self) -> None:
        self.prog: List[list] = []

    def emit(self, *ins) -> int:
        if len(self.prog) >= MAX_PROGRAM:
            raise PatternError(f"the pattern is too large (over {MAX_PROGRAM} automaton states)")
        self.prog.append(list(ins))
        return len(self.prog) - 1

    def build(self, node: Node) -> List[Tuple[int, int]]:
        """Emit ``node``; its entry and the holes (instruction, slot) to patch to what follows."""
        kind = node[0]
        if kind == "char":
            at = self.emit("char", node[1], None)
            return [(at, 2)], at
        if kind in ("bol", "eol"):
            at = self.emit(kind, None)
            return [(at, 1)], at
        if kind == "empty":
            at = self.emit("jmp", None)
            return [(at, 1)], at
        if kind == "cat":
            holes, entry = self.build(node[1][0])
            for part in node[1][1:]:
                nholes, nentry = self.build(part)
                self.patch(holes, nentry)
                holes = nholes
            return holes, entry
        if kind == "alt":
            holes: List[Tuple[int, int]] = []
            entry = None
            split_hole = None
            for branch in node[1][:-1]:
                at = self.emit("split", None, None)
                if split_hole is not None:
                    self.prog[split_hole[0]][split_hole[1]] = at
                else:
                    entry = at
                bholes, bentry = self.build(branch)
                self.prog[at][1] = bentry
                holes += bholes
                split_hole = (at, 2)
            lholes, lentry = self.build(node[1][-1])
            self.prog[split_hole[0]][split_hole[1]] = lentry
            return holes + lholes, entry
        _, sub, low, high = node
        holes: List[Tuple[int, int]] = []
        entry = None
        for _ in range(low):  # the required copies
            nholes, nentry = self.build(sub)
            if entry is None:
                entry = nentry
            self.patch(holes, nentry)
            holes = nholes
        if high is None:  # then a loop: split -> sub -> back to the split
            at = self.emit("split", None, None)
            self.patch(holes, at)
            sholes, sentry = self.build(sub)
            self.prog[at][1] = sentry
            self.patch(sholes, at)
            return [(at, 2)], entry if entry is not None else at
        for _ in range(high - low):  # optional copies, each may end the repeat
            at = self.emit("split", None, None)
            self.patch(holes, at)
            if entry is None:
                entry = at
            sholes, sentry = self.build(sub)
            self.prog[at][1] = sentry
            holes = sholes + [(at, 2)]
        if entry is None:  # {0} / {0,0}
            at = self.emit("jmp", None)
            return [(at, 1)], at
        return holes, entry

    def patch(self, holes: List[Tuple[int, int]], target: int) -> None:
        for at, slot in holes:
            self.prog[at][slot] = target


# ---- matching: a lazily built DFA over the program ------------------------------------------

class Pattern:
    """A compiled pattern: :meth:`fullmatch` and :meth:`search` answer yes or no in time
    linear in the text."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        tree = _Parser(pattern).parse()
        compiler = _Compiler()
        holes, entry = compiler.build(tree)
        compiler.patch(holes, compiler.emit("match"))
        self._prog = [tuple(ins) for ins in compiler.prog]
        self._entry = entry
        self._steps: Dict[Tuple[bool, FrozenSet[int], str], FrozenSet[int]] = {}

    def _close(self, pcs, at_start: bool, at_end: bool) -> FrozenSet[int]:
        """The instructions reachable from ``pcs`` without reading a character."""
        seen = set()
        stack = list(pcs)
        prog = self._prog
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            ins = prog[pc]
            op = ins[0]
            if op == "jmp":
                stack.append(ins[1])
            elif op == "split":
                stack += (ins[1], ins[2])
            elif (op == "bol" and at_start) or (op == "eol" and at_end):
                stack.append(ins[1])
        return frozenset(seen)

    def _step(self, state: FrozenSet[int], ch: str, search: bool) -> FrozenSet[int]:
        key = (search, state, ch)
        found = self._steps.get(key)
        if found is None:
            prog = self._prog
            moved = [ins[2] for ins in (prog[pc] for pc in state) if ins[0] == "char" and ins[1](ch)]
            if search:
                moved.append(self._entry)
            found = self._close(moved, False, False)
            if len(self._steps) >= MAX_DFA_STATES:
                self._steps.clear()
            self._steps[key] = found
        return found

    def _accepts(self, state: FrozenSet[int], at_start: bool) -> bool:
        prog = self._prog
        return any(prog[pc][0] == "match" for pc in self._close(state, at_start, True))

    def _run(self, text: str, search: bool) -> bool:
        prog = self._prog
        state = self._close([self._entry], True, not text)
        last = len(text) - 1
        for pos, ch in enumerate(text):
            if pos == last and ch == "\n":  # Python's `$` also matches before a final newline
                state = self._close(state, pos == 0, True)
            if search and any(prog[pc][0] == "match" for pc in state):
                return True
            if not state:
                return False
            state = self._step(state, ch, search)
        return self._accepts(state, not text)

    def fullmatch(self, text: str) -> bool:
        """Whether the whole of ``text`` matches (as Python's ``re.fullmatch``)."""
        return self._run(text, False)

    def search(self, text: str) -> bool:
        """Whether some part of ``text`` matches (as Python's ``re.search``)."""
        return self._run(text, True)


def compile_pattern(pattern: str) -> Pattern:
    """``pattern`` compiled; :class:`PatternError` when it is outside the language."""
    return Pattern(pattern)


def pattern_problem(pattern: str) -> Optional[str]:
    """Why ``pattern`` cannot be used (outside the language, malformed), or None."""
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        return f"invalid regular expression: {exc}"
    return None
