"""A best-worst scaling study's items are the tuples Potato 2.12.1 generated (issue 37).

Potato draws them at start from the config and the data and stores them nowhere, so
Accord draws them again (``app/core/formats/potato/bws/tuples.py``). Oracles: Potato's own
``BwsTupleGenerator`` (the tuples, on the fixture and on seeded random pools) and its
``/admin/iaa`` saved by the server that wrote ``tests/data/potato_server/ratings/bws``
(the numbers ``accord agreement --json`` prints, to 1e-9)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli.main import main
from app.core.errors import InputError
from app.core.formats.potato.bws.tuples import draw_tuples
from app.core.formats.potato.project import load_study
from tests.core import rating_support as rs

PROJECT = rs.ROOT / "bws"


def _potato_tuples(records: list[dict[str, Any]], block: dict[str, Any], text_key: str = "text"
                   ) -> list[dict[str, Any]]:
    from potato.bws_tuple_generator import BwsTupleGenerator

    return BwsTupleGenerator(  # type: ignore[no-any-return]
        pool_items=records, id_key="id", text_key=text_key,
        tuple_size=block.get("tuple_size", 4), num_tuples=block.get("num_tuples"),
        seed=block.get("seed", 42), min_item_appearances=block.get("min_item_appearances"),
    ).generate()


def test_the_items_are_the_tuples_potatos_generator_makes_and_its_annotators_answered() -> None:
    records = [json.loads(line) for line in
               (PROJECT / "data" / "items.jsonl").read_text().splitlines()]
    theirs = _potato_tuples(records, rs.config("bws")["bws_config"])
    study = load_study(PROJECT)
    assert list(study.items) == [t["id"] for t in theirs] == [
        f"bws_tuple_{i:04d}" for i in range(1, 11)]
    for tup in theirs:
        item = study.items[tup["id"]]
        assert item.record["_bws_items"] == tup["_bws_items"]
        assert item.record["_bws_tuple_size"] == tup["_bws_tuple_size"] == 4
        assert item.text == "\n".join(f"{m['position']}: {m['text']}" for m in tup["_bws_items"])
    assert study.items["bws_tuple_0001"].text.startswith("A: Joke number ")  # type: ignore[union-attr]
    answered = {item for state in rs.states("bws").values()
                for item in state["instance_id_to_label_to_value"]}
    assert answered == set(study.items)  # every answer Potato stored is to an item
    assert not study.notes  # nothing ignored any more (30 answers were)
    assert study.answers["funniest"]["bws_tuple_0001"]["bob"] is not None


@pytest.mark.parametrize("seed", [0, 7, 42, 2026])
def test_the_draw_equals_potatos_on_random_pools(seed: int) -> None:
    """Pools of 2..13 records, every tuple size, set and automatic tuple counts: tuples
    that finish with the next pass's shuffle skip the records they already hold."""
    rng = random.Random(seed)
    checked = 0
    for pool in range(2, 14):
        records = [{"id": f"r{i}", "text": f"record {i}"} for i in range(pool)]
        for size in range(2, min(pool, 6) + 1):
            for block in ({"tuple_size": size, "seed": rng.randrange(10**6)},
                          {"tuple_size": size, "seed": seed, "num_tuples": rng.randint(1, 40)},
                          {"tuple_size": size, "seed": seed,
                           "min_item_appearances": rng.randint(-1, 5)}):
                theirs = _potato_tuples(records, block)
                count = len(theirs)
                ours = draw_tuples(pool, size, count, block["seed"])
                assert ours == [tuple(int(m["source_id"][1:]) for m in t["_bws_items"])
                                for t in theirs], (pool, block)
                checked += 1
    assert checked > 100


