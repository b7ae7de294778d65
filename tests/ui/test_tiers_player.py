"""Playback in the tiers view: the state machine over a fake backend, the sentences when
there is no backend or no audio, and the cursor following playback and the ruler.

Oracle: the calls a fake backend records, and the positions it reports, compared with
what the state machine and the cursor lines show.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QPointF, Qt
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext
from app.ui.views.tiers import qt_media
from app.ui.views.tiers.audio_bar import PAUSE, PLAY
from app.ui.views.tiers.player import Playback, PlayState
from app.ui.views.tiers.view import TiersView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


class FakeBackend:
    """Records what it was asked; the test plays the media's part."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []
        self.position: Callable[[float], None] = lambda _t: None
        self.finished: Callable[[], None] = lambda: None
        self.error: Callable[[str], None] = lambda _m: None

    def attach(
        self,
        on_position: Callable[[float], None],
        on_finished: Callable[[], None],
        on_error: Callable[[str], None],
    ) -> None:
        self.position, self.finished, self.error = on_position, on_finished, on_error

    def load(self, path: Path) -> None:
        self.calls.append(("load", path))

    def play(self) -> None:
        self.calls.append(("play", None))

    def pause(self) -> None:
        self.calls.append(("pause", None))

    def seek(self, seconds: float) -> None:
        self.calls.append(("seek", seconds))


def test_the_state_machine(qapp: object) -> None:
    fake = FakeBackend()
    p = Playback(fake)
    assert p.state is PlayState.NO_AUDIO and not p.can_play
    p.play()
    assert fake.calls == [] and p.state is PlayState.NO_AUDIO
    p.set_source(Path("a.wav"), 5.0)
    assert p.state is PlayState.READY and fake.calls == [("load", Path("a.wav"))]
    p.play()
    assert p.state is PlayState.PLAYING and fake.calls[-1] == ("play", None)
    fake.position(1.25)
    assert p.position == 1.25
    p.toggle()
    assert p.state is PlayState.READY and fake.calls[-1] == ("pause", None)
    fake.position(3.0)  # a late report after pausing does not move the cursor
    assert p.position == 1.25
    p.seek(-1.0)
    assert p.position == 0.0 and fake.calls[-1] == ("seek", 0.0)
    p.seek(99.0)
    assert p.position == 5.0 and fake.calls[-1] == ("seek", 5.0)
    p.play()  # at the end: play starts again from the beginning
    assert fake.calls[-2:] == [("seek", 0.0), ("play", None)] and p.position == 0.0
    fake.finished()
    assert p.state is PlayState.READY and p.position == 5.0
    fake.error("decoder exploded")
    assert p.state is PlayState.FAILED and "decoder exploded" in p.sentence
    assert not p.can_play
    p.set_source(None, 4.0)
    assert p.state is PlayState.NO_AUDIO and "no audio file" in p.sentence


def test_without_a_backend_the_cursor_still_moves(qapp: object) -> None:
    p = Playback("Playback is off here.")
    p.set_source(Path("a.wav"), 5.0)
    assert p.state is PlayState.UNAVAILABLE and p.sentence == "Playback is off here."
    p.play()
    assert p.state is PlayState.UNAVAILABLE
    p.seek(2.5)
    assert p.position == 2.5


def test_media_backend_says_why_there_is_none(
    monkeypatch: pytest.MonkeyPatch, qapp: object
) -> None:
    def missing(name: str) -> object:
        raise ModuleNotFoundError(name)

    def broken(name: str) -> object:
        raise ImportError("libpulse.so.0: cannot open shared object file")

    monkeypatch.setattr(qt_media.importlib, "import_module", missing)
    assert qt_media.media_backend() == qt_media.NO_MODULE
    monkeypatch.setattr(qt_media.importlib, "import_module", broken)
    assert "could not be loaded (libpulse.so.0" in str(qt_media.media_backend())
    no_device = SimpleNamespace(QMediaDevices=SimpleNamespace(audioOutputs=lambda: []))
    monkeypatch.setattr(qt_media.importlib, "import_module", lambda name: no_device)
    assert qt_media.media_backend() == qt_media.NO_DEVICE


