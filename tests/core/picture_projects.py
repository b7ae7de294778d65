"""Potato projects whose items' text is their picture (``text_key: image``), made from the
``images`` project Potato 2.12.1's server wrote (``tests/data/potato_server/images``: its
answers, data file and 320 × 180 PNGs untouched). Only the config changes: the image
schemes lose their ``source_field``, and ``item_properties.text_key`` names the field to
show as the item, which is what a Potato user writes when the item is its picture."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

SERVER_IMAGES = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "images"


def text_picture_project(folder: Path, text_key: str = "image",
                         display: list[dict[str, Any]] | None = None) -> Path:
    """A copy of the server's ``images`` project at ``folder`` whose schemes take their
    picture from the item's text (``text_key``), optionally with an ``instance_display``."""
    shutil.copytree(SERVER_IMAGES, folder)
    config_path = folder / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    config["item_properties"]["text_key"] = text_key
    for scheme in config["annotation_schemes"]:
        scheme.pop("source_field", None)
    if display is not None:
        config["instance_display"] = {"fields": display}
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    return folder
