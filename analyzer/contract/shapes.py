"""Output shapes: a small type language, shape declarations, validation and JSON Schema.

Every JSON document a command prints is declared here as a :class:`Shape` (the shapes
themselves are listed per command in ``analyzer.contract.registry``). A shape fixes the envelope
values (``ok``, the allowed ``status`` strings, the exit codes it is printed with) and the
payload keys with their types. ``analyzer.contract.output.emit_json`` validates against the shape
before printing; ``analyzer.dev.gendocs`` turns the same declarations into docs/schemas/.

The type language (strings, parsed once at declaration time so a typo fails at import):

    str  int  number  bool  null  any        scalars (``int`` never accepts a bool;
                                             ``any`` is any JSON value)
    list[T]                                  a JSON array of T
    dict[T]                                  a JSON object with string keys and T values
    T|U                                      either
    Obj(required={...}, optional={...})      a nested object with declared keys
    Enum("A", "B")                           one of these strings
    list_of(T)                               list[...] around an Obj or Enum
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Tuple, Union

SCALARS = ("str", "int", "number", "bool", "null", "any")
ENVELOPE_KEYS = ("ok", "status", "schema", "analyzer")


@dataclass(frozen=True)
class Scalar:
    """A JSON scalar type (or ``any`` JSON value)."""

    name: str


@dataclass(frozen=True)
class Enum:
    """One of a fixed set of strings."""

    values: Tuple[str, ...]

    def __init__(self, *values: str):
        object.__setattr__(self, "values", tuple(values))


@dataclass(frozen=True)
class Const:
    """Exactly this JSON scalar (used for envelope values a shape fixes)."""

    value: Any


@dataclass(frozen=True)
class Seq:
    """A JSON array whose items all have one type."""

    item: "Type"


@dataclass(frozen=True)
class Map:
    """A JSON object with arbitrary string keys and values of one type."""

    value: "Type"


@dataclass(frozen=True)
class Either:
    """A value of any of several types."""

    options: Tuple["Type", ...]


@dataclass(frozen=True)
class Obj:
    """A JSON object with declared required and optional keys (in output order); no others."""

    required: Tuple[Tuple[str, "Type"], ...]
    optional: Tuple[Tuple[str, "Type"], ...] = ()

    def __init__(self, required: Mapping[str, Any] = None, optional: Mapping[str, Any] = None):
        object.__setattr__(self, "required", _fields(required or {}))
        object.__setattr__(self, "optional", _fields(optional or {}))
        names = [k for k, _ in self.required + self.optional]
        if len(names) != len(set(names)):
            raise ValueError(f"key declared twice in {names}")

    def keys(self) -> List[str]:
        """Every declared key in output order: required first, then optional."""
        return [k for k, _ in self.required + self.optional]


Type = Union[Scalar, Enum, Const, Seq, Map, Either, Obj]


def list_of(item: Any) -> Seq:
    """``list[item]`` for an item that is not expressible as a string (an Obj or Enum)."""
    return Seq(as_type(item))


def as_type(spec: Any) -> Type:
    """Turn a type-language string (or an already built type) into a type object."""
    if isinstance(spec, (Scalar, Enum, Const, Seq, Map, Either, Obj)):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"not a type: {spec!r}")
    tokens = re.findall(r"[a-z]+|[\[\]|]", spec)
    if "".join(tokens) != re.sub(r"\s+", "", spec):
        raise ValueError(f"bad type {spec!r}")
    parsed, rest = _parse_union(tokens, spec)
    if rest:
        raise ValueError(f"bad type {spec!r}: trailing {''.join(rest)!r}")
    return parsed


def _parse_union(tokens: List[str], spec: str) -> Tuple[Type, List[str]]:
    options = []
    while True:
        one, tokens = _parse_atom(tokens, spec)
        options.append(one)
        if not tokens or tokens[0] != "|":
            break
        tokens = tokens[1:]
    return (options[0] if len(options) == 1 else Either(tuple(options))), tokens


def _parse_atom(tokens: List[str], spec: str) -> Tuple[Type, List[str]]:
    if not tokens:
        raise ValueError(f"bad type {spec!r}: unexpected end")
    head, rest = tokens[0], tokens[1:]
    if head in ("list", "dict"):
        if not rest or rest[0] != "[":
            raise ValueError(f"bad type {spec!r}: {head} needs [T]")
        inner, rest = _parse_union(rest[1:], spec)
        if not rest or rest[0] != "]":
            raise ValueError(f"bad type {spec!r}: missing ]")
        return (Seq(inner) if head == "list" else Map(inner)), rest[1:]
    if head in SCALARS:
        return Scalar(head), rest
    raise ValueError(f"bad type {spec!r}: unknown name {head!r}")


def _fields(spec: Mapping[str, Any]) -> Tuple[Tuple[str, Type], ...]:
    return tuple((key, as_type(value)) for key, value in spec.items())


def describe(t: Type) -> str:
    """The type written back in the type language (for messages and docs)."""
    if isinstance(t, Scalar):
        return t.name
    if isinstance(t, Enum):
        return "|".join(repr(v) for v in t.values)
    if isinstance(t, Const):
        return repr(t.value)
    if isinstance(t, Seq):
        return f"list[{describe(t.item)}]"
    if isinstance(t, Map):
        return f"dict[{describe(t.value)}]"
    if isinstance(t, Either):
        return "|".join(describe(o) for o in t.options)
    return "{" + ", ".join(t.keys()) + "}"


@dataclass(frozen=True)
class Shape:
    """One output shape of one command.

    ``when`` is the condition under which the command prints it; ``ok`` is the value of the
    envelope's ``ok`` (False only for shapes that say the request could not be evaluated);
    ``statuses`` are the allowed ``status`` strings; ``exits`` the exit codes it is printed
    with; ``body`` the payload keys that follow the envelope.
    """

    name: str
    version: int
    when: str
    ok: bool
    statuses: Tuple[str, ...]
    exits: Tuple[int, ...]
    body: Obj = field(default_factory=Obj)
    doc: str = ""

    def __post_init__(self) -> None:
        clash = set(self.body.keys()) & set(ENVELOPE_KEYS)
        if clash:
            raise ValueError(f"shape {self.name}: payload may not declare envelope keys {sorted(clash)}")


def validate(value: Any, t: Type, where: str = "$") -> List[str]:
    """Every way ``value`` departs from type ``t``, as ``"<json path>: <problem>"`` strings."""
    # the yes/no walk first: it builds no path strings, which cost most of a large document's check
    return [] if conforms(value, t) else _explain(value, t, where)


def conforms(value: Any, t: Type) -> bool:
    """Whether ``value`` has type ``t`` (``validate`` gives no errors), without saying where not."""
    kind = type(t)
    if kind is Scalar:
        return _scalar_ok(value, t.name)
    if kind is Obj:
        if not isinstance(value, dict):
            return False
        declared = _declared(t)
        if any(key not in value for key, _ in t.required):
            return False
        return all(key in declared and conforms(item, declared[key]) for key, item in value.items())
    if kind is Seq:
        return isinstance(value, (list, tuple)) and all(conforms(item, t.item) for item in value)
    if kind is Map:
        return isinstance(value, dict) and all(isinstance(k, str) and conforms(v, t.value) for k, v in value.items())
    if kind is Either:
        return any(conforms(value, option) for option in t.options)
    if kind is Enum:
        return isinstance(value, str) and value in t.values
    return type(value) is type(t.value) and value == t.value  # Const


_DECLARED: Dict[int, Tuple[Obj, Dict[str, Type]]] = {}


def _declared(t: Obj) -> Dict[str, Type]:
    # key -> type of an Obj, built once per declaration (the Obj is kept so its id stays its own)
    hit = _DECLARED.get(id(t))
    if hit is None or hit[0] is not t:
        hit = _DECLARED[id(t)] = (t, dict(t.required + t.optional))
    return hit[1]


def _explain(value: Any, t: Type, where: str) -> List[str]:
    if isinstance(t, Obj):
        if not isinstance(value, dict):
            return [f"{where}: expected object, got {_kind(value)}"]
        errors = []
        declared = dict(t.required + t.optional)
        for key, _ in t.required:
            if key not in value:
                errors.append(f"{where}: missing required key {key!r}")
        for key in sorted(value, key=str):
            if key not in declared:
                errors.append(f"{where}: undeclared key {key!r}")
            else:
                errors.extend(_explain(value[key], declared[key], f"{where}.{key}"))
        return errors
    if isinstance(t, Seq):
        if not isinstance(value, (list, tuple)):
            return [f"{where}: expected {describe(t)}, got {_kind(value)}"]
        return [e for i, item in enumerate(value) for e in _explain(item, t.item, f"{where}[{i}]")]
    if isinstance(t, Map):
        if not isinstance(value, dict):
            return [f"{where}: expected {describe(t)}, got {_kind(value)}"]
        errors = [f"{where}: non-string key {k!r}" for k in value if not isinstance(k, str)]
        return errors + [e for k in sorted(value, key=str) for e in _explain(value[k], t.value, f"{where}[{k!r}]")]
    if isinstance(t, Either):
        if any(conforms(value, option) for option in t.options):
            return []
        return [f"{where}: expected {describe(t)}, got {_kind(value)}"]
    if isinstance(t, Enum):
        if isinstance(value, str) and value in t.values:
            return []
        return [f"{where}: expected one of {list(t.values)}, got {value!r}"]
    if isinstance(t, Const):
        if type(value) is type(t.value) and value == t.value:
            return []
        return [f"{where}: expected {t.value!r}, got {value!r}"]
    return [] if _scalar_ok(value, t.name) else [f"{where}: expected {t.name}, got {_kind(value)}"]


def _scalar_ok(value: Any, name: str) -> bool:
    if name == "any":
        return _is_json(value)
    if name == "bool":
        return isinstance(value, bool)
    if name == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "str":
        return isinstance(value, str)
    return value is None


def _is_json(value: Any) -> bool:
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def _kind(value: Any) -> str:
    names = {bool: "bool", int: "int", float: "number", str: "str", list: "list", tuple: "list", dict: "object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def json_schema(t: Type) -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) fragment for a type."""
    if isinstance(t, Obj):
        return {
            "type": "object",
            "properties": {key: json_schema(sub) for key, sub in t.required + t.optional},
            "required": [key for key, _ in t.required],
            "additionalProperties": False,
        }
    if isinstance(t, Seq):
        return {"type": "array", "items": json_schema(t.item)}
    if isinstance(t, Map):
        return {"type": "object", "additionalProperties": json_schema(t.value)}
    if isinstance(t, Either):
        return {"anyOf": [json_schema(o) for o in t.options]}
    if isinstance(t, Enum):
        return {"type": "string", "enum": list(t.values)}
    if isinstance(t, Const):
        return {"const": t.value}
    names = {"str": "string", "int": "integer", "number": "number", "bool": "boolean", "null": "null"}
    return {} if t.name == "any" else {"type": names[t.name]}


def document_type(schema_name: str, shape: Shape) -> Obj:
    """The whole printed document of a shape: the envelope keys, then the payload keys.

    This one object is what output is validated against and what docs/schemas/ describe, so
    the two cannot disagree.
    """
    envelope = {
        "ok": Const(shape.ok),
        "status": Enum(*shape.statuses),
        "schema": Obj({"name": Const(schema_name), "version": Const(shape.version)}),
        "analyzer": Obj({"version": "str", "ruleset_fingerprint": "str"}),
    }
    return Obj({**envelope, **dict(shape.body.required)}, dict(shape.body.optional))
