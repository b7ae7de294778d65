"""The agreement report as CSV, JSON and HTML: same numbers, nothing from the user's files
interpreted as markup or formula, undefined values as sentences."""

from __future__ import annotations

import csv
import io
import json
import math
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest

from app.core.agreement.report import agreement_report
from app.core.agreement.result import AgreementReport, SchemeResult
from app.core.formats.potato.project import read_potato
from app.core.progress import run
from app.report.agreement_export import COLUMNS, render_csv, render_json
from app.report.agreement_html import render_html
from tests.potato_project import label, simple_items, structured, write_project

HOSTILE = ['<img src="file:///etc/hostname">', '<a href="file:///etc/passwd">me</a>',
           'zed"><script>alert(1)</script>']
SCHEME = '<img src="file:///etc/hostname">'


class Markup(HTMLParser):
    """Tags, attributes and text of a page, as a browser's tokenizer would see them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.chunks: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)

    @property
    def text(self) -> str:
        return "".join(self.chunks)


def parse(page: str) -> Markup:
    parser = Markup()
    parser.feed(page)
    parser.close()
    return parser


def _hostile_project(tmp_path: Path) -> Path:
    """Three annotators with hostile names (in user_state.json's user_id), a radio scheme
    with a hostile name, a likert scheme on which everyone agrees (α undefined), boxes."""
    answers = {
        "a1": ["pos", "neg", "pos", "neu", "pos"],
        "a2": ["pos", "neg", "neg", "neu", "pos"],
        "a3": ["neg", "neg", "pos", "neu", "pos"],
    }
    def boxes(shift: float) -> list[dict[str, Any]]:
        return [{"type": "bbox", "label": "car", "coordinates": {
            "x": 0.1 + shift, "y": 0.1, "width": 0.3, "height": 0.3}}]

    annotators = {
        folder: {f"item-{i}": [label(SCHEME, value), label("quality", "3", "3"),
                               structured("objects", boxes(0.02 * k * (i % 2)))]
                 for i, value in enumerate(values)}
        for k, (folder, values) in enumerate(answers.items())}
    root = write_project(tmp_path / "hostile", schemes=[
        {"annotation_type": "radio", "name": SCHEME, "labels": ["pos", "neg", "neu"]},
        {"annotation_type": "likert", "name": "quality", "size": 5, "min_label": "bad",
         "max_label": "good"},
        {"annotation_type": "image_annotation", "name": "objects", "tools": ["bbox"],
         "labels": ["car"]},
    ], items=simple_items(5), annotators=annotators)
    for folder, name in zip(answers, HOSTILE, strict=True):
        state_file = root / "annotations" / folder / "user_state.json"
        state = json.loads(state_file.read_text())
        state["user_id"] = name
        state_file.write_text(json.dumps(state))
    return root


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> AgreementReport:
    root = _hostile_project(tmp_path_factory.mktemp("export"))
    return run(agreement_report(run(read_potato(root)), project=str(root)))


def test_hostile_project_reads_as_intended(hostile: AgreementReport) -> None:
    assert set(hostile.schemes) >= {SCHEME, "quality"}
    pairs = hostile.schemes[SCHEME].pairs
    assert {name for key in pairs for name in key.split("|")} == set(HOSTILE)
    assert hostile.schemes["quality"].metrics["alpha"] is None


# ---------------------------------------------------------------------------------- CSV


def _rows(report: AgreementReport) -> list[dict[str, str]]:
    text = render_csv(report)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    assert tuple(reader.fieldnames or ()) == COLUMNS
    return list(reader)


def test_csv_alpha_matches_the_krippendorff_package(hostile: AgreementReport) -> None:
    """An independent oracle: the CSV's α equals the ``krippendorff`` package's."""
    data = np.array([[0, 1, 0, 2, 0], [0, 1, 1, 2, 0], [1, 1, 0, 2, 0]], dtype=float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    row = next(r for r in _rows(hostile) if r["scheme"] == SCHEME
               and r["scope"] == "scheme" and r["metric"] == "alpha")
    assert float(row["value"]) == pytest.approx(expected, abs=1e-12)
    assert row["chance_corrected"] == "yes"
    # 5 items × 3 pairs = 15 pairs; agreeing: item 0 one, item 1 three, item 2 one,
    # items 3 and 4 three each → 11 of 15.
    share = next(r for r in _rows(hostile) if r["scheme"] == SCHEME
                 and r["metric"] == "percent_agreement" and r["scope"] == "scheme")
    assert float(share["value"]) == pytest.approx(11 / 15, abs=1e-15)
    assert share["chance_corrected"] == "no"


def test_csv_reads_back_every_number_of_the_report(hostile: AgreementReport) -> None:
    rows = _rows(hostile)
    by_key = {(r["scheme"], r["scope"], r["subject"], r["metric"]): r for r in rows}
    assert by_key[("", "project", "", "n_items")]["value"] == str(hostile.n_items)
    assert by_key[("", "project", "", "n_annotators")]["value"] == "3"
    count = 0
    for result in hostile.schemes.values():
        for metric, value in result.metrics.items():
            row = by_key[(result.name, "scheme", "", metric)]
            _same(row, value, result.undefined.get(metric))
            interval = result.intervals.get(metric)
            if interval:
                assert float(row["interval_low"]) == interval[0]
                assert float(row["interval_high"]) == interval[1]
            else:
                assert row["interval_low"] == row["interval_high"] == ""
        for key, pair in result.pairs.items():
            for metric, value in pair.items():
                _same(by_key[(result.name, "pair", key, metric)], value, None)
                count += 1
        assert by_key[(result.name, "coverage", "", "n_pairs")]["value"] == str(result.n_pairs)
    assert count == sum(1 for r in rows if r["scope"] == "pair") > 0
    assert len(by_key) == len(rows), "every row has its own (scheme, scope, subject, metric)"


def _same(row: dict[str, str], value: float | int | None, reason: str | None) -> None:
    if value is None:
        assert row["value"] == ""
        assert row["undefined_reason"], row
        if reason is not None:
            assert row["undefined_reason"] == reason
    else:
        assert float(row["value"]) == value  # repr round-trips exactly
        assert row["undefined_reason"] == ""
    assert "nan" not in row["value"].lower()


def test_csv_undefined_alpha_carries_its_sentence(hostile: AgreementReport) -> None:
    row = next(r for r in _rows(hostile) if r["scheme"] == "quality"
               and r["scope"] == "scheme" and r["metric"] == "alpha")
    assert row["value"] == ""
    assert row["undefined_reason"] == hostile.schemes["quality"].undefined["alpha"]
    assert len(row["undefined_reason"].split()) > 4


def test_csv_cells_never_start_a_formula() -> None:
    report = _synthetic('=HYPERLINK("http://evil","x")', "-2+3", "@SUM(A1)")
    rows = _rows(report)
    assert {r["scheme"] for r in rows if r["scheme"]} == {"'=HYPERLINK(\"http://evil\",\"x\")"}
    subjects = {r["subject"] for r in rows if r["scope"] == "pair"}
    assert subjects == {"'-2+3|@SUM(A1)"}
    negative = next(r for r in rows if r["metric"] == "kappa" and r["scope"] == "scheme")
    assert negative["value"] == "-0.25", "numbers are never prefixed"


# --------------------------------------------------------------------------------- JSON


def test_json_is_exactly_to_json(hostile: AgreementReport) -> None:
    text = render_json(hostile)
    assert json.loads(text) == hostile.to_json()
    assert text.endswith("}\n")
    assert "NaN" not in text


# --------------------------------------------------------------------------------- HTML


def test_html_shows_hostile_names_as_text_and_loads_nothing(hostile: AgreementReport) -> None:
    page = render_html(hostile)
    markup = parse(page)
    assert not {"img", "script", "iframe", "object", "embed", "link"} & set(markup.tags)
    hrefs = [value for name, value in markup.attrs if name == "href"]
    assert hrefs and all(h is not None and h.startswith("#scheme-") for h in hrefs)
    assert not [name for name, _ in markup.attrs if name in ("src", "onerror", "onload")]
    for name in [SCHEME, *HOSTILE]:
        assert name in markup.text, name
    assert "file:///etc" not in page.replace("file:///etc/hostname&quot;", "").replace(
        "file:///etc/passwd&quot;", ""), "only escaped copies of the paths"
    assert "Content-Security-Policy" in page


def test_html_states_undefined_values_as_sentences(hostile: AgreementReport) -> None:
    text = parse(render_html(hostile)).text
    reason = hostile.schemes["quality"].undefined["alpha"]
    assert "Undefined: " + reason[0].upper() + reason[1:] in text
    assert "NaN" not in text and "nan<" not in render_html(hostile)


def test_html_labels_chance_correction_and_shows_intervals() -> None:
    report = _synthetic("boxes", "ana", "ben")
    page = render_html(report)
    text = parse(page).text
    assert "Chance-corrected" in text and "Not chance-corrected" in text
    assert "0.400 – 0.600" in text
    assert "95% percentile bootstrap over items, 2,000 resamples, seed 7" in text
    assert "\u22120.250" in text, "negative values with a minus sign"


def test_html_matrix_is_left_out_when_a_name_holds_a_pipe() -> None:
    report = _synthetic("s", "a|b", "c")
    text = parse(render_html(report)).text
    assert "Annotator pairs —" not in text
    assert "a|b|c" in text, "the pair table still lists the pair"


def test_html_of_every_extra_escapes_user_strings() -> None:
    report = _synthetic("s", "ana", "ben")
    result = report.schemes["s"]
    result.notes.append('<img src="x">note')
    result.undefined["kappa"] = "<b>bold</b> reason"
    result.metrics["kappa"] = None
    result.extra["rejected"] = ['data.jsonl: item "<script>x</script>" has a bad box']
    result.extra["disagreement_items"] = [{"item": "<i>item</i>", "share": 0.5}]
    result.extra["categorical_reference"] = {"scheme": "<u>cat</u>", "kind": "nominal",
                                             "alpha": 0.5, "n_items": 3}
    report.notes.append("<hr>project note")
    markup = parse(render_html(report))
    assert not {"img", "script", "i", "u", "hr"} & set(markup.tags)
    assert markup.tags.count("b") == render_html(report).count("<b>")
    for literal in ('<img src="x">note', "<b>bold</b> reason", "<script>x</script>",
                    "<i>item</i>", "<u>cat</u>", "<hr>project note"):
        assert literal in markup.text, literal


def _synthetic(scheme: str, a: str, b: str) -> AgreementReport:
    key = "|".join(sorted((a, b)))
    result = SchemeResult(
        name=scheme, annotation_type="image_annotation", kind="regions",
        metrics={"mean_agreement": 0.5, "kappa": -0.25}, intervals={"mean_agreement": [0.4, 0.6]},
        pairs={key: {"mean_agreement": 0.5, "mean_matched_iou": None, "n_items": 3}},
        n_items=3, n_pairs=3, extra={"bootstrap": {"resamples": 2000, "level": 0.95,
                                                   "seed": 7, "over": "items"}})
    return AgreementReport(project="p", n_items=3, n_annotators=2, schemes={scheme: result})


def test_nothing_is_nan_anywhere(hostile: AgreementReport) -> None:
    for value in (r["value"] for r in _rows(hostile)):
        assert value == "" or math.isfinite(float(value))



def test_a_scheme_not_computed_says_why_in_every_format() -> None:
    result = SchemeResult(name="later", annotation_type="pairwise", kind=None,
                          not_computed="pairwise comparisons are measured by a later part")
    report = AgreementReport(project="p", n_items=1, n_annotators=2,
                             schemes={"later": result})
    [row] = [r for r in _rows(report) if r["scheme"] == "later"]
    assert row["scope"] == "scheme" and row["value"] == ""
    assert row["undefined_reason"] == result.not_computed
    text = parse(render_html(report)).text
    assert "Pairwise comparisons are measured by a later part." in text
    assert json.loads(render_json(report))["schemes"]["later"]["not_computed"]


def test_an_empty_report_is_still_a_page() -> None:
    report = AgreementReport(project="p", n_items=0, n_annotators=0, schemes={})
    assert "no annotation scheme to report" in parse(render_html(report)).text
    assert [r["scope"] for r in _rows(report)] == ["project", "project"]
