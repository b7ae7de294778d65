"""The benchmark's study as a Potato 2.12.1 project: the same items, predictions and
calibration labels as ``bench_label_status.generate``, kept in ``engine.sqlite``.

Potato itself would take hours to write a million items through its engine API, so the
tables are created by Potato's own migrations (``potato.labeling_engine.store.migrations``,
the schema a real project has) and filled in bulk with ``executemany``: one
``engine_item`` row per item (``meta_json`` with the item's ``pi`` and its ``language``
for ppi's ``by``), one source version per tier and one ``ok`` prediction per item and
tier, the answered calibration requests (status ``done``, split dev or cert, 100 dev
items labelled by five people) and one stored ``contract_version`` row per contract.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import yaml

LABELS = ("positive", "negative", "neutral")
TIERS = ("small", "medium", "large")
PEOPLE = ("p1", "p2", "p3", "p4", "p5")
CONTRACTS = (
    {"id": "accuracy", "kind": "selective_risk", "schema": "sentiment", "error": 0.1},
    {"id": "prevalence", "kind": "ppi", "schema": "sentiment", "estimand": "prevalence",
     "by": "language"},
    {"id": "replaces-a-person", "kind": "no_worse_than_human", "schema": "sentiment",
     "epsilon": 0.1},
    {"id": "plan", "kind": "budget_first", "schema": "sentiment", "human_labels": 3000},
    {"id": "disagreement", "kind": "distributional", "schema": "sentiment",
     "max_distance": 0.3},
    {"id": "old-rule", "kind": "threshold_legacy", "schema": "sentiment", "threshold": 0.9})
CREATED = 1796181138.0


def generate_engine(root: Path, n_items: int) -> None:
    """A Potato project in ``root`` with ``n_items`` items and their engine database."""
    from potato.labeling_engine.store import migrations  # Potato's own schema

    rng = random.Random(20261130)
    (root / "data").mkdir(parents=True)
    truth = [rng.choice(LABELS) for _ in range(n_items)]
    languages = [rng.choice(("en", "es")) for _ in range(n_items)]
    with (root / "data" / "items.jsonl").open("w") as handle:
        for i in range(n_items):
            handle.write(json.dumps({"id": f"r{i}", "text": f"Review {i}.",
                                     "language": languages[i]}) + "\n")
    (root / "config.yaml").write_text(yaml.safe_dump({
        "annotation_task_name": "bench", "task_dir": ".",
        "data_files": ["data/items.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "output_annotation_dir": "annotation_output/",
        "annotation_schemes": [{"annotation_type": "radio", "name": "sentiment",
                                "labels": list(LABELS)}],
        "labeling_engine": {
            "enabled": True,
            "sources": [{"id": t, "kind": "fixture", "schemas": ["sentiment"],
                         "field": "truth", "seed": k} for k, t in enumerate(TIERS)],
            "cascade": list(TIERS),
            "contracts": [dict(c) for c in CONTRACTS],
            "humans": {"dev_fraction": 0.5, "overlap": 0.05, "overlap_k": 3,
                       "distribution_k": 5},
            "budgets": {"human_labels": 3000}}}, sort_keys=False))
    drawn = rng.sample(range(1, n_items), min(1500, n_items // 4))
    pi = round(len(drawn) / n_items, 6)
    db = sqlite3.connect(root / "engine.sqlite")
    for migration in migrations.MIGRATIONS:
        db.executescript(migration.sql)
    db.execute("PRAGMA journal_mode = DELETE")
    meta = [json.dumps({"fields": {"language": languages[i]}, "pi": {"sentiment": pi}})
            for i in range(n_items)]
    db.executemany("INSERT INTO engine_item (item_id, ingest_seq, meta_json) VALUES (?,?,?)",
                   ((f"r{i}", i + 1, meta[i]) for i in range(n_items)))
    db.executemany("INSERT INTO source_version (version_id, source_id, kind, created_at)"
                   " VALUES (?,?,?,?)",
                   ((f"v-{t}", t, "fixture", CREATED + k) for k, t in enumerate(TIERS)))
    db.executemany(
        "INSERT INTO prediction (item_id, schema_name, source_version_id, value_json, status,"
        " raw_conf, created_at) VALUES (?,?,?,?,?,?,?)", _predictions(rng, truth))
    db.executemany(
        "INSERT INTO human_request (item_id, schema_name, purpose, inclusion_prob, split,"
        " assigned_user, status, label_json, user_id, created_at, completed_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?)", _requests(rng, truth, drawn, pi))
    db.executemany(
        "INSERT INTO contract_version (contract_id, kind, params_json, cascade_hash, looks,"
        " status, result_json, created_at) VALUES (?,?,?,?,?,?,?,?)",
        ((c["id"], c["kind"], json.dumps(c, sort_keys=True), "bench", 0, "insufficient",
          json.dumps({"status": "insufficient", "statement": "", "notes": []}), CREATED + 10)
         for c in CONTRACTS))
    db.commit()
    db.close()


def _predictions(rng: random.Random, truth: list[str]
                 ) -> list[tuple[str, str, str, str, str, float, float]]:
    rows = []
    for i, right_label in enumerate(truth):
        for k, tier in enumerate(TIERS):
            right = rng.random() < 0.8 + 0.05 * k
            label = right_label if right else rng.choice(LABELS)
            rows.append((f"r{i}", "sentiment", f"v-{tier}", json.dumps(label), "ok",
                         round(rng.uniform(0.5, 1.0), 3), CREATED + 1))
    return rows


def _requests(rng: random.Random, truth: list[str], drawn: list[int], pi: float
              ) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for k, i in enumerate(drawn):
        people = PEOPLE if k < 100 else (rng.choice(PEOPLE),)
        split = "dev" if k < 100 or rng.random() < 0.5 else "cert"
        for person in people:
            label = truth[i] if rng.random() < 0.99 else rng.choice(LABELS)
            rows.append((f"r{i}", "sentiment", "calibration", pi, split, person, "done",
                         json.dumps(label), person, CREATED + 2, CREATED + 3 + len(rows)))
    return rows
