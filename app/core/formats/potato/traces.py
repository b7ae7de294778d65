"""Potato's agent-trace answers → one label per step key (``formats.md``, ``agreement.md``).

A step has a label only when the annotator gave one: ``correctness: null``, ``reward:
null`` (and ``0`` where the scheme has no neutral option) and steps missing from a
verdict list carry none. Steps are keyed by their ``index`` (or ``step_index``), never by
position.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.core.formats.potato.objects import list_of
from app.core.formats.potato.place import Place, sys_intern
from app.core.model import Scheme, TraceJudgement


def _step_label(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return sys_intern(str(value))


def _steps(raw: Any, place: Place, expected: str) -> list[dict[str, Any]]:
    steps = list_of(raw, ("steps",), place, expected)
    for i, s in enumerate(steps):
        if not isinstance(s, dict):
            raise place.error("expected a step object", i)
    return steps


MAX_KEY_LENGTH = 100
"""The longest step key (an index or a name): a key is a unit of agreement, sorted as a
number where it is one, and a 5,000-digit one met Python's digit limit there."""


def _key(step: Mapping[str, Any], names: tuple[str, ...], place: Place, i: int) -> str:
    for name in names:
        value = step.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            key = str(value)
        elif isinstance(value, str) and value.strip():
            key = value.strip()
        else:
            continue
        if len(key) > MAX_KEY_LENGTH:
            raise place.error(f"step {name} is {len(key):,} characters long; expected at most "
                              f"{MAX_KEY_LENGTH}", i)
        return key
    raise place.error(f"step has no {' or '.join(names)}", i)


def parse_process_reward(raw: Any, scheme: Scheme, place: Place) -> TraceJudgement:
    """Reward 1 / −1 per step; 0 is neutral only where the scheme offers a neutral
    option (``allow_neutral`` with ``mode: per_step``), else it means not marked."""
    cfg = scheme.config
    neutral = bool(cfg.get("allow_neutral")) and cfg.get("mode", "first_error") == "per_step"
    labels: dict[str, str | None] = {}
    for i, step in enumerate(_steps(raw, place, '{"steps": [{"index", "reward"}]}')):
        key = _key(step, ("index", "step_index"), place, i)
        reward = step.get("reward")
        if reward is not None and not (isinstance(reward, int | float)
                                       and not isinstance(reward, bool) and reward in (1, -1, 0)):
            raise place.error(f"reward must be 1, -1, 0 or null, found {reward!r}", i)
        labels[key] = None if reward is None or (reward == 0 and not neutral) \
            else _step_label(reward)
    return TraceJudgement(labels, {})


def parse_trajectory_eval(raw: Any, scheme: Scheme, place: Place) -> TraceJudgement:
    labels: dict[str, str | None] = {}
    details: dict[str, dict[str, Any]] = {}
    for i, step in enumerate(_steps(raw, place, '{"steps": [{"step_index", "correctness"}]}')):
        key = _key(step, ("step_index", "index"), place, i)
        labels[key] = _step_label(step.get("correctness"))
        extra = {k: step[k] for k in ("error_type", "error_subtype", "severity", "rationale")
                 if step.get(k) not in (None, "")}
        if extra:
            details[key] = extra
    return TraceJudgement(labels, details)


def parse_verdicts(raw: Any, scheme: Scheme, place: Place) -> TraceJudgement:
    """tool_call_review and gui_trajectory: judged steps keyed by ``index``; steps not
    in the list carry no label."""
    labels: dict[str, str | None] = {}
    details: dict[str, dict[str, Any]] = {}
    for i, step in enumerate(_steps(raw, place, '[{"index", "verdict"}]')):
        key = _key(step, ("index",), place, i)
        labels[key] = _step_label(step.get("verdict"))
        extra = {k: step[k] for k in ("step", "tool", "notes") if step.get(k) not in (None, "")}
        if extra:
            details[key] = extra
    return TraceJudgement(labels, details)


def parse_failure_attribution(raw: Any, scheme: Scheme, place: Place) -> TraceJudgement:
    if not isinstance(raw, dict):
        raise place.error('expected {"responsible_agent", "decisive_step", "reason"}')
    decisive = raw.get("decisive_step")
    if decisive is not None and (isinstance(decisive, bool) or not isinstance(decisive, int)):
        raise place.error(f"decisive_step must be a step index or null, found {decisive!r}")
    # "step 3", not "3": the two units share one value table, and an agent named "3"
    # must not count as agreeing with step 3.
    labels = {"responsible_agent": _step_label(raw.get("responsible_agent")),
              "decisive_step": None if decisive is None else sys_intern(f"step {decisive}")}
    reason = raw.get("reason")
    return TraceJudgement(labels, {"reason": {"text": reason}} if reason else {})
