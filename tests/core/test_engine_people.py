"""People who labelled only in Potato's ``engine.sqlite`` are annotators (issue 35, part 1).

Projects: the ones Potato 2.12.1's labelling engine wrote (``tests/potato_real/
engine_projects.py``). ``engine_panels`` is the issue's case: five people labelled each
of 60 items, only in the engine; ``cascade_fixture`` has 59 sentiment and 29 quality
items each labelled by three people, blind, and 62 verification labels given seeing the
machine's answer; ``server_engine`` has the same people in ``user_state.json`` (its
server copied each save into the engine); ``labels_only_in_db`` has no
``user_state.json`` at all.

Oracles: the raw ``human_request`` rows read here with ``sqlite3`` (from a copy of the
database and its WAL: opening the committed file would checkpoint it), and the
coefficients from the ``krippendorff`` package and statsmodels' ``fleiss_kappa``.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from app.cli.main import main
from app.core.agreement.report import agreement_report
from app.core.contracts.label_report import label_report
from app.core.errors import InputError
from app.core.formats.potato.project import load_study
from app.core.progress import run

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_engine"
ENGINE = "engine.sqlite"


def _copy(project: Path, tmp: Path) -> Path:
    out = tmp / project.name
    shutil.copytree(project, out)
    return out


def raw_rows(project: Path, tmp: Path) -> list[dict[str, Any]]:
    """Every answered human request, read from a private copy of the database."""
    folder = tmp / f"raw-{project.name}"
    folder.mkdir()
    for side in ("", "-wal"):
        if (project / (ENGINE + side)).is_file():
            shutil.copyfile(project / (ENGINE + side), folder / (ENGINE + side))
    with sqlite3.connect(folder / ENGINE) as db:
        db.row_factory = sqlite3.Row
        rows = [dict(r) for r in db.execute(
            "SELECT * FROM human_request WHERE status = 'done' ORDER BY id")]
    db.close()
    return rows


def blind_latest(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, str]]]:
    """scheme → item → person → label: the rule of the module, written again here."""
    best: dict[tuple[str, str, str], tuple[float, int, Any]] = {}
    for r in rows:
        if r["purpose"] not in ("calibration", "certification", "verify"):
            continue
        if r["visibility"] != "blind":
            continue
        person = r["user_id"] or r["assigned_user"]
        key = (r["schema_name"], r["item_id"], person)
        stamp = (r["completed_at"], r["id"], json.loads(r["label_json"]))
        if key not in best or stamp[:2] > best[key][:2]:
            best[key] = stamp
    out: dict[str, dict[str, dict[str, str]]] = {}
    for (schema, item, person), (_, _, label) in best.items():
        out.setdefault(schema, {}).setdefault(item, {})[person] = str(label)
    return out


def _reliability(answers: dict[str, dict[str, str]], people: list[str]) -> list[list[Any]]:
    items = sorted(answers)
    return [[answers[i].get(p, np.nan) for i in items] for p in people]


# ------------------------------------------------------------------ who and what


def test_the_people_of_the_engine_are_the_annotators(tmp_path: Path) -> None:
    for name in ("cascade_fixture", "labels_only_in_db", "sentiment_static"):
        project = DATA / name
        expected = blind_latest(raw_rows(project, tmp_path))
        study = load_study(project)
        people = sorted({p for by in expected.values() for row in by.values() for p in row})
        assert study.annotators == tuple(people) == ("ann_a", "ann_b", "ann_c"), name
        got = {s: {i: dict(row) for i, row in by.items()} for s, by in study.answers.items()
               if by}
        assert got == expected, name


def test_labels_given_seeing_the_machine_are_left_out_and_said(tmp_path: Path) -> None:
    rows = raw_rows(DATA / "cascade_fixture", tmp_path)
    shown = [r for r in rows if r["visibility"] == "shown"]
    assert len(shown) == 62 and {r["purpose"] for r in shown} == {"verify"}
    study = load_study(DATA / "cascade_fixture")
    for r in shown:  # a verified item nobody labelled blind has no person's answer
        blind = {x["user_id"] for x in rows if x["item_id"] == r["item_id"]
                 and x["schema_name"] == r["schema_name"] and x["visibility"] == "blind"}
        by = study.answers[r["schema_name"]].get(r["item_id"], {})
        assert set(by) == blind
    assert any("62 verification labels" in n and "seeing the machine's answer" in n
               for n in study.notes)
    assert any("/admin/iaa" in n for n in study.notes)


def test_a_project_with_no_user_state_has_its_people(tmp_path: Path) -> None:
    project = DATA / "labels_only_in_db"
    assert not list(project.rglob("user_state.json"))
    study = load_study(project)
    assert study.annotators == ("ann_a", "ann_b", "ann_c")
    assert sum(len(by) for by in study.answers["sentiment"].values()) == 31


# ------------------------------------------------------------------- the numbers


def test_agreement_between_engine_people_against_krippendorff_and_fleiss(tmp_path: Path
                                                                         ) -> None:
    project = DATA / "cascade_fixture"
    expected = blind_latest(raw_rows(project, tmp_path))
    report = run(agreement_report(load_study(project), project=str(project)))
    people = ["ann_a", "ann_b", "ann_c"]
    sentiment = report.to_json()["schemes"]["sentiment"]
    assert sentiment["n_items"] == len(expected["sentiment"]) == 59
    oracle = krippendorff.alpha(reliability_data=_reliability(expected["sentiment"], people),
                                level_of_measurement="nominal",
                                value_domain=["positive", "negative", "neutral"])
    assert sentiment["metrics"]["alpha"] == pytest.approx(oracle, abs=1e-9)
    table = np.array([[Counter(row.values())[v] for v in ("positive", "negative", "neutral")]
                      for row in expected["sentiment"].values()])
    assert (table.sum(axis=1) == 3).all()
    assert sentiment["metrics"]["fleiss_kappa"] == pytest.approx(fleiss_kappa(table),
                                                                 abs=1e-9)
    quality = report.to_json()["schemes"]["quality"]
    scored = {i: row for i, row in expected["quality"].items() if len(row) >= 2}
    assert quality["n_items"] == len(scored) == 29
    oracle = krippendorff.alpha(
        reliability_data=[[float(v) if v == v else v for v in r]
                          for r in _reliability(scored, people)],
        level_of_measurement="ordinal", value_domain=[1.0, 2.0, 3.0, 4.0, 5.0])
    assert quality["metrics"]["alpha"] == pytest.approx(oracle, abs=1e-9)


def test_the_agreement_command_counts_and_measures_them(tmp_path: Path, capsys: Any) -> None:
    project = DATA / "cascade_fixture"
    expected = blind_latest(raw_rows(project, tmp_path))
    assert main(["agreement", str(project), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["coverage"]["n_annotators"] == 3
    pairs = out["schemes"]["sentiment"]["pairs"]
    assert set(pairs) == {"ann_a|ann_b", "ann_a|ann_c", "ann_b|ann_c"}
    a = expected["sentiment"]
    for pair, got in pairs.items():
        x, y = pair.split("|")
        both = [i for i in a if x in a[i] and y in a[i]]
        oracle = krippendorff.alpha(reliability_data=[[a[i][x] for i in both],
                                                      [a[i][y] for i in both]],
                                    level_of_measurement="nominal",
                                    value_domain=["positive", "negative", "neutral"])
        assert got["n_items"] == len(both)
        assert got["alpha"] == pytest.approx(oracle, abs=1e-9)


def test_five_people_on_sixty_items_against_fleiss_and_krippendorff(tmp_path: Path,
                                                                     capsys: Any) -> None:
    project = DATA / "engine_panels"
    assert not list(project.rglob("user_state.json"))
    expected = blind_latest(raw_rows(project, tmp_path))["sentiment"]
    people = ["ann_a", "ann_b", "ann_c", "ann_d", "ann_e"]
    assert len(expected) == 60 and all(sorted(row) == people for row in expected.values())
    assert main(["agreement", str(project), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["coverage"]["n_annotators"] == 5
    got = out["schemes"]["sentiment"]
    assert got["n_items"] == 60 and got["n_pairs"] == 600
    table = np.array([[Counter(row.values())[v] for v in ("positive", "negative", "neutral")]
                      for row in expected.values()])
    assert got["metrics"]["fleiss_kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-9)
    oracle = krippendorff.alpha(reliability_data=_reliability(expected, people),
                                level_of_measurement="nominal",
                                value_domain=["positive", "negative", "neutral"])
    assert got["metrics"]["alpha"] == pytest.approx(oracle, abs=1e-9)
    assert len(got["pairs"]) == 10


# --------------------------------------------------- both stores, one person


def test_user_state_answers_win_and_engine_only_ones_are_added(tmp_path: Path) -> None:
    project = _copy(DATA / "server_engine", tmp_path)
    plain = load_study(project)
    assert plain.annotators == ("ann_a", "ann_b", "ann_c")
    assert not any("engine.sqlite" in n for n in plain.notes)  # the copies agree
    with sqlite3.connect(project / ENGINE) as db:  # a copy: ours to change
        ident, item, label = db.execute(
            "SELECT id, item_id, label_json FROM human_request WHERE status = 'done'"
            " AND user_id = 'ann_a' ORDER BY id LIMIT 1").fetchone()
        other = next(x for x in ("positive", "negative", "neutral") if json.dumps(x) != label)
        db.execute("UPDATE human_request SET label_json = ? WHERE id = ?",
                   (json.dumps(other), ident))
        fresh = db.execute(
            "SELECT item_id FROM engine_item WHERE item_id NOT IN (SELECT item_id FROM"
            " human_request WHERE user_id = 'ann_a') ORDER BY item_id LIMIT 1").fetchone()[0]
        db.execute("INSERT INTO human_request (item_id, schema_name, purpose, split, status,"
                   " label_json, user_id, created_at, completed_at) VALUES (?, 'sentiment',"
                   " 'calibration', 'dev', 'done', '\"neutral\"', 'ann_a', 1, 2)", (fresh,))
    db.close()
    study = load_study(project)
    assert study.answers["sentiment"][item]["ann_a"] == json.loads(label)  # user_state's
    assert study.answers["sentiment"][fresh]["ann_a"] == "neutral"  # the engine's only
    assert any(n.startswith("1 answer in engine.sqlite differs") for n in study.notes)
    assert any(n.startswith("1 answer of people who also have a user_state.json was found")
               for n in study.notes)


def test_a_label_that_is_not_an_option_names_the_database(tmp_path: Path) -> None:
    project = _copy(DATA / "labels_only_in_db", tmp_path)
    with sqlite3.connect(project / ENGINE) as db:
        db.execute("UPDATE human_request SET label_json = '\"bogus\"' WHERE id = "
                   "(SELECT MIN(id) FROM human_request WHERE status = 'done')")
    db.close()
    with pytest.raises(InputError) as caught:
        load_study(project)
    assert Path(str(caught.value.file)) == project / ENGINE
    assert "bogus" in str(caught.value)


def test_no_file_is_created_beside_the_database(tmp_path: Path) -> None:
    project = _copy(DATA / "server_engine", tmp_path)  # a WAL a killed server left
    before = sorted(p.name for p in project.iterdir())
    load_study(project)
    assert sorted(p.name for p in project.iterdir()) == before


# ------------------------------------------------ label status is unchanged


def test_label_status_reads_the_people_as_requests_only(tmp_path: Path) -> None:
    """``label status`` and ``export --training`` read the engine's labels as requests:
    its study has no engine people, so no calibration label becomes an ``outside``
    training row."""
    project = _copy(DATA / "cascade_fixture", tmp_path)
    report = label_report(project)
    assert report.study.annotators == ()
    rows = report.training()
    assert rows and {r["origin"] for r in rows} == {"verification"}
    assert len(rows) == 62


@pytest.mark.parametrize("name", ["cascade_fixture", "engine_panels", "server_engine"])
def test_the_contracts_are_the_same_with_the_people_in_the_study(name: str,
                                                                 tmp_path: Path) -> None:
    """The window gives the label report a study that carries the engine's people; what
    it reports and exports is what ``label status`` (a study without them) reports."""
    project = _copy(DATA / name, tmp_path)
    plain = label_report(project)
    study = load_study(project)
    assert set(study.annotators) > set(plain.study.annotators) or name == "server_engine"
    carried = label_report(project, study=study)
    assert carried.to_json() == plain.to_json()
    assert carried.export() == plain.export()


def test_a_free_form_scheme_s_unreadable_label_is_counted_not_fatal(tmp_path: Path) -> None:
    """``label status`` does not check labels of a scheme without options; neither does
    opening the project fail on one: it is counted in a note."""
    project = _copy(DATA / "labels_only_in_db", tmp_path)
    config = project / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "annotation_schemes:\n",
        "annotation_schemes:\n- annotation_type: text\n  name: comment\n"
        "  description: Anything to add?\n", 1), encoding="utf-8")
    with sqlite3.connect(project / ENGINE) as db:
        db.execute("INSERT INTO human_request (item_id, schema_name, purpose, split, status,"
                   " label_json, user_id, created_at, completed_at) VALUES ('d001', 'comment',"
                   " 'calibration', 'dev', 'done', '{\"free\": [1, 2]}', 'ann_a', 1, 2)")
    db.close()
    study = load_study(project)
    assert "comment" in study.schemes and not study.answers["comment"]
    assert any(n.startswith("1 label in engine.sqlite on schemes without options")
               for n in study.notes)
    assert study.annotators == ("ann_a", "ann_b", "ann_c")


@pytest.mark.parametrize("name", ["cascade_fixture", "engine_panels"])
def test_the_certificate_s_panels_and_its_agreement_read_the_same_people(
        name: str, tmp_path: Path) -> None:
    """Every item two people labelled here is a 3- or 5-person calibration panel, so the
    agreement report's α (the engine's people) and the panels' α (the contracts'
    calibration labels) are one number, and page 1 counts the people."""
    from app.core.certificate.build import build_certificate
    from app.core.project import open_project

    project = _copy(DATA / name, tmp_path)
    cert = run(build_certificate(run(open_project(project, preview=True)),
                                 generated_at="2026-12-05T00:00:00Z"))
    assert cert["project"]["n_annotators"] == (5 if name == "engine_panels" else 3)
    for scheme, panels in cert["panels"].items():
        got = cert["agreement"]["schemes"][scheme]
        assert got["n_items"] == panels["n_items"]
        assert got["metrics"]["alpha"] == pytest.approx(panels["alpha"], abs=1e-12)


def test_labels_on_items_no_longer_in_the_data_are_counted(tmp_path: Path) -> None:
    project = _copy(DATA / "labels_only_in_db", tmp_path)
    rows = raw_rows(project, tmp_path)
    gone = rows[0]["item_id"]
    data = project / "data" / "items.jsonl"
    lines = data.read_text(encoding="utf-8").splitlines(keepends=True)
    data.write_text("".join(x for x in lines if json.loads(x)["id"] != gone),
                    encoding="utf-8")
    study = load_study(project)
    removed = sum(1 for r in rows if r["item_id"] == gone)
    assert removed == 1 and gone not in study.answers["sentiment"]
    assert any(n.startswith("1 label in engine.sqlite on items or schemes that are not")
               for n in study.notes)


def test_a_blind_verification_label_counts_and_a_shown_one_does_not(tmp_path: Path) -> None:
    """Potato opens ``verify`` requests blind when ``humans.verify_visibility`` is
    ``blind``: such a label is an independent answer; a shown one is not."""
    project = _copy(DATA / "labels_only_in_db", tmp_path)
    with sqlite3.connect(project / ENGINE) as db:
        free = [r[0] for r in db.execute(
            "SELECT item_id FROM engine_item WHERE item_id NOT IN (SELECT item_id FROM"
            " human_request) ORDER BY item_id LIMIT 2")]
        for item, visibility in zip(free, ("blind", "shown"), strict=True):
            db.execute("INSERT INTO human_request (item_id, schema_name, purpose, split,"
                       " visibility, status, label_json, user_id, created_at, completed_at)"
                       " VALUES (?, 'sentiment', 'verify', 'none', ?, 'done', '\"neutral\"',"
                       " 'ann_z', 1, 2)", (item, visibility))
    db.close()
    study = load_study(project)
    assert "ann_z" in study.annotators
    assert study.answers["sentiment"][free[0]] == {"ann_z": "neutral"}
    assert free[1] not in study.answers["sentiment"]
    assert any(n.startswith("1 verification label in engine.sqlite was given seeing")
               for n in study.notes)
