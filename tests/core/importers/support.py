"""What the ``accord import`` tests share: running the command through the CLI's ``main``,
reading what an import wrote, writing the same study as a Potato project by hand, and
comparing two ``accord agreement --json`` reports.

Format-specific builders (the files each tool writes) stay in their test modules."""

from __future__ import annotations

import json
import math
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from scipy.spatial.transform import Rotation

from app.cli.main import main
from tests.potato_project import Pairs, structured

Capture = pytest.CaptureFixture[str]

# ------------------------------------------------------------------------ running imports


def run_import(capsys: Capture, fmt: str, *args: str) -> tuple[int, str, str]:
    """``accord import FMT ARGS...``: its exit code, stdout and stderr (this run's only)."""
    capsys.readouterr()
    code = main(["import", fmt, *args])
    out, err = capsys.readouterr()
    return code, out, err


def import_ok(capsys: Capture, fmt: str, *args: str) -> str:
    """An import that must succeed (exit 0): its stdout."""
    code, out, err = run_import(capsys, fmt, *args)
    assert code == 0, err
    return out


def assert_refused(code: int, err: str, out: Path, *needles: str | Path) -> str:
    """A refused import: exit 2, one line on stderr holding every needle (the file and
    what is wrong), no traceback, no project at ``out`` and no temporary folder
    (``.<name>.…``) left beside it. Returns the line."""
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert str(needle) in lines[0], err
    assert "Traceback" not in err
    assert not out.exists()
    assert not [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    return lines[0]


def import_fails(capsys: Capture, fmt: str, args: list[str], out: Path,
                 *needles: str | Path) -> str:
    """``accord import FMT ARGS -o OUT`` refused as :func:`assert_refused` says; the line."""
    code, _, err = run_import(capsys, fmt, *args, "-o", str(out))
    return assert_refused(code, err, out, *needles)


def import_into_occupied(capsys: Capture, fmt: str, out: Path, *args: str) -> tuple[int, str]:
    """Import into ``out`` when it already holds a file of the user's (keep.txt): asserts
    that file is still all the folder holds; returns the exit code and stderr for the
    caller's checks of the refusal."""
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, _, err = run_import(capsys, fmt, *args, "-o", str(out))
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    return code, err


# ------------------------------------------------------------------ what an import wrote


def label_pairs(project: Path, annotator: str, item: str) -> list[Any]:
    """The ``[{"schema", "name"}, value]`` pairs written for ``annotator`` on ``item``
    (annotation_output/<annotator>/user_state.json)."""
    state = json.loads((project / "annotation_output" / annotator / "user_state.json")
                       .read_text(encoding="utf-8"))
    pairs: list[Any] = state["instance_id_to_label_to_value"][item]
    return pairs


def stored(project: Path, annotator: str, item: str, scheme: str = "objects") -> Any:
    """The structured answer stored under ``_data`` for ``scheme``, parsed."""
    return json.loads(next(v for k, v in label_pairs(project, annotator, item)
                           if k["schema"] == scheme and k["name"] == "_data"))


def only_stored(project: Path, annotator: str, item: str, scheme: str = "objects") -> Any:
    """As :func:`stored`, asserting that answer is the only pair written for the item."""
    pairs = label_pairs(project, annotator, item)
    assert [p[0] for p in pairs] == [{"schema": scheme, "name": "_data"}]
    return json.loads(pairs[0][1])


# ---------------------------------------------------------------- a Potato project by hand


def write_png(path: Path, width: int, height: int) -> Path:
    """A black greyscale PNG of the given size (only its header matters here)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(width) for _ in range(height))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(
        ">IIBBBBB", width, height, 8, 0, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b""))
    return path


def under_data(scheme: str, answers: dict[str, dict[str, Any]]) -> dict[str, dict[str, Pairs]]:
    """annotator → item → answer as the pairs Potato stores: one JSON string under
    ``_data`` for ``scheme``."""
    return {who: {item: [structured(scheme, value, under_data=True)]
                  for item, value in mine.items()} for who, mine in answers.items()}


def potato_project(root: Path, schemes: list[dict[str, Any]], records: list[dict[str, Any]],
                   labels: dict[str, dict[str, Pairs]],
                   image_size: tuple[int, int] | None = None) -> Path:
    """A Potato project written by hand: config.yaml with ``schemes``, data/items.jsonl
    with ``records``, and annotation_output/<annotator>/user_state.json holding
    ``labels[annotator]`` (item → pairs) for each annotator. With ``image_size``
    (width, height), a PNG of that size at each record's ``image`` path."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "config.yaml").write_text(yaml.safe_dump({
        "annotation_task_name": "by hand", "task_dir": ".", "data_files": ["data/items.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "output_annotation_dir": "annotation_output/", "annotation_schemes": schemes}))
    (root / "data" / "items.jsonl").write_text(
        "".join(json.dumps(record) + "\n" for record in records))
    if image_size is not None:
        for record in records:
            if "image" in record:
                write_png(root / record["image"], *image_size)
    for name, mine in labels.items():
        folder = root / "annotation_output" / name
        folder.mkdir(parents=True)
        folder.joinpath("user_state.json").write_text(json.dumps({
            "user_id": name, "instance_id_ordering": list(mine),
            "instance_id_to_label_to_value": mine, "instance_id_to_span_to_value": {}}))
    return root


# ------------------------------------------------------------------- agreement reports


def agreement(capsys: Capture, project: Path) -> dict[str, Any]:
    """``accord agreement PROJECT --json`` (exit 0 asserted), parsed."""
    capsys.readouterr()
    assert main(["agreement", str(project), "--json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def rounded(value: Any) -> Any:
    """``value`` with every float in it rounded to 9 decimal places."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def rounded_agreement(capsys: Capture, project: Path) -> dict[str, Any]:
    """:func:`agreement` without the project's path and with its floats :func:`rounded`,
    so that two projects' reports compare with ``==``."""
    report = agreement(capsys, project)
    report.pop("project")
    result: dict[str, Any] = rounded(report)
    return result


def assert_same_numbers(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` have the same keys, lengths and values, floats within 1e-9 (the
    failure names the path to the first difference)."""
    if isinstance(a, dict):
        assert set(a) == set(b), where
        for k in a:
            assert_same_numbers(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same_numbers(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert b is not None and math.isclose(a, b, abs_tol=1e-9), (where, a, b)
    else:
        assert a == b, (where, a, b)


# ------------------------------------------------------------------------------ cuboids


def cuboid_corners(center: list[float], size: list[float], rotation: list[float]) -> np.ndarray:
    """The 8 corners (8×3) of a Potato ``cuboid_3d``: centre, [l, w, h] and an
    [x, y, z, w] quaternion."""
    half = np.array(size) / 2
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])
    return np.asarray(Rotation.from_quat(rotation).apply(signs * half) + np.array(center))


def same_corners(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    """Every corner in ``a`` has one in ``b`` within ``tol``."""
    return all(np.min(np.linalg.norm(b - p, axis=1)) < tol for p in a)
