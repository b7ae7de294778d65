"""The rating kinds against independent oracles (kinds.md §3) on the answers Potato
2.12.1's server stored: krippendorff (level passed explicitly), pingouin's ICC(A,k),
numpy/scikit-learn for r, MAE and RMSE, scikit-learn's and statsmodels' weighted κ on
Potato's filled scale, pandas' Spearman, nltk's α-MASI, and brute force for τ and the
footrule. Potato's own numbers are in ``test_rating_kinds_potato.py``."""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score, jaccard_score, mean_absolute_error
from sklearn.preprocessing import MultiLabelBinarizer

from app.core.agreement.continuous.ordinal import weighted_kappa_linear
from app.core.agreement.continuous.pairs import by_annotator, gather
from app.core.agreement.continuous.reading import read_number
from app.core.agreement.matrix.block import read_matrix
from app.core.agreement.multilabel.packed import read_packed_set
from app.core.agreement.ranking.metrics import read_ranking
from tests.core import rating_support as rs

TOL = 1e-9
Rows = dict[str, dict[str, Any]]


def _rows(project: str, name: str, read: Any) -> Rows:
    return gather(rs.entries(project)[name], read)


def _reliability(rows: Rows) -> np.ndarray:
    users = sorted({u for by in rows.values() for u in by})
    return np.array([[rows[i].get(u, np.nan) for i in rows] for u in users], dtype=float)


def _pairs(rows: Rows) -> list[tuple[list[Any], list[Any]]]:
    seqs = by_annotator(rows)
    out = []
    for a, b in itertools.combinations(sorted(seqs), 2):
        shared = sorted(set(seqs[a]) & set(seqs[b]))
        if len(shared) >= 2:
            out.append(([seqs[a][i] for i in shared], [seqs[b][i] for i in shared]))
    return out


def _icc_pingouin(rows: Rows) -> float:
    import pingouin

    long = pd.DataFrame([(i, u, v) for i, by in rows.items() for u, v in by.items()],
                        columns=["item", "rater", "score"])
    with warnings.catch_warnings():  # pingouin 0.7 calls pandas' deprecated inplace=
        warnings.simplefilter("ignore")
        table = pingouin.intraclass_corr(long, targets="item", raters="rater",
                                         ratings="score", nan_policy="omit")
    names = set(table["Type"])
    key = "ICC(A,k)" if "ICC(A,k)" in names else "ICC2k"  # renamed in pingouin 0.6
    return float(table.set_index("Type").loc[key, "ICC"])


def _continuous_oracles(rows: Rows) -> dict[str, float]:
    pairs = _pairs(rows)
    out = {
        "alpha_interval": float(krippendorff.alpha(reliability_data=_reliability(rows),
                                                   level_of_measurement="interval")),
        "mae": float(np.mean([mean_absolute_error(a, b) for a, b in pairs])),
        "rmse": float(np.mean([math.sqrt(float(np.mean((np.array(a) - np.array(b)) ** 2)))
                               for a, b in pairs])),
    }
    rs_ = [np.corrcoef(a, b)[0, 1] for a, b in pairs if np.std(a) > 0 and np.std(b) > 0]
    out["pearson_r"] = float(np.mean(rs_))
    complete = {i: by for i, by in rows.items()
                if len(by) == len({u for b in rows.values() for u in b})}
    if len(complete) >= 2:
        out["icc_2_k"] = _icc_pingouin(complete)
    return out


def _check(mine: dict[str, Any], oracle: dict[str, float]) -> None:
    for key, value in oracle.items():
        assert mine[key] is not None, key
        assert abs(mine[key] - value) <= TOL, (key, mine[key], value)


NUMBER_SCHEMES = ["relevance", "count", "pain", "sure", "prefer"]


@pytest.mark.parametrize("name", NUMBER_SCHEMES)
def test_numbers_against_krippendorff_pingouin_numpy_sklearn(name: str) -> None:
    config = rs.scheme("numbers", name)
    rows = _rows("numbers", name, lambda e: read_number(config, e))
    mine = rs.score(config, rs.entries("numbers")[name])
    oracle = _continuous_oracles(rows)
    _check(mine, oracle)
    assert ("icc_2_k" in oracle) == (name != "pain")  # the rotating panel has no table


def test_pingouin_has_no_icc_for_the_rotating_panel_either() -> None:
    config = rs.scheme("numbers", "pain")
    rows = _rows("numbers", "pain", lambda e: read_number(config, e))
    # listwise deletion leaves no item: pingouin refuses the empty table
    with pytest.raises(AssertionError, match="at least 5 non-missing values"):
        _icc_pingouin(rows)


