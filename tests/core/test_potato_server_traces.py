"""Agent-trace answers written by the real Potato 2.12.1 server: `accord agreement --json`
against Potato's own ``/admin/iaa`` on the same files.

``tests/data/potato_server/traces/`` was written by
``tests/potato_real/annotation_projects.py traces`` (the real server, Potato's simulator
client posting what the trajectory_eval, process_reward and tool_call_review widgets
post); ``expected/iaa.json`` is the server's ``/admin/iaa`` body. No server runs here.

What Potato 2.12.1 reports for a trace scheme (``iaa/structured.py: trace_report``):
``alpha_nominal``, ``cohen_kappa`` and ``percent_agreement`` over (item, step) units, the
step labels read by ``step_agreement.steps_from_stored``. Accord's ``trace`` kind reports
``alpha``, ``kappa``, ``percent_agreement`` and ``n_units`` over the same units
(``agreement.md``, Agent traces). Where both read the same labels the numbers are equal
to 1e-9. Where they read different labels, the test shows the reading is the whole
difference: Potato's own measure on the labels agreement.md defines gives Accord's numbers.
"""

from __future__ import annotations

import json
import shutil
import warnings
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli.main import main
from app.core.formats.potato.project import load_study
from app.core.model import Study, TraceJudgement

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "traces"
ANNOTATORS = ("alice", "bob", "carol")
TRACE_SCHEMES = ("step_check", "first_error", "step_reward", "tool_review")
TOL = 1e-9

_REPORTS: dict[Path, dict[str, Any]] = {}


def same(x: float) -> Any:
    return pytest.approx(x, abs=TOL)


def accord(capsys: pytest.CaptureFixture[str], path: Path = DATA) -> dict[str, Any]:
    """``accord agreement PATH --json``, parsed (once per path)."""
    if path not in _REPORTS:
        capsys.readouterr()
        assert main(["agreement", str(path), "--json"]) == 0
        out = capsys.readouterr().out
        assert "NaN" not in out and "Infinity" not in out
        _REPORTS[path] = json.loads(out)
    return _REPORTS[path]


def scheme_report(capsys: pytest.CaptureFixture[str], name: str,
                  path: Path = DATA) -> dict[str, Any]:
    report: dict[str, Any] = accord(capsys, path)["schemes"][name]
    return report


@cache
def iaa() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "expected" / "iaa.json").read_text())
    return data


def potato(scheme: str) -> dict[str, Any]:
    metrics: dict[str, Any] = iaa()["schemas"][scheme]["metrics"]
    return metrics


@cache
def config() -> dict[str, dict[str, Any]]:
    cfg = yaml.safe_load((DATA / "config.yaml").read_text())
    return {s["name"]: s for s in cfg["annotation_schemes"]}


