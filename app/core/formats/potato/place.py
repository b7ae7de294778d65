"""Where a Potato answer was read, for error messages; and shared label strings.

Every parser raises through :meth:`Place.error`, so a message always names the file,
the annotator, the item, the scheme and (for geometry) the object. An error that names
an object is a :class:`~app.core.errors.RejectedAnswerError`: the reader leaves that one
answer out and goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.errors import InputError, RejectedAnswerError


@dataclass(slots=True)
class Place:
    """Where an answer was read, for error messages."""

    file: Path
    item: str
    scheme: str
    annotator: str

    @property
    def key(self) -> str:
        return f"instance_id_to_label_to_value.{self.item}.{self.scheme}"

    def error(self, problem: str, obj: int | None = None) -> InputError:
        what = f"annotator '{self.annotator}', item '{self.item}', scheme '{self.scheme}'"
        if obj is not None:
            return RejectedAnswerError(f"{what}, object {obj}: {problem}", file=self.file,
                                  key=self.key)
        return InputError(f"{what}: {problem}", file=self.file, key=self.key)


_interned: dict[str, str] = {}


def sys_intern(text: str) -> str:
    """Share one string object per label across a study (100,000 items × 10 people)."""
    return _interned.setdefault(text, text)
