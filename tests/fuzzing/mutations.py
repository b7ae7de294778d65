"""Hypothesis strategies that mutate real projects: a :class:`Plan` drawn, then applied.

A plan is plain data (which project, which file, which edit), so hypothesis prints a
failing one in full and it can be replayed with :func:`apply_plan`. The edits:

- ``truncate`` a file at a fraction of its length; ``flip`` a few bytes;
- ``value``: replace one value of a JSON, JSON Lines or YAML file (chosen among all its
  values, keys' values and list entries, inside a structured answer's JSON string too)
  with a nasty one: a wrong type, ``NaN``/``Infinity``, ±1e308, an integer of 301, 400 or
  5,000 digits, nesting 99 to 5,000 deep, a path out of the project, a long name;
- ``special``: replace a file by a FIFO, a link out of the project, a link to
  ``/dev/zero`` or ``/dev/null``, a dangling link, a link loop, a folder, an empty
  file or a sparse file larger than the reader's cap; or delete it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from tests.fuzzing.projects import (
    CERTIFIED,
    SOURCES,
    TEXT_SUFFIXES,
    Raw,
    copy_project,
    deep_json,
    dumps,
    files_of,
    int_digits,
)

TARGETS = ("config", "state", "data", "labeling", "ledger", "any")
"""Where an edit lands: config.yaml, an annotator's user_state.json, a data file, a file
of labeling/, the ledger (its lines or its head), or any file of the project."""

SPECIALS = (
    "fifo",
    "link-outside",
    "link-dev-zero",
    "link-dev-null",
    "dangling-link",
    "link-loop",
    "folder",
    "empty",
    "sparse",
    "delete",
)

NASTY_JSON: tuple[Any, ...] = (
    None, True, False, "", "x", 0, -1, 0.5, [], {}, [1, 2], {"a": 1}, [[]], [{}],
    Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1e308"), Raw("-1e308"),
    Raw("1e400"), Raw("1e-320"), 10**18, -(2**63), 10**9,
    int_digits(301), int_digits(400, negative=True), int_digits(5000),
    deep_json(99), deep_json(100), deep_json(101), deep_json(1000), deep_json(5000),
    deep_json(150, "object"), deep_json(1000, "object"),
    "a" * 300, "../../../../etc/passwd", "/etc/passwd", "/dev/zero", "\u0000", "é" * 10,
    "1" * 5000,
)  # fmt: skip
"""Values planted in JSON: each one broke, or could break, some reader."""

NASTY_YAML: tuple[str, ...] = (
    "null", "true", "''", "x", "0", "-1", "0.5", "[]", "{}", "[1, 2]", "{a: 1}",
    ".nan", ".inf", "-.inf", "1e308", "-1e308", "1000000000", "-1000000000",
    "1" + "0" * 300, "1" + "0" * 5000,
    "[" * 99 + "1" + "]" * 99, "[" * 101 + "1" + "]" * 101, "[" * 2000 + "1" + "]" * 2000,
    "{a: " * 150 + "1" + "}" * 150,
    "'" + "a" * 300 + "'", "../../../../etc/passwd", "/etc/passwd", "/dev/zero",
    '"\\0"', "*nowhere",
)  # fmt: skip
"""Values planted in YAML, as flow text."""


@dataclass(frozen=True)
class Step:
    kind: str
    """``truncate``, ``flip``, ``value`` or ``special``."""
    target: str
    index: int
    """Which file among the target's (modulo their number)."""
    where: float = 0.0
    """truncate: the fraction kept; value: which value (fraction of the values)."""
    payload: int = 0
    """flip: the seed of the bytes; value: which nasty value; special: which special."""
    descend: bool = False
    """value: into a structured answer stored as a JSON string, where there is one."""


@dataclass(frozen=True)
class Plan:
    project: str
    steps: tuple[Step, ...]


_fractions = st.floats(0.0, 1.0, allow_nan=False, exclude_max=True)


@st.composite
def steps(draw: st.DrawFn) -> Step:
    kind = draw(st.sampled_from(("truncate", "flip", "value", "value", "value", "special")))
    target = draw(st.sampled_from(TARGETS))
    index = draw(st.integers(0, 1000))
    if kind == "special":
        return Step(kind, target, index, payload=draw(st.integers(0, len(SPECIALS) - 1)))
    return Step(kind, target, index, where=draw(_fractions),
                payload=draw(st.integers(0, 10**6)), descend=draw(st.booleans()))  # fmt: skip


def plans() -> st.SearchStrategy[Plan]:
    """A source project and one to three edits of it."""
    return st.builds(
        Plan,
        st.sampled_from([p.name for p in SOURCES] + list(CERTIFIED)),
        st.lists(steps(), min_size=1, max_size=3).map(tuple),
    )


# ------------------------------------------------------------------------- applying


