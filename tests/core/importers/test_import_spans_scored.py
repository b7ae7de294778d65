"""A span import is scored like the same study written by Potato itself: the doccano
members' files (``span_study.py``) imported, against a project whose states Potato
2.12.1's own ``InMemoryUserState.save`` wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from app.core.formats.potato.project import load_study
from tests.core.importers.span_study import DATA, MARKS, TEXTS, potato_written, spans_of
from tests.core.importers.support import import_ok, rounded_agreement

SCHEME = {"annotation_type": "span", "name": "entities", "description": "Imported from doccano.",
          "labels": ["ORG", "MISC", "LOC", "PER"]}


def _imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "imported"
    import_ok(capsys, "doccano", *(str(DATA / "doccano" / f"{n}.jsonl") for n in MARKS),
              "-o", str(out))
    return out


def _by_potato(root: Path) -> Path:
    """The study as a Potato project: config and data by hand, every user_state.json by
    Potato's own save (each member saw every example, as doccano's files say)."""
    (root / "data").mkdir(parents=True)
    (root / "config.yaml").write_text(yaml.safe_dump({
        "annotation_task_name": "by Potato", "task_dir": ".",
        "data_files": ["data/items.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "output_annotation_dir": "annotation_output/", "annotation_schemes": [SCHEME]}))
    (root / "data" / "items.jsonl").write_text("".join(
        json.dumps({"id": i, "text": t}) + "\n" for i, t in TEXTS.items()))
    for name in MARKS:
        mine = spans_of(name)
        answers = {item: [{"schema": "entities", "name": lab, "title": lab, "start": s,
                           "end": e, "id": f"entities_{lab}_{s}_{e}", "value": 1}
                          for s, e, lab in mine.get(item, [])] for item in TEXTS}
        folder = root / "annotation_output" / name
        folder.mkdir(parents=True)
        spans = potato_written(name, answers, folder)
        state = json.loads((folder / "user_state.json").read_text())
        state["instance_id_ordering"] = list(spans)
        (folder / "user_state.json").write_text(json.dumps(state))
    return root


def test_the_same_agreement_as_the_study_written_by_potato(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    imported, potato = _imported(tmp_path, capsys), _by_potato(tmp_path / "potato")
    read = load_study(imported).answers["entities"]
    assert read == load_study(potato).answers["entities"]
    assert sum(len(by) for by in read.values()) == 12  # every member on every example
    got, want = rounded_agreement(capsys, imported), rounded_agreement(capsys, potato)
    assert got["schemes"] == want["schemes"]
    assert got["coverage"] == want["coverage"]
