"""``accord agreement PROJECT --consensus FILE.jsonl``: exit codes, one message on bad
input with nothing written, an atomic write, and the bundled demos end to end."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.cli import agreement as cli_agreement
from app.cli.main import main
from app.core.agreement.consensus.categorical import METHODS
from app.paths import demo_studies
from tests.potato_project import RADIO, label, simple_items, write_project


def _project(tmp_path: Path) -> Path:
    return write_project(
        tmp_path / "proj",
        schemes=[RADIO],
        items=simple_items(3),
        annotators={
            "alice": {
                "item-0": [label("sentiment", "pos")],
                "item-1": [label("sentiment", "neg")],
                "item-2": [label("sentiment", "neu")],
            },
            "bob": {
                "item-0": [label("sentiment", "pos")],
                "item-1": [label("sentiment", "pos")],
                "item-2": [label("sentiment", "neu")],
            },
            "cyd": {"item-0": [label("sentiment", "neg")], "item-1": [label("sentiment", "neu")]},
        },
    )


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _bad(args: list[str], capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    code = main(args)
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_the_methods_agree_with_the_core() -> None:
    assert cli_agreement.CONSENSUS_METHODS == METHODS


def test_writes_the_rows_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    inside = sorted(project.rglob("*"))
    out = tmp_path / "out" / "consensus.jsonl"
    assert main(["agreement", str(project), "--consensus", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == (
        f"wrote the majority consensus to {out}: 3 rows, 2 with a consensus"
    )
    rows = {r["item"]: r for r in _read(out)}
    # item-0: pos, pos, neg -> pos (alice, bob); item-1: neg, pos, neu -> a three-way tie;
    # item-2: neu, neu -> neu
    assert rows["item-0"]["consensus"] == "pos"
    assert rows["item-0"]["agreed_by"] == ["alice", "bob"]
    assert rows["item-1"]["consensus"] is None
    assert rows["item-1"]["tie"] == ["neg", "neu", "pos"]
    assert rows["item-2"]["consensus"] == "neu" and rows["item-2"]["n_annotators"] == 2
    assert sorted(project.rglob("*")) == inside  # nothing written into the project


def test_dawid_skene_and_the_report_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    out = tmp_path / "ds.jsonl"
    assert (
        main(
            [
                "agreement",
                str(project),
                "--json",
                "--consensus",
                str(out),
                "--consensus-method",
                "dawid_skene",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "sentiment" in json.loads(captured.out)["schemes"]  # stdout is still the JSON
    assert "dawid_skene consensus" in captured.err
    assert {r["method"] for r in _read(out)} == {"dawid_skene"}


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--consensus", "{tmp}/c.json"], ("--consensus", "ending in .jsonl")),
        (["--consensus", "{project}/c.jsonl"], ("inside the project folder",)),
        (["--consensus", "{tmp}"], (".jsonl",)),
        (["--consensus-method", "dawid_skene"], ("needs --consensus",)),
        (["--consensus", "{tmp}/c.jsonl", "--consensus-method", "vote"], ("invalid choice",)),
        (["--consensus", "{tmp}/c.jsonl", "--scheme", "nope"], ("no scheme named 'nope'",)),
        (["--consensus", "{tmp}/c.jsonl", "--threshold", "nope=0.5"], ("no scheme named",)),
    ],
)
def test_bad_input_is_one_message_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needles: tuple[str, ...]
) -> None:
    project = _project(tmp_path)
    before = sorted(p for p in tmp_path.rglob("*"))
    args = [a.format(tmp=tmp_path, project=project) for a in extra]
    _bad(["agreement", str(project), *args], capsys, *needles)
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_a_broken_project_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    (project / "config.yaml").write_text("annotation_schemes: [\n")
    out = tmp_path / "c.jsonl"
    _bad(["agreement", str(project), "--consensus", str(out)], capsys, "config.yaml")
    assert not out.exists()


def test_a_failed_write_leaves_the_earlier_file_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    out = tmp_path / "c.jsonl"
    out.write_text("earlier\n")

    def refuse(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    _bad(["agreement", str(project), "--consensus", str(out)], capsys, "No space left")
    assert out.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl", "proj"]  # no stray temp


EXPECTED_KINDS = {
    "street_images": {"objects": "regions", "segmentation": "masks"},
    "lidar_sweeps": {"objects": "cuboids"},
    "speaker_turns": {"turns": "tiers", "speech": "segments"},
    "people_photos": {"person_present": "nominal", "people": "regions"},
    "sentiment_reviews": {"sentiment": "nominal"},
    "support_triage": {
        "resolution": "nominal",
        "helpfulness": "ordinal",
        "step_reward": "trace",
        "step_correctness": "trace",
    },
}


@pytest.mark.parametrize("demo", sorted(EXPECTED_KINDS))
@pytest.mark.parametrize("method", METHODS)
def test_the_demos(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], demo: str, method: str
) -> None:
    project = demo_studies()[demo]
    out = tmp_path / f"{demo}.jsonl"
    assert (
        main(["agreement", str(project), "--consensus", str(out), "--consensus-method", method])
        == 0
    )
    rows = _read(out)
    assert {r["scheme"]: r["kind"] for r in rows} == EXPECTED_KINDS[demo]
    for row in rows:
        for key in ("item", "scheme", "kind", "method", "n_annotators", "consensus", "agreed_by"):
            assert key in row, (key, row)
        if row["consensus"] is None:
            assert row["reason"], row
        assert set(row["agreed_by"]) <= set(row.get("answers", row["agreed_by"])) or row[
            "kind"
        ] not in ("nominal", "ordinal", "trace")
        for obj in row["consensus"] if isinstance(row["consensus"], list) else ():
            if isinstance(obj, dict) and row["kind"] != "masks":
                assert 2 * len(obj["agreed_by"]) > row["n_annotators"], obj
                assert not set(obj["agreed_by"]) & set(obj["missed_by"])
    assert "consensus to" in capsys.readouterr().out
