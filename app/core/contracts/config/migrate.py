"""``accord label migrate-config``: an old ``icl_labeling`` block becomes contracts.

Reads ``icl_labeling.confidence_threshold`` (or ``icl_labeling.llm_labeling.
confidence_threshold``) from ``config.yaml`` and writes ``labeling/engine.yaml`` with one
``threshold_legacy`` contract ``legacy-<schema>`` per schema the old block labelled (its
``schemas`` or ``schema_names`` list; all categorical schemes when it names none), so a
migrated project behaves as before. ``config.yaml`` is never edited.

Choices: a new file is written in Potato 2.12.1's keys (``contracts.md``, "Agreeing with
Potato 2.12.1", item 3): ``enabled: true``, one ``llm`` source named after the old
block's model (``model`` or ``llm_labeling.model``, else ``icl``) with ``confidence:
{method: verbalized}`` (an LLM's stated confidence, which is what the old block
thresholded), and a ``cascade`` of its id. An existing ``engine.yaml`` is extended in
whichever shape it has: contracts already there are kept, ``legacy-<schema>`` ones are
added when missing, and a cascade is added only when it has none. The file is written
atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from app.core.atomic import write_atomically
from app.core.errors import InputError
from app.core.formats.potato.config import find_config
from app.core.formats.reading.yaml_file import read_yaml
from app.core.model import Kind, Study


def _llm(block: dict[str, Any]) -> dict[str, Any]:
    llm = block.get("llm_labeling")
    return llm if isinstance(llm, dict) else {}


def _threshold(block: dict[str, Any], path: Path) -> float:
    llm = _llm(block)
    value = block.get("confidence_threshold", llm.get("confidence_threshold"))
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
        raise InputError("expected a confidence_threshold in [0, 1]", file=path,
                         key="icl_labeling.confidence_threshold")
    return float(value)


def migrate_config(project: Path, study: Study) -> Path:
    config_path = find_config(project)
    raw = read_yaml(config_path)
    block = raw.get("icl_labeling") if isinstance(raw, dict) else None
    if not isinstance(block, dict):
        raise InputError("no icl_labeling block to migrate", file=config_path,
                         key="icl_labeling")
    if isinstance(raw, dict) and "labeling_engine" in raw:
        raise InputError("already has a labeling_engine block; nothing to migrate",
                         file=config_path, key="labeling_engine")
    threshold = _threshold(block, config_path)
    named = block.get("schemas", block.get("schema_names"))
    schemas = ([str(s) for s in named] if isinstance(named, list) else
               [n for n, s in study.schemes.items() if s.kind is Kind.NOMINAL])
    for name in schemas:
        if name not in study.schemes:
            raise InputError(f"icl_labeling names scheme '{name}', which the project does not "
                             "have", file=config_path, key="icl_labeling.schemas")
    llm = _llm(block)
    model = str(block.get("model", llm.get("model", "icl")))
    target = config_path.parent / "labeling" / "engine.yaml"
    engine: dict[str, Any] = {"enabled": True, "contracts": []}
    if target.exists():
        existing = read_yaml(target)
        if isinstance(existing, dict):
            engine = existing
            engine.setdefault("contracts", [])
    have = {c.get("id") for c in engine["contracts"] if isinstance(c, dict)}
    has_cascade = bool(engine.get("cascade")) or bool(engine.get("sources"))
    for name in schemas:
        ident = f"legacy-{name}"
        if ident not in have:
            engine["contracts"].append({"id": ident, "kind": "threshold_legacy",
                                        "schema": name, "threshold": threshold})
    if not has_cascade:
        engine["sources"] = [{"id": model, "kind": "llm", "model": model,
                              "confidence": {"method": "verbalized"}}]
        engine["cascade"] = [model]
    text = ("# Written by 'accord label migrate-config' from config.yaml's icl_labeling.\n"
            + yaml.safe_dump(engine, sort_keys=False))
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, text.encode("utf-8"))
    return target
