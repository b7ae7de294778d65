"""Paths written inside a project's files (a data file, a media key): they must stay inside it.

Why a module of its own: a path is checked where it is *named* (a key of ``config.yaml``,
a field of a data file), before any file is opened, so the message can name that file
and key; opening the file it leads to is :mod:`.boundary`'s check, made again.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.core.errors import InputError

NAME_MAX = 255
"""The longest name (bytes) of one folder or file that the file systems Accord runs on
accept; a longer one is an input error, not an ``OSError`` from the first ``stat``."""


def inside(root: Path, relative: str | Path, *, file: Path, key: str,
           base: Path | None = None) -> Path:
    """Resolve ``relative`` against ``base`` (default ``root``); refuse it outside ``root``.

    Symbolic links are resolved first, so a link pointing out of the project is refused
    as well. ``file`` and ``key`` name where the path was written, for the message.
    """
    text = str(relative)
    if not text.strip():
        raise InputError("expected a path, found an empty string", file=file, key=key)
    if "\0" in text:
        raise InputError("expected a path, found a string holding a NUL character",
                         file=file, key=key)
    too_long = next((part for part in Path(text).parts
                     if len(os.fsencode(part)) > NAME_MAX), None)
    if too_long is not None:
        raise InputError(f"the name '{too_long[:40]}…' is {len(os.fsencode(too_long))} bytes "
                         f"long; expected names of at most {NAME_MAX} bytes", file=file,
                         key=key)
    try:
        candidate = ((base or root) / text).resolve()
        base = root.resolve()
    except (OSError, RuntimeError) as exc:
        raise InputError(f"cannot follow the path '{text[:80]}' ({exc})", file=file,
                         key=key) from exc
    if candidate != base and base not in candidate.parents:
        raise InputError(
            f"path '{text}' leaves the project folder {base}; media and data must stay "
            "inside the project", file=file, key=key)
    return candidate
