"""Mathet's γ on 3 annotators × 200 spans: accord versus pygamma-agreement 0.5.9.

Run on purpose, from the project root::

    .venv/bin/python tests/benchmarks/bench_gamma.py [--docs N]

The study is kinds.md §4's NER-like generator (seed 20261205): 200 gold spans on a text,
each annotator missing 8 %, relabelling 8 %, moving boundaries by up to 2 characters and
adding a few spans of their own. Both compute full γ with the shuffle sampler over
[0, L] and 30 chance samples: accord ``item_gamma`` (best of three), pygamma
``Continuum.compute_gamma(sampler=ShuffleContinuumSampler())`` once (about a minute; its
numba compilation is done beforehand on a small continuum and not timed).

Prints both times, the ratio, both observed disorders and both γ with accord's stated
interval, and the same item through ``items_gamma``'s batched fast path (gamma_batch:
dominated tuples dropped, segments in closed form or by a window DP; best of three),
whose disorder must equal pygamma's too and whose γ must equal ``item_gamma``'s (the
same chance samples) to 1e-12. A second line times γ over a corpus: the first ``--docs``
documents (default 200) of ``bench_span_metrics.py``'s 10,000 × 3 annotators × 20
spans, accord's ``items_gamma`` (batched) and ``mean_gamma`` (and ``item_gamma``
document by document on the first 200, the values compared), against Potato 2.12.1's
own ``iaa/span.py`` ``gamma`` on the same documents (a different γ: pairwise alignments
and uniform chance, kinds.md B §2.6; timed as the tool a Potato user has), both scaled
to 10,000 documents. That line is information: the issue's 10 s for every span metric
with γ on that corpus is ``bench_span_metrics.py``'s pass condition.

Exits non-zero when the best-alignment disorders differ by more than 1e-9
(pygamma's, float32, re-summed in float64 from the alignment it chose), when the two γ
differ by more than the two stated 95 % half-widths together, when the fast path
differs from the per-continuum path, or when accord misses the issue's goals: under 2 s
and at least 30× faster.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

SEED = 20261205
ANNOTATORS = 3
GOLD = 200
SAMPLES = 30
GOAL_SECONDS = 2.0
GOAL_RATIO = 30.0
LABELS = ("PER", "ORG", "LOC", "MISC")

Spans = list[tuple[int, int, str]]


def make_study() -> tuple[list[Spans], int]:
    """Each annotator's spans and the text length L."""
    rng = np.random.default_rng(SEED)
    truth: Spans = []
    at = 0
    for _ in range(GOLD):
        at += int(rng.integers(3, 40))
        length = int(rng.integers(2, 20))
        truth.append((at, at + length, LABELS[int(rng.integers(len(LABELS)))]))
        at += length
    studies: list[Spans] = []
    for _ in range(ANNOTATORS):
        spans: Spans = []
        for start, end, label in truth:
            if rng.random() < 0.08:
                continue
            if rng.random() < 0.08:
                label = LABELS[int(rng.integers(len(LABELS)))]
            start += int(rng.integers(-2, 3))
            end = max(start + 1, end + int(rng.integers(-2, 3)))
            spans.append((start, end, label))
        for _ in range(int(rng.integers(5, 12))):
            x = int(rng.integers(0, at))
            spans.append((x, x + int(rng.integers(1, 15)), LABELS[0]))
        studies.append(sorted(set(spans)))
    return studies, at + 50


