"""Bad input: one message naming the file and what was wrong, exit status 2, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from app.cli.main import main
from tests.potato_project import RADIO, label, simple_items, structured, write_project


def _good(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj", schemes=[RADIO, {
        "annotation_type": "process_reward", "name": "pr"}], items=simple_items(3), annotators={
        "alice": {"item-0": [label("sentiment", "pos")], "item-1": [label("sentiment", "neg")]},
        "bob": {"item-0": [label("sentiment", "pos")], "item-1": [label("sentiment", "pos")]},
    })


def _fails(project: Path, capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    code = main(["agreement", str(project), "--json"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_malformed_json_in_one_user_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    project = _good(tmp_path)
    state = project / "annotations" / "bob" / "user_state.json"
    state.write_text('{"user_id": "bob",\n "instance_id_to_label_to_value": {\n  "item-0": [,]\n}}')
    _fails(project, capsys, "bob/user_state.json:3", "malformed JSON")


def test_missing_config_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _good(tmp_path)
    config = yaml.safe_load((project / "config.yaml").read_text())
    del config["item_properties"]
    (project / "config.yaml").write_text(yaml.safe_dump(config))
    _fails(project, capsys, "config.yaml", "key 'item_properties'", "missing")


def test_missing_scheme_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _good(tmp_path)
    config = yaml.safe_load((project / "config.yaml").read_text())
    del config["annotation_schemes"][1]["annotation_type"]
    (project / "config.yaml").write_text(yaml.safe_dump(config))
    _fails(project, capsys, "config.yaml", "annotation_schemes[1].annotation_type")


def test_malformed_yaml_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    project = _good(tmp_path)
    (project / "config.yaml").write_text("data_files: [a.jsonl\nitem_properties: {id_key: id}\n")
    _fails(project, capsys, "config.yaml:", "malformed YAML")


def test_data_file_without_the_id_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    project = _good(tmp_path)
    (project / "data" / "items.jsonl").write_text(
        '{"id": "item-0", "text": "a"}\n{"text": "no id here"}\n')
    _fails(project, capsys, "items.jsonl:2", "has no 'id'")


def test_structured_answer_that_is_not_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    project = _good(tmp_path)
    state = project / "annotations" / "alice" / "user_state.json"
    data = json.loads(state.read_text())
    data["instance_id_to_label_to_value"]["item-2"] = [label("pr", "pr", '{"steps": [1, 2')]
    state.write_text(json.dumps(data))
    message = _fails(project, capsys, "alice/user_state.json", "item 'item-2'", "scheme 'pr'",
                     "not valid JSON")
    assert "annotator 'alice'" in message


def test_media_path_leaving_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    project = write_project(tmp_path / "proj", schemes=[{
        "annotation_type": "image_annotation", "name": "objects", "source_field": "image"}],
        items=[{"id": "i1", "text": "x", "image": "../../etc/hostname"}],
        annotators={"alice": {"i1": [structured("objects", [], under_data=True)]}})
    _fails(project, capsys, "items.jsonl", "leaves the project folder")


def test_data_file_leaving_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    project = _good(tmp_path)
    config = yaml.safe_load((project / "config.yaml").read_text())
    config["data_files"] = ["/etc/passwd"]
    (project / "config.yaml").write_text(yaml.safe_dump(config))
    _fails(project, capsys, "config.yaml", "data_files[0]", "leaves the project folder")


def test_empty_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    _fails(empty, capsys, str(empty), "no config.yaml")


def test_project_without_annotators(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = write_project(tmp_path / "proj", schemes=[RADIO], items=simple_items(2),
                            annotators={})
    (project / "annotations").mkdir()
    _fails(project, capsys, "annotations", "no annotator folders")


def test_unknown_scheme_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _good(tmp_path)
    code = main(["agreement", str(project), "--scheme", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and "no scheme named 'nope'" in err and "sentiment" in err


def test_usage_error_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement"]) == 2
    assert "required" in capsys.readouterr().err


def test_real_process_exit_status_and_no_traceback(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-m", "app", "agreement", str(empty)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr and "no config.yaml" in done.stderr


def test_data_file_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _good(tmp_path)
    (project / "data" / "items.jsonl").write_bytes(b'{"id": "item-0", "text": "caf\xe9"}\n')
    _fails(project, capsys, "items.jsonl", "not UTF-8")


def test_truncated_user_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _good(tmp_path)
    state = project / "annotations" / "alice" / "user_state.json"
    state.write_text(state.read_text()[:40])
    _fails(project, capsys, "alice/user_state.json:", "malformed JSON")


def test_the_cli_budget_default_is_the_core_one() -> None:
    from app.cli import agreement
    from app.core.agreement.sets.agreement import DEFAULT_BUDGET

    assert agreement.DEFAULT_BUDGET == DEFAULT_BUDGET


def test_help_does_not_import_the_core() -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom app.cli.main import build_parser\nbuild_parser()\n"
            "print(sorted(m for m in sys.modules if m.startswith(('scipy', 'app.core.agreement',"
            " 'app.core.contracts', 'PySide6'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
