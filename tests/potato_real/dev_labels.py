"""Only dev labels reach a Potato 2.12.1 project after its certify (contracts.md, "When
only dev labels arrived").

    .venv/bin/python -m tests.potato_real.dev_labels PROJECT N [--against K] [--seed S]
        [--rate R] [--budget B] [--start I] [--scheme NAME]

On a **copy** of a labelling-engine project (never a committed one): Potato's own engine
draws one more calibration wave (``Engine.draw_calibration``: a Bernoulli wave over the
items not sampled yet; ``designs.draw`` gives each drawn item its split, dev or cert, at
``humans.dev_fraction``), and a person answers only the wave's **dev** requests, at most
``N`` (in item order, from the ``I``-th), through ``Engine.record_human_label`` (the
request id given, as Potato's server does for a claimed request). The wave's cert
requests stay open: nobody answered them, so the cert labels are those certify already
tested. No row is written by hand.

A dev answer is the item's ``truth`` field, except for the first ``K`` (``--against``),
which get a label other than the cascade's last tier's prediction on the item (a dev set
on which that tier looks worse, so dev may choose another rule). ``--budget`` raises
``budgets.human_labels`` in the copy's ``config.yaml`` first (the demo's budget is spent;
budgets are neither a contract's parameters nor the cascade, so Potato's same-data test
does not read them). ``--scheme``: only that scheme's wave (default: every scheme's; the
dev answer is the ``truth`` field). One request per item is answered: the overlap copies
Potato adds (``humans.overlap``, or ``distribution_k`` for a distributional contract)
wait for other people. Prints one JSON line: the wave's dev and cert request counts and
the labels given.

Potato is GPL-3.0; this only calls its engine API, as ``engine_projects.py`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

USER = "ann_dev"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _raise_budget(project: Path, budget: int) -> None:
    import yaml

    path = project / "config.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["labeling_engine"].setdefault("budgets", {})["human_labels"] = budget
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def add_dev_labels(project: Path, n: int, *, against: int = 0, seed: int = 7,
                   rate: float = 0.2, budget: int | None = None, start: int = 0,
                   scheme_name: str | None = None) -> dict[str, Any]:
    """Draw a wave with Potato's engine and answer at most ``n`` of its dev requests
    (in item order, from the ``start``-th); only on ``scheme_name`` when given."""
    if budget is not None:
        _raise_budget(project, budget)
    os.chdir(project)
    from potato.labeling_engine.cli import _engine, load_study

    loaded, views = load_study("config.yaml")
    engine = _engine(loaded)
    items = {str(row["id"]): row for row in _rows(Path("data") / "items.jsonl")}
    given: list[dict[str, Any]] = []
    wave: dict[str, int] = {}
    for scheme in engine.schemes():
        if scheme_name is not None and scheme.name != scheme_name:
            continue
        _, ids = engine.draw_calibration(scheme, [str(v.item_id) for v in views], rate=rate,
                                         seed=seed)
        requests = [engine.store.get_request(i) for i in ids]
        first: dict[str, Any] = {}  # one request per item: overlap copies wait
        for r in requests:
            if r is not None and r.split == "dev":
                first.setdefault(r.item_id, r)
        dev = sorted(first.values(), key=lambda r: r.item_id)
        wave[scheme.name] = len(ids)
        wave[f"{scheme.name}.dev"] = len(dev)
        last = engine.tiers(scheme)[-1]
        for k, request in enumerate(dev[start:start + n]):
            truth = items[request.item_id]["truth"]
            label = truth
            if k < against:
                preds = engine.store.conn.execute(
                    "SELECT p.value_json FROM prediction p JOIN source_version v "
                    "ON p.source_version_id = v.version_id WHERE p.item_id = ? AND "
                    "p.schema_name = ? AND v.source_id = ? ORDER BY p.id DESC LIMIT 1",
                    (request.item_id, scheme.name, last)).fetchone()
                predicted = json.loads(preds[0]) if preds else truth
                label = next(x for x in scheme.labels if x != predicted)
            engine.record_human_label(request.item_id, scheme.name, label, USER, request.id)
            given.append({"request": request.id, "item": request.item_id,
                          "schema": scheme.name, "label": label, "split": request.split})
    engine.store.conn.close()
    return {"wave": wave, "labels": given}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("n", type=int)
    parser.add_argument("--against", type=int, default=0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rate", type=float, default=0.2)
    parser.add_argument("--budget", type=int)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--scheme")
    ns = parser.parse_args(argv)
    print(json.dumps(add_dev_labels(ns.project.resolve(), ns.n, against=ns.against,
                                    seed=ns.seed, rate=ns.rate, budget=ns.budget,
                                    start=ns.start, scheme_name=ns.scheme)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
