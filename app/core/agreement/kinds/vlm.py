"""Grounding, region captions, robot episodes and world-model rollouts: four kinds, one
row each in the kind table, in one module because they share their reading (one stored
blob of independent layers, ``agreement/vlm/reading.py``) and their filling of the
result (each layer a metric group under Potato 2.12.1's dotted names).

The measures are in ``agreement/vlm/`` (``kinds.md`` B §2.9-2.12, A.5, A.6). Where the
spec is silent: the pair matrix is left empty (each group is pooled over pairs and
units, as Potato reports them, and a per-pair number would be a different metric).
Machine raters (A.4) need nothing here: the report's partitions re-run these rows on
the people alone (the headline), the machines alone and everyone.
Accord departs from Potato in two places, both stated: a malformed mark, phase or shape
is an input error where Potato drops it, and the embedding caption distance is refused
(A.6) where Potato falls back to the token distance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.kinds.common import NOBODY, ONE_ANNOTATOR
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind, LayeredAnswer

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job


def _layers(study: Study, scheme: Scheme) -> dict[str, dict[str, Any]]:
    return {item: {a: v.parsed for a, v in by.items() if isinstance(v, LayeredAnswer)}
            for item, by in study.answers_for(scheme.name).items()}


def _fill(result: SchemeResult, metrics: dict[str, Coefficient], counts: dict[str, int],
          answers: dict[str, dict[str, Any]], declared: tuple[str, ...]) -> None:
    scored = [i for i, by in answers.items() if len(by) >= 2]
    undefined = NOBODY if not answers else ONE_ANNOTATOR
    for name in declared:
        if name not in metrics and not name.startswith("pointing."):
            metrics[name] = Coefficient.undefined(undefined)
    for name, value in metrics.items():
        if not scored:
            value = Coefficient.undefined(undefined)
        result.put(name, value)
        if name in COUNTS and value.value is not None:
            result.metrics[name] = int(value.value)  # a count, printed as one
    result.n_items = len(scored)
    result.n_pairs = sum(len(answers[i]) * (len(answers[i]) - 1) // 2 for i in scored)
    result.coverage["n_items_scored"] = len(scored)
    result.extra.update(counts)


def _score(measure: Callable[[Scheme, dict[str, dict[str, Any]]], Any],
           declared: tuple[str, ...]
           ) -> Callable[[Study, Scheme, SchemeResult, SetOptions], Job[list[SchemeResult]]]:
    def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
              ) -> Job[list[SchemeResult]]:
        yield from ()
        answers = _layers(study, scheme)
        agreement = measure(scheme, {i: by for i, by in answers.items() if len(by) >= 2})
        _fill(result, agreement.metrics, agreement.counts, answers, declared)
        if getattr(agreement, "sweep", None):
            result.extra["sweep"] = agreement.sweep
        if getattr(agreement, "potato", None):
            result.extra["potato_iaa"] = agreement.potato
        result.notes.extend(getattr(agreement, "notes", ()))
        result.details = agreement
        return [result]
    return score


def _grounding(scheme: Scheme, answers: dict[str, dict[str, Any]]) -> Any:
    from app.core.agreement.vlm.grounding import grounding_agreement

    return grounding_agreement(answers)


def _captions(scheme: Scheme, answers: dict[str, dict[str, Any]]) -> Any:
    from app.core.agreement.vlm.captions import caption_agreement

    distance = str(scheme.config.get("agreement_distance") or "token").lower()
    return caption_agreement(answers, distance)


def _episodes(scheme: Scheme, answers: dict[str, dict[str, Any]]) -> Any:
    from app.core.agreement.vlm.episodes import episode_agreement

    return episode_agreement(answers)


def _rollouts(scheme: Scheme, answers: dict[str, dict[str, Any]]) -> Any:
    from app.core.agreement.vlm.rollouts import rollout_agreement

    return rollout_agreement(answers)


COUNTS = frozenset({"matching.n_matched_regions", "matching.n_unmatched_regions",
                    "localization.n_matched_pairs"})
GROUNDING_METRICS = ("detection.alpha", "detection.percent_agreement",
                     "localization.mean_iou", "localization.median_iou",
                     "pointing.mean_pairwise_distance", "coverage.answered_fraction")
CAPTION_METRICS = ("alpha", "mean_pairwise_distance", "matching.n_matched_regions",
                   "matching.n_unmatched_regions")
EPISODE_METRICS = ("phases.mean_agreement", "phases.mean_matched_iou",
                   "phases.detection_f1", "outcome.outcome_alpha", "reward.reward_icc",
                   "reward.reward_pearson_r", "reward.reward_coverage")
ROLLOUT_METRICS = ("detection.alpha", "localization.mean_offset",
                   "localization.median_offset", "localization.sigma", "localization.ks",
                   "localization.n_matched_pairs", "category.alpha", "severity.alpha",
                   "preference.alpha", "counterfactual.alpha", "coverage.answered_fraction")

GROUNDING = KindSpec(
    kind=Kind.GROUNDING, potato_types=frozenset({"grounding_eval"}),
    metrics=GROUNDING_METRICS, score=_score(_grounding, GROUNDING_METRICS),
    summary="referring expressions: present or not, where, answered")
CAPTIONS = KindSpec(
    kind=Kind.CAPTIONS, potato_types=frozenset({"region_caption"}),
    metrics=CAPTION_METRICS, score=_score(_captions, CAPTION_METRICS),
    summary="captions of matched regions by their words")
EPISODES = KindSpec(
    kind=Kind.EPISODES, potato_types=frozenset({"episode_annotation"}),
    metrics=EPISODE_METRICS, score=_score(_episodes, EPISODE_METRICS),
    summary="robot episodes: phases, outcome, reward curve")
ROLLOUTS = KindSpec(
    kind=Kind.ROLLOUTS, potato_types=frozenset({"rollout_evaluation"}),
    metrics=ROLLOUT_METRICS, score=_score(_rollouts, ROLLOUT_METRICS),
    summary="world-model rollouts: breaks, when, why, which is better")