@contextmanager
def quiet_stdout() -> Iterator[None]:
    """GLPK (through cvxopt) prints its log from C onto file descriptor 1: silenced."""
    sys.stdout.flush()
    saved = os.dup(1)
    with Path(os.devnull).open("w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def resummed(alignment: object, n: int, n_units: int) -> float:
    """pygamma's chosen alignment's disorder, summed again in float64."""
    total = 0.0
    for unitary in alignment.unitary_alignments:  # type: ignore[attr-defined]
        units = [unit for _, unit in unitary.n_tuple]
        pair_sum = 0.0
        for i in range(n):
            for j in range(i):
                a, b = units[i], units[j]
                if a is None or b is None:
                    pair_sum += 1.0
                    continue
                shift = abs(a.segment.start - b.segment.start) + abs(a.segment.end - b.segment.end)
                pair_sum += ((shift / (a.segment.duration + b.segment.duration)) ** 2
                             + (a.annotation != b.annotation))
        total += pair_sum / (n * (n - 1) / 2)
    return total / (n_units / n)


def corpus_line(n_docs: int) -> str:
    """γ per document over the span-metrics corpus: accord against Potato's ``gamma``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_span_metrics import make_study  # type: ignore[import-not-found]
    from potato.server_utils.iaa import span as potato_span

    from app.core.agreement.spans.gamma import item_gamma, items_gamma, mean_gamma

    answers, lengths = make_study(n_docs)
    start = time.perf_counter()
    batched = items_gamma([(answers[d], lengths[d]) for d in answers])
    accord_time = time.perf_counter() - start
    summary = mean_gamma(batched)
    alone_docs = min(n_docs, 200)
    start = time.perf_counter()
    alone = [item_gamma(answers[d], lengths[d]) for d in list(answers)[:alone_docs]]
    alone_time = (time.perf_counter() - start) * n_docs / alone_docs
    worst = max(abs(a.gamma - b.gamma) for a, b in zip(alone, batched, strict=False)
                if a.gamma is not None and b.gamma is not None)
    assert worst <= 1e-12, f"batched gamma differs from item by item by {worst:.1e}"
    start = time.perf_counter()
    potato = [potato_span.gamma(answers[d], lengths[d]) for d in answers]
    potato_time = time.perf_counter() - start
    potato_mean = float(np.nanmean(potato))
    scale = 10_000 / n_docs
    return (f"gamma over {n_docs} documents x 3 x 20 spans: accord batched "
            f"{accord_time:.2f}s ({1000 * accord_time / n_docs:.1f} ms a document, "
            f"{accord_time * scale:.0f}s for 10,000; mean gamma {summary.gamma:.4f}; item by "
            f"item {alone_time * scale:.0f}s for 10,000, {alone_time / accord_time:.1f}x "
            f"slower, gamma equal to {worst:.1e}), Potato's own gamma "
            f"{potato_time:.2f}s ({potato_time * scale:.0f}s for 10,000; mean {potato_mean:.4f}"
            f", its pairwise definition), ratio {potato_time / accord_time:.1f}x")


def main() -> int:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    docs = int(sys.argv[sys.argv.index("--docs") + 1]) if "--docs" in sys.argv else 200
    logging.disable(logging.WARNING)  # pygamma: "CBC solver not installed. Using GLPK."
    from pyannote.core import Segment
    from pygamma_agreement import (
        CombinedCategoricalDissimilarity,
        Continuum,
        ShuffleContinuumSampler,
    )

    from app.core.agreement.spans.gamma import ItemGamma, item_gamma, items_gamma

    studies, length = make_study()
    n_units = sum(len(s) for s in studies)
    by_name = {f"a{k}": spans for k, spans in enumerate(studies)}

    def continuum(of: list[Spans]) -> Continuum:
        made = Continuum()
        for k, spans in enumerate(of):
            made.add_annotator(f"a{k}")
            for start, end, label in spans:
                made.add(f"a{k}", Segment(start, end), label)
        made.bound_inf, made.bound_sup = 0.0, float(length)
        return made

    dissimilarity = CombinedCategoricalDissimilarity(alpha=1, beta=1, delta_empty=1)
    with quiet_stdout():
        continuum([s[:3] for s in studies]).get_best_alignment(dissimilarity)  # numba JIT

    best = float("inf")
    mine: ItemGamma | None = None
    for _ in range(3):
        start = time.perf_counter()
        mine = item_gamma(by_name, length, seed=SEED, n_samples=SAMPLES)
        best = min(best, time.perf_counter() - start)
    assert mine is not None and mine.gamma is not None and mine.gamma_interval is not None
    fast_time = float("inf")
    fast: ItemGamma | None = None
    for _ in range(3):
        start = time.perf_counter()
        fast = items_gamma([(by_name, length)], seed=SEED, n_samples=SAMPLES)[0]
        fast_time = min(fast_time, time.perf_counter() - start)
    assert fast is not None and fast.gamma is not None and fast.observed_disorder is not None

    np.random.seed(SEED)  # noqa: NPY002 - pygamma draws from the global state
    with quiet_stdout():
        start = time.perf_counter()
        theirs = continuum(studies).compute_gamma(dissimilarity, n_samples=SAMPLES,
                                                  sampler=ShuffleContinuumSampler())
        oracle_time = time.perf_counter() - start
    their_disorder = resummed(theirs.best_alignment, ANNOTATORS, n_units)
    chance = np.array([a.disorder for a in theirs.chance_alignments], dtype=float)
    half = 1.959963984540054 * float(chance.std(ddof=1)) / np.sqrt(len(chance))
    their_interval = (1 - their_disorder / (chance.mean() - half),
                      1 - their_disorder / (chance.mean() + half))

    assert mine.observed_disorder is not None
    difference = abs(mine.observed_disorder - their_disorder)
    allowed = ((mine.gamma_interval[1] - mine.gamma_interval[0])
               + (their_interval[1] - their_interval[0])) / 2
    ratio = oracle_time / best
    print(f"gamma {ANNOTATORS}x~{n_units // ANNOTATORS} spans ({n_units} units, "
          f"{SAMPLES} shuffle samples): accord {best:.3f}s  pygamma {oracle_time:.1f}s  "
          f"ratio {ratio:.0f}x; observed disorder accord {mine.observed_disorder:.12f} "
          f"pygamma {their_disorder:.12f} (float32 {float(theirs.observed_disorder):.7f}, "
          f"difference {difference:.1e}); gamma accord {mine.gamma:.4f} "
          f"[{mine.gamma_interval[0]:.4f}, {mine.gamma_interval[1]:.4f}] pygamma "
          f"{float(theirs.gamma):.4f} [{their_interval[0]:.4f}, {their_interval[1]:.4f}]")
    fast_difference = abs(fast.observed_disorder - their_disorder)
    fast_gap = abs(fast.gamma - mine.gamma)
    print(f"the same item by the batched fast path (items_gamma): {fast_time:.3f}s, ratio "
          f"{oracle_time / fast_time:.0f}x; observed disorder {fast.observed_disorder:.12f} "
          f"(pygamma's to {fast_difference:.1e}), gamma {fast.gamma:.4f} (item_gamma's to "
          f"{fast_gap:.1e})")
    print(corpus_line(docs))
    failures = []
    if difference > 1e-9 or fast_difference > 1e-9:
        failures.append("the best alignments' disorders differ")
    if fast_gap > 1e-12:
        failures.append("the fast path's gamma differs from the per-continuum path's")
    if abs(mine.gamma - float(theirs.gamma)) > allowed:
        failures.append("the two gamma differ by more than their stated intervals")
    if best >= GOAL_SECONDS:
        failures.append(f"accord took {best:.2f}s (goal under {GOAL_SECONDS:.0f}s)")
    if ratio < GOAL_RATIO:
        failures.append(f"accord is {ratio:.0f}x faster (goal {GOAL_RATIO:.0f}x)")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
