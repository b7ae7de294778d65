"""A YAML file of the project: the entry for YAML, plain or with its lines remembered.

:func:`read_yaml` reads a file as ``yaml.safe_load`` does, within :mod:`.nesting`'s
bounds (depth, aliases), through :mod:`.boundary`; :func:`yaml_error` turns a YAML
syntax error into one message naming the line that is broken.

YAML that remembers lines (:func:`read_yaml_lines`): every mapping and list knows where it
and its entries start. Configuration errors must name the line (``contracts.md``: "a
clear error naming the line"), which ``yaml.safe_load`` forgets. This loader is PyYAML's
``SafeLoader`` with two constructors replaced: mappings become :class:`LineMap` and
sequences :class:`LineList`, plain ``dict`` and ``list`` subclasses carrying 1-based line
numbers (``line`` where the node starts, ``end_line`` where it ends, and the line of each
key or entry). Scalars are built exactly as ``safe_load`` builds them.

A key written twice in one mapping is recorded in :attr:`LineLoader.duplicates` (PyYAML
silently keeps the last one); the caller decides whether that is an error, so a
Potato ``config.yaml`` can be read for its ``labeling_engine:`` block without judging
the rest of the file. Keys brought in by a YAML merge (``<<: *anchor``) may be
overridden; that is what merging is for, not a duplicate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from app.core.errors import InputError
from app.core.formats.reading import nesting
from app.core.formats.reading.nesting import BoundedLoader
from app.core.formats.reading.text_file import read_text

MERGE_TAG = "tag:yaml.org,2002:merge"


def yaml_error(path: Path, exc: yaml.YAMLError, text: str | None = None
               ) -> InputError:
    """A YAML syntax error as one message naming the file and the line that is broken.

    PyYAML marks where it *noticed* the problem, which for an unclosed quote is where the
    next quote happens to be, often far below. So the line named is, in order: the first
    line before that mark that opens a quoted string it does not close
    (:func:`_unclosed_quote`); else the start of the construct PyYAML was reading (its
    context mark); else its problem mark.
    """
    if isinstance(exc, nesting.YAMLLimitError):
        return InputError(exc.problem, file=path, line=exc.line)
    mark = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    noticed = mark.line + 1 if mark is not None else None
    opened = _unclosed_quote(text, noticed) if text is not None else None
    if opened is not None:
        return InputError("malformed YAML: a quoted string opens on this line and is not "
                          f"closed on it (PyYAML: {problem}, at line {noticed})", file=path,
                          line=opened)
    if context is not None and noticed is not None and context.line + 1 < noticed:
        what = getattr(exc, "context", None) or "reading the value"
        return InputError(f"malformed YAML: {problem} ({what} that starts on this line; "
                          f"noticed at line {noticed})", file=path, line=context.line + 1)
    return InputError(f"malformed YAML: {problem}", file=path, line=noticed)


def _unclosed_quote(text: str, before: int | None) -> int | None:
    """The first line (1-based, before line ``before``) whose value opens a double- or
    single-quoted string and does not close it there; ``None`` if none does."""
    for number, line in enumerate(text.splitlines()[: (before or 0) - 1], start=1):
        stripped = line.split(" #", 1)[0].strip()
        if not stripped or stripped.startswith("#"):
            continue
        _, sep, value = stripped.partition(": ")
        value = (value if sep else stripped.lstrip("- ")).strip()
        for quote in ('"', "'"):
            if value.startswith(quote) and (len(value) == 1 or not value.endswith(quote)
                                            or value.endswith("\\" + quote)):
                return number
    return None


def read_yaml(path: Path, *, root: Path | None = None) -> Any:
    """A YAML file as ``yaml.safe_load`` reads it, within :mod:`~app.core.formats.reading.nesting`'s
    bounds (depth, aliases)."""
    text = read_text(path, "UTF-8 YAML", root=root)
    try:  # the loader's constructor already refuses unprintable characters
        loader = nesting.BoundedLoader(text)
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from exc
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from exc
    finally:
        loader.dispose()


class LineMap(dict[Any, Any]):
    """A YAML mapping with its start line, end line and the line of every key."""

    __slots__ = ("end_line", "key_lines", "line")

    def __init__(self, line: int = 0, end_line: int = 0) -> None:
        super().__init__()
        self.line = line
        self.end_line = end_line
        self.key_lines: dict[Any, int] = {}

    def line_of(self, key: Any) -> int:
        """The line of ``key``, or the mapping's own line when the key is absent."""
        return self.key_lines.get(key, self.line)


class LineList(list[Any]):
    """A YAML sequence with its start line and the line of every entry."""

    __slots__ = ("item_lines", "line")

    def __init__(self, line: int = 0) -> None:
        super().__init__()
        self.line = line
        self.item_lines: list[int] = []

    def line_at(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A key written twice in one mapping: its first and its second line."""

    key: str
    first: int
    second: int


class LineLoader(BoundedLoader):
    """``SafeLoader`` building :class:`LineMap` and :class:`LineList`, within the
    depth and alias bounds of :class:`~app.core.formats.reading.nesting.BoundedLoader`."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[Duplicate] = []


def _construct_map(loader: LineLoader, node: yaml.MappingNode) -> Iterator[LineMap]:
    data = LineMap(node.start_mark.line + 1, node.end_mark.line + 1)
    yield data
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
            continue
        line = key_node.start_mark.line + 1
        if key_node.value in seen:
            loader.duplicates.append(Duplicate(str(key_node.value), seen[key_node.value], line))
        else:
            seen[key_node.value] = line
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                "found an unhashable key", key_node.start_mark) from None
        data.key_lines[key] = key_node.start_mark.line + 1
        data[key] = loader.construct_object(value_node, deep=True)


def _construct_seq(loader: LineLoader, node: yaml.SequenceNode) -> Iterator[LineList]:
    data = LineList(node.start_mark.line + 1)
    yield data
    for child in node.value:
        data.item_lines.append(child.start_mark.line + 1)
        data.append(loader.construct_object(child, deep=True))


LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def read_yaml_lines(path: Path, *, root: Path | None = None) -> tuple[Any, list[Duplicate]]:
    """Parse a YAML file into line-carrying values; also return the duplicated keys.

    An unreadable file or a YAML syntax error raises :class:`InputError` naming the
    file and, where the parser knows it, the line.
    """
    text = read_text(path, "UTF-8 YAML", root=root)
    try:  # the loader's constructor already refuses unprintable characters
        loader = LineLoader(text)
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from exc
    try:
        return loader.get_single_data(), loader.duplicates
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from exc
    finally:
        loader.dispose()
