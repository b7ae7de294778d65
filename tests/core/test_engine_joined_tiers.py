"""A tier read from its joined texts (``engine_answers.JoinedQuery``,
``engine_columns.joined_tier``) against the same tier read row by row (``tier_columns``,
the reader the other tests hold against the whole-table oracle): every field equal,
confidences to the bit; the joined path taken where it can say the rows exactly, and
each row it cannot stand for (a blob, a separator inside a text, a stored ``""`` status,
an item stored twice, a value that is no label, a confidence outside the exact range, a
text longer than SQLite allows) sending the tier back to its rows."""

from __future__ import annotations

import random
import sqlite3
import struct
from pathlib import Path
from typing import Any

import pytest

from app.core.errors import InputError
from app.core.formats.potato.engine import columns as engine_columns
from app.core.formats.potato.engine.answers import (
    PIECES,
    PendingColumns,
    TierColumns,
    merged_pieces,
    read_columns,
)

migrations = pytest.importorskip("potato.labeling_engine.store.migrations")
PROJECTS = Path(__file__).resolve().parents[1] / "data" / "potato_engine"
LABELS = ("pos", "neg", "it's", 3)
TIERS = ("cheap", "strong", "judge")


def _fields(tier: TierColumns) -> tuple[Any, ...]:
    return (tier.schema, tier.tier, tier.items, [repr(v) for v in tier.values],
            [c.hex() for c in tier.confidences], tier.statuses, repr(tier.distributions),
            tier.row_of, tier.sorted_items,
            None if tier.codes is None else (tier.codes.dtype.str, tier.codes.tolist()),
            list(tier.known), tier.answered.tolist(), tier.confidence_array.tobytes())


def _read(db: sqlite3.Connection, labels: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch,
          joined: bool, tiers: tuple[str, ...] = TIERS, pieces: bool = False
          ) -> tuple[list[tuple[Any, ...]], list[Any]]:
    """Every tier's fields, and what each joined read answered (``False``: its rows);
    ``pieces``: every tier joined in ``PIECES`` pieces (checked), as a big one is."""
    answered: list[Any] = []
    real = engine_columns.joined_tier
    merged: list[int] = []

    def spy(*args: Any) -> Any:
        answered.append(real(*args))
        return answered[-1]

    def count_pieces(rows: Any) -> Any:
        merged.append(len(rows))
        return merged_pieces(rows)
    with monkeypatch.context() as patch:
        patch.setattr("app.core.formats.potato.engine.answers.joined_tier", spy)
        patch.setattr("app.core.formats.potato.engine.answers.merged_pieces", count_pieces)
        if pieces:
            patch.setattr("app.core.formats.potato.engine.answers.PIECE_ROWS", 1)
        if not joined:
            patch.setattr(PendingColumns, "_from_texts", lambda *args: False)
        stored = read_columns(db, tiers, labels)
    assert not joined or set(merged) <= {PIECES if pieces else 1}
    return [_fields(tier) for tier in stored], answered


def _confidence(rng: random.Random) -> float | None:
    """A stored raw_conf: mostly random doubles of every magnitude in the exact range
    (random mantissa bits), sometimes null, zero or the range's edges."""
    pick = rng.random()
    if pick < 0.1:
        return rng.choice([None, 0.0, -0.0, 2.0 ** -10, -(2.0 ** -10), 1.0, 1.9999999999999998])
    exponent = rng.randint(-10, 0)
    mantissa = rng.getrandbits(52)
    bits = ((1023 + exponent) << 52) | mantissa
    value: float = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return -value if rng.random() < 0.1 else value


