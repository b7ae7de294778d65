"""What each contract kind promises, in one sentence (the certificate prints it).

Written from the contract's configured keys alone, so a reader of the certificate
need not know the kinds; the numbers the contract reached are beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _selective_risk(schema: str, params: dict[str, Any]) -> str:
    """What a ``selective_risk`` contract promises, in one sentence."""
    per = " (each predicted class separately)" if params.get("per_class") else ""
    return (f"the error among accepted machine labels on '{schema}' is at most "
            f"{float(params['error']) * 100:g}%{per}")


def _ppi(schema: str, params: dict[str, Any]) -> str:
    """What a ``ppi`` contract promises, in one sentence."""
    by = f" within each value of '{params['by']}'" if params.get("by") else ""
    width = (f", each interval at most {params['max_width']:g} wide"
             if params.get("max_width") is not None else "")
    return (f"the intervals for the {params.get('estimand', 'prevalence')} of '{schema}'"
            f"{by} cover the true value{width}")


def _no_worse_than_human(schema: str, params: dict[str, Any]) -> str:
    """What a ``no_worse_than_human`` contract promises, in one sentence."""
    return (f"the machine agrees with people on '{schema}' no worse than a person does "
            f"(margin {params.get('epsilon', 0.1):g}), beating at least half of them")


def _budget_first(schema: str, params: dict[str, Any]) -> str:
    """What a ``budget_first`` contract promises, in one sentence."""
    budget = (f"{params['human_labels']} human labels" if params.get("human_labels")
              else f"{params.get('human_usd')} USD of human labels")
    return (f"a projection of what {budget} can certify on '{schema}'; it promises "
            "nothing about the labels")


def _distributional(schema: str, params: dict[str, Any]) -> str:
    """What a ``distributional`` contract promises, in one sentence."""
    limit = (f" within Jensen–Shannon distance {params['max_distance']:g} of"
             if params.get("max_distance") is not None else " compared with")
    return f"the machine's label distribution on '{schema}' is{limit} the people's"


def _threshold_legacy(schema: str, params: dict[str, Any]) -> str:
    """What a ``threshold_legacy`` contract promises, in one sentence."""
    return (f"machine labels on '{schema}' with confidence at least "
            f"{float(params['threshold']):g} are accepted without a test (uncertified)")


CLAIMS: dict[str, Callable[[str, dict[str, Any]], str]] = {
    "selective_risk": _selective_risk,
    "ppi": _ppi,
    "no_worse_than_human": _no_worse_than_human,
    "budget_first": _budget_first,
    "distributional": _distributional,
    "threshold_legacy": _threshold_legacy,
}
