"""engine.sqlite's own size bound: above the 512 MiB of files parsed whole (a million-item
database is about 600 MB), still bounded (sparse files, nothing is read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.formats.potato.engine.store import MAX_DATABASE_BYTES, engine_database
from app.core.formats.reading.boundary import MAX_FILE_BYTES


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def test_a_database_over_the_parsing_bound_is_opened(tmp_path: Path) -> None:
    _sparse(tmp_path / "engine.sqlite", MAX_FILE_BYTES + 1)
    assert engine_database(tmp_path) == tmp_path / "engine.sqlite"


def test_a_database_over_its_own_bound_is_refused(tmp_path: Path) -> None:
    _sparse(tmp_path / "engine.sqlite", MAX_DATABASE_BYTES + 1)
    with pytest.raises(InputError, match="4096 MiB"):
        engine_database(tmp_path)
