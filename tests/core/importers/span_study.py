"""One small NER study, written by the tools' own writers, and the readers that check a
span import against Potato's own classes.

The study is three annotators marking entities in the first sentences of CoNLL-2003's
English data. It is written:

- as Label Studio's JSON export (its export's layout: tasks, ``annotations[]`` with
  ``completed_by`` and ``labels`` results on the text), by hand (Label Studio's server is
  not a library);
- as CoNLL 2003 columns by label-studio-converter's own ``convert_to_conll2003`` (one
  file per annotator, from that annotator's annotations);
- as doccano's JSONL export by doccano's own writer: its ``JsonlWriter`` is pandas'
  ``DataFrame.to_json(orient="records", force_ascii=False, lines=True)`` over
  ``{"id", "text", "label": [[start, end, label]...], "Comments"}`` records, one file per
  member, every example in every member's file.

:func:`refresh` writes the committed copies under ``tests/data/importers/spans/``;
``test_span_fixtures_are_the_writers_output`` checks they still are what the writers write.

The oracles: :func:`potato_spans` reads a written project's ``user_state.json`` with
Potato 2.12.1's ``UserState.load``; :func:`potato_written` is the file Potato's own
``InMemoryUserState.save`` writes for the same spans.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from potato.item_state_management import SpanAnnotation
from potato.phase import UserPhase
from potato.server_utils.config_module import (
    validate_single_annotation_scheme,
    validate_yaml_structure,
)
from potato.user_state_management import InMemoryUserState, UserState

DATA = Path(__file__).resolve().parents[2] / "data" / "importers" / "spans"
Spans = list[tuple[int, int, str]]

TEXTS = {
    "1": "EU rejects German call to boycott British lamb.",
    "2": "Peter Blackburn",
    "3": "BRUSSELS 1996-08-22",
    "4": "The European Commission said on Thursday it disagreed with German advice to "
         "consumers to shun British lamb until scientists determine whether mad cow disease "
         "can be transmitted to sheep.",
}
MARKS: dict[str, dict[str, list[tuple[str, str]]]] = {
    # annotator -> item -> (phrase, label); a phrase is found in the text (first match)
    "alice": {"1": [("EU", "ORG"), ("German", "MISC"), ("British", "MISC")],
              "2": [("Peter Blackburn", "PER")], "3": [("BRUSSELS", "LOC")],
              "4": [("European Commission", "ORG"), ("German", "MISC"), ("British", "MISC")]},
    "bob": {"1": [("EU", "ORG"), ("German", "MISC"), ("British lamb", "MISC")],
            "2": [("Peter", "PER")], "3": [],
            "4": [("European Commission", "ORG"), ("Thursday", "MISC"), ("British", "MISC")]},
    "carol": {"1": [("EU", "LOC"), ("German", "MISC")], "2": [("Peter Blackburn", "PER")],
              "3": [("BRUSSELS", "LOC")]},
}
LABEL_CONFIG = """<View>
  <Labels name="label" toName="text">
    <Label value="PER"/><Label value="ORG"/><Label value="LOC"/><Label value="MISC"/>
  </Labels>
  <Text name="text" value="$text"/>
</View>"""
EMAILS = {"alice": "alice", "bob": "bob", "carol": "carol"}
SERVER = DATA.parents[1] / "potato_server" / "spans" / "annotation_output" / "alice"
"""A span project Potato 2.12.1's server wrote from its span widget's posts."""
SERVER_KEYS = ["schema", "name", "title", "start", "end", "id"]


def spans_of(annotator: str) -> dict[str, Spans]:
    """annotator → item → (start, end, label) in character offsets of :data:`TEXTS`."""
    out: dict[str, Spans] = {}
    for item, marks in MARKS[annotator].items():
        text = TEXTS[item]
        out[item] = [(text.index(p), text.index(p) + len(p), label) for p, label in marks]
    return out


# ------------------------------------------------------------------------ the writers


def label_studio_export(annotators: list[str] | None = None) -> list[dict[str, Any]]:
    """Label Studio's JSON export of the study (only ``annotators``' annotations)."""
    names = annotators or list(MARKS)
    tasks = []
    for t, (item, text) in enumerate(TEXTS.items()):
        annotations = []
        for a, name in enumerate(names):
            if item not in MARKS[name]:
                continue
            result = [{"value": {"start": s, "end": e, "text": text[s:e], "labels": [label]},
                       "id": f"r{t}{a}{k}", "from_name": "label", "to_name": "text",
                       "type": "labels", "origin": "manual"}
                      for k, (s, e, label) in enumerate(spans_of(name)[item])]
            annotations.append({
                "id": 10 * t + a + 1, "completed_by": {"id": a + 1, "email": EMAILS[name]},
                "result": result, "was_cancelled": False, "ground_truth": False,
                "created_at": f"2026-11-0{a + 1}T10:00:00.000000Z",
                "updated_at": f"2026-11-0{a + 1}T10:00:00.000000Z", "lead_time": 12.5})
        tasks.append({"id": int(item), "annotations": annotations, "predictions": [],
                      "data": {"text": text}, "meta": {}, "project": 1})
    return tasks


def conll_by_converter(annotator: str, folder: Path) -> str:
    """The CoNLL 2003 file label-studio-converter writes from ``annotator``'s annotations."""
    from label_studio_converter import Converter

    with tempfile.TemporaryDirectory() as scratch:
        export = Path(scratch) / "export.json"
        export.write_text(json.dumps(label_studio_export([annotator])))
        Converter(LABEL_CONFIG, project_dir=None).convert_to_conll2003(
            str(export), str(folder), is_dir=False)
    return (folder / "result.conll").read_text(encoding="utf-8")


