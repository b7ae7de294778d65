"""Reading Potato 2.12.1's ``engine.sqlite``: what each table becomes, and bad databases.

The schema is Potato's own (its migrations, run here with sqlite3), the rows are written
by hand so each rule of :mod:`app.core.formats.potato.engine.store` is tested on its own;
the projects Potato itself wrote are tested in ``test_potato_engine_projects.py``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core.errors import InputError
from app.core.formats.labeling.data import RequestKind, Split
from app.core.formats.potato.engine.store import read_engine_store

migrations = pytest.importorskip("potato.labeling_engine.store.migrations")


def _database(path: Path, wal: bool = False) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
    for migration in migrations.MIGRATIONS:
        db.executescript(migration.sql)
    return db


def _fill(db: sqlite3.Connection) -> None:
    db.executemany("INSERT INTO engine_item (item_id, meta_json) VALUES (?, ?)", [
        ("a", json.dumps({"pi": {"s": 0.5}, "fields": {"language": "en"}})),
        ("b", json.dumps({"pi": {"s": 0.25}})), ("c", "{}")])
    db.executemany("INSERT INTO source_version (version_id, source_id, kind, created_at)"
                   " VALUES (?, ?, ?, ?)", [("v1", "cheap", "static", 1.0),
                                            ("v2", "cheap", "static", 2.0),
                                            ("w1", "strong", "fixture", 1.5)])
    rows = [  # item, schema, version, value, status, raw_conf, conf_json
        ("a", "s", "v1", '"pos"', "ok", 0.9, None),       # an old version: not current
        ("a", "s", "v2", '"neg"', "ok", 0.6, '{"neg": 0.6, "pos": 0.4}'),
        ("a", "s", "v2", '"pos"', "ok", 0.7, None),       # a later row of the same version
        ("b", "s", "v2", None, "abstain", None, None),    # abstained: no prediction
        ("b", "s", "w1", '"neg"', "ok", None, None),      # null confidence is 0
        ("c", "s", "w1", '"pos"', "error", 0.8, None),    # an error: no prediction
        ("c", "other", "w1", '"x"', "ok", 0.8, None)]
    db.executemany("INSERT INTO prediction (item_id, schema_name, source_version_id, "
                   "value_json, status, raw_conf, conf_json, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, 0)", rows)
    requests = [  # item, schema, purpose, pi, split, status, label, user, assigned
        ("a", "s", "calibration", 0.5, "dev", "done", '"pos"', "ann1", None),
        ("a", "s", "certification", 0.5, "cert", "done", '"neg"', None, "ann2"),
        ("b", "s", "calibration", 0.25, "dev", "open", None, None, None),
        ("b", "s", "calibration", 0.25, "dev", "cancelled", None, None, None),
        ("c", "s", "verify", None, "none", "done", '"pos"', "ann1", None),
        ("c", "s", "audit", 0.02, "none", "done", '"pos"', "ann3", None)]
    db.executemany("INSERT INTO human_request (item_id, schema_name, purpose, "
                   "inclusion_prob, split, status, label_json, user_id, assigned_user, "
                   "created_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 5)",
                   requests)
    db.executemany("INSERT INTO contract_version (contract_id, kind, cascade_hash, looks, "
                   "status, result_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
                       ("acc", "selective_risk", "h1", 2, "insufficient", "{}", 1.0),
                       ("acc", "selective_risk", "h2", 1, "met", '{"coverage": 0.5}', 2.0)])
    db.executemany("INSERT INTO resolved_label (item_id, schema_name, origin, status, "
                   "updated_at) VALUES (?, ?, ?, ?, 0)",
                   [("a", "s", "auto", "accepted"), ("b", "s", "human", "accepted")])
    db.commit()


def test_each_table_becomes_the_model(tmp_path: Path) -> None:
    path = tmp_path / "engine.sqlite"
    with _database(path) as db:
        _fill(db)
    db.close()
    store = read_engine_store(path, ("cheap", "strong"))
    got = [(p.item, p.schema, p.tier, p.label, p.confidence, p.probs)
           for p in store.labeling.predictions]
    assert got == [("c", "other", "strong", "x", 0.8, None),
                   ("a", "s", "cheap", "pos", 0.7, None),
                   ("b", "s", "strong", "neg", 0.0, None)]
    requests = store.labeling.requests
    assert [(r.item, r.kind, r.split, r.pi, r.annotator, r.label) for r in requests] == [
        ("a", RequestKind.CALIBRATION, Split.DEV, 0.5, "ann1", "pos"),
        ("a", RequestKind.CALIBRATION, Split.CERT, 0.5, "ann2", "neg"),
        ("b", RequestKind.CALIBRATION, Split.DEV, 0.25, None, None),
        ("c", RequestKind.VERIFICATION, None, None, "ann1", "pos")]
    assert store.other_requests == {"audit": 1}
    assert store.item_pi == {"a": {"s": 0.5}, "b": {"s": 0.25}}
    assert store.item_fields == {"a": {"language": "en"}}
    record = store.records.contracts["acc"]
    assert (record.state, record.looks, record.result, record.versions) == (
        "met", 2, {"coverage": 0.5}, 2)
    assert store.records.resolved == {"s": {"auto:accepted": 1, "human:accepted": 1}}


def test_a_wal_database_is_read_without_a_side_file(tmp_path: Path) -> None:
    path = tmp_path / "engine.sqlite"
    db = _database(path, wal=True)
    db.execute("PRAGMA wal_autocheckpoint=0")
    _fill(db)  # the rows stay in engine.sqlite-wal: the open connection keeps it
    before = sorted(p.name for p in tmp_path.iterdir())
    assert "engine.sqlite-wal" in before
    snapshot = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    store = read_engine_store(path, ("cheap", "strong"))
    assert len(store.labeling.requests) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == snapshot
    db.close()


@pytest.mark.parametrize("damage, words", [
    (lambda p: p.write_bytes(b"this is not a database at all, just text" * 50),
     "not a readable SQLite database"),
    (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 3]),
     "SQLite database"),
    (lambda p: p.write_bytes(b""), "no table 'engine_item'"),
])
def test_a_bad_database_is_one_sentence(tmp_path: Path, damage: Callable[[Path], object],
                                         words: str) -> None:
    path = tmp_path / "engine.sqlite"
    with _database(path) as db:
        _fill(db)
    db.close()
    damage(path)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(InputError, match=words) as caught:
        read_engine_store(path, ("cheap",))
    assert str(path) in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_database_of_another_version_names_the_missing_table(tmp_path: Path) -> None:
    path = tmp_path / "engine.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE engine_item (item_id TEXT, ingest_seq INTEGER, meta_json TEXT)")
    db.close()
    with pytest.raises(InputError, match=r"no table 'source_version'.*another Potato version"):
        read_engine_store(path, ("cheap",))


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    path = tmp_path / "engine.sqlite"
    with _database(path) as db:
        db.execute("ALTER TABLE human_request DROP COLUMN inclusion_prob")
    db.close()
    with pytest.raises(InputError, match="'human_request' has no column inclusion_prob"):
        read_engine_store(path, ("cheap",))


def test_a_write_in_progress_stops_the_read(tmp_path: Path) -> None:
    path = tmp_path / "engine.sqlite"
    with _database(path) as db:
        _fill(db)
    db.close()
    (tmp_path / "engine.sqlite-journal").write_bytes(b"\0" * 512)
    with pytest.raises(InputError, match="a write is in progress"):
        read_engine_store(path, ("cheap",))


def _spy_copies(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every private copy ``read_engine_store`` makes, by the database it copies."""
    from app.core.formats.potato.engine import store as engine_store

    copies: list[Path] = []
    real = engine_store._private_copy

    def spying(database: Path):  # type: ignore[no-untyped-def]
        copies.append(database)
        return real(database)
    monkeypatch.setattr(engine_store, "_private_copy", spying)
    return copies


