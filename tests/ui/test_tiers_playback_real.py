"""The tiers view's Play button over the real Qt Multimedia player, not a fake.

``test_tiers_player.py`` drives the state machine with a fake backend; this plays a demo
clip through ``QMediaPlayer`` (Accord's ``audio`` extra, PySide6-Addons) and checks that
the sound's position reaches the view's red cursor. CI has no sound card, so the player
runs without a device (``require_device=False``): Qt then plays in silence and the
position advances as it would with one.

Outside CI the test is skipped, with the reason, when Qt Multimedia is absent or cannot
load; in CI (``CI=true``) that is a failure, since ``.ci/run`` installs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import wave
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext
from app.ui.views.tiers.player import PlayState
from app.ui.views.tiers.qt_media import QtBackend, media_backend
from app.ui.views.tiers.view import TiersView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "speaker_turns"
CLIP = DEMO / "audio" / "clip_01.wav"


@pytest.fixture(scope="module")
def speakers() -> ProjectData:
    return run(open_project(DEMO))


def real_backend() -> QtBackend:
    backend = media_backend(require_device=False)
    if isinstance(backend, str):
        if os.environ.get("CI"):
            pytest.fail(f"CI installs Qt Multimedia, yet: {backend}")
        pytest.skip(backend)
    assert isinstance(backend, QtBackend)
    return backend


def clip_seconds(path: Path) -> float:
    with wave.open(str(path)) as w:
        return w.getnframes() / w.getframerate()


def test_the_real_player_moves_the_cursor(qtbot: QtBot, speakers: ProjectData) -> None:
    backend = real_backend()
    view = TiersView(backend=backend)
    qtbot.addWidget(view)
    view.resize(1200, 600)
    view.show()
    view.show_context(ViewContext(project=speakers, item="clip_01"))
    playback = view.playback
    assert playback.state is PlayState.READY and playback.path == CLIP
    assert playback.duration == pytest.approx(clip_seconds(CLIP), abs=0.05)
    assert view.play_cursor.position == 0.0
    view.audio.button.click()
    assert playback.state is PlayState.PLAYING
    qtbot.waitUntil(lambda: playback.position > 0.4, timeout=10000)
    view.audio.button.click()
    assert playback.state is PlayState.READY
    paused_at = playback.position
    assert view.play_cursor.position == pytest.approx(paused_at)
    qtbot.wait(300)
    assert playback.position == pytest.approx(paused_at, abs=0.05), "paused means still"
    # a seek moves the player itself: playing on from there, it reports positions past it
    playback.seek(3.0)
    assert backend.player.position() == pytest.approx(3000, abs=60)
    playback.play()
    qtbot.waitUntil(lambda: playback.position > 3.2, timeout=10000)
    playback.pause()
    assert view.play_cursor.position == pytest.approx(playback.position)


def test_qt_multimedia_keeps_quiet_on_stderr(tmp_path: Path) -> None:
    """Without these rules every ``accord open`` printed a dozen lines of Qt Multimedia's
    search for optional libraries (VA-API, PipeWire) and a PulseAudio warning."""
    real_backend()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("QT_LOGGING_RULES", None)
    done = subprocess.run(
        [sys.executable, "-m", "app", "open", str(DEMO), "--view", "tiers", "--item",
         "clip_01", "--screenshot", str(tmp_path / "t.png")],
        capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "qt.multimedia" not in done.stderr and "PulseAudio" not in done.stderr
