"""engine.sqlite's current predictions (``engine_answers.read_answers``) against the
whole-table reader it replaced (the oracle, kept here): random databases with several
versions per source, created in any order, repeated rows of one item, abstentions, sources
outside the cascade and several schemas; the real Potato projects too."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.core.formats.potato.engine.answers import RawAnswer, probs, read_answers
from app.core.formats.potato.engine.json_cells import stored_json

migrations = pytest.importorskip("potato.labeling_engine.store.migrations")
PROJECTS = Path(__file__).resolve().parents[1] / "data" / "potato_engine"


def _reference(db: sqlite3.Connection, tiers: tuple[str, ...]) -> list[RawAnswer]:
    """``engine_store._answers`` before it read column-wise."""
    wanted = set(tiers)
    rows = db.execute(
        "SELECT p.item_id, p.schema_name, v.source_id, v.version_id, p.value_json, p.status,"
        " p.raw_conf, p.conf_json, p.id FROM prediction p"
        " JOIN source_version v ON v.version_id = p.source_version_id"
        " ORDER BY v.source_id, p.schema_name, v.created_at, v.version_id, p.id").fetchall()
    latest: dict[tuple[str, str], str] = {}
    for _item, schema, source, version, *_ in rows:
        latest[(source, schema)] = version
    current: dict[tuple[str, str, str], tuple[Any, ...]] = {}
    for row in rows:
        item, schema, source, version = row[0], row[1], row[2], row[3]
        if source in wanted and latest[(source, schema)] == version:
            current[(item, schema, source)] = row
    order = {t: i for i, t in enumerate(tiers)}
    return [RawAnswer(str(item), str(schema), str(source), stored_json(row[4]),
                      float(row[6] or 0.0), str(row[5]), probs(stored_json(row[7])))
            for (item, schema, source), row in sorted(
                current.items(), key=lambda kv: (kv[0][1], kv[0][0], order[kv[0][2]]))]


def _random_database(path: Path, seed: int) -> sqlite3.Connection:
    rng = random.Random(seed)
    db = sqlite3.connect(path)
    for migration in migrations.MIGRATIONS:
        db.executescript(migration.sql)
    sources = ["cheap", "strong", "judge", "unused"]
    versions = [(f"v{k}", rng.choice(sources), rng.choice([1.0, 2.0, 3.0]))
                for k in range(rng.randint(1, 8))]
    db.executemany("INSERT INTO source_version (version_id, source_id, kind, created_at)"
                   " VALUES (?, ?, 'fixture', ?)", versions)
    rows = []
    for _ in range(rng.randint(0, 400)):
        status = rng.choice(["ok", "ok", "ok", "abstain", "error"])
        value = rng.choice(['"pos"', '"neg"', "3", "[1, 2]", '{"a": 1}', "NaN", None])
        conf = rng.choice([None, '{"pos": 0.7, "neg": 0.3}', "[1]", '{"pos": "x"}'])
        rows.append((rng.choice(["i1", "i10", "i2", "é", "Z", "a b"]),
                     rng.choice(["s", "t", "ß"]), rng.choice(versions)[0], value, status,
                     rng.choice([None, 0.0, 0.5, 1.0, -0.0]), conf))
    db.executemany("INSERT INTO prediction (item_id, schema_name, source_version_id, "
                   "value_json, status, raw_conf, conf_json, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, 0)", rows)
    db.commit()
    return db


def _same(mine: list[RawAnswer], oracle: list[RawAnswer]) -> None:
    assert [repr(a) for a in mine] == [repr(b) for b in oracle]


@pytest.mark.parametrize("seed", range(60))
def test_random_databases_give_the_old_answers(tmp_path: Path, seed: int) -> None:
    db = _random_database(tmp_path / "engine.sqlite", seed)
    for tiers in (("cheap", "strong", "judge"), ("judge", "cheap"), ("strong",), ()):
        _same(read_answers(db, tiers), _reference(db, tiers))


@pytest.mark.parametrize("project", sorted(p.name for p in PROJECTS.iterdir()
                                           if (p / "engine.sqlite").is_file()))
def test_potato_projects_give_the_old_answers(tmp_path: Path, project: str) -> None:
    for name in ("engine.sqlite", "engine.sqlite-wal"):  # a copy: no side file in tests/data
        if (PROJECTS / project / name).is_file():
            shutil.copyfile(PROJECTS / project / name, tmp_path / name)
    db = sqlite3.connect(tmp_path / "engine.sqlite")
    try:
        sources = tuple(r[0] for r in db.execute("SELECT DISTINCT source_id FROM source_version"))
        mine = read_answers(db, sources)
        assert mine
        _same(mine, _reference(db, sources))
    finally:
        db.close()


@pytest.mark.parametrize("seed", range(30))
def test_the_prediction_table_lists_the_answered_predictions_in_order(tmp_path: Path,
                                                                       seed: int) -> None:
    """``engine_predictions.prediction_table`` against a ``Prediction`` per answered row of
    the old reader (status ``ok`` and a value), in its order."""
    from app.core.formats.labeling.data import Prediction
    from app.core.formats.potato.engine.answers import read_columns
    from app.core.formats.potato.engine.predictions import prediction_table

    db = _random_database(tmp_path / "engine.sqlite", seed)
    for tiers in (("cheap", "strong", "judge"), ("judge", "cheap"), ()):
        expected = [Prediction(a.item, a.schema, a.tier, a.value, a.confidence, a.distribution)
                    for a in _reference(db, tiers) if a.status == "ok" and a.value is not None]
        table = prediction_table(read_columns(db, tiers))
        assert [repr(p) for p in table] == [repr(p) for p in expected]


def _cascade_database(path: Path, seed: int) -> sqlite3.Connection:
    """Three tiers answering the same items (the common cascade), sometimes one more or
    one less, an item stored twice, an abstention, a distribution."""
    rng = random.Random(seed)
    db = sqlite3.connect(path)
    for migration in migrations.MIGRATIONS:
        db.executescript(migration.sql)
    db.executemany("INSERT INTO source_version (version_id, source_id, kind, created_at)"
                   " VALUES (?, ?, 'fixture', 1.0)", [("v1", "cheap"), ("v2", "strong"),
                                                      ("v3", "judge")])
    items = [f"i{k}" for k in range(rng.randint(1, 40))]
    rows = []
    for version in ("v1", "v2", "v3"):
        mine = [i for i in items if rng.random() < 0.97] if rng.random() < 0.3 else items
        for item in rng.sample(mine, len(mine)):
            for _ in range(2 if rng.random() < 0.05 else 1):
                rows.append((item, "s", version, rng.choice(['"pos"', '"neg"', "[1]"]),
                             rng.choice(["ok", "ok", "abstain"]), rng.random(),
                             rng.choice([None, None, '{"pos": 1.0}'])))
    db.executemany("INSERT INTO prediction (item_id, schema_name, source_version_id, "
                   "value_json, status, raw_conf, conf_json, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, 0)", rows)
    db.commit()
    return db


@pytest.mark.parametrize("seed", range(40))
def test_chunks_of_any_size_give_the_old_answers(tmp_path: Path, seed: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows are read a chunk at a time (``engine_columns.CHUNK``): chunk edges anywhere,
    tiers sharing their items or not, give the whole-table reader's answers."""
    from app.core.formats.potato.engine import columns as engine_columns
    from app.core.formats.potato.engine.answers import read_columns

    make = _cascade_database if seed % 2 else _random_database
    db = make(tmp_path / "engine.sqlite", seed)
    tiers = ("cheap", "strong", "judge")
    for chunk in (1, 2, 3, 7, 50_000):
        monkeypatch.setattr(engine_columns, "CHUNK", chunk)
        _same(read_answers(db, tiers), _reference(db, tiers))
        stored = read_columns(db, tiers)
        for columns in stored.by_schema.values():
            for column in columns.values():
                assert column.row_of == {item: k for k, item in enumerate(column.items)}
                assert column.answered.tolist() == [
                    s == "ok" and v is not None
                    for s, v in zip(column.statuses, column.values, strict=True)]