@pytest.mark.parametrize("wal_mode", [False, True])
def test_a_database_at_rest_is_read_in_place_without_a_copy_or_a_side_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wal_mode: bool) -> None:
    path = tmp_path / "engine.sqlite"
    with _database(path, wal=wal_mode) as db:
        _fill(db)
    db.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    assert before == ["engine.sqlite"]  # at rest: a closed WAL database leaves no -wal
    copies = _spy_copies(monkeypatch)
    store = read_engine_store(path, ("cheap", "strong"))
    assert copies == []
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert [p.item for p in store.labeling.predictions] == ["c", "a", "b"]


def test_a_database_with_its_wal_is_read_from_a_copy(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "engine.sqlite"
    writer = _database(path, wal=True)
    _fill(writer)  # the writer stays open: its -wal holds rows the main file does not
    copies = _spy_copies(monkeypatch)
    store = read_engine_store(path, ("cheap", "strong"))
    writer.close()
    assert copies == [path]
    assert [p.item for p in store.labeling.predictions] == ["c", "a", "b"]


def test_a_database_changed_while_read_in_place_is_read_again_from_a_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.formats.potato.engine import answers as engine_answers

    path = tmp_path / "engine.sqlite"
    with _database(path) as db:
        _fill(db)
    db.close()
    copies = _spy_copies(monkeypatch)
    real = engine_answers.PendingColumns.finish
    calls: list[int] = []

    def changing(self: object) -> object:
        if not calls:  # the first read: Potato's server writes meanwhile
            with sqlite3.connect(path) as writer:
                writer.execute("UPDATE prediction SET raw_conf = 0.75 WHERE item_id = 'a'"
                               " AND value_json = '\"pos\"' AND source_version_id = 'v2'")
            writer.close()
        calls.append(1)
        return real(self)  # type: ignore[arg-type]
    monkeypatch.setattr(engine_answers.PendingColumns, "finish", changing)
    store = read_engine_store(path, ("cheap", "strong"))
    assert copies == [path] and len(calls) == 2
    assert [(p.item, p.confidence) for p in store.labeling.predictions] == [
        ("c", 0.8), ("a", 0.75), ("b", 0.0)]


def test_predictions_outside_the_study_are_left_out_with_a_note(tmp_path: Path) -> None:
    from app.core.formats.potato.engine.store import for_study

    path = tmp_path / "engine.sqlite"
    with _database(path) as db:
        _fill(db)
    db.close()
    store = read_engine_store(path, ("cheap", "strong"))
    whole, notes = for_study(store, {"a": 1, "b": 1, "c": 1}.keys(), {"s", "other"})
    assert whole.predictions is store.labeling.predictions
    assert not [n for n in notes if "left out" in n]
    kept, notes = for_study(store, {"a": 1, "b": 1}.keys(), {"s"})
    assert [(p.item, p.schema, p.tier) for p in kept.predictions] == [
        ("a", "s", "cheap"), ("b", "s", "strong")]
    assert [(r.item, r.schema) for r in kept.requests] == [("a", "s"), ("a", "s"), ("b", "s")]
    assert "engine.sqlite: 1 predictions and 1 requests are on items or schemes" in notes[0]


@pytest.mark.parametrize("distinct", [1, 3, 64, 65, 200])
def test_item_meta_is_read_alike_with_few_or_many_distinct_texts(tmp_path: Path,
                                                                 distinct: int) -> None:
    """``engine_items.read_items`` asks SQLite for each item's text's number while there
    are few distinct texts (``FEW_METAS``), else reads the texts: the same meta either
    way, in ingestion order, against json.loads of each row."""
    from app.core.formats.potato.engine.items import read_items

    path = tmp_path / "engine.sqlite"
    metas = [json.dumps({"pi": {"s": k / 1000}, "fields": {"g": f"g{k}"}}) if k % 4 else
             ("{}" if k % 8 else "[1, 2]") for k in range(distinct)]
    rows = [(f"i{n}", 300 - n, metas[n % distinct]) for n in range(300)]
    with _database(path) as db:
        db.executemany("INSERT INTO engine_item (item_id, ingest_seq, meta_json)"
                       " VALUES (?, ?, ?)", rows)
    db.close()
    db = sqlite3.connect(path)
    meta = read_items(db)
    db.close()
    assert meta.order == tuple(item for item, _, _ in sorted(rows, key=lambda r: r[1]))
    for item, _, text in rows:
        value = json.loads(text)
        pi = value.get("pi") if isinstance(value, dict) else None
        fields = value.get("fields") if isinstance(value, dict) else None
        assert meta.item_pi.get(item) == pi
        assert meta.item_fields.get(item) == fields
        assert meta.pi(item, "s", -1.0) == (pi or {}).get("s", -1.0)
    assert meta.pi_column(["i5", "nope"], "s", 0.0) == [meta.pi("i5", "s", 0.0), 0.0]
    assert meta.field_column(["i5", "nope"], "g") == [(meta.item_fields.get("i5") or {})
                                                      .get("g"), None]
    # the items' own order (the population) is answered from the codes read with them,
    # the same as looking each one up
    assert meta.pi_column(meta.order, "s", 0.0) == meta.pi_column(list(meta.order), "s", 0.0) \
        == [meta.pi(item, "s", 0.0) for item in meta.order]
    assert meta.field_column(meta.order, "g") == meta.field_column(list(meta.order), "g") \
        == [(meta.item_fields.get(item) or {}).get("g") for item in meta.order]
