"""Which drawn regions were matched, and the groups of shapes that share one label.

Why here and in pure Python: the picture draws the annotators' regions as they drew
them; whether one was matched is in the report's pair outcomes
(:class:`~app.core.agreement.sets.agreement.SetAgreement`), which number each
annotator's compared objects with the regions first, in the same order as
``ObjectSet.of_type(BoxRegion, PolygonRegion, EllipseRegion)`` (landmarks and other
point objects after them; this view does not draw those). So the ``k``-th shape an
annotator has on the picture is object ``k`` of the outcomes.

A region is *unmatched* when no pair it took part in matched it: nobody else found that
object (the rule of the 3D and tiers views, :mod:`app.core.agreement.drawing`). On an
item that was not scored (one annotator, or over the comparison budget) nothing was
compared, so no shape is called unmatched; the view says why instead.

Labels (a choice; the spec is silent): the shapes the matching says are one object (the
connected components of the matched pairs, as in the 3D view) share **one** label that
names the class and every annotator who drew it, ``car: ana, ravi, tomas``; when they
called it different things, each class with its annotators, the majority class first
(ties alphabetical): ``car: ana, ravi · truck: tomas``. Three labels stacked on one car
said the same word three times and covered the picture. An unmatched shape is a group of
one. Every shape's class and annotator is therefore in exactly one label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.core.agreement.sets.agreement import SetAgreement

ShapeKey = tuple[str, int]
"""(raw annotator name, index among that annotator's drawn regions on the item)."""


@dataclass(frozen=True, slots=True)
class ItemMatches:
    """The matching of one item's drawn regions."""

    scored: bool
    """Whether the item's pairs were compared at all."""
    reason: str
    """Why not, when ``scored`` is false ('' otherwise)."""
    unmatched: frozenset[ShapeKey]
    groups: tuple[tuple[ShapeKey, ...], ...]
    """Shapes that are one object (each sorted by annotator order, then index)."""


@dataclass(frozen=True, slots=True)
class GroupText:
    """What one label says: each class with the annotators who gave it."""

    classes: tuple[tuple[str, tuple[str, ...]], ...]
    """(class, annotators shown) pairs, majority class first."""
    unmatched: bool

    def plain(self) -> str:
        """The label on one line, e.g. ``car: ana, ravi · truck: tomas``."""
        body = " · ".join(f"{c or '(no label)'}: {', '.join(names)}" for c, names in self.classes)
        return f"{body} · unmatched" if self.unmatched else body

    def short(self) -> str:
        """The class names and how many drew it, e.g. ``car ×3`` (when room is short)."""
        names = "/".join(c or "(no label)" for c, _ in self.classes)
        n = sum(len(a) for _, a in self.classes)
        return f"{names} · unmatched" if self.unmatched else f"{names} ×{n}"


def item_matches(
    agreement: SetAgreement | None, item: str, counts: Mapping[str, int], order: Sequence[str]
) -> ItemMatches:
    """The matching of ``item``'s regions: ``counts`` is each annotator's number of drawn
    regions, ``order`` the study's annotator order (for sorting groups)."""
    keys = [(name, k) for name in order for k in range(counts.get(name, 0))]
    rank = {key: i for i, key in enumerate(keys)}
    if agreement is None or item not in agreement.objects:
        reason = (
            "over the comparison budget, not compared"
            if agreement is not None and item in agreement.items_over_budget
            else "one annotator only, nothing to compare"
        )
        return ItemMatches(False, reason, frozenset(), tuple((k,) for k in keys))
    parent = {key: key for key in keys}

    def root(key: ShapeKey) -> ShapeKey:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    matched: set[ShapeKey] = set()
    for outcome in agreement.outcomes:
        if outcome.item != item:
            continue
        for r, c in zip(outcome.rows.tolist(), outcome.cols.tolist(), strict=True):
            a, b = (outcome.a, int(r)), (outcome.b, int(c))
            if a not in rank or b not in rank:  # a point object: not drawn here
                continue
            matched.update((a, b))
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[max(ra, rb, key=rank.__getitem__)] = min(ra, rb, key=rank.__getitem__)
    groups: dict[ShapeKey, list[ShapeKey]] = {}
    for key in keys:
        groups.setdefault(root(key), []).append(key)
    ordered = sorted(groups.values(), key=lambda g: rank[g[0]])
    return ItemMatches(
        True, "", frozenset(k for k in keys if k not in matched), tuple(tuple(g) for g in ordered)
    )


def group_text(
    group: Sequence[ShapeKey],
    labels: Mapping[ShapeKey, str],
    shown: Mapping[str, str],
    unmatched: bool,
) -> GroupText:
    """The label of ``group``: ``labels`` is each shape's class, ``shown`` each
    annotator's displayed name (A, B… in presentation mode)."""
    by_class: dict[str, list[str]] = {}
    for key in group:
        names = by_class.setdefault(labels[key], [])
        name = shown.get(key[0], key[0])
        if name not in names:
            names.append(name)
    counts = Counter({c: len(n) for c, n in by_class.items()})
    order = sorted(by_class, key=lambda c: (-counts[c], c))
    return GroupText(tuple((c, tuple(by_class[c])) for c in order), unmatched)
