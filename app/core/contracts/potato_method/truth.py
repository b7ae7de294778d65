"""The truth of a calibration item that several people labelled: ``humans.truth``.

``contracts.md`` ("Agreeing with Potato 2.12.1", item 4): the truth is Potato's. Potato
2.12.1 (``labeling_engine/inference``) offers two rules and lets an adjudication win:

- ``majority``: the most frequent label; a tie goes to the label given first (people in
  request order, one label per person);
- ``dawid_skene``: the consensus of Dawid and Skene (1979), *Maximum likelihood estimation
  of observer error-rates using the EM algorithm*, fitted on every calibration item of the
  schema at once, so that a careless person's vote counts for less. Items whose labels are
  structured (boxes, step maps) have no classes and take the majority;
- an **adjudicated** label (Potato's resolved label of origin ``adjudicated``) replaces
  whatever the rule inferred for its item.

The EM here follows the paper, with the choices Potato 2.12.1 makes where the paper leaves
room (read from its code and checked against it in the tests, never copied): item
posteriors start at each item's vote shares; each round re-estimates the class prior and
every person's confusion matrix (a true class a person never saw gets a uniform row),
then the posteriors; it stops when the log-likelihood moves by less than ``1e-6`` or after
100 rounds. Classes are the distinct labels in text order; the truth is the class of
highest posterior, the first such class in that order on a tie. With one class only,
that class is every item's truth.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

METHODS = ("majority", "dawid_skene")
MAX_ROUNDS = 100
TOLERANCE = 1e-6


def label_key(value: Any) -> str:
    """A label as text that equal labels share (a multilabel answer's names sorted)."""
    if isinstance(value, str):
        return value
    if isinstance(value, frozenset | set):
        return json.dumps(sorted(map(str, value)))
    return json.dumps(value, sort_keys=True, default=str)


def majority(people: Mapping[str, Any]) -> Any:
    """The most frequent label, ties to the first person's (in request order)."""
    values = list(people.values())
    counts: dict[str, int] = {}
    for v in values:
        counts[label_key(v)] = counts.get(label_key(v), 0) + 1
    best = max(counts.values(), default=0)
    return next((v for v in values if counts[label_key(v)] == best), None)


def _structured(value: Any) -> bool:
    return isinstance(value, dict | list | frozenset | set) or (not isinstance(
        value, str | int | float | bool) and value is not None)


def dawid_skene(observations: list[tuple[str, str, str]]) -> dict[str, str]:
    """item → its consensus class, from ``(person, item, class)`` observations."""
    people = sorted({w for w, _, _ in observations})
    items = sorted({i for _, i, _ in observations})
    classes = sorted({c for _, _, c in observations})
    if len(classes) <= 1:
        return {i: classes[0] for i in items} if classes else {}
    k = len(classes)
    index = {c: j for j, c in enumerate(classes)}
    seen: dict[str, list[tuple[str, int]]] = {i: [] for i in items}
    for person, item, label in observations:
        seen[item].append((person, index[label]))
    posterior = {}
    for i in items:
        votes = [0.0] * k
        for _, c in seen[i]:
            votes[c] += 1.0
        total = sum(votes)
        posterior[i] = [v / total for v in votes]
    previous: float | None = None
    for _ in range(MAX_ROUNDS):
        prior = [sum(posterior[i][j] for i in items) for j in range(k)]
        mass = sum(prior) or 1.0
        prior = [p / mass for p in prior]
        said = {w: [[0.0] * k for _ in range(k)] for w in people}
        truly = {w: [0.0] * k for w in people}
        for i in items:
            for w, c in seen[i]:
                for j in range(k):
                    said[w][j][c] += posterior[i][j]
                    truly[w][j] += posterior[i][j]
        confusion = {w: [[said[w][j][c] / truly[w][j] for c in range(k)] if truly[w][j] > 0
                         else [1.0 / k] * k for j in range(k)] for w in people}
        likelihood = 0.0
        for i in items:
            joint = list(prior)
            for w, c in seen[i]:
                for j in range(k):
                    joint[j] *= confusion[w][j][c]
            total = sum(joint)
            if total > 0:
                posterior[i] = [x / total for x in joint]
                likelihood += math.log(total)
            else:
                posterior[i] = [1.0 / k] * k
        if previous is not None and abs(likelihood - previous) < TOLERANCE:
            break
        previous = likelihood
    return {i: classes[max(range(k), key=lambda j: posterior[i][j])] for i in items}


def infer_truth(people_by_item: Mapping[str, Mapping[str, Any]], method: str = "majority",
                adjudicated: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """item → its truth under ``method`` (see the module), adjudications winning."""
    if method not in METHODS:
        raise ValueError(f"unknown truth method {method!r}; expected one of {METHODS}")
    out: dict[str, Any] = {item: majority(p) for item, p in people_by_item.items()}
    if method == "dawid_skene":
        structured = {item for item, p in people_by_item.items()
                      if any(_structured(v) for v in p.values())}
        # a structured item takes the majority, yet its other labels still inform the
        # people's error rates (as in Potato)
        observations = [(str(w), str(item), str(v)) for item, p in people_by_item.items()
                        for w, v in p.items() if not _structured(v)]
        consensus = dawid_skene(observations)
        for item, p in people_by_item.items():
            chosen = consensus.get(str(item))
            if item in structured or chosen is None:
                continue
            # the label as the people gave it (a number stays a number)
            out[item] = next((v for v in p.values() if str(v) == chosen), chosen)
    for item, label in (adjudicated or {}).items():
        if item in people_by_item:
            out[item] = label
    return out


def truth_notes(method: str, adjudicated: Mapping[str, Any],
                people_by_item: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What a view says about its truths beyond the default majority."""
    notes = []
    if method == "dawid_skene":
        notes.append("the truth of an item several people labelled is the Dawid-Skene "
                     "consensus of the schema's calibration labels (humans.truth)")
    used = [item for item in adjudicated if item in people_by_item]
    if used:
        notes.append(f"{len(used)} adjudicated label(s) replace the people's inferred truth")
    return notes