def doccano_by_writer(annotator: str) -> str:
    """The ``<annotator>.jsonl`` doccano's JsonlWriter writes for a member."""
    import pandas as pd

    mine = spans_of(annotator)
    records = [{"id": int(item), "text": text,
                "label": [list(s) for s in sorted(mine.get(item, []))], "Comments": []}
               for item, text in TEXTS.items()]
    text: str = pd.DataFrame(records).to_json(orient="records", force_ascii=False, lines=True)
    return text if text.endswith("\n") else text + "\n"


def refresh() -> None:
    """Write the committed fixtures again (``python -m tests.core.importers.span_study``)."""
    (DATA / "labelstudio").mkdir(parents=True, exist_ok=True)
    (DATA / "labelstudio" / "ner.json").write_text(json.dumps(label_studio_export(), indent=2)
                                                   + "\n", encoding="utf-8")
    for name in MARKS:
        for sub, text in (("conll", _conll(name)), ("doccano", doccano_by_writer(name))):
            (DATA / sub).mkdir(exist_ok=True)
            suffix = ".conll" if sub == "conll" else ".jsonl"
            (DATA / sub / f"{name}{suffix}").write_text(text, encoding="utf-8")


def _conll(name: str) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        return conll_by_converter(name, Path(scratch))


# ------------------------------------------------------------------------ the oracles


def potato_spans(project: Path, annotator: str) -> dict[str, Spans]:
    """item → sorted (start, end, label) as Potato's ``UserState.load`` reads them."""
    state = UserState.load(str(project / "annotation_output" / annotator))
    return {item: sorted((s.get_start(), s.get_end(), s.get_name()) for s in spans)
            for item, spans in state.instance_id_to_span_to_value.items()}


def potato_written(annotator: str, answers: dict[str, list[dict[str, Any]]],
                   folder: Path) -> dict[str, Any]:
    """The ``instance_id_to_span_to_value`` Potato's ``InMemoryUserState.save`` writes for
    ``answers`` (item → span dicts as :mod:`~app.core.formats.importers.writer` names
    them, each with its covered ``value``)."""
    state = InMemoryUserState(annotator)
    state.advance_to_phase(UserPhase.ANNOTATION, None)  # as the server does before items
    for item, spans in answers.items():
        state.instance_id_to_span_to_value.setdefault(item, {})  # saved, nothing marked
        for s in spans:
            state.add_span_annotation(item, SpanAnnotation(
                s["schema"], s["name"], s["title"], s["start"], s["end"], id=s["id"],
                additional_parts=s.get("additional_parts")), s["value"])
    state.save(str(folder))
    written: dict[str, Any] = json.loads((folder / "user_state.json").read_text())
    return written["instance_id_to_span_to_value"]  # type: ignore[no-any-return]


def check_written(project: Path) -> dict[str, Any]:
    """Every annotator's stored spans: equal to what Potato's own save writes for them,
    each value 1 (what Potato's span widget posts) with offsets inside the text, each span
    shaped as the server wrote them in ``tests/data/potato_server/spans``, and the scheme
    and the config valid by Potato's own validators.
    Returns annotator → ``instance_id_to_span_to_value``."""
    import yaml

    config = yaml.safe_load((project / "config.yaml").read_text())
    for i, scheme in enumerate(config["annotation_schemes"]):
        validate_single_annotation_scheme(scheme, f"annotation_schemes[{i}]")
    validate_yaml_structure(config, project_dir=str(project), config_file_dir=str(project))
    texts = {json.loads(line)["id"]: json.loads(line)["text"] for line in
             (project / "data" / "items.jsonl").read_text().splitlines()}
    out = {}
    for folder in sorted((project / "annotation_output").iterdir()):
        stored = json.loads((folder / "user_state.json").read_text())[
            "instance_id_to_span_to_value"]
        for item, pairs in stored.items():
            for span, value in pairs:
                assert list(span)[:6] == SERVER_KEYS, span
                assert span["id"].startswith(f"{span['schema']}_{span['name']}_{span['start']}"
                                             f"_{span['end']}"), span
                assert value == 1 and 0 <= span["start"] < span["end"] <= len(texts[item])
        answers = {item: [{**span, "value": value} for span, value in pairs]
                   for item, pairs in stored.items()}
        with tempfile.TemporaryDirectory() as scratch:
            assert stored == potato_written(folder.name, answers, Path(scratch))
        out[folder.name] = stored
    return out


if __name__ == "__main__":
    refresh()
