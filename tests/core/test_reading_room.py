"""The reading room's entries for media and database files keep the boundary's promises.

The JSON, JSON Lines and YAML entries are the moved helpers themselves (their tests are
``test_reader_boundary.py``, ``test_json_pieces.py``, ``test_json_lines_fast.py``, ...);
the media and database entries are new calls over :mod:`app.core.formats.reading.boundary`,
so each is checked here against the boundary's own refusal of the same file, message for
message, and against what it alone allows (a media file over the 512 MiB limit, a
database named but absent).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.formats.reading.boundary import MAX_FILE_BYTES, checked_file
from app.core.formats.reading.database_file import at_rest, named_database_file, side_files
from app.core.formats.reading.media_file import media_file, named_media_file, open_media_file

APP = Path(__file__).resolve().parents[2] / "app"


def _message(call: object) -> str:
    with pytest.raises(InputError) as caught:
        call()  # type: ignore[operator]
    return str(caught.value)


def _hostile(tmp_path: Path) -> dict[str, Path]:
    """A project folder holding a FIFO, a link out of it, a folder and a broken link."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "secret.bin").write_bytes(b"x")
    os.mkfifo(project / "fifo.bin")
    (project / "out.bin").symlink_to(outside / "secret.bin")
    (project / "folder.bin").mkdir()
    (project / "broken.bin").symlink_to(project / "missing.bin")
    return {name: project / f"{name}.bin" for name in ("fifo", "out", "folder", "broken")}


@pytest.mark.parametrize("name", ["fifo", "out", "folder", "broken"])
def test_media_and_database_entries_refuse_as_the_boundary_does(tmp_path: Path,
                                                                name: str) -> None:
    path = _hostile(tmp_path)[name]
    root = path.parent
    expected = _message(lambda: checked_file(path, root=root))
    assert _message(lambda: media_file(path, root=root)) == expected
    assert _message(lambda: named_media_file(path, root=root)) == expected
    assert _message(lambda: open_media_file(path, root=root)) == expected
    assert _message(lambda: named_database_file(path, root=root)) == expected


def test_absent_is_none_and_a_media_file_has_no_size_limit(tmp_path: Path) -> None:
    assert named_media_file(tmp_path / "none.pcd", root=tmp_path) is None
    assert named_database_file(tmp_path / "engine.sqlite", root=tmp_path) is None
    big = tmp_path / "sweep.pcd"
    with big.open("wb") as handle:  # sparse: no disk used
        handle.truncate(MAX_FILE_BYTES + 1)
    assert media_file(big, root=tmp_path) == big.resolve()
    with open_media_file(big, root=tmp_path) as handle:
        assert handle.read(4) == b"\0\0\0\0"
    too_large = _message(lambda: checked_file(big, root=tmp_path))
    assert "at most 536,870,912 are read" in too_large
    assert _message(lambda: named_database_file(big, root=tmp_path)) == too_large
    assert named_database_file(big, root=tmp_path, limit=MAX_FILE_BYTES + 1) == big


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_database_is_at_rest_only_without_any_side_file(tmp_path: Path,
                                                          suffix: str) -> None:
    database = tmp_path / "engine.sqlite"
    database.write_bytes(b"")
    assert at_rest(database)
    assert [p.name[len("engine.sqlite"):] for p in side_files(database)] == [
        "-wal", "-shm", "-journal"]
    side = tmp_path / f"engine.sqlite{suffix}"
    side.symlink_to(tmp_path / "gone")  # a broken link is something, not absence
    assert not at_rest(database)
    side.unlink()
    os.mkfifo(side)
    assert not at_rest(database)


def test_no_reader_opens_a_file_but_through_the_room() -> None:
    """Nothing imports the helpers' old paths (``formats/boundary.py`` and its
    neighbours, moved into ``formats/reading/``): a new reader goes to the room."""
    old = {f"app.core.formats.{name}" for name in (
        "boundary", "files", "nesting", "digit_runs", "json_lines", "json_pieces",
        "yaml_lines")}
    users = []
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                names = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
                if names & old:
                    users.append(str(path.relative_to(APP.parent)))
    assert users == []
