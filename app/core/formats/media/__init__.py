"""The media a view draws under the annotations: an item's picture, point cloud and audio.

Why here and not in the views: finding and reducing media is numpy work that must stay
quick on the GUI thread and be testable without Qt. One module per idea:
:mod:`.locate` (which file of an item a scheme draws on, and when the item's text is its
picture), :mod:`.clouds` (PCD, PLY, LAS, KITTI/nuScenes ``.bin`` and ``.npy`` thinned to
a bound), :mod:`.audio` (any audio libsndfile decodes, as a bounded min/max envelope).
The readers' libraries are imported when a file of theirs is read, not here.
"""

from app.core.formats.media.audio import (
    AUDIO_SUFFIXES,
    ENVELOPE_BINS,
    Waveform,
    envelope,
    read_waveform,
)
from app.core.formats.media.clouds import MAX_CLOUD_POINTS, POINT_CLOUD_SUFFIXES, read_point_cloud
from app.core.formats.media.locate import IMAGE_SUFFIXES, item_media

__all__ = [
    "AUDIO_SUFFIXES",
    "ENVELOPE_BINS",
    "IMAGE_SUFFIXES",
    "MAX_CLOUD_POINTS",
    "POINT_CLOUD_SUFFIXES",
    "Waveform",
    "envelope",
    "item_media",
    "read_point_cloud",
    "read_waveform",
]
