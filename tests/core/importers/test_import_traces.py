"""``accord import traces``: agent-trace review logs (JSON Lines, one file per reviewer)
→ a Potato project with trajectory_eval, process_reward, tool_call_review and an outcome
radio.

The logs are written here by hand in the shape formats.md documents ("Trace review
log"): OpenAI-style messages, ratings keyed by the assistant message's ``id``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from app.core.formats.potato.project import load_study
from app.core.model import TraceJudgement
from tests.core.importers.support import (
    agreement,
    assert_same_numbers,
    import_fails,
    import_into_occupied,
    import_ok,
    label_pairs,
)
from tests.potato_project import label, structured, write_project


def trace(trace_id: int | str, n_steps: int, *, ratings: list[dict[str, Any]] | None = None,
          outcome: str | None = None, task: str = "rename the reports") -> dict[str, Any]:
    """A trace with ``n_steps`` assistant messages a0, a1, ...: each odd one calls a
    tool (and a tool message answers it); user and system messages around them."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are an agent."},
                                      {"role": "user", "content": task}]
    for i in range(n_steps):
        if i % 2:
            messages.append({"role": "assistant", "id": f"a{i}", "content": None,
                             "tool_calls": [{"id": f"call_{i}", "type": "function",
                                             "function": {"name": f"tool_{i}",
                                                          "arguments": json.dumps({"k": i})}}]})
            messages.append({"role": "tool", "tool_call_id": f"call_{i}",
                             "content": f"result {i}"})
        else:
            messages.append({"role": "assistant", "id": f"a{i}", "content": f"step {i}"})
    out: dict[str, Any] = {"trace_id": trace_id, "task": task, "tools": [],
                           "messages": messages, "ratings": ratings or []}
    if outcome is not None:
        out["outcome"] = outcome
    return out


def write_log(path: Path, traces: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(t) + "\n" for t in traces))
    return path


def stored(project: Path, annotator: str, item: str) -> dict[str, Any]:
    out = {}
    for key, value in label_pairs(project, annotator, item):
        out[key["schema"]] = json.loads(value) if key["name"] == key["schema"] else \
            (key["name"], value)
    return out


# ------------------------------------------------------------------------ round trip


