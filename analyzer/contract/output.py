"""The one way a command prints JSON: envelope, shape check, print — or exit 3, nothing printed.

Usage, from a command's ``run(args)``::

    from analyzer.contract.output import emit_json

    if args.format == "json":
        return emit_json("query", "result", {
            "status": "MATCH" if rows else "NO_MATCH",   # one of the shape's declared statuses
            "pattern": args.pattern, "relation": rel, "tuples": rows,
        })  # -> 0, or exitcodes.INTERNAL after a message on stderr

    # input errors keep their exit status; the shape says which one (error shapes: 2)
    code = emit_json("query", "error", diagnostics_payload(diags))
    return exitcodes.INVALID if code == exitcodes.OK else code

The payload holds ``status`` plus the shape's keys (``analyzer.contract.registry``); never ``ok``,
``schema`` or ``analyzer``, which ``emit_json`` adds. The printed document is an object whose
keys come in a fixed order: ``ok``, ``status``, ``schema`` {name, version}, ``analyzer``
{version, ruleset_fingerprint}, then the shape's keys in declared order (required, then
optional); nested declared objects follow their declared order too, ``dict[...]`` maps are
sorted by key, and lists keep the order the command gives (commands sort them). Output is
ASCII (non-ASCII escaped as ``\\uXXXX``), indented by 2, with a final newline, so the same
result is the same bytes on every platform and locale.

A payload that does not match its shape (missing or undeclared key, wrong type, a status the
shape does not allow, an undeclared command or shape) is an internal error: a message on
stderr, nothing on stdout, and ``exitcodes.INTERNAL`` returned. The command returns the
exit status itself (``emit_json`` returns 0 on success, whatever the shape's exit codes are).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, Iterable, List, Optional, TextIO, Tuple

from analyzer import __version__
from analyzer.core import exitcodes
from analyzer.contract.shapes import ENVELOPE_KEYS, Either, Map, Obj, Seq, Type, document_type, validate
from analyzer.core.fingerprint import ruleset_fingerprint
from analyzer.contract.registry import schema_name, shape as lookup_shape


def build_document(command: str, shape: str, payload: Dict[str, Any]) -> Tuple[Dict[str, Any], List[str]]:
    """The document ``emit_json`` would print, and every violation of its shape (empty: valid)."""
    try:
        declared = lookup_shape(command, shape)
    except KeyError as exc:
        return {}, [str(exc.args[0])]
    if not isinstance(payload, dict):
        return {}, [f"payload must be a dict, got {type(payload).__name__}"]
    reserved = sorted(set(payload) & (set(ENVELOPE_KEYS) - {"status"}))
    if reserved:
        return {}, [f"payload sets envelope keys {reserved}; emit_json adds them"]
    name = schema_name(command, shape)
    document = {
        "ok": declared.ok,
        "status": payload.get("status"),
        "schema": {"name": name, "version": declared.version},
        "analyzer": {"version": __version__, "ruleset_fingerprint": ruleset_fingerprint()},
        **{k: v for k, v in payload.items() if k != "status"},
    }
    if "status" not in payload:
        return document, ["$: missing required key 'status'"]
    kind = document_type(name, declared)
    document = _ordered(document, kind)
    return document, validate(document, kind)


def emit_json(command: str, shape: str, payload: Dict[str, Any], stream: Optional[TextIO] = None) -> int:
    """Print ``payload`` as a ``command``.``shape`` document; 0, or ``exitcodes.INTERNAL`` on violation."""
    document, errors = build_document(command, shape, payload)
    if errors:
        print(f"analyze: internal error: {command} output does not match its declared shape "
              f"{schema_name(command, shape)}; nothing was printed:", file=sys.stderr)
        for error in errors[:20]:
            print(f"  {error}", file=sys.stderr)
        if len(errors) > 20:
            print(f"  ... and {len(errors) - 20} more", file=sys.stderr)
        return exitcodes.INTERNAL
    text = dumps(document)
    (stream or sys.stdout).write(text)
    return exitcodes.OK


def dumps(document: Dict[str, Any]) -> str:
    """The printed form of a document (already in output order)."""
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def diagnostics_payload(diagnostics: Iterable[Any], status: str = "INVALID") -> Dict[str, Any]:
    """A payload for an ``error`` shape from ``analyzer.core.diagnostics.Diagnostic`` objects (sorted)."""
    from analyzer.core.diagnostics import sort_diagnostics

    return {"status": status, "diagnostics": [d.as_dict() for d in sort_diagnostics(diagnostics)]}


def _ordered(value: Any, kind: Type) -> Any:
    # Rebuild dicts in declared key order; undeclared keys go last (validation rejects them).
    if isinstance(kind, Obj) and isinstance(value, dict):
        declared = dict(kind.required + kind.optional)
        keys = [k for k in kind.keys() if k in value] + [k for k in value if k not in declared]
        return {k: _ordered(value[k], declared[k]) if k in declared else value[k] for k in keys}
    if isinstance(kind, Map) and isinstance(value, dict):
        return {k: _ordered(value[k], kind.value) for k in sorted(value, key=str)}
    if isinstance(kind, Seq) and isinstance(value, (list, tuple)):
        return [_ordered(item, kind.item) for item in value]
    if isinstance(kind, Either):
        for option in kind.options:
            if not validate(value, option):
                return _ordered(value, option)
    return value
