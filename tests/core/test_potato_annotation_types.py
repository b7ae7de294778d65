"""Config errors point at what is wrong: the known annotation types are Potato 2.12.1's
own (its schema registry, the oracle), a misspelt one is refused with the closest, and a
YAML syntax error names the line that is broken, not the one where the parser noticed."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.formats.potato.annotation_types import ANNOTATION_TYPES, closest
from app.core.formats.potato.project import load_study
from app.core.formats.reading.yaml_file import read_yaml
from tests.potato_project import RADIO, simple_items, write_project


def test_the_known_types_are_potato_s_own() -> None:
    registry = pytest.importorskip("potato.server_utils.schemas.registry")
    assert set(registry.schema_registry.get_supported_types()) == ANNOTATION_TYPES


@pytest.mark.parametrize("typed, meant", [("radiobutton", "radio"), ("Radio", "radio"),
                                          ("likret", "likert"), ("multi_select", "multiselect"),
                                          ("image_annotations", "image_annotation")])
def test_a_misspelt_type_is_refused_with_the_closest(typed: str, meant: str,
                                                     tmp_path: Path) -> None:
    assert closest(typed) == meant
    scheme = {**RADIO, "annotation_type": typed}
    project = write_project(tmp_path / "p", schemes=[scheme], items=simple_items(2),
                            annotators={"ann": {}})
    with pytest.raises(InputError, match=f"unknown annotation_type '{typed}'; did you mean "
                                         f"{meant}\\?"):
        load_study(project)


def _yaml_line(tmp_path: Path, text: str) -> int | None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        read_yaml(path)
    return caught.value.line


def test_an_unclosed_quote_is_reported_on_its_own_line(tmp_path: Path) -> None:
    text = ('# a comment\nname: "Support triage\ntask_dir: .\nitems:\n  - a\n  - b\n'
            'other: "x"\nlast: 1\n')
    assert _yaml_line(tmp_path, text) == 2
    assert _yaml_line(tmp_path, "a: 1\nb: 'open\nc: 2\n") == 2


def test_other_errors_keep_the_parser_s_line(tmp_path: Path) -> None:
    assert _yaml_line(tmp_path, "a: 1\nb: [1, 2\nc: 3\n") in (2, 3)
    assert _yaml_line(tmp_path, "a: 1\n  b: 2\n") == 2
