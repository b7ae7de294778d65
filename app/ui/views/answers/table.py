"""What the answers view shows for one item: who answered what, and the majority.

Qt-free, so it is tested without a window. :func:`answer_table` reads the study's
answers and the labelling engine's predictions (``LabelReport.data[schema].predictions``,
converted to model answers in the project job, so nothing is parsed here); the work is
a few dictionary look-ups per cell, quick enough for the GUI thread.

Choices where the spec is silent:

- Columns: every categorical scheme of the study (nominal, ordinal, multilabel), in the
  study's order. Rows: the annotators who answered *any* scheme of the item, in study
  order (an annotator who judged the trace but skipped ``resolution`` shows "—" there),
  then the machine raters (annotators whose user state declares a machine ``origin``),
  then the machine tiers that predicted the item, in cascade order.
- Majority (humans only; machines are compared with it, never counted in it): with at
  least two answers, the answer given most often, when no other is given as often
  (plurality, the usual "majority vote"); a tie, a single answer or no answer is
  stated in words and marks nothing; a tie says "no majority" and who chose what
  (issue 35). Multilabel: label by label, a label is in the
  majority set when more than half the answers chose it; a label chosen by exactly half
  is a tie, and the item's majority is then undefined.
- A cell disagrees when it holds an answer and the majority is defined and different.
- Grounding, caption, episode and rollout answers are shown side by side in words
  (``layers.py``) and never voted on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

from app.core.model import Answer, Kind, LayeredAnswer
from app.core.sharded import ShardedMap
from app.ui.views.answers.layers import LAYERED_KINDS, NO_VOTE
from app.ui.views.kinds import kinds_drawn_by

if TYPE_CHECKING:
    from app.core.project import ProjectData

CATEGORICAL = kinds_drawn_by("answers")
"""The kinds whose answers are labels, shown as a table (the window's kind table)."""
NOT_ANSWERED = "—"
NO_LABEL = "(no label)"
"""A multilabel answer with no label chosen: answered, unlike "—"."""


class CellState(StrEnum):
    AGREES = "agrees"
    DISAGREES = "disagrees"
    MISSING = "missing"
    """Not answered."""
    UNJUDGED = "unjudged"
    """An answer, but the item has no majority to compare it with."""


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    state: CellState
    answer: Answer | None = None
    confidence: float | None = None
    """A machine tier's confidence, else ``None``."""


@dataclass(frozen=True, slots=True)
class Majority:
    answer: Answer | None
    """The majority answer, or ``None`` when undefined."""
    text: str
    """The answer, or why there is none, in words ("no majority", "one answer only")."""
    support: int = 0
    n: int = 0
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """On a tie, who chose what: (answer, its annotators) per answer given, most chosen
    first (ties alphabetical); for a multilabel tie, ("label", chosen by) and
    ("not label", not chosen by) per label chosen by exactly half."""

    def describe(self, name: Callable[[str], str] = str) -> str:
        """The majority cell's words: the answer, or "no majority: host (ana, ravi) ·
        guest (chen, dana)" on a tie, with each annotator shown through ``name``."""
        if not self.choices:
            return self.text
        said = " · ".join(f"{answer} ({', '.join(map(name, who))})"
                          for answer, who in self.choices)
        return f"{self.text}: {said}"


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    """The annotator's name (as in the study) or the tier's name."""
    machine: bool
    cells: tuple[Cell, ...]
    rater: bool = False
    """A machine rater (an annotator whose user state declares a machine ``origin``):
    ``machine`` too, but named as annotators are, unlike a tier."""


@dataclass(frozen=True, slots=True)
class AnswerTable:
    item: str
    schemes: tuple[str, ...]
    rows: tuple[Row, ...]
    majorities: tuple[Majority, ...]

    def row(self, name: str, machine: bool = False) -> Row:
        return next(r for r in self.rows if r.name == name and r.machine == machine)

    def cell(self, name: str, scheme: str, machine: bool = False) -> Cell:
        return self.row(name, machine).cells[self.schemes.index(scheme)]


def categorical_schemes(project: ProjectData) -> tuple[str, ...]:
    return tuple(n for n, s in project.study.schemes.items() if s.kind in CATEGORICAL)


PLACED_IN = "\u241f"
"""A card sort's "group␟card" placement (Potato's separator, which fonts rarely draw)."""


def answer_text(answer: Answer) -> str:
    if isinstance(answer, LayeredAnswer):
        from app.ui.views.answers.layers import layered_text

        return layered_text(answer)
    if isinstance(answer, frozenset):
        labels = (label.replace(PLACED_IN, ": ") for label in sorted(answer))
        return ", ".join(labels) if answer else NO_LABEL
    return str(answer)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def majority(answers: Sequence[Answer], multilabel: bool,
             names: Sequence[str] | None = None) -> Majority:
    """The majority of the humans' ``answers`` on one scheme (see the module's rules);
    ``names[k]`` answered ``answers[k]`` (a tie then says who chose what)."""
    n = len(answers)
    who = list(names) if names is not None else [str(k + 1) for k in range(n)]
    if n == 0:
        return Majority(None, "undefined: nobody answered", 0, 0)
    if n == 1:
        return Majority(None, "undefined: one answer only", 1, 1)
    if multilabel:
        sets = [a if isinstance(a, frozenset) else frozenset({str(a)}) for a in answers]
        counts = Counter(label for s in sets for label in s)
        tied = sorted(label for label, c in counts.items() if 2 * c == n)
        if tied:
            split: list[tuple[str, tuple[str, ...]]] = []
            for label in tied:
                split.append((label, tuple(w for w, s in zip(who, sets, strict=True)
                                           if label in s)))
                split.append((f"not {label}", tuple(w for w, s in zip(who, sets, strict=True)
                                                    if label not in s)))
            return Majority(None, "no majority", 0, n, tuple(split))
        chosen = frozenset(label for label, c in counts.items() if 2 * c > n)
        support = sum(s == chosen for s in sets)
        return Majority(chosen, answer_text(chosen), support, n)
    counts = Counter(answer_text(a) for a in answers)
    ranked = counts.most_common()
    best, top = ranked[0]
    tied = sorted(text for text, c in ranked if c == top)
    if len(tied) > 1:
        texts = [answer_text(a) for a in answers]
        order = sorted(counts, key=lambda t: (-counts[t], t))
        choices = tuple((t, tuple(w for w, a in zip(who, texts, strict=True) if a == t))
                        for t in order)
        return Majority(None, "no majority", top, n, choices)
    answer = next(a for a in answers if answer_text(a) == best)
    return Majority(answer, best, top, n)


def _cell(answer: Answer | None, major: Majority, confidence: float | None = None) -> Cell:
    if answer is None:
        return Cell(NOT_ANSWERED, CellState.MISSING)
    text = answer_text(answer)
    if major.answer is None:
        state = CellState.UNJUDGED
    elif text == answer_text(major.answer):
        state = CellState.AGREES
    else:
        state = CellState.DISAGREES
    return Cell(text, state, answer, confidence)


def answer_table(project: ProjectData, item: str) -> AnswerTable:
    """Every annotator's (and machine tier's) answer on ``item``, one column a scheme."""
    study = project.study
    schemes = categorical_schemes(project)
    answered = {name for scheme in study.schemes
                for name in study.answers_for(scheme).get(item, {})}
    people = [a for a in study.annotators if a in answered]
    people += sorted(answered - set(people))
    raters = [a for a in people if a in study.origins]  # machines: after the people
    people = [a for a in people if a not in study.origins]
    by_scheme = [study.answers_for(s).get(item, {}) for s in schemes]
    majorities = tuple(
        Majority(None, NO_VOTE) if study.schemes[s].kind in LAYERED_KINDS else
        majority([answers[p] for p in people if p in answers],
                 study.schemes[s].kind is Kind.MULTILABEL,
                 [p for p in people if p in answers])
        for s, answers in zip(schemes, by_scheme, strict=True))
    rows = [Row(p, False, tuple(_cell(answers.get(p), m)
                                for answers, m in zip(by_scheme, majorities, strict=True)))
            for p in people]
    rows += [Row(r, True, tuple(_cell(answers.get(r), m)
                                for answers, m in zip(by_scheme, majorities, strict=True)),
                 rater=True) for r in raters]
    labels = project.labels
    if labels is not None:
        tiers = [t for t in labels.config.tier_names
                 if any(s in labels.data and t in labels.data[s].tiers for s in schemes)]
        for tier in tiers:
            cells: list[Cell] = []
            for scheme, m in zip(schemes, majorities, strict=True):
                data = labels.data.get(scheme)
                label = data.predictions.get(tier, {}).get(item) if data is not None else None
                cells.append(_cell(None, m) if label is None
                             else _cell(label.label, m, label.confidence))
            if any(c.state is not CellState.MISSING for c in cells):
                rows.append(Row(tier, True, tuple(cells)))
    return AnswerTable(item, schemes, tuple(rows), majorities)


def first_answered_item(project: ProjectData) -> str | None:
    """The first item (in the study's order) with a human answer in a categorical scheme.

    Found without a walk of the items where it can be (on the GUI thread, the walk of a
    million items of an ``engine.sqlite`` study with no human answer took 24 ms): none
    answered is ``None`` at once, and a sharded map of items (:mod:`app.core.sharded`)
    knows each answered item's position."""
    schemes = categorical_schemes(project)
    answered = {i for s in schemes for i in project.study.answers_for(s)}
    if not answered:
        return None
    items = project.study.items
    if isinstance(items, ShardedMap):
        order = items.index
        known = [(order[i], i) for i in answered if i in order]
        return min(known)[1] if known else None
    return next((i for i in items if i in answered), None)


def most_disagreement_item(project: ProjectData) -> str | None:
    """The item a categorical scheme's annotators disagree on most: the lowest item score
    (the share of agreeing annotator pairs, :mod:`app.core.agreement.item_scores`) over
    the categorical schemes, from :attr:`ProjectData.item_scores`, which the project job
    computed off the GUI thread. Ties go to the smaller item id, as in presentation mode's
    order (the scores are in item-id order, so one ``argmin`` per scheme: a few
    milliseconds at a million items).
    Without scores (a :class:`ProjectData` made elsewhere, or no item with two answers)
    it is :func:`first_answered_item`."""
    found = scored_disagreement_item(project)
    return found if found is not None else first_answered_item(project)


def scored_disagreement_item(project: ProjectData) -> str | None:
    """:func:`most_disagreement_item` without its fallback: ``None`` when no item of a
    categorical scheme has a score (nobody answered an item twice)."""
    best: tuple[float, str] | None = None
    for scheme in categorical_schemes(project):
        scores = project.item_scores.get(scheme)
        if scores is None or not len(scores):
            continue
        values = np.where(np.isfinite(scores.score), scores.score, np.inf)
        k = int(np.argmin(values))
        if np.isfinite(values[k]) and (best is None or (values[k], scores.items[k]) < best):
            best = (float(values[k]), scores.items[k])
    return best[1] if best is not None else None
