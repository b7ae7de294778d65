"""The words and the look of the agreement report: metric meanings, headings, the
stylesheet, and which metric heads a scheme or its pair matrix.

Kept apart from :mod:`app.report.agreement_html` (which assembles the page) so that the
wording can be read and changed in one place; the CSV takes its pair sentences from
here too.

The stylesheet is plain CSS that a browser renders fully and Qt's rich-text engine
(``QTextDocument``, used for previews) renders in part: colours, fonts, table cell
padding and backgrounds work in both; block borders and ``max-width`` only in a
browser. Colours are muted greys and one blue, readable in print.

Machine raters (the last part): who is a machine, and the three partitions, in words the
text table, the HTML page, the certificate and the overview share
(:mod:`app.core.agreement.partitions` computes them). With no machine rater every
function there returns nothing, and the reports are what they were. Choices where the
spec is silent:

- The partitions are shown per scheme by the scheme's headline metric (α for the
  categorical kinds, mean agreement for sets, mean sensitivity for masks), with the
  items each partition scored: the whole partitions are in the JSON and the CSV.
- Partitions are named in words a lead reads: "people" (``human_human``), "machines"
  (``machine_machine``), "everyone" (``pooled``).
- A machine rater is marked "⚙ name (machine)" wherever a name is shown, the mark the
  answers view already gives the labelling engine's tiers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.report.html_escape import text
from app.report.kinds.words import WORDS as KIND_WORDS

if TYPE_CHECKING:
    from app.core.agreement.result import AgreementReport

HEADLINE = {kind: words.headline for kind, words in KIND_WORDS.items()}
"""The metric that heads a scheme, by kind (``app/report/kinds/words.py``)."""
MATRIX = {kind: words.matrix for kind, words in KIND_WORDS.items() if words.matrix}
"""The metric of a scheme's annotator-pair matrix, by kind."""
MEANING = {
    "alpha": "Krippendorff's α over all units",
    "fleiss_kappa": "Fleiss' κ (varying number of raters per unit)",
    "kappa": "mean of Cohen's κ over annotator pairs",
    "percent_agreement": "share of agreeing annotator pairs, pooled over units",
    "mean_jaccard": "mean Jaccard similarity of the label sets",
    "mean_agreement": "mean item score: matched IoU over matched and unmatched objects",
    "mean_object_count_diff": "mean difference in object counts per pair and item (0 is best)",
    "detection_f1": "2 · matched / (objects of A + objects of B)",
    "mean_matched_iou": "mean IoU of matched objects",
    "detection_alpha": "detection: did both find the object (α over clusters)",
    "classification_alpha": "classification: did they give it the same label",
    "sigma": "localization: 1 − within-item / between-item distance",
    "ks": "localization: Kolmogorov–Smirnov, within- vs between-item distances",
    "mean_within_distance": "mean (1 − GIoU) / 2 of matched pairs on the same item",
    "mean_between_distance": "mean (1 − GIoU) / 2 of objects from different items",
    "mean_sensitivity": "STAPLE, mean over annotators (low: under-segments)",
    "mean_specificity": "STAPLE, mean over annotators (low: over-segments)",
    "token_level_kappa": "Cohen's (2) or Fleiss' (3+) κ over the characters' BIO tags, "
                         "mean over items",
    "span_f1_exact": "F1 of identical spans (offsets and label), mean over pairs and items",
    "span_f1_partial": "F1 of same-label spans overlapping by half, matched one to one, "
                       "mean over pairs and items",
    "char_alpha": "Krippendorff's nominal α over characters (Potato's "
                  "krippendorff_alpha_u; not unitizing α), mean over items",
    "gamma_mathet": "Mathet's γ: best alignment of all annotators' spans against chance, "
                    "mean over items",
}
NAME = {
    "alpha": "Krippendorff's α",
    "fleiss_kappa": "Fleiss' κ",
    "kappa": "Cohen's κ (mean over pairs)",
    "percent_agreement": "percent agreement",
    "mean_jaccard": "mean Jaccard similarity",
    "mean_agreement": "mean agreement (matched IoU)",
    "mean_object_count_diff": "mean object-count difference",
    "detection_f1": "detection F1",
    "mean_matched_iou": "mean IoU of matched objects",
    "detection_alpha": "detection α",
    "classification_alpha": "classification α",
    "sigma": "localization σ",
    "ks": "localization Kolmogorov–Smirnov",
    "mean_within_distance": "mean within-item distance",
    "mean_between_distance": "mean between-item distance",
    "mean_sensitivity": "mean sensitivity (STAPLE)",
    "mean_specificity": "mean specificity (STAPLE)",
    "n_units": "units compared",
    "token_level_kappa": "token-level κ (character BIO)",
    "span_f1_exact": "span F1, exact",
    "span_f1_partial": "span F1, partial",
    "char_alpha": "character α (nominal)",
    "gamma_mathet": "Mathet's γ",
}
"""A metric's short human name, for tables that cannot hold :data:`MEANING`'s sentence
(the certificate); the JSON keys stay the identifiers."""


