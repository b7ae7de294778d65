"""The kind table is the one source of what a kind is (issue 37, part 1).

- every Potato type Accord scores is read by exactly one row, whatever its config, and
  ``kind_for`` answers from the rows;
- a toy kind added in a test (a row, nothing else) is named by ``kind_for`` and scored
  in the report, with no module of another kind touched;
- the metric names a row declares are the names its schemes' results carry, on projects
  Potato 2.12.1 wrote;
- the report switches on no kind: its source names none.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path

import pytest

from app.core.agreement import report as report_module
from app.core.agreement.coefficient import Coefficient
from app.core.agreement.kinds import registry
from app.core.agreement.kinds.spec import KindSpec
from app.core.agreement.report import agreement_report
from app.core.agreement.result import SchemeResult
from app.core.agreement.sets.structured import SetOptions
from app.core.formats.potato.project import load_study
from app.core.model import Kind, Scheme, Study
from app.core.progress import Job, run
from app.report.agreement_export import render_csv, render_json
from app.report.agreement_html import render_html
from app.report.agreement_text import render
from app.report.agreement_vocabulary import HEADLINE
from app.report.kinds.words import WORDS, words_for

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_server"

# agreement.md, "Kinds": the annotation types of every kind, as the spec's table lists them
SPEC_TABLE = {
    "radio": Kind.NOMINAL, "select": Kind.NOMINAL, "likert": Kind.ORDINAL,
    "slider": Kind.ORDINAL, "multiselect": Kind.MULTILABEL,
    "spatial_annotation": Kind.CUBOIDS, "audio_annotation": Kind.SEGMENTS,
    "video_annotation": Kind.SEGMENTS, "temporal_grounding": Kind.SEGMENTS,
    "tiered_annotation": Kind.TIERS, "image_annotation": Kind.REGIONS,
    "process_reward": Kind.TRACE, "trajectory_eval": Kind.TRACE,
    "tool_call_review": Kind.TRACE, "failure_attribution": Kind.TRACE,
    "gui_trajectory": Kind.TRACE,
    # kinds.md A.3 and B §2.1-2.5 (the rating kinds)
    "number": Kind.CONTINUOUS, "vas": Kind.CONTINUOUS, "ranking": Kind.RANKING,
    "multirate": Kind.MATRIX, "constant_sum": Kind.MATRIX, "soft_label": Kind.MATRIX,
    "semantic_differential": Kind.MATRIX, "range_slider": Kind.MATRIX, "bws": Kind.MATRIX,
    "best_worst_scaling": Kind.MATRIX, "hierarchical_multiselect": Kind.MULTILABEL,
    "card_sort": Kind.MULTILABEL,
    # kinds.md A.2 and B §2.6 (spans; tree_annotation named as holding no offsets)
    "span": Kind.SPANS, "event_annotation": Kind.SPANS, "coreference": Kind.SPANS,
    "span_link": Kind.SPANS, "error_span": Kind.SPANS, "extractive_qa": Kind.SPANS,
    "tree_annotation": Kind.SPANS,
    # kinds.md B §2.7 (volumes)
    "volume_annotation": Kind.VOLUMES,
    # kinds.md B §2.9-2.12 (grounding, captions, episodes, rollouts)
    "grounding_eval": Kind.GROUNDING, "region_caption": Kind.CAPTIONS,
    "episode_annotation": Kind.EPISODES, "rollout_evaluation": Kind.ROLLOUTS,
}
CONDITIONAL = {"confidence": Kind.CONTINUOUS, "pairwise": Kind.CONTINUOUS}
"""Types a kind reads only with one config (``scale_type: slider``, ``mode: scale``);
tests/core/test_rating_kinds_report.py checks both ways."""
CONFIGS: list[dict[str, object]] = [
    {}, {"max_selections": 1}, {"max_selections": 3}, {"single_select": True},
    {"single_select": False}, {"max_selections": None},
]


def test_every_kind_has_one_row_and_every_row_a_kind() -> None:
    kinds = [spec.kind for spec in registry.KINDS]
    assert sorted(kinds) == sorted(Kind), "one row per Kind, and no row without one"
    assert all(registry.spec_of(k).kind is k for k in Kind)
    assert registry.spec_of("ordinal") is registry.spec_of(Kind.ORDINAL)
    with pytest.raises(KeyError):
        registry.spec_of("no such kind")


def test_the_table_reads_the_types_of_the_spec_and_no_type_twice() -> None:
    assert set(registry.potato_types()) == set(SPEC_TABLE) | set(CONDITIONAL)
    for annotation_type in SPEC_TABLE:
        for config in CONFIGS:
            readers = [s.kind for s in registry.KINDS if s.reads(annotation_type, config)]
            assert len(readers) == 1, (annotation_type, config, readers)
            assert registry.kind_for(annotation_type, config) is readers[0]


@pytest.mark.parametrize(("annotation_type", "config", "kind"), [
    *[(t, {}, k) for t, k in SPEC_TABLE.items()],
    ("multiselect", {"max_selections": 1}, Kind.NOMINAL),
    ("multiselect", {"single_select": True}, Kind.NOMINAL),
    ("multiselect", {"max_selections": 2}, Kind.MULTILABEL),
    ("radio", {"max_selections": 2}, Kind.NOMINAL),  # radio is single-choice by nature
    ("text", {}, None), ("conjoint", {}, None),
])
def test_kind_for_answers_from_the_table(annotation_type: str, config: dict[str, object],
                                         kind: Kind | None) -> None:
    assert registry.kind_for(annotation_type, config) is kind


class Toy(StrEnum):
    TOY = "toy"


def _toy_score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
               ) -> Job[list[SchemeResult]]:
    yield from ()
    answers = study.answers_for(scheme.name)
    same = [len(set(by.values())) == 1 for by in answers.values() if len(by) >= 2]
    result.put("all_same", Coefficient.of(sum(same) / len(same)) if same
               else Coefficient.undefined("no item with two answers"))
    return [result]


@pytest.fixture
def toy() -> Iterator[KindSpec]:
    spec = KindSpec(kind=Toy.TOY, potato_types=frozenset({"toy_question"}),  # type: ignore[arg-type]
                    metrics=("all_same",), score=_toy_score)
    registry.register(spec)
    try:
        yield spec
    finally:
        registry.unregister(Toy.TOY)
    assert all(s.kind != "toy" for s in registry.KINDS)


def test_a_toy_kind_is_one_row_and_the_report_scores_it(toy: KindSpec) -> None:
    assert registry.kind_for("toy_question", {}) is Toy.TOY
    with pytest.raises(ValueError, match="already has a row"):
        registry.register(toy)
    scheme = Scheme("t", "toy_question", Toy.TOY)  # type: ignore[arg-type]
    radio = Scheme("r", "radio", Kind.NOMINAL)
    answers = {"i1": {"a": "x", "b": "x"}, "i2": {"a": "x", "b": "y"}, "i3": {"a": "y"}}
    study = Study(root=Path(), items={i: None for i in answers},  # type: ignore[misc]
                  schemes={"t": scheme, "r": radio}, annotators=("a", "b"),
                  answers={"t": answers, "r": answers})
    report = run(agreement_report(study, project="toy")).to_json()
    toy_json, radio_json = report["schemes"]["t"], report["schemes"]["r"]
    assert toy_json["kind"] == "toy" and toy_json["metrics"]["all_same"] == 0.5
    # coverage is every kind's, counted before the kind scores
    assert toy_json["n_items"] == 2 and toy_json["n_items_skipped"] == 1
    assert "not_computed" not in toy_json
    # the other kinds are untouched by the new row
    assert radio_json["kind"] == "nominal" and radio_json["metrics"]["percent_agreement"] == 0.5


def test_a_toy_kind_is_in_every_report_format_without_words_of_its_own(toy: KindSpec) -> None:
    scheme = Scheme("t", "toy_question", Toy.TOY)  # type: ignore[arg-type]
    answers = {"i1": {"a": "x", "b": "x"}, "i2": {"a": "x", "b": "y"}}
    study = Study(root=Path(), items={i: None for i in answers},  # type: ignore[misc]
                  schemes={"t": scheme}, annotators=("a", "b"), answers={"t": answers})
    report = run(agreement_report(study, project="toy"))
    assert "t  (toy_question → toy)" in render(report)
    assert "all same" in render_html(report)  # its metric, named from its key
    assert "t,toy,scheme,,all_same,0.5" in render_csv(report)
    assert '"kind": "toy"' in render_json(report)


def test_every_kind_has_its_words_in_the_reports() -> None:
    names = {str(spec.kind) for spec in registry.KINDS}
    assert set(WORDS) == names, "a row in app/report/kinds/words.py for every kind"
    for spec in registry.KINDS:
        words = words_for(spec.kind)
        assert words.headline in spec.metrics, spec.kind
        assert words.matrix is None or words.matrix in spec.metrics, spec.kind
        assert set(words.labels) | set(words.meanings) <= set(spec.metrics), spec.kind
        assert HEADLINE[spec.kind] == words.headline


def test_without_its_row_a_type_is_named_not_computed() -> None:
    scheme = Scheme("t", "toy_question", registry.kind_for("toy_question", {}))
    study = Study(root=Path(), items={"i1": None},  # type: ignore[dict-item]
                  schemes={"t": scheme}, annotators=("a", "b"),
                  answers={"t": {"i1": {"a": "x", "b": "x"}}})
    data = run(agreement_report(study, project="toy")).to_json()["schemes"]["t"]
    assert data["kind"] is None and "'toy_question'" in data["not_computed"]


@pytest.mark.parametrize("project", ["categorical", "images", "machines", "spatial", "timed",
                                     "traces"])
def test_declared_metrics_are_the_metrics_reported(project: str) -> None:
    study = load_study(DATA / project)
    report = run(agreement_report(study, project=project))
    seen = 0
    for result in report.schemes.values():
        if result.kind is None:
            continue
        spec = registry.spec_of(result.kind)
        names = set(result.metrics) - {"n_units"}
        assert names <= set(spec.metrics), (result.name, names - set(spec.metrics))
        if result.kind in ("nominal", "ordinal", "multilabel", "trace"):
            assert names == set(spec.metrics), result.name
        seen += 1
    assert seen


def test_the_report_names_no_kind() -> None:
    source = inspect.getsource(report_module)
    assert "Kind." not in source and "import Kind" not in source and ", Kind," not in source


def test_reading_a_config_imports_no_measure() -> None:
    """``kind_for`` runs for every scheme a project's config names: the table and its rows
    import their measures when a scheme of theirs is scored, not when the table is read
    (a lidar study's report needs neither shapely nor the categorical modules)."""
    import subprocess
    import sys

    code = ("import sys, app.core.formats.potato.config\n"
            "print('\\n'.join(sorted(sys.modules)))")
    loaded = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                            text=True, cwd=Path(__file__).resolve().parents[2]).stdout.split()
    assert "app.core.agreement.kinds.registry" in loaded
    heavy = [m for m in loaded if m.split(".")[0] in ("scipy", "shapely", "sklearn")
             or m.startswith(("app.core.agreement.categorical", "app.core.agreement.masks",
                              "app.core.agreement.regions", "app.core.agreement.consensus",
                              "app.core.agreement.sets.structured"))]
    assert not heavy, heavy


@pytest.mark.parametrize("spec", registry.KINDS, ids=lambda s: str(s.kind))
@pytest.mark.parametrize("answers", [{}, {"i1": {}}], ids=["no answers", "an empty item"])
def test_every_row_says_why_a_number_is_undefined(spec: KindSpec,
                                                  answers: dict[str, dict[str, str]]) -> None:
    """A scheme nobody answered: each metric the kind reports is null with a sentence
    (never NaN, never 1.0 for no data), and none is outside the row's ``metrics``."""
    annotation_type = min(spec.potato_types, default="image_annotation")
    scheme = Scheme("q", annotation_type, spec.kind, labels=("a", "b"), scale=("1", "2"))
    study = Study(root=Path(), items={"i1": None},  # type: ignore[dict-item]
                  schemes={"q": scheme}, annotators=("a", "b"), answers={"q": answers})
    data = run(agreement_report(study, project="p")).to_json()["schemes"]["q"]
    metrics = {k: v for k, v in data["metrics"].items() if k != "n_units"}
    assert metrics, "a kind reports its metrics, undefined, when nobody answered"
    assert set(metrics) <= set(spec.metrics)
    for name, value in metrics.items():
        assert value is None, (name, value)
        assert data["undefined"][name].strip(), name
