"""Parsing JSON and YAML within bounds: nesting depth, integer length, YAML aliases.

Why: Python's parsers recurse, and their failures are not input errors. JSON nested
1,000 deep raised ``RecursionError`` and YAML 2,000 deep the same; an integer of 5,000
digits raised ``ValueError`` (Python's 4,300-digit limit for ``int``), and −10^400 parsed
but raised ``OverflowError`` wherever it became a float. Every such file is now one
:class:`InputError` naming the file (and line or key):

- **depth**: at most :data:`MAX_DEPTH` (100) nested lists and objects. Real files nest
  fewer than 15 (a Potato ``user_state.json`` 6, an agent trace 10); 100 keeps every
  later recursive walk (``json.dumps``, hashing, the readers) far from Python's limit.
- **integers**: at most :data:`MAX_INT_DIGITS` (300) digits, so every integer converts
  to a finite float (the largest float has 309 digits) and none reaches the digit limit.
- **YAML aliases**: a document may expand to at most :data:`MAX_YAML_NODES` values once
  its aliases are followed, so a "billion laughs" file is refused before any reader walks
  it.

Speed: :func:`loads` parses with orjson where its value is certainly ``json.loads``'s
(:func:`standard_loads`) and with ``json.loads`` otherwise, so values and error messages
are the standard library's.

Costs: the depth of a JSON text is counted only when it holds more than
:data:`MAX_DEPTH` brackets at all (a C count), then exactly with one ``bytes.translate``
and a numpy pass (about 1 ms per MB); integers are checked by a C substring search of a
translated copy; the checks never change what is parsed.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import yaml

from app.core.errors import InputError
from app.core.formats.reading.digit_runs import DIGITS as _DIGITS
from app.core.formats.reading.digit_runs import LONG as _LONG
from app.core.formats.reading.digit_runs import MAX_INT_DIGITS as MAX_INT_DIGITS  # re-exported
from app.core.formats.reading.digit_runs import WIDE as _WIDE
from app.core.formats.reading.digit_runs import has_long_integer as has_long_integer
from app.core.formats.reading.digit_runs import has_wide_number as has_wide_number

MAX_DEPTH = 100
MAX_YAML_NODES = 1_000_000

_KEEP = b'"[]{}'
_DELETE = bytes(b for b in range(256) if b not in _KEEP)
_STEP = np.zeros(256, dtype=np.int8)
_STEP[list(b"[{")] = 1
_STEP[list(b"]}")] = -1
"""Each byte's change of depth: +1 for an opening bracket, -1 for a closing one."""
_OPENERS_AS_BRACES = bytes(123 if b == 91 else b for b in range(256))
_DELETE_BUT_OPENERS = bytes(b for b in range(256) if b not in b"[{\n")
_STRING = re.compile(rb'"[^"]*"')
_QUOTE = ord('"')
_STEP_OF = _STEP.tolist()
_SHORT = 1 << 16
"""Stripped texts shorter than this are counted without numpy (:func:`_kept_depth`)."""


def _where(file: Path | str | None, line: int | None, key: str | None) -> dict[str, Any]:
    return {"file": file, "line": line, "key": key}


