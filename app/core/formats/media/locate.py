"""Which file of an item a scheme's view draws under its annotations, and when an item's
text is its picture.

:func:`item_media` finds the file for a scheme: the scheme's ``source_field`` first
(Potato's key for the media a scheme annotates), then any media file of the item with one
of the wanted suffixes, in key order.

Pictures (``agreement.md``, "Where an image comes from"): the scheme's ``source_field``
or the project's ``instance_display`` when it has one; otherwise, for
``image_annotation``, the item's ``text_key`` value when it is a path (not a URL) with an
image extension. Potato 2.12.1's page stamps the item's text on ``data-image-url`` and
its canvas takes it when it looks like an image (a URL, or a path ending in one of
:data:`IMAGE_SUFFIXES`, the extensions its page accepts). :func:`text_is_picture` says
when a project reads its items' text that way, :func:`picture_path` whether one item's
text is such a path; the Potato reader then keeps that path among the item's media under
the ``text_key``, so every view and the ellipse sizes find it like any other picture.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from app.core.model import Item, Scheme

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg", ".bmp", ".tif", ".tiff",
                  ".avif")
"""The extensions Potato 2.12.1's image canvas takes a relative path for."""
URL_PREFIXES = ("http://", "https://", "data:", "s3://", "gs://")
"""Media values that name no file of the project (Potato's page fetches them itself)."""
_NOT_A_PATH = (*URL_PREFIXES, "blob:", "file:")
"""What Potato's image canvas also takes for a URL rather than a path."""


def item_media(item: Item, scheme: Scheme | None, suffixes: Iterable[str]) -> Path | None:
    """The media file of ``item`` that ``scheme`` annotates, with one of ``suffixes``."""
    wanted = tuple(s.lower() for s in suffixes)
    source = scheme.config.get("source_field") if scheme is not None else None
    if isinstance(source, str):
        path = item.media.get(source)
        if path is not None and path.name.lower().endswith(wanted):
            return path
    for key in sorted(item.media):
        path = item.media[key]
        if path.name.lower().endswith(wanted):
            return path
    return None


def media_values(record: Mapping[str, Any], media_keys: Iterable[str],
                 picture_key: str | None) -> Iterator[tuple[str, str]]:
    """The ``(key, path)`` pairs of a data record that name files of the project: the
    media keys' values that are not URLs, then the text's picture path (when
    ``picture_key`` is the ``text_key`` of a project whose text is its picture)."""
    keys = tuple(media_keys)
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and value and not value.startswith(URL_PREFIXES):
            yield key, value
    if picture_key is not None and picture_key not in keys:
        path = picture_path(record.get(picture_key))
        if path is not None:
            yield picture_key, path


def text_is_picture(schemes: Iterable[Scheme], raw_config: Mapping[str, Any]) -> bool:
    """Whether an ``image_annotation`` scheme takes its picture from the item's text: it
    has no ``source_field`` and the project's ``instance_display`` shows no image."""
    if _displays_an_image(raw_config):
        return False
    return any(s.annotation_type == "image_annotation"
               and not isinstance(s.config.get("source_field"), str) for s in schemes)


def picture_path(value: object) -> str | None:
    """``value`` when it is a relative or absolute path with an image extension, not a
    URL and not prose (Potato's page refuses a value with white space or ``<``)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or text.lower().startswith(_NOT_A_PATH) or any(c.isspace() for c in text) \
            or "<" in text:
        return None
    bare = text.split("?", 1)[0].split("#", 1)[0]
    return bare if bare.lower().endswith(IMAGE_SUFFIXES) else None


def _displays_an_image(raw_config: Mapping[str, Any]) -> bool:
    display = raw_config.get("instance_display")
    fields = display.get("fields") if isinstance(display, Mapping) else None
    return isinstance(fields, list) and any(
        isinstance(f, Mapping) and f.get("type") == "image" and isinstance(f.get("key"), str)
        for f in fields)