def test_a_slider_keeps_its_ordinal_alpha() -> None:
    """The slider's ordinal α (Accord's, agreement.md) equals krippendorff's ordinal."""
    from app.core.agreement.continuous.metrics import alpha_level

    config = rs.scheme("numbers", "relevance")
    rows = _rows("numbers", "relevance", lambda e: read_number(config, e))
    theirs = krippendorff.alpha(reliability_data=_reliability(rows),
                                level_of_measurement="ordinal")
    mine = alpha_level(rows, "ordinal").value
    assert mine is not None and abs(mine - theirs) <= TOL


def _sklearn_filled(a: list[float], b: list[float], weights: str) -> float:
    lo, hi = int(min(a + b)), int(max(a + b))
    return float(cohen_kappa_score(a, b, weights=weights, labels=list(range(lo, hi + 1))))


def _statsmodels_filled(a: list[float], b: list[float], wt: str) -> float:
    from statsmodels.stats.inter_rater import cohens_kappa

    lo, hi = int(min(a + b)), int(max(a + b))
    table = np.zeros((hi - lo + 1, hi - lo + 1))
    for x, y in zip(a, b, strict=True):
        table[int(x) - lo, int(y) - lo] += 1
    return float(cohens_kappa(table, wt=wt).kappa)


def _ordinal_oracles(rows: Rows) -> dict[str, float]:
    pairs = [([float(x) for x in a], [float(y) for y in b]) for a, b in _pairs(rows)]
    rho = [pd.DataFrame({"a": a, "b": b}).corr("spearman").loc["a", "b"] for a, b in pairs]
    return {
        "weighted_kappa_linear": float(np.mean([_sklearn_filled(a, b, "linear")
                                                for a, b in pairs])),
        "weighted_kappa_quadratic": float(np.mean([_statsmodels_filled(a, b, "quadratic")
                                                   for a, b in pairs])),
        "spearman_rho": float(np.mean([r for r in rho if not math.isnan(r)])),
        "alpha_ordinal": float(krippendorff.alpha(reliability_data=_reliability(rows),
                                                  level_of_measurement="ordinal")),
    }


def test_likert_extras_against_sklearn_statsmodels_pandas_krippendorff() -> None:
    config = rs.scheme("numbers", "quality")
    rows = _rows("numbers", "quality", rs.read_likert(config))
    mine = rs.score(config, rs.entries("numbers")["quality"])
    _check(mine, _ordinal_oracles(rows))


def test_the_filled_scale_counts_an_unused_interior_point() -> None:
    """2 vs 4 on a scale nobody rated 3 on: the gap is two steps (Potato's fill)."""
    a, b = [1.0, 2.0, 4.0, 4.0, 5.0], [1.0, 4.0, 2.0, 4.0, 5.0]
    mine = weighted_kappa_linear(a, b).value
    filled = _sklearn_filled(a, b, "linear")
    unfilled = float(cohen_kappa_score(a, b, weights="linear"))
    assert mine is not None and abs(mine - filled) <= TOL
    assert abs(filled - unfilled) > 0.01


def _brute_tau_and_footrule(a: list[str], b: list[str]) -> tuple[float, float] | None:
    shared = [x for x in dict.fromkeys(a) if x in b]
    n = len(shared)
    if n < 2:
        return None
    last_b = {x: i for i, x in enumerate(b)}
    before_a = {x: sum(1 for y in shared if a.index(y) < a.index(x)) for x in shared}
    before_b = {x: sum(1 for y in shared if last_b[y] < last_b[x]) for x in shared}
    score = sum(1 if (a.index(x) < a.index(y)) == (last_b[x] < last_b[y]) else -1
                for x, y in itertools.combinations(shared, 2))
    worst = max(sum(abs(i - p[i]) for i in range(n)) for p in itertools.permutations(range(n)))
    footrule = sum(abs(before_a[x] - before_b[x]) for x in shared) / worst
    return score / math.comb(n, 2), footrule


def test_rankings_against_brute_force() -> None:
    rows = _rows("numbers", "priorities", read_ranking)
    taus, footrules = [], []
    seqs = by_annotator(rows)
    for u, v in itertools.combinations(sorted(seqs), 2):
        for item in sorted(set(seqs[u]) & set(seqs[v])):
            brute = _brute_tau_and_footrule(list(seqs[u][item]), list(seqs[v][item]))
            assert brute is not None
            taus.append(brute[0])
            footrules.append(brute[1])
    mine = rs.score(rs.scheme("numbers", "priorities"), rs.entries("numbers")["priorities"])
    assert abs(mine["kendall_tau"] - float(np.mean(taus))) <= TOL
    assert abs(mine["spearman_footrule"] - float(np.mean(footrules))) <= TOL
    assert 0 < mine["kendall_tau"] < 1  # the annotators disagree somewhere


