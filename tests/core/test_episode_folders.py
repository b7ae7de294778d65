"""A media field naming an episode folder (issue 38 part 4): read as Potato 2.12.1 reads
it (the folder's ``episode.json``, ``episodes/simple.py``), while every other folder and
every path leaving the project stay refused with the file and key named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.formats.potato.project import load_study

SOURCE = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "vlm"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "vlm"
    shutil.copytree(SOURCE, root)
    return root


def _point_v00_at(root: Path, value: str) -> None:
    data = root / "data" / "items.jsonl"
    records = [json.loads(line) for line in data.read_text().splitlines()]
    records[0]["episode"] = value
    data.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_the_episode_folder_is_its_manifest(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    study = load_study(root)
    assert study.items["v00"].media["episode"] == \
        (root / "episodes" / "v00" / "episode.json").resolve()


def test_a_folder_without_a_manifest_is_still_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "episodes" / "v00" / "episode.json").unlink()
    with pytest.raises(InputError, match="a folder, not a regular file"):
        load_study(root)


def test_a_manifest_linking_out_of_the_project_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    manifest = root / "episodes" / "v00" / "episode.json"
    manifest.unlink()
    manifest.symlink_to(outside)
    with pytest.raises(InputError, match="outside the project folder"):
        load_study(root)


def test_a_folder_outside_the_project_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (tmp_path / "ep").mkdir()
    (tmp_path / "ep" / "episode.json").write_text("{}")
    _point_v00_at(root, "../ep")
    with pytest.raises(InputError, match="leaves the project folder") as caught:
        load_study(root)
    assert "items.jsonl" in str(caught.value)
