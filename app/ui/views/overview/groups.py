"""The metric groups of a grounding, caption, episode or rollout card (``kinds.md`` B
§2.9-2.12): one table per group, because each group is a different question with a
different fix ("is it there" vs "where"; phases vs outcome vs reward), and one list
sorted by chance correction would mix them. The other kinds keep the chance-corrected /
not chance-corrected split (``view.py``).

A group's title says which of its numbers are chance-corrected; the rest are not.
"""

from __future__ import annotations

from app.core.agreement.result import SchemeResult
from app.ui.views.metric_text import CORRECTED, metric_label

GROUPS: dict[str, tuple[tuple[str, str], ...]] = {
    "grounding": (("detection", "Detection: is the referent there?"),
                  ("localization", "Localization: where is it? (IoU)"),
                  ("pointing", "Pointing: how far apart? (image units)"),
                  ("coverage", "Coverage: answered expressions")),
    "captions": (("", "Captions of matched regions (token distance)"),
                 ("matching", "Region matching (IoU ≥ 0.5 to the first annotator's)")),
    "episodes": (("phases", "Phases: what, when (temporal IoU 0.5)"),
                 ("outcome", "Outcome: did it work?"),
                 ("reward", "Reward curve: how well, over time")),
    "rollouts": (("detection", "Detection: does it break? (0.5 s window)"),
                 ("localization", "Localization: when? (seconds)"),
                 ("category", "Category: why?"), ("severity", "Severity: how badly?"),
                 ("preference", "Preference: which rollout?"),
                 ("counterfactual", "Counterfactual verdict"),
                 ("coverage", "Coverage: answered streams")),
}


def metric_groups(result: SchemeResult) -> list[tuple[str, list[str]]] | None:
    """``(title, metric names)`` per group present, or ``None`` for a kind without
    groups."""
    groups = GROUPS.get(result.kind or "")
    if groups is None:
        return None
    out: list[tuple[str, list[str]]] = []
    for prefix, title in groups:
        keys = [k for k in result.metrics
                if (k.split(".", 1)[0] == prefix if prefix else "." not in k)]
        if not keys:
            continue
        corrected = [metric_label(k, result.kind) for k in keys if k in CORRECTED]
        if corrected:
            title = f"{title} · chance-corrected: {', '.join(corrected)}"
        out.append((title, keys))
    return out
