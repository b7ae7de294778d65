"""Benchmark: ``accord label status`` on a 100,000-item study with all six contract kinds.

Run on purpose: ``.venv/bin/python tests/benchmarks/bench_label_status.py [--items N]``.

100,000 items × 3 cascade tiers (300,000 predictions), 2,000 calibration labels (100 dev
items labelled by five people, for ``distributional`` and ``no_worse_than_human``), and
one contract of each kind. A third study has informative confidences and is certified
first (timed too), so ``selective_risk`` is met and about 95,000 labels are delivered.
``accord label status --json`` runs in its own process under
``/usr/bin/time -v`` (wall time, peak memory); the reference in the same run is the same
command on a tenth of the items, so the ratio shows how the cost grows. The issue's goal
is under 2 s for the full study.

Accord's runs read bytecode compiled once beforehand (:func:`warm_bytecode`), as an
installed Accord has it; where ``PYTHONDONTWRITEBYTECODE`` is set a checkout would
otherwise compile some hundred modules (0.2-0.3 s) on every run.

Both stores Accord reads are measured at each ``--items`` size (issue 17: 100,000 items
under 2 s; 1,000,000 under 10 s and 2 GB): the JSON Lines files above and the same study
as a Potato project whose ``engine.sqlite`` holds it (``engine_study.generate_engine``).
Each prints one line with the reference measured in the same run, in its own process
too: the same files read plainly (``json.loads`` per line; for the database, one plain
``sqlite3`` ``fetchall`` of each table Accord reads and ``json.loads`` per data line).
The other lines (the predictions reader, certify, the core's parts) are for the first
size's JSON Lines study.

    .venv/bin/python tests/benchmarks/bench_label_status.py --items 100000 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside timing.py
from engine_study import generate_engine
from timing import timed

LABELS = ("positive", "negative", "neutral")
TIERS = (("small", "decision_model"), ("medium", "logprob"), ("large", "logprob"))
PEOPLE = ("p1", "p2", "p3", "p4", "p5")
GOAL_SECONDS = 2.0
GOALS = {100_000: (2.0, None), 1_000_000: (10.0, 2048.0)}
"""items -> (seconds, peak MiB) of the issue; other sizes have none."""
PLAIN_JSONL = """
import json, sys
for name in sys.argv[1:]:
    with open(name, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
"""
PLAIN_SQLITE = """
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tables = {t: db.execute(f"SELECT * FROM {t}").fetchall() for t in
          ("engine_item", "source_version", "prediction", "human_request", "contract_version")}
with open(sys.argv[2], encoding="utf-8") as handle:
    rows = [json.loads(line) for line in handle if line.strip()]
"""


def generate(root: Path, n_items: int, *, informative: bool = False) -> None:
    """The study; ``informative`` confidences say who is right (0.9-1.0 right, 0.5-0.85
    wrong), so ``selective_risk`` can be met (people are right 99% of the time) and about
    95,000 machine labels are delivered."""
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
                                         "confidence": round(
                                             rng.uniform(0.9, 1.0) if informative and right
                                             else rng.uniform(0.5, 0.85) if informative
                                             else rng.uniform(0.5, 1.0), 3)})
                             + "\n")
    drawn = rng.sample(range(1, n_items), min(1500, n_items // 4))
    with (root / "labeling" / "requests.jsonl").open("w") as handle:
        n = 0
        for k, i in enumerate(drawn):
            people = PEOPLE if k < 100 else (rng.choice(PEOPLE),)
            split = "dev" if k < 100 or rng.random() < 0.5 else "cert"
            for person in people:
                n += 1
                label = truth[i] if rng.random() < 0.99 else rng.choice(LABELS)
                handle.write(json.dumps({"request": f"q{n}", "item": f"r{i}",
                                         "schema": "sentiment", "kind": "calibration",
                                         "pi": round(len(drawn) / n_items, 6), "split": split,
                                         "annotator": person, "label": label}) + "\n")


def reference_read_predictions(path: Path, study: object, tiers: tuple[str, ...]) -> int:
    """The per-line reader the fast one replaced (one ``json.loads`` and every field
    check per line), kept as the reference for the in-process ratio."""
    from app.core.formats.labeling.reader import _prediction
    from app.core.formats.reading.json_lines import Fields, iter_json_lines

    count = 0
    for line, record in iter_json_lines(path):
        _prediction(Fields(path, line, record), study, tiers)  # type: ignore[arg-type]
        count += 1
    return count


def reader_ratio(project: Path) -> tuple[float, float]:
    """Seconds of the reference per-line reader and of ``read_predictions``, same file."""
    import time

    from app.core.formats.labeling.reader import read_predictions
    from app.core.formats.potato.project import load_study

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


def reference_delivered(config: Any, statuses: Any, data: Any, humans: set[str]
                        ) -> dict[str, Any]:
    """``acceptance.delivered`` before it applied one threshold per tier: every gate's
    rule looked up for every item and tier. Kept as the reference for the ratio."""
    from app.core.contracts.labels.delivery import Delivered, _accepts, blocking

    gates = [statuses[c.id] for c in config.contracts_for(data.scheme.name)
             if c.kind in ("selective_risk", "threshold_legacy")]
    if not gates or blocking(config, statuses, data.scheme.name):
        return {}
    certified = any(g.spec.kind == "selective_risk" for g in gates)
    out: dict[str, Any] = {}
    for item in data.items:
        if item in humans:
            continue
        for tier in data.tiers:
            machine = data.predictions.get(tier, {}).get(item)
            if machine is None:
                continue
            if all(g.accepts is not None and _accepts(g.accepts, tier, machine) for g in gates):
                out[item] = Delivered(tier, machine.label, certified)
                break
    return out


def reference_schema_predictions(labeling: Any, scheme: Any, tiers: tuple[str, ...]
                                 ) -> dict[str, dict[str, Any]]:
    """``schema_data``'s machine labels before one conversion per distinct label."""
    from app.core.contracts.kinds.base import MachineLabel
    from app.core.formats.labeling.reader import to_answer

    predictions: dict[str, dict[str, Any]] = {t: {} for t in tiers}
    for p in labeling.predictions_for(scheme.name):
        predictions[p.tier][p.item] = MachineLabel(to_answer(scheme, p.label), p.confidence,
                                                   p.probs)
    return predictions


def core_ratios(project: Path) -> dict[str, tuple[float, float]]:
    """CPU seconds in process, (reference, current): the whole core call
    ``label_report`` + ``to_json`` (reference: the same with the garbage collector
    running, as before), schema_data's machine labels, and ``delivered`` (on a certified
    study whose rule delivers labels). Each pair is checked to give the same result."""
    import gc
    import time

    from app.core import gc_pause
    from app.core.contracts.label_report import label_report
    from app.core.contracts.labels.delivery import delivered, human_items
    from app.core.contracts.labels.schema_data import schema_data

    out: dict[str, tuple[float, float]] = {}
    start = time.process_time()
    report = label_report(project)
    current_json = json.dumps(report.to_json())
    middle = time.process_time()
    import app.core.contracts.label_report as lr

    paused = gc_pause.gc_paused
    setattr(lr, "gc_paused", _gc_running)  # noqa: B010 (the reference: collector running)
    try:
        gc.collect()
        t0 = time.process_time()
        reference = label_report(project)
        reference_json = json.dumps(reference.to_json())
        t1 = time.process_time()
    finally:
        setattr(lr, "gc_paused", paused)  # noqa: B010
    assert reference_json == current_json
    out["label_report + to_json"] = (t1 - t0, middle - start)
    scheme = report.study.schemes["sentiment"]
    tiers = report.config.tier_names
    t0 = time.process_time()
    old = reference_schema_predictions(report.labeling, scheme, tiers)
    t1 = time.process_time()
    new = schema_data(report.study, report.labeling, report.config, "sentiment").predictions
    t2 = time.process_time()
    assert old == new
    out["schema_data (machine labels)"] = (t1 - t0, t2 - t1)
    data = report.data["sentiment"]
    humans = set(human_items(report.study, report.labeling, "sentiment"))
    t0 = time.process_time()
    old_d = reference_delivered(report.config, report.contracts, data, humans)
    t1 = time.process_time()
    new_d = delivered(report.config, report.contracts, data, humans)
    t2 = time.process_time()
    assert old_d == new_d
    out[f"delivered ({len(new_d)} labels)"] = (t1 - t0, t2 - t1)
    return out


@contextmanager
def _gc_running() -> Iterator[None]:
    yield


CACHE: list[str] = []
"""The environment of Accord's timed runs: bytecode read from a cache of its own, written
by :func:`warm_bytecode` (as an installed Accord has it: pip writes the ``.pyc`` files,
the frozen app holds them). Empty: the environment as it is."""


def warm_bytecode(tmp: Path) -> None:
    """Compile Accord's modules once, untimed, into ``tmp/pycache`` by running both stores'
    ``label status`` on a 1,000-item study (the same modules as any size): where
    ``PYTHONDONTWRITEBYTECODE`` is set (this machine) a checkout otherwise compiles some
    hundred modules on every run."""
    CACHE[:] = ["env", "-u", "PYTHONDONTWRITEBYTECODE", f"PYTHONPYCACHEPREFIX={tmp / 'pycache'}"]
    for store, make in (("jsonl", generate), ("engine", generate_engine)):
        project = tmp / f"warm-{store}"
        make(project, 1000)
        subprocess.run([*CACHE, sys.executable, "-m", "app", "label", "status", str(project),
                        "--json"], check=True, capture_output=True)
        shutil.rmtree(project)


def timed_status(project: Path) -> tuple[float, float, dict[str, object]]:
    elapsed, mib, out = timed([*CACHE, sys.executable, "-m", "app", "label", "status",
                               str(project), "--json"])
    return elapsed, mib, json.loads(out)


def store_lines(tmp: Path, n_items: int) -> tuple[list[str], bool]:
    """One line per store for ``n_items``: label status and its plain-read reference,
    each in its own process; whether the issue's goals for this size are met."""
    goal_s, goal_mib = GOALS.get(n_items, (None, None))
    lines, met = [], True
    jsonl, engine = tmp / f"jsonl-{n_items}", tmp / f"engine-{n_items}"
    generate(jsonl, n_items)
    generate_engine(engine, n_items)
    os.sync()  # the studies just written reach the disk before any run is timed (the
    # kernel's write-back of a 576 MB database otherwise runs beside the first runs)
    plain = {
        "JSON Lines files": [sys.executable, "-c", PLAIN_JSONL,
                             str(jsonl / "labeling" / "predictions.jsonl"),
                             str(jsonl / "labeling" / "requests.jsonl"),
                             str(jsonl / "data" / "items.jsonl")],
        "Potato engine.sqlite": [sys.executable, "-c", PLAIN_SQLITE,
                                 str(engine / "engine.sqlite"),
                                 str(engine / "data" / "items.jsonl")]}
    for (store, reference), project in zip(plain.items(), (jsonl, engine), strict=True):
        elapsed, mib, _ = timed_status(project)
        ref_s, ref_mib, _ = timed(reference)
        goal = "" if goal_s is None else f" (goal < {goal_s:.0f}s" + (
            f", < {goal_mib:.0f} MiB)" if goal_mib is not None else ")")
        met = met and (goal_s is None or elapsed < goal_s) and (
            goal_mib is None or mib < goal_mib)
        lines.append(f"label status, {store}, {n_items} items x {len(TIERS)} tiers: "
                     f"{elapsed:.1f}s, peak {mib:.0f} MiB{goal}; reference (plain read of "
                     f"the same data, own process) {ref_s:.1f}s, peak {ref_mib:.0f} MiB; "
                     f"ratio {elapsed / ref_s:.1f}x time, {mib / ref_mib:.1f}x memory")
        shutil.rmtree(project)
    return lines, met


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, nargs="+", default=[100_000])
    parser.add_argument("--stores-only", action="store_true",
                        help="only the one line per store and size")
    args = parser.parse_args()
    met = True
    with tempfile.TemporaryDirectory() as tmp:
        warm_bytecode(Path(tmp))
        for n_items in args.items:
            lines, ok = store_lines(Path(tmp), n_items)
            met = met and ok
            print("\n".join(lines), flush=True)
        if not args.stores_only:
            details(Path(tmp), args.items[0])
    return 0 if met else 1


