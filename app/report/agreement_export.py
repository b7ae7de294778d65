"""The agreement report as a file: CSV, JSON or a standalone HTML page, written atomically.

All three come from one :class:`~app.core.agreement.result.AgreementReport`, the same
object the text table and ``--json`` print, so a file cannot disagree with the screen
(architecture rule 5). The format follows the file name's suffix: ``.csv``, ``.json``,
``.html`` (``.htm`` too); any other suffix is bad input.

JSON
    Exactly ``report.to_json()`` (the keys of ``cli.md``), serialized as ``accord
    agreement --json`` prints it: two-space indent, UTF-8 without ``\\u`` escapes, a final
    newline, and ``allow_nan=False`` (a NaN would be a bug, and fails loudly).

CSV (one table, long format; chosen so one file holds everything and filters cleanly)
    Columns: ``scheme, kind, scope, subject, metric, value, interval_low, interval_high,
    chance_corrected, undefined_reason``. One row per number:

    - ``scope=project``: ``n_items``, ``n_annotators`` of the whole project (``scheme``
      and ``kind`` empty);
    - ``scope=scheme``: each headline metric, with its bootstrap interval when there is
      one; a scheme whose kind is not computed gets one row with an empty ``metric`` and
      the sentence in ``undefined_reason``;
    - ``scope=coverage``: ``n_items``, ``n_pairs``, ``n_items_skipped`` and every count of
      the scheme's ``coverage`` block;
    - ``scope=detail``: every other number the scheme carries (threshold, bootstrap and
      chance-baseline settings, ``ks_pvalue``, ``kappa_pairs``...), nested keys joined
      with a dot (``bootstrap.seed``); text and true/false details stay in the JSON;
    - ``scope=annotator`` (masks): ``subject`` is the annotator, metrics ``sensitivity``,
      ``specificity``, ``n_runs``;
    - ``scope=item``: items that carry most of the within-item distance when σ and KS
      disagree (``subject`` the item id, metric ``share_of_within_distance``);
    - ``scope=pair``: ``subject`` is the pair key ``"a|b"`` of ``cli.md``, one row per
      pair metric;
    - ``scope=partition`` (only with machine raters): ``subject`` is the partition
      (``human_human``, ``machine_machine``, ``pooled``), one row per scheme metric and
      the scheme's ``n_items``, and the partition's ``n_annotators`` (``scheme``
      empty). The ``scope=scheme`` rows are then people only; who is a machine is in
      the JSON's ``annotators`` block.

    ``value`` is empty exactly when the number is undefined, and then
    ``undefined_reason`` holds the sentence (for a pair, where the report stores no
    sentence, the reason follows from the metric: see :data:`PAIR_UNDEFINED`). Floats
    are written with ``repr`` so they read back bit for bit; ``chance_corrected`` is
    ``yes``, ``no``, or empty for counts and settings. Notes are sentences, not numbers:
    they are in the JSON and the HTML, not in the CSV. Plain UTF-8 (no byte-order mark),
    ``\\r\\n`` line ends as RFC 4180 says. A text cell that would start with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return is prefixed with ``'`` so a
    spreadsheet shows it instead of running it as a formula (OWASP's CSV-injection
    advice); numbers are never prefixed.

Writing goes through :func:`app.core.atomic.write_atomically`: the whole file
is built in memory, written to a temporary file in the target's folder, fsync-ed and
renamed over the target, so an interrupted export leaves the old file or none, never
half of one. Like ``accord label export``, a missing target folder is created.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.core.agreement.result import AgreementReport, SchemeResult
from app.core.atomic import write_atomically
from app.core.errors import InputError
from app.report.agreement_html import render_html
from app.report.agreement_text import CHANCE_CORRECTED
from app.report.agreement_vocabulary import PAIR_UNDEFINED, PAIR_UNDEFINED_OTHER
from app.report.kinds.potato_values import potato_reason, potato_values

FORMATS = {".csv": "csv", ".json": "json", ".html": "html", ".htm": "html"}
COLUMNS = ("scheme", "kind", "scope", "subject", "metric", "value", "interval_low",
           "interval_high", "chance_corrected", "undefined_reason")
NOT_CHANCE_CORRECTED = {"mean_agreement", "mean_object_count_diff", "detection_f1",
                        "mean_matched_iou", "percent_agreement", "mean_jaccard",
                        "mean_within_distance", "mean_between_distance",
                        # the rating kinds' correlations, distances and errors (issue 37)
                        "pearson_r", "mae", "rmse", "spearman_rho", "kendall_tau",
                        "spearman_footrule",
                        # the span kind's F1s (issue 37)
                        "span_f1_exact", "span_f1_partial",
                        # grounding, captions, episodes, rollouts (issue 38)
                        "detection.percent_agreement", "localization.mean_iou",
                        "localization.median_iou", "pointing.mean_pairwise_distance",
                        "coverage.answered_fraction", "mean_pairwise_distance",
                        "matching.n_matched_regions", "matching.n_unmatched_regions",
                        "phases.mean_agreement", "phases.mean_matched_iou",
                        "phases.detection_f1", "reward.reward_icc",
                        "reward.reward_pearson_r", "reward.reward_coverage",
                        "localization.mean_offset", "localization.median_offset",
                        "localization.ks", "localization.n_matched_pairs"}
_SKIPPED_EXTRAS = {"annotators", "disagreement_items", "rejected", "n_units"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def format_for(path: Path, *, option: str = "-o/--output") -> str:
    """``csv``, ``json`` or ``html`` from the suffix; :class:`InputError` otherwise."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        found = f"'{path.suffix}'" if path.suffix else "no suffix"
        raise InputError(f"expected a file name ending in .csv, .json or .html (the format "
                         f"follows the suffix), found {found} in '{path}'", key=option)
    return fmt


