"""The engine configuration: ``labeling/engine.yaml`` or Potato's ``labeling_engine:`` block.

:func:`load_engine_config` reads and checks the whole configuration before returning
anything (``contracts.md``: nothing is computed from a half-read configuration). Every
problem is one :class:`~app.core.errors.InputError` naming the file, the line and the
key: unknown keys, a missing required key, an unknown contract kind or tier source, a
value out of range, duplicate contract ids or tier names, a schema that is not in the
project or has no loss family (:func:`loss_family`). The contract keys per kind are in
:mod:`app.core.contracts.config.contract_specs`.

Choices where the spec is silent:

- The project folder is the folder ``config.yaml`` was found for (Potato's ``task_dir``,
  as :mod:`app.core.formats.potato.config` decides); ``labeling/`` is in it. Both
  ``labeling/engine.yaml`` and a ``labeling_engine:`` key in ``config.yaml`` present is an
  error naming both; neither present means the project has no engine (``None``).
- Top-level keys: ``cascade`` (required, at least one tier), ``contracts`` (required, at
  least one: a configuration that claims nothing would accept every machine label),
  ``humans`` and ``budgets`` (optional, defaults below). A key written twice in the same
  mapping is an error (YAML would keep the last one silently).
- A tier is ``{name, source}`` and nothing else; names are unique non-empty texts.
- ``humans``: ``dev_fraction`` in (0, 1) (both splits must exist), ``overlap`` in [0, 1],
  ``overlap_k`` and ``distribution_k`` integers of at least 2. A ``no_worse_than_human``
  contract needs ``overlap`` above 0 and ``overlap_k`` of at least 3; a
  ``distributional`` contract needs ``distribution_k`` of at least 3 (its items need 3
  people). These are configuration errors, since no number of labels could fix them.
- ``budgets``: ``human_labels`` an integer ≥ 0 or absent (no cap), ``crowd_reward_usd``
  a positive amount or absent; a ``budget_first`` contract with ``human_usd`` needs it.
- Without a study the schemes are read from ``config.yaml`` (what the study would hold)
  and ``ppi``'s ``by`` field is not checked against the items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from app.core.contracts.config.contract_specs import (
    ContractKind,
    ContractSpec,
    HasField,
    check_ids,
    read_contract,
)
from app.core.contracts.config.values import Section
from app.core.contracts.labels.families import Family, loss_family
from app.core.errors import InputError
from app.core.formats.potato.config import find_config, read_config
from app.core.formats.yaml_lines import Duplicate, LineMap, read_yaml_lines
from app.core.model import Scheme, Study

__all__ = [
    "BLOCK_KEY",
    "ENGINE_FILE",
    "Budgets",
    "ContractKind",
    "ContractSpec",
    "EngineConfig",
    "Family",
    "Humans",
    "Source",
    "Tier",
    "load_engine_config",
    "loss_family",
    "parse_engine_config",
]

ENGINE_FILE = Path("labeling") / "engine.yaml"
BLOCK_KEY = "labeling_engine"
TOP_KEYS = ("cascade", "humans", "budgets", "contracts")
HUMAN_KEYS = ("dev_fraction", "overlap", "overlap_k", "distribution_k")
BUDGET_KEYS = ("human_labels", "crowd_reward_usd")


class Source(StrEnum):
    """Where a tier's predictions and confidences come from."""

    DECISION_MODEL = "decision_model"
    LOGPROB = "logprob"
    K_SAMPLE = "k_sample"
    VERBALIZED = "verbalized"


@dataclass(frozen=True, slots=True)
class Tier:
    name: str
    source: Source


@dataclass(frozen=True, slots=True)
class Humans:
    dev_fraction: float = 0.5
    overlap: float = 0.2
    overlap_k: int = 3
    distribution_k: int = 5


@dataclass(frozen=True, slots=True)
class Budgets:
    human_labels: int | None = None
    crowd_reward_usd: float | None = None


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """The checked configuration; ``source`` is the file it was read from."""

    cascade: tuple[Tier, ...]
    humans: Humans
    budgets: Budgets
    contracts: tuple[ContractSpec, ...]
    source: Path

    @property
    def tier_names(self) -> tuple[str, ...]:
        """Tier names, cheapest first."""
        return tuple(t.name for t in self.cascade)

    def contract(self, ident: str) -> ContractSpec | None:
        return next((c for c in self.contracts if c.id == ident), None)

    def contracts_for(self, schema: str) -> tuple[ContractSpec, ...]:
        return tuple(c for c in self.contracts if c.schema == schema)


def load_engine_config(project: Path, study: Study | None = None) -> EngineConfig | None:
    """Read the project's engine configuration; ``None`` when it has none."""
    project = Path(project)
    config_path = find_config(project)
    root = project if project.is_dir() else config_path.parent
    engine_path = root / ENGINE_FILE
    config_raw, config_dups = read_yaml_lines(config_path)
    has_block = isinstance(config_raw, LineMap) and BLOCK_KEY in config_raw
    if engine_path.is_file() and has_block:
        assert isinstance(config_raw, LineMap)
        raise InputError(
            f"the engine is configured twice: in {engine_path} and in the '{BLOCK_KEY}' "
            f"block of {config_path} (line {config_raw.line_of(BLOCK_KEY)}); expected one "
            "of them", file=engine_path)
    if engine_path.is_file():
        raw, dups = read_yaml_lines(engine_path)
        section = _top(raw, engine_path, "", dups)
    elif has_block:
        assert isinstance(config_raw, LineMap)
        block = config_raw[BLOCK_KEY]
        if not isinstance(block, LineMap):
            raise InputError("expected a mapping with cascade and contracts", file=config_path,
                             line=config_raw.line_of(BLOCK_KEY), key=BLOCK_KEY)
        inside = [d for d in config_dups if block.line <= d.second <= block.end_line]
        section = _top(block, config_path, BLOCK_KEY, inside)
    else:
        return None
    schemes = study.schemes if study is not None else \
        {s.name: s for s in read_config(project).schemes}
    return parse_engine_config(section, schemes, _field_check(study))