def metric_name(key: str) -> str:
    """The human name of a metric key; an unknown key with its underscores as spaces."""
    return NAME.get(key, key.replace("_", " "))


COVERAGE = {
    "n_items_answered": "items answered by anyone",
    "n_items_scored": "items scored (two or more annotators)",
    "n_items_one_annotator": "items with one annotator only (not scored)",
    "n_items_unanswered": "items nobody answered",
    "n_items_below_cap": "scored items below their num_annotators_per_item cap",
    "n_items_over_budget": "items over the comparison budget (skipped whole)",
    "n_items_mask_size_mismatch": "items with masks of different sizes (skipped)",
    "n_items_nothing_marked": "items nobody marked a span on (not scored)",
    "n_items_no_text": "items with no text to mark (not scored)",
}
CORRECTED_HEAD = (
    "Chance-corrected",
    "agreement beyond what chance alone would give: 0 is "
    "chance level, 1 is perfect, below 0 is worse than chance.",
)
UNCORRECTED_HEAD = (
    "Not chance-corrected",
    "raw overlap and shares: they include the "
    "agreement that chance alone would produce, so read them beside the "
    "chance-corrected numbers.",
)
STAPLE_HEAD = (
    "STAPLE estimates",
    "whose boundary to trust: per-annotator sensitivity and "
    "specificity, not agreement coefficients.",
)

STYLE = """
body { font-family: "Segoe UI", "Helvetica Neue", Arial, sans-serif; color: #24303a;
  background: #ffffff; max-width: 70em; margin: 1.5em auto; padding: 0 1.5em;
  line-height: 1.45; font-size: 15px; }
h1 { font-size: 26px; font-weight: 600; color: #1b2a35; margin: 0.2em 0 0.1em; }
h2 { font-size: 20px; font-weight: 600; color: #1b2a35; margin: 1.8em 0 0.3em;
  padding-bottom: 0.2em; border-bottom: 2px solid #d8dee3; }
h3 { font-size: 13px; font-weight: 600; color: #56656f; margin: 1.2em 0 0.3em;
  text-transform: uppercase; letter-spacing: 0.05em; }
p { margin: 0.3em 0 0.6em; }
.meta { color: #66737c; }
.kind { color: #56656f; font-weight: normal; font-size: 15px; }
.hint { color: #66737c; font-size: 13px; }
table { border-collapse: collapse; margin: 0.3em 0 0.9em; }
th, td { padding: 5px 12px; text-align: left; vertical-align: top;
  border-bottom: 1px solid #e4e8eb; }
th { background-color: #f2f4f6; color: #36444e; font-weight: 600; font-size: 13px; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.undefined, span.undefined { color: #8c5a14; font-style: italic; }
table.matrix td { text-align: center; min-width: 5.5em; border: 1px solid #ffffff; }
table.matrix th { text-align: center; }
td.self { background-color: #f7f8f9; color: #a3adb4; }
ul { margin: 0.2em 0 0.8em; padding-left: 1.4em; }
li { margin: 0.1em 0; }
.legend td { font-size: 12px; min-width: 3.5em; text-align: center; border: 1px solid #ffffff; }
p.footer { margin-top: 3em; color: #7a868e; font-size: 13px; border-top: 1px solid #e4e8eb;
  padding-top: 0.6em; }
"""

PAIR_UNDEFINED = {
    "alpha": "the two annotators gave one and the same label on every unit they share: "
    "α has no variation to correct against",
    "kappa": "the two annotators gave one and the same label on every unit they share: "
    "κ has no variation to correct against",
    "mean_matched_iou": "no object of this pair was matched, so there is no matched IoU",
}
"""Why a pair's metric is ``None`` (the report stores no sentence per pair); a
scheme-level reason for the same metric, when there is one, wins."""
PAIR_UNDEFINED_OTHER = "undefined for this pair"


# ----------------------------------------------------------------- machine raters

MACHINE_MARK = "⚙"
WORDS = {"human_human": "people", "machine_machine": "machines", "pooled": "everyone"}
PARTITIONS = tuple(WORDS)
"""The partitions' keys in ``accord agreement --json`` (``partitions``), in order."""


def machine_label(name: str) -> str:
    """How a machine rater's name is shown everywhere."""
    return f"{MACHINE_MARK} {name} (machine)"


@dataclass(frozen=True, slots=True)
class Cell:
    value: float | int | None
    reason: str | None
    n_items: int


@dataclass(frozen=True, slots=True)
class Row:
    scheme: str
    metric: str
    cells: dict[str, Cell]
    """By partition (``human_human``, ``machine_machine``, ``pooled``)."""


