"""``accord import conll``: CoNLL 2003 files written by label-studio-converter's own
``convert_to_conll2003`` (``tests/data/importers/spans/conll/``, see ``span_study.py``)
and lines in the CoNLL-2003 task's own layout (IOB1, ``word POS chunk NER``), read back
by Accord's reader and Potato's ``UserState.load``; the entities equal seqeval's
``get_entities`` (the conlleval reading) on the same tags."""

from __future__ import annotations

from pathlib import Path

import pytest
from seqeval.metrics.sequence_labeling import get_entities

from app.core.formats.importers.text.conll import bio_entities
from app.core.formats.potato.project import load_study
from app.core.objects import Span
from tests.core.importers.span_study import (
    DATA,
    MARKS,
    TEXTS,
    check_written,
    conll_by_converter,
    potato_spans,
    spans_of,
)
from tests.core.importers.support import import_fails, import_ok

CONLL = DATA / "conll"
IOB1 = """-DOCSTART- -X- -X- O

EU NNP I-NP I-ORG
rejects VBZ I-VP O
German JJ I-NP I-MISC
call NN I-NP O
to TO I-VP O
boycott VB I-VP O
British JJ I-NP I-MISC
lamb NN I-NP O
. . O O

Peter NNP I-NP I-PER
Blackburn NNP I-NP I-PER
"""
"""The first two sentences of CoNLL-2003's eng.train, as the task published them (IOB1)."""


def _sentences(path: Path) -> list[tuple[list[str], list[str]]]:
    """(tokens, tags) per sentence, read independently of the importer."""
    out, tokens, tags = [], [], []
    for line in [*path.read_text().splitlines(), ""]:
        fields = line.split()
        if not fields or fields[0] == "-DOCSTART-":
            if tokens:
                out.append((tokens, tags))
            tokens, tags = [], []
            continue
        tokens.append(fields[0])
        tags.append(fields[-1])
    return out


def test_the_fixtures_are_the_converters_output(tmp_path: Path) -> None:
    for name in MARKS:
        written = conll_by_converter(name, tmp_path / name)
        assert written == (CONLL / f"{name}.conll").read_text()


def test_converter_files_round_trip_to_the_same_entities(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "project"
    sources = [str(CONLL / f"{name}.conll") for name in MARKS]
    import_ok(capsys, "conll", *sources, "-o", str(out))

    check_written(out)
    study = load_study(out)
    for name in MARKS:
        got = potato_spans(out, name)
        sentences = _sentences(CONLL / f"{name}.conll")
        assert sorted(got) == [str(i + 1) for i in range(len(sentences))]
        for number, (tokens, tags) in enumerate(sentences, start=1):
            text = " ".join(tokens)
            starts = [sum(len(t) + 1 for t in tokens[:i]) for i in range(len(tokens))]
            want = sorted((starts[a], starts[b] + len(tokens[b]), kind)
                          for kind, a, b in get_entities(tags))  # the oracle
            assert got[str(number)] == want
            accord = study.answers["entities"][str(number)].get(name)
            assert sorted((s.start, s.end, s.label) for s in (accord.objects if accord else ())
                          if isinstance(s, Span)) == want
            # the entity texts are the phrases the annotator marked in Label Studio
            original = TEXTS[str(number)]
            marked = sorted((original[s:e], lab) for s, e, lab in
                            spans_of(name).get(str(number), []))
            assert sorted((text[s:e], lab) for s, e, lab in want) == [
                (phrase.rstrip(".").replace(" .", ""), lab) for phrase, lab in marked]


def test_the_tasks_own_iob1_lines_begin_entities_with_i(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "eng.train"
    source.write_text(IOB1)
    printed = import_ok(capsys, "conll", str(source), "--annotator", "task", "-o",
                        str(tmp_path / "p"))

    assert potato_spans(tmp_path / "p", "task") == {
        "1": [(0, 2, "ORG"), (11, 17, "MISC"), (34, 41, "MISC")], "2": [(0, 15, "PER")]}
    assert "4 entities begin with I-" in printed and "IOB1" in printed


@pytest.mark.parametrize("tags", [
    ["I-PER", "I-PER", "B-PER", "O", "I-LOC", "I-ORG", "B-ORG", "I-ORG"],
    ["B-X", "I-Y", "I-Y", "O", "O", "I-X"], ["O", "O"], ["B-A", "B-A", "I-A", "B-B"],
])
def test_bio_decoding_is_seqevals(tags: list[str]) -> None:
    ours = [(kind, first, last) for first, last, kind, _ in bio_entities(tags, Path("f"), 1)]
    assert ours == get_entities(tags)


@pytest.mark.parametrize(("text", "needles"), [
    ("EU NNP I-NP B-ORG\nrejects VBZ O\n", [":2", "has 3 columns; expected 4"]),
    ("EU NNP I-NP B-ORG\nrejects VBZ I-VP E-ORG\n", [":2", "the tag 'E-ORG' is not O, B-"]),
    ("EU NNP I-NP S-ORG\n", [":1", "the tag 'S-ORG'"]),
    ("EU NNP I-NP B\n", [":1", "the tag 'B' is not"]),
    ("EU\nrejects\n", [":1", "has 1 columns; expected 2"]),
    ("-DOCSTART- -X- -X- O\n\n", ["holds no token line"]),
])
def test_bad_lines_are_one_error_naming_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needles: list[str]
        ) -> None:
    bad = tmp_path / "bad.conll"
    bad.write_text(text)
    import_fails(capsys, "conll", [str(bad)], tmp_path / "out", bad, *needles)


def test_annotators_files_must_hold_the_same_tokens(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "bob.conll"
    other.write_text((CONLL / "bob.conll").read_text().replace("rejects", "accepts"))
    import_fails(capsys, "conll", [str(CONLL / "alice.conll"), str(other)], tmp_path / "out",
                 other, ":2", "item '1' has another text here than in")
    import_fails(capsys, "conll", [str(CONLL)], tmp_path / "out", CONLL,
                 "expected one CoNLL file per annotator")


def test_tabs_crlf_and_a_token_with_a_no_break_space(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "tool.conll"
    source.write_bytes("New\u00a0York\tB-LOC\r\nis\tO\r\n\r\nEU\tI-ORG\r\n".encode())
    import_ok(capsys, "conll", str(source), "-o", str(tmp_path / "p"))

    assert potato_spans(tmp_path / "p", "tool") == {"1": [(0, 8, "LOC")], "2": [(0, 2, "ORG")]}
