"""The engine's machines: Potato's ``sources:`` and ``cascade:``, or Accord's older tiers.

Two shapes are read (``contracts.md``, "Agreeing with Potato 2.12.1", point 3):

- **Potato 2.12's**: ``sources`` is a list of ``{id, kind, ...}`` (``kind`` one of
  Potato's source kinds; the other keys, endpoints, models, prompts, a static source's
  ``predictions_file``, are kept as written and shown, and change nothing Accord
  computes); ``cascade`` is a list of source ids (a text, or a mapping with
  ``source:``), cheapest first, and defaults to the first source. A tier is named by
  its source id, which is what Potato's database calls it.
- **Accord's older one**: ``cascade: [{name, source}]`` with ``source`` the way the tier
  gives its confidence (``decision_model``, ``logprob``, ``k_sample``, ``verbalized``),
  and no ``sources``. A tier entry with a ``name`` is read this way.

Potato's validation is followed where it decides what a project may hold: unknown
source keys, an unknown source kind, a duplicate id and a cascade naming an unknown
source are errors, each at its line. The checks that only matter to a live server
(endpoint types, API keys, a jury's members) are Potato's to make: Accord never calls a
model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from app.core.contracts.config.values import Section
from app.core.errors import InputError
from app.core.formats.reading.yaml_file import LineList, LineMap

SOURCE_KINDS = ("llm", "vlm", "decision", "detector", "asr", "trained", "lf", "jury",
                "judge", "static", "fixture", "simulator")
"""Potato 2.12.1's source kinds (``config/schema.py``)."""

SOURCE_KEYS = ("id", "kind", "endpoint_type", "model", "base_url", "api_key",
               "temperature", "max_tokens", "timeout", "prompt", "confidence",
               "concurrency", "members", "aggregation", "options", "field",
               "predictions_file", "schemas", "error_rate", "seed", "revision", "judge")
"""The keys Potato 2.12.1 allows on a source."""


class Source(StrEnum):
    """How a tier of Accord's older cascade shape gives its confidence."""

    DECISION_MODEL = "decision_model"
    LOGPROB = "logprob"
    K_SAMPLE = "k_sample"
    VERBALIZED = "verbalized"


@dataclass(frozen=True, slots=True)
class Tier:
    """One cascade tier: its name (a Potato source id) and where its answers come from
    (a Potato source kind, or an older-shape confidence source)."""

    name: str
    source: str


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """One of Potato's ``sources``: its id, kind and the rest as written (secrets out)."""

    id: str
    kind: str
    settings: Mapping[str, Any] = field(default_factory=dict, hash=False)
    line: int | None = None


def read_sources(top: Section) -> tuple[SourceSpec, ...]:
    out: list[SourceSpec] = []
    seen: dict[str, int] = {}
    for section in top.sections("sources"):
        section.check_keys(SOURCE_KEYS, ("id", "kind"), what="a source")
        ident = section.required_text("id")
        kind = section.choice("kind", SOURCE_KINDS)
        assert kind is not None  # required above
        if kind == "static" and not (section.has("field") or section.has("predictions_file")):
            raise section.error("a static source needs field or predictions_file")
        if ident in seen:
            raise section.error(f"source '{ident}' appears twice (first at line "
                                f"{seen[ident]}); expected unique source ids", "id")
        seen[ident] = section.data.line_of("id")
        settings = {str(k): _plain(v) for k, v in section.data.items()
                    if k not in ("id", "kind", "api_key")}
        out.append(SourceSpec(ident, kind, settings, section.data.line))
    return tuple(out)


def read_cascade(top: Section, sources: tuple[SourceSpec, ...]) -> tuple[Tier, ...]:
    """The tiers, cheapest first, in whichever shape the configuration uses."""
    raw = top.data.get("cascade")
    if raw is None:
        if sources:
            return (Tier(sources[0].id, sources[0].kind),)
        raise top.error("expected at least one tier: sources with a cascade of their ids "
                        "(Potato), or cascade: [{name, source}]", "cascade")
    if not isinstance(raw, LineList):
        raise top.error(f"expected a list of source ids, found {type(raw).__name__}",
                        "cascade")
    if not raw:
        raise top.error("expected at least one tier, cheapest first", "cascade")
    by_id = {s.id: s for s in sources}
    out: list[Tier] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(raw):
        line = raw.line_at(i)
        where = f"{top.key_name('cascade')}[{i}]"
        if isinstance(entry, LineMap) and "name" in entry:
            tier = _older_tier(Section(top.file, entry, where))
        else:
            tier = _source_tier(entry, by_id, top, where, line)
        if tier.name in seen:
            raise InputError(f"tier '{tier.name}' appears twice (first at line "
                             f"{seen[tier.name]}); expected unique tier names", file=top.file,
                             line=line, key=where)
        seen[tier.name] = line
        out.append(tier)
    return tuple(out)


def _older_tier(section: Section) -> Tier:
    section.check_keys(("name", "source"), ("name", "source"), what="a cascade tier")
    name = section.required_text("name")
    source = section.choice("source", tuple(Source))
    assert source is not None  # required above
    return Tier(name, source)


def _source_tier(entry: object, by_id: Mapping[str, SourceSpec], top: Section, where: str,
                 line: int) -> Tier:
    if isinstance(entry, LineMap):
        Section(top.file, entry, where).check_keys(("source",), ("source",),
                                                   what="a cascade tier")
        entry = entry.get("source")
    if not isinstance(entry, str) or not entry:
        raise InputError(f"expected a source id, found {entry!r:.60}", file=top.file,
                         line=line, key=where)
    if entry not in by_id:
        known = ", ".join(by_id) or "none: the configuration has no sources"
        raise InputError(f"unknown source '{entry}'; expected the id of one of the "
                         f"configuration's sources ({known})", file=top.file, line=line,
                         key=where)
    return Tier(entry, by_id[entry].kind)


def _plain(value: Any) -> Any:
    """A YAML value with line bookkeeping as plain dicts and lists, for showing."""
    if isinstance(value, LineMap):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, LineList):
        return [_plain(v) for v in value]
    return value
