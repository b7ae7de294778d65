"""One trace as a grid: its steps as rows, each annotator's (and the judge's) label.

What the traces view draws, computed here without Qt so it is tested on its own. Rows
are the item's steps from the data file (``Item.steps[steps_key]``) in their order,
keyed by ``str(step.index)`` as the reader keys labels (``agreement.md``: by the step's
``index``, never its position); a labelled key with no step in the data (failure
attribution's ``responsible_agent`` and ``decisive_step``, or a step index the data
lacks) gets a row of its own after the steps, with the key as its text.

A step *disagrees* when two or more annotators labelled it and not all the same. The
machine judge does not take part in that mark (it is what is being checked); its cell
says how many annotators it agrees with instead.

Label order (for colours and legends): the scheme's own options where the config lists
them (``correctness_options``; process reward ``1, -1, 0``), then any other label seen,
sorted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from app.core.model import Scheme, Study, TraceJudgement

REWARD_ORDER = ("1", "-1", "0")


@dataclass(frozen=True, slots=True)
class GridRow:
    key: str
    text: str
    tool_call: str | None
    labels: dict[str, str | None]
    """Column (annotator name or judge tier) → label, ``None`` when not labelled."""
    details: dict[str, Mapping[str, object]] = field(default_factory=dict)
    disagree: bool = False

    def human_labels(self, annotators: tuple[str, ...]) -> list[str]:
        return [v for a in annotators if (v := self.labels.get(a)) is not None]


@dataclass(frozen=True, slots=True)
class TraceGrid:
    item: str
    scheme: str
    annotators: tuple[str, ...]
    judges: tuple[str, ...]
    rows: tuple[GridRow, ...]
    label_order: tuple[str, ...]

    @property
    def n_disagreeing(self) -> int:
        return sum(1 for r in self.rows if r.disagree)

    @property
    def n_compared(self) -> int:
        """Rows labelled by two or more annotators."""
        return sum(1 for r in self.rows if len(r.human_labels(self.annotators)) >= 2)


def trace_grid(study: Study, scheme: Scheme, item: str,
               judges: Mapping[str, TraceJudgement] | None = None) -> TraceGrid:
    """The grid of ``item`` on the trace ``scheme`` (annotators in study order)."""
    judges = dict(judges or {})
    by = {a: j for a, j in study.answers_for(scheme.name).get(item, {}).items()
          if isinstance(j, TraceJudgement)}
    annotators = tuple(a for a in study.annotators if a in by)
    data = study.items.get(item)
    steps = data.steps.get(str(scheme.config.get("steps_key", "steps")), ()) if data else ()
    columns = {**by, **judges}
    keys = [str(s.index) for s in steps]
    extra = sorted({k for j in columns.values() for k in j.labels} - set(keys))
    texts = {str(s.index): (s.text, s.tool_call) for s in steps}
    rows = []
    for key in keys + extra:
        text, tool = texts.get(key, (key.replace("_", " "), None))
        labels = {c: j.labels.get(key) for c, j in columns.items()}
        details = {c: j.details[key] for c, j in columns.items() if key in j.details}
        humans = [v for a in annotators if (v := labels.get(a)) is not None]
        rows.append(GridRow(key, text, tool, labels, details,
                            disagree=len(humans) >= 2 and len(set(humans)) > 1))
    seen = {v for r in rows for v in r.labels.values() if v is not None}
    return TraceGrid(item, scheme.name, annotators, tuple(judges), tuple(rows),
                     _label_order(scheme, seen))


def _label_order(scheme: Scheme, seen: set[str]) -> tuple[str, ...]:
    options = scheme.config.get("correctness_options")
    if scheme.annotation_type == "process_reward":
        base: tuple[str, ...] = REWARD_ORDER
    elif isinstance(options, list):
        base = tuple(str(o) for o in options)
    else:
        base = tuple(scheme.labels)
    return base + tuple(sorted(seen - set(base)))
