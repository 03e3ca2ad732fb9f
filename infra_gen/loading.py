"""Load workload files: YAML with positions, validated into ``Workload``, one-line errors.

ruamel.yaml's round-trip loader keeps the line and column of every key and value, which is what
lets every error point at ``FILE:LINE:COL``. Pydantic's messages are rewritten into the house
shape ``FIELD: expected ..., got ...``; the first error in file order is the one reported, since
a second error is often a consequence of the first.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from infra_gen.errors import WorkloadError
from infra_gen.spec import Workload, consistency_errors

Loc = tuple[str | int, ...]


def load_workload(path: str | Path) -> Workload:
    """Read, parse and validate one workload file; raise ``WorkloadError`` on any problem."""
    text = read_text(path)
    return parse_workload(text, str(path))


def read_text(path: str | Path) -> str:
    """The file's text, or a ``WorkloadError`` for a missing, unreadable or non-UTF-8 file."""
    shown = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise WorkloadError(shown, 1, 1, "", "expected a workload file, got no such file") from None
    except IsADirectoryError:
        raise WorkloadError(shown, 1, 1, "", "expected a file, got a directory") from None
    except OSError as err:
        raise WorkloadError(shown, 1, 1, "", f"cannot read file: {err.strerror}") from err
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise WorkloadError(
            shown, line, col, "", f"expected UTF-8 text, got byte 0x{data[err.start]:02x}"
        ) from None


def parse_workload(text: str, path: str = "<workload>") -> Workload:
    document = _parse_yaml(text, path)
    try:
        workload = Workload.model_validate(_plain(document))
    except ValidationError as err:
        raise _first_error(err, document, path) from None
    for loc, message in consistency_errors(workload):
        line, col = _position(document, loc)
        raise WorkloadError(path, line, col, _dotted(loc), message)
    return workload


def _parse_yaml(text: str, path: str) -> CommentedMap:
    yaml = YAML(typ="rt")
    try:
        document = yaml.load(text)
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = (err.problem or err.context or "invalid YAML").splitlines()[0].strip()
        raise WorkloadError(path, line, col, "", f"expected valid YAML, got {problem}") from None
    except Exception as err:  # ruamel raises a few unmarked errors (e.g. on bad tags)
        raise WorkloadError(path, 1, 1, "", f"expected valid YAML, got {err}") from None
    if not isinstance(document, CommentedMap):
        found = "an empty file" if document is None else f"a {type(document).__name__}"
        raise WorkloadError(path, 1, 1, "", f"expected a mapping of workload fields, got {found}")
    return document


def _plain(node: Any) -> Any:
    """ruamel's containers and scalars as plain Python, so validation sees ordinary types."""
    if isinstance(node, dict):
        return {str(key): _plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_plain(item) for item in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node


def _first_error(err: ValidationError, document: CommentedMap, path: str) -> WorkloadError:
    found: list[WorkloadError] = []
    for detail in err.errors(include_url=False):
        loc = _clean_loc(detail["loc"])
        line, col = _position(document, loc)
        field, message = _describe(detail, loc, document)
        found.append(WorkloadError(path, line, col, field, message))
    found.sort(key=lambda e: (e.line, e.col))
    return found[0]


_MARKER = re.compile(r"^[a-z][a-z-]*\[.+\]$")


def _clean_loc(loc: tuple[Any, ...]) -> Loc:
    """Drop pydantic's union/function markers (e.g. 'function-after[...]') from a location."""
    return tuple(p for p in loc if isinstance(p, int) or not _MARKER.fullmatch(p))


def _position(document: CommentedMap, loc: Loc) -> tuple[int, int]:
    """1-based line and column of the deepest node of ``loc`` present in the document."""
    node: Any = document
    line, col = 1, 1
    for part in loc:
        if isinstance(node, CommentedMap) and part in node:
            line, col = node.lc.key(part)
            line, col = line + 1, col + 1
            node = node[part]
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
            line, col = node.lc.item(part)
            line, col = line + 1, col + 1
            node = node[part]
        else:
            break
    return line, col


_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _dotted(loc: Loc) -> str:
    """``training.batch_size``, ``placement.clouds[1]``; odd keys quoted: ``model['\\n']``."""
    out = ""
    for part in loc:
        if isinstance(part, int) or not _PLAIN_KEY.fullmatch(part):
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else part
    return out


def _lookup(document: CommentedMap, loc: Loc) -> Any:
    node: Any = document
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _describe(detail: Any, loc: Loc, document: CommentedMap) -> tuple[str, str]:
    kind = detail["type"]
    ctx = detail.get("ctx") or {}
    got = detail.get("input")
    if kind == "extra_forbidden" and loc:
        return _dotted(loc), _unknown_field(str(loc[-1]), _fields_at(loc[:-1]))
    if kind == "missing":
        return _dotted(loc), "expected a value, got nothing (required field is missing)"
    expected = _EXPECTED.get(kind)
    if expected is not None:
        shown = {key: _show_number(value) for key, value in ctx.items()}
        return _dotted(loc), f"expected {expected.format(**shown)}, got {_show(got)}"
    if kind == "literal_error":
        options = str(ctx.get("expected", "")).replace("'", "").replace(" or ", " | ")
        options = options.replace(", ", " | ")
        return _dotted(loc), f"expected one of {options}, got {_show(got)}"
    if kind == "value_error":
        message = str(ctx.get("error", detail["msg"]))
        return _dotted(loc), message
    return _dotted(loc), f"expected {detail['msg'].lower()}, got {_show(got)}"


_EXPECTED: dict[str, str] = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "greater_than": "a number > {gt}",
    "greater_than_equal": "a number >= {ge}",
    "less_than": "a number < {lt}",
    "less_than_equal": "a number <= {le}",
    "string_too_long": "at most {max_length} characters",
    "string_too_short": "at least {min_length} characters",
    "too_short": "at least {min_length} item(s)",
    "too_long": "at most {max_length} item(s)",
    "string_pattern_mismatch": "lowercase letters, digits and '-' (pattern {pattern})",
    "enum": "one of {expected}",
}


def _show_number(value: Any) -> Any:
    """Bounds print as written: ``24``, not pydantic's ``24.0``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _fields_at(parent: Loc) -> list[str]:
    """Field names valid at ``parent`` in the schema, for 'did you mean' suggestions."""
    model: type[BaseModel] | None = Workload
    for part in parent:
        if model is None or isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        model = _model_of(field.annotation) if field else None
    return sorted(model.model_fields) if model else []


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _unknown_field(name: str, valid: list[str]) -> str:
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listing = f" (valid: {', '.join(valid)})" if valid else ""
    return f"expected a known field, got unknown field {name!r}{hint}{listing}"
