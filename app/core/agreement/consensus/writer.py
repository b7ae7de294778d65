"""Writing a consensus export: JSON Lines, atomically, never into the project.

One JSON object per line, UTF-8, keys in the order the rows were built (``item``,
``scheme``, ``kind`` first), no NaN (``allow_nan=False``: undefined is ``null`` with a
sentence). The whole file is built in memory and replaces the target in one
:func:`app.core.atomic.write_atomically`: a reader sees the previous file or the new
one, never half of it, and a failed export leaves no partial file.

The target is checked before any work is done (:func:`check_output`): the name must end
in ``.jsonl``, must not be a folder, and must lie **outside the project folder**, since
Accord never writes into a project (the GUI watches it and would reload on every write,
and Potato owns its files).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.core.atomic import write_atomically
from app.core.errors import InputError

SUFFIX = ".jsonl"


def check_output(path: Path, project: Path, key: str | None = "--consensus") -> None:
    """Refuse a target Accord must not write (see the module); nothing is written."""
    if path.suffix.lower() != SUFFIX:
        raise InputError(
            f"expected a JSON Lines file name ending in {SUFFIX}, found '{path}'", key=key
        )
    if path.is_dir():
        raise InputError(f"'{path}' is a folder; expected a file name ending in {SUFFIX}", key=key)
    try:
        inside = path.resolve().is_relative_to(project.resolve())
    except OSError:
        inside = False
    if inside:
        raise InputError(
            f"'{path}' is inside the project folder '{project}'; Accord "
            "never writes into a project: choose a path outside it",
            key=key,
        )


def to_jsonl(rows: Iterable[dict[str, Any]]) -> bytes:
    """The rows as JSON Lines (one object per line, a final newline)."""
    lines = [json.dumps(row, ensure_ascii=False, allow_nan=False) for row in rows]
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def write_consensus(rows: Iterable[dict[str, Any]], path: Path, project: Path) -> int:
    """Check ``path``, then replace it with the rows atomically; the bytes written."""
    check_output(path, project)
    data = to_jsonl(rows)
    try:
        write_atomically(path, data)
    except OSError as error:
        raise InputError(f"cannot write: {error.strerror or error}", file=path) from error
    return len(data)