def test_a_ranking_block_with_one_shared_option_everywhere_is_undefined() -> None:
    from app.core.agreement.ranking.metrics import ranking_block

    block = ranking_block({"i1": {"a": ("X", "Y"), "b": ("Z", "X")},
                           "i2": {"a": ("P",), "b": ("P", "Q")}})
    out = block.to_json()
    assert out["kendall_tau"] is None and out["spearman_footrule"] is None
    assert out["undefined"]["kendall_tau"] == (
        "no (pair, item) has a defined value (a and b on i1: the two rankings share only "
        "one option (X); an order needs two)")


@pytest.mark.parametrize("name", ["age", "budget", "stance", "tone"])
def test_interval_matrices_per_row_and_pooled_against_oracles(name: str) -> None:
    config = rs.scheme("numbers", name)
    rows = _rows("numbers", name, read_matrix)
    mine = rs.score(config, rs.entries("numbers")[name])
    assert mine["scale"] == "interval"
    keys = [k for k in mine if isinstance(mine[k], dict) and k != "pooled"]
    pooled: Rows = {}
    for key in keys:
        row = {i: {u: float(a[key]) for u, a in by.items() if key in a}
               for i, by in rows.items()}
        row = {i: by for i, by in row.items() if len(by) >= 2}
        pooled.update({f"{i}/{key}": by for i, by in row.items()})
        _check(mine[key], _continuous_oracles(row))
    _check(mine["pooled"], _continuous_oracles(pooled))


def test_multirate_is_ordinal_on_the_declared_labels() -> None:
    config = rs.scheme("numbers", "triage")
    rows = _rows("numbers", "triage", read_matrix)
    mine = rs.score(config, rs.entries("numbers")["triage"])
    assert mine["scale"] == "ordinal"
    rank = {label: float(k) for k, label in enumerate(config["labels"])}  # Low < Medium < High
    for key in config["options"]:
        row = {i: {u: rank[a[key]] for u, a in by.items()} for i, by in rows.items()}
        _check(mine[key], _ordinal_oracles(row))


def test_bws_is_nominal_against_krippendorff_statsmodels_sklearn() -> None:
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    config = rs.scheme("bws", "funniest")
    rows = gather(rs.entries("bws")["funniest"], read_matrix)
    mine = rs.score(config, rs.entries("bws")["funniest"])
    assert mine["scale"] == "nominal"
    code = {"A": 0, "B": 1, "C": 2, "D": 3}
    for key in ("best", "worst"):
        row = {i: {u: code[a[key]] for u, a in by.items()} for i, by in rows.items()}
        table = np.array([[row[i][u] for u in sorted(row[i])] for i in sorted(row)])
        counts, _ = aggregate_raters(table)
        kappas = [cohen_kappa_score(table[:, j], table[:, k])
                  for j, k in itertools.combinations(range(table.shape[1]), 2)]
        _check(mine[key], {
            "alpha_nominal": float(krippendorff.alpha(reliability_data=table.T.astype(float),
                                                      level_of_measurement="nominal")),
            "fleiss_kappa": float(fleiss_kappa(counts)),
            "cohen_kappa": float(np.mean(kappas)),
        })


@pytest.mark.parametrize("name", ["taxon", "features"])
def test_packed_sets_against_nltk_masi_and_sklearn_jaccard(name: str) -> None:
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import masi_distance

    config = rs.scheme("numbers", name)
    rows = _rows("numbers", name, lambda e: read_packed_set(config, e))
    mine = rs.score(config, rs.entries("numbers")[name])
    task = AnnotationTask(data=[(u, i, frozenset(v)) for i, by in rows.items()
                                for u, v in by.items()], distance=masi_distance)
    binarizer = MultiLabelBinarizer().fit([v for by in rows.values() for v in by.values()])
    seqs = by_annotator(rows)
    left, right = [], []
    for u, v in itertools.combinations(sorted(seqs), 2):
        for item in sorted(set(seqs[u]) & set(seqs[v])):
            left.append(seqs[u][item])
            right.append(seqs[v][item])
    jaccard = jaccard_score(binarizer.transform(left), binarizer.transform(right),
                            average="samples")
    _check(mine, {"alpha_masi": float(task.alpha()), "mean_jaccard": float(jaccard)})
    if name == "features":  # placements, not group names: cards in the same group agree
        one = next(iter(rows.values()))
        assert all("\u241f" in p for s in one.values() for p in s)
