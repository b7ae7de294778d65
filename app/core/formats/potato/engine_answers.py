"""Each cascade tier's current prediction in ``engine.sqlite``, read column-wise.

Why a module: this is the one table that grows with the corpus times the cascade (three
million rows for a million items and three tiers), so it is read with as little Python
per row as possible; :mod:`~app.core.formats.potato.engine_store` reads the rest.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from app.core.formats.potato.engine_json import json_column


@dataclass(frozen=True, slots=True)
class RawAnswer:
    """One tier's current prediction as Potato stores it, whatever its status."""

    item: str
    schema: str
    tier: str
    value: Any
    confidence: float
    status: str
    distribution: dict[str, float] | None


def read_answers(db: sqlite3.Connection, tiers: tuple[str, ...]) -> list[RawAnswer]:
    """Each tier's current prediction per item and schema, ordered by schema, item and
    tier: of the version of each (source, schema) ordered last by ``created_at`` and
    version id, the row of the highest id per item.

    One query finds the versions (a ``GROUP BY`` in SQLite), then one query per wanted
    (source, schema) streams only that version's rows into a dict by item (the last row
    stays), each item id and status one string object for every tier: the rows of three
    million predictions are never held as tuples, keyed by tuples or sorted in Python
    (``tests/core/test_potato_engine_answers.py`` compares with the whole-table reader
    it replaced)."""
    wanted = set(tiers)
    latest: dict[tuple[Any, Any], Any] = {}  # (source, schema) -> the last version
    for source, schema, version in db.execute(
            "SELECT v.source_id, p.schema_name, v.version_id FROM prediction p"
            " JOIN source_version v ON v.version_id = p.source_version_id"
            " GROUP BY v.source_id, p.schema_name, v.created_at, v.version_id"
            " ORDER BY v.source_id, p.schema_name, v.created_at, v.version_id"):
        latest[(source, schema)] = version
    by_schema: dict[Any, dict[Any, dict[Any, RawAnswer]]] = {}  # schema, source, item
    value, distribution = json_column(), json_column()
    shared: dict[str, str] = {}  # one string object per item id and status, all tiers
    for (source, schema), version in latest.items():
        if source not in wanted:
            continue
        names = (str(schema), str(source))
        answers: dict[Any, RawAnswer] = {}
        for item, value_json, status, conf, conf_json in db.execute(
                "SELECT p.item_id, p.value_json, p.status, p.raw_conf, p.conf_json"
                " FROM prediction p JOIN source_version v"
                " ON v.version_id = p.source_version_id"
                " WHERE v.source_id = ? AND p.schema_name = ? AND v.version_id = ?"
                " ORDER BY p.id", (source, schema, version)):
            if type(item) is str:
                item = shared.setdefault(item, item)
            if type(status) is str:
                status = shared.setdefault(status, status)
            answers[item] = RawAnswer(str(item), names[0], names[1], value(value_json),
                                      float(conf or 0.0), str(status),
                                      probs(distribution(conf_json)))  # the last row stays
        if answers:
            by_schema.setdefault(schema, {})[source] = answers
    out: list[RawAnswer] = []
    for schema in sorted(by_schema):
        sources = [by_schema[schema][t] for t in tiers if t in by_schema[schema]]
        items: dict[Any, None] = {}
        for answers in sources:
            items.update(dict.fromkeys(answers))
        for item in sorted(items):
            for answers in sources:
                answer = answers.get(item)
                if answer is not None:
                    out.append(answer)
    return out


def probs(raw: Any) -> dict[str, float] | None:
    """``conf_json`` as a label distribution (``None`` when it is not one)."""
    if not isinstance(raw, dict) or not raw:
        return None
    try:
        return {str(k): float(v) for k, v in raw.items()}
    except (TypeError, ValueError):
        return None