def _same_items_database(path: Path, seed: int, nulls: bool = True, every: bool = False
                         ) -> sqlite3.Connection:
    """Tiers answering the same items with string labels and no distribution: the case
    ``engine_coded`` reads as codes (two schemas, abstentions, an item stored twice; null
    values unless not ``nulls``; with ``every``, every row answered: status ``ok`` and a
    label)."""
    rng = random.Random(seed)
    db = sqlite3.connect(path)
    for migration in migrations.MIGRATIONS:
        db.executescript(migration.sql)
    db.executemany("INSERT INTO source_version (version_id, source_id, kind, created_at)"
                   " VALUES (?, ?, 'fixture', 1.0)", [("v1", "cheap"), ("v2", "strong")])
    items = rng.sample([f"i{k}" for k in range(60)] + ["é", "Z", "a b"], rng.randint(1, 30))
    rows = []
    for schema in rng.sample(["s", "t"], rng.randint(1, 2)):
        for version in ("v1", "v2"):
            for item in items:
                for _ in range(2 if rng.random() < 0.05 else 1):
                    value = rng.choice(['"pos"', '"neg"', "null"][:3 if nulls and not every
                                                                  else 2])
                    rows.append((item, schema, version, value,
                                 "ok" if every else rng.choice(["ok", "ok", "ok", "abstain"]),
                                 rng.choice([None, 0.5, rng.random()])))
    db.executemany("INSERT INTO prediction (item_id, schema_name, source_version_id, "
                   "value_json, status, raw_conf, created_at) VALUES (?, ?, ?, ?, ?, ?, 0)",
                   rows)
    db.commit()
    return db


