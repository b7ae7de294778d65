"""The reader's cuboid rows (``ObjectSet.boxes``) are its cuboids' numbers, what
``boxes_array`` makes of them once packed, bit for bit, and the agreement that uses them
is the agreement without them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.core.agreement.sets.agreement import set_agreement
from app.core.agreement.sets.structured import selector_and_similarity
from app.core.errors import RejectedAnswerError
from app.core.formats.potato.place import Place
from app.core.formats.potato.spatial import cuboids_from_text, parse_spatial
from app.core.formats.reading.nesting import MAX_DEPTH, json_depth
from app.core.geometry.cuboid_boxes import boxes_array
from app.core.model import Kind, Scheme
from app.core.objects import Cuboid, ObjectSet, unit_quaternion_rows
from app.core.progress import run

SCHEME = Scheme(name="objects", annotation_type="spatial_annotation", kind=Kind.CUBOIDS)
PLACE = Place(Path("user_state.json"), "sweep-0", "objects", "ana")


def _shapes(rng: np.random.Generator, n: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for k in range(n):
        turn = rng.normal(size=4) * rng.uniform(0.1, 3.0)  # not unit length
        out.append({"type": "cuboid_3d", "label": "car" if k % 3 else "truck",
                    "coordinates": {"center": [int(k), *rng.uniform(-60, 60, 2).tolist()],
                                    "size": [*rng.uniform(0.5, 5, 2).tolist(), 2],
                                    "rotation": turn.tolist()}})
    return out


def test_packed_rows_are_boxes_array_of_the_cuboids() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 2, 40):
        answer = parse_spatial(_shapes(rng, n), SCHEME, PLACE)
        assert isinstance(answer, ObjectSet) and answer.boxes is not None
        numbers = np.array([(*c.center, *c.size, *c.rotation) for c in answer.objects])  # type: ignore[union-attr]
        np.testing.assert_array_equal(answer.boxes, numbers)
        packed = answer.boxes.copy()
        unit_quaternion_rows(packed)
        np.testing.assert_array_equal(packed, boxes_array(answer.objects))  # type: ignore[arg-type]
        assert answer == ObjectSet(answer.objects)  # the rows are not part of equality


def test_a_boolean_coordinate_is_named_not_read_as_one() -> None:
    shapes = _shapes(np.random.default_rng(1), 3)
    shapes[1]["coordinates"]["center"][0] = True  # type: ignore[index]
    with pytest.raises(RejectedAnswerError, match="object 1: center must be a number"):
        parse_spatial(shapes, SCHEME, PLACE)


def test_other_objects_keep_no_rows() -> None:
    shapes = [*_shapes(np.random.default_rng(2), 2),
              {"type": "point_3d", "label": "pole", "coordinates": [1.0, 2.0, 3.0]}]
    answer = parse_spatial(shapes, SCHEME, PLACE)
    assert isinstance(answer, ObjectSet) and answer.boxes is None
    assert isinstance(answer.objects[0], Cuboid)


def test_agreement_with_the_rows_is_the_agreement_without_them() -> None:
    rng = np.random.default_rng(3)
    truth = _shapes(rng, 30)
    answers: dict[str, dict[str, ObjectSet]] = {}
    for item in range(12):
        by: dict[str, ObjectSet] = {}
        for name, noise in (("ana", 0.1), ("ben", 0.3), ("cai", 0.6)):
            shapes = []
            for shape in truth[: 30 - item]:
                coords = shape["coordinates"]
                centre = (np.array(coords["center"]) + rng.normal(0, noise, 3)).tolist()  # type: ignore[index]
                shapes.append({**shape, "coordinates": {**coords, "center": centre}})  # type: ignore[dict-item]
            by[name] = parse_spatial(shapes, SCHEME, PLACE)
        answers[f"sweep-{item}"] = by
    plain = {item: {name: ObjectSet(a.objects) for name, a in by.items()}
             for item, by in answers.items()}

    def outcomes(given: dict[str, dict[str, ObjectSet]]) -> list[tuple[object, ...]]:
        select, similarity = selector_and_similarity(Kind.CUBOIDS)
        result = run(set_agreement(given, select, similarity, 0.25))  # type: ignore[arg-type]
        return [(o.item, o.a, o.b, o.score, o.f1, o.rows.tolist(), o.cols.tolist(),
                 o.matched_iou.tobytes(), o.label_match.tolist()) for o in result.outcomes]

    with_rows = outcomes(answers)
    assert any(score < 1.0 for _, _, _, score, *_ in with_rows)
    assert with_rows == outcomes(plain)


def _text_cases() -> list[str]:
    rng = np.random.default_rng(11)
    plain = _shapes(rng, 5)
    cases = [json.dumps(plain), json.dumps(plain, separators=(",", ":")),
             json.dumps(plain, indent=2), json.dumps(plain[:1])]
    edits: list[tuple[str, object]] = [
        ("label", None), ("label", 7), ("label", 2.5), ("label", True), ("label", {"a": [1]}),
        ("label", "caf\u00e9 \U0001f697"), ("rotation", None), ("rotation", [0, 0, 0, 0]),
        ("center", [True, 1, 2]), ("center", ["1", 1, 2]), ("center", [1, 2]),
        ("size", [-1.0, 1, 1]), ("size", [1e13, 1, 1]), ("center", [12345678901234567890, 0, 0]),
        ("center", [0.1234567890123456789012, 0, 0]), ("extra", [[[[1]]]]),
        ("extra", "x" * 5), ("type", "point_3d"),
    ]
    for key, value in edits:
        shapes = json.loads(json.dumps(plain))
        if key in ("center", "size", "rotation"):
            shapes[2]["coordinates"][key] = value
        else:
            shapes[2][key] = value
        cases.append(json.dumps(shapes))
    text = json.dumps(plain)
    cases += [
        text.replace('"center"', '"center": [9, 9, 9], "center"', 1),  # duplicates: last wins
        text.replace('"label"', '"label": "x", "label"', 1),
        text[:-1] + ', {"type": "cuboid_3d", "coordinates": {"center": [1, 2, 3], '
        '"size": [1, 1, 1]}, "deep": ' + "[" * 120 + "]" * 120 + "}]",
        text[:-1] + ', {"type": "cuboid_3d", "coordinates": {"center": [1, 2, 3], '
        '"size": [1, 1, 1]}, "n": ' + "9" * 320 + "}]",
        text.replace("0.", "NaN, 0.", 1), '{"objects": ' + text + "}", "[]", "[1, 2]",
        text.replace('"car"', '"\\ud800"', 1), text.replace('"car"', '"\\u0063ar"', 1),
    ]
    return cases


@pytest.mark.parametrize("text", _text_cases())
def test_cuboids_from_text_are_the_json_paths(text: str) -> None:
    fast = cuboids_from_text(text)
    try:
        expected = parse_spatial(json.loads(text), SCHEME, PLACE)
    except (RejectedAnswerError, ValueError):
        assert fast is None  # the JSON path names what is wrong
        return
    if fast is None:
        return
    assert fast == expected
    assert [repr(o) for o in fast.objects] == [repr(o) for o in expected.objects]
    assert expected.boxes is not None and fast.boxes is not None
    assert fast.boxes.tobytes() == expected.boxes.tobytes()


def test_the_text_path_reads_the_lidar_answers() -> None:
    assert cuboids_from_text(_text_cases()[0]) is not None
    assert cuboids_from_text(_text_cases()[1]) is not None
    # labels of every JSON type, duplicate keys, escapes and extra keys stay on the text path
    assert sum(cuboids_from_text(text) is not None for text in _text_cases()) >= 16


def _deep_text(shapes: list[dict[str, object]], levels: int) -> str:
    """``shapes`` with an extra key nesting ``levels`` lists inside the middle shape (at
    depth 2, so the text nests ``2 + levels`` deep)."""
    text = json.dumps(shapes[len(shapes) // 2]["coordinates"])
    deep = '"deep": ' + "[" * levels + "]" * levels + ", "
    whole = json.dumps(shapes)
    return whole.replace('"coordinates": ' + text, deep + '"coordinates": ' + text, 1)


@pytest.mark.parametrize("n", [3, 40, 150])
@pytest.mark.parametrize("rotations", [True, False])
def test_the_text_path_refuses_what_nests_deeper_than_the_json_path_reads(
        n: int, rotations: bool) -> None:
    """The depth is bounded from the bracket count before it is counted: a text nesting
    100 deep is read, 101 deep is left to the JSON path (which refuses it), with few or
    many cuboids, the rotations written or left out."""
    shapes = _shapes(np.random.default_rng(5), n)
    for shape in shapes:  # numbers as a lidar tool writes them (a 19-digit run goes to JSON)
        coords: dict[str, list[float]] = shape["coordinates"]  # type: ignore[assignment]
        for key in list(coords):
            coords[key] = [round(v, 6) for v in coords[key]]
        if not rotations:
            del coords["rotation"]
    assert json_depth(json.dumps(shapes)) == 4
    plain = cuboids_from_text(json.dumps(shapes))
    assert plain == parse_spatial(shapes, SCHEME, PLACE)
    at_limit, past_limit = _deep_text(shapes, MAX_DEPTH - 2), _deep_text(shapes, MAX_DEPTH - 1)
    assert (json_depth(at_limit), json_depth(past_limit)) == (MAX_DEPTH, MAX_DEPTH + 1)
    assert cuboids_from_text(at_limit) == plain
    assert cuboids_from_text(past_limit) is None
    deeper = _deep_text(shapes, 5_000)  # past what msgspec follows
    assert cuboids_from_text(deeper) is None
