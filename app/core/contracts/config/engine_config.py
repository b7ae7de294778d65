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
- The keys are Potato 2.12.1's (``contracts.md``, "Agreeing with Potato 2.12.1", point
  3): ``enabled``, ``schemas``, ``sources``, ``cascade``, ``contracts``, ``humans``,
  ``crowd``, ``budgets``, ``runtime``, ``features``, ``redaction``, ``distill``; the
  machines are read by :mod:`~app.core.contracts.config.cascade` (Potato's sources and a
  cascade of their ids, or Accord's older ``[{name, source}]``), the settings by
  :mod:`~app.core.contracts.config.settings`. A key written twice in the same mapping is
  an error (YAML would keep the last one silently).
- ``enabled``: Potato ignores a ``labeling_engine:`` block without ``enabled: true``;
  so does Accord, and says so (:attr:`EngineConfig.enabled` is ``False`` and
  ``label status`` stops with that sentence). ``labeling/engine.yaml`` is Accord's own
  file: writing it is the intent, so there ``enabled`` defaults to true.
- ``contracts``: at least one (a configuration that claims nothing would accept every
  machine label, or none; Potato would run it, Accord says there is nothing to certify).
- Potato accepts settings that make a contract unable ever to decide (a
  ``distributional`` contract with ``humans.distribution_k`` below 3, a
  ``no_worse_than_human`` one with no overlap); they are not errors here either, but
  each becomes a sentence in :attr:`EngineConfig.warnings`, shown with that contract.
  ``overlap_k`` below 3 with a ``no_worse_than_human`` contract is an error, as in
  Potato.
- ``budgets.crowd_reward_usd`` (Accord's) or the contract's ``reward_per_label_usd``
  (Potato's) prices a ``budget_first`` contract given in ``human_usd``; one is needed.
- Without a study the schemes are read from ``config.yaml`` (what the study would hold)
  and ``ppi``'s ``by`` field is not checked against the items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.contracts.config.cascade import Source, SourceSpec, Tier, read_cascade, read_sources
from app.core.contracts.config.contract_specs import (
    ContractKind,
    ContractSpec,
    HasField,
    check_ids,
    read_contract,
)
from app.core.contracts.config.settings import (
    Budgets,
    Humans,
    ServerSettings,
    read_budgets,
    read_humans,
    read_server_settings,
)
from app.core.contracts.config.values import Section
from app.core.contracts.labels.families import Family, loss_family
from app.core.errors import InputError
from app.core.formats.potato.config import find_config, read_config
from app.core.formats.reading.yaml_file import Duplicate, LineMap, read_yaml_lines
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
    "SourceSpec",
    "Tier",
    "load_engine_config",
    "loss_family",
    "parse_engine_config",
]

ENGINE_FILE = Path("labeling") / "engine.yaml"
BLOCK_KEY = "labeling_engine"
TOP_KEYS = ("enabled", "schemas", "sources", "cascade", "contracts", "humans", "crowd",
            "budgets", "runtime", "features", "redaction", "distill")


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """The checked configuration; ``source`` is the file it was read from."""

    cascade: tuple[Tier, ...]
    humans: Humans
    budgets: Budgets
    contracts: tuple[ContractSpec, ...]
    source: Path
    enabled: bool = True
    sources: tuple[SourceSpec, ...] = ()
    server: ServerSettings = field(default_factory=ServerSettings)
    warnings: tuple[tuple[str, str], ...] = ()
    """(contract id, sentence): settings that keep a contract from ever deciding."""

    @property
    def tier_names(self) -> tuple[str, ...]:
        """Tier names, cheapest first."""
        return tuple(t.name for t in self.cascade)

    def tiers_for(self, schema: str) -> tuple[str, ...]:
        """The cascade of one schema: the tiers whose source labels it (a Potato source
        with ``schemas:`` labels those only, as Potato's ``Engine.tiers`` decides)."""
        limits: dict[str, list[Any]] = {s.id: s.settings["schemas"] for s in self.sources
                                        if isinstance(s.settings.get("schemas"), list)}
        return tuple(t.name for t in self.cascade
                     if t.name not in limits or schema in limits[t.name])

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
    enabled_by_default = True
    if engine_path.is_file():
        raw, dups = read_yaml_lines(engine_path)
        section = _top(raw, engine_path, "", dups)
    elif has_block:
        enabled_by_default = False
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
    return parse_engine_config(section, schemes, _field_check(study),
                               enabled_by_default=enabled_by_default)


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
                        has_field: HasField | None = None, *,
                        enabled_by_default: bool = True) -> EngineConfig:
    """Check one configuration mapping (the file's top level, or the block)."""
    top.check_keys(TOP_KEYS, ("contracts",), what="the engine configuration")
    enabled = top.boolean("enabled", enabled_by_default)
    sources = read_sources(top)
    cascade = read_cascade(top, sources)
    humans = read_humans(top.section("humans"))
    budgets = read_budgets(top.section("budgets"))
    server = read_server_settings(top)
    for name in server.schemas or ():
        if name not in schemes:
            raise top.error(f"'{name}' is not an annotation scheme of this project", "schemas")
    entries = top.sections("contracts")
    if not entries:
        raise top.error("expected at least one contract", "contracts")
    read = [(s, read_contract(s, schemes, has_field)) for s in entries]
    check_ids(read)
    warnings: list[tuple[str, str]] = []
    for section, spec in read:
        warnings.extend(_check_against_settings(top, section, spec, humans, budgets))
    return EngineConfig(cascade, humans, budgets, tuple(spec for _, spec in read), top.file,
                        enabled, sources, server, tuple(warnings))


def _check_against_settings(top: Section, section: Section, spec: ContractSpec,
                            humans: Humans, budgets: Budgets) -> list[tuple[str, str]]:
    """Contracts the settings make impossible: an error where Potato refuses too, else a
    warning sentence for the contract."""
    humans_section = top.section("humans")
    where = f"contract '{spec.id}' (line {spec.line})"
    if spec.kind is ContractKind.NO_WORSE_THAN_HUMAN and humans.overlap_k < 3:
        problem = ("no_worse_than_human needs humans.overlap_k of at least 3 people per "
                   "overlap item")
        if humans_section is not None and humans_section.has("overlap_k"):
            raise humans_section.error(f"{problem}, for {where}", "overlap_k")
        raise section.error(f"{problem} (humans.overlap_k is {humans.overlap_k} by default)",
                            "kind")
    if spec.kind is ContractKind.BUDGET_FIRST and spec.params["human_usd"] is not None \
            and budgets.crowd_reward_usd is None \
            and spec.params.get("reward_per_label_usd") is None:
        raise section.error("human_usd needs a price per label: the contract's "
                            "reward_per_label_usd (or budgets.crowd_reward_usd); expected one "
                            "of them, or human_labels", "human_usd")
    out: list[tuple[str, str]] = []
    if spec.kind is ContractKind.NO_WORSE_THAN_HUMAN and humans.overlap <= 0:
        out.append((spec.id, "humans.overlap is 0: no item is drawn for several people, so "
                             "the alternative annotator test can only use items people "
                             "labelled together by other means"))
    if spec.kind is ContractKind.DISTRIBUTIONAL and humans.distribution_k < 3:
        out.append((spec.id, f"humans.distribution_k is {humans.distribution_k}: the "
                             "distributional contract needs items with at least 3 people"))
    return out
