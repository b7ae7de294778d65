"""Predictions that reach a Potato 2.12.1 project after Potato stored its contract records.

    .venv/bin/python -m tests.potato_real.later_predictions PROJECT N

On a **copy** of a labelling-engine project (never a committed one), as a user's study
grows: ``N`` new items are appended to ``data/items.jsonl`` and a prediction for each to
every ``static`` source's ``predictions_file`` (the file grew), then Potato's own engine
ingests and predicts them: ``Engine.register_items`` and ``Engine.predict`` on the items
Potato's CLI loads (``potato.labeling_engine.cli.load_study``), the steps of a planner
pass without its certify. No row is written by hand. Prints one JSON line: the
``pred_mark`` of each schema before and after.

Potato is GPL-3.0; this only calls it (its engine API), as ``engine_projects.py`` does.
A new item copies an existing item's fields (text, truth, language) under a new id, and
each source's prediction for it is that source's prediction for the copied item.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _marks(project: Path) -> dict[str, int]:
    with sqlite3.connect(project / "engine.sqlite") as db:
        marks = {str(s): int(m) for s, m in db.execute(
            "SELECT schema_name, MAX(id) FROM prediction GROUP BY schema_name")}
    db.close()
    return marks


def grow(project: Path, n: int) -> dict[str, Any]:
    """Append ``n`` items and their static predictions, then let Potato predict them."""
    import yaml

    before = _marks(project)
    config = yaml.safe_load((project / "config.yaml").read_text(encoding="utf-8"))
    items_file = project / "data" / "items.jsonl"
    items = _rows(items_file)
    new = [dict(items[i % len(items)], id=f"later{i:03d}") for i in range(n)]
    with items_file.open("a", encoding="utf-8") as f:
        f.writelines(json.dumps(it, sort_keys=True) + "\n" for it in new)
    for source in config["labeling_engine"].get("sources", []):
        if source.get("kind") != "static" or not source.get("predictions_file"):
            continue
        path = project / source["predictions_file"]
        by_id = {(r["id"], r["schema"]): r for r in _rows(path)}
        with path.open("a", encoding="utf-8") as f:
            for i, it in enumerate(new):
                for (ident, _schema), row in by_id.items():
                    if ident == items[i % len(items)]["id"]:
                        f.write(json.dumps(dict(row, id=it["id"]), sort_keys=True) + "\n")
    os.chdir(project)
    from potato.labeling_engine.cli import _engine, load_study

    loaded, views = load_study("config.yaml")
    engine = _engine(loaded)
    engine.register_items(views)
    for scheme in engine.schemes():
        engine.predict(scheme, views)
    engine.store.conn.close()
    return {"before": before, "after": _marks(project), "items": len(views)}


if __name__ == "__main__":
    print(json.dumps(grow(Path(sys.argv[1]).resolve(), int(sys.argv[2]))))
