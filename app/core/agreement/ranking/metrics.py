"""Reading a ranking and comparing two, as Potato 2.12.1 does (``iaa/ranking.py``).

- Stored ``{"rank_order": "A,B,C"}`` (the widget joins its order with commas, best
  first): split on commas, blanks dropped. A label holding a comma cannot be told apart,
  as in Potato. No order (nothing stored, or an empty one) is no answer.
- Two rankings are compared on the options both contain (a repeat in the first is
  dropped), each re-ranked within those, so an option one annotator left out shifts
  nobody.
- ``kendall_tau``: (concordant − discordant) / C(n, 2) over the shared options (no ties
  can occur, so this is τ-a = τ-b, scipy's number). ``spearman_footrule``: Σ|posA − posB|
  / ⌊n²/2⌋, a distance (0 identical, 1 reversed). Fewer than two shared options is
  undefined, with a sentence naming the options.
- The scheme's numbers are the mean over every (annotator pair, shared item).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.continuous.block import Block
from app.core.agreement.continuous.pairs import Entries, Rows, annotator_count, pair_item_mean
from app.core.agreement.continuous.reading import grouped

Ranking = tuple[str, ...]


def read_ranking(entries: Entries) -> Ranking | None:
    raw: Any = grouped(entries).get("rank_order")
    if raw is None:
        return None
    if isinstance(raw, list | tuple):
        parts = [str(v).strip() for v in raw]
    else:
        parts = [p.strip() for p in str(raw).split(",")]
    order = tuple(p for p in parts if p)
    return order or None


def shared_positions(a: Sequence[str], b: Sequence[str]) -> tuple[list[str], list[int]]:
    """The shared options in ``a``'s order and their re-ranked positions in ``b``."""
    pos_b = {option: i for i, option in enumerate(b)}
    shared = [option for option in dict.fromkeys(a) if option in pos_b]
    rank_b = {option: i for i, option in enumerate(sorted(shared, key=pos_b.__getitem__))}
    return shared, [rank_b[option] for option in shared]


def _too_few(shared: list[str]) -> Coefficient:
    if not shared:
        return Coefficient.undefined("the two rankings share no option")
    return Coefficient.undefined(
        f"the two rankings share only one option ({shared[0]}); an order needs two")


def kendall_tau(a: Sequence[str], b: Sequence[str]) -> Coefficient:
    shared, pos_b = shared_positions(a, b)
    n = len(shared)
    if n < 2:
        return _too_few(shared)
    score = sum(1 if pos_b[i] < pos_b[j] else -1 for i, j in combinations(range(n), 2))
    return Coefficient.of(score / (n * (n - 1) / 2))


def spearman_footrule(a: Sequence[str], b: Sequence[str]) -> Coefficient:
    shared, pos_b = shared_positions(a, b)
    n = len(shared)
    if n < 2:
        return _too_few(shared)
    return Coefficient.of(sum(abs(i - p) for i, p in enumerate(pos_b)) / ((n * n) // 2))


def ranking_block(rows: Rows[Ranking]) -> Block:
    return Block(
        metrics={"kendall_tau": pair_item_mean(rows, kendall_tau),
                 "spearman_footrule": pair_item_mean(rows, spearman_footrule)},
        counts={"n_items": len(rows), "n_annotators": annotator_count(rows)},
    )

