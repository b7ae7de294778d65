"""The certificate's human words for configuration keys: kinds, parameters, result fields.

A client reading the certificate should not meet ``no_worse_than_human`` or
``accepted_by_tier_counts``; those are the configuration's and the JSON's names (the
attached JSON keeps them). Metric names are :mod:`app.report.agreement_vocabulary`'s,
shared with the agreement report. An unknown key is printed with its underscores as
spaces, so a new field never shows as a raw identifier (and never breaks mid-word: a
long identifier has no space to wrap at).
"""

from __future__ import annotations

KIND = {
    "selective_risk": "selective risk",
    "ppi": "prediction-powered estimate",
    "no_worse_than_human": "no worse than a person",
    "budget_first": "budget plan",
    "distributional": "distribution match",
    "threshold_legacy": "legacy threshold",
}
PARAMETER = {
    "error": "error target",
    "confidence": "confidence",
    "tolerance": "tolerance",
    "max_distance": "maximum distance",
    "groups_by": "groups by",
    "estimand": "estimand",
    "by": "by",
    "human_labels": "human labels",
    "human_usd": "budget (USD)",
    "threshold": "threshold",
    "epsilon": "margin ε",
    "max_width": "maximum width",
    "per_class": "per class",
}
RESULT = {
    "accepted_by_tier_counts": "labels accepted per tier",
    "coverage": "coverage",
    "n": "calibration items",
    "n_items": "items",
    "statement": "statement",
    "level": "level",
    "alpha": "level",
    "look": "look",
    "threshold": "threshold",
    "more_overlap_items": "more overlap items needed",
}


def words(key: object, names: dict[str, str]) -> str:
    """``names[key]``, else the key with its underscores as spaces."""
    text = str(key)
    return names.get(text, text.replace("_", " "))


def kind_name(kind: object) -> str:
    return words(kind, KIND)


def parameter_name(key: object) -> str:
    return words(key, PARAMETER)


def result_name(key: object) -> str:
    return words(key, RESULT)
