"""The trace cells' colours, ordered by how bad a label is (issue 35).

Why: the cells were tinted by the label's position in the scheme's list, so with
Potato's usual ``correctness_options: [correct, incorrect, partially_correct]`` the
third, "partially correct", got the Tableau red and "incorrect" a softer orange: the
worse label looked milder. Here a label's colour follows its severity on the palette's
red-to-blue agreement scale (:func:`app.ui.palette.heat_fill`): good is blue, partly
good a light red, bad the deepest red, neutral grey, so darker red is always worse.

Which words mean what (a choice; the spec is silent; case, spaces and dashes ignored):

- good: correct, right, yes, success, good, pass, valid, 1, +1 (a process reward);
- partly good: any label with "partial" or "partly" in it, and "mixed";
- bad: incorrect, wrong, no, failure, fail, bad, invalid, error, -1;
- neutral: 0, neutral, unsure, unknown.

Any other label keeps a categorical colour (``palette.label_fill``, by its position
among such labels), and the legend lists the graded labels first, good to bad.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QColor

from app.ui.palette import heat_fill, label_fill

GOOD, PARTLY, BAD, NEUTRAL = 0, 1, 2, 3
_WORDS = {
    GOOD: {"correct", "right", "yes", "success", "good", "pass", "valid", "1", "+1"},
    BAD: {"incorrect", "wrong", "no", "failure", "fail", "bad", "invalid", "error", "-1"},
    NEUTRAL: {"0", "neutral", "unsure", "unknown"},
}
_SHADE = {GOOD: 0.95, PARTLY: 0.3, BAD: 0.0}
"""Where each grade sits on the red (0) to blue (1) scale."""
NEUTRAL_FILL = QColor("#E4E4E4")


def severity(label: str) -> int | None:
    """The label's grade (:data:`GOOD` … :data:`NEUTRAL`), or ``None`` for a label the
    rule does not know."""
    word = label.strip().lower().replace("-", "_").replace(" ", "_")
    if word in ("_1", "−1"):
        word = "-1"
    if "partial" in word or "partly" in word or word == "mixed":
        return PARTLY
    plain = word.replace("_", "") if word not in ("-1",) else word
    for grade, words in _WORDS.items():
        if word in words or plain in words:
            return grade
    return None


def label_fills(labels: Sequence[str]) -> dict[str, QColor]:
    """A background per label: graded labels by severity, the others categorical."""
    out: dict[str, QColor] = {}
    others = 0
    for label in labels:
        grade = severity(label)
        if grade == NEUTRAL:
            out[label] = NEUTRAL_FILL
        elif grade is not None:
            out[label] = heat_fill(_SHADE[grade], 0.55)
        else:
            out[label] = label_fill(others)
            others += 1
    return out


def legend_order(labels: Sequence[str]) -> list[str]:
    """Graded labels good to bad (then neutral), then the others in their order."""
    graded = sorted((lab for lab in labels if severity(lab) is not None),
                    key=lambda lab: (severity(lab), labels.index(lab)))
    return graded + [lab for lab in labels if severity(lab) is None]
