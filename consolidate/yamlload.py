"""The one YAML loader of the tool: safe, strict, and keeping the line of every value."""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any, Iterable

import jsonschema
import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError

from .errors import ConsolidateError, Location


class YamlError(ConsolidateError):
    """A YAML file cannot be read or parsed (used when the caller names no error class)."""


class LocatedDict(dict):
    """A mapping from YAML that remembers its own line and the line of each key."""

    def __init__(self, *args: Any, line: int | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.line = line
        self.key_lines: dict[Any, int] = {}

    def key_line(self, key: Any) -> int | None:
        """Line of `key`, or of the mapping itself when the key is absent."""
        return self.key_lines.get(key, self.line)


class LocatedList(list):
    """A sequence from YAML that remembers its own line and the line of each item."""

    def __init__(self, *args: Any, line: int | None = None):
        super().__init__(*args)
        self.line = line
        self.item_lines: list[int] = []

    def item_line(self, index: int) -> int | None:
        """Line of item `index` (negative indices count from the end)."""
        try:
            return self.item_lines[index]
        except IndexError:
            return self.line


_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_ALLOWED_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, _SEQ, _MAP}

# Plain scalars that are not strings: a strict subset of YAML 1.1's rules, so anything
# PyYAML's dumper writes unquoted reads back the same. Left as strings on purpose:
# yes/no/on/off (the country code NO is Norway), dates, 1:20, 0755, 1_000.
_CORE_RESOLVERS = [
    (_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), "tTfF"),
    (_INT, re.compile(r"^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+)$"), "-+0123456789"),
    (_FLOAT, re.compile(r"^(?:[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?|\.[0-9]+(?:[eE][-+][0-9]+)?"
                        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"), "-+0123456789."),
    (_NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]),
]


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader without aliases, duplicate keys, implicit dates or exotic tags."""

    yaml_implicit_resolvers: dict = {}

    def compose_node(self, parent, index):  # type: ignore[override]
        # Refusing anchors outright (not only aliases) keeps error messages at the
        # place the author wrote them, and closes the door on alias bombs.
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise ComposerError(None, None, "anchors and aliases are not allowed", event.start_mark)
        return super().compose_node(parent, index)

    def construct_object(self, node, deep=False):  # type: ignore[override]
        _check_tag(node)
        return super().construct_object(node, deep=deep)


def _check_tag(node) -> None:
    if node.tag not in _ALLOWED_TAGS:
        raise ConstructorError(None, None, f"tag {node.tag!r} is not allowed", node.start_mark)


for _tag, _regexp, _first in _CORE_RESOLVERS:
    _StrictLoader.add_implicit_resolver(_tag, _regexp, _first)


def _construct_bool(loader: _StrictLoader, node: yaml.ScalarNode) -> bool:
    return loader.construct_scalar(node).lower() == "true"


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node)
    return int(text, 16) if text.startswith("0x") else int(text, 10)


def _construct_float(loader: _StrictLoader, node: yaml.ScalarNode) -> float:
    text = loader.construct_scalar(node).lower()
    if text.endswith("inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    if text == ".nan":
        return float("nan")
    return float(text)


def _construct_map(loader: _StrictLoader, node: yaml.MappingNode):
    mapping = LocatedDict(line=node.start_mark.line + 1)
    yield mapping
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, (dict, list)):
            raise ConstructorError(None, None, "a mapping key must be a scalar", key_node.start_mark)
        if key in mapping:
            raise ConstructorError(None, None, f"duplicate key {key!r} (first on line "
                                   f"{mapping.key_lines[key]})", key_node.start_mark)
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.key_lines[key] = key_node.start_mark.line + 1


def _construct_seq(loader: _StrictLoader, node: yaml.SequenceNode):
    sequence = LocatedList(line=node.start_mark.line + 1)
    yield sequence
    for item in node.value:
        sequence.append(loader.construct_object(item, deep=True))
        sequence.item_lines.append(item.start_mark.line + 1)


_StrictLoader.add_constructor(_BOOL, _construct_bool)
_StrictLoader.add_constructor(_INT, _construct_int)
_StrictLoader.add_constructor(_FLOAT, _construct_float)
_StrictLoader.add_constructor(_MAP, _construct_map)
_StrictLoader.add_constructor(_SEQ, _construct_seq)

_FastLoader = None
if getattr(yaml, "__with_libyaml__", False):
    class _FastLoader(yaml.CSafeLoader):  # type: ignore[no-redef]
        """The same rules on libyaml's parser (several times faster); anchors are refused by a
        separate scan of the event stream, since libyaml composes nodes in C."""

        yaml_implicit_resolvers: dict = {}
        yaml_constructors = _StrictLoader.yaml_constructors

        def construct_object(self, node, deep=False):  # type: ignore[override]
            _check_tag(node)
            return super().construct_object(node, deep=deep)

    for _tag, _regexp, _first in _CORE_RESOLVERS:
        _FastLoader.add_implicit_resolver(_tag, _regexp, _first)


def _load(text: str):
    if _FastLoader is None:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - strict SafeLoader subclass
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise ComposerError(None, None, "anchors and aliases are not allowed", event.start_mark)
    return yaml.load(text, Loader=_FastLoader)  # noqa: S506 - strict CSafeLoader subclass


def loads_yaml(text: str, path: str | Path = "<string>",
               error_cls: type[ConsolidateError] = YamlError) -> Any:
    """Parse one YAML document from `text`; errors are located at `path:line:`."""
    where = str(path)
    nul = text.find("\0")
    if nul >= 0:
        raise error_cls("NUL byte in YAML input", Location(where, text.count("\n", 0, nul) + 1))
    try:
        return _load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = "; ".join(part for part in (exc.context, exc.problem) if part) or "syntax error"
        raise error_cls(f"malformed YAML: {problem}", Location(where, line)) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise error_cls(f"unacceptable character U+{code:04X} in YAML",
                        Location(where, line)) from None
    except yaml.YAMLError as exc:
        raise error_cls(f"malformed YAML: {exc}", Location(where)) from None
    except RecursionError:
        raise error_cls("malformed YAML: nesting too deep", Location(where)) from None


def load_yaml(path: str | Path, error_cls: type[ConsolidateError] = YamlError) -> Any:
    """Read and parse the UTF-8 YAML file at `path` into located plain values."""
    where = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise error_cls(f"cannot read: {exc.strerror or exc}", Location(where)) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error_cls(f"not UTF-8 (byte 0x{data[exc.start]:02x})", Location(where, line)) from None
    return loads_yaml(text, where, error_cls)


_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def parse_date(value: Any, path: str | Path, line: int | None,
               error_cls: type[ConsolidateError] = YamlError) -> _dt.date:
    """Turn a `YYYY-MM-DD` string into a date, or raise `error_cls` at `path:line:`."""
    if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        return value
    match = _DATE_RE.match(value) if isinstance(value, str) else None
    if match is None:
        raise error_cls(f"expected a date YYYY-MM-DD, got {value!r}", Location(str(path), line))
    try:
        return _dt.date(*(int(part) for part in match.groups()))
    except ValueError as exc:
        raise error_cls(f"impossible date {value!r}: {exc}", Location(str(path), line)) from None


def line_at(document: Any, keys: Iterable[Any]) -> int | None:
    """Line of the value reached by following `keys` (dict keys, list indices) from `document`."""
    line = getattr(document, "line", None)
    node = document
    for key in keys:
        if isinstance(node, LocatedDict) and key in node:
            line, node = node.key_line(key), node[key]
        elif isinstance(node, LocatedList) and isinstance(key, int) and -len(node) <= key < len(node):
            line, node = node.item_line(key), node[key]
        else:
            break
    return line


def _node_at(document: Any, keys: list[Any]) -> Any:
    node = document
    for key in keys:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def describe_path(keys: Iterable[Any]) -> str:
    """Render a key path as `a.b[2].c` for messages."""
    text = ""
    for key in keys:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text


def check_schema(document: Any, schema: dict, path: str | Path,
                 error_cls: type[ConsolidateError] = YamlError) -> None:
    """Validate `document` against a JSON schema; raise the best error at its YAML line."""
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is None:
        return
    keys = list(error.absolute_path)
    line = line_at(document, keys)
    container = _node_at(document, keys)
    if "propertyNames" in error.absolute_schema_path and isinstance(container, LocatedDict) \
            and error.instance in container:
        line = container.key_line(error.instance)
    elif error.validator == "additionalProperties" and isinstance(error.instance, LocatedDict):
        # Point at the first unexpected key rather than at the mapping it sits in.
        known = error.schema.get("properties", {})
        extra = [k for k in error.instance if k not in known]
        if extra:
            line = error.instance.key_line(extra[0])
    where = describe_path(keys)
    message = f"{where}: {error.message}" if where else error.message
    raise error_cls(message, Location(str(path), line))