def _copy(tmp_path: Path, block: Any, records: list[dict[str, Any]] | None = None) -> Path:
    project = tmp_path / "bws"
    shutil.copytree(PROJECT, project)
    config = yaml.safe_load((project / "config.yaml").read_text())
    config["bws_config"] = block
    (project / "config.yaml").write_text(yaml.safe_dump(config))
    if records is not None:
        (project / "data" / "items.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records))
    return project


def test_texts_that_are_not_strings_read_as_potato_writes_them(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = [{"id": "a", "text": 5}, {"id": "b"},
                                     {"id": "c", "text": ["x", 1]}, {"id": "d", "text": None},
                                     {"id": "e", "text": {"k": 1.5}}, {"id": "f", "text": True}]
    block = {"tuple_size": 3, "seed": 9}
    study = load_study(_copy(tmp_path, block, records))
    theirs = _potato_tuples(records, block)
    assert len(study.items) == len(theirs) == 12  # each record 2 * 3 times: 6 * 6 / 3
    for tup in theirs:
        assert study.items[tup["id"]].record["_bws_items"] == tup["_bws_items"]


@pytest.mark.parametrize(("block", "key"), [
    ({"tuple_size": 9}, "bws_config.tuple_size"),  # the pool holds 8
    ({"tuple_size": 1}, "bws_config.tuple_size"),
    ({"num_tuples": 0}, "bws_config.num_tuples"),
    ({"num_tuples": "ten"}, "bws_config.num_tuples"),
    ({"seed": [1]}, "bws_config.seed"),
    (["tuple_size", 4], "bws_config"),
])
def test_a_config_potato_would_refuse_is_an_input_error(tmp_path: Path, block: Any,
                                                        key: str) -> None:
    with pytest.raises(InputError) as error:
        load_study(_copy(tmp_path, block))
    assert error.value.key == key
    assert error.value.file is not None and Path(error.value.file).name == "config.yaml"


def test_without_bws_config_the_data_files_are_the_items(tmp_path: Path) -> None:
    study = load_study(_copy(tmp_path, {}))
    assert list(study.items) == [f"j{i:02d}" for i in range(8)]


def test_accord_agreement_json_equals_potatos_admin_iaa(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    assert main(["agreement", str(PROJECT), "--json"]) == 0
    out = capsys.readouterr().out
    assert "NaN" not in out
    data = json.loads(out)
    assert data["coverage"] == {"n_items": 10, "n_annotators": 3}
    scheme = data["schemes"]["funniest"]
    assert scheme["kind"] == "matrix" and not scheme["undefined"]
    pooled = {**scheme["metrics"], "n_items": scheme["n_units"],
              "n_aligned_items": scheme["n_aligned_items"],
              "n_annotators": scheme["n_annotators"]}
    mine = {**scheme["rows"], "pooled": pooled, "n_items": scheme["n_items"],
            "n_annotators": scheme["n_annotators"], "n_rows": len(scheme["rows"]),
            "scale": scheme["scale"]}
    potato = rs.expected("bws")["schemas"]["funniest"]["metrics"]
    assert set(potato) == {"best", "worst", "pooled", "n_items", "n_annotators", "n_rows",
                           "scale"}
    worst, problems = rs.differences(mine, potato, "funniest")
    assert not problems, problems
    assert worst <= 1e-9
    assert scheme["metrics"]["alpha"] == pytest.approx(potato["pooled"]["alpha_nominal"],
                                                       abs=1e-9)


def test_a_csv_pool_gives_potatos_tuples(tmp_path: Path) -> None:
    """A CSV data file (a quoted comma, spaces kept, an empty text): the pool's records
    as Potato parses them (its own ``parse_delimited``), the same tuples."""
    from potato.bws_tuple_generator import BwsTupleGenerator
    from potato.data_sources.parsing import parse_delimited, read_text

    project = _copy(tmp_path, {"tuple_size": 4, "num_tuples": 10, "seed": 62})
    data = project / "data" / "items.csv"
    data.write_text('id,text\nj00,"Joke, number 0."\nj01,Joke number 1.\nj02, spaced \n'
                    "j03,4\nj04,\nj05,x\nj06,y\nj07,z\n")
    config = project / "config.yaml"
    config.write_text(config.read_text().replace("data/items.jsonl", "data/items.csv"))
    (project / "data" / "items.jsonl").unlink()
    records = parse_delimited(read_text(str(data), "utf-8"), ",", str(data))
    theirs = BwsTupleGenerator(records, "id", "text", tuple_size=4, num_tuples=10,
                               seed=62).generate()
    study = load_study(project)
    assert list(study.items) == [t["id"] for t in theirs]
    for tup in theirs:
        assert study.items[tup["id"]].record["_bws_items"] == tup["_bws_items"]
    texts = {m["text"] for t in theirs for m in t["_bws_items"]}
    assert {"Joke, number 0.", " spaced ", ""} <= texts
