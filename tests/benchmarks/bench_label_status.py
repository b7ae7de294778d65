"""Benchmark: ``accord label status`` on a 100,000-item study with all six contract kinds.

Run on purpose: ``.venv/bin/python tests/benchmarks/bench_label_status.py [--items N]``.

100,000 items × 3 cascade tiers (300,000 predictions), 2,000 calibration labels (100 dev
items labelled by five people, for ``distributional`` and ``no_worse_than_human``), and
one contract of each kind. ``accord label status --json`` runs in its own process under
``/usr/bin/time -v`` (wall time, peak memory); the reference in the same run is the same
command on a tenth of the items, so the ratio shows how the cost grows. The issue's goal
is under 2 s for the full study.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside timing.py
from timing import timed

LABELS = ("positive", "negative", "neutral")
TIERS = (("small", "decision_model"), ("medium", "logprob"), ("large", "logprob"))
PEOPLE = ("p1", "p2", "p3", "p4", "p5")
GOAL_SECONDS = 2.0


def generate(root: Path, n_items: int) -> None:
    rng = random.Random(20261130)
    (root / "data").mkdir(parents=True)
    (root / "labeling").mkdir()
    (root / "annotations" / "lead").mkdir(parents=True)
    truth = [rng.choice(LABELS) for _ in range(n_items)]
    with (root / "data" / "items.jsonl").open("w") as handle:
        for i in range(n_items):
            handle.write(json.dumps({"id": f"r{i}", "text": f"Review {i}.",
                                     "language": rng.choice(("en", "es"))}) + "\n")
    (root / "config.yaml").write_text(yaml.safe_dump({
        "data_files": ["data/items.jsonl"], "item_properties": {"id_key": "id"},
        "output_annotation_dir": "annotations/",
        "annotation_schemes": [{"annotation_type": "radio", "name": "sentiment",
                                "labels": list(LABELS)}]}))
    (root / "annotations" / "lead" / "user_state.json").write_text(json.dumps(
        {"user_id": "lead", "instance_id_to_label_to_value": {
            "r0": [[{"schema": "sentiment", "name": truth[0]}, True]]}}))
    (root / "labeling" / "engine.yaml").write_text(yaml.safe_dump({
        "cascade": [{"name": n, "source": s} for n, s in TIERS],
        "humans": {"dev_fraction": 0.5, "overlap": 0.05, "overlap_k": 3,
                   "distribution_k": 5},
        "budgets": {"human_labels": 3000},
        "contracts": [
            {"id": "accuracy", "kind": "selective_risk", "schema": "sentiment", "error": 0.1},
            {"id": "prevalence", "kind": "ppi", "schema": "sentiment",
             "estimand": "prevalence", "by": "language"},
            {"id": "replaces-a-person", "kind": "no_worse_than_human", "schema": "sentiment",
             "epsilon": 0.1},
            {"id": "plan", "kind": "budget_first", "schema": "sentiment", "human_labels": 3000},
            {"id": "disagreement", "kind": "distributional", "schema": "sentiment",
             "max_distance": 0.3},
            {"id": "old-rule", "kind": "threshold_legacy", "schema": "sentiment",
             "threshold": 0.9}]}, sort_keys=False))
    with (root / "labeling" / "predictions.jsonl").open("w") as handle:
        for i in range(n_items):
            for k, (tier, _) in enumerate(TIERS):
                right = rng.random() < 0.8 + 0.05 * k
                label = truth[i] if right else rng.choice(LABELS)
                handle.write(json.dumps({"item": f"r{i}", "schema": "sentiment", "tier": tier,
                                         "label": label,
                                         "confidence": round(rng.uniform(0.5, 1.0), 3)})
                             + "\n")
    drawn = rng.sample(range(1, n_items), min(1500, n_items // 4))
    with (root / "labeling" / "requests.jsonl").open("w") as handle:
        n = 0
        for k, i in enumerate(drawn):
            people = PEOPLE if k < 100 else (rng.choice(PEOPLE),)
            split = "dev" if k < 100 or rng.random() < 0.5 else "cert"
            for person in people:
                n += 1
                label = truth[i] if rng.random() < 0.9 else rng.choice(LABELS)
                handle.write(json.dumps({"request": f"q{n}", "item": f"r{i}",
                                         "schema": "sentiment", "kind": "calibration",
                                         "pi": round(len(drawn) / n_items, 6), "split": split,
                                         "annotator": person, "label": label}) + "\n")


def reference_read_predictions(path: Path, study: object, tiers: tuple[str, ...]) -> int:
    """The per-line reader the fast one replaced (one ``json.loads`` and every field
    check per line), kept as the reference for the in-process ratio."""
    from app.core.formats.json_lines import Fields, iter_json_lines
    from app.core.formats.labeling import _prediction

    count = 0
    for line, record in iter_json_lines(path):
        _prediction(Fields(path, line, record), study, tiers)  # type: ignore[arg-type]
        count += 1
    return count


def reader_ratio(project: Path) -> tuple[float, float]:
    """Seconds of the reference per-line reader and of ``read_predictions``, same file."""
    import time

    from app.core.formats.labeling import read_predictions
    from app.core.formats.potato import load_study

    study = load_study(project)
    tiers = tuple(name for name, _ in TIERS)
    path = project / "labeling" / "predictions.jsonl"
    start = time.process_time()
    n_reference = reference_read_predictions(path, study, tiers)
    middle = time.process_time()
    n_fast = len(read_predictions(path, study, tiers))
    end = time.process_time()
    assert n_reference == n_fast
    return middle - start, end - middle


def timed_status(project: Path) -> tuple[float, float, dict[str, object]]:
    elapsed, mib, out = timed([sys.executable, "-m", "app", "label", "status", str(project),
                                "--json"])
    return elapsed, mib, json.loads(out)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        big, small = Path(tmp) / "big", Path(tmp) / "small"
        generate(big, args.items)
        generate(small, args.items // 10)
        small_time, small_mib, _ = timed_status(small)
        big_time, big_mib, report = timed_status(big)
        reference, fast = reader_ratio(big)
    states = {k: v["state"] for k, v in report["contracts"].items()}  # type: ignore[attr-defined]
    print(f"label status {args.items} items x {len(TIERS)} tiers, all six kinds: "
          f"{big_time:.1f}s, peak {big_mib:.0f} MiB (goal < {GOAL_SECONDS:.0f}s); a tenth of "
          f"it {small_time:.1f}s, peak {small_mib:.0f} MiB; ratio {big_time / small_time:.1f}x "
          f"for 10x the items; states {states}")
    print(f"predictions reader (CPU s, in process): reference per-line {reference:.2f}s, "
          f"read_predictions {fast:.2f}s, ratio {reference / fast:.1f}x")
    return 0 if big_time < GOAL_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
