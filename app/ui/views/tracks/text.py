"""The tracks view's words: the scheme's identity line, the pair's counts, a frame's
objects (HTML for its labels; names are whatever the caller shows: A, B, C in
presentation mode)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape

from app.core.agreement.identity.lanes import ItemLanes
from app.ui.views.tracks.model import PairCount, frame_objects

KEY = ("<b>Key</b> · a row is one object (its tracks aligned) · bar: a track from its "
       "first frame to its last · <i>= name</i>: its partner in the pair · "
       "<span style='color:#C62828'><b>red hatching</b></span>: missed (the other "
       "annotator has nothing matched to it) · <span style='color:#FF8F00'>◆</span>: ID "
       "switch (a new partner) · faded: not in the pair · click: pick a frame")
IDENTITY = (("identity.mota", "MOTA"), ("identity.idf1", "IDF1"),
            ("identity.id_switches", "ID switches per direction"))


def scheme_text(metrics: Mapping[str, float | int | None], undefined: Mapping[str, str],
                anonymize: Callable[[str], str]) -> str:
    """The scheme's pooled MOTA, IDF1 and ID switches, or why each is undefined."""
    parts = []
    for key, label in IDENTITY:
        value = metrics.get(key)
        if value is None:
            why = escape(anonymize(undefined.get(key, "undefined")))
            parts.append(f"{label} <span style='color:#8A4B00'>undefined: {why}</span>")
        elif key == "identity.id_switches":
            parts.append(f"{label} <b>{float(value):g}</b>")
        else:
            parts.append(f"{label} <b>{float(value):.3f}</b>")
    return "Scheme (pooled over pairs, items and both directions): " + " · ".join(parts)


def pair_line(counts: list[PairCount], names: Mapping[str, str]) -> str:
    """Each direction of the pair on this item: object-frames, misses, switches."""
    return " · ".join(
        f"{escape(names[c.reference])} as reference: {c.object_frames} object-frames, "
        f"{c.misses} missed by {escape(names[c.other])}, "
        f"{c.switches} ID switch{'' if c.switches == 1 else 'es'}" for c in counts)


def frame_html(data: ItemLanes, frame: int, pair: tuple[str, str] | None,
               names: Mapping[str, str], colors: Mapping[str, str]) -> str:
    """One line per object on ``frame``: who, which track, and in the pair its partner
    or *missed*."""
    partner_of: dict[tuple[str, str], str] = {}
    if pair is not None:
        for ref, other in (pair, pair[::-1]):
            matching = data.matchings.get((ref, other))
            shown = {s.track: s.shown for s in data.tracks.get(other, [])}
            mine = {s.track: s.shown for s in data.tracks.get(ref, [])}
            for t, p in (matching.matches.get(frame, {}) if matching else {}).items():
                partner_of[(ref, mine.get(t, t))] = f"{names[other]} {shown.get(p, p)}"
    rows = []
    for annotator, track, label in frame_objects(data, frame):
        partner = partner_of.get((annotator, track))
        state = ("" if pair is None or annotator not in pair else
                 f" = {escape(partner)}" if partner else
                 " <span style='color:#C62828'>missed</span>")
        rows.append(f"<span style='color:{colors[annotator]}'>■</span> "
                    f"{escape(names[annotator])} · {escape(track)} ({escape(label)}){state}")
    return "<br>".join(rows) or "No object on this frame."
