"""Region caption agreement (``region_caption``, ``kinds.md`` B §2.11, A.6).

Units: per item the first annotator (sorted ids) anchors the regions; every other
annotator's regions are matched one-to-one to the anchor's at similarity ≥ 0.5
(Potato's rule: the most matches, then the highest total), and a matched region's
caption joins the anchor region's unit. Unmatched regions are counted, not scored.

α is Krippendorff's α over ``(annotator, unit, caption)`` with the **token distance**
δ = 1 − Jaccard of the captions' lowercase ``[a-z0-9']+`` tokens without 20 stop words
(two captions without tokens: 0), and ``mean_pairwise_distance`` the raw mean δ over
every pair of captions in a unit (not chance-corrected: the two together explain a
corpus of near-identical captions, whose α can be undefined).

The embedding distance (``agreement_distance: embedding``) needs a sentence-transformers
model download; Accord works offline, so it is refused with that sentence (A.6) and no
caption metric is computed for that scheme, rather than silently falling back to tokens
as Potato does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.vlm.common import Row, coefficient, long_alpha, match_one_to_one
from app.core.agreement.vlm.reading import Caption

METRICS = ("alpha", "mean_pairwise_distance", "matching.n_matched_regions",
           "matching.n_unmatched_regions")
MATCH_IOU = 0.5
STOPWORDS = frozenset((
    "a", "an", "the", "of", "is", "are", "was", "were", "be", "being", "been", "and", "or",
    "to", "it", "its", "this", "that", "these", "those"))
TOKEN = re.compile(r"[a-z0-9']+")
EMBEDDING_REFUSED = (
    "this scheme asks for the embedding distance (agreement_distance: embedding), which "
    "needs a sentence-transformers model download; Accord works offline and computes no "
    "caption agreement with it. Set agreement_distance: token (or remove it) to score "
    "the captions by their words.")
FEW = "fewer than two annotators wrote a caption on a shared region, so there is nothing " \
    "to compare"


def tokens(text: str) -> frozenset[str]:
    return frozenset(t for t in TOKEN.findall(text.lower()) if t not in STOPWORDS)


def token_distance(a: str, b: str) -> float:
    left, right = tokens(a), tokens(b)
    union = left | right
    if not union:
        return 0.0
    return 1.0 - len(left & right) / len(union)


@dataclass(slots=True)
class CaptionAgreement:
    metrics: dict[str, Coefficient] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    units: dict[str, dict[str, str]] = field(default_factory=dict)
    """unit (``item::anchor index``) → annotator → caption."""
    potato: dict[str, float | None] = field(default_factory=dict)
    """With the embedding distance refused: Potato 2.12.1's own numbers for the scheme
    (it falls back to the token distance without sentence-transformers)."""
    notes: list[str] = field(default_factory=list)


def caption_rows(answers: Mapping[str, Mapping[str, Sequence[Caption]]]
                 ) -> tuple[list[Row], int, int]:
    from app.core.agreement.vlm.grounding import shape_similarity

    rows: list[Row] = []
    matched = unmatched = 0
    for item in answers:
        by = answers[item]
        names = sorted(by)
        if len(names) < 2:
            continue
        anchor = list(by[names[0]])
        for k, entry in enumerate(anchor):
            if entry.text.strip():
                rows.append((names[0], f"{item}::{k}", entry.text))
        for other in names[1:]:
            mine = list(by[other])
            if not anchor or not mine:
                unmatched += len(anchor) + len(mine)
                continue
            scores = np.array([[0.0 if a.region is None or b.region is None
                                else shape_similarity(a.region, b.region) for b in mine]
                               for a in anchor], dtype=np.float64)
            pairs = match_one_to_one(scores, MATCH_IOU)
            matched += len(pairs)
            unmatched += len(anchor) + len(mine) - 2 * len(pairs)
            for k, j, _ in pairs:
                if mine[j].text.strip():
                    rows.append((other, f"{item}::{k}", mine[j].text))
    return rows, matched, unmatched


def caption_agreement(answers: Mapping[str, Mapping[str, Sequence[Caption]]],
                      distance: str = "token") -> CaptionAgreement:
    out = CaptionAgreement()
    rows, matched, unmatched = caption_rows(answers)
    out.metrics["matching.n_matched_regions"] = Coefficient.of(matched)
    out.metrics["matching.n_unmatched_regions"] = Coefficient.of(unmatched)
    for annotator, unit, text in rows:
        out.units.setdefault(unit, {})[annotator] = text
    out.counts = {"n_captions": len(rows), "n_units": len(out.units),
                  "n_annotators": len({a for a, _, _ in rows})}
    if distance == "embedding":
        token = caption_agreement(answers, "token").metrics
        out.potato = {"alpha": token["alpha"].value,
                      "mean_pairwise_distance": token["mean_pairwise_distance"].value}
        out.notes.append("Potato 2.12.1 scores an embedding scheme with the token distance "
                         "when sentence-transformers is not installed (a lower bound on "
                         "semantic agreement); its numbers are under potato_iaa.")
        for name in ("alpha", "mean_pairwise_distance"):
            out.metrics[name] = Coefficient.undefined(EMBEDDING_REFUSED)
        return out
    if len(rows) < 2 or out.counts["n_annotators"] < 2:
        out.metrics["alpha"] = Coefficient.undefined(FEW)
        out.metrics["mean_pairwise_distance"] = Coefficient.undefined(FEW)
        return out
    out.metrics["alpha"] = long_alpha(rows, token_distance)
    by_unit: dict[str, list[str]] = {}
    for _, unit, text in rows:
        by_unit.setdefault(unit, []).append(text)
    d = [token_distance(x, y) for texts in by_unit.values()
         for x, y in combinations(texts, 2)]
    out.metrics["mean_pairwise_distance"] = coefficient(
        sum(d) / len(d) if d else None, "no region has captions from two annotators")
    return out
