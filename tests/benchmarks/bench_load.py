"""Benchmark: load a Potato project of 100,000 items and 10 annotators.

Run on purpose: ``.venv/bin/python tests/benchmarks/bench_load.py [--items N]``.

Measures, each in a fresh process so peak memory is its own:

- Accord's reader (``load_study``): wall time and peak resident memory;
- the reference: a plain ``json.load`` of every annotator file held at once (what a
  reader that parses everything first holds), peak memory only.

Accord streams (one annotator file parsed at a time, converted, dropped), so its peak
should stay well under the reference's even though it also builds the whole model. The
ratio printed is reference peak / Accord peak.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ANNOTATORS = 10
LABELS = ("positive", "negative", "neutral")


def generate(root: Path, n_items: int) -> int:
    """Write the project; returns the bytes of annotator JSON written."""
    rng = random.Random(20261130)
    (root / "data").mkdir(parents=True)
    (root / "config.yaml").write_text(
        "data_files: [data/items.jsonl]\n"
        "item_properties: {id_key: id, text_key: text}\n"
        "output_annotation_dir: annotations/\n"
        "num_annotators_per_item: 10\n"
        "annotation_schemes:\n"
        "  - {annotation_type: radio, name: sentiment, labels: [positive, negative, neutral]}\n"
        "  - {annotation_type: likert, name: quality, size: 5, min_label: a, max_label: b}\n"
        "  - {annotation_type: process_reward, name: steps}\n")
    with (root / "data" / "items.jsonl").open("w") as handle:
        for i in range(n_items):
            handle.write(json.dumps({"id": f"item-{i}", "text": f"Review number {i}."}) + "\n")
    total = 0
    for a in range(ANNOTATORS):
        labels = {}
        for i in range(n_items):
            truth = LABELS[i % 3]
            choice = truth if rng.random() < 0.8 else rng.choice(LABELS)
            quality = str(1 + (i % 5))
            steps = json.dumps({"steps": [{"index": s, "reward": rng.choice((1, 1, -1))}
                                          for s in range(3)]})
            labels[f"item-{i}"] = [[{"schema": "sentiment", "name": choice}, True],
                                   [{"schema": "quality", "name": quality}, quality],
                                   [{"schema": "steps", "name": "steps"}, steps]]
        folder = root / "annotations" / f"annotator{a:02d}"
        folder.mkdir(parents=True)
        text = json.dumps({"user_id": f"annotator{a:02d}", "instance_id_to_label_to_value": labels})
        (folder / "user_state.json").write_text(text)
        total += len(text)
    return total


ACCORD = """
import resource, sys, time
from app.core.formats.potato.project import load_study
start = time.perf_counter()
study = load_study(sys.argv[1])
elapsed = time.perf_counter() - start
answers = sum(len(by) for a in study.answers.values() for by in a.values())
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, answers)
"""

REFERENCE = """
import json, resource, sys
from pathlib import Path
files = sorted(Path(sys.argv[1]).glob("annotations/*/user_state.json"))
held = [json.loads(p.read_text()) for p in files]
print(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, len(held))
"""


def measure(code: str, project: Path) -> tuple[float, float]:
    done = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True,
                          text=True, check=True)
    elapsed, rss_kib, _ = done.stdout.split()
    return float(elapsed), float(rss_kib) / 1024.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "big"
        start = time.perf_counter()
        raw = generate(project, args.items)
        print(f"generated {args.items} items x {ANNOTATORS} annotators "
              f"({raw / 2**20:.0f} MiB of annotator JSON) in {time.perf_counter() - start:.1f}s")
        elapsed, accord_mib = measure(ACCORD, project)
        _, reference_mib = measure(REFERENCE, project)
    print(f"load {args.items}x{ANNOTATORS}: accord {elapsed:.1f}s peak {accord_mib:.0f} MiB; "
          f"reference (all raw JSON held at once) peak {reference_mib:.0f} MiB; "
          f"ratio {reference_mib / accord_mib:.2f}x")
    return 0 if accord_mib < reference_mib else 1


if __name__ == "__main__":
    raise SystemExit(main())
