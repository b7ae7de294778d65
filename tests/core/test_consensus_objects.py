"""Consensus of matched objects: segments, tiers, cuboids and boxes against hand-computed
medians, circular means and majorities; minorities and who agreed."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from app.core.agreement.consensus.export import consensus_job
from app.core.agreement.consensus.geometry import markley_mean
from app.core.model import Answer, Item, Kind, Scheme, Study
from app.core.objects import BoxRegion, Cuboid, ObjectSet, SceneObject, Segment
from app.core.progress import run

TYPES = {
    Kind.SEGMENTS: "audio_annotation",
    Kind.TIERS: "tiered_annotation",
    Kind.CUBOIDS: "spatial_annotation",
    Kind.REGIONS: "image_annotation",
}


def _rows(
    kind: Kind, answers: dict[str, dict[str, tuple[SceneObject, ...]]]
) -> dict[str, dict[str, Any]]:
    wrapped: dict[str, dict[str, Answer]] = {
        item: {who: ObjectSet(objs) for who, objs in by.items()} for item, by in answers.items()
    }
    names = sorted({w for by in answers.values() for w in by})
    study = Study(
        Path("/nowhere"),
        {i: Item(i, {}) for i in answers},
        {"s": Scheme("s", TYPES[kind], kind)},
        tuple(names),
        {"s": wrapped},
    )
    result = run(consensus_job(study))
    return {row["item"]: row for row in result.rows}


def test_three_segments_median_start_and_end_and_the_minorities() -> None:
    row = _rows(
        Kind.SEGMENTS,
        {
            "i": {
                "a": (Segment(1.0, 3.0, "speech"), Segment(10.0, 12.0, "music")),
                "b": (Segment(1.2, 3.4, "speech"),),
                "c": (Segment(0.8, 2.9, "music"), Segment(20.0, 21.0, "speech")),
            }
        },
    )["i"]
    (one,) = row["consensus"]
    # starts 0.8, 1.0, 1.2 -> 1.0; ends 2.9, 3.0, 3.4 -> 3.0
    assert one["geometry"] == {"type": "segment", "start": 1.0, "end": 3.0}
    assert one["label"] == "speech"
    assert one["label_votes"] == {"music": ["c"], "speech": ["a", "b"]}
    assert one["agreed_by"] == ["a", "b", "c"] and one["missed_by"] == []
    assert sorted((m["found_by"], m["geometry"]["start"]) for m in row["minority"]) == [
        (["a"], 10.0),
        (["c"], 20.0),
    ]
    assert all("1 of 3" in m["reason"] for m in row["minority"])
    # only b found the consensus object and nothing else
    assert row["agreed_by"] == ["b"]
    assert row["n_annotators"] == 3 and row["threshold"] == 0.5


def test_four_segments_median_of_an_even_count() -> None:
    row = _rows(
        Kind.SEGMENTS,
        {
            "i": {
                "a": (Segment(1.0, 5.0, "x"),),
                "b": (Segment(1.2, 5.2, "x"),),
                "c": (Segment(1.4, 5.6, "y"),),
                "d": (Segment(1.6, 5.8, "y"),),
            }
        },
    )["i"]
    (one,) = row["consensus"]
    assert one["geometry"]["start"] == pytest.approx((1.2 + 1.4) / 2)
    assert one["geometry"]["end"] == pytest.approx((5.2 + 5.6) / 2)
    assert one["label"] is None and one["label_tie"] == ["x", "y"]
    assert row["agreed_by"] == ["a", "b", "c", "d"]


def test_exactly_half_is_a_minority_named_as_a_tie() -> None:
    row = _rows(
        Kind.SEGMENTS,
        {"i": {"a": (Segment(0.0, 1.0, "x"),), "b": (Segment(0.0, 1.0, "x"),), "c": (), "d": ()}},
    )["i"]
    assert row["consensus"] == []
    (m,) = row["minority"]
    assert m["found_by"] == ["a", "b"] and "exactly half" in m["reason"]
    assert row["agreed_by"] == ["c", "d"]


def test_tiers_match_within_their_tier_only() -> None:
    both = (Segment(0.0, 1.0, "host", tier="speaker"), Segment(0.0, 1.0, "music", tier="events"))
    row = _rows(Kind.TIERS, {"i": {"a": both, "b": both, "c": both[:1]}})["i"]
    shapes = sorted((o["geometry"]["tier"], o["label"], o["agreed_by"]) for o in row["consensus"])
    assert shapes == [("events", "music", ["a", "b"]), ("speaker", "host", ["a", "b", "c"])]
    assert row["agreed_by"] == ["a", "b"]


def test_matched_cuboids_median_centre_and_size_circular_mean_of_yaw() -> None:
    row = _rows(
        Kind.CUBOIDS,
        {
            "s1": {
                "a": (Cuboid.from_yaw("car", (10.0, 0.0, 0.0), (4.0, 2.0, 1.5), 0.1),),
                "b": (
                    Cuboid.from_yaw("car", (10.2, 0.1, 0.0), (4.2, 1.8, 1.5), 0.2),
                    Cuboid.from_yaw("pedestrian", (0.0, 5.0, 0.0), (0.6, 0.6, 1.8), 0.0),
                ),
                "c": (Cuboid.from_yaw("van", (9.9, -0.1, 0.05), (3.8, 2.1, 1.6), 0.6),),
            }
        },
    )["s1"]
    (car,) = row["consensus"]
    g = car["geometry"]
    assert g["center"] == pytest.approx([10.0, 0.0, 0.0])
    assert g["size"] == pytest.approx([4.0, 2.0, 1.5])
    yaw = math.atan2(
        math.sin(0.1) + math.sin(0.2) + math.sin(0.6), math.cos(0.1) + math.cos(0.2) + math.cos(0.6)
    )
    assert g["yaw"] == pytest.approx(yaw)
    assert g["rotation"] == pytest.approx([0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2)])
    assert car["label"] == "car" and car["agreed_by"] == ["a", "b", "c"]
    assert "circular mean" in car["rule"]
    (ped,) = row["minority"]
    assert ped["label"] == "pedestrian" and ped["found_by"] == ["b"]
    assert ped["missed_by"] == ["a", "c"]
    assert row["agreed_by"] == ["a", "c"]
    assert row["threshold"] == 0.25


def test_opposite_headings_take_the_medoid_s_yaw() -> None:
    row = _rows(
        Kind.CUBOIDS,
        {
            "s": {
                "a": (Cuboid.from_yaw("car", (0, 0, 0), (4, 2, 1.5), 0.0),),
                "b": (Cuboid.from_yaw("car", (0, 0, 0), (4, 2, 1.5), math.pi),),
            }
        },
    )["s"]
    (car,) = row["consensus"]
    assert car["geometry"]["yaw"] == pytest.approx(0.0)
    assert "cancel" in car["rule"]


def test_tilted_boxes_take_the_quaternion_mean() -> None:
    def about_y(angle: float) -> Cuboid:
        return Cuboid(
            "car",
            (0.0, 0.0, 0.0),
            (4.0, 2.0, 1.5),
            (0.0, math.sin(angle / 2), 0.0, math.cos(angle / 2)),
        )

    row = _rows(Kind.CUBOIDS, {"s": {"a": (about_y(0.1),), "b": (about_y(0.3),)}})["s"]
    (car,) = row["consensus"]
    # halfway between two turns about one axis is the turn by the mean angle
    assert car["geometry"]["rotation"] == pytest.approx([0.0, math.sin(0.1), 0.0, math.cos(0.1)])
    assert "Markley" in car["rule"]
    # the sign of a quaternion does not move the mean
    assert markley_mean([(0, 0, 0, 1), (0, 0, 0, -1)]) == pytest.approx((0, 0, 0, 1))


def test_boxes_median_centre_and_size() -> None:
    row = _rows(
        Kind.REGIONS,
        {
            "img": {
                "a": (BoxRegion("car", 0.10, 0.10, 0.20, 0.20),),
                "b": (BoxRegion("car", 0.12, 0.10, 0.20, 0.24),),
                "c": (BoxRegion("van", 0.10, 0.14, 0.24, 0.20),),
            }
        },
    )["img"]
    (box,) = row["consensus"]
    # centres (0.20, 0.20), (0.22, 0.22), (0.22, 0.24) -> (0.22, 0.22); sizes -> 0.20 x 0.20
    g = box["geometry"]
    assert (g["x"], g["y"], g["width"], g["height"]) == pytest.approx((0.12, 0.12, 0.2, 0.2))
    assert box["label"] == "car" and box["rule"] == "median centre and size"


def test_empty_answers_agree_and_one_annotator_has_no_consensus() -> None:
    rows = _rows(Kind.SEGMENTS, {"e": {"a": (), "b": ()}, "one": {"a": (Segment(0, 1, "x"),)}})
    assert rows["e"]["consensus"] == [] and rows["e"]["agreed_by"] == ["a", "b"]
    assert rows["one"]["consensus"] is None and "one annotator" in rows["one"]["reason"]