def _database(path: Path, seed: int, odd: str | None = None) -> sqlite3.Connection:
    """Three tiers of one or two schemas, each item once per tier (so the joined path can
    read them), labels of several JSON types, null values, abstentions, distributions
    sometimes, ids with spaces, accents and emoji; ``odd``: one row of that kind."""
    rng = random.Random(seed)
    db = sqlite3.connect(path)
    for migration in migrations.MIGRATIONS:
        db.executescript(migration.sql)
    db.executemany("INSERT INTO source_version (version_id, source_id, kind, created_at)"
                   " VALUES (?, ?, 'fixture', 1.0)",
                   [("v1", "cheap"), ("v2", "strong"), ("v3", "judge")])
    pool = [f"i{k}" for k in range(300)] + ["é", "Z", "a b", "🙂", "ǅ", "x" * 40]
    items = rng.sample(pool, rng.randint(1, 120))
    with_distributions = rng.random() < 0.3
    rows: list[list[Any]] = []
    for schema in rng.sample(["s", "ß"], rng.randint(1, 2)):
        for version in ("v1", "v2", "v3"):
            answered = items if rng.random() < 0.6 else rng.sample(items, len(items) // 2 + 1)
            for item in rng.sample(answered, len(answered)):  # stored in any order
                value = rng.choice(['"pos"', '"neg"', '"it\'s"', "3", None])
                distribution = rng.choice([None, '{"pos": 0.7, "neg": 0.3}', "[1]"]) \
                    if with_distributions else None
                rows.append([item, schema, version, value,
                             rng.choice(["ok", "ok", "ok", "abstain", "error"]),
                             _confidence(rng), distribution])
    if odd is not None and rows:
        row = rng.choice(rows)
        if odd == "blob id":
            row[0] = row[0].encode()
        elif odd == "blob status":
            row[4] = row[4].encode()
        elif odd == "blob distribution":
            row[6] = b'{"pos": 1.0}'
        elif odd == "text confidence":
            row[5] = "high"
        elif odd == "empty status":
            row[4] = ""
        elif odd == "separator in id":
            row[0] = row[0] + "\x1f"
        elif odd == "separator in status":
            row[4] = "ok\x1fok"
        elif odd == "separator in distribution":
            row[6] = '{"pos": 1.0}\x1e'
        elif odd == "item twice":
            rows.append([*row[:5], 0.25, row[6]])
        elif odd == "not a label":
            row[3] = '"other"'
        elif odd == "number not a label":
            row[3] = "1.5"
        elif odd == "status mark in id":  # the mark that sets a status apart in the ids
            row[0] = row[0] + "\x1e"
        elif odd == "status mark in status":
            row[4] = "abstain\x1eerror"
        elif odd in ("tiny confidence", "confidence 2", "large confidence",
                     "vanishing confidence", "confidence -2"):
            row[5] = {"tiny confidence": 2.0 ** -11, "confidence 2": 2.0,
                      "large confidence": -37.5, "vanishing confidence": -1e-300,
                      "confidence -2": -2.0}[odd]
    twice = rows[-1] if odd == "item twice" and rows else None
    rng.shuffle(rows)  # the tiers' rows interleaved (so each piece of the table has some)
    if twice is not None:  # the repeated item's last row stays last
        rows.remove(twice)
        rows.append(twice)
    db.executemany("INSERT INTO prediction (item_id, schema_name, source_version_id, "
                   "value_json, status, raw_conf, conf_json, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, 0)", rows)
    db.commit()
    return db


@pytest.mark.parametrize("pieces", [False, True])
@pytest.mark.parametrize("seed", range(40))
def test_joined_tiers_equal_the_rows(tmp_path: Path, seed: int, pieces: bool,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    db = _database(tmp_path / "engine.sqlite", seed)
    joined, answered = _read(db, LABELS, monkeypatch, joined=True, pieces=pieces)
    rows, _ = _read(db, LABELS, monkeypatch, joined=False)
    assert joined == rows
    assert answered and all(isinstance(a, TierColumns) for a in answered)  # not vacuous


def test_joined_tiers_share_the_ids_of_a_tier_with_the_same_ids(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiers storing the same items in the same order keep one list and one lookup."""
    db = _database(tmp_path / "engine.sqlite", 3)
    db.execute("DELETE FROM prediction")
    db.executemany("INSERT INTO prediction (item_id, schema_name, source_version_id,"
                   " value_json, status, raw_conf, created_at) VALUES (?, 's', ?, '\"pos\"',"
                   " 'ok', 0.5, 0)", [(f"r{k}", v) for k in range(50) for v in ("v1", "v2")])
    stored = read_columns(db, TIERS, LABELS)
    cheap, strong = stored.by_schema["s"].values()
    assert cheap.items is strong.items and cheap.row_of is strong.row_of
    assert cheap.items == sorted(f"r{k}" for k in range(50))


ODD = ["blob id", "blob status", "blob distribution", "text confidence", "empty status",
       "separator in id", "separator in status", "separator in distribution", "item twice",
       "not a label", "number not a label", "tiny confidence", "confidence 2",
       "large confidence", "status mark in id", "status mark in status",
       "vanishing confidence", "confidence -2"]


@pytest.mark.parametrize("pieces", [False, True])
@pytest.mark.parametrize("odd", ODD)
@pytest.mark.parametrize("seed", range(3))
def test_a_row_the_texts_cannot_say_sends_its_tier_to_the_rows(
        tmp_path: Path, odd: str, seed: int, pieces: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    db = _database(tmp_path / "engine.sqlite", seed, odd)
    if odd == "blob distribution":  # the texts must carry distributions for it to matter
        db.execute("UPDATE prediction SET conf_json = '{\"neg\": 1.0}' WHERE conf_json IS NULL")
        db.commit()
    if odd == "text confidence":  # no number: refused either way, named
        for joined in (True, False):
            with pytest.raises(InputError, match="raw_conf 'high'; expected a number"):
                _read(db, LABELS, monkeypatch, joined, pieces=pieces)
        return
    joined, answered = _read(db, LABELS, monkeypatch, joined=True, pieces=pieces)
    rows, _ = _read(db, LABELS, monkeypatch, joined=False)
    assert joined == rows
    assert False in answered  # the odd row's tier was read from its rows


def test_a_joined_text_too_long_for_sqlite_sends_the_tier_to_the_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _database(tmp_path / "engine.sqlite", 5)
    rows, _ = _read(db, LABELS, monkeypatch, joined=False)
    db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 200)  # longer than any value, not a tier
    joined, answered = _read(db, LABELS, monkeypatch, joined=True)
    assert joined == rows
    assert answered == []  # no joined row came back: each tier read from its rows


@pytest.mark.parametrize("pieces", [False, True])
@pytest.mark.parametrize("project", sorted(p.name for p in PROJECTS.iterdir()
                                           if (p / "engine.sqlite").is_file()))
def test_potato_projects_joined_equal_the_rows(tmp_path: Path, project: str, pieces: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Potato's own databases, with their stored string values as the labels."""
    import shutil

    from app.core.formats.potato.engine.json_cells import stored_json

    for name in ("engine.sqlite", "engine.sqlite-wal"):
        if (PROJECTS / project / name).is_file():
            shutil.copyfile(PROJECTS / project / name, tmp_path / name)
    db = sqlite3.connect(tmp_path / "engine.sqlite")
    try:
        labels = tuple(sorted({value for (text,) in db.execute(
            "SELECT DISTINCT value_json FROM prediction") if isinstance(
                value := stored_json(text), str)}))
        sources = tuple(r[0] for r in db.execute("SELECT DISTINCT source_id FROM source_version"))
        joined, _ = _read(db, labels, monkeypatch, True, sources, pieces)
        rows, _ = _read(db, labels, monkeypatch, False, sources)
        assert joined and joined == rows
    finally:
        db.close()


def test_a_joined_text_too_long_on_a_worker_sends_the_tier_to_the_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same, the joined queries run on worker connections (``engine_parallel``)."""
    path = tmp_path / "engine.sqlite"
    db = _database(path, 6)
    rows, _ = _read(db, LABELS, monkeypatch, joined=False)

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(path, check_same_thread=False)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 200)
        return connection
    stored = PendingColumns(db, TIERS, LABELS, connect).finish()
    assert [_fields(tier) for tier in stored] == rows


@pytest.mark.parametrize("seed", range(6))
def test_pieces_fetched_on_a_worker_equal_the_rows(tmp_path: Path, seed: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A big tier's pieces, each a row the worker fetches (so each piece's texts become
    strings in a C call of their own), read as one tier."""
    path = tmp_path / "engine.sqlite"
    db = _database(path, seed)
    rows, _ = _read(db, LABELS, monkeypatch, joined=False)
    fetched: list[int] = []
    real = merged_pieces

    def count_pieces(pieces: Any) -> Any:
        fetched.append(len(pieces))
        return real(pieces)
    monkeypatch.setattr("app.core.formats.potato.engine.answers.PIECE_ROWS", 1)
    monkeypatch.setattr("app.core.formats.potato.engine.answers.merged_pieces", count_pieces)
    stored = PendingColumns(db, TIERS, LABELS,
                            lambda: sqlite3.connect(path, check_same_thread=False)).finish()
    assert [_fields(tier) for tier in stored] == rows
    assert fetched and set(fetched) == {PIECES}


ITEM_ODD = [None, "null seq", "real seq", "text seq", "blob id", "separator in id"]


@pytest.mark.parametrize("pieces", [False, True])
@pytest.mark.parametrize("odd", ITEM_ODD)
@pytest.mark.parametrize("seed", range(4))
def test_joined_items_equal_the_rows(tmp_path: Path, odd: str | None, seed: int,
                                     pieces: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``engine_items.read_items`` from its joined texts against its rows: ids of every
    kind, sequence numbers shuffled and tied (ties in table order, as Potato's index has
    them), a few metas; each row the texts cannot say sends the read to the rows. With
    ``pieces``, the table is read in its four rowid ranges (the odd row in any)."""
    import json

    from app.core.formats.potato.engine import items as engine_items

    rng = random.Random(seed)
    db = sqlite3.connect(tmp_path / "engine.sqlite")
    for migration in migrations.MIGRATIONS:
        db.executescript(migration.sql)
    metas = [json.dumps({"pi": {"s": k / 8}, "fields": {"g": f"g{k}"}}) for k in range(3)]
    ids = rng.sample([f"i{k}" for k in range(400)] + ["é", "a b", "🙂"], rng.randint(1, 200))
    rows: list[list[Any]] = [[item, rng.randint(0, 50), rng.choice(metas)] for item in ids]
    row = rng.choice(rows)
    if odd == "null seq":
        row[1] = None
    elif odd == "real seq":
        row[1] = 2.5
    elif odd == "text seq":
        row[1] = "late"
    elif odd == "blob id":
        row[0] = row[0].encode()
    elif odd == "separator in id":
        row[0] += "\x1f"
    db.executemany("INSERT INTO engine_item (item_id, ingest_seq, meta_json) VALUES (?, ?, ?)",
                   rows)
    db.commit()

    def fields(meta: engine_items.ItemMeta) -> tuple[Any, ...]:
        return meta.order, meta.entries, meta.code_of, list(meta.codes)
    answered: list[Any] = []
    real = engine_items._joined_items

    def spy(*args: Any) -> Any:
        answered.append(real(*args))
        return answered[-1]
    monkeypatch.setattr(engine_items, "_joined_items", spy)
    if pieces:
        monkeypatch.setattr(engine_items, "PIECE_ROWS", 1)
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    joined = fields(engine_items.read_items(db))
    db.set_trace_callback(None)
    ranges = [sql for sql in statements if "group_concat(item_id" in sql]
    assert len(ranges) == (engine_items.ITEM_PIECES if pieces else 1)
    monkeypatch.setattr(engine_items, "_joined_items", lambda *args: None)
    assert joined == fields(engine_items.read_items(db))
    assert len(answered) == 1
    assert (answered[0] is not None) == (odd is None)  # each odd row refused; not vacuous


QUERY_LABELS = ['"pos"', '"neg"', '"it\'s"', "3"]
"""The labels of ``_database``'s values as ``JoinedQuery`` takes them (``value_json``
texts), and as ``joined_tier`` gets them back (:data:`KNOWN`)."""
KNOWN = ["pos", "neg", "it's", 3]
TIERS_SQL = ("SELECT DISTINCT v.source_id, p.schema_name, v.version_id FROM prediction p"
             " JOIN source_version v ON v.version_id = p.source_version_id")


@pytest.mark.parametrize("seed", range(10))
def test_a_tier_joined_from_a_scan_equals_one_joined_through_the_index(tmp_path: Path,
                                                                      seed: int) -> None:
    """Both ways ``JoinedQuery.chosen`` may read a tier (their rows in other orders, the
    index ordering them by calibrated confidence), whole or in pieces, give the same
    columns."""
    from app.core.formats.potato.engine.answers import JoinedQuery, merged_distribution_pieces
    from app.core.formats.potato.engine.columns import joined_tier

    db = _database(tmp_path / "engine.sqlite", seed)
    db.execute("UPDATE prediction SET calibrated_conf = (id * 7919) % 13 / 13.0")
    db.commit()
    query, known = JoinedQuery(QUERY_LABELS), KNOWN
    tiers = db.execute(TIERS_SQL).fetchall()
    assert tiers
    last = db.execute("SELECT max(rowid) FROM prediction").fetchone()[0]
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(-1, last + 2), 3))  # pieces of any size, some empty
    for params in tiers:
        read = [joined_tier(
            merged_pieces(db.execute(query.sql(scan, cuts=cut), params).fetchall()),
            "s", "t", {}, [], known,
            lambda scan=scan, cut=cut, params=params: merged_distribution_pieces(
                db.execute(query.sql(scan, True, cut), params).fetchall()))
            for scan in (True, False) for cut in ((), cuts)]
        assert all(isinstance(tier, TierColumns) for tier in read)
        assert all(_fields(tier) == _fields(read[0]) for tier in read[1:])


def test_distributions_read_in_another_order_send_the_tier_to_the_rows(tmp_path: Path) -> None:
    """The distributions come from a query of their own; joined ids other than the
    main query's (rows in another order) cannot be paired with its rows."""
    from app.core.formats.potato.engine.answers import JoinedQuery
    from app.core.formats.potato.engine.columns import joined_tier

    db = _database(tmp_path / "engine.sqlite", 1)
    db.execute("UPDATE prediction SET conf_json = '{\"pos\": 1.0}'")
    db.commit()
    query, known = JoinedQuery(QUERY_LABELS), KNOWN
    params = db.execute(TIERS_SQL + " LIMIT 1").fetchone()
    row = db.execute(query.sql(), params).fetchone()
    ids, texts = db.execute(query.sql(distributions=True), params).fetchone()
    assert isinstance(joined_tier(row, "s", "t", {}, [], known, lambda: (ids, texts)),
                      TierColumns)
    reordered = "\x1f".join(reversed(ids.split("\x1f")))
    assert reordered != ids
    assert joined_tier(row, "s", "t", {}, [], known, lambda: (reordered, texts)) is False
    assert joined_tier(row, "s", "t", {}, [], known, lambda: None) is False


def test_each_piece_of_a_scan_seeks_its_range_and_each_of_an_index_read_uses_the_index(
        tmp_path: Path) -> None:
    """The pieces cost about what the whole query does only if a scanning piece reads
    its own range of rowids (not the whole table) and an indexed one keeps the index."""
    from app.core.formats.potato.engine.answers import JoinedQuery

    db = _database(tmp_path / "engine.sqlite", 2)
    query = JoinedQuery(QUERY_LABELS)

    def plan(scan: bool) -> list[str]:
        return [str(row[3]) for row in db.execute(
            "EXPLAIN QUERY PLAN " + query.sql(scan, cuts=[10, 20, 30]), ("a", "s", "v1"))
            if str(row[3]).startswith("SEARCH p") or str(row[3]).startswith("SCAN p")]
    assert plan(True) == ["SEARCH p USING INTEGER PRIMARY KEY (rowid<?)",
                          "SEARCH p USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
                          "SEARCH p USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
                          "SEARCH p USING INTEGER PRIMARY KEY (rowid>?)"]
    indexed = plan(False)
    assert len(indexed) == 4 and all("USING INDEX ix_prediction_version_conf" in step
                                     for step in indexed)
