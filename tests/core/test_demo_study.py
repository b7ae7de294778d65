"""The bundled demo study (``resources/demo/support_triage``) and its generator.

The folder is committed so the app can open it offline; these tests keep it identical to
what ``scripts/demo_data/make_demo.py`` writes, and check that the Potato reader opens it
the way the demo promises (four schemes, the #167 repairs, every assigned answer).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from app.core.formats.potato.project import load_study
from app.core.model import Kind, Study, TraceJudgement

ROOT = Path(__file__).resolve().parents[2]
DEMO_DIR = ROOT / "resources" / "demo"
GENERATOR = ROOT / "scripts" / "demo_data" / "make_demo.py"
STUDY_DIR = DEMO_DIR / "support_triage"
SCHEMES = ("resolution", "helpfulness", "step_reward", "step_correctness")


def _load_generator() -> ModuleType:
    """Import ``make_demo.py`` from its path: ``scripts/demo_data`` is not a package."""
    name = "accord_demo_make_demo"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while being built
    keep, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ by the script
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = keep
    return module


make_demo = _load_generator()


@pytest.fixture(scope="module")
def study() -> Study:
    return load_study(STUDY_DIR)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _state(annotator: str) -> dict[str, Any]:
    path = STUDY_DIR / "annotation_output" / annotator / "user_state.json"
    state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return state


def test_committed_folder_is_what_the_script_generates(tmp_path: Path) -> None:
    out = tmp_path / "support_triage"
    make_demo.generate(out)
    generated, committed = _files(out), _files(STUDY_DIR)
    assert sorted(generated) == sorted(committed)
    changed = [name for name in generated if generated[name] != committed[name]]
    assert not changed, f"regenerate with python scripts/demo_data/make_demo.py: {changed}"


def test_generating_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    make_demo.generate(tmp_path / "a")
    make_demo.generate(tmp_path / "a")  # replaces its own earlier output
    make_demo.generate(tmp_path / "b")
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_generate_refuses_to_replace_a_foreign_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(FileExistsError):
        make_demo.generate(tmp_path)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_demo_stays_small() -> None:
    assert sum(len(b) for b in _files(STUDY_DIR).values()) < 1_000_000


def test_loads_with_four_annotators_forty_items_four_schemes(study: Study) -> None:
    assert study.annotators == ("amara", "bruno", "chen", "dilnoza")
    assert len(study.items) == 40
    assert sorted(study.items) == [f"conv-{i:03d}" for i in range(1, 41)]
    assert {name: s.kind for name, s in study.schemes.items()} == {
        "resolution": Kind.NOMINAL, "helpfulness": Kind.ORDINAL,
        "step_reward": Kind.TRACE, "step_correctness": Kind.TRACE}
    assert study.schemes["resolution"].labels == make_demo.RESOLUTIONS
    assert study.schemes["helpfulness"].scale == ("1", "2", "3", "4", "5")
    assert study.annotators_per_item == 3
    assert study.notes == []


def test_items_carry_text_and_four_to_eight_steps(study: Study) -> None:
    for item in study.items.values():
        assert item.text
        steps = item.steps["steps"]
        assert 4 <= len(steps) <= 8
        assert any(step.tool_call for step in steps)


def test_two_issue_167_answers_are_repaired_to_the_later_select(study: Study) -> None:
    assert study.single_choice_repairs == {"resolution": 2}
    found = []
    for annotator in study.annotators:
        state = _state(annotator)
        for item, pairs in state["instance_id_to_label_to_value"].items():
            chosen = [key["name"] for key, value in pairs
                      if key["schema"] == "resolution" and value is True]
            if len(chosen) < 2:
                continue
            changes = state["instance_id_to_behavioral_data"][item]["annotation_changes"]
            selects = [c for c in changes
                       if c["schema_name"] == "resolution" and c["action"] == "select"]
            later = max(selects, key=lambda c: c["timestamp"])["label_name"]
            assert later == chosen[-1] != chosen[0]
            assert study.answers["resolution"][item][annotator] == later
            found.append((annotator, item))
    expected = [(who, make_demo.make_plan().assignments[who][pos])
                for who, pos in make_demo.ISSUE_167_ANSWERS]
    assert sorted(found) == sorted(expected)


def test_every_assigned_item_has_every_answer(study: Study) -> None:
    coverage: dict[str, int] = {}
    for annotator in study.annotators:
        state = _state(annotator)
        ordering = state["instance_id_ordering"]
        assert state["current_instance_index"] == len(ordering) - 1
        for item in ordering:
            coverage[item] = coverage.get(item, 0) + 1
            for scheme in SCHEMES:
                assert annotator in study.answers[scheme].get(item, {}), (annotator, item,
                                                                          scheme)
            n_steps = len(study.items[item].steps["steps"])
            for scheme in ("step_reward", "step_correctness"):
                answer = study.answers[scheme][item][annotator]
                assert isinstance(answer, TraceJudgement)
                assert sorted(answer.labels, key=int) == [str(i) for i in range(n_steps)]
    counts = sorted(coverage.values())
    assert len(coverage) == 40
    assert counts.count(1) == 2
    assert counts.count(4) >= 2
    assert set(counts) == {1, 3, 4}


def _step_agreement(study: Study, annotator: str) -> tuple[float, int, int]:
    """Share of step labels matching the truth, and planted steps caught / seen."""
    plan = make_demo.make_plan()
    hits = total = caught = planted = 0
    for c in plan.conversations:
        if c.id not in plan.assignments[annotator]:
            continue
        judgement = study.answers["step_correctness"][c.id][annotator]
        assert isinstance(judgement, TraceJudgement)
        labels = judgement.labels
        for i in range(len(c.steps)):
            wrong = c.planted is not None and c.planted.index == i
            hits += labels[str(i)] == ("incorrect" if wrong else "correct")
            total += 1
            if wrong:
                planted += 1
                caught += labels[str(i)] in ("incorrect", "partially_correct")
    return hits / total, caught, planted


def test_noise_models_show_in_the_answers(study: Study) -> None:
    """The demo's point: Accord should find amara careful, chen sloppy on steps, dilnoza
    harsh. Check the generated answers really say so."""
    amara, bruno, chen = (_step_agreement(study, a) for a in ("amara", "bruno", "chen"))
    assert amara[0] > bruno[0] > chen[0]
    assert amara[0] >= 0.9
    assert 0.6 <= chen[0] <= 0.8
    assert chen[1] / chen[2] < amara[1] / amara[2]

    plan = make_demo.make_plan()
    truth = {c.id: c.helpfulness for c in plan.conversations}
    for annotator, expected in (("amara", 0.0), ("dilnoza", -1.0)):
        diffs = [int(str(study.answers["helpfulness"][item][annotator])) - truth[item]
                 for item in plan.assignments[annotator]]
        assert abs(sum(diffs) / len(diffs) - expected) < 0.35

    resolution_truth = {c.id: c.resolution for c in plan.conversations}
    chen_radio = [study.answers["resolution"][i]["chen"] == resolution_truth[i]
                  for i in plan.assignments["chen"]]
    assert sum(chen_radio) / len(chen_radio) >= 0.85