def render(report: AgreementReport, fmt: str) -> bytes:
    """The report in ``fmt`` (``csv``, ``json``, ``html``) as UTF-8 bytes."""
    if fmt == "csv":
        return render_csv(report).encode("utf-8")
    if fmt == "json":
        return render_json(report).encode("utf-8")
    if fmt == "html":
        return render_html(report).encode("utf-8")
    raise ValueError(f"unknown report format {fmt!r}")


def write_report(report: AgreementReport, path: Path, fmt: str | None = None) -> str:
    """Write ``report`` to ``path`` atomically; return the format written.

    ``fmt`` defaults to the one the suffix names. A file system refusal (no permission,
    no space, a folder in the way) becomes an :class:`InputError` naming the file.
    """
    chosen = fmt if fmt is not None else format_for(path)
    data = render(report, chosen)
    try:
        write_atomically(path, data)
    except OSError as error:
        reason = error.strerror or str(error)
        raise InputError(f"cannot write the report: {reason}", file=path) from error
    return chosen


def render_json(report: AgreementReport) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def render_csv(report: AgreementReport) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    writer.writerows(csv_rows(report))
    return buffer.getvalue()


def csv_rows(report: AgreementReport) -> Iterator[list[str]]:
    """The CSV's rows after the header, as the strings written."""
    yield _row("", "", "project", "", "n_items", report.n_items)
    yield _row("", "", "project", "", "n_annotators", report.n_annotators)
    for result in report.schemes.values():
        yield from _scheme_rows(result)
    for part, partition in report.partitions.items():
        yield _row("", "", "partition", part, "n_annotators", partition.n_annotators)
        for result in partition.schemes.values():
            if result.not_computed is not None:
                continue
            for metric, value in result.metrics.items():
                yield _row(result.name, result.kind or "", "partition", part, metric, value,
                           interval=result.intervals.get(metric),
                           reason=result.undefined.get(metric, PAIR_UNDEFINED_OTHER),
                           corrected=_corrected(metric))
            yield _row(result.name, result.kind or "", "partition", part, "n_items",
                       result.n_items)


def _scheme_rows(result: SchemeResult) -> Iterator[list[str]]:
    name, kind = result.name, result.kind or ""
    if result.not_computed is not None:
        yield _row(name, kind, "scheme", "", "", None, reason=result.not_computed)
        return
    for metric, value in result.metrics.items():
        yield _row(name, kind, "scheme", "", metric, value,
                   interval=result.intervals.get(metric),
                   reason=result.undefined.get(metric, PAIR_UNDEFINED_OTHER),
                   corrected=_corrected(metric))
    counts: dict[str, Any] = {"n_items": result.n_items, "n_pairs": result.n_pairs,
                              "n_items_skipped": result.n_items_skipped, **result.coverage}
    for metric, value in counts.items():
        yield _row(name, kind, "coverage", "", metric, value)
    extras = {k: v for k, v in result.extra.items() if k not in _SKIPPED_EXTRAS}
    for metric, value in _numbers(extras):
        yield _row(name, kind, "detail", "", metric, value)
    for metric, value in potato_values(result):  # Potato's nulls: its numbers came above
        if value is None and "potato_iaa" in extras:
            yield _row(name, kind, "detail", "", f"potato_iaa.{metric}", None,
                       reason=potato_reason(result))
    annotators = result.extra.get("annotators")
    if isinstance(annotators, dict):
        for who, values in annotators.items():
            for metric, value in values.items():
                pixels = "foreground" if metric == "sensitivity" else "background"
                yield _row(name, kind, "annotator", who, metric, value,
                           reason=f"no run of this annotator had {pixels} to measure "
                                  f"{metric} on")
    for carrier in result.extra.get("disagreement_items", []):
        yield _row(name, kind, "item", str(carrier["item"]), "share_of_within_distance",
                   carrier["share"])
    why = result.extra.get("pair_undefined") or {}  # numbers, rankings: the pair's own
    for key, pair in result.pairs.items():
        for metric, value in pair.items():
            reason = why.get(key, {}).get(metric) or result.undefined.get(
                metric) or PAIR_UNDEFINED.get(metric, PAIR_UNDEFINED_OTHER)
            yield _row(name, kind, "pair", key, metric, value, reason=reason,
                       corrected=_corrected(metric))


def _numbers(values: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, float | int]]:
    """Numeric leaves of nested dicts, keys joined with dots; text, flags, lists skipped."""
    for key, value in values.items():
        if isinstance(value, dict):
            yield from _numbers(value, f"{prefix}{key}.")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            yield f"{prefix}{key}", value


def _corrected(metric: str) -> str:
    if metric in CHANCE_CORRECTED:
        return "yes"
    return "no" if metric in NOT_CHANCE_CORRECTED else ""


def _row(scheme: str, kind: str, scope: str, subject: str, metric: str,
         value: float | int | None, *, interval: list[float] | None = None,
         reason: str = "", corrected: str = "") -> list[str]:
    low, high = (_number(interval[0]), _number(interval[1])) if interval else ("", "")
    return [_text(scheme), kind, scope, _text(subject), metric, _number(value), low, high,
            corrected, _text(reason) if value is None else ""]


def _number(value: float | int | None) -> str:
    if value is None:
        return ""
    return str(value) if isinstance(value, int) else repr(float(value))


def _text(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_START) else value
