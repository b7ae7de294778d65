"""Reading files safely: paths that stay inside the project, JSON and YAML with places.

Every failure becomes one :class:`~app.core.errors.InputError` naming the file, the line
(where the parser knows it) and what was expected. Nothing here writes. Every file is
opened through :mod:`app.core.formats.boundary` (inside the project, a regular file,
bounded in size) and parsed within :mod:`app.core.formats.nesting`'s bounds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from app.core.errors import InputError
from app.core.formats import nesting
from app.core.formats.boundary import read_bytes

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


def read_text(path: Path, expected: str, *, root: Path | None = None) -> str:
    """The file's UTF-8 text (through the boundary: inside ``root``, default the file's
    folder; regular; bounded); a missing or unreadable file is one clear error."""
    data = read_bytes(path, root=root)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start + 1}); expected {expected}",
                         file=path) from exc


def yaml_error(path: Path, exc: yaml.YAMLError, text: str | None = None
               ) -> InputError:
    """A YAML syntax error as one message naming the file and the line that is broken.

    PyYAML marks where it *noticed* the problem, which for an unclosed quote is where the
    next quote happens to be, often far below. So the line named is, in order: the first
    line before that mark that opens a quoted string it does not close
    (:func:`_unclosed_quote`); else the start of the construct PyYAML was reading (its
    context mark); else its problem mark.
    """
    if isinstance(exc, nesting.YAMLLimitError):
        return InputError(exc.problem, file=path, line=exc.line)
    mark = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    noticed = mark.line + 1 if mark is not None else None
    opened = _unclosed_quote(text, noticed) if text is not None else None
    if opened is not None:
        return InputError("malformed YAML: a quoted string opens on this line and is not "
                          f"closed on it (PyYAML: {problem}, at line {noticed})", file=path,
                          line=opened)
    if context is not None and noticed is not None and context.line + 1 < noticed:
        what = getattr(exc, "context", None) or "reading the value"
        return InputError(f"malformed YAML: {problem} ({what} that starts on this line; "
                          f"noticed at line {noticed})", file=path, line=context.line + 1)
    return InputError(f"malformed YAML: {problem}", file=path, line=noticed)


def _unclosed_quote(text: str, before: int | None) -> int | None:
    """The first line (1-based, before line ``before``) whose value opens a double- or
    single-quoted string and does not close it there; ``None`` if none does."""
    for number, line in enumerate(text.splitlines()[: (before or 0) - 1], start=1):
        stripped = line.split(" #", 1)[0].strip()
        if not stripped or stripped.startswith("#"):
            continue
        _, sep, value = stripped.partition(": ")
        value = (value if sep else stripped.lstrip("- ")).strip()
        for quote in ('"', "'"):
            if value.startswith(quote) and (len(value) == 1 or not value.endswith(quote)
                                            or value.endswith("\\" + quote)):
                return number
    return None


def read_yaml(path: Path, *, root: Path | None = None) -> Any:
    """A YAML file as ``yaml.safe_load`` reads it, within :mod:`~app.core.formats.nesting`'s
    bounds (depth, aliases)."""
    text = read_text(path, "UTF-8 YAML", root=root)
    try:  # the loader's constructor already refuses unprintable characters
        loader = nesting.BoundedLoader(text)
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from exc
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from exc
    finally:
        loader.dispose()


def read_json(path: Path, *, root: Path | None = None) -> Any:
    """Parse a whole JSON file; a syntax error names its line."""
    data = read_bytes(path, root=root)
    try:
        return nesting.loads(data, file=path)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", file=path,
                         line=exc.lineno) from exc
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text; expected a JSON file", file=path) from exc


def parse_json_text(text: str, *, file: Path, key: str, expected: str) -> Any:
    """Parse a JSON value stored as a string inside another file (Potato's answers)."""
    try:
        return nesting.loads(text, file=file, key=key)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"the stored answer is not valid JSON ({exc.msg} at character {exc.pos}); "
            f"expected {expected}", file=file, key=key) from exc
