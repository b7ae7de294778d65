"""γ over many items at once (``items_gamma``, :mod:`gamma_batch`) equals γ item by item.

The reference is ``item_gamma``, the per-continuum path that tests/core/test_span_gamma.py
checks against pygamma-agreement and HiGHS; both draw the same chance samples, so every
number must agree to 1e-12 (only the order of additions differs) and the alignment of
spans must be one of the same disorder. Corpora: 2, 3 and 5 annotators, overlapping and
disjoint spans, annotators with no span, items without spans or text; the window DP,
the search for wide segments and the per-item fallback are each forced.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.core.agreement.spans import gamma as gamma_module
from app.core.agreement.spans import gamma_alignment, gamma_window
from app.core.agreement.spans.gamma import ItemGamma, item_gamma, items_gamma

Item = tuple[dict[str, list[tuple[float, float, str | None]]], float]


def random_item(rng: np.random.Generator, annotators: int, overlapping: bool) -> Item:
    """Gold spans (disjoint, or piled on each other) copied noisily by each annotator."""
    length = int(rng.integers(30, 300))
    gold = []
    at = 0
    for _ in range(int(rng.integers(0, 8))):
        at = int(rng.integers(0, length - 5)) if overlapping else at + int(rng.integers(2, 30))
        width = int(rng.integers(1, 15))
        gold.append((at, at + width, str(rng.choice(["A", "B", "C"]))))
        at += width
    spans: dict[str, list[tuple[float, float, str | None]]] = {}
    for a in range(annotators):
        mine: list[tuple[float, float, str | None]] = []
        if rng.random() >= 0.15:  # some annotators mark nothing
            for start, end, label in gold:
                if rng.random() < 0.2:
                    continue
                shift = int(rng.integers(-2, 3))
                mine.append((start + shift, max(start + shift + 1, end + int(rng.integers(-2, 3))),
                             label if rng.random() > 0.15 else "A"))
            if rng.random() < 0.3:
                x = int(rng.integers(0, length))
                mine.append((x, x + int(rng.integers(1, 9)), "B"))
        spans[f"r{a}"] = mine
    return spans, float(length)


def corpus(seed: int, annotators: int, overlapping: bool, size: int) -> list[Item]:
    rng = np.random.default_rng(seed)
    items = [random_item(rng, annotators, overlapping) for _ in range(size)]
    items.append(({f"r{a}": [] for a in range(annotators)}, 50.0))  # nobody marked
    items.append(({f"r{a}": [(1.0, 4.0, "A")] for a in range(annotators)}, 0.0))  # no text
    return items


def assert_same(batched: list[ItemGamma], alone: list[ItemGamma]) -> None:
    assert len(batched) == len(alone)
    for ours, ref in zip(batched, alone, strict=True):
        assert ours.reason == ref.reason
        for field in ("gamma", "observed_disorder", "chance_disorder"):
            a, b = getattr(ours, field), getattr(ref, field)
            assert (a is None) == (b is None), field
            if a is not None:
                assert math.isclose(a, b, rel_tol=0, abs_tol=1e-12), (field, a, b)
        for interval in ("chance_interval", "gamma_interval"):
            a, b = getattr(ours, interval), getattr(ref, interval)
            assert (a is None) == (b is None)
            if a is not None:
                assert a == pytest.approx(b, abs=1e-12)
        assert (ours.annotators, ours.n_units, ours.dropped_empty, ours.dropped_duplicates) == (
            ref.annotators, ref.n_units, ref.dropped_empty, ref.dropped_duplicates)
        # The alignment partitions the same spans (a tie may pick another of equal disorder).
        assert len(ours.alignment) > 0 or len(ref.alignment) == 0
        held = sorted((a, i) for row in ours.alignment for a, i in enumerate(row)
                      if i is not None)
        assert held == sorted((a, i) for row in ref.alignment for a, i in enumerate(row)
                              if i is not None)


@pytest.mark.parametrize(("annotators", "overlapping", "seed"),
                         [(2, False, 1), (2, True, 2), (3, False, 3), (3, True, 4),
                          (5, False, 5), (5, True, 6)])
def test_batched_equals_item_by_item(annotators: int, overlapping: bool, seed: int) -> None:
    items = corpus(seed, annotators, overlapping, 12 if annotators == 5 else 25)
    alone = [item_gamma(spans, length) for spans, length in items]
    assert any(g.gamma is not None for g in alone)
    assert_same(items_gamma(items, batch_items=7), alone)


def test_mixed_annotator_counts_keep_the_input_order() -> None:
    items = corpus(7, 2, False, 6) + corpus(8, 3, True, 6) + corpus(9, 4, False, 4)
    items = [items[k] for k in np.random.default_rng(0).permutation(len(items))]
    assert_same(items_gamma(items, seed=99, n_samples=5),
                [item_gamma(s, n, seed=99, n_samples=5) for s, n in items])


def test_search_and_fallback_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wide segments through the search (the window DP capped at 1 place), then every
    segment refused by the search (the items go the per-item way, HiGHS)."""
    items = corpus(10, 3, True, 10)
    alone = [item_gamma(spans, length) for spans, length in items]
    monkeypatch.setattr(gamma_window, "MAX_WINDOW", 1)
    assert_same(items_gamma(items), alone)
    calls: list[int] = []
    original = gamma_module._aligned

    def counted(item: gamma_module._Prepared) -> ItemGamma:
        calls.append(1)
        return original(item)

    monkeypatch.setattr(gamma_module, "_aligned", counted)
    monkeypatch.setattr(gamma_window, "_search", lambda *_: None)
    assert_same(items_gamma(items), alone)
    assert calls  # the fallback really ran


