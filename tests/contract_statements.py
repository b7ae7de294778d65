"""Projects for the tests of what a certificate states (issue 36), with their references.

:func:`statement_project` writes an Accord project (``labeling/*.jsonl``) with one tier,
a chosen set of labels, a known truth per item and predictions whose wrong answers are
spread over the confidences, so that a per-class contract has tests whose p-values fall
between the look's level divided by the cells once and twice (the band the old report got
wrong). The references are computed here from the files written, never from Accord:
:func:`cert_counts` counts a cell's accepted cert labels and errors at a threshold by
brute force, :func:`binomial_p` is scipy's binomial CDF, :func:`look_alpha` the series
``(1 − confidence)·6/(π² k²)`` written out.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from scipy.stats import binom

from tests.potato_project import label, simple_items, write_project


@dataclass(frozen=True)
class Written:
    """What the project holds: truth and prediction per item, and the requests."""

    project: Path
    truth: dict[str, str]
    guess: dict[str, tuple[str, float]]
    requests: list[dict[str, Any]]

    def split(self, name: str) -> list[str]:
        return [r["item"] for r in self.requests if r["split"] == name]


def look_alpha(look: int, confidence: float = 0.9) -> float:
    return (1 - confidence) * 6 / (math.pi ** 2 * look ** 2)


def binomial_p(errors: int, n: int, target: float) -> float:
    return 1.0 if n == 0 else float(binom.cdf(errors, n, target))


def cert_counts(written: Written, threshold: float, cls: str | None) -> tuple[int, int]:
    """``(errors, accepted)`` among the cert items predicted ``cls`` (any, when ``None``)
    with confidence at least ``threshold``."""
    errors = accepted = 0
    for item in written.split("cert"):
        value, confidence = written.guess[item]
        if (cls is None or value == cls) and confidence >= threshold:
            accepted += 1
            errors += int(value != written.truth[item])
    return errors, accepted


def statement_project(root: Path, *, labels: Sequence[str], contracts: list[dict[str, Any]],
                      n_items: int = 900, n_dev: int = 300, n_cert: int = 400,
                      wrong: float = 0.06, weights: Sequence[float] | None = None,
                      seed: int = 36, digits: int = 4) -> Written:
    """A one-tier project (see the module); ``weights``: the classes' shares of the
    truth; ``wrong``: the share of wrong predictions, at confidences like the right ones'
    lower half."""
    rng = random.Random(seed)
    names = list(labels)
    items = simple_items(n_items)
    truth = {it["id"]: rng.choices(names, weights=weights)[0] for it in items}
    scheme = {"annotation_type": "radio", "name": "sentiment", "labels": names}
    project = write_project(root, schemes=[scheme], items=items,
                            annotators={"ana": {"item-0": [label("sentiment", names[0])]}})
    folder = project / "labeling"
    folder.mkdir()
    (folder / "engine.yaml").write_text(yaml.safe_dump({
        "cascade": [{"name": "model", "source": "logprob"}],
        "humans": {"dev_fraction": 0.5}, "budgets": {"human_labels": n_dev + n_cert},
        "contracts": contracts}, sort_keys=False))
    guess: dict[str, tuple[str, float]] = {}
    for item, value in truth.items():
        if rng.random() < wrong and len(names) > 1:
            guess[item] = (rng.choice([v for v in names if v != value]),
                           round(rng.uniform(0.5, 0.85), digits))
        else:
            guess[item] = (value, round(rng.uniform(0.5, 1.0), digits))
    (folder / "predictions.jsonl").write_text("".join(
        json.dumps({"item": item, "schema": "sentiment", "tier": "model", "label": value,
                    "confidence": confidence}) + "\n"
        for item, (value, confidence) in guess.items()))
    requests = [{"request": f"r{k}", "item": f"item-{k}", "schema": "sentiment",
                 "kind": "calibration", "pi": (n_dev + n_cert) / n_items,
                 "split": "dev" if k <= n_dev else "cert", "annotator": "ana",
                 "label": truth[f"item-{k}"]} for k in range(1, 1 + n_dev + n_cert)]
    (folder / "requests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in requests))
    return Written(project, truth, guess, requests)


def append_requests(written: Written, lines: list[dict[str, Any]]) -> Written:
    """``lines`` appended to ``requests.jsonl`` (new labels: the next certify looks)."""
    path = written.project / "labeling" / "requests.jsonl"
    with path.open("a") as handle:
        handle.write("".join(json.dumps(r) + "\n" for r in lines))
    return Written(written.project, written.truth, written.guess, [*written.requests, *lines])