@pytest.mark.parametrize("every", [False, True])
@pytest.mark.parametrize("seed", range(30))
def test_the_coded_table_equals_the_table_of_lists(tmp_path: Path, seed: int, every: bool
                                                   ) -> None:
    """``engine_coded``'s table against the lists (the same predictions, in order, each
    field decoded the same) and against the old reader; with the values read as texts
    and, given the labels, as the labels' numbers (``TierColumns.codes``); with
    ``every``, each tier answered every item (the whole grid, taken without a search)."""
    from app.core.formats.labeling.data import Prediction
    from app.core.formats.potato.engine.answers import read_columns
    from app.core.formats.potato.engine.coded import coded_prediction_table
    from app.core.formats.potato.engine.predictions import (
        listed_prediction_table,
        plain_labels,
    )

    nulls = seed % 2 == 0
    db = _same_items_database(tmp_path / "engine.sqlite", seed, nulls, every)
    expected = [Prediction(a.item, a.schema, a.tier, a.value, a.confidence, a.distribution)
                for a in _reference(db, ("cheap", "strong"))
                if a.status == "ok" and a.value is not None]
    with_null = set(db.execute(  # a text that is no label: that tier is read as texts
        "SELECT DISTINCT schema_name, CASE source_version_id WHEN 'v1' THEN 'cheap'"
        " ELSE 'strong' END FROM prediction WHERE value_json = 'null'").fetchall())
    texts = read_columns(db, ("cheap", "strong"))
    if every:  # not vacuous: the whole grid is answered
        assert all(tier.answered.all() for tier in texts)
    as_texts = coded_prediction_table(texts)
    assert as_texts is not None and as_texts.coded is not None
    for labels in ((), ("pos", "neg"), ("neg", "other", "pos")):
        stored = read_columns(db, ("cheap", "strong"), labels)
        assert all((tier.codes is not None) == (bool(labels) and (
            tier.schema, tier.tier) not in with_null) for tier in stored)
        coded = coded_prediction_table(stored)
        assert coded is not None and coded.coded is not None
        listed = listed_prediction_table(stored)
        assert [repr(p) for p in coded] == [repr(p) for p in listed]
        for field in ("item", "schema", "tier", "label", "confidence"):
            assert getattr(coded, field) == getattr(listed, field), field
        assert coded.coded.labels == as_texts.coded.labels  # the codes' order too
        assert plain_labels(stored) == plain_labels(texts) is not None
        assert np.array_equal(coded.coded.label, as_texts.coded.label)
        assert [repr(p) for p in coded] == [repr(p) for p in expected]


