"""The counts ``accord verify`` prints add up (issue 35, part 8).

A lead reads "49 differences" and then lines that say "differs at 60 points"; or "the PDF
has 5 pages" and a list that names one repeated page and nothing else. Here every count is
checked against the lines printed under it, and the page counts against the tampering
that was made (the pages kept, repeated and dropped are known: the oracle is the edit).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from app.core.certificate import compare as compare_module
from app.paths import demo_studies
from tests.cli.test_verify_tamper import _n_pages, _pages

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, qapp: Any) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("counts")
    project = root / "sentiment_reviews"
    shutil.copytree(demo_studies()["sentiment_reviews"], project)
    pdf = root / "certificate.pdf"
    assert main(["certificate", str(project), "-o", str(pdf)]) == 0
    return project, pdf


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify", *args])
    return code, capsys.readouterr().out


TALLY = re.compile(
    r"the PDF has (\d+) pages?(?:, as many as the attached certificate prints| where the "
    r"attached certificate prints (\d+)): (?:the certificate's (\d+) pages|(\d+) of the "
    r"certificate's (\d+) pages)(?:,? ?(?:and )?(\d+) that repeats? one of them)?"
    r"(?: and (\d+) that (?:is|are) not the certificate's)?(?:; (\d+) (?:is|are) missing)?"
)


def _tally(out: str) -> dict[str, int]:
    found = TALLY.search(out)
    assert found, out
    printed, expected, whole, present, of, repeats, foreign, missing = found.groups()
    total = int(expected or whole or of)
    return {
        "printed": int(printed),
        "expected": total,
        "present": int(whole or present),
        "repeats": int(repeats or 0),
        "foreign": int(foreign or 0),
        "missing": int(missing or 0),
    }


@pytest.mark.parametrize(
    ("name", "order", "repeats", "missing"),
    [
        ("the last page removed", "drop_last", 0, 1),
        ("two pages removed", [0, 3, 4], 0, 2),
        ("a page repeated", [0, 0, 1, 2, 3, 4], 1, 0),
        ("a page repeated in place of another", [0, 0, 2, 3, 4], 1, 1),
        ("two repeats, two gone", [0, 0, 0, 3, 4], 2, 2),
    ],
)
def test_the_page_counts_add_up(
    name: str,
    order: Any,
    repeats: int,
    missing: int,
    written: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, pdf = written
    data = pdf.read_bytes()
    n = _n_pages(data)
    assert n == 5  # the orders above are for the demo's five pages
    pages = list(range(n - 1)) if order == "drop_last" else order
    tampered = tmp_path / "t.pdf"
    tampered.write_bytes(_pages(data, pages))
    code, out = _verify(capsys, str(tampered))
    assert code == 1, out
    tally = _tally(out)
    # Against the edit itself.
    assert tally["printed"] == len(pages)
    assert tally["expected"] == n
    assert tally["repeats"] == repeats == len(pages) - len(set(pages))
    assert tally["missing"] == missing == n - len(set(pages))
    assert tally["foreign"] == 0
    # The parts add up to both wholes, and each part has its lines.
    assert tally["printed"] == tally["present"] + tally["repeats"] + tally["foreign"]
    assert tally["expected"] == tally["present"] + tally["missing"]
    assert len(re.findall(r"of the certificate \(“[^”]*”\) is missing", out)) == missing
    assert len(re.findall(r"repeats page \d+ of the certificate", out)) == repeats


def test_an_added_page_is_counted_as_not_the_certificates(
    written: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.cli import pdf_tamper as t

    _, pdf = written
    tampered = tmp_path / "t.pdf"
    tampered.write_bytes(t.with_writer(pdf.read_bytes(), lambda w: w.add_blank_page()))
    code, out = _verify(capsys, str(tampered))
    assert code == 1
    assert _tally(out) == {
        "printed": 6, "expected": 5, "present": 5, "repeats": 0, "foreign": 1, "missing": 0
    }
    assert "page 6 (“”) is not a page of the certificate" in out


def _heading_and_lines(out: str) -> tuple[str, list[str]]:
    head, _, rest = out.partition(" between the certificate in the PDF and the project ")
    lines = [line[4:] for line in rest.splitlines()[1:] if line.startswith("  - ")]
    return head.split(": ", 1)[1], lines


def _weight(line: str) -> int:
    """How many differences a printed line stands for, read from the line alone."""
    grouped = re.search(r"(?:differs at|differ in) (\d+) (?:points?|places?)$", line)
    if grouped:
        return int(grouped.group(1))
    hidden = re.match(r"\.\.\. and (\d+) more differences? in \d+ lines? not listed$", line)
    return int(hidden.group(1)) if hidden else 1


def test_the_differences_add_up_to_the_count_above_them(
    written: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Certifying after the certificate moves states, looks, the ledger and every point of
    the dev curves: the heading's total is the sum of what its lines say, and its parts
    (one by one, grouped, left off) are the lines of each kind."""
    project, pdf = written
    copy = tmp_path / project.name
    shutil.copytree(project, copy)
    assert main(["label", "certify", str(copy)]) == 0
    for listed in (compare_module.MAX_LISTED, 12):
        monkeypatch.setattr(compare_module, "MAX_LISTED", listed)
        code, out = _verify(capsys, str(pdf), "--project", str(copy))
        assert code == 1, out
        head, lines = _heading_and_lines(out)
        numbers = re.fullmatch(
            r"(\d+) differences \((\d+) listed one by one(?:, (\d+) counted in (\d+) grouped "
            r"lines?)?(?:, (\d+) left off the list)?\)",
            head,
        )
        assert numbers, head
        total, single, grouped, grouped_lines, hidden = (int(g or 0) for g in numbers.groups())
        assert total == sum(_weight(line) for line in lines)
        assert total == single + grouped + hidden
        is_grouped = [bool(re.search(r"(differs at|differ in) \d+ (points?|places?)$", x))
                      for x in lines]
        assert grouped_lines == sum(is_grouped)
        assert grouped == sum(_weight(x) for x, g in zip(lines, is_grouped, strict=True) if g)
        if listed == 12:
            assert hidden > 0 and lines[-1].startswith("... and ")
            assert len(lines) == 13
        else:
            assert hidden == 0
            assert grouped_lines >= 2  # the two tiers' dev curves at least
        for line in lines:
            assert not re.search(r"\b1 (places|points|entries)\b", line), line


