"""Token-level κ and ``char_alpha`` per item, over the characters' BIO tags.

Potato 2.12.1's formulas (``iaa/span.py`` ``token_level_kappa``, ``krippendorff_alpha_u``;
``kinds.md`` B §2.6), computed from counts instead of per character:

- **token_level_kappa**: the unit is one character, the category its BIO tag (B-X and I-X
  distinct). Two members: Cohen's κ, (pₒ − pₑ)/(1 − pₑ) with pₑ = Σ_c p_A(c)·p_B(c);
  undefined when both members give every character one and the same tag (pₑ = 1;
  scikit-learn, which Potato calls, returns NaN there). Three or more: Fleiss' κ with
  P̄ = the share of agreeing member pairs over all characters and pₑ = Σ_c p_c² of the
  pooled tags; undefined when pₑ is 1 (within 1e-9, Potato's ``math.isclose``).
- **char_alpha** (Potato's ``krippendorff_alpha_u``): Krippendorff's nominal α over
  (member, character) with the tag's label (B-X and I-X both X, or O). It is *not*
  Krippendorff's unitizing α (uα): the units are the fixed characters, not the spans, so
  a boundary moved by one character costs one character. Every member rates every
  character, so with m members, n = m·L values and n_c values of label c:
  α = 1 − (n − 1)·(m·L − 2·A/(m − 1)) / Σ_c n_c (n − n_c), A = agreeing member pairs
  summed over characters. Undefined when L < 2 (Potato needs two units) or every value
  is one label (no expected disagreement).

Agreement counts are taken pair by pair of members, in chunks of about
:data:`CHUNK_CHARS` characters so a large study never holds more than that many indices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.agreement.spans.char_tags import (
    CHUNK_CHARS,
    CharTags,
    base_codes,
    member_code_counts,
)
from app.core.agreement.spans.table import SpanTable, pair_members


@dataclass(frozen=True)
class PairAgreement:
    """Per member pair (combinations order within each item): its item and how many
    characters carry equal tags (``tags``) and equal labels (``labels``)."""

    item: np.ndarray
    tags: np.ndarray
    labels: np.ndarray


def pair_agreement(table: SpanTable, tags: CharTags) -> PairAgreement:
    item, a, b = pair_members(table)
    length = table.lengths[item]
    same_tag = np.zeros(len(item), dtype=np.int64)
    same_label = np.zeros(len(item), dtype=np.int64)
    lo = 0
    cum = np.cumsum(length)
    while lo < len(item):
        base = cum[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(cum, base + CHUNK_CHARS, side="right")))
        sl = slice(lo, hi)
        n = length[sl]
        offsets = np.zeros(len(n), dtype=np.int64)
        np.cumsum(n[:-1], out=offsets[1:])
        seg = np.repeat(np.arange(len(n)), n)
        pos = np.arange(int(n.sum()), dtype=np.int64) - offsets[seg]
        ta = tags.codes[tags.row_start[a[sl]][seg] + pos]
        tb = tags.codes[tags.row_start[b[sl]][seg] + pos]
        same_tag[sl] = np.add.reduceat(ta == tb, offsets)
        same_label[sl] = np.add.reduceat(base_codes(ta) == base_codes(tb), offsets)
        lo = hi
    return PairAgreement(item, same_tag, same_label)


def token_kappa(table: SpanTable, tags: CharTags, agree: PairAgreement
                ) -> np.ndarray:
    """token_level_kappa per item (NaN where undefined)."""
    m = table.members_per_item
    length = table.lengths.astype(np.float64)
    counts = member_code_counts(tags, table).astype(np.float64)
    out = np.full(table.n_items, np.nan)
    agreeing = np.bincount(agree.item, weights=agree.tags, minlength=table.n_items)

    two = np.flatnonzero(m == 2)
    if len(two):
        first = table.member_offsets[two]
        ca, cb = counts[first], counts[first + 1]
        big_l = length[two]
        po = agreeing[two] / big_l
        pe = (ca * cb).sum(axis=1) / (big_l * big_l)
        single = ((ca == big_l[:, None]) & (cb == big_l[:, None])).any(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (po - pe) / (1.0 - pe)
        out[two] = np.where(single, np.nan, kappa)

    many = np.flatnonzero(m >= 3)
    if len(many):
        pooled = np.add.reduceat(counts, table.member_offsets[:-1], axis=0)[many]
        mm = m[many].astype(np.float64)
        big_l = length[many]
        p_bar = agreeing[many] / (big_l * mm * (mm - 1) / 2)
        p = pooled / (big_l * mm)[:, None]
        pe = (p * p).sum(axis=1)
        undefined = np.abs(pe - 1.0) <= 1e-9 * np.maximum(np.abs(pe), 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (p_bar - pe) / (1.0 - pe)
        out[many] = np.where(undefined, np.nan, kappa)
    return out


def char_alpha(table: SpanTable, tags: CharTags, agree: PairAgreement) -> np.ndarray:
    """Potato's ``krippendorff_alpha_u`` (nominal α over characters) per item."""
    m = table.members_per_item.astype(np.float64)
    length = table.lengths.astype(np.float64)
    n_labels = len(table.labels) + 1
    counts = member_code_counts(tags, table, base_codes(tags.codes), n_labels)
    pooled = np.add.reduceat(counts.astype(np.float64), table.member_offsets[:-1], axis=0)
    agreeing = np.bincount(agree.item, weights=agree.labels, minlength=table.n_items)
    n = m * length
    observed = n - 2.0 * agreeing / (m - 1.0)
    expected = (pooled * (n[:, None] - pooled)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n - 1.0) * observed / expected
    return np.where((table.lengths < 2) | (expected == 0), np.nan, alpha)