def details(tmp: Path, n_items: int) -> None:
    """The lines of the first size's JSON Lines study: the predictions reader, certify on
    informative confidences, the core's parts against their references."""
    big, small = tmp / "big", tmp / "small"
    generate(big, n_items)
    generate(small, n_items // 10)
    small_time, small_mib, _ = timed_status(small)
    big_time, big_mib, report = timed_status(big)
    reference, fast = reader_ratio(big)
    met = tmp / "met"
    generate(met, n_items, informative=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "app", "label", "certify", str(met), "--json"],
                   check=True, capture_output=True)
    certify_time = time.perf_counter() - started
    met_time, met_mib, met_report = timed_status(met)
    ratios = core_ratios(met)
    shutil.rmtree(met)
    states = {k: v["state"] for k, v in report["contracts"].items()}  # type: ignore[attr-defined]
    print(f"label status {n_items} items x {len(TIERS)} tiers, all six kinds: "
          f"{big_time:.1f}s, peak {big_mib:.0f} MiB (goal < {GOAL_SECONDS:.0f}s); a tenth of "
          f"it {small_time:.1f}s, peak {small_mib:.0f} MiB; ratio {big_time / small_time:.1f}x "
          f"for 10x the items; states {states}")
    print(f"predictions reader (CPU s, in process): reference per-line {reference:.2f}s, "
          f"read_predictions {fast:.2f}s, ratio {reference / fast:.1f}x")
    met_states = {k: v["state"] for k, v in met_report["contracts"].items()}  # type: ignore[attr-defined]
    print(f"label certify, informative confidences (every contract evaluated with Potato's "
          f"method, in its own process): {certify_time:.1f}s")
    print(f"label status, informative confidences, certified: {met_time:.1f}s, peak "
          f"{met_mib:.0f} MiB; states {met_states}")
    for name, (ref, cur) in ratios.items():
        print(f"core (CPU s, in process, same result): {name}: reference {ref:.2f}s, "
              f"current {cur:.2f}s, ratio {ref / max(cur, 1e-9):.1f}x")


if __name__ == "__main__":
    raise SystemExit(main())