def json_depth(data: bytes | str) -> int:
    """How deeply lists and objects nest in a JSON text (strings are not counted).

    Exact for valid JSON; for broken JSON a lower or higher count is harmless (the
    parser then names the syntax error). Escaped backslashes and escaped quotes are
    removed first, then everything but quotes and brackets; what is left between pairs
    of quotes is inside strings.
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    return _kept_depth(raw.translate(None, _DELETE))


def _kept_depth(kept: bytes) -> int:
    """:func:`json_depth` of a text already stripped to its quotes and brackets (escaped
    backslashes and quotes removed first).

    Two ways, for the GUI's sake (it reads projects on a worker thread; see
    ``tests/benchmarks/bench_gui_stall.py``):

    - a short text (a piece of a ``user_state.json``: one item's answers) is counted by C
      iterators that keep the interpreter lock a few microseconds. numpy lets go of the
      lock inside each call on more than a few hundred elements and takes it back at
      once; thousands of such calls in a row starved the GUI thread, which asked for the
      lock each time just too late (40-200 ms stalls);
    - a long one (a whole 14 MB file) by a running parity of the quotes in numpy, a few
      calls of a few milliseconds: a bracket is inside a string when an odd number of
      quotes comes before it (one regular expression over the text held the lock
      50-190 ms). An odd number of quotes (broken JSON) is counted as the short way."""
    kept = kept.replace(b'""', b"")  # strings without brackets (keeps every parity)
    if not kept:
        return 0
    if len(kept) < _SHORT:
        return _kept_depth_by_pattern(kept)
    codes = np.frombuffer(kept, dtype=np.uint8)
    steps = _STEP[codes]
    if b'"' in kept:
        quotes = (codes == _QUOTE).view(np.uint8)
        if int(np.count_nonzero(quotes)) % 2:
            return _kept_depth_by_pattern(kept)
        inside = np.bitwise_xor.accumulate(quotes)  # at a bracket: the quotes before it
        steps[inside.view(bool)] = 0
    return int(np.cumsum(steps, dtype=np.int32).max(initial=0))


def _kept_depth_by_pattern(kept: bytes) -> int:
    """:func:`_kept_depth` by removing each pair of quotes and what lies between, left
    to right (a last unpaired quote stays, and the brackets after it count), then a
    running sum in C iterators."""
    if b'"' in kept:
        kept = _STRING.sub(b"", kept)
    return max(0, max(accumulate(map(_STEP_OF.__getitem__, kept)), default=0))


_LONG_TEXT = 1 << 16
"""From this length on, :func:`deeper_than` counts brackets in the stripped text."""


def deeper_than(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``data`` nests deeper than ``limit``: counted only when it holds more than
    ``limit`` opening brackets (fewer cannot nest deeper).

    In a long text the brackets are counted in what :func:`json_depth` keeps of it
    (quotes and brackets: the same brackets, a fraction of the bytes), so a 14 MB
    ``user_state.json`` is scanned once, not three times."""
    if len(data) < _LONG_TEXT:  # short: two C counts over the text are the cheaper filter
        if isinstance(data, str):
            opening = data.count("[") + data.count("{")
        else:
            opening = data.count(b"[") + data.count(b"{")
        return opening > limit and json_depth(data) > limit
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = raw.translate(None, _DELETE)
    if kept.count(b"[") + kept.count(b"{") <= limit:
        return False
    return _kept_depth(kept) > limit


def some_line_may_nest_deeper(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether any line of ``data`` holds more than ``limit`` opening brackets (only such
    a line can nest deeper than ``limit``), for JSON Lines read whole: one
    ``bytes.translate`` keeps only the newlines and the opening brackets (as ``{``), so a
    line with more than ``limit`` of them is a run of ``limit + 1`` braces."""
    return b"{" * (limit + 1) in data.translate(_OPENERS_AS_BRACES, _DELETE_BUT_OPENERS)


def check_json(
    data: bytes | str, *, file: Path | str | None, line: int | None = None, key: str | None = None
) -> None:
    """Refuse JSON nested deeper than :data:`MAX_DEPTH` or holding an overlong integer."""
    if deeper_than(data):
        raise too_deep(file=file, line=line, key=key)
    check_integers(data, file=file, line=line, key=key)


def too_deep(
    *, file: Path | str | None, line: int | None = None, key: str | None = None
) -> InputError:
    return InputError(
        f"JSON nested deeper than {MAX_DEPTH} levels; expected at most "
        f"{MAX_DEPTH} nested lists and objects",
        **_where(file, line, key),
    )


def check_integers(
    data: bytes | str, *, file: Path | str | None, line: int | None = None, key: str | None = None
) -> None:
    """Refuse a JSON text holding an integer of more than :data:`MAX_INT_DIGITS` digits."""
    if has_long_integer(data):
        _bounded_parse(data, file, line, key)


def _bounded_parse(
    data: bytes | str, file: Path | str | None, line: int | None, key: str | None
) -> Any:
    """Parse with a hook on every integer (only files with a long digit run pay it)."""

    def bounded_int(text: str) -> int:
        digits = len(text.lstrip("-"))
        if digits > MAX_INT_DIGITS:
            raise InputError(
                f"a number with {digits:,} digits; expected numbers of at most "
                f"{MAX_INT_DIGITS} digits",
                **_where(file, line, key),
            )
        return int(text)

    try:
        return json.loads(data, parse_int=bounded_int)
    except (json.JSONDecodeError, RecursionError):
        return None  # the caller's own parse names the syntax error


def standard_loads(data: bytes | str) -> Any:
    """``json.loads(data)``: the same value, the same errors, parsed by orjson where
    that is certainly the same (three times faster on a lidar study's answers).

    orjson is stricter than ``json.loads`` (no ``NaN`` or ``Infinity``, no lone
    surrogates, no byte-order mark, no UTF-16), so whatever it refuses is parsed again by
    ``json.loads``, which reads it or names the error as always. The one input orjson
    reads differently is an integer past 64 bits (it gives a float): a text holding a run
    of 19 digits anywhere (in a string or a fraction too) goes to ``json.loads`` at once.
    Floats are read to the same bits (checked on 300,000 random ones, subnormals and
    25-digit mantissas included; ``tests/core/test_nesting_orjson.py``), duplicate keys
    keep the first key's place and the last value in both.
    """
    value = orjson_value(data)
    return json.loads(data) if value is REFUSED else value


REFUSED = object()
"""What :func:`orjson_value` returns when orjson's value might not be ``json.loads``'s."""


def orjson_value(data: bytes | str) -> Any:
    """orjson's value of ``data`` where it is certainly ``json.loads``'s, else
    :data:`REFUSED` (orjson refused the text, or it holds a run of 19 digits)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) >= len(_WIDE) and _WIDE in raw.translate(_DIGITS):
        return REFUSED
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return REFUSED


def loads(
    data: bytes | str, *, file: Path | str | None, line: int | None = None, key: str | None = None
) -> Any:
    """``json.loads`` after :func:`check_json`; a syntax error is ``json.JSONDecodeError``
    as usual (the caller words it), a depth the parser cannot follow an InputError."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if deeper_than(raw):  # check_json, with one encoding and one digit translation
        raise too_deep(file=file, line=line, key=key)
    digits = raw.translate(_DIGITS)
    if len(raw) > MAX_INT_DIGITS and _LONG in digits:
        _bounded_parse(data, file, line, key)
    if len(raw) < len(_WIDE) or _WIDE not in digits:
        try:
            return orjson.loads(raw)  # standard_loads, sharing the digit translation
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(data)
    except RecursionError:
        raise too_deep(file=file, line=line, key=key) from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise InputError(f"unreadable number ({exc})", **_where(file, line, key)) from None


def value_deeper_than(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether a parsed JSON value nests lists and objects deeper than ``limit``: for a
    valid JSON text, the same answer as :func:`deeper_than` of the text.

    Why: a reader that has parsed a whole file already (orjson refuses invalid JSON, so
    its text's brackets outside strings are exactly the value's containers) walks its few
    thousand containers in a few milliseconds, where counting the depth of a lidar
    study's 14 MB ``user_state.json`` text, its answers' escaped quotes removed first,
    takes some 70 ms. The walk keeps its own stack and stops past ``limit``."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list))
    return False


def within_bounds(text: str | bytes) -> bool:
    """Whether a JSON text stored inside another file (a database column) is within the
    bounds; the callers read one that is not as an unreadable value."""
    return not deeper_than(text) and not has_long_integer(text)


class YAMLLimitError(yaml.YAMLError):
    """A YAML document past one of the bounds, with the line where it went past."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's ``SafeLoader`` refusing nesting deeper than :data:`MAX_DEPTH` and
    documents that expand (aliases followed) to more than :data:`MAX_YAML_NODES` values.

    The composer is PyYAML's only recursive stage before construction (scanner and
    parser keep explicit stacks), so bounding :meth:`compose_node` bounds both. A node's
    expanded size is one plus its children's, an alias counting the whole node it names.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._sizes: dict[int, int] = {}
        self._heights: dict[int, int] = {}

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            collection = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
            if self._depth > MAX_DEPTH and self.check_event(*collection):
                line = self.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
                raise YAMLLimitError(
                    f"YAML nested deeper than {MAX_DEPTH} levels; expected "
                    f"at most {MAX_DEPTH} nested lists and mappings",
                    line,
                )
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is not None and id(node) not in self._sizes:  # an alias is counted already
            children: list[Any] = []
            if isinstance(node, yaml.SequenceNode):
                children = list(node.value)
            elif isinstance(node, yaml.MappingNode):
                children = [part for pair in node.value for part in pair]
            size = 1 + sum(self._sizes.get(id(child), 1) for child in children)
            self._sizes[id(node)] = size
            # The height counts an alias's whole node, so a chain of aliases to deep
            # nodes cannot nest deeper than the bound once constructed.
            scalar = isinstance(node, yaml.ScalarNode)
            height = 0 if scalar else 1 + max(map(self._height, children), default=0)
            self._heights[id(node)] = height
            if height > MAX_DEPTH:
                raise YAMLLimitError(
                    f"YAML nested deeper than {MAX_DEPTH} levels once its aliases are "
                    f"followed; expected at most {MAX_DEPTH} nested lists and mappings",
                    node.start_mark.line + 1,
                )
            if size > MAX_YAML_NODES:
                raise YAMLLimitError(
                    f"the YAML expands to more than {MAX_YAML_NODES:,} values through its "
                    "aliases (&anchor, *alias); expected a plain configuration",
                    node.start_mark.line + 1,
                )
        return node

    def _height(self, node: Any) -> int:
        return self._heights.get(id(node), 0)

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int:
        """An integer of at most :data:`MAX_INT_DIGITS` digits (hex, octal and ``1:30``
        sexagesimal included: the value is bounded too), so none reaches Python's digit
        limit or overflows a float."""
        line = node.start_mark.line + 1
        digits = str(node.value).replace("_", "").lstrip("+-")
        if len(digits) > MAX_INT_DIGITS:
            raise YAMLLimitError(
                f"a number with {len(digits):,} digits; expected numbers of at most "
                f"{MAX_INT_DIGITS} digits",
                line,
            )
        value: int = self.construct_yaml_int(node)
        if abs(value) >= 10**MAX_INT_DIGITS:
            raise YAMLLimitError(f"a number above 1e{MAX_INT_DIGITS}; expected a smaller one", line)
        return value


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_bounded_int)
