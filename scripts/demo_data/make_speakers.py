"""Generate Accord's speaker-turn demo study: a Potato 2.x project of timed audio labels.

Run ``python scripts/demo_data/make_speakers.py`` to (re)write
``resources/demo/speaker_turns/``. The folder is committed;
``tests/core/test_demo_structured.py`` regenerates it into a temporary folder and
compares every byte, so the script and the folder cannot drift apart.

Why generated: agreement on time segments needs a *known truth* and annotators with
*known* habits. Each clip is a short two-speaker exchange (a host and a guest) with
events (music, laughter, overlapping speech) at known times, and the WAV is synthesized
from that truth (a buzzy low voice for the host, a brighter one for the guest, a chord
for music, noise bursts for laughter) so the turns are visible in the waveform.

Two schemes read the same clips, in Potato's two time units:

- ``turns`` (``tiered_annotation``, **milliseconds**): tier ``speaker`` (host, guest) and
  tier ``events`` (laughter, music, overlap);
- ``speech`` (``audio_annotation``, **seconds**): where anyone speaks, and where music
  plays.

Annotators: ``ines`` careful (boundaries within a few hundredths of a second),
``jonas`` sloppy boundaries (each boundary off by up to ±0.4 s), ``wei`` misses short
events (most events under a second, half of the short turns). On ``INSTANT_CLIP`` the
guest cuts in at one instant, marked as a zero-length ``overlap`` event; ``ines`` and
``jonas`` both mark it at the same millisecond.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

# scripts/demo_data/ is not a package: load the shared writer from this folder (whatever
# the working directory), and leave no __pycache__ beside the scripts.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import _potato_writer as pw  # noqa: E402

SEED = 20261202
FOLDER_NAME = "speaker_turns"
DEMO_DIR = Path(__file__).resolve().parents[2] / "resources" / "demo"
"""Where the app's bundled demos live: the default output, ``<repo>/resources/demo``."""
TASK_NAME = "Speaker turns and events (Accord demo)"
N_CLIPS = 12
RATE = 8000
ANNOTATORS = ("ines", "jonas", "wei")
TIERS = {"speaker": ("host", "guest"), "events": ("laughter", "music", "overlap")}
SPEECH_LABELS = ("speech", "music")
COLORS = {"host": "#4ECDC4", "guest": "#FF6B6B", "laughter": "#FFEAA7", "music": "#DDA0DD",
          "overlap": "#95A5A6", "speech": "#45B7D1"}
INSTANT_CLIP = "clip_07"
"""The clip whose guest cuts in at one instant (a zero-length ``overlap`` event)."""
SHORT = 1.0
"""Seconds: events shorter than this are what ``wei`` tends to miss."""
MERGE_GAP = 0.3
"""Seconds: turns closer than this form one stretch of ``speech``."""
REVIEW_START = datetime(2025, 11, 24, 9, 0, tzinfo=UTC).timestamp()
"""When the first annotator opens the first clip (a fixed instant, not the clock)."""


