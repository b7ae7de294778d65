"""``boundary.read_mapped``: the bytes ``read_bytes`` gives, a big file's in a memory map
that is closed when the block is left; the same checks at the door."""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

import pytest

from app.core.errors import InputError
from app.core.formats import boundary
from app.core.formats.boundary import read_bytes, read_mapped

CONTENT = b'{"item": "i0"}\n' * 1000


def test_a_small_file_is_bytes(tmp_path: Path) -> None:
    path = tmp_path / "small.jsonl"
    path.write_bytes(CONTENT)
    with read_mapped(path) as data:
        assert type(data) is bytes and data == read_bytes(path)


def test_a_big_file_is_a_map_closed_after(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(boundary, "MAPPED_FROM_BYTES", 1000)
    path = tmp_path / "big.jsonl"
    path.write_bytes(CONTENT)
    with read_mapped(path) as data:
        assert isinstance(data, mmap.mmap) and data[:] == CONTENT and len(data) == len(CONTENT)
    assert data.closed


def test_the_map_is_closed_when_the_block_raises(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(boundary, "MAPPED_FROM_BYTES", 1)
    path = tmp_path / "big.jsonl"
    path.write_bytes(CONTENT)
    kept: list[Any] = []
    with pytest.raises(KeyError), read_mapped(path) as data:
        kept.append(data)
        raise KeyError
    assert kept[0].closed


@pytest.mark.parametrize("change", [b"more", None])
def test_a_file_changed_while_read_is_read_again_as_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: bytes | None) -> None:
    """A writer appends to (or truncates) the file after its size was taken: the map
    would hold a wrong copy, so the file is read again as it now is."""
    monkeypatch.setattr(boundary, "MAPPED_FROM_BYTES", 1)
    path = tmp_path / "big.jsonl"
    path.write_bytes(CONTENT)
    maps: list[mmap.mmap] = []
    real_mmap = mmap.mmap

    def mapped_then_changed(*args: Any) -> mmap.mmap:
        maps.append(real_mmap(*args))
        if change is None:
            path.write_bytes(CONTENT[:100])
        else:
            with path.open("ab") as handle:
                handle.write(change)
        return maps[-1]

    monkeypatch.setattr(boundary.mmap, "mmap", mapped_then_changed)  # the module's own
    with read_mapped(path) as data:
        assert type(data) is bytes
        assert data == (CONTENT[:100] if change is None else CONTENT + change)
    assert maps[0].closed


def test_the_door_checks_come_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(boundary, "MAPPED_FROM_BYTES", 1)
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(CONTENT)
    project = tmp_path / "project"
    project.mkdir()
    (project / "link.jsonl").symlink_to(outside)
    with pytest.raises(InputError, match="outside the project"), \
            read_mapped(project / "link.jsonl", root=project):
        pass
    with pytest.raises(InputError, match="at most 10 are read"), \
            read_mapped(outside, limit=10):
        pass