def test_a_batch_too_large_falls_back_item_by_item(monkeypatch: pytest.MonkeyPatch) -> None:
    items = corpus(11, 3, False, 8)
    alone = [item_gamma(spans, length) for spans, length in items]

    def too_large(*_: object) -> object:
        raise gamma_alignment.AlignmentTooLargeError([], "is too large in this test")

    monkeypatch.setattr(gamma_module, "batch_alignments", too_large)
    assert_same(items_gamma(items), alone)


def test_pivot_draws_as_numpys_choice_and_uniform() -> None:
    """The sampler's pivot (pure Python arithmetic) takes the same draws as the numpy
    calls it replaces: ``choice(k, p=widths / sum)`` then ``uniform(start, end)``."""
    from app.core.agreement.spans.gamma_chance import _pivot

    def reference(stretches: list[tuple[float, float]], length: float,
                  rng: np.random.Generator) -> float:
        if not stretches:
            return float(rng.uniform(0.0, length))
        widths = np.array([e - s for s, e in stretches])
        chosen = int(rng.choice(len(stretches), p=widths / widths.sum()))
        return float(int(rng.uniform(*stretches[chosen])))

    rng = np.random.default_rng(12)
    for _ in range(20_000):
        k = int(rng.integers(0, 10))
        cuts = np.sort(rng.uniform(0, 900, 2 * k) if rng.random() < 0.5
                       else rng.integers(0, 900, 2 * k).astype(float))
        stretches = [(float(cuts[2 * i]), float(cuts[2 * i + 1])) for i in range(k)
                     if cuts[2 * i + 1] > cuts[2 * i]]
        seed = int(rng.integers(1 << 31))
        ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
        assert _pivot(stretches, 950.0, ours) == reference(stretches, 950.0, theirs)
        assert ours.random() == theirs.random()  # as many draws taken


def test_shuffle_samples_are_the_one_by_one_samples() -> None:
    """All samples drawn first then shifted in one pass: the same continua as the
    one-sample-at-a-time loop (written out here with numpy's own calls) on random units."""
    from app.core.agreement.spans.gamma_alignment import Units
    from app.core.agreement.spans.gamma_chance import _subtract, shuffle_samples

    def one_by_one(units: list[Units], length: float, rng: np.random.Generator
                   ) -> list[Units]:
        ends = np.concatenate([u.ends for u in units])
        spacing = float(np.mean(ends - np.concatenate([u.starts for u in units]))) / 2.0
        length = max(length, float(ends.max()))
        while True:
            stretches, sample = [(0.0, length)], []
            for _ in units:
                if stretches:
                    widths = np.array([e - s for s, e in stretches])
                    start, end = stretches[int(rng.choice(len(stretches),
                                                          p=widths / widths.sum()))]
                    pivot = float(int(rng.uniform(start, end)))
                    stretches = _subtract(stretches, pivot - spacing, pivot + spacing)
                else:
                    pivot = float(rng.uniform(0.0, length))
                source = units[int(rng.integers(len(units)))]
                shift = np.where(source.starts + pivot > length, pivot - length, pivot)
                sample.append(Units(source.starts + shift, source.ends + shift, source.labels))
            if any(len(u) for u in sample):
                return sample

    rng = np.random.default_rng(21)
    for _ in range(300):
        n = int(rng.integers(2, 6))
        units = []
        for _a in range(n):
            k = int(rng.integers(0, 6)) if rng.random() < 0.7 else 0
            starts = np.sort(rng.integers(0, 200, k)).astype(float)
            units.append(Units(starts, starts + rng.integers(1, 20, k), rng.integers(0, 3, k)))
        if not any(len(u) for u in units):
            continue
        length, seed, count = float(rng.integers(1, 250)), int(rng.integers(1 << 31)), 6
        ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
        expected = [one_by_one(units, length, theirs) for _ in range(count)]
        for got, want in zip(shuffle_samples(units, length, ours, count), expected, strict=True):
            for a, b in zip(got, want, strict=True):
                assert np.array_equal(a.starts, b.starts) and np.array_equal(a.ends, b.ends)
                assert np.array_equal(a.labels, b.labels)
        assert ours.random() == theirs.random()
