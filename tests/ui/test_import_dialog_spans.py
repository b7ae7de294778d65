"""File › Import… lists the span formats (brat, CoNLL, doccano) with their names and
hints, and previews a brat export as a span scheme counted in spans."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from app.ui.import_dialog import ImportDialog

DATA = Path(__file__).resolve().parents[1] / "data" / "importers" / "spans"


def test_the_span_formats_are_listed_and_a_brat_export_previews(qtbot: QtBot) -> None:
    dialog = ImportDialog(report=lambda _: None)
    qtbot.addWidget(dialog)
    dialog.show()
    texts = {dialog.format_box.itemData(i): dialog.format_box.itemText(i)
             for i in range(dialog.format_box.count())}
    assert texts["brat"] == "brat standoff (.ann + .txt)  (brat)"
    assert texts["conll"] == "CoNLL 2003 BIO columns  (conll)"
    assert texts["doccano"] == "doccano JSONL (sequence labeling)  (doccano)"
    dialog.set_format("brat")
    assert ".ann" in dialog.format_hint.text()
    with qtbot.waitSignal(dialog.preview_ready, timeout=10000) as ready:
        dialog.table.add_sources([DATA / "brat" / "alice", DATA / "brat" / "bob"])
    preview = ready.args[0]
    assert preview.schemes == (("entities", "span"),)
    assert preview.tallies["alice"]["entities"].text() == "2 items · 6 spans"
    assert preview.tallies["bob"]["entities"].text() == "2 items · 5 spans"
    assert dialog.preview.summary.text() == "2 items · 2 annotators · 1 scheme"
    assert dialog.preview.table_text()[1][0] == "alice"
