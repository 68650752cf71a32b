"""Print AST nodes back to rule-language text, fully parenthesised (for round-trip tests)."""

from analyzer.engine import ast


def const(value) -> str:
    if isinstance(value, int):
        return str(value)
    escaped = (value.replace("\\", "\\\\").replace('"', '\\"')
               .replace("\n", "\\n").replace("\t", "\\t"))
    return f'"{escaped}"'


def term(t) -> str:
    if isinstance(t, ast.Var):
        return t.name
    if isinstance(t, ast.Wildcard):
        return "_"
    if isinstance(t, ast.Const):
        return const(t.value)
    if isinstance(t, ast.BinOp):
        return f"({term(t.left)} {t.op} {term(t.right)})"
    target = "" if t.target is None else " " + term(t.target)
    return f"{t.func}{target} : {{ {', '.join(literal(b) for b in t.body)} }}"


def atom(a: ast.Atom) -> str:
    return f"{a.rel}({', '.join(term(t) for t in a.args)})"


def literal(lit) -> str:
    if isinstance(lit, ast.Atom):
        return atom(lit)
    if isinstance(lit, ast.Negation):
        return "!" + atom(lit.atom)
    return f"{term(lit.left)} {lit.op} {term(lit.right)}"


def doc(text: str) -> str:
    return "".join(f"/// {line}\n" for line in text.splitlines())


def decl(d: ast.Decl) -> str:
    col_docs = "".join(f"/// - {c.name}: {c.doc}\n" for c in d.columns if c.doc)
    cols = ", ".join(f"{c.name}: {c.type}" for c in d.columns)
    return f"{doc(d.doc)}{col_docs}.decl {d.name}({cols})\n"


def rule(r: ast.Rule) -> str:
    body = "" if not r.body else " :- " + ", ".join(literal(b) for b in r.body)
    return f"{doc(r.doc)}{atom(r.head)}{body}.\n"


def statements(items) -> str:
    return "".join(decl(i) if isinstance(i, ast.Decl) else rule(i) for i in items)
