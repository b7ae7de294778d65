"""Span projects written by the real Potato 2.12.1 server (run on purpose).

    .venv/bin/python -m tests.potato_real.span_projects [spans|machines]

Like ``annotation_projects.py``: ``potato start config.yaml -p PORT`` on 127.0.0.1 (8791
for ``spans``, 8792 for ``machines``), annotators logged in with Potato's simulator client
(:class:`potato.simulator.SimulatedUser`), ``/admin/iaa`` saved as ``expected/iaa.json``,
the server stopped, and what it wrote copied into ``tests/data/potato_server/spans/`` and
``tests/data/potato_server/span_machines/``.

Every span is posted as Potato's span widget saves it (``static/span-core.js``,
``saveSpan``): one ``POST /updateinstance`` per span in the backend format
``{type: "span", schema, state: [{name, start, end, title, value: 1, target_field: "",
span_id}], instance_id}`` with the widget's deterministic id ``<schema>_<label>_<start>_
<end>``; a span removed again is the same post with ``value: null`` (``deleteSpan``). The
page's other answers go through the simulator's ``submit_annotation`` as annotation.js
posts them: the radio ``has_entities``, and the hidden inputs of ``error_span``
(``{"errors": [{start, end, text, type, subtype, severity}], "score"}``) and
``extractive_qa`` (``{answer_text, start, end, unanswerable}``) under
``<schema>:::<schema>``.

The answers are seeded. Every item has gold entities; an annotator misses some, moves a
boundary, relabels one, or marks nothing (then answers ``has_entities: no``, so the item is
saved with no span: Potato counts such an annotator with ``[]``). Item ``n09`` has no
entity and nobody marks one (Potato drops it). ``machines`` adds two declared machine
annotators (``machine_annotators``; Potato stamps their ``origin``) that copy one
"model" answer with little noise.
"""

from __future__ import annotations

import json
import random
import socket
import sys
from pathlib import Path
from typing import Any

from tests.potato_real.annotation_projects import base_config
from tests.potato_real.server import HOST, OUT, prepare, save, serve, shown, split_out

SEED = 37
LABELS = ["PER", "ORG", "LOC"]
PEOPLE = ("alice", "bob", "carol")
MACHINES: tuple[dict[str, Any], ...] = (
    {"id": "ner_tool", "kind": "tool", "tool": "spacy", "version": "3.7.2"},
    {"id": "llm_ner", "kind": "llm", "model": "gpt-4o-mini", "endpoint_type": "openai"},
)
SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "span", "name": "entities", "description": "Mark the entities",
     "labels": LABELS},
    {"annotation_type": "radio", "name": "has_entities", "description": "Any entity?",
     "labels": ["yes", "no"]},
    {"annotation_type": "error_span", "name": "errors", "description": "Mark the errors",
     "error_types": [{"name": "spelling"}, {"name": "grammar"}]},
    {"annotation_type": "extractive_qa", "name": "answer", "description": "Answer it",
     "question_field": "question", "passage_field": "text"},
]
SENTENCES = [
    ("Alice Smith joined Acme Corp in Paris last spring.",
     [("Alice Smith", "PER"), ("Acme Corp", "ORG"), ("Paris", "LOC")]),
    ("The United Nations met in Geneva on Monday.",
     [("United Nations", "ORG"), ("Geneva", "LOC")]),
    ("Bob Jones and Carol King founded Nimbus Labs.",
     [("Bob Jones", "PER"), ("Carol King", "PER"), ("Nimbus Labs", "ORG")]),
    ("Rain is expected across northern Italy tomorrow.", [("Italy", "LOC")]),
    ("Siemens opened an office in Berlin near the river Spree.",
     [("Siemens", "ORG"), ("Berlin", "LOC"), ("Spree", "LOC")]),
    ("Maria Lopez told Reuters the deal with Orion Bank is off.",
     [("Maria Lopez", "PER"), ("Reuters", "ORG"), ("Orion Bank", "ORG")]),
    ("New York and Los Angeles saw record heat.",
     [("New York", "LOC"), ("Los Angeles", "LOC")]),
    ("Professor Chen of Stanford University won the prize.",
     [("Chen", "PER"), ("Stanford University", "ORG")]),
    ("Tokyo Electric said Kenji Sato will lead the review.",
     [("Tokyo Electric", "ORG"), ("Kenji Sato", "PER")]),
    ("Nothing of note happened here at all.", []),
    ("Amazon and Google compete in Seattle and Dublin.",
     [("Amazon", "ORG"), ("Google", "ORG"), ("Seattle", "LOC"), ("Dublin", "LOC")]),
    ("Lena Berg visited Oslo with her sister Ida.",
     [("Lena Berg", "PER"), ("Oslo", "LOC"), ("Ida", "PER")]),
]

Span = tuple[int, int, str]


def items() -> list[dict[str, Any]]:
    return [{"id": f"n{k:02d}", "text": text, "question": f"Who or what is in sentence {k}?"}
            for k, (text, _) in enumerate(SENTENCES)]


