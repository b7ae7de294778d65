"""``boundary.read_mapped``: the bytes ``read_bytes`` gives, a big file's in a memory map
that is closed when the block is left; the same checks at the door."""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

import pytest

from app.core.errors import InputError
from app.core.formats.reading import boundary
from app.core.formats.reading.boundary import read_bytes, read_mapped

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

    def mapped_then_changed(*args: Any, **kwargs: Any) -> mmap.mmap:
        maps.append(real_mmap(*args, **kwargs))
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


def test_the_map_is_private_and_given_back_in_pieces(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages go back a piece at a time before the map is closed, every byte of it
    once; the map is a private one (a shared anonymous map is a shared-memory file)."""
    monkeypatch.setattr(boundary, "MAPPED_FROM_BYTES", 1)
    monkeypatch.setattr(boundary, "RELEASE_BYTES", 4096)
    path = tmp_path / "big.jsonl"
    path.write_bytes(CONTENT)
    made: list[dict[str, Any]] = []
    advised: list[tuple[int, int, int]] = []
    real_mmap = mmap.mmap

    class Recorded(real_mmap):  # type: ignore[misc, valid-type]
        def madvise(self, option: int, start: int = 0, length: int = 0) -> None:
            assert not self.closed
            advised.append((option, start, length))
            super().madvise(option, start, length)

    def recorded(*args: Any, **kwargs: Any) -> mmap.mmap:
        made.append(kwargs)
        return Recorded(*args, **kwargs)

    monkeypatch.setattr(boundary.mmap, "mmap", recorded)
    with read_mapped(path) as data:
        assert data[:] == CONTENT
    assert data.closed
    if not hasattr(mmap, "MAP_PRIVATE"):
        pytest.skip("Windows: anonymous maps are private and have no madvise")
    assert made == [{"flags": mmap.MAP_PRIVATE}]
    assert {option for option, _, _ in advised} == {mmap.MADV_DONTNEED}
    covered = [(start, length) for _, start, length in advised]
    assert covered == [(s, min(4096, len(CONTENT) - s)) for s in range(0, len(CONTENT), 4096)]
