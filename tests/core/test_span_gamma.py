"""Mathet's γ for span schemes against pygamma-agreement 0.5.9 and Potato's ``iaa/span.py``.

Oracles: pygamma-agreement's best alignment (numba enumeration + cvxpy/GLPK) and its γ with
``ShuffleContinuumSampler`` seeded by ``np.random.seed``; Potato 2.12.1's two-annotator
``_pairwise_disorder``. pygamma sums in float32, so the 1e-9 comparison re-sums the
alignment pygamma chose in float64 (its own float32 number is checked to 1e-6). Cases are
small (≤ 40 units) because pygamma enumerates every tuple.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
from potato.server_utils.iaa import span as potato_span
from pyannote.core import Segment
from pygamma_agreement import (
    CombinedCategoricalDissimilarity,
    Continuum,
    ShuffleContinuumSampler,
)
from pygamma_agreement.continuum import Unit

from app.core.agreement.spans import gamma_alignment, gamma_search
from app.core.agreement.spans.gamma import ItemGamma, item_gamma, mean_gamma
from app.core.agreement.spans.gamma_alignment import (
    AlignmentTooLargeError,
    Units,
    best_alignment,
    best_alignments,
    candidate_tuples,
    dissimilarity,
    solve_partitions,
)
from app.core.agreement.spans.gamma_chance import _subtract, shuffle_sample

Spans = list[tuple[int, int, str]]
LABELS = "PER", "ORG", "LOC"


def noisy_study(rng: np.random.Generator, annotators: int, gold: int) -> tuple[list[Spans], int]:
    """NER-like spans: a gold list each annotator copies with misses, relabels, ±2 char
    boundary noise and a few extras (kinds.md §4's generator). Returns spans and L."""
    truth: Spans = []
    at = 0
    for _ in range(gold):
        at += int(rng.integers(1, 15))
        length = int(rng.integers(2, 12))
        truth.append((at, at + length, LABELS[int(rng.integers(3))]))
        at += length
    studies: list[Spans] = []
    for _ in range(annotators):
        spans: Spans = []
        for start, end, label in truth:
            if rng.random() < 0.1:
                continue
            if rng.random() < 0.1:
                label = LABELS[int(rng.integers(3))]
            start += int(rng.integers(-2, 3))
            end = max(start + 1, end + int(rng.integers(-2, 3)))
            spans.append((start, end, label))
        for _ in range(int(rng.integers(0, 3))):
            x = int(rng.integers(0, at))
            spans.append((x, x + int(rng.integers(1, 8)), LABELS[0]))
        studies.append(sorted(set(spans)))
    return studies, at + 10


def units_of(studies: list[Spans]) -> list[Units]:
    code = {label: i for i, label in enumerate(LABELS)}
    return [Units(np.array([s for s, _, _ in spans], dtype=float),
                  np.array([e for _, e, _ in spans], dtype=float),
                  np.array([code[lab] for _, _, lab in spans], dtype=np.int64))
            for spans in studies]


def continuum_of(studies: list[Spans], length: int) -> Continuum:
    continuum = Continuum()
    for k, spans in enumerate(studies):
        continuum.add_annotator(f"a{k}")
        for start, end, label in spans:
            continuum.add(f"a{k}", Segment(start, end), label)
    continuum.bound_inf, continuum.bound_sup = 0.0, float(length)
    return continuum


def resummed(alignment: object, n: int, n_units: int) -> float:
    """The disorder of pygamma's chosen alignment, re-summed in float64."""
    total = 0.0
    for unitary in alignment.unitary_alignments:  # type: ignore[attr-defined]
        units = [unit for _, unit in unitary.n_tuple]
        pair_sum = 0.0
        for i in range(n):
            for j in range(i):
                a, b = units[i], units[j]
                if a is None or b is None:
                    pair_sum += 1.0
                else:
                    shift = (abs(a.segment.start - b.segment.start)
                             + abs(a.segment.end - b.segment.end))
                    pair_sum += ((shift / (a.segment.duration + b.segment.duration)) ** 2
                                 + (a.annotation != b.annotation))
        total += pair_sum / (n * (n - 1) / 2)
    return total / (n_units / n)


DISSIMILARITY = CombinedCategoricalDissimilarity(alpha=1, beta=1, delta_empty=1)


@pytest.fixture(autouse=True)
def _quiet_pygamma(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)  # "CBC solver not installed. Using GLPK." per call


def test_dissimilarity_is_pygammas() -> None:
    rng = np.random.default_rng(3)
    studies, _ = noisy_study(rng, 2, 15)
    a, b = units_of(studies)
    for i in range(len(a)):
        for j in range(len(b)):
            ours = float(dissimilarity(a, np.array([i]), b, np.array([j]))[0])
            theirs = DISSIMILARITY.d(
                Unit(Segment(a.starts[i], a.ends[i]), LABELS[a.labels[i]]),
                Unit(Segment(b.starts[j], b.ends[j]), LABELS[b.labels[j]]))
            assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize(("annotators", "gold", "cases"), [(2, 15, 4), (3, 10, 4), (5, 6, 3)])
def test_best_alignment_disorder_is_pygammas(annotators: int, gold: int, cases: int) -> None:
    rng = np.random.default_rng(100 + annotators)
    for _ in range(cases):
        studies, length = noisy_study(rng, annotators, gold)
        n_units = sum(len(s) for s in studies)
        assert n_units <= 40
        theirs = continuum_of(studies, length).get_best_alignment(DISSIMILARITY)
        ours = best_alignment(units_of(studies)).disorder
        assert ours == pytest.approx(resummed(theirs, annotators, n_units), abs=1e-9)
        assert ours == pytest.approx(float(theirs.disorder), rel=1e-6)


def test_dense_spans_best_alignment_is_pygammas() -> None:
    """Overlapping, nested and far-off spans: wide components, both solving paths."""
    rng = np.random.default_rng(57)
    for annotators in (3, 4, 5, 3, 4):
        studies = dense_study(rng, annotators, 30 // annotators)
        n_units = sum(len(s) for s in studies)
        if not n_units:
            continue
        theirs = continuum_of(studies, 80).get_best_alignment(DISSIMILARITY)
        ours = best_alignment(units_of(studies)).disorder
        assert ours == pytest.approx(resummed(theirs, annotators, n_units), abs=1e-9)


def test_empty_annotator_takes_part_as_in_pygamma() -> None:
    rng = np.random.default_rng(8)
    studies, length = noisy_study(rng, 2, 8)
    studies.append([])
    theirs = continuum_of(studies, length).get_best_alignment(DISSIMILARITY)
    n_units = sum(len(s) for s in studies)
    assert best_alignment(units_of(studies)).disorder == pytest.approx(
        resummed(theirs, 3, n_units), abs=1e-9)


def test_two_annotators_assignment_is_the_program_and_potatos(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The dense assignment, the sparse route (search, as for big items), HiGHS on the
    candidate pairs and Potato's own pairwise disorder: one number."""
    rng = np.random.default_rng(21)
    for _ in range(8):
        studies, _ = noisy_study(rng, 2, int(rng.integers(1, 30)))
        units = units_of(studies)
        assignment = best_alignment(units).disorder
        monkeypatch.setattr(gamma_alignment, "MAX_DENSE_PAIRS", 0)
        assert best_alignment(units).disorder == pytest.approx(assignment, abs=1e-12)
        monkeypatch.setattr(gamma_alignment, "MAX_DENSE_PAIRS", 250_000)
        _, costs = solve_partitions([(units, *candidate_tuples(units))])[0]
        program = float(costs.sum()) / (sum(len(u) for u in units) / 2)
        potato = potato_span._pairwise_disorder(studies[0], studies[1], 1.0, 1.0, 1.0)
        assert assignment == pytest.approx(program, abs=1e-9)
        assert assignment == pytest.approx(potato, abs=1e-9)


def dense_study(rng: np.random.Generator, annotators: int, per: int) -> list[Spans]:
    """Random overlapping and nested spans on a short text: wide components."""
    studies = []
    for _ in range(annotators):
        spans = set()
        for _ in range(int(rng.integers(0, per + 1))):
            start = int(rng.integers(0, 60))
            spans.add((start, start + int(rng.integers(1, 15)), LABELS[int(rng.integers(3))]))
        studies.append(sorted(spans))
    return studies


def test_search_is_the_solvers_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    """The component search, HiGHS alone (the search gives up at once) and a mix (it gives
    up on wide components) reach the same disorder; HiGHS is checked against pygamma."""
    rng = np.random.default_rng(41)
    continua = [units_of(noisy_study(rng, n, 12)[0]) for n in (3, 4, 5, 3)]
    continua += [units_of(dense_study(rng, n, 9)) for n in (3, 3, 4, 5, 3, 4)]
    continua = [c for c in continua if sum(len(u) for u in c)]
    searched = [b.disorder for b in best_alignments(continua)]
    for states in (0, 3, 30):
        monkeypatch.setattr(gamma_search, "MAX_STATES", states)
        assert [b.disorder for b in best_alignments(continua)] == pytest.approx(
            searched, abs=1e-12)


def test_batched_programs_are_each_programs_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    """Several continua in one HiGHS call (block-diagonal) give each one's own optimum."""
    rng = np.random.default_rng(31)
    continua = [units_of(noisy_study(rng, n, 6)[0]) for n in (3, 2, 4, 3, 5, 3)]
    monkeypatch.setattr(gamma_search, "MAX_STATES", 0)
    alone = [best_alignment(c).disorder for c in continua]
    for batch in (1, 150, 10**6):
        monkeypatch.setattr(gamma_alignment, "BATCH_TUPLES", batch)
        together = [b.disorder for b in best_alignments(continua)]
        assert together == pytest.approx(alone, abs=1e-12)


def test_alignment_is_a_partition_with_the_stated_disorder() -> None:
    rng = np.random.default_rng(5)
    studies, _ = noisy_study(rng, 4, 12)
    units = units_of(studies)
    best = best_alignment(units)
    for a, u in enumerate(units):
        held = best.tuples[:, a]
        assert sorted(held[held >= 0].tolist()) == list(range(len(u)))
    total = 0.0
    for row in best.tuples:
        members = [(a, int(i)) for a, i in enumerate(row) if i >= 0]
        pair_sum = 6.0 - len(members) * (len(members) - 1) / 2
        for x, (a, i) in enumerate(members):
            for b, j in members[:x]:
                pair_sum += float(dissimilarity(units[a], np.array([i]), units[b],
                                                np.array([j]))[0])
        total += pair_sum / 6.0
    assert best.disorder == pytest.approx(total / (sum(len(u) for u in units) / 4), abs=1e-12)


def interval(disorders: np.ndarray, observed: float) -> tuple[float, float]:
    """The γ interval Accord states, from any list of chance disorders."""
    half = 1.959963984540054 * float(disorders.std(ddof=1)) / np.sqrt(len(disorders))
    mean = float(disorders.mean())
    return 1.0 - observed / (mean - half), 1.0 - observed / (mean + half)


def pygamma_gamma(studies: list[Spans], length: int, seed: int,
                  samples: int = 30) -> tuple[float, tuple[float, float]]:
    """pygamma's γ with the shuffle sampler over [0, L], and the interval its own chance
    disorders give by Accord's rule."""
    np.random.seed(seed)  # noqa: NPY002 - pygamma draws from the global state
    result = continuum_of(studies, length).compute_gamma(
        DISSIMILARITY, n_samples=samples, sampler=ShuffleContinuumSampler())
    disorders = np.array([a.disorder for a in result.chance_alignments], dtype=float)
    return float(result.gamma), interval(disorders, float(result.observed_disorder))


@pytest.mark.slow
@pytest.mark.parametrize(("annotators", "gold"), [(2, 12), (3, 10), (5, 6)])
def test_gamma_within_its_interval_of_pygammas(annotators: int, gold: int) -> None:
    """Both γ are estimates from 30 chance samples each: each interval holds its own γ,
    and the two agree within the stated intervals (|γ − γ_pygamma| at most the two
    half-widths together; a 95 % interval of one estimate does not hold an independent
    estimate of the same value one time in six)."""
    rng = np.random.default_rng(300 + annotators)
    for case in range(2):
        studies, length = noisy_study(rng, annotators, gold)
        ours = item_gamma({f"a{k}": s for k, s in enumerate(studies)}, length, seed=case)
        assert ours.gamma is not None and ours.gamma_interval is not None
        low, high = ours.gamma_interval
        assert low < ours.gamma < high
        theirs, (their_low, their_high) = pygamma_gamma(studies, length, seed=case)
        assert their_low < theirs < their_high
        allowed = (high - low) / 2 + (their_high - their_low) / 2
        assert abs(ours.gamma - theirs) <= allowed


def test_potatos_chance_is_not_within_the_interval() -> None:
    """The interval can fail: Potato's uniform-over-L chance lands outside it."""
    rng = np.random.default_rng(77)
    studies, length = noisy_study(rng, 3, 10)
    length *= 3  # a long text: Potato's chance grows with it, the shuffle's does not
    ours = item_gamma({f"a{k}": s for k, s in enumerate(studies)}, length)
    potato = potato_span.gamma({f"a{k}": s for k, s in enumerate(studies)}, length)
    assert ours.gamma_interval is not None
    assert not ours.gamma_interval[0] <= potato <= ours.gamma_interval[1]


def test_report_facts_and_determinism() -> None:
    rng = np.random.default_rng(9)
    studies, length = noisy_study(rng, 3, 8)
    spans = {f"a{k}": s for k, s in enumerate(studies)}
    first = item_gamma(spans, length, seed=42, n_samples=12)
    again = item_gamma(dict(reversed(list(spans.items()))), length, seed=42, n_samples=12)
    other = item_gamma(spans, length, seed=43, n_samples=12)
    assert first == again
    assert first.gamma != other.gamma
    assert first.observed_disorder == other.observed_disorder
    assert (first.seed, first.n_samples) == (42, 12)
    assert first.chance_interval is not None and first.chance_disorder is not None
    assert first.chance_interval[0] < first.chance_disorder < first.chance_interval[1]
    # The alignment names the caller's spans: every span of every annotator exactly once.
    for a, name in enumerate(first.annotators):
        held = sorted(t[a] for t in first.alignment if t[a] is not None)
        assert held == list(range(len(spans[name])))


def test_duplicates_and_empty_spans_are_dropped_and_counted() -> None:
    spans = {"a": [(0, 5, "X"), (0, 5, "X"), (7, 7, "X"), (10, 14, "Y")],
             "b": [(1, 5, "X"), (10, 13, "Y")]}
    result = item_gamma(spans, 20, n_samples=5)
    assert (result.dropped_duplicates, result.dropped_empty, result.n_units) == (1, 1, 4)
    clean = item_gamma({"a": [(0, 5, "X"), (10, 14, "Y")], "b": spans["b"]}, 20, n_samples=5)
    assert result.observed_disorder == clean.observed_disorder


def test_undefined_items_have_sentences() -> None:
    nobody = item_gamma({"a": [], "b": []}, 100)
    alone = item_gamma({"a": [(0, 4, "X")]}, 100)
    no_text = item_gamma({"a": [(0, 4, "X")], "b": []}, 0)
    for result in (nobody, alone, no_text):
        assert result.gamma is None and result.reason
    assert "nobody marked" in (nobody.reason or "")
    assert "two annotators" in (alone.reason or "")


def test_alignment_out_of_reach_is_undefined_with_its_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Too many candidate tuples, or HiGHS out of time: a sentence, never a hang or NaN."""
    rng = np.random.default_rng(14)
    studies, length = noisy_study(rng, 3, 8)
    spans = {f"a{k}": s for k, s in enumerate(studies)}
    monkeypatch.setattr(gamma_alignment, "MAX_CANDIDATES", 10)
    result = item_gamma(spans, length, n_samples=4)
    assert result.gamma is None and result.observed_disorder is None
    assert "more than 10 candidate tuples" in (result.reason or "")
    monkeypatch.setattr(gamma_alignment, "MAX_CANDIDATES", 2_000_000)
    monkeypatch.setattr(gamma_search, "MAX_STATES", 0)
    with pytest.raises(AlignmentTooLargeError, match="not proved optimal"):
        best_alignments([units_of(studies)], time_budget=0.0)


def test_same_spans_is_one_and_one_span_is_chance() -> None:
    same = item_gamma({"a": [(0, 4, "X"), (9, 12, "Y")], "b": [(0, 4, "X"), (9, 12, "Y")]},
                      40)
    assert same.gamma == 1.0 and same.observed_disorder == 0.0
    lone = [[(3, 8, "X")], []]
    one = item_gamma({"a": lone[0], "b": lone[1]}, 40)
    assert one.gamma is not None and one.gamma_interval is not None
    theirs, (their_low, their_high) = pygamma_gamma(lone, 40, seed=0)
    allowed = (one.gamma_interval[1] - one.gamma_interval[0] + their_high - their_low) / 2
    assert abs(one.gamma - theirs) <= allowed
    assert abs(one.gamma) < 0.1


def test_mean_over_items_skips_undefined_items() -> None:
    rng = np.random.default_rng(12)
    items: list[ItemGamma] = []
    for _ in range(3):
        studies, length = noisy_study(rng, 2, 6)
        items.append(item_gamma({"a": studies[0], "b": studies[1]}, length, n_samples=8))
    items.append(item_gamma({"a": [], "b": []}, 50, n_samples=8))
    summary = mean_gamma(items)
    values = [i.gamma for i in items[:3] if i.gamma is not None]
    assert summary.gamma == pytest.approx(sum(values) / 3, abs=1e-12)
    assert (summary.items_scored, summary.items_undefined) == (3, 1)
    assert summary.gamma_interval is not None
    assert summary.gamma_interval[0] <= summary.gamma <= summary.gamma_interval[1]
    nothing = mean_gamma(items[3:])
    assert nothing.gamma is None and "nobody marked" in (nothing.reason or "")


def test_shuffle_sample_moves_whole_annotation_sets() -> None:
    rng = np.random.default_rng(4)
    studies, length = noisy_study(rng, 3, 8)
    units = units_of(studies)
    sample = shuffle_sample(units, length, np.random.default_rng(1))
    assert len(sample) == 3
    for sampled in sample:
        lengths = sorted((sampled.ends - sampled.starts).tolist())
        matches = [u for u in units
                   if sorted((u.ends - u.starts).tolist()) == lengths
                   and sorted(u.labels.tolist()) == sorted(sampled.labels.tolist())]
        assert matches
        assert (sampled.starts >= 0).all() and (sampled.starts <= length).all()


def test_stretches_follow_pygammas_rule() -> None:
    """pygamma's ``_remove_pivot_segment`` itself is the oracle, on random stretches."""
    rng = np.random.default_rng(6)
    for _ in range(200):
        cuts = np.sort(rng.uniform(0, 100, 6))
        stretches = [(float(cuts[i]), float(cuts[i + 1])) for i in range(0, 6, 2)]
        pivot, spacing = float(rng.uniform(0, 100)), float(rng.uniform(0, 20))
        theirs = ShuffleContinuumSampler._remove_pivot_segment(
            pivot, [Segment(s, e) for s, e in stretches], spacing)
        ours = _subtract(stretches, pivot - spacing, pivot + spacing)
        assert sorted(ours) == sorted((s.start, s.end) for s in theirs)
