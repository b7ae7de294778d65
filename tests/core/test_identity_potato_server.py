"""Tracks written by the real Potato 2.12.1 server (``tests/potato_real/track_projects.py``):
Accord's report equals Potato's ``/admin/iaa`` (``expected/iaa.json``), Potato's own
``iaa/identity.py`` and ``iaa/structured.py`` on the stored values, and motmetrics with
the two directions pooled (kinds.md B §2.8, §3; A.7)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from app.core.agreement.identity import scoring
from app.core.agreement.report import agreement_report
from app.core.agreement.result import SchemeResult
from app.core.formats.potato.project import load_study
from app.core.progress import run
from app.report.agreement_export import render_csv
from app.report.agreement_html import render_html
from app.report.agreement_text import render as render_text
from tests.core.test_identity import _motmetrics_pooled, motmetrics_idtp

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "tracks"
EXPECTED = json.loads((ROOT / "expected" / "iaa.json").read_text())["schemas"]


@pytest.fixture(autouse=True)
def _potato_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Starting with pandas version")
        yield


@pytest.fixture(scope="module")
def report() -> Any:
    return run(agreement_report(load_study(ROOT), project="tracks"))


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


def _identity_equal(result: SchemeResult, expected: dict[str, Any]) -> None:
    assert result.metrics["identity.mota"] == pytest.approx(expected["mota"], abs=1e-12)
    assert result.metrics["identity.idf1"] == pytest.approx(expected["idf1"], abs=1e-12)
    assert result.metrics["identity.id_switches"] == expected["id_switches"]
    assert result.extra["identity"]["n_pairs"] == expected["n_pairs"]
    assert result.extra["identity"]["n_object_frames"] == expected["n_object_frames"]
    assert result.extra["identity"]["match_iou"] == expected["match_iou"]


def test_video_tracks_equal_potato_admin_iaa(report: Any) -> None:
    from potato.server_utils.iaa.identity import video_identity

    result = report.schemes["cars"]
    expected = EXPECTED["cars"]["metrics"]["identity"]
    _identity_equal(result, expected)
    own = video_identity(_stored("cars"))
    assert own is not None
    _identity_equal(result, own)
    assert expected["id_switches"] > 0  # bob's swapped halves are seen
    # tracks only: no segments to agree on (Potato says null too, with its note)
    for name in ("mean_agreement", "detection_f1"):
        assert result.metrics[name] is None
        assert EXPECTED["cars"]["metrics"][name] is None
        assert result.undefined[name] == scoring.NO_SEGMENTS


def test_lidar_sequence_equals_potato_admin_iaa(report: Any) -> None:
    from potato.server_utils.iaa.structured import spatial_report

    result = report.schemes["lidar"]
    for expected in (EXPECTED["lidar"]["metrics"], spatial_report(_stored("lidar"))):
        assert result.metrics["mean_agreement"] == pytest.approx(
            expected["mean_agreement"], abs=1e-9)
        assert result.metrics["mean_object_count_diff"] == pytest.approx(
            expected["mean_object_count_diff"], abs=1e-12)
        assert result.extra["n_frames"] == expected["n_frames"]
        assert result.n_items == expected["n_items"]
        assert result.n_pairs == expected["n_pairs"]
        _identity_equal(result, expected["identity"])


@pytest.mark.parametrize("scheme", ["cars", "lidar"])
def test_identity_equals_motmetrics_pooled(report: Any, scheme: str) -> None:
    study = load_study(ROOT)
    answers = study.answers_for(scheme)
    totals = [0, 0, 0, 0]
    idtp = frames_total = 0
    for item, by in sorted(answers.items()):
        if scheme == "cars":
            frames = {u: scoring.video_frames(a.tracks or ())  # type: ignore[union-attr]
                      for u, a in by.items()}
        else:
            frames = scoring.sequence_frames({item: by})[item]
        for x, y in combinations(sorted(frames), 2):
            a, b = frames[x], frames[y]
            if scheme == "cars":
                scores = {f: scoring.box_iou(a[f].rows, b[f].rows) for f in set(a) & set(b)}
            else:
                from app.core.geometry.cuboids import cuboid_iou_matrices
                shared = sorted(set(a) & set(b))
                scores = dict(zip(shared, cuboid_iou_matrices(
                    [(a[f].rows, b[f].rows) for f in shared]), strict=True))
            ids_a = {f: h.tracks for f, h in a.items()}
            ids_b = {f: h.tracks for f, h in b.items()}
            threshold = 0.5 if scheme == "cars" else 0.25
            for ref, hyp, sc in ((ids_a, ids_b, scores),
                                 (ids_b, ids_a, {f: m.T for f, m in scores.items()})):
                oracle = _motmetrics_pooled(ref, hyp, sc, threshold)
                totals = [t + o for t, o in zip(totals, oracle, strict=True)]
            idtp += motmetrics_idtp(ids_a, ids_b, scores, threshold)
            frames_total += sum(map(len, ids_a.values())) + sum(map(len, ids_b.values()))
    reference, misses, extra, switches = totals
    result = report.schemes[scheme]
    assert result.metrics["identity.idf1"] == 2.0 * idtp / frames_total
    assert result.metrics["identity.mota"] == 1.0 - (misses + extra + switches) / reference
    assert result.metrics["identity.id_switches"] == switches / 2


def test_identity_in_every_report_format(report: Any) -> None:
    data = report.to_json()["schemes"]
    for scheme in ("cars", "lidar"):
        metrics = data[scheme]["metrics"]
        assert {"identity.mota", "identity.idf1", "identity.id_switches"} <= set(metrics)
    text = render_text(report)
    assert "MOTA (pooled)" in text and "IDF1 (pooled)" in text
    assert "identity.mota" in render_csv(report)
    assert "MOTA" in render_html(report)


def test_consensus_is_per_frame_and_none_for_tracks_only() -> None:
    """A sequence's consensus is on its frame units (as it is scored), and one per unit
    the report scored; a tracks-only video scheme has no segment consensus, said why."""
    from app.core.agreement.consensus.export import consensus_job

    out = run(consensus_job(load_study(ROOT)))
    lidar = [row for row in out.rows if row["scheme"] == "lidar"]
    assert len(lidar) == EXPECTED["lidar"]["metrics"]["n_frames"]
    assert all("@" in row["item"] for row in lidar)
    assert not [row for row in out.rows if row["scheme"] == "cars"]
    assert any("'cars' holds video tracks only" in note for note in out.notes)
