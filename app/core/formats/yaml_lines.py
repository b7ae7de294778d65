"""YAML that remembers lines: every mapping and list knows where it and its entries start.

Configuration errors must name the line (``contracts.md``: "a clear error naming the
line"), which ``yaml.safe_load`` forgets. This loader is PyYAML's ``SafeLoader`` with
two constructors replaced: mappings become :class:`LineMap` and sequences
:class:`LineList`, plain ``dict`` and ``list`` subclasses carrying 1-based line numbers
(``line`` where the node starts, ``end_line`` where it ends, and the line of each key or
entry). Scalars are built exactly as ``safe_load`` builds them.

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

from app.core.formats.files import read_text, yaml_error
from app.core.formats.nesting import BoundedLoader

MERGE_TAG = "tag:yaml.org,2002:merge"


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
    depth and alias bounds of :class:`~app.core.formats.nesting.BoundedLoader`."""

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
