"""The one exception type for bad input.

Every reader raises :class:`InputError` carrying where the problem is (file, line, key)
and what was expected. The CLI prints ``str(error)`` as one line (control characters an
input put in a message are escaped) and exits with status 2; the GUI shows the same text
in a dialog. Keeping one type keeps one error path.
"""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Input that Accord cannot use, with the place and the expectation spelled out."""

    def __init__(
        self,
        problem: str,
        *,
        file: Path | str | None = None,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.problem = problem
        self.file = str(file) if file is not None else None
        self.line = line
        self.key = key
        super().__init__(self._compose())

    def _compose(self) -> str:
        return _one_line(self._where_and_what())

    def _where_and_what(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
        if self.key is not None:
            where = f"{where}: key '{self.key}'" if where else f"key '{self.key}'"
        return f"{where}: {self.problem}" if where else self.problem


def _one_line(text: str) -> str:
    """The message on one line, whatever the input put in it (a label, a key or a
    database's own words holding a newline): line breaks and other control characters
    are shown as escapes, so the CLI's one stderr line stays one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)


class RejectedAnswerError(InputError):
    """One object of one answer is unusable (a negative size, a zero quaternion, a reversed
    segment, mask runs that do not cover the image).

    The reader leaves that whole answer out (a partly read answer would show as a false
    disagreement), records the message, and goes on: the rest of the project is still
    reported, and the report counts what was rejected.
    """
