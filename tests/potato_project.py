"""Build small Potato project folders for tests, in Potato 2.x's on-disk shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

Pairs = list[list[Any]]


def label(schema: str, name: str, value: Any = True) -> list[Any]:
    """One entry of ``instance_id_to_label_to_value``: ``[{"schema", "name"}, value]``."""
    return [{"schema": schema, "name": name}, value]


def structured(schema: str, answer: Any, *, under_data: bool = False) -> list[Any]:
    """A structured answer: a JSON string under ``_data`` or under the scheme's name."""
    return label(schema, "_data" if under_data else schema, json.dumps(answer))


def write_project(
    root: Path,
    *,
    schemes: list[dict[str, Any]],
    items: list[dict[str, Any]],
    annotators: dict[str, dict[str, Pairs]],
    extra_config: dict[str, Any] | None = None,
    behaviour: dict[str, dict[str, Any]] | None = None,
) -> Path:
    """Write config.yaml, data/items.jsonl and annotations/<name>/user_state.json."""
    root.mkdir(parents=True, exist_ok=True)
    config: dict[str, Any] = {
        "annotation_task_name": "test",
        "task_dir": ".",
        "data_files": ["data/items.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "output_annotation_dir": "annotations/",
        "annotation_schemes": schemes,
    }
    config.update(extra_config or {})
    (root / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (root / "data").mkdir(exist_ok=True)
    (root / "data" / "items.jsonl").write_text(
        "".join(json.dumps(item) + "\n" for item in items))
    for name, labels in annotators.items():
        folder = root / "annotations" / name
        folder.mkdir(parents=True, exist_ok=True)
        state = {
            "user_id": name,
            "instance_id_ordering": list(labels),
            "current_instance_index": 0,
            "instance_id_to_label_to_value": labels,
            "instance_id_to_span_to_value": {},
            "instance_id_to_behavioral_data": (behaviour or {}).get(name, {}),
        }
        (folder / "user_state.json").write_text(json.dumps(state, indent=1))
    return root


RADIO = {"annotation_type": "radio", "name": "sentiment", "labels": ["pos", "neg", "neu"]}
LIKERT = {"annotation_type": "likert", "name": "quality", "size": 5, "min_label": "bad",
          "max_label": "good"}


def simple_items(n: int) -> list[dict[str, Any]]:
    return [{"id": f"item-{k}", "text": f"Item number {k}."} for k in range(n)]
