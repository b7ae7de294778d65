"""The span metrics against Potato 2.12.1's own ``iaa/span.py`` and independent oracles.

Potato's functions are called directly (its gathering is dead, ``kinds.md`` B §0.1):
``token_level_kappa``, ``pairwise_span_f1`` and ``krippendorff_alpha_u`` per item, and its
``_aggregate_span`` for the means. The oracles are scikit-learn's Cohen κ and statsmodels'
Fleiss κ on character BIO tags painted here, seqeval's F1 per item, a brute-force maximum
matching, and the ``krippendorff`` package's nominal α.
"""

from __future__ import annotations

import itertools
import math
import random
import warnings
from typing import Any

import krippendorff
import numpy as np
import pytest
from potato.server_utils.iaa import dispatcher
from potato.server_utils.iaa import span as potato
from seqeval.metrics import f1_score
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from app.core.agreement.spans.metrics import span_metrics
from app.core.agreement.spans.table import build_table

Spans = list[tuple[int, int, str]]
LABELS = "ABC"


def random_study(seed: int, n_items: int = 60, *, clean: bool = False
                 ) -> tuple[dict[str, dict[str, Spans]], dict[str, int]]:
    """Items with 2–5 annotators; unless ``clean``: overlaps, duplicates, zero-length
    spans, offsets outside the text, empty annotators and one-character texts."""
    rng = random.Random(seed)
    answers: dict[str, dict[str, Spans]] = {}
    lengths: dict[str, int] = {}
    for i in range(n_items):
        length = rng.choice([40, 90] if clean else [1, 2, 7, 40, 90])
        pos, truth = 0, []
        while len(truth) < rng.randint(1, 6):
            pos += rng.randint(1, 6) if clean else rng.randint(-4, 6)
            s, e = pos, pos + rng.randint(1 if clean else 0, 9)
            if clean and e + 3 > length:
                break
            truth.append((s, e, rng.choice(LABELS)))
            pos = e + (3 if clean else 0)
        by: dict[str, Spans] = {}
        for a in range(rng.randint(2, 5)):
            spans: Spans = []
            for s, e, label in truth:
                r = rng.random()
                if r < 0.15:
                    continue
                if r < 0.3:
                    s, e = s + rng.choice((-1, 0, 1)), e + rng.choice((-1, 0, 1))
                    if clean:
                        s, e = max(s, 0), max(e, s + 1)
                if r < 0.4:
                    label = rng.choice(LABELS)
                spans.append((s, max(s, e), label))
                if not clean and rng.random() < 0.05:
                    spans.append(spans[-1])
            if clean:  # no overlaps inside one annotator (BIO cannot hold them)
                spans = [sp for k, sp in enumerate(spans)
                         if all(sp[0] >= o[1] or sp[1] <= o[0] for o in spans[:k])]
            if rng.random() < 0.15:
                spans = []
            by[f"u{a}"] = spans
        answers[f"i{i:03d}"] = by
        lengths[f"i{i:03d}"] = length
    return answers, lengths


