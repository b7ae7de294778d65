"""The engine's settings beside its contracts: ``humans``, ``budgets`` and the blocks a
live Potato server reads (``crowd``, ``runtime``, ``features``, ``redaction``,
``distill``, ``schemas``).

Keys and ranges are Potato 2.12.1's (``config/schema.py``; ``potato-engine.md`` §2), so
every configuration Potato accepts is accepted here and every key Potato refuses is
refused, at its line. ``budgets.crowd_reward_usd`` is Accord's own older price of a
crowd label and is still read.

Choices where the spec is silent: the server-only blocks are checked for unknown keys
(as Potato does) and kept as written for the certificate, never interpreted;
``humans.overlap`` defaults to 0, as in Potato.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.core.contracts.config.cascade import _plain
from app.core.contracts.config.values import Section

POOLS = ("team", "crowd", "solo")
TRUTHS = ("majority", "dawid_skene")
VISIBILITIES = ("blind", "shown")
HUMAN_KEYS = ("pools", "dev_fraction", "calibration_rate", "min_calibration_per_class",
              "distribution_k", "overlap_k", "audit_rate", "overlap", "truth",
              "verify_visibility")
BUDGET_KEYS = ("model_usd", "human_usd", "human_labels", "crowd_reward_usd")
SERVER_BLOCKS: dict[str, tuple[str, ...] | None] = {
    "crowd": ("provider", "study_id", "reward_usd", "per_worker_quota"),
    "runtime": ("batch_size", "concurrency", "retries", "cache", "planner_interval",
                "hold_minutes"),
    "redaction": ("categories",),
    "distill": ("trainer", "min_labels", "every", "include_silver", "modality",
                "image_field"),
    "features": None,  # any feature name, true or false
}
FEATURES = ("distill", "optimize", "drift", "crowd_recruit", "crowd_live_spend",
            "pii_redaction", "payload_capture")


@dataclass(frozen=True, slots=True)
class Humans:
    dev_fraction: float = 0.5
    overlap: float = 0.0
    overlap_k: int = 3
    distribution_k: int = 5
    pools: tuple[str, ...] = ("team",)
    calibration_rate: float | str = "auto"
    min_calibration_per_class: int = 10
    audit_rate: float = 0.02
    verify_visibility: str = "shown"
    truth: str = "majority"


@dataclass(frozen=True, slots=True)
class Budgets:
    human_labels: int | None = None
    crowd_reward_usd: float | None = None
    model_usd: float | None = None
    human_usd: float | None = None


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """What only a live Potato server uses, as written (shown, never interpreted)."""

    blocks: Mapping[str, Any] = field(default_factory=dict, hash=False)
    schemas: tuple[str, ...] | None = None


def read_humans(section: Section | None) -> Humans:
    if section is None:
        return Humans()
    section.check_keys(HUMAN_KEYS, what="humans")
    d = Humans()
    dev = section.number("dev_fraction", d.dev_fraction, low=0, high=1, low_open=True,
                         high_open=True, what="a share")
    overlap = section.number("overlap", d.overlap, low=0, high=1, what="a share")
    audit = section.number("audit_rate", d.audit_rate, low=0, high=1, what="a share")
    counts = {key: section.integer(key, getattr(d, key), minimum=1,
                                   what="a number of people" if key.endswith("_k")
                                   else "a number of labels")
              for key in ("overlap_k", "distribution_k", "min_calibration_per_class")}
    rate: float | str = d.calibration_rate
    if section.data.get("calibration_rate") not in (None, "auto"):
        number = section.number("calibration_rate", None, low=0, high=1, low_open=True,
                                what="a share of the items, or auto")
        assert number is not None
        rate = number
    assert dev is not None and overlap is not None and audit is not None
    return Humans(
        dev, overlap, counts["overlap_k"] or d.overlap_k,
        counts["distribution_k"] or d.distribution_k, _pools(section), rate,
        counts["min_calibration_per_class"] or d.min_calibration_per_class, audit,
        section.choice("verify_visibility", VISIBILITIES, d.verify_visibility)
        or d.verify_visibility,
        section.choice("truth", TRUTHS, d.truth) or d.truth)


def _pools(section: Section) -> tuple[str, ...]:
    raw = section.data.get("pools")
    if raw is None:
        return Humans().pools
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not names or any(p not in POOLS for p in names):
        raise section.error(f"expected some of {', '.join(POOLS)}, found {_plain(raw)!r}",
                            "pools")
    return tuple(names)


def read_budgets(section: Section | None) -> Budgets:
    if section is None:
        return Budgets()
    section.check_keys(BUDGET_KEYS, what="budgets")

    def usd(key: str) -> float | None:
        return section.number(key, None, low=0, high=float("inf"), high_open=True,
                              what="an amount in US dollars")

    return Budgets(
        section.integer("human_labels", None, minimum=0, what="a number of labels"),
        section.number("crowd_reward_usd", None, low=0, high=float("inf"), low_open=True,
                       high_open=True, what="a reward in US dollars"),
        usd("model_usd"), usd("human_usd"))


def read_server_settings(top: Section) -> ServerSettings:
    blocks: dict[str, Any] = {}
    for name, keys in SERVER_BLOCKS.items():
        section = top.section(name)
        if section is None:
            continue
        if keys is not None:
            section.check_keys(keys, what=name)
        else:
            for key in section.data:
                section.boolean(str(key), False)
        blocks[name] = _plain(section.data)
    schemas = top.data.get("schemas")
    if schemas is not None and (not isinstance(schemas, list)
                                or not all(isinstance(s, str) for s in schemas)):
        raise top.error("expected a list of scheme names", "schemas")
    return ServerSettings(blocks, tuple(schemas) if schemas is not None else None)
