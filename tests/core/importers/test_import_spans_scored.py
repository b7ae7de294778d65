"""A span import is scored like the same study written by Potato itself: the doccano
members' files (``span_study.py``) imported, against a project whose states Potato
2.12.1's own ``InMemoryUserState.save`` wrote; and every span import (brat, CoNLL,
doccano, Label Studio) is scored as the span kind, its numbers Potato's ``iaa/span.py``
functions (``_aggregate_span``) on the spans Potato's ``UserState.load`` reads back, with
the gathering corrected as kinds.md B §0.1 says (an annotator who saved the item and
marked nothing counts with no spans)."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml
from potato.server_utils.iaa.dispatcher import _aggregate_span
from potato.user_state_management import UserState

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


class _Item:
    def __init__(self, text: str) -> None:
        self.text = text

    def get_text(self) -> str:
        return self.text


@pytest.mark.parametrize(("fmt", "sources", "scheme"), [
    ("doccano", [f"doccano/{n}.jsonl" for n in MARKS], "entities"),
    ("conll", [f"conll/{n}.conll" for n in MARKS], "entities"),
    ("brat", ["brat/alice", "brat/bob"], "entities"),
    ("labelstudio", ["labelstudio/ner.json"], "label"),
])
def test_every_span_import_is_scored_with_potatos_span_functions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, sources: list[str],
        scheme: str) -> None:
    project = tmp_path / "project"
    import_ok(capsys, fmt, *(str(DATA / s) for s in sources), "-o", str(project))
    texts = {r["id"]: r["text"] for r in map(json.loads, (project / "data" / "items.jsonl")
                                                 .read_text().splitlines())}
    states = [UserState.load(str(f)) for f in (project / "annotation_output").iterdir()]
    rows: dict[str, dict[str, list[Any]]] = {}
    for item in texts:
        per_user = {state.user_id: list(state.instance_id_to_span_to_value.get(item, {}))
                    for state in states if state.has_annotated(item)}
        if any(per_user.values()):
            rows[item] = per_user
    with warnings.catch_warnings():  # Potato's α calls pandas' sum with a positional axis
        warnings.filterwarnings("ignore", message="Starting with pandas version")
        potato = _aggregate_span(rows, lambda iid: _Item(texts[iid]))

    report = rounded_agreement(capsys, project)["schemes"][scheme]
    assert report["kind"] == "spans"
    assert report["n_items"] == potato["n_items"] > 0
    for ours, theirs in (("token_level_kappa", "token_level_kappa"),
                         ("span_f1_exact", "span_f1_exact"),
                         ("span_f1_partial", "span_f1_partial"),
                         ("char_alpha", "krippendorff_alpha_u")):
        assert math.isclose(report["metrics"][ours], potato[theirs], abs_tol=1e-9), ours