@pytest.mark.parametrize("seed", range(40))
def test_labels_read_as_numbers_give_the_old_answers(tmp_path: Path, seed: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Given the schemes' labels, SQLite hands back a number for a ``value_json`` that is one
    of them and ``0`` for status ``ok`` (``engine_answers._value_cases``): the same answers
    as the whole-table reader, with labels of every JSON type, a quote, a label no row has,
    and chunk edges anywhere."""
    from app.core.formats.potato.engine import columns as engine_columns
    from app.core.formats.potato.engine.answers import read_columns

    make = (_random_database, _cascade_database, _same_items_database)[seed % 3]
    db = make(tmp_path / "engine.sqlite", seed)
    tiers = ("cheap", "strong", "judge")
    for chunk in (3, 50_000):
        monkeypatch.setattr(engine_columns, "CHUNK", chunk)
        for labels in (("pos", "neg"), ("neg", 3, 1.5, True, None, "it's", "absent"), ()):
            stored = read_columns(db, tiers, labels)
            _same(stored.raw_answers(), _reference(db, tiers))
            for tier in stored:  # the codes, where kept, name each row's very value
                if tier.codes is not None:
                    assert len(tier.codes) == len(tier.values)
                    assert all(tier.known[code] is value
                               for code, value in zip(tier.codes.tolist(), tier.values,
                                                      strict=True))
                    assert tier.answered.tolist() == [
                        s == "ok" and v is not None
                        for s, v in zip(tier.statuses, tier.values, strict=True)]


@pytest.mark.parametrize("seed", range(30))
def test_queries_started_side_by_side_give_the_old_answers(tmp_path: Path, seed: int,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """With a way to open more connections, the tiers' queries start on worker threads
    (``engine_parallel``) and their rows are still read in order: the same answers, small
    chunks or large, and the workers' connections are closed. Started
    (``PendingColumns``), nothing of the rows is read until ``finish``, and the caller's
    connection is free meanwhile; a start abandoned (``close``) reads nothing."""
    from app.core.formats.potato.engine import answers as engine_answers
    from app.core.formats.potato.engine import columns as engine_columns
    from app.core.formats.potato.engine import parallel as engine_parallel
    from app.core.formats.potato.engine.answers import PendingColumns

    monkeypatch.setattr(engine_parallel, "WORKERS", 2)
    make = (_random_database, _cascade_database, _same_items_database)[seed % 3]
    path = tmp_path / "engine.sqlite"
    db = make(path, seed)
    opened: list[sqlite3.Connection] = []

    def connect() -> sqlite3.Connection:
        opened.append(sqlite3.connect(path, check_same_thread=False))
        return opened[-1]

    tiers_read: list[object] = []
    real_tier_columns = engine_answers.tier_columns

    def counted(*args: Any) -> Any:
        tiers_read.append(args[2])
        return real_tier_columns(*args)
    monkeypatch.setattr(engine_answers, "tier_columns", counted)
    tiers = ("cheap", "strong", "judge")
    for chunk in (2, 50_000):
        monkeypatch.setattr(engine_columns, "CHUNK", chunk)
        for labels in (("pos", "neg"), ()):
            tiers_read.clear()
            pending = PendingColumns(db, tiers, labels, connect)
            assert db.execute("SELECT count(*) FROM prediction").fetchone()[0] > 0
            assert tiers_read == []
            _same(pending.finish().raw_answers(), _reference(db, tiers))
            PendingColumns(db, tiers, labels, connect).close()  # abandoned
    assert len(tiers_read) > 0
    versions = {row[0] for row in db.execute("SELECT source_version_id FROM prediction")}
    assert len(opened) >= (2 if len(versions) > 1 else 0)
    for connection in opened:
        with pytest.raises(sqlite3.ProgrammingError):  # closed
            connection.execute("SELECT 1")


@pytest.mark.parametrize("n_known", [1, 3, 16, 17, 40])
def test_codes_are_given_out_in_the_order_first_met(n_known: int) -> None:
    """``engine_coded._first_met`` (counting, or sorting when many codes are met)
    against the order a dict keeps."""
    from app.core.formats.potato.engine.coded import _first_met

    rng = np.random.default_rng(n_known)
    for size in (0, 1, 5, 1000):
        codes = rng.integers(0, n_known, size).astype(np.int32)
        assert _first_met(codes, n_known) == list(dict.fromkeys(codes.tolist()))


def test_a_started_query_hands_back_chunks_of_the_size_asked() -> None:
    """``engine_parallel._Started``: the row fetched on the worker comes first, within the
    first chunk, whatever its size (a first chunk of one is that row alone)."""
    from app.core.formats.potato.engine.parallel import _Started

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (x)")
    db.executemany("INSERT INTO t VALUES (?)", [(k,) for k in range(7)])
    for size in (1, 2, 3, 10):
        cursor = db.execute("SELECT x FROM t ORDER BY x")
        started = _Started(cursor, cursor.fetchmany(1))
        chunks = []
        while chunk := started.fetchmany(size):
            chunks.append([x for (x,) in chunk])
        assert chunks == [list(range(k, min(k + size, 7))) for k in range(0, 7, size)]
