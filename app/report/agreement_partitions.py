"""Machine raters in the written reports: who is a machine, and the three partitions.

One place for the words, so the text table, the HTML page, the CSV, the certificate and
the overview say the same thing (:mod:`app.core.agreement.partitions` computes it).
With no machine rater every function here returns nothing, and the reports are what
they were.

Choices where the spec is silent:

- The partitions are shown per scheme by the scheme's headline metric (α for the
  categorical kinds, mean agreement for sets, mean sensitivity for masks), with the
  items each partition scored: the whole partitions are in the JSON and the CSV.
- Partitions are named in words a lead reads: "people" (``human_human``), "machines"
  (``machine_machine``), "everyone" (``pooled``).
- A machine rater is marked "⚙ name (machine)" wherever a name is shown, the mark the
  answers view already gives the labelling engine's tiers.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.agreement.partitions import PARTITIONS
from app.core.agreement.result import AgreementReport
from app.report.agreement_vocabulary import HEADLINE, NAME
from app.report.html_escape import text

MACHINE_MARK = "⚙"
WORDS = {"human_human": "people", "machine_machine": "machines", "pooled": "everyone"}


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