@pytest.fixture(autouse=True)
def _potato_warnings() -> Any:
    """Potato's α goes through simpledorff, which calls pandas in a way pandas now warns
    about; the suite turns warnings into errors, which Potato catches and answers NaN."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Starting with pandas version")
        yield


def _same(a: float, b: float, tol: float = 1e-9) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


@pytest.mark.parametrize("seed", range(6))
def test_every_item_equals_potatos_functions(seed: int) -> None:
    answers, lengths = random_study(seed)
    table = build_table(answers, lengths)
    result = span_metrics(table)
    assert table.n_items > 30
    undefined = 0
    for k, iid in enumerate(table.item_ids):
        by, n = answers[iid], lengths[iid]
        expected = {"token_level_kappa": potato.token_level_kappa(by, n),
                    "span_f1_exact": potato.pairwise_span_f1(by, partial=False),
                    "span_f1_partial": potato.pairwise_span_f1(by, partial=True),
                    "char_alpha": potato.krippendorff_alpha_u(by, n)}
        for name, value in expected.items():
            assert _same(float(result.per_item[name][k]), value), (name, iid, by, n)
            undefined += math.isnan(value)
    assert undefined  # the one-character texts and all-O items are among them


class _Item:
    def __init__(self, text: str) -> None:
        self.text = text

    def get_text(self) -> str:
        return self.text


def test_means_and_counts_equal_potatos_aggregation() -> None:
    answers, lengths = random_study(7, n_items=25)
    table = build_table(answers, lengths)
    result = span_metrics(table)
    rows = {iid: answers[iid] for iid in table.item_ids}
    report = dispatcher._aggregate_span(rows, lambda iid: _Item("x" * lengths[iid]))
    assert report["n_items"] == result.n_items == len(table.item_ids)
    assert report["n_annotators"] == result.n_annotators
    for name in ("token_level_kappa", "span_f1_exact", "span_f1_partial"):
        assert result.values[name] == pytest.approx(report[name], abs=1e-12)
    assert result.values["char_alpha"] == pytest.approx(report["krippendorff_alpha_u"],
                                                        abs=1e-12)
    assert "not Krippendorff's unitizing" in " ".join(result.notes)


# ------------------------------------------------------------------ independent oracles


def bio(spans: Spans, length: int) -> list[str]:
    """Character BIO of non-overlapping spans (an independent painter)."""
    tags = ["O"] * length
    for s, e, label in spans:
        tags[s] = f"B-{label}"
        for p in range(s + 1, e):
            tags[p] = f"I-{label}"
    return tags


def test_token_kappa_equals_sklearn_and_statsmodels() -> None:
    answers, lengths = random_study(11, n_items=80, clean=True)
    table = build_table(answers, lengths)
    result = span_metrics(table)
    checked = {2: 0, 3: 0}
    for k, iid in enumerate(table.item_ids):
        tags = [bio(spans, lengths[iid]) for _, spans in sorted(answers[iid].items())]
        if len(tags) == 2:
            expected = cohen_kappa_score(tags[0], tags[1])
        else:
            codes = {t: c for c, t in enumerate(sorted({t for row in tags for t in row}))}
            table_counts, _ = aggregate_raters(np.array([[codes[t] for t in col]
                                                         for col in zip(*tags, strict=True)]))
            expected = fleiss_kappa(table_counts, method="fleiss")
        assert result.per_item["token_level_kappa"][k] == pytest.approx(expected, abs=1e-9)
        checked[min(len(tags), 3)] += 1
    assert checked[2] > 10 and checked[3] > 10


def test_exact_f1_equals_seqeval_per_item() -> None:
    answers, lengths = random_study(12, n_items=80, clean=True)
    table = build_table(answers, lengths)
    result = span_metrics(table)
    compared = 0
    for k, iid in enumerate(table.item_ids):
        rows = [bio(spans, lengths[iid]) for _, spans in sorted(answers[iid].items())]
        scores = []
        for a, b in itertools.combinations(range(len(rows)), 2):
            empty = all(t == "O" for t in rows[a] + rows[b])
            scores.append(1.0 if empty else f1_score([rows[b]], [rows[a]]))
        assert result.per_item["span_f1_exact"][k] == pytest.approx(np.mean(scores),
                                                                    abs=1e-12)
        compared += 1
    assert compared > 40


def _eligible(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    overlap = len(set(range(a[0], a[1])) & set(range(b[0], b[1])))
    return (a[2] == b[2] and overlap > 0
            and (overlap * 2 >= a[1] - a[0] or overlap * 2 >= b[1] - b[0]))


def brute_force_matching(a: Spans, b: Spans) -> int:
    """The largest one-to-one matching by trying every injection of the smaller side."""
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    best = 0
    for chosen in itertools.permutations(range(len(big)), len(small)):
        best = max(best, sum(1 for i, j in enumerate(chosen)
                             if _eligible(small[i], big[j])))
    return best


def test_partial_f1_equals_brute_force_matching() -> None:
    rng = random.Random(13)
    answers: dict[str, dict[str, Spans]] = {}
    for i in range(150):  # nested and chained spans: greedy matching would miss some
        by = {}
        for a in range(rng.randint(2, 3)):
            spans = []
            for _ in range(rng.randint(0, 5)):
                s = rng.randint(0, 20)
                spans.append((s, s + rng.randint(1, 10), rng.choice("AB")))
            by[f"u{a}"] = spans
        answers[f"p{i:03d}"] = by
    table = build_table(answers, {iid: 40 for iid in answers})
    result = span_metrics(table)
    for k, iid in enumerate(table.item_ids):
        scores = []
        for a, b in itertools.combinations(sorted(answers[iid]), 2):
            sa, sb = answers[iid][a], answers[iid][b]
            if not sa and not sb:
                scores.append(1.0)
                continue
            tp = brute_force_matching(sa, sb)
            p = tp / len(sa) if sa else 0.0
            r = tp / len(sb) if sb else 0.0
            scores.append(2 * p * r / (p + r) if p + r else 0.0)
        assert result.per_item["span_f1_partial"][k] == pytest.approx(np.mean(scores),
                                                                      abs=1e-12), iid


def test_char_alpha_equals_krippendorff_nominal() -> None:
    answers, lengths = random_study(14, n_items=60)
    table = build_table(answers, lengths)
    result = span_metrics(table)
    compared = 0
    for k, iid in enumerate(table.item_ids):
        labels = []
        for _, spans in sorted(answers[iid].items()):
            tags = potato.spans_to_bio(spans, lengths[iid])  # Potato's painting, overlaps
            labels.append([0 if t == "O" else 1 + LABELS.index(t[2:]) for t in tags])
        data = np.array(labels, dtype=float)
        if lengths[iid] < 2 or len(np.unique(data)) < 2:
            assert np.isnan(result.per_item["char_alpha"][k])
            continue
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert result.per_item["char_alpha"][k] == pytest.approx(expected, abs=1e-9)
        compared += 1
    assert compared > 30


# ------------------------------------------------------------------ undefined, counted


def test_undefined_values_are_sentences_never_nan_or_one() -> None:
    nothing = build_table({"a": {"x": [], "y": []}, "b": {"x": []}}, {"a": 10, "b": 10})
    result = span_metrics(nothing)
    assert result.values == dict.fromkeys(result.values, None)
    assert result.undefined["span_f1_exact"] == "nobody marked a span on any item"
    data: dict[str, Any] = result.to_json()
    assert data["metrics"]["token_level_kappa"] is None
    # one character, both annotators mark it alike: κ and α are 0/0, F1 is 1
    same = span_metrics(build_table({"a": {"x": [(0, 1, "A")], "y": [(0, 1, "A")]}},
                                    {"a": 1}))
    assert same.values["span_f1_exact"] == 1.0
    assert same.values["token_level_kappa"] is None
    assert "chance agreement is 1" in same.undefined["token_level_kappa"]
    assert same.values["char_alpha"] is None
    alone = span_metrics(build_table({"a": {"x": [(0, 1, "A")]}}, {"a": 5}))
    assert alone.undefined["span_f1_partial"] == ("no item with spans was saved by two "
                                                  "annotators")


def test_pairs_that_both_marked_nothing_score_one_and_are_counted() -> None:
    answers = {"a": {"x": [(0, 4, "A")], "y": [], "z": []},
               "b": {"x": [(0, 4, "A")], "y": [(0, 4, "A")], "z": [(5, 7, "B")]}}
    result = span_metrics(build_table(answers, {"a": 10, "b": 10}))
    assert result.n_pairs_both_empty == 1
    assert result.per_item["span_f1_exact"][0] == pytest.approx(
        potato.pairwise_span_f1(answers["a"]))
    assert result.per_item["span_f1_exact"][0] == pytest.approx(1 / 3)  # (0 + 0 + 1) / 3
    assert any("1 pairs of annotators marked nothing" in n for n in result.notes)
    assert result.items_by_disagreement() == ["a", "b"]


def test_counting_in_chunks_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large study is counted a few million characters at a time; tiny chunks here
    (each a member or a pair, or a few) must give the same numbers."""
    from app.core.agreement.spans import char_tags, kappa

    answers, lengths = random_study(3)
    whole = span_metrics(build_table(answers, lengths))
    for size in (1, 57, 400):
        monkeypatch.setattr(char_tags, "CHUNK_CHARS", size)
        monkeypatch.setattr(kappa, "CHUNK_CHARS", size)
        chunked = span_metrics(build_table(answers, lengths))
        for name, values in whole.per_item.items():
            np.testing.assert_array_equal(chunked.per_item[name], values)