def _top(raw: object, path: Path, name: str, dups: list[Duplicate]) -> Section:
    if dups:
        d = dups[0]
        raise InputError(f"key '{d.key}' is written twice (first at line {d.first}); "
                         "expected each key once", file=path, line=d.second, key=d.key)
    if not isinstance(raw, LineMap):
        raise InputError("expected a mapping with cascade, humans, budgets and contracts",
                         file=path, key=name or None)
    return Section(path, raw, name)


def _field_check(study: Study | None) -> HasField | None:
    if study is None:
        return None
    items = study.items
    known: dict[str, bool] = {}

    def has_field(name: str) -> bool:
        if name not in known:
            known[name] = any(name in item.record for item in items.values())
        return known[name]

    return has_field


def parse_engine_config(top: Section, schemes: Mapping[str, Scheme],
                        has_field: HasField | None = None) -> EngineConfig:
    """Check one configuration mapping (the file's top level, or the block)."""
    top.check_keys(TOP_KEYS, ("cascade", "contracts"), what="the engine configuration")
    cascade = _cascade(top)
    humans = _humans(top.section("humans"))
    budgets = _budgets(top.section("budgets"))
    entries = top.sections("contracts")
    if not entries:
        raise top.error("expected at least one contract", "contracts")
    read = [(s, read_contract(s, schemes, has_field)) for s in entries]
    check_ids(read)
    for section, spec in read:
        _check_against_settings(top, section, spec, humans, budgets)
    return EngineConfig(cascade, humans, budgets, tuple(spec for _, spec in read), top.file)


def _cascade(top: Section) -> tuple[Tier, ...]:
    tiers = top.sections("cascade")
    if not tiers:
        raise top.error("expected at least one tier {name, source}, cheapest first", "cascade")
    out: list[Tier] = []
    seen: dict[str, int] = {}
    for section in tiers:
        section.check_keys(("name", "source"), ("name", "source"), what="a cascade tier")
        name = section.required_text("name")
        source = section.choice("source", tuple(Source))
        assert source is not None  # required above
        if name in seen:
            raise section.error(f"tier '{name}' appears twice (first at line {seen[name]}); "
                                "expected unique tier names", "name")
        seen[name] = section.data.line_of("name")
        out.append(Tier(name, Source(source)))
    return tuple(out)


def _humans(section: Section | None) -> Humans:
    if section is None:
        return Humans()
    section.check_keys(HUMAN_KEYS, what="humans")
    d = Humans()
    dev = section.number("dev_fraction", d.dev_fraction, low=0, high=1, low_open=True,
                         high_open=True, what="a share")
    overlap = section.number("overlap", d.overlap, low=0, high=1, what="a share")
    overlap_k = section.integer("overlap_k", d.overlap_k, minimum=2, what="a number of people")
    dist_k = section.integer("distribution_k", d.distribution_k, minimum=2,
                             what="a number of people")
    assert dev is not None and overlap is not None
    assert overlap_k is not None and dist_k is not None
    return Humans(dev, overlap, overlap_k, dist_k)


def _budgets(section: Section | None) -> Budgets:
    if section is None:
        return Budgets()
    section.check_keys(BUDGET_KEYS, what="budgets")
    return Budgets(
        section.integer("human_labels", None, minimum=0, what="a number of labels"),
        section.number("crowd_reward_usd", None, low=0, high=float("inf"), low_open=True,
                       high_open=True, what="a reward in US dollars"))


def _check_against_settings(top: Section, section: Section, spec: ContractSpec,
                            humans: Humans, budgets: Budgets) -> None:
    """Contracts that the humans or budgets settings make impossible to evaluate."""
    humans_section = top.section("humans")
    where = f"contract '{spec.id}' (line {spec.line})"

    def at_humans(key: str, problem: str) -> InputError:
        if humans_section is not None and humans_section.has(key):
            return humans_section.error(f"{problem}, for {where}", key)
        return section.error(f"{problem} (humans.{key} is {getattr(humans, key)} by default)",
                             "kind")

    if spec.kind is ContractKind.NO_WORSE_THAN_HUMAN:
        if humans.overlap_k < 3:
            raise at_humans("overlap_k", "no_worse_than_human needs humans.overlap_k of at "
                            "least 3 people per overlap item")
        if humans.overlap <= 0:
            raise at_humans("overlap", "no_worse_than_human needs humans.overlap above 0 "
                            "(items labelled by several people)")
    if spec.kind is ContractKind.DISTRIBUTIONAL and humans.distribution_k < 3:
        raise at_humans("distribution_k", "distributional needs humans.distribution_k of at "
                        "least 3 people per item")
    if spec.kind is ContractKind.BUDGET_FIRST and spec.params["human_usd"] is not None \
            and budgets.crowd_reward_usd is None:
        raise section.error("human_usd is priced at budgets.crowd_reward_usd, which is not "
                            "set; expected budgets.crowd_reward_usd or human_labels",
                            "human_usd")