def apply_plan(plan: Plan, into: Path) -> Path:
    """Copy the plan's project into ``into`` and apply its steps; the copy's folder."""
    project = copy_project(plan.project, into)
    outside = into / "outside"
    outside.mkdir(exist_ok=True)
    for step in plan.steps:
        files = _targets(project, step.target)
        if files:
            _apply(step, files[step.index % len(files)], outside)
    return project


def _targets(project: Path, target: str) -> list[Path]:
    every = files_of(project)
    chosen = {
        "config": [p for p in every if p.name == "config.yaml" or p.suffix in (".yaml", ".yml")],
        "state": [p for p in every if p.name == "user_state.json"],
        "data": [p for p in every if p.parent.name == "data"],
        "labeling": [p for p in every if p.parent.name == "labeling"],
        "ledger": [p for p in every if "ledger" in p.name],
    }.get(target, every)
    return chosen or every


def _apply(step: Step, path: Path, outside: Path) -> None:
    if step.kind == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * step.where)])
    elif step.kind == "flip":
        _flip(path, step.payload)
    elif step.kind == "value":
        if path.suffix in (".yaml", ".yml"):
            _yaml_value(path, step)
        elif path.suffix in TEXT_SUFFIXES:
            _json_value(path, step)
        else:
            _flip(path, step.payload)
    else:
        _special(path, SPECIALS[step.payload % len(SPECIALS)], outside)


def _flip(path: Path, seed: int) -> None:
    data = bytearray(path.read_bytes())
    if not data:
        return
    for k in range(1 + seed % 4):
        at = (seed * 7919 + k * 104729) % len(data)
        data[at] = (data[at] ^ (1 + (seed >> k) % 255)) & 0xFF
    path.write_bytes(bytes(data))


def _special(path: Path, kind: str, outside: Path) -> None:
    if kind == "sparse":
        with path.open("r+b") as handle:
            handle.truncate(600 * 1024 * 1024)
        return
    if kind == "empty":
        path.write_bytes(b"")
        return
    moved = outside / f"{path.parent.name}-{path.name}"
    path.replace(moved)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-outside":
        path.symlink_to(moved)
    elif kind == "link-dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "link-dev-null":
        path.symlink_to("/dev/null")
    elif kind == "dangling-link":
        path.symlink_to(path.parent / "nowhere" / path.name)
    elif kind == "link-loop":
        path.symlink_to(path.name)
    elif kind == "folder":
        path.mkdir()


# ------------------------------------------------------------------- planting values


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a parsed value (the root included), in document order."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*prefix, i))


def _replace(value: Any, where: tuple[Any, ...], new: Any) -> Any:
    if not where:
        return new
    holder = value
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = new
    return value


def _plant(value: Any, step: Step) -> Any:
    """``value`` with one of its places replaced by a nasty value (or, descending, one
    place inside a JSON string it holds)."""
    places = list(_paths(value))
    where = places[int(step.where * len(places)) % len(places)]
    if step.descend:
        strings = [p for p in places if _json_text(_get(value, p))]
        if strings:
            where = strings[int(step.where * len(strings)) % len(strings)]
            inner = json.loads(_get(value, where))
            changed = _plant(inner, Step("value", step.target, 0, step.where, step.payload))
            return _replace(value, where, _JsonString(dumps(changed)))
    return _replace(value, where, NASTY_JSON[step.payload % len(NASTY_JSON)])


class _JsonString(Raw):
    def __init__(self, text: str) -> None:
        super().__init__(json.dumps(text))


def _get(value: Any, where: tuple[Any, ...]) -> Any:
    for key in where:
        value = value[key]
    return value


def _json_text(value: Any) -> bool:
    if not isinstance(value, str) or value[:1] not in ("[", "{"):
        return False
    try:
        json.loads(value)
    except (ValueError, RecursionError):
        return False
    return True


def _json_value(path: Path, step: Step) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in (".json", ".jsonl"):
        try:
            path.write_text(dumps(_plant(json.loads(text), step)), encoding="utf-8")
            return
        except (ValueError, RecursionError):  # an earlier step broke it: edit a line
            pass
    lines = text.splitlines()
    if not lines:
        return
    at = int(step.where * len(lines)) % len(lines)
    try:
        lines[at] = dumps(_plant(json.loads(lines[at]), step))
    except (ValueError, RecursionError):
        lines[at] = lines[at][: len(lines[at]) // 2]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _yaml_value(path: Path, step: Step) -> None:
    try:
        value = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, ValueError, RecursionError):
        _flip(path, step.payload)
        return
    places = list(_paths(value))
    where = places[int(step.where * len(places)) % len(places)]
    marker = "ACCORD_FUZZ_MARKER"
    value = _replace(value, where, marker)
    text = yaml.safe_dump(value, sort_keys=False, width=10**6)
    nasty = NASTY_YAML[step.payload % len(NASTY_YAML)]
    path.write_text(text.replace(marker, nasty, 1), encoding="utf-8")