@pytest.fixture(scope="module")
def speakers() -> ProjectData:
    return run(open_project(DEMO / "speaker_turns"))


def make_view(qtbot: QtBot, backend: FakeBackend | str, context: ViewContext) -> TiersView:
    view = TiersView(backend=backend)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_context(context)
    qtbot.waitExposed(view)
    return view


def test_play_pause_and_the_cursor_in_the_view(qtbot: QtBot, speakers: ProjectData) -> None:
    fake = FakeBackend()
    view = make_view(qtbot, fake, ViewContext(project=speakers, item="clip_02", scheme="turns"))
    assert fake.calls == [("load", DEMO / "speaker_turns" / "audio" / "clip_02.wav")]
    bar = view.audio
    assert bar.button.isEnabled() and bar.button.text() == PLAY
    qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)
    assert view.playback.state is PlayState.PLAYING and bar.button.text() == PAUSE
    fake.position(2.0)
    assert [line.value() for line in view.play_cursor.lines] == pytest.approx([2.0] * 3)
    assert bar.time.text() == "2.00 / 6.30 s"
    # Zoomed in on 0-1 s, a cursor leaving the view turns the page.
    view.plot.setXRange(0.0, 1.0, padding=0)
    fake.position(1.5)
    left, right = view.plot.viewRange()[0]
    assert left <= 1.5 <= right
    qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)
    assert view.playback.state is PlayState.READY and bar.button.text() == PLAY


def test_a_click_on_the_ruler_seeks(qtbot: QtBot, speakers: ProjectData) -> None:
    fake = FakeBackend()
    view = make_view(qtbot, fake, ViewContext(project=speakers, item="clip_01", scheme="turns"))
    box = view.ruler.getViewBox()
    scene = box.mapViewToScene(QPointF(3.0, 0.5))
    point = view.graphics.mapFromScene(scene)
    qtbot.mouseClick(view.graphics.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert view.playback.position == pytest.approx(3.0, abs=0.02)
    assert fake.calls[-1][0] == "seek"
    assert view.play_cursor.position == pytest.approx(3.0, abs=0.02)
    # A click on the rows does not seek.
    rows = view.graphics.mapFromScene(view.plot.getViewBox().mapViewToScene(QPointF(1.0, 0.5)))
    qtbot.mouseClick(view.graphics.viewport(), Qt.MouseButton.LeftButton, pos=rows)
    assert view.playback.position == pytest.approx(3.0, abs=0.02)


def test_dragging_the_cursor_scrubs(qtbot: QtBot, speakers: ProjectData) -> None:
    fake = FakeBackend()
    view = make_view(qtbot, fake, ViewContext(project=speakers, item="clip_01", scheme="turns"))
    ruler_line = view.play_cursor.lines[1]
    ruler_line.setValue(4.0)
    ruler_line.sigDragged.emit(ruler_line)
    assert view.playback.position == pytest.approx(4.0)
    assert fake.calls[-1] == ("seek", 4.0)
    assert view.play_cursor.lines[2].value() == pytest.approx(4.0)


def test_no_backend_is_a_sentence_and_a_disabled_button(
    qtbot: QtBot, speakers: ProjectData
) -> None:
    view = make_view(
        qtbot, qt_media.NO_MODULE, ViewContext(project=speakers, item="clip_01", scheme="turns")
    )
    assert not view.audio.button.isEnabled()
    assert view.audio.status.text() == qt_media.NO_MODULE
    assert view.wave_plot.isVisible()  # the waveform does not need the backend


def test_an_item_without_audio_says_so(qtbot: QtBot, tmp_path: Path) -> None:
    copy = tmp_path / "speaker_turns"
    shutil.copytree(DEMO / "speaker_turns", copy, ignore=shutil.ignore_patterns("*.wav"))
    project = run(open_project(copy))
    view = make_view(
        qtbot, FakeBackend(), ViewContext(project=project, item="clip_01", scheme="turns")
    )
    assert view.playback.state is PlayState.NO_AUDIO
    assert not view.audio.button.isEnabled()
    assert "no audio file" in view.audio.status.text()
    assert "no audio" in view.header.text()
