"""A text file of the project, read whole as UTF-8: the entry for plain text.

Every failure becomes one :class:`~app.core.errors.InputError` naming the file and what
was expected. The file is opened through :mod:`.boundary` (inside the project, a
regular file, bounded in size); the JSON and YAML entries (:mod:`.json_file`,
:mod:`.yaml_file`) read their text here.
"""

from __future__ import annotations

from pathlib import Path

from app.core.errors import InputError
from app.core.formats.reading.boundary import read_bytes


def read_text(path: Path, expected: str, *, root: Path | None = None) -> str:
    """The file's UTF-8 text (through the boundary: inside ``root``, default the file's
    folder; regular; bounded); a missing or unreadable file is one clear error."""
    data = read_bytes(path, root=root)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start + 1}); expected {expected}",
                         file=path) from exc