def test_painting_in_pieces_gives_the_same_tags(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each step of the painting (one span per member) is cut into pieces of about
    CHUNK_CHARS characters, so no numpy call holds the lock long: every character's tag
    is the same as painted whole (pieces of 1 and 57 characters)."""
    from app.core.agreement.spans import char_tags

    for seed in range(3):
        table = build_table(*random_study(seed))
        whole = char_tags.char_tags(table)
        for size in (1, 57):
            monkeypatch.setattr(char_tags, "CHUNK_CHARS", size)
            np.testing.assert_array_equal(char_tags.char_tags(table).codes, whole.codes)
        monkeypatch.undo()


def test_offsets_far_outside_the_text_are_compared_as_stored() -> None:
    """Potato compares the stored offsets, however large: no overflow, no clipping."""
    big = 10**15
    answers = {"a": {"x": [(big, big + 10, "A"), (0, 4, "B")],
                     "y": [(big + 2, big + 10, "A"), (0, 4, "B")]},
               "b": {"x": [(-big, 3, "A")], "y": [(-big, 3, "A")]}}
    result = span_metrics(build_table(answers, {"a": 20, "b": 20}))
    for k, iid in enumerate(("a", "b")):
        for name, partial in (("span_f1_exact", False), ("span_f1_partial", True)):
            assert result.per_item[name][k] == potato.pairwise_span_f1(answers[iid],
                                                                       partial=partial)