EXAMPLE = {
    "trace_id": 17, "task": "rename the reports", "tools": [{"type": "function"}],
    "messages": [
        {"role": "system", "content": "..."}, {"role": "user", "content": "..."},
        {"role": "assistant", "id": "m3", "content": "Plan: ..."},
        {"role": "assistant", "id": "m4", "content": None,
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "list_files", "arguments": "{\"query\": \"q\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "3 results"},
        {"role": "assistant", "id": "m6", "content": "Done."}],
    "ratings": [{"step_id": "m6", "correctness": "correct", "reward": 0},
                {"step_id": "m4", "correctness": "incorrect", "reward": -1,
                 "verdict": "wrong_args", "error_type": "wrong_tool", "severity": "major"},
                {"step_id": "m3", "reward": 1, "confidence": 0.9}],
    "outcome": "failure"}


def test_the_formats_md_example_round_trips(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    log = write_log(tmp_path / "rita.jsonl", [EXAMPLE])
    out = import_ok(capsys, "traces", str(log), "-o", str(tmp_path / "p"))
    assert "confidence (1)" in out  # a rating key with no scheme is counted, not dropped
    [record] = [json.loads(x) for x in
                (tmp_path / "p" / "data" / "items.jsonl").read_text().splitlines()]
    assert record["id"] == "17" and record["text"] == "rename the reports"
    assert record["steps"] == [
        {"id": "m3", "role": "assistant", "content": "Plan: ...", "tool_calls": []},
        {"id": "m4", "role": "assistant", "content": "",
         "tool_calls": [{"id": "call_1", "name": "list_files", "arguments": {"query": "q"}}]},
        {"id": "m6", "role": "assistant", "content": "Done.", "tool_calls": []}]
    assert record["messages"] == EXAMPLE["messages"]
    answers = stored(tmp_path / "p", "rita", "17")
    assert answers["correctness"]["steps"] == [
        {"step_index": 1, "correctness": "incorrect", "error_type": "wrong_tool",
         "severity": "major", "rationale": ""},
        {"step_index": 2, "correctness": "correct", "error_type": None, "severity": None,
         "rationale": ""}]
    assert answers["reward"] == {"steps": [{"index": 0, "reward": 1}, {"index": 1, "reward": -1},
                                           {"index": 2, "reward": 0}], "mode": "per_step"}
    assert answers["verdict"] == [{"index": 1, "step": 1, "tool": "list_files",
                                   "verdict": "wrong_args", "notes": ""}]
    assert answers["outcome"] == ("failure", True)
    # What Accord's reader reads back: one label per step index, 0 a neutral label.
    study = load_study(tmp_path / "p")
    got = {s: study.answers[s]["17"]["rita"] for s in ("correctness", "reward", "verdict")}
    assert all(isinstance(j, TraceJudgement) for j in got.values())
    assert got["correctness"].labelled() == {"1": "incorrect", "2": "correct"}  # type: ignore[union-attr]
    assert got["correctness"].details["1"] == {  # type: ignore[union-attr]
        "error_type": "wrong_tool", "severity": "major"}
    assert got["reward"].labelled() == {"0": "1", "1": "-1", "2": "0"}  # type: ignore[union-attr]
    assert got["verdict"].labelled() == {"1": "wrong_args"}  # type: ignore[union-attr]
    assert study.answers["outcome"]["17"]["rita"] == "failure"
    steps = study.items["17"].steps["steps"]
    assert [(s.index, s.text, s.tool_call) for s in steps] == [
        (0, "[assistant] Plan: ...", None), (1, "[assistant]", 'list_files({"query": "q"})'),
        (2, "[assistant] Done.", None)]
    types = {s.name: s.annotation_type for s in study.schemes.values()}
    assert types == {"correctness": "trajectory_eval", "reward": "process_reward",
                     "verdict": "tool_call_review", "outcome": "radio"}


def test_only_schemes_that_appear_and_unjudged_steps(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    a = write_log(tmp_path / "a.jsonl", [
        trace(1, 3, ratings=[{"step_id": "a0", "reward": 1}, {"step_id": "a2", "reward": None}]),
        trace(2, 2)])
    b = write_log(tmp_path / "b.jsonl", [trace(2, 2, ratings=[{"step_id": "a1", "reward": -1}])])
    import_ok(capsys, "traces", str(a), str(b), "-o", str(tmp_path / "p"))
    study = load_study(tmp_path / "p")
    assert list(study.schemes) == ["reward"]
    assert study.answers["reward"]["1"]["a"].labelled() == {"0": "1"}  # type: ignore[union-attr]
    # A trace the reviewer saw without judging a step: an answer with no labels.
    assert study.answers["reward"]["2"]["a"].labelled() == {}  # type: ignore[union-attr]
    assert set(study.answers["reward"]["1"]) == {"a"}  # b never saw trace 1


# ------------------------------------------------------------------------ end to end


REVIEWERS = ("ines", "jon", "kai")
LENGTHS = {101: 4, 102: 6, 103: 3, 104: 5, 105: 2}


def _labels(seed: int) -> dict[str, dict[int, dict[str, Any]]]:
    """reviewer → trace → {step: rating, "outcome": ...}, from a seeded generator:
    reviewers mostly agree with a shared truth, some steps unjudged on some keys."""
    rng = random.Random(seed)
    truth = {t: {i: {"correctness": rng.choice(["correct", "correct", "incorrect",
                                                 "partially_correct"]),
                     "reward": rng.choice([1, 1, -1, 0]),
                     "verdict": rng.choice(["correct", "wrong_args", "wrong_tool"])}
                 for i in range(n)} for t, n in LENGTHS.items()}
    outcomes = {t: rng.choice(["success", "partial", "failure"]) for t in LENGTHS}
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for who in REVIEWERS:
        out[who] = {}
        for t, steps in truth.items():
            if who == "kai" and t == 103:
                continue
            mine: dict[Any, Any] = {}
            for i, ratings in steps.items():
                rating = {}
                for key, value in ratings.items():
                    if key == "verdict" and i % 2 == 0:
                        continue  # verdicts only on tool-calling steps
                    if rng.random() < 0.15:
                        continue  # not judged on this question
                    options = {"correctness": ["correct", "incorrect", "partially_correct"],
                               "reward": [1, -1, 0],
                               "verdict": ["correct", "wrong_args", "wrong_tool"]}[key]
                    rating[key] = value if rng.random() < 0.75 else rng.choice(options)
                if rating:
                    mine[i] = rating
            mine["outcome"] = outcomes[t] if rng.random() < 0.7 else rng.choice(
                ["success", "partial", "failure"])
            out[who][t] = mine
    return out


def _log(labels: dict[int, dict[Any, Any]], seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    lines = []
    for t, mine in labels.items():
        ratings = [{"step_id": f"a{i}", **r} for i, r in mine.items() if i != "outcome"]
        rng.shuffle(ratings)  # ratings may come in any order
        lines.append(trace(t, LENGTHS[t], ratings=ratings, outcome=mine["outcome"]))
    rng.shuffle(lines)
    return lines


def _potato(root: Path, study: dict[str, dict[int, dict[Any, Any]]]) -> Path:
    """The same study as a Potato project, in the demo's shapes."""
    schemes = [
        {"annotation_type": "trajectory_eval", "name": "correctness", "steps_key": "steps",
         "correctness_options": ["correct", "incorrect", "partially_correct"]},
        {"annotation_type": "process_reward", "name": "reward", "steps_key": "steps",
         "mode": "per_step", "allow_neutral": True},
        {"annotation_type": "tool_call_review", "name": "verdict", "steps_key": "steps"},
        {"annotation_type": "radio", "name": "outcome",
         "labels": ["success", "partial", "failure"]}]
    items = [{"id": str(t), "text": "rename the reports", "steps": [
        {"role": "assistant", "content": f"step {i}"} for i in range(n)]}
        for t, n in LENGTHS.items()]

    def answers(mine: dict[Any, Any]) -> list[list[Any]]:
        steps = {k: v for k, v in mine.items() if k != "outcome"}
        return [
            structured("correctness", {"steps": [
                {"step_index": i, "correctness": r["correctness"]}
                for i, r in steps.items() if "correctness" in r]}),
            structured("reward", {"steps": [{"index": i, "reward": r["reward"]}
                                            for i, r in steps.items() if "reward" in r],
                                  "mode": "per_step"}),
            structured("verdict", [{"index": i, "verdict": r["verdict"]}
                                   for i, r in steps.items() if "verdict" in r]),
            label("outcome", mine["outcome"])]

    return write_project(root, schemes=schemes, items=items, annotators={
        who: {str(t): answers(mine) for t, mine in traces.items()}
        for who, traces in study.items()})


def test_agreement_equals_the_same_study_as_a_potato_project(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = _labels(20261202)
    logs = [write_log(tmp_path / "logs" / f"{who}.jsonl", _log(study[who], k))
            for k, who in enumerate(REVIEWERS)]
    import_ok(capsys, "traces", *map(str, logs), "-o", str(tmp_path / "imported"))
    imported = agreement(capsys, tmp_path / "imported")
    direct = agreement(capsys, _potato(tmp_path / "potato", study))
    assert set(imported["schemes"]) == {"correctness", "reward", "verdict", "outcome"}
    for name in ("correctness", "reward", "verdict"):
        got = imported["schemes"][name]
        assert got["kind"] == "trace" and got["metrics"]["n_units"] > 5
        assert got["metrics"]["alpha"] is not None
    assert imported["schemes"]["outcome"]["kind"] == "nominal"
    assert_same_numbers(imported["schemes"], direct["schemes"])
    assert imported["coverage"] == direct["coverage"]


# ----------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("rating", "needle"), [
    ({"step_id": "m9", "reward": 1}, "step_id 'm9' is not an assistant message of trace 17"),
    ({"step_id": "call_1", "reward": 1}, "step_id 'call_1'"),
    ({"step_id": "m4", "reward": 2}, "reward is 2; expected 1, -1 or 0"),
    ({"step_id": "m4", "correctness": "wrong"}, "correctness is 'wrong'"),
    ({"step_id": "m4", "verdict": "bad"}, "verdict is 'bad'"),
    ({"step_id": "m6", "reward": 1}, "rated twice"),
])
def test_bad_rating_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        rating: dict[str, Any], needle: str) -> None:
    other = dict(EXAMPLE, trace_id=18)
    bad = dict(EXAMPLE, ratings=[EXAMPLE["ratings"][0], rating])  # type: ignore[index]
    log = write_log(tmp_path / "rita.jsonl", [other, bad])
    import_fails(capsys, "traces", [str(log)], tmp_path / "p", needle, f"{log}:2")


def test_bad_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "rita.jsonl"
    log.write_text(json.dumps(EXAMPLE) + "\n" + json.dumps(EXAMPLE)[:40] + "\n")
    import_fails(capsys, "traces", [str(log)], tmp_path / "p", f"{log}:2", "not valid JSON")
    write_log(log, [EXAMPLE, EXAMPLE])
    import_fails(capsys, "traces", [str(log)], tmp_path / "p", f"{log}:2", "trace 17 appears twice")
    write_log(log, [dict(EXAMPLE, outcome="won")])
    import_fails(capsys, "traces", [str(log)], tmp_path / "p", f"{log}:1", "outcome is 'won'")
    write_log(log, [{"trace_id": 3, "messages": "hello"}])
    import_fails(capsys, "traces", [str(log)], tmp_path / "p", f"{log}:1", "messages")


def test_two_reviewers_disagreeing_on_a_trace(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    a = write_log(tmp_path / "a.jsonl", [trace(5, 3)])
    b = write_log(tmp_path / "b.jsonl", [trace(6, 2), trace(5, 4)])
    message = import_fails(capsys, "traces", [str(a), str(b)], tmp_path / "p",
                           "trace 5's messages differ", f"{b}:2", str(a))
    assert "expected every reviewer's file to hold the same trace" in message


def test_existing_non_empty_output_is_refused(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    log = write_log(tmp_path / "rita.jsonl", [EXAMPLE])
    out = tmp_path / "p"
    code, stderr = import_into_occupied(capsys, "traces", out, str(log))
    assert code == 2
    err = stderr.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and "not empty" in err[0]
