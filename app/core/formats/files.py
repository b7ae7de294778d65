"""Reading files safely: paths that stay inside the project, JSON and YAML with places.

Every failure becomes one :class:`~app.core.errors.InputError` naming the file, the line
(where the parser knows it) and what was expected. Nothing here writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from app.core.errors import InputError


def inside(root: Path, relative: str | Path, *, file: Path, key: str,
           base: Path | None = None) -> Path:
    """Resolve ``relative`` against ``base`` (default ``root``); refuse it outside ``root``.

    Symbolic links are resolved first, so a link pointing out of the project is refused
    as well. ``file`` and ``key`` name where the path was written, for the message.
    """
    text = str(relative)
    if not text.strip():
        raise InputError("expected a path, found an empty string", file=file, key=key)
    candidate = ((base or root) / text).resolve()
    base = root.resolve()
    if candidate != base and base not in candidate.parents:
        raise InputError(
            f"path '{text}' leaves the project folder {base}; media and data must stay "
            "inside the project", file=file, key=key)
    return candidate


def read_text(path: Path, expected: str) -> str:
    """The file's UTF-8 text; a missing or unreadable file is one clear error."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError("file not found", file=path) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file ({exc}); expected {expected}",
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


def read_yaml(path: Path) -> Any:
    text = read_text(path, "UTF-8 YAML")
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise yaml_error(path, exc, text) from exc


def read_json(path: Path) -> Any:
    """Parse a whole JSON file; a syntax error names its line."""
    try:
        with path.open("rb") as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", file=path,
                         line=exc.lineno) from exc
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text; expected a JSON file", file=path) from exc
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc})", file=path) from exc


def parse_json_text(text: str, *, file: Path, key: str, expected: str) -> Any:
    """Parse a JSON value stored as a string inside another file (Potato's answers)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"the stored answer is not valid JSON ({exc.msg} at character {exc.pos}); "
            f"expected {expected}", file=file, key=key) from exc
