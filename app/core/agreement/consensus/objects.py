"""Consensus of objects: cuboids, segments, tiers and 2D regions, by matched clusters.

**Clusters.** Per item, the objects of every annotator who answered are clustered by the
rule detection α uses (``agreement.md``, Detection clusters;
:func:`app.core.agreement.regions.chance.detection_clusters`): annotators in sorted
name order, the first one's objects each start a cluster, each next annotator's objects
are matched one-to-one (the agreement's Hungarian matching,
:mod:`app.core.agreement.sets.matching`) against the clusters' first members with the
scheme's similarity and threshold (:mod:`app.core.agreement.sets.structured`: 3D IoU
0.25, temporal IoU 0.5 within a tier for tiers, 2D IoU 0.5; ``--threshold`` changes it),
and an unmatched object starts a new cluster. So a consensus object is made of exactly
the objects the agreement counts as found by several people.

**Majority.** A cluster found by **more than half** of the item's annotators (those who
answered the scheme there, an empty answer included) is a consensus object; the others
are listed under ``minority`` with who found them (exactly half is named as a tie in the
reason). The shape is :func:`..geometry.consensus_shape` of the members; the label is
the members' most frequent label, ``null`` with ``label_tie`` when two share the most.
Matching ignores labels, as the agreement does: a car and a van drawn on the same spot
are one object whose label is disputed.

**Who agreed.** Each consensus object has ``agreed_by`` (its members' annotators) and
``missed_by`` (the item's other annotators). The row's ``agreed_by`` lists the annotators
whose answer *is* the consensus up to matching: they found every consensus object and
none of the minority ones (an empty answer agrees with an empty consensus).

An item with one annotator has no consensus (``null`` and the reason). The comparison
budget of the agreement report does not apply: clustering costs one matching per
annotator and item, linear in the study.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from app.core.agreement.consensus.categorical import ONE_ANNOTATOR
from app.core.agreement.consensus.geometry import consensus_shape
from app.core.agreement.regions.chance import detection_clusters
from app.core.agreement.sets.structured import (
    SetOptions,
    selector_and_similarity,
    with_image_sizes,
)
from app.core.model import Answer, Kind, Scheme, Study
from app.core.objects import ObjectSet, SceneObject
from app.core.progress import Job, Progress

METHOD = "matched clusters"


def object_rows(study: Study, scheme: Scheme, options: SetOptions) -> Job[list[dict[str, Any]]]:
    """One row per item answered in ``scheme`` (a set kind), in sorted item order."""
    assert scheme.kind is not None
    threshold = options.threshold_for(scheme)
    select, batch = selector_and_similarity(scheme.kind)
    answers: dict[str, dict[str, Answer]] = dict(study.answers_for(scheme.name))
    if scheme.kind is Kind.REGIONS:
        answers = with_image_sizes(study, answers)

    def similarity(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
        return batch([(a, b)])[0]

    rows: list[dict[str, Any]] = []
    items = sorted(answers)
    for k, item in enumerate(items):
        if k % 50 == 0:
            yield Progress(k, len(items), f"{scheme.name}: item {k + 1} of {len(items)}")
        objects = {
            name: select(answer)
            for name, answer in sorted(answers[item].items())
            if isinstance(answer, ObjectSet)
        }
        row: dict[str, Any] = {
            "item": item,
            "scheme": scheme.name,
            "kind": scheme.kind.value,
            "method": METHOD,
            "threshold": threshold,
            "n_annotators": len(objects),
        }
        if len(objects) < 2:
            row.update(consensus=None, agreed_by=[], reason=ONE_ANNOTATOR)
        else:
            row.update(_item_consensus(objects, threshold, similarity))
        rows.append(row)
    return rows


def _item_consensus(
    objects: dict[str, tuple[SceneObject, ...]], threshold: float, similarity: Any
) -> dict[str, Any]:
    names = sorted(objects)
    n = len(names)
    consensus: list[dict[str, Any]] = []
    minority: list[dict[str, Any]] = []
    in_minority: set[str] = set()
    in_all = set(names)
    for cluster in detection_clusters(objects, threshold, similarity):
        found = sorted(cluster)
        missed = [x for x in names if x not in cluster]
        members = [cluster[x] for x in found]
        shape, rule = consensus_shape(members, similarity)
        entry: dict[str, Any] = _labelled(members, found)
        entry.update(geometry=shape, rule=rule)
        if 2 * len(found) > n:
            entry.update(agreed_by=found, missed_by=missed)
            consensus.append(entry)
            in_all &= set(found)
        else:
            why = "found by exactly half" if 2 * len(found) == n else "found by"
            entry.update(
                found_by=found,
                missed_by=missed,
                reason=f"{why} {len(found)} of {n} annotators: a consensus object "
                f"needs more than half ({n // 2 + 1})",
            )
            minority.append(entry)
            in_minority.update(found)
    return {"consensus": consensus, "agreed_by": sorted(in_all - in_minority), "minority": minority}


def _labelled(members: Sequence[SceneObject], found: Sequence[str]) -> dict[str, Any]:
    votes: dict[str, list[str]] = {}
    for who, obj in zip(found, members, strict=True):
        votes.setdefault(str(getattr(obj, "label", "")), []).append(who)
    best = max(len(v) for v in votes.values())
    top = sorted(label for label, voters in votes.items() if len(voters) == best)
    out: dict[str, Any] = {"label": top[0] if len(top) == 1 else None}
    if len(top) > 1:
        out["label_tie"] = top
    out["label_votes"] = {label: votes[label] for label in sorted(votes)}
    return out
