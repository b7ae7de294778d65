"""Where an image comes from (agreement.md): the scheme's ``source_field`` or the
project's ``instance_display`` first; otherwise, for ``image_annotation``, the item's
``text_key`` value when it is a path (not a URL) with an image extension, as Potato
2.12.1's page does (``data-image-url``). Ellipses are measured in pixels only when the
picture's size was found, and the report says per scheme how many items were not.

The projects are the one Potato's server wrote (``picture_projects.py``). The oracle for
"measured in pixels" is the same answers read through ``source_field`` (the server's own
config), whose ellipses ``test_potato_server_answers.py`` checks against shapely in
pixels."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.agreement.report import agreement_report
from app.core.agreement.result import AgreementReport
from app.core.agreement.sets.structured import SetOptions
from app.core.formats.media import IMAGE_SUFFIXES, item_media
from app.core.formats.media.locate import picture_path
from app.core.formats.potato.config import read_config
from app.core.formats.potato.project import load_study
from app.core.image_size import image_size
from app.core.model import Study
from app.core.objects import EllipseRegion, ObjectSet
from app.core.progress import run
from tests.core.picture_projects import SERVER_IMAGES, text_picture_project

SET_METRICS = ("mean_agreement", "detection_f1", "mean_matched_iou", "mean_object_count_diff")


def _report(study: Study) -> AgreementReport:
    return run(agreement_report(study, project="p", options=SetOptions(thresholds={})))


def _metric(report: AgreementReport, name: str) -> float:
    value = report.schemes["shapes"].metrics[name]
    return float(getattr(value, "value", value))


def _items_with_ellipses(study: Study) -> int:
    return sum(1 for by in study.answers_for("shapes").values()
               if any(isinstance(a, ObjectSet) and a.of_type(EllipseRegion)
                      for a in by.values()))


@pytest.mark.parametrize(("value", "expected"), [
    ("images/m00.png", "images/m00.png"),
    ("/data/a.JPG", "/data/a.JPG"),
    ("pics/a.webp?v=2", "pics/a.webp"),
    ("https://example.org/a.png", None),   # a URL: Potato's page fetches it
    ("data:image/png;base64,AAAA", None),
    ("file:///x/a.png", None),
    ("a photo of a dog.png", None),        # prose
    ("images/m00", None),                  # no image extension: a bare word
    ("clip.wav", None),
    (3, None),
])
def test_which_texts_are_picture_paths(value: object, expected: str | None) -> None:
    assert picture_path(value) == expected


def test_an_items_text_path_is_its_picture(tmp_path: Path) -> None:
    project = text_picture_project(tmp_path / "p")
    assert read_config(project).picture_key == "image"
    study = load_study(project)
    for item_id, item in study.items.items():
        path = item_media(item, study.schemes["shapes"], IMAGE_SUFFIXES)
        assert path == (project / "images" / f"{item_id}.png").resolve()
        assert image_size(path) == (320, 180)


def test_ellipses_are_measured_in_pixels_as_with_source_field(tmp_path: Path) -> None:
    by_text = _report(load_study(text_picture_project(tmp_path / "p")))
    by_source = _report(load_study(SERVER_IMAGES))
    for name in SET_METRICS:
        assert _metric(by_text, name) == _metric(by_source, name)
    assert "n_items_ellipses_normalized" not in by_text.schemes["shapes"].extra
    assert not any("normalized coordinates, not in pixels" in n
                   for n in by_text.schemes["shapes"].notes)


def test_without_a_picture_the_note_counts_the_normalized_items(tmp_path: Path) -> None:
    """text_key: text ("picture 3") is prose: no picture, so no size; the scheme's
    ellipses are compared normalized, and the note says for how many items."""
    project = text_picture_project(tmp_path / "p", text_key="text")
    assert read_config(project).picture_key == "text"  # the rule holds; no item's text is a path
    study = load_study(project)
    assert all(not item.media for item in study.items.values())
    report = _report(study)
    shapes = report.schemes["shapes"]
    n = _items_with_ellipses(study)
    assert n > 0
    assert shapes.extra["n_items_ellipses_normalized"] == n
    (note,) = [x for x in shapes.notes if "normalized coordinates, not in pixels" in x]
    assert note.startswith(f"{n} items have ellipses but no image size was found")
    # the same answers measured in pixels differ: the note is about something real
    pixels = _report(load_study(SERVER_IMAGES))
    assert abs(_metric(report, "mean_agreement") - _metric(pixels, "mean_agreement")) > 1e-3
    assert "paint" not in report.schemes or \
        "n_items_ellipses_normalized" not in report.schemes["paint"].extra


def test_instance_display_with_an_image_comes_before_the_text(tmp_path: Path) -> None:
    project = text_picture_project(tmp_path / "p",
                                   display=[{"key": "image", "type": "image"},
                                            {"key": "text", "type": "text"}])
    assert read_config(project).picture_key is None
    study = load_study(project)
    assert study.items["m03"].media == {"image": (project / "images" / "m03.png").resolve()}


def test_a_text_picture_that_is_missing_is_counted(tmp_path: Path) -> None:
    project = text_picture_project(tmp_path / "p")
    (project / "images" / "m05.png").unlink()
    study = load_study(project)
    assert "m05" in study.items and not study.items["m05"].media
    assert "1 items name a 'image' file that is not in the project." in study.notes