@dataclass(frozen=True)
class Seg:
    """A truth or annotated segment in seconds (``start == end`` for an instant)."""

    start: float
    end: float
    label: str

    @property
    def length(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class Clip:
    id: str
    duration: float
    turns: tuple[Seg, ...]
    events: tuple[Seg, ...]

    def speech(self) -> tuple[Seg, ...]:
        """The ``speech`` scheme's truth: turns merged across short gaps, plus music."""
        merged: list[Seg] = []
        for t in sorted(self.turns, key=lambda s: s.start):
            if merged and t.start - merged[-1].end < MERGE_GAP:
                merged[-1] = Seg(merged[-1].start, max(merged[-1].end, t.end), "speech")
            else:
                merged.append(Seg(t.start, t.end, "speech"))
        music = [e for e in self.events if e.label == "music"]
        return tuple(sorted(merged + music, key=lambda s: s.start))


# ------------------------------------------------------------------------------ truth


def make_clip(index: int, dice: Any) -> Clip:
    """A 5-8 s exchange: optional intro music, alternating turns with gaps or overlaps,
    maybe a laugh and an outro."""
    clip_id = f"clip_{index:02d}"
    duration = round(dice.uniform(5.0, 8.0), 1)
    events: list[Seg] = []
    t = 0.2
    if dice.chance(0.4):
        end = round(dice.uniform(0.6, 1.4), 2)
        events.append(Seg(0.0, end, "music"))
        t = end + 0.15
    outro = round(dice.uniform(0.6, 1.0), 2) if dice.chance(0.25) else 0.0
    stop = duration - 0.2 - outro
    speaker = "guest" if dice.chance(0.2) else "host"
    turns: list[Seg] = []
    pending: Seg | None = None
    """The overlap the next turn makes, kept only if that turn happens."""
    while True:
        end = min(t + dice.uniform(0.7, 2.2), stop)
        if end - t < 0.5:
            break
        if pending is not None:
            events.append(pending)
            pending = None
        turns.append(Seg(round(t, 2), round(end, 2), speaker))
        if end >= stop:
            break
        speaker = "guest" if speaker == "host" else "host"
        if clip_id == INSTANT_CLIP and len(turns) == 2:
            t = end  # a hard cut: the next speaker starts the instant this one stops
            pending = Seg(round(t, 2), round(t, 2), "overlap")
        elif dice.chance(0.25):
            t = end - dice.uniform(0.3, 0.6)  # the next speaker starts early
            pending = Seg(round(t, 2), round(end, 2), "overlap")
        else:
            t = end + dice.uniform(0.15, 0.45)
    if clip_id == INSTANT_CLIP and not any(e.length == 0 for e in events):
        raise AssertionError(f"{clip_id} must hold the zero-length overlap; change the seed")
    if outro:
        events.append(Seg(round(duration - outro, 2), duration, "music"))
    if dice.chance(0.5):
        first = max([1.0] + [e.end + 0.2 for e in events if e.start == 0.0])
        start = round(dice.uniform(first, max(first + 0.1, turns[-1].end - 1.0)), 2)
        events.append(Seg(start, round(start + dice.uniform(0.3, 0.9), 2), "laughter"))
    events.sort(key=lambda e: (e.start, e.end))
    return Clip(clip_id, duration, tuple(turns), tuple(events))


# ------------------------------------------------------------------------------ audio


def _envelope(n: int) -> np.ndarray:
    """10 ms fades at both ends, so segments do not click."""
    env = np.ones(n)
    k = min(80, n // 2)
    if k:
        ramp = np.arange(k) / k
        env[:k] = ramp
        env[n - k:] = ramp[::-1]
    return env


def waveform(clip: Clip, dice: Any) -> list[int]:
    """8-bit unsigned samples (128 = silence) drawn from the clip's truth."""
    n = round(clip.duration * RATE)
    signal = np.zeros(n)
    voices = {"host": (125.0, (1.0, 0.55, 0.35), 3.5, 38.0),
              "guest": (215.0, (1.0, 0.3, 0.6), 5.0, 32.0)}
    for turn in clip.turns:
        f0, harmonics, syllables, amp = voices[turn.label]
        a, b = int(turn.start * RATE), int(turn.end * RATE)
        t = np.arange(b - a) / RATE
        tone = sum(h * np.sin(2 * np.pi * f0 * (k + 1) * t) for k, h in enumerate(harmonics))
        syllable = 0.35 + 0.65 * np.abs(np.sin(np.pi * syllables * t))
        signal[a:b] += amp / sum(harmonics) * tone * syllable * _envelope(b - a)
    for e in clip.events:
        a, b = int(e.start * RATE), int(e.end * RATE)
        if b <= a:
            continue
        t = np.arange(b - a) / RATE
        if e.label == "music":
            chord = sum(np.sin(2 * np.pi * f * t) for f in (261.6, 329.6, 392.0, 523.3))
            signal[a:b] += 9.0 * chord * _envelope(b - a)
        elif e.label == "laughter":
            noise = np.array([dice.uniform(-1, 1) for _ in range(b - a)])
            signal[a:b] += 40.0 * noise * np.abs(np.sin(np.pi * 5.0 * t)) * _envelope(b - a)
    hiss = np.array([dice.uniform(-1.5, 1.5) for _ in range(n)])
    samples = np.clip(np.round(128.0 + signal + hiss), 1, 255).astype(np.int64)
    return [int(s) for s in samples]


# ------------------------------------------------------------------------ annotators


@dataclass(frozen=True)
class Profile:
    """How one annotator places boundaries and which events they skip."""

    boundary: str
    """``gauss``: normal noise with σ ``spread``; ``uniform``: anywhere within ±``spread``."""
    spread: float
    miss_short_event: float
    """Chance to skip an event shorter than ``SHORT`` seconds (instants included)."""
    miss_short_turn: float
    """Chance to skip a turn (or speech stretch) shorter than ``SHORT`` seconds."""
    seconds: tuple[float, float]


PROFILES = {
    "ines": Profile("gauss", 0.04, 0.0, 0.0, (90, 200)),
    "jonas": Profile("uniform", 0.4, 0.05, 0.0, (40, 90)),
    "wei": Profile("gauss", 0.08, 0.8, 0.5, (50, 120)),
}


def _shift(dice: Any, p: Profile) -> float:
    """How far one boundary lands from the truth (seconds)."""
    if p.boundary == "uniform":
        return dice.uniform(-p.spread, p.spread)
    return float(dice.gauss(0.0, p.spread))


def _redraw(dice: Any, p: Profile, seg: Seg, duration: float, exact: bool = False) -> Seg:
    """The segment as this annotator marks it: boundaries moved, kept inside the clip,
    at least 0.1 s long unless it is an instant."""
    if exact:
        return seg
    if seg.length == 0:
        t = min(max(seg.start + _shift(dice, p), 0.0), duration)
        return Seg(t, t, seg.label)
    a = min(max(seg.start + _shift(dice, p), 0.0), duration)
    b = min(max(seg.end + _shift(dice, p), 0.0), duration)
    a, b = min(a, b), max(a, b)
    if b - a < 0.1:
        b = min(duration, a + 0.1)
        a = b - 0.1
    return Seg(a, b, seg.label)


def _marks(dice: Any, name: str, segs: tuple[Seg, ...], duration: float, *, events: bool,
           instant_exact: bool) -> list[Seg]:
    p = PROFILES[name]
    out = []
    for s in segs:
        miss = p.miss_short_event if events else p.miss_short_turn
        if s.length < SHORT and dice.chance(miss):
            continue
        exact = instant_exact and s.length == 0 and name in ("ines", "jonas")
        out.append(_redraw(dice, p, s, duration, exact))
    return out


@dataclass(frozen=True)
class Marked:
    """One annotator's answers on one clip, in seconds."""

    turns: tuple[Seg, ...]
    events: tuple[Seg, ...]
    speech: tuple[Seg, ...]


def annotate(name: str, clip: Clip, dice: Any) -> Marked:
    """What ``name`` marked on ``clip`` in both schemes (drawn independently: the two
    schemes are separate passes over the clip)."""
    instant = clip.id == INSTANT_CLIP
    return Marked(
        tuple(_marks(dice, name, clip.turns, clip.duration, events=False, instant_exact=False)),
        tuple(_marks(dice, name, clip.events, clip.duration, events=True,
                     instant_exact=instant)),
        tuple(_marks(dice, name, clip.speech(), clip.duration, events=False,
                     instant_exact=False)))


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def tiered_json(m: Marked) -> dict[str, Any]:
    """Potato's tiered answer: segments per tier, times in **milliseconds**."""
    tiers: dict[str, list[dict[str, Any]]] = {"speaker": [], "events": []}
    n = 0
    for tier, segs in (("speaker", m.turns), ("events", m.events)):
        for s in segs:
            n += 1
            tiers[tier].append({"id": f"ann_{n}", "tier": tier, "start_time": _ms(s.start),
                                "end_time": _ms(s.end), "label": s.label, "parent_id": None})
    return {"annotations": tiers}


def audio_json(m: Marked) -> dict[str, Any]:
    """Potato's audio answer: segments in **seconds**."""
    return {"segments": [{"id": f"segment_{i + 1}", "start_time": round(s.start, 3),
                          "end_time": round(s.end, 3), "label": s.label}
                         for i, s in enumerate(m.speech)]}


@dataclass(frozen=True)
class Plan:
    clips: tuple[Clip, ...]
    audio: dict[str, list[int]]
    orderings: dict[str, tuple[str, ...]]
    answers: dict[str, dict[str, Marked]]


def make_plan(seed: int = SEED) -> Plan:
    """Truth, audio and every answer, from one seed: the files, the README and the tests
    all read this one plan. Each annotator draws from their own dice, so changing one
    noise model leaves the others' answers as they were."""
    dice = pw.Dice(seed)
    clips = tuple(make_clip(i, dice) for i in range(1, N_CLIPS + 1))
    audio_dice = pw.Dice(seed + 1)
    audio = {c.id: waveform(c, audio_dice) for c in clips}
    orderings: dict[str, tuple[str, ...]] = {}
    answers: dict[str, dict[str, Marked]] = {}
    by_id = {c.id: c for c in clips}
    for k, name in enumerate(ANNOTATORS):
        adice = pw.Dice(seed + 10 + k)
        orderings[name] = tuple(adice.shuffled([c.id for c in clips]))
        answers[name] = {cid: annotate(name, by_id[cid], adice) for cid in orderings[name]}
    return Plan(clips, audio, orderings, answers)


# ------------------------------------------------------------------------------ files


def user_state(name: str, plan: Plan) -> dict[str, Any]:
    """``name``'s ``user_state.json``: the ``turns`` and ``speech`` answers per clip."""
    dice = pw.Dice(SEED + 20 + ANNOTATORS.index(name))
    start = REVIEW_START + 1800 * ANNOTATORS.index(name)
    labels: dict[str, list[list[Any]]] = {}
    behaviours: dict[str, dict[str, Any]] = {}
    for item, begin, end in pw.sessions(dice, start, plan.orderings[name],
                                        PROFILES[name].seconds):
        marked = plan.answers[name][item]
        turns = pw.data_pair("turns", tiered_json(marked))
        speech = pw.data_pair("speech", audio_json(marked))
        middle = begin + (end - begin) * dice.uniform(0.55, 0.75)
        labels[item] = [turns, speech]
        behaviours[item] = pw.behaviour(item, begin, end, [
            pw.change(middle, "turns", turns[1]),
            pw.change(end - dice.uniform(2, 6), "speech", speech[1])])
    return pw.user_state(name, plan.orderings[name], labels, behaviours)


def _labels_yaml(labels: tuple[str, ...], indent: str) -> str:
    return "\n".join(f'{indent}- {{name: {n}, color: "{COLORS[n]}"}}' for n in labels)


CONFIG_YAML = f"""\
# Potato 2.x project: speaker turns and sound events in short synthetic clips, by three
# annotators. Generated by scripts/demo_data/make_speakers.py (seed {SEED}); do not edit by hand.
annotation_task_name: "{TASK_NAME}"
task_dir: .
data_files:
  - data/clips.jsonl
item_properties:
  id_key: id
  text_key: text
output_annotation_dir: annotation_output/
num_annotators_per_item: 3
assignment_strategy: fixed_order
max_annotations_per_item: -1

instance_display:
  fields:
    - key: audio
      type: audio
    - key: text
      type: text

annotation_schemes:
  - annotation_type: tiered_annotation
    name: turns
    description: "Mark who speaks when (tier speaker) and any laughter, music or
      overlapping speech (tier events). A hard cut-in is an overlap of zero length."
    source_field: audio
    media_type: audio
    tiers:
      - name: speaker
        tier_type: independent
        labels:
{_labels_yaml(TIERS["speaker"], "          ")}
      - name: events
        tier_type: independent
        labels:
{_labels_yaml(TIERS["events"], "          ")}

  - annotation_type: audio_annotation
    name: speech
    description: "Mark every stretch of speech (either speaker) and every stretch of music."
    source_field: audio
    mode: label
    labels:
{_labels_yaml(SPEECH_LABELS, "      ")}
"""


def _fmt(segs: tuple[Seg, ...]) -> str:
    return ", ".join(f"{s.label} {s.start:.2f}" + ("" if s.length == 0 else f"-{s.end:.2f}")
                     for s in segs) or "none"


def readme(plan: Plan) -> str:
    """The folder's README: the truth per clip and what each annotator left out."""
    rows = []
    for c in plan.clips:
        counts = [f"{len(plan.answers[n][c.id].turns)}+{len(plan.answers[n][c.id].events)}"
                  for n in ANNOTATORS]
        rows.append(f"| {c.id} | {c.duration:.1f} | {_fmt(c.turns)} | {_fmt(c.events)} | "
                    f"{len(c.turns)}+{len(c.events)} | {' | '.join(counts)} |")
    n_events = sum(len(c.events) for c in plan.clips)
    short = sum(e.length < SHORT for c in plan.clips for e in c.events)
    wei = sum(len(plan.answers["wei"][c.id].events) for c in plan.clips)
    instant = next(e for c in plan.clips if c.id == INSTANT_CLIP for e in c.events
                   if e.length == 0)
    lines = [
        "# Speaker turns: Accord's audio-segment demo study",
        "",
        f"A Potato 2.x project folder: {len(plan.clips)} synthetic clips (`audio/*.wav`, "
        f"mono, {RATE} Hz, 8-bit, 5-8 s) of a host and a guest talking, each annotated by "
        "three annotators with two schemes:",
        "",
        "- `turns` (`tiered_annotation`): tier `speaker` (host, guest) and tier `events` "
        "(laughter, music, overlap), stored in **milliseconds**;",
        "- `speech` (`audio_annotation`): stretches of `speech` (turns less than "
        f"{MERGE_GAP} s apart run together) and `music`, stored in **seconds**.",
        "",
        "Everything here is synthetic and generated by a seeded script:",
        "",
        "    python scripts/demo_data/make_speakers.py",
        "",
        "which rewrites this folder byte for byte (a test checks that it matches).",
        "",
        "## Known truth",
        "",
        "The audio is synthesized from the truth: the host is a low buzzy voice (125 Hz), "
        "the guest a brighter one (215 Hz), both pulsing at syllable rate; music is a "
        "C-major chord, laughter a pulsing noise burst. Times in seconds:",
        "",
        "| clip | length | turns | events | truth turns+events | "
        + " | ".join(f"{n}" for n in ANNOTATORS) + " |",
        "|---|---|---|---|---|" + "---|" * len(ANNOTATORS),
        *rows,
        "",
        f"On {INSTANT_CLIP} the guest cuts in at {instant.start:.2f} s with no gap: a "
        "zero-length `overlap` event. ines and jonas both mark it at exactly "
        f"{_ms(instant.start)} ms (two identical instants: IoU 1); wei misses it.",
        "",
        "## Annotators (noise models against that truth)",
        "",
        "- **ines**: careful. Every boundary off by a normal error with σ 0.04 s.",
        "- **jonas**: sloppy boundaries. Every boundary anywhere within ±0.4 s of the "
        "truth (uniform), so short events often fall under the 0.5 IoU threshold; "
        "skips 5% of the short events.",
        f"- **wei**: misses short events. Skips 80% of the events under {SHORT:.0f} s "
        f"(laughter, overlaps, the instant) and half of the turns (and of the `speech` "
        f"stretches) under {SHORT:.0f} s; boundaries σ 0.08 s otherwise.",
        "",
        f"Of the {n_events} truth events, {short} are shorter than {SHORT:.0f} s; wei marks "
        f"{wei} events in all.",
        "",
    ]
    return "\n".join(lines)


def generate(out_dir: Path) -> None:
    """Write the study into ``out_dir``, replacing that folder (and nothing else)."""
    pw.replace_folder(out_dir)
    plan = make_plan()
    pw.write_text(out_dir / "config.yaml", CONFIG_YAML)
    pw.write_text(out_dir / "README.md", readme(plan))
    records = []
    for c in plan.clips:
        path = f"audio/{c.id}.wav"
        pw.write_wav(out_dir / path, plan.audio[c.id], RATE)
        records.append({"id": c.id, "text": f"Clip {c.id[-2:]}: a host and a guest "
                                            f"({c.duration:.1f} s).",
                        "audio": path, "duration": c.duration})
    pw.write_jsonl(out_dir / "data" / "clips.jsonl", records)
    for name in ANNOTATORS:
        pw.write_user_state(out_dir, name, user_state(name, plan))


if __name__ == "__main__":
    generate(DEMO_DIR / FOLDER_NAME)