@cache
def raw() -> dict[str, dict[str, dict[str, Any]]]:
    """scheme → item → annotator → the value the server stored, as it stored it."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for who in ANNOTATORS:
        state = json.loads((DATA / "annotation_output" / who / "user_state.json").read_text())
        for item, entries in state["instance_id_to_label_to_value"].items():
            for label, value in entries:
                out.setdefault(label["schema"], {}).setdefault(item, {})[who] = (
                    label["name"], value)
    return out


def trace_value(scheme: str, item: str, who: str) -> Any:
    name, value = raw()[scheme][item][who]
    assert name == scheme  # the hidden input's label_name is the scheme's name
    return json.loads(value)


def labels_by_the_spec(scheme: str, stored: Any) -> dict[str, str]:
    """Step labels as formats.md / agreement.md define them, read independently."""
    cfg = config()[scheme]
    kind = cfg["annotation_type"]
    if kind == "trajectory_eval":
        return {str(s["step_index"]): s["correctness"] for s in stored["steps"]
                if s["correctness"] is not None}
    if kind == "process_reward":
        neutral = bool(cfg.get("allow_neutral")) and cfg.get("mode") == "per_step"
        return {str(s["index"]): str(s["reward"]) for s in stored["steps"]
                if s["reward"] is not None and (s["reward"] != 0 or neutral)}
    assert kind == "tool_call_review" and isinstance(stored, list)
    return {str(c["index"]): c["verdict"] for c in stored if c["verdict"]}


def spec_labels(scheme: str) -> dict[str, dict[str, dict[str, str]]]:
    return {item: {who: labels_by_the_spec(scheme, trace_value(scheme, item, who))
                   for who in per}
            for item, per in raw()[scheme].items()}


@cache
def study() -> Study:
    return load_study(DATA)


def judgement(scheme: str, item: str, who: str) -> TraceJudgement:
    answer = study().answers[scheme][item][who]
    assert isinstance(answer, TraceJudgement)
    return answer


# --------------------------------------------------------------------------- reading


def test_the_project_is_what_the_recipe_says() -> None:
    types = {name: s["annotation_type"] for name, s in config().items()}
    assert types == {"outcome": "radio", "step_check": "trajectory_eval",
                     "first_error": "process_reward", "step_reward": "process_reward",
                     "tool_review": "tool_call_review"}
    items = [json.loads(line) for line in (DATA / "data/items.jsonl").read_text().splitlines()]
    assert len(items) == 12
    for item in items:  # the steps under each scheme's steps_key, as the display reads them
        for scheme in TRACE_SCHEMES:
            steps = item[config()[scheme]["steps_key"]]
            assert steps and all(isinstance(s, dict) and "content" in s for s in steps)


def test_every_answer_is_read_and_none_is_empty() -> None:
    """Each stored trace answer of each annotator is an answer in Accord, with exactly the
    step labels the spec defines, and none of them is empty."""
    s = study()
    for scheme in TRACE_SCHEMES:
        expected = spec_labels(scheme)
        got = s.answers_for(scheme)
        assert {(i, w) for i, per in got.items() for w in per} == \
               {(i, w) for i, per in expected.items() for w in per}, scheme
        for item, per in expected.items():
            for who, labels in per.items():
                answer = got[item][who]
                assert isinstance(answer, TraceJudgement)
                assert answer.labelled() == labels, (scheme, item, who)
                assert labels, (scheme, item, who)
    radio = s.answers_for("outcome")
    assert {(i, w): a for i, per in radio.items() for w, a in per.items()} == \
           {(i, w): name for i, per in raw()["outcome"].items()
            for w, (name, _) in per.items()}
    assert len(radio) == 12 and all(len(per) == 3 for per in radio.values())


def test_stored_shapes_the_readers_must_handle() -> None:
    """The cases this project holds on purpose, as the real server stored them."""
    # trajectory_eval: an unjudged card is stored as correctness null
    sc = trace_value("step_check", "a02", "alice")
    assert any(st["correctness"] is None for st in sc["steps"]) and sc["score"] is None
    # process_reward without a neutral option: unmarked is reward 0 (not a label)
    fe = trace_value("first_error", "a00", "alice")
    assert fe["mode"] == "first_error"
    assert [st["index"] for st in fe["steps"] if st["reward"] == 0] == [0, 3]
    assert set(judgement("first_error", "a00", "alice").labelled()) == {"1", "2", "4"}
    # with the neutral option: unmarked is null, 0 is a deliberate neutral (a label)
    sr = trace_value("step_reward", "a04", "alice")
    assert any(st["reward"] is None for st in sr["steps"])
    assert any(st["reward"] == 0 for st in sr["steps"])
    assert "0" in judgement("step_reward", "a04", "alice").labelled().values()
    # tool_call_review: a list of judged calls keyed by the call's index; two calls in
    # one step (a04, step 2) are two units; a call with a note only has no verdict
    tr = trace_value("tool_review", "a04", "bob")
    assert [(c["index"], c["step"]) for c in tr] == [(0, 0), (1, 2), (2, 2)]
    assert set(judgement("tool_review", "a04", "bob").labelled()) == {"0", "1", "2"}
    carol = trace_value("tool_review", "a04", "carol")
    assert carol[2]["verdict"] == "" and carol[2]["notes"]
    assert "2" not in judgement("tool_review", "a04", "carol").labelled()
    # nothing judged: the widget's input stays empty and the browser posts nothing
    assert "bob" not in raw()["tool_review"]["a03"]
    assert set(raw()["tool_review"]) == {f"a{k:02d}" for k in range(12)} - {"a05", "a11"}


def test_units_and_pairs_counted_independently(capsys: pytest.CaptureFixture[str]) -> None:
    for scheme in TRACE_SCHEMES:
        units = [[per[w][step] for w in per if step in per[w]]
                 for per in spec_labels(scheme).values()
                 for step in {k for labels in per.values() for k in labels}]
        r = scheme_report(capsys, scheme)
        assert r["kind"] == "trace"
        assert r["n_units"] == r["metrics"]["n_units"] == sum(len(u) >= 2 for u in units)
        assert r["n_pairs"] == sum(len(list(combinations(u, 2))) for u in units)
        assert r["n_items"] == sum(len(per) >= 2 for per in raw()[scheme].values())
        agree = sum(a == b for u in units for a, b in combinations(u, 2))
        assert r["metrics"]["percent_agreement"] == same(agree / r["n_pairs"])


# --------------------------------------------------------------------------- vs Potato


def test_radio_equals_potato(capsys: pytest.CaptureFixture[str]) -> None:
    p, m = potato("outcome"), scheme_report(capsys, "outcome")["metrics"]
    assert m["alpha"] == same(p["alpha_nominal"])
    assert m["fleiss_kappa"] == same(p["fleiss_kappa"])
    assert m["kappa"] == same(p["pairwise_cohen_kappa"])
    assert m["percent_agreement"] == same(p["percent_agreement"])


def test_process_reward_with_neutral_equals_potato(capsys: pytest.CaptureFixture[str]) -> None:
    """per_step with ``allow_neutral``: both read 1 / 0 / -1 as labels and null as none."""
    p, r = potato("step_reward"), scheme_report(capsys, "step_reward")
    assert r["metrics"]["alpha"] == same(p["alpha_nominal"])
    assert r["metrics"]["kappa"] == same(p["cohen_kappa"])
    assert r["metrics"]["percent_agreement"] == same(p["percent_agreement"])
    assert r["n_items"] == p["n_items"] == 12


def _with_neutral(tmp_path: Path, scheme: str) -> Path:
    copy = tmp_path / "traces"
    shutil.copytree(DATA, copy)
    cfg = yaml.safe_load((copy / "config.yaml").read_text())
    for s in cfg["annotation_schemes"]:
        if s["name"] == scheme:
            s.update(mode="per_step", allow_neutral=True)
    (copy / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return copy


def test_first_error_differs_only_by_reading_unmarked_zero(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No neutral option: the widget stores an unmarked step as reward 0, and
    agreement.md reads 0 as "not marked" (no label). Potato reads it as the label "0".
    That reading is the whole difference: the same files with the scheme given a neutral
    option (so 0 is a label for Accord too) give exactly Potato's numbers."""
    zeros = sum(st["reward"] == 0 for item, per in raw()["first_error"].items()
                for who in per for st in trace_value("first_error", item, who)["steps"])
    assert zeros >= 10
    p, m = potato("first_error"), scheme_report(capsys, "first_error")["metrics"]
    assert abs(m["alpha"] - p["alpha_nominal"]) > 0.1
    assert m["percent_agreement"] != same(p["percent_agreement"])
    as_potato = scheme_report(capsys, "first_error", _with_neutral(tmp_path, "first_error"))
    assert as_potato["metrics"]["alpha"] == same(p["alpha_nominal"])
    assert as_potato["metrics"]["kappa"] == same(p["cohen_kappa"])
    assert as_potato["metrics"]["percent_agreement"] == same(p["percent_agreement"])
    assert as_potato["n_units"] > scheme_report(capsys, "first_error")["n_units"]


