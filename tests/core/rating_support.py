"""Reading the rating projects Potato 2.12.1's server wrote (tests/potato_real/rating_projects.py)
into what the rating kinds take, and scoring every scheme the way Accord's core does.

The raw ``user_state.json`` is read here with ``json`` (not Accord's project reader), so
the tests exercise the readers on exactly what Potato stored: per scheme, annotator and
item, the list of ``(label name, value)`` entries.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from app.core.agreement.continuous.metrics import continuous_block
from app.core.agreement.continuous.ordinal import ordinal_block, scale_order, to_number
from app.core.agreement.continuous.pairs import gather
from app.core.agreement.continuous.reading import chosen, grouped, is_number_scheme, read_number
from app.core.agreement.matrix.block import MATRIX_TYPES, matrix_block, read_matrix
from app.core.agreement.multilabel.packed import multilabel_block, read_packed_set
from app.core.agreement.ranking.metrics import ranking_block, read_ranking

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "ratings"
Entries = list[tuple[str, Any]]


def config(project: str) -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / project / "config.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def scheme(project: str, name: str) -> dict[str, Any]:
    return next(s for s in config(project)["annotation_schemes"] if s["name"] == name)


def states(project: str) -> dict[str, dict[str, Any]]:
    out = {}
    for folder in sorted((ROOT / project / "annotation_output").iterdir()):
        out[folder.name] = json.loads((folder / "user_state.json").read_text())
    return out


def machines(project: str) -> set[str]:
    return {u for u, s in states(project).items() if s.get("origin")}


def entries(project: str, users: set[str] | None = None
            ) -> dict[str, dict[str, dict[str, Entries]]]:
    """scheme → annotator → item → entries."""
    out: dict[str, dict[str, dict[str, Entries]]] = {}
    for user, state in states(project).items():
        if users is not None and user not in users:
            continue
        for item, pairs in state["instance_id_to_label_to_value"].items():
            for label, value in pairs:
                (out.setdefault(label["schema"], {}).setdefault(user, {})
                 .setdefault(item, []).append((label["name"], value)))
    return out


def expected(project: str) -> dict[str, Any]:
    loaded = json.loads((ROOT / project / "expected" / "iaa.json").read_text())
    assert isinstance(loaded, dict)
    return loaded


def read_likert(config: dict[str, Any]) -> Any:
    order = scale_order(config)

    def read(e: Entries) -> float | None:
        names = [n for n, v in grouped(e).items() if chosen(v, n)]
        return to_number(names[0], order) if names else None
    return read


def score(config: dict[str, Any], by_user: dict[str, dict[str, Entries]]) -> dict[str, Any]:
    """Accord's block for one scheme, as JSON (Potato's metric names)."""
    kind = config["annotation_type"]
    if is_number_scheme(config):
        return continuous_block(gather(by_user, lambda e: read_number(config, e))).to_json()
    if kind == "likert":
        return ordinal_block(gather(by_user, read_likert(config))).to_json()
    if kind == "ranking":
        return ranking_block(gather(by_user, read_ranking)).to_json()
    if kind in MATRIX_TYPES:
        return matrix_block(config, gather(by_user, read_matrix)).to_json()
    return multilabel_block(gather(by_user, lambda e: read_packed_set(config, e))).to_json()


def differences(mine: dict[str, Any], potato: dict[str, Any], path: str = ""
                ) -> tuple[float, list[str]]:
    """The largest |Accord − Potato| over Potato's numbers, and every mismatch."""
    worst, problems = 0.0, []
    for key, theirs in potato.items():
        where = f"{path}.{key}"
        ours = mine.get(key, "missing")
        if isinstance(theirs, dict):
            w, p = differences(ours if isinstance(ours, dict) else {}, theirs, where)
            worst, problems = max(worst, w), problems + p
        elif theirs is None or ours is None or isinstance(theirs, str):
            if ours != theirs:
                problems.append(f"{where}: Accord {ours!r}, Potato {theirs!r}")
        elif isinstance(ours, str):
            problems.append(f"{where}: Accord {ours!r}, Potato {theirs!r}")
        else:
            worst = max(worst, abs(float(ours) - float(theirs)))
            if abs(float(ours) - float(theirs)) > 1e-9:
                problems.append(f"{where}: Accord {ours!r}, Potato {theirs!r}")
    return worst, problems
