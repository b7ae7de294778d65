"""Typed reads of one mapping of the engine configuration, each failure naming its line.

A :class:`Section` wraps one YAML mapping (a :class:`~app.core.formats.reading.yaml_file.LineMap`)
with the file it came from and its dotted name (``contracts[2]``); every getter checks
the type and range of one key and raises :class:`InputError` at that key's line, naming
the key and what was expected. A missing key is reported at the mapping's own line.

Choices: booleans are never numbers (YAML ``true`` is not 1); integers are accepted
where a real number is expected; ``.nan`` and ``.inf`` are refused; a key written as
``null`` counts as absent.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import InputError
from app.core.formats.reading.yaml_file import LineList, LineMap


@dataclass(frozen=True, slots=True)
class Section:
    """One mapping of the configuration, where it is, and how to name it."""

    file: Path
    data: LineMap
    name: str

    def key_name(self, key: str | None) -> str:
        if key is None:
            return self.name
        return f"{self.name}.{key}" if self.name else key

    def error(self, problem: str, key: str | None = None) -> InputError:
        line = self.data.line_of(key) if key is not None else self.data.line
        return InputError(problem, file=self.file, line=line, key=self.key_name(key) or None)

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def check_keys(self, allowed: Collection[str], required: Collection[str] = (),
                   what: str = "this mapping") -> None:
        """Refuse unknown keys (at their line) and missing required ones.

        ``what`` names the mapping in messages: "a selective_risk contract".
        """
        for key in self.data:
            if key not in allowed:
                raise self.error(f"unknown key '{key}' for {what}; expected one of "
                                 f"{', '.join(allowed)}", str(key))
        for key in required:
            if key in self.data and self.data[key] is None:
                raise self.error(f"'{key}' is empty; expected a value", key)
            if not self.has(key):
                raise self.error(f"missing key '{key}'; {what} needs "
                                 f"{', '.join(required)}")

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, str) or not value.strip():
            raise self.error(f"expected a non-empty text, found {value!r}", key)
        return value

    def required_text(self, key: str) -> str:
        value = self.text(key)
        if value is None:
            raise self.error(f"missing key '{key}'; expected a non-empty text")
        return value

    def choice(self, key: str, options: Collection[str], default: str | None = None
               ) -> str | None:
        value = self.text(key, default)
        if value is not None and value not in options:
            raise self.error(f"'{value}' is not allowed; expected one of "
                             f"{', '.join(options)}", key)
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(f"expected true or false, found {value!r}", key)
        return value

    def number(self, key: str, default: float | None, *, low: float, high: float,
               low_open: bool = False, high_open: bool = False, what: str = "a number"
               ) -> float | None:
        """A real number in the interval ``low..high`` (each end open or closed)."""
        value = self.data.get(key)
        if value is None:
            return default
        interval = (f"{'(' if low_open else '['}{_show(low)}, {_show(high)}"
                    f"{')' if high_open else ']'}")
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value):
            raise self.error(f"expected {what} in {interval}, found {value!r}", key)
        number = float(value)
        too_low = number <= low if low_open else number < low
        too_high = number >= high if high_open else number > high
        if too_low or too_high:
            raise self.error(f"{_show(number)} is outside {interval}; expected {what} in "
                             f"{interval}", key)
        return number

    def integer(self, key: str, default: int | None, *, minimum: int,
                what: str = "an integer") -> int | None:
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(f"expected {what} (a whole number) of at least {minimum}, found "
                             f"{value!r}", key)
        if value < minimum:
            raise self.error(f"{value} is too small; expected {what} of at least {minimum}",
                             key)
        return value

    def section(self, key: str) -> Section | None:
        """The mapping under ``key`` (``None`` when absent)."""
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, LineMap):
            raise self.error(f"expected a mapping of keys, found {type(value).__name__}", key)
        return Section(self.file, value, self.key_name(key))

    def sections(self, key: str) -> list[Section]:
        """The list of mappings under ``key`` (empty when absent)."""
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, LineList):
            raise self.error(f"expected a list, found {type(value).__name__}", key)
        out = []
        for i, entry in enumerate(value):
            name = f"{self.key_name(key)}[{i}]"
            if not isinstance(entry, LineMap):
                raise InputError(f"expected a mapping, found {entry!r:.60}", file=self.file,
                                 line=value.line_at(i), key=name)
            out.append(Section(self.file, entry, name))
        return out


def _show(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else repr(float(number))
