"""The ``contracts:`` list of the engine configuration: one :class:`ContractSpec` each.

Keys per kind, from ``contracts.md`` (every contract also has ``id``, ``kind``,
``schema`` and may have ``renamed_from``):

| kind                | keys (required in bold; default)                                  |
|---------------------|-------------------------------------------------------------------|
| selective_risk      | **error** in (0, 1); confidence (0.9); per_class (false); tolerance (0.5) |
| ppi                 | estimand prevalence / mean; by; confidence (0.9); max_width > 0   |
| no_worse_than_human | **epsilon** in [0, 1); confidence (0.9)                            |
| budget_first        | exactly one of human_labels (integer ≥ 1) or human_usd > 0         |
| distributional      | max_distance in [0, 1]; groups_by; confidence (0.9)                |
| threshold_legacy    | **threshold** in [0, 1]                                           |

``confidence`` is always in (0, 1). ``params`` holds every key of the kind, defaults
filled in, optional keys that were not given as ``None``.

Choices where the spec is silent:

- ``epsilon`` has no default (a guessed margin would change what the test claims); it
  is below 1 because agreements are in [0, 1] and a margin of 1 is passed by anything.
- ``tolerance`` is in [0, 1), not [0, 1]: every loss is at most 1, so a tolerance of 1
  would count every label correct. It is accepted on every family (the spec's own
  example writes it on a categorical schema); with a 0/1 loss any tolerance below 1
  means "equal", so there it changes nothing.
- ``per_class: true`` needs one predicted class per item (categorical, ordinal,
  numeric). ``ppi`` with ``estimand: mean`` needs an ordinal or numeric schema, and its
  default estimand is ``mean`` on numeric schemas, ``prevalence`` elsewhere; ``ppi``
  prevalences are per label, so they need a label family (not spans, regions, segments,
  3D objects or traces). ``distributional`` compares label distributions: categorical,
  ordinal or numeric schemas.
- ``by`` must be a field of at least one item when the study is known.
  ``groups_by`` names a prestudy question, answered in ``annotators.jsonl``; it is not
  checked here (a question nobody answered is a note of the contract, not an error).
- A contract ``id`` and ``renamed_from`` are non-empty texts; ``renamed_from`` differs
  from the contract's own id, from every other contract's id, and no two contracts are
  renamed from the same id (they would share one history of looks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from app.core.contracts.config.values import Section
from app.core.contracts.labels.families import (
    LABEL_FAMILIES,
    SINGLE_LABEL,
    Family,
    loss_family,
)
from app.core.model import Scheme


class ContractKind(StrEnum):
    SELECTIVE_RISK = "selective_risk"
    PPI = "ppi"
    NO_WORSE_THAN_HUMAN = "no_worse_than_human"
    BUDGET_FIRST = "budget_first"
    DISTRIBUTIONAL = "distributional"
    THRESHOLD_LEGACY = "threshold_legacy"


DEFAULT_CONFIDENCE = 0.9
DEFAULT_TOLERANCE = 0.5
DEFAULT_EPSILON = 0.1
"""no_worse_than_human's margin when the contract gives none (Potato 2.12.1's default)."""
COMMON_KEYS = ("id", "kind", "schema", "renamed_from")


@dataclass(frozen=True, slots=True)
class ContractSpec:
    """One configured contract; ``line`` is where it starts in its file (1-based)."""

    id: str
    kind: ContractKind
    schema: str
    params: Mapping[str, Any] = field(hash=False)
    renamed_from: str | None = None
    line: int | None = None
    written: frozenset[str] = field(default=frozenset(), compare=False)
    """The keys the configuration wrote (``params`` also holds defaults): Potato's method
    reads a contract as written, with its own defaults."""

    @property
    def history_id(self) -> str:
        """The id whose looks this contract counts (its old id when renamed)."""
        return self.renamed_from or self.id


HasField = Callable[[str], bool]
"""Whether some item of the study has a data field of that name (``None``: unknown)."""


@dataclass(frozen=True, slots=True)
class _Context:
    section: Section
    scheme: Scheme
    family: Family
    has_field: HasField | None


def _confidence(c: _Context) -> float | None:
    return c.section.number("confidence", DEFAULT_CONFIDENCE, low=0, high=1, low_open=True,
                            high_open=True, what="a confidence level")


def _selective_risk(c: _Context) -> dict[str, Any]:
    s = c.section
    per_class = s.boolean("per_class", False)
    if per_class and c.family not in SINGLE_LABEL:
        raise s.error(f"per_class needs one predicted class per item; schema "
                      f"'{c.scheme.name}' is {c.family}", "per_class")
    return {
        "error": s.number("error", None, low=0, high=1, low_open=True, high_open=True,
                          what="an error rate"),
        "confidence": _confidence(c),
        "per_class": per_class,
        "tolerance": s.number("tolerance", DEFAULT_TOLERANCE, low=0, high=1, high_open=True,
                              what="a loss tolerance"),
    }


def _ppi(c: _Context) -> dict[str, Any]:
    s = c.section
    default = "mean" if c.family is Family.NUMERIC else "prevalence"
    estimand = s.choice("estimand", ("prevalence", "mean"), default)
    if estimand == "mean" and c.family not in (Family.ORDINAL, Family.NUMERIC):
        raise s.error(f"a mean needs a numeric or ordinal schema; schema '{c.scheme.name}' "
                      f"is {c.family}", "estimand")
    if c.family not in LABEL_FAMILIES:
        raise s.error(f"ppi estimates label prevalences or a mean score; schema "
                      f"'{c.scheme.name}' is {c.family}, which has neither",
                      "schema")
    by = s.text("by")
    if by is not None and c.has_field is not None and not c.has_field(by):
        raise s.error(f"no item has a field '{by}'; expected a field of the data files", "by")
    params = {
        "estimand": estimand,
        "by": by,
        "confidence": _confidence(c),
        "max_width": s.number("max_width", None, low=0, high=float("inf"), low_open=True,
                              high_open=True, what="an interval width"),
    }
    _potato_extras(s, params, {"tier": lambda: s.text("tier")})
    return params


def _no_worse_than_human(c: _Context) -> dict[str, Any]:
    s = c.section
    params = {
        "epsilon": s.number("epsilon", DEFAULT_EPSILON, low=0, high=1, high_open=True,
                            what="a margin"),
        "confidence": _confidence(c),
    }
    _potato_extras(s, params, {
        "tolerance": lambda: s.number("tolerance", None, low=0, high=1,
                                      what="a loss tolerance"),
        "metric": lambda: s.choice("metric", ("accuracy", "neg_rmse")),
        "min_items_per_annotator": lambda: s.integer("min_items_per_annotator", None,
                                                     minimum=1, what="a number of items"),
    })
    return params


def _potato_extras(section: Section, params: dict[str, Any],
                   readers: dict[str, Callable[[], Any]]) -> None:
    """Potato 2.12.1's extra keys of a kind, in ``params`` only when written (so a
    configuration without them reads exactly as before)."""
    for key, read in readers.items():
        if section.has(key):
            params[key] = read()


def _budget_first(c: _Context) -> dict[str, Any]:
    s = c.section
    if s.has("human_labels") == s.has("human_usd"):
        if s.has("human_labels"):
            raise s.error("give the budget once: human_labels or human_usd, not both",
                          "human_usd")
        raise s.error("missing key 'human_labels' or 'human_usd'; expected the budget as a "
                      "number of human labels or in US dollars")
    params = {
        "human_labels": s.integer("human_labels", None, minimum=1,
                                  what="a number of labels"),
        "human_usd": s.number("human_usd", None, low=0, high=float("inf"), low_open=True,
                              high_open=True, what="an amount in US dollars"),
    }
    _potato_extras(s, params, {
        "error": lambda: s.number("error", None, low=0, high=1, low_open=True,
                                  high_open=True, what="an error rate"),
        "reward_per_label_usd": lambda: s.number(
            "reward_per_label_usd", None, low=0, high=float("inf"), low_open=True,
            high_open=True, what="a reward in US dollars"),
        "confidence": lambda: _confidence(c),
    })
    return params


def _distributional(c: _Context) -> dict[str, Any]:
    s = c.section
    if c.family not in SINGLE_LABEL:
        raise s.error(f"distributional compares label distributions; schema "
                      f"'{c.scheme.name}' is {c.family}", "schema")
    return {
        "max_distance": s.number("max_distance", None, low=0, high=1,
                                 what="a Jensen–Shannon distance"),
        "groups_by": s.text("groups_by"),
        "confidence": _confidence(c),
    }


def _threshold_legacy(c: _Context) -> dict[str, Any]:
    s = c.section
    params = {"threshold": s.number("threshold", None, low=0, high=1,
                                    what="a confidence threshold")}
    _potato_extras(s, params, {"per_class": lambda: s.boolean("per_class", False),
                               "confidence": lambda: _confidence(c)})
    return params


@dataclass(frozen=True, slots=True)
class _Rule:
    keys: tuple[str, ...]
    required: tuple[str, ...]
    read: Callable[[_Context], dict[str, Any]]


RULES: dict[ContractKind, _Rule] = {
    ContractKind.SELECTIVE_RISK: _Rule(("error", "confidence", "per_class", "tolerance"),
                                       ("error",), _selective_risk),
    ContractKind.PPI: _Rule(("estimand", "by", "confidence", "max_width", "tier"), (), _ppi),
    ContractKind.NO_WORSE_THAN_HUMAN: _Rule(
        ("epsilon", "confidence", "tolerance", "metric", "min_items_per_annotator"), (),
        _no_worse_than_human),
    ContractKind.BUDGET_FIRST: _Rule(
        ("human_labels", "human_usd", "error", "reward_per_label_usd", "confidence"), (),
        _budget_first),
    ContractKind.DISTRIBUTIONAL: _Rule(("max_distance", "groups_by", "confidence"), (),
                                       _distributional),
    ContractKind.THRESHOLD_LEGACY: _Rule(("threshold", "per_class", "confidence"),
                                         ("threshold",), _threshold_legacy),
}


def read_contract(section: Section, schemes: Mapping[str, Scheme],
                  has_field: HasField | None = None) -> ContractSpec:
    """Check and read one contract mapping; without ``id`` it is ``<kind>:<schema>``, as
    Potato names it."""
    kind_name = section.required_text("kind")
    if kind_name not in RULES:
        raise section.error(f"unknown contract kind '{kind_name}'; expected one of "
                            f"{', '.join(RULES)}", "kind")
    kind = ContractKind(kind_name)
    rule = RULES[kind]
    section.check_keys(COMMON_KEYS + rule.keys, ("kind", "schema", *rule.required),
                       what=f"a {kind} contract")
    schema = section.required_text("schema")
    ident = section.text("id") or f"{kind_name}:{schema}"
    scheme = schemes.get(schema)
    if scheme is None:
        known = ", ".join(schemes) or "none"
        raise section.error(f"schema '{schema}' is not a scheme of this project; expected one "
                            f"of the config's annotation schemes ({known})", "schema")
    family = loss_family(scheme)
    if family is None:
        raise section.error(f"schema '{schema}' ({scheme.annotation_type}) has no loss family: "
                            "free text, pairwise comparison and other such schemes cannot "
                            "carry a contract yet; expected a categorical, ordinal, numeric, "
                            "multilabel, span, region, segment, 3D or trace scheme", "schema")
    params = rule.read(_Context(section, scheme, family, has_field))
    renamed = section.text("renamed_from")
    if renamed == ident:
        raise section.error("renamed_from names the contract's own id; expected its old id",
                            "renamed_from")
    return ContractSpec(ident, kind, schema, MappingProxyType(params), renamed,
                        section.data.line, frozenset(str(k) for k in section.data))


def check_ids(contracts: list[tuple[Section, ContractSpec]]) -> None:
    """Unique ids; an old id is retired (used by no contract, renamed into one only)."""
    lines: dict[str, Section] = {}
    for section, spec in contracts:
        if spec.id in lines:
            first = lines[spec.id].data.line_of("id")
            raise section.error(f"contract id '{spec.id}' is used twice (first at line "
                                f"{first}); expected unique ids", "id")
        lines[spec.id] = section
    renamed: dict[str, Section] = {}
    for section, spec in contracts:
        old = spec.renamed_from
        if old is None:
            continue
        if old in lines:
            raise section.error(f"'{old}' is still the id of the contract at line "
                                f"{lines[old].data.line}; a renamed contract's old id must "
                                "not be in use", "renamed_from")
        if old in renamed:
            raise section.error(f"two contracts are renamed from '{old}' (the other at line "
                                f"{renamed[old].data.line}); expected one", "renamed_from")
        renamed[old] = section