def test_first_error_note_says_what_potato_reports(capsys: pytest.CaptureFixture[str]) -> None:
    notes = scheme_report(capsys, "first_error")["notes"]
    assert any("Potato" in n and "0" in n for n in notes)


def _potato_measure_on_spec_labels(scheme: str) -> dict[str, Any]:
    """Potato's own trace measure on the labels agreement.md defines, written in a shape
    its reader reads (``{"steps": [{"index", "label"}]}``)."""
    structured = pytest.importorskip("potato.server_utils.iaa.structured")
    rows = {item: {who: {scheme: json.dumps({"steps": [{"index": k, "label": v}
                                                       for k, v in labels.items()]})}
                   for who, labels in per.items()}
            for item, per in spec_labels(scheme).items() if len(per) >= 2}
    with warnings.catch_warnings():  # pandas deprecations inside simpledorff
        warnings.simplefilter("ignore")
        report: dict[str, Any] = structured.trace_report(rows, scheme)
    return report


@pytest.mark.parametrize("scheme", ["step_check", "tool_review"])
def test_potato_reads_no_label_where_accord_reads_all(
        scheme: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Potato 2.12.1 scores nothing on trajectory_eval (its reader takes ``reward``,
    ``label`` or ``verdict``, never ``correctness``) nor on tool_call_review (stored as a
    bare list, which its reader does not read). Accord reads them (agreement.md), and
    Potato's own measure on those labels gives Accord's numbers."""
    assert potato(scheme)["n_items"] == 0
    assert "No item has step labels" in potato(scheme)["note"]
    r = scheme_report(capsys, scheme)
    assert r["n_items"] >= 10 and r["n_units"] >= 20
    oracle = _potato_measure_on_spec_labels(scheme)
    assert r["metrics"]["alpha"] == same(oracle["alpha_nominal"])
    assert r["metrics"]["kappa"] == same(oracle["cohen_kappa"])
    assert r["metrics"]["percent_agreement"] == same(oracle["percent_agreement"])
    assert r["n_items"] == oracle["n_items"]


@pytest.mark.parametrize("scheme", ["step_check", "tool_review"])
def test_note_says_potato_reports_nothing(scheme: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert any("Potato" in n for n in scheme_report(capsys, scheme)["notes"])


def test_trace_alpha_beside_the_radio_alpha(capsys: pytest.CaptureFixture[str]) -> None:
    """Each step-level α is shown beside the α the same annotators reach on the radio."""
    for scheme in TRACE_SCHEMES:
        ref = scheme_report(capsys, scheme)["categorical_reference"]
        assert ref["scheme"] == "outcome"
        assert ref["alpha"] == same(potato("outcome")["alpha_nominal"])