def test_one_difference_is_one(
    written: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project, pdf = written
    copy = tmp_path / project.name
    shutil.copytree(project, copy)
    config = copy / "config.yaml"
    config.write_text(config.read_text() + "# edited\n")
    code, out = _verify(capsys, str(pdf), "--project", str(copy))
    assert code == 1
    head, lines = _heading_and_lines(out)
    assert head == "1 difference", out
    assert lines == ["input config.yaml changed: SHA-256 " + lines[0].split("SHA-256 ", 1)[1]]


def test_a_field_a_contract_repeats_in_its_result_is_one_difference() -> None:
    """``rule`` stands beside a contract and again in its result: one field for a reader."""
    rule = {"gemma-12b": {"*": 0.91}}
    stored = {"contracts": {"accuracy": {"rule": None, "state": "insufficient", "result": {}}}}
    fresh = {"contracts": {"accuracy": {"rule": rule, "state": "met",
                                        "result": {"rule": rule, "coverage": 0.99}}}}
    found = compare_module.compare(stored, fresh)
    assert sum("chosen rule" in line for line in found.lines) == 1
    assert found.total == 3 == len(found.lines)  # rule, state, the result's coverage
    assert found.heading() == "3 differences"



@pytest.mark.parametrize("n", [1, 5, 7])
def test_misplaced_objects_are_named_up_to_five_and_the_rest_counted(
    n: int, written: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sentence's count is the objects it names plus its "and N more". (Which offsets
    pypdf's table keeps after its own repairs is pypdf's business; the wording is tested
    on a table said to hold ``n`` misplaced entries.)"""
    from app.report.verification import structure

    _, pdf = written
    read = structure.read_pdf(pdf)
    monkeypatch.setattr(structure, "_misplaced", lambda _: [(k, 1000 * k) for k in range(n)])
    (line,) = [p for p in structure._revision_problems(read) if "cross-reference" in p]
    found = re.search(r"points (\d+) objects? at bytes where they do not start \(([^)]*)\)",
                      line)
    assert found, line
    named = re.findall(r"object \d+ at byte [\d,]+", found.group(2))
    more = re.search(r" and (\d+) more$", found.group(2))
    assert int(found.group(1)) == n
    assert len(named) + (int(more.group(1)) if more else 0) == n
    assert len(named) == min(n, 5)