def gold(k: int) -> list[Span]:
    text, entities = SENTENCES[k]
    out, at = [], 0
    for surface, label in entities:
        start = text.index(surface, at)
        out.append((start, start + len(surface), label))
        at = start + len(surface)
    return out


def _noisy(spans: list[Span], text: str, rng: random.Random, skill: float) -> list[Span]:
    out = []
    for s, e, label in spans:
        r = rng.random()
        if r > skill + 0.1:
            continue  # missed
        if r > skill:
            s, e = max(0, s + rng.choice([-1, 1, 2])), min(len(text), e + rng.choice([-2, 0, 1]))
        if rng.random() > skill + 0.05:
            label = rng.choice(LABELS)
        out.append((s, max(s + 1, e), label))
    return out


def spans_for(user: str, k: int) -> tuple[list[Span], list[Span]]:
    """(the spans the user ends with, a span marked then removed again, if any)."""
    text = SENTENCES[k][0]
    rng = random.Random(f"{SEED}/{user}/{k}")
    if user in PEOPLE:
        skill = {"alice": 0.9, "bob": 0.8, "carol": 0.7}[user]
        if rng.random() < 0.12:
            return [], []
        final = _noisy(gold(k), text, rng, skill)
    else:
        model = random.Random(f"{SEED}/model/{k}")
        final = _noisy(_noisy(gold(k), text, model, 0.75), text, rng, 0.95)
    removed = []
    if final and rng.random() < 0.25:
        s, e, label = final[0]
        removed.append((s, min(len(text), e + 3), label))
    return final, removed


def page_answers(user: str, k: int, spans: list[Span]) -> dict[str, str]:
    text = SENTENCES[k][0]
    rng = random.Random(f"{SEED}/page/{user}/{k}")
    payload = {f"has_entities:::{'yes' if spans else 'no'}": "yes" if spans else "no"}
    errors = []
    words = [(m, m + len(w)) for m, w in _words(text)]
    for s, e in words:
        if rng.random() < 0.12:
            errors.append({"start": s, "end": e, "text": text[s:e],
                           "type": rng.choice(["spelling", "grammar"]), "subtype": "",
                           "severity": rng.choice(["Minor", "Major"])})
    if errors:
        penalty = sum(1 if err["severity"] == "Minor" else 5 for err in errors)
        payload["errors:::errors"] = json.dumps({"errors": errors, "score": 100 - penalty},
                                                separators=(",", ":"))
    target = gold(k)[0] if gold(k) else None
    if target is None or rng.random() < 0.15:
        qa: dict[str, Any] = {"answer_text": "", "start": -1, "end": -1,
                              "unanswerable": True}
    else:
        s = target[0] + rng.choice([0, 0, 0, 1])
        e = target[1] + rng.choice([0, 0, -1, 2])
        e = min(len(text), max(s + 1, e))
        qa = {"answer_text": text[s:e], "start": s, "end": e, "unanswerable": False}
    payload["answer:::answer"] = json.dumps(qa, separators=(",", ":"))
    return payload


def _words(text: str) -> list[tuple[int, str]]:
    out, at = [], 0
    for w in text.split(" "):
        out.append((at, w.rstrip(".")))
        at += len(w) + 1
    return out


def _post_span(sim: Any, url: str, iid: str, span: Span, value: int | None) -> None:
    s, e, label = span
    body = {"type": "span", "schema": "entities", "instance_id": iid,
            "state": [{"name": label, "start": s, "end": e, "title": label, "value": value,
                       "target_field": "", "span_id": f"entities_{label}_{s}_{e}"}]}
    response = sim.session.post(f"{url}/updateinstance", json=body, timeout=30)
    response.raise_for_status()


def build(name: str, out: Path = OUT) -> Path:
    machines = name == "machines"
    port = 8792 if machines else 8791
    with socket.socket() as probe:
        if probe.connect_ex((HOST, port)) == 0:
            raise RuntimeError(f"port {port} is in use")
    users = (*PEOPLE, *(m["id"] for m in MACHINES)) if machines else PEOPLE
    config = base_config(SCHEMES)
    config["max_annotations_per_item"] = config["num_annotators_per_item"] = len(users)
    if machines:
        config["machine_annotators"] = {"enabled": True,
                                        "annotators": [dict(m) for m in MACHINES]}
    work = prepare(f"spans-{name}", "span_projects.py", SEED, config, items())

    def post(sim: Any, url: str, user: str, iid: str) -> dict[str, str]:
        k = int(iid[1:])
        final, removed = spans_for(user, k)
        for span in removed:  # marked, then deleted again
            _post_span(sim, url, iid, span, 1)
        for span in final:
            _post_span(sim, url, iid, span, 1)
        for span in removed:
            _post_span(sim, url, iid, span, None)
        return page_answers(user, k, final)

    report = serve(work, port, users, len(SENTENCES), post)
    return save(work, out / ("span_machines" if machines else "spans"), users, report)


def main(argv: list[str]) -> int:
    out, argv = split_out(argv, OUT)
    for name in argv or ["spans", "machines"]:
        target = build(name, out)
        print(f"{name}: {shown(target)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