def partition_rows(report: AgreementReport) -> list[Row]:
    """One row per computed scheme: its headline metric in each partition."""
    if not report.partitions:
        return []
    rows = []
    for name, result in report.schemes.items():
        if result.not_computed is not None or not result.kind:
            continue
        metric = HEADLINE.get(result.kind, next(iter(result.metrics), ""))
        cells = {}
        for part in PARTITIONS:
            other = report.partitions[part].schemes.get(name)
            if other is None:
                continue
            cells[part] = Cell(other.metrics.get(metric), other.undefined.get(metric),
                               other.n_items)
        rows.append(Row(name, metric, cells))
    return rows


def raters_sentence(report: AgreementReport) -> str:
    """'3 people and 3 machine raters (llm_judge 2024-07-18 (llm); …). Every headline
    number is over people only; …', or '' without machine raters."""
    block = report.annotators
    if not block or not block.get("n_machine"):
        return ""
    people = int(block["n_human"])
    machines = int(block["n_machine"])
    details = "; ".join(block["machine_detail"].values())
    return (f"{people} {'person' if people == 1 else 'people'} and {machines} machine "
            f"rater{'' if machines == 1 else 's'} ({details}). Every headline number is over "
            "people only; the machines' agreement and everyone's together are under "
            "partitions.")


def number(value: float | int | None) -> str:
    if value is None:
        return "undefined"
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def partition_text(report: AgreementReport) -> list[str]:
    """The partitions as lines of the text table ([] without machine raters)."""
    rows = partition_rows(report)
    if not rows:
        return []
    width = max(len(f"{r.scheme} · {NAME.get(r.metric, r.metric)}") for r in rows) + 2
    lines = ["Partitions (people are the headline; each scheme's headline metric, items "
             "scored in brackets):",
             f"  {'scheme':<{width}}" + "".join(f"{WORDS[p]:>20}" for p in PARTITIONS)]
    for row in rows:
        cells = "".join(
            f"{number(c.value) + f' ({c.n_items})':>20}" if (c := row.cells.get(p)) else
            f"{'—':>20}" for p in PARTITIONS)
        lines.append(f"  {row.scheme + ' · ' + NAME.get(row.metric, row.metric):<{width}}"
                     f"{cells}")
    return lines


def partition_html(report: AgreementReport) -> list[str]:
    """Who the machine raters are and the partitions table, for the HTML page ([] without
    machine raters). Every name goes through :func:`~app.report.html_escape.text`."""
    rows = partition_rows(report)
    sentence = raters_sentence(report)
    if not rows and not sentence:
        return []
    out = ["<h2>People and machine raters</h2>", f"<p>{text(sentence)}</p>"]
    if rows:
        out.append("<table>")
        out.append("<tr><th>scheme</th><th>metric</th>"
                   + "".join(f"<th>{WORDS[p]}</th><th>items</th>" for p in PARTITIONS)
                   + "</tr>")
        for row in rows:
            cells = []
            for part in PARTITIONS:
                cell = row.cells.get(part)
                if cell is None:
                    cells.append("<td>—</td><td></td>")
                    continue
                shown = (f'<span class="undefined" title="{text(cell.reason or "")}">'
                         "undefined</span>" if cell.value is None else number(cell.value))
                cells.append(f'<td class="num">{shown}</td><td class="num">{cell.n_items}'
                             "</td>")
            out.append(f"<tr><td>{text(row.scheme)}</td>"
                       f"<td>{text(NAME.get(row.metric, row.metric))}</td>{''.join(cells)}"
                       "</tr>")
        out.append("</table>")
        out.append('<p class="hint">Every other number on this page is over people only. '
                   "The JSON (<code>accord agreement --json</code>) has every partition "
                   "whole, under <code>partitions</code>.</p>")
    return out


def raters_note(report: AgreementReport) -> str:
    """The overview's word under the annotators ('' without machine raters)."""
    block = report.annotators
    if not block or not block.get("n_machine"):
        return ""
    n = int(block["n_machine"])
    return (f"{n} of them machine rater{'s' if n != 1 else ''} ({MACHINE_MARK}, declared in "
            "Potato's config): every number on the cards is over people only; the machines "
            "and everyone are on each card's partitions line.")


def card_line(report: AgreementReport, scheme: str, label: Callable[[str], str]) -> str:
    """A scheme's headline among the machine raters and over everyone, in one line
    ('' without machine raters); ``label`` names the metric as the card does."""
    row = next((r for r in partition_rows(report) if r.scheme == scheme), None)
    if row is None:
        return ""
    parts = [f"{words} {number(cell.value)} on {cell.n_items} items"
             for key, words in (("machine_machine", f"machine raters ({MACHINE_MARK})"),
                                ("pooled", "everyone"))
             if (cell := row.cells.get(key)) is not None]
    return (f"Above: people only. {label(row.metric)} of the " + " · ".join(parts) + ".")
