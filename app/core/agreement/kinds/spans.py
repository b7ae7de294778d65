"""Spans: character spans on an item's text (``span``, ``event_annotation``,
``coreference``, ``span_link``; ``error_span`` and ``extractive_qa`` read from their label
values; ``tree_annotation`` named as holding no offsets), ``kinds.md`` A.2 and B §2.6.

Metrics, per item then the unweighted mean over items (Potato's names, ``char_alpha`` for
Potato's ``krippendorff_alpha_u``): ``token_level_kappa``, ``span_f1_exact``,
``span_f1_partial``, ``char_alpha`` (:mod:`app.core.agreement.spans.metrics`) and
``gamma_mathet`` (:mod:`app.core.agreement.spans.gamma`: its seed, sample count and chance
interval under ``gamma``). ``potato_iaa`` says what Potato 2.12.1's own report shows: null
for every span metric, since its gathering never finds the spans.

Where the spec is silent: the character axis L of an item is its text as Potato's
``Item.get_text`` gives it, taken from the item as read (its ``text_key`` field when that
is a string, else Potato's fallbacks on the record, :func:`~app.core.agreement.spans.
reading.potato_text`); only a ``text_key`` field holding a non-string beside a ``text``,
``content``, ``message`` or ``title`` string would differ from Potato.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.agreement.kinds.spec import KindSpec
from app.core.agreement.spans.reading import (
    ALL_SPAN_TYPES,
    LINKING_TYPES,
    NO_OFFSETS,
    linking_sentence,
    potato_text,
)
from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.agreement.spans.table import RawSpan
    from app.core.model import Item, Scheme, Study
    from app.core.progress import Job

METRICS = ("token_level_kappa", "span_f1_exact", "span_f1_partial", "char_alpha",
           "gamma_mathet")
POTATO_METRICS = ("token_level_kappa", "span_f1_exact", "span_f1_partial",
                  "krippendorff_alpha_u", "gamma_mathet")


def spans_of(study: Study, scheme: Scheme) -> tuple[dict[str, dict[str, list[RawSpan]]],
                                                      dict[str, int]]:
    """The scheme's spans (item → annotator → spans) and each item's L."""
    from app.core.objects import Span

    answers: dict[str, dict[str, list[RawSpan]]] = {}
    for item, by in study.answers_for(scheme.name).items():
        answers[item] = {a: [(o.start, o.end, o.label) for o in getattr(v, "objects", ())
                             if isinstance(o, Span)] for a, v in by.items()}
    lengths = {item: _length(study.items[item]) for item, by in answers.items()
               if by and item in study.items}
    return answers, lengths


GAMMA_STEP = 100
"""Items γ is computed on between two progress reports (about 0.2 s). Not more: what
``items_gamma`` prepared for its items (their chance samples: ~200,000 numpy arrays for
500 items) is freed at once when it returns, 12 ms with the lock held at 500 items and
20-33 ms on a busy machine (``bench_gui_stall.py --spans``); 3.5 ms at 100."""


def _length(item: Item) -> int:
    text = item.text if isinstance(item.text, str) else potato_text(item.record, None)
    return len(text) if isinstance(text, str) else 0


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    from app.core.agreement.spans.gamma import items_gamma, mean_gamma
    from app.core.agreement.spans.metrics import POTATO_IAA_NOTE, SpanDetails, span_metrics
    from app.core.agreement.spans.table import build_table
    from app.core.gc_pause import gc_paused
    from app.core.progress import Progress
    from app.core.slices import empty_in_slices

    result.extra["potato_iaa"] = {**dict.fromkeys(POTATO_METRICS), "n_items": 0,
                                  "note": POTATO_IAA_NOTE}
    if scheme.annotation_type in NO_OFFSETS:
        result.not_computed = NO_OFFSETS[scheme.annotation_type]
        return [result]
    with gc_paused():  # 600,000 spans' tuples: full collections of 20-30 ms otherwise
        answers, lengths = spans_of(study, scheme)
        saved = any(by for by in answers.values())
        if scheme.annotation_type in LINKING_TYPES and saved and not any(
                spans for by in answers.values() for spans in by.values()):
            result.not_computed = linking_sentence(scheme.name, scheme.annotation_type,
                                                   scheme.config)
            return [result]
        table = build_table(answers, lengths)
        empty_in_slices(answers)  # freed at once (at the return) it held the lock 21 ms
    # The collector is paused while the metrics and each batch of γ run, never across a
    # yield (gc_paused nests and restores the state it found): γ's prepared items and
    # chance samples triggered ~130 full collections of 40-280 ms each on a 10,000-item
    # study, each holding the interpreter lock and stalling the GUI (bench_gui_stall.py).
    with gc_paused():
        spans = span_metrics(table)
    n = max(1, table.n_items)
    gammas = []
    for i in range(0, table.n_items, GAMMA_STEP):  # γ by batches of items (gamma_batch.py)
        yield Progress(i, n, f"{scheme.name}: γ on item {i + 1} of {table.n_items}")
        with gc_paused():
            gammas.extend(items_gamma([(table.spans_of(k), int(table.lengths[k]))
                                       for k in range(i, min(i + GAMMA_STEP, table.n_items))]))
    gamma = mean_gamma(gammas)
    for name in METRICS[:-1]:
        result.metrics[name] = spans.values[name]
        if name in spans.undefined:
            result.undefined[name] = spans.undefined[name]
    result.metrics["gamma_mathet"] = gamma.gamma
    if gamma.gamma is None:
        result.undefined["gamma_mathet"] = (spans.undefined.get("span_f1_exact")
                                            or gamma.reason or "no item has a γ")
    result.n_items = table.n_items
    result.n_pairs = spans.n_pairs
    result.n_items_skipped = sum(table.left_out.values())
    result.coverage["n_items_scored"] = table.n_items
    result.coverage.update({f"n_items_{k}": v for k, v in table.left_out.items()})
    result.extra["n_annotators"] = spans.n_annotators  # Potato's report has it
    result.extra["n_pairs_both_empty"] = spans.n_pairs_both_empty
    result.pairs = {k: dict(v) for k, v in spans.pairs.items()}
    result.extra["gamma"] = {
        "seed": gamma.seed, "n_samples": gamma.n_samples,
        "chance_interval_95": list(gamma.gamma_interval) if gamma.gamma_interval else None,
        "items_scored": gamma.items_scored, "items_undefined": gamma.items_undefined}
    result.notes[:] = [n for n in result.notes if "answered by one annotator" not in n]
    result.notes.extend(spans.notes)
    result.notes.append("gamma_mathet is Mathet et al.'s γ as pygamma-agreement computes "
                        "it (one best alignment of all annotators, chance by Mathet's "
                        "shuffle sampler, seeded), not Potato's mean of pairwise alignments.")
    result.details = SpanDetails(table, spans, list(gammas))
    return [result]


SPEC = KindSpec(
    kind=Kind.SPANS,
    potato_types=ALL_SPAN_TYPES,
    metrics=METRICS, score=score, summary="character spans on the item's text",
)
