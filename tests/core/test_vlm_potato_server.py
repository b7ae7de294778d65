"""Grounding, captions, episodes and rollouts written by the real Potato 2.12.1 server
(``tests/potato_real/vlm_projects.py``): Accord's report equals Potato's ``/admin/iaa``
(``expected/iaa.json``), Potato's own ``iaa/`` report functions on the stored values, and
the independent oracles of kinds.md §3 (``krippendorff`` with the level passed,
nltk's ``AnnotationTask`` with the token distance, scipy's ``ks_2samp``); the episode
field names a folder holding ``episode.json`` and is read (issue 38 part 4)."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.agreement.report import agreement_report
from app.core.formats.potato.project import load_study
from app.core.progress import run

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "vlm"
EXPECTED = json.loads((ROOT / "expected" / "iaa.json").read_text())["schemas"]
TOL = 1e-9


@pytest.fixture(autouse=True)
def _potato_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Starting with pandas version")
        yield


@pytest.fixture(scope="module")
def report() -> Any:
    return run(agreement_report(load_study(ROOT), project="vlm"))


def _stored(scheme: str) -> dict[str, dict[str, Any]]:
    """``{item: {user: stored value}}`` straight from the user_state.json files."""
    rows: dict[str, dict[str, Any]] = {}
    for path in sorted(ROOT.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        for item, entries in state["instance_id_to_label_to_value"].items():
            for key, value in entries:
                if key["schema"] == scheme:
                    rows.setdefault(item, {})[state["user_id"]] = value
    return rows


def _same(ours: float | None, theirs: Any) -> None:
    if theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        assert ours is None
    else:
        assert ours is not None and abs(ours - theirs) <= TOL, (ours, theirs)


def _flat(metrics: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in metrics.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        elif (isinstance(v, int | float) and not isinstance(v, bool)) or v is None:
            out[f"{prefix}{k}"] = v
    return out


@pytest.mark.parametrize("scheme,kind", [("refer", "grounding"), ("describe", "captions"),
                                         ("episode", "episodes"), ("rollout", "rollouts")])
def test_every_metric_equals_potato_admin_iaa(report: Any, scheme: str, kind: str) -> None:
    result = report.schemes[scheme]
    assert result.kind == kind
    theirs = _flat(EXPECTED[scheme]["metrics"])
    compared = 0
    for name, value in result.metrics.items():
        if name in theirs:
            _same(value, theirs[name])
            compared += 1
    declared = {"grounding": 5, "captions": 4, "episodes": 7, "rollouts": 10}[kind]
    assert compared >= declared, (compared, sorted(result.metrics))


def test_the_same_answers_through_potatos_own_functions(report: Any) -> None:
    from potato.server_utils.iaa.captions import region_caption_report
    from potato.server_utils.iaa.dispatcher import _parse_caption_rows
    from potato.server_utils.iaa.episodes import episode_report
    from potato.server_utils.iaa.grounding import grounding_report
    from potato.server_utils.iaa.rollouts import rollout_report

    config = {s["name"]: s for s in __import__("yaml").safe_load(
        (ROOT / "config.yaml").read_text())["annotation_schemes"]}
    own = {"refer": grounding_report(_stored("refer"), config["refer"]),
           "describe": region_caption_report(_parse_caption_rows(_stored("describe"))),
           "episode": episode_report(_stored("episode"), config["episode"]),
           "rollout": rollout_report(_stored("rollout"), config["rollout"])}
    for scheme, theirs in own.items():
        flat = _flat(theirs)
        metrics = report.schemes[scheme].metrics
        shared = [n for n in metrics if n in flat]
        assert shared
        for name in shared:
            _same(metrics[name], flat[name])


def test_grounding_and_rollout_alphas_equal_krippendorff(report: Any) -> None:
    import krippendorff
    import numpy as np
    from potato.server_utils.iaa.grounding import parse_rows

    parsed = parse_rows(_stored("refer"))
    units = sorted({f"{i}::{e}" for i, by in parsed.items() for a in by.values() for e in a})
    people = sorted({u for by in parsed.values() for u in by})
    table = np.full((len(people), len(units)), np.nan)
    for item, by in parsed.items():
        for user, answers in by.items():
            for e, answer in answers.items():
                table[people.index(user), units.index(f"{item}::{e}")] = \
                    0.0 if answer["absent"] else 1.0
    want = krippendorff.alpha(reliability_data=table, level_of_measurement="nominal")
    _same(report.schemes["refer"].metrics["detection.alpha"], want)
    # preference: one unit per item, nominal
    prefs = {i: {u: json.loads(v)["preference"]["winner"] for u, v in by.items()}
             for i, by in _stored("rollout").items()}
    names = sorted({w for by in prefs.values() for w in by.values()})
    table = np.full((len(people), len(prefs)), np.nan)
    for j, (_, by) in enumerate(sorted(prefs.items())):
        for user, winner in by.items():
            table[people.index(user), j] = names.index(winner)
    want = krippendorff.alpha(reliability_data=table, level_of_measurement="nominal")
    _same(report.schemes["rollout"].metrics["preference.alpha"], want)


def test_caption_alpha_equals_nltk_token_distance(report: Any) -> None:
    from nltk.metrics.agreement import AnnotationTask
    from potato.server_utils.iaa.captions import region_caption_rows
    from potato.server_utils.iaa.dispatcher import _parse_caption_rows

    from app.core.agreement.vlm.captions import token_distance

    rows, _ = region_caption_rows(_parse_caption_rows(_stored("describe")))
    usable = [r for r in rows if r[2].strip()]
    task = AnnotationTask(data=usable, distance=token_distance)
    _same(report.schemes["describe"].metrics["alpha"], task.alpha())


def test_rollout_ks_equals_scipy(report: Any) -> None:
    from scipy.stats import ks_2samp

    from app.core.agreement.vlm.rollouts import between_offsets, within_offsets

    details = report.schemes["rollout"].details
    assert details is not None
    study = load_study(ROOT)
    items = {i: {a: v.parsed for a, v in by.items()}
             for i, by in study.answers_for("rollout").items() if len(by) >= 2}
    within, between = within_offsets(items, 0.5), between_offsets(items)
    _same(report.schemes["rollout"].metrics["localization.ks"],
          float(ks_2samp(within, between).statistic))


def test_an_episode_folder_is_read_as_potato_reads_it() -> None:
    study = load_study(ROOT)
    for item in study.items.values():
        path = item.media["episode"]
        assert path.name == "episode.json" and path.parent.name == item.id


def test_a_machine_rater_leaves_the_headline_to_the_people(tmp_path: Path) -> None:
    """kinds.md A.4: carol declared a machine (Potato's ``origin``); the headline of each
    kind is alice and bob alone, equal to Potato's functions on their answers, and the
    pooled partition is the report of all three."""
    import shutil

    from potato.server_utils.iaa.grounding import grounding_report
    from potato.server_utils.iaa.rollouts import rollout_report

    root = tmp_path / "vlm"
    shutil.copytree(ROOT, root)
    state_file = root / "annotation_output" / "carol" / "user_state.json"
    state = json.loads(state_file.read_text())
    state["origin"] = {"kind": "llm", "id": "model-x"}
    state_file.write_text(json.dumps(state))
    mixed = run(agreement_report(load_study(root), project="vlm"))
    people = {i: {u: v for u, v in by.items() if u != "carol"}
              for i, by in _stored("refer").items()}
    theirs = _flat(grounding_report(people, {"region_type": "box"}))
    _same(mixed.schemes["refer"].metrics["detection.alpha"], theirs["detection.alpha"])
    _same(mixed.schemes["refer"].metrics["localization.mean_iou"],
          theirs["localization.mean_iou"])
    people = {i: {u: v for u, v in by.items() if u != "carol"}
              for i, by in _stored("rollout").items()}
    theirs = _flat(rollout_report(people, {"annotation_type": "rollout_evaluation"}))
    _same(mixed.schemes["rollout"].metrics["localization.sigma"], theirs["localization.sigma"])
    pooled = mixed.partitions["pooled"].schemes["refer"].metrics["detection.alpha"]
    _same(pooled, _flat(EXPECTED["refer"]["metrics"])["detection.alpha"])


def test_the_embedding_distance_is_refused_with_potatos_fallback_beside(tmp_path: Path
                                                                         ) -> None:
    """A.6: ``agreement_distance: embedding`` needs a model download; the caption numbers
    are null with that sentence, and Potato's own (its token fallback) are in potato_iaa."""
    import shutil

    import yaml

    root = tmp_path / "vlm"
    shutil.copytree(ROOT, root)
    config = yaml.safe_load((root / "config.yaml").read_text())
    for scheme in config["annotation_schemes"]:
        if scheme["name"] == "describe":
            scheme["agreement_distance"] = "embedding"
    (root / "config.yaml").write_text(yaml.safe_dump(config))
    result = run(agreement_report(load_study(root), project="vlm")).schemes["describe"]
    assert result.metrics["alpha"] is None
    assert "model download" in result.undefined["alpha"]
    expected = EXPECTED["describe"]["metrics"]  # Potato's token-distance numbers
    _same(result.extra["potato_iaa"]["alpha"], expected["alpha"])
    _same(result.extra["potato_iaa"]["mean_pairwise_distance"],
          expected["mean_pairwise_distance"])
    assert any("potato_iaa" in n for n in result.notes)
