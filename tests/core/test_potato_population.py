"""The population as columns (``potato_method.population``) against the per-item objects
and walks it replaced: the cascade's stops (``population.routing.route_rows`` against
``from_store.route_stop``), the items themselves, ``selective_risk``'s coverage
(``population.coverage``) and ``ppi``'s whole evaluation, on random cascades and on every
simulated ppi study of ``test_potato_method_ppi``."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from app.core.contracts.potato_method.from_store import route_stop
from app.core.contracts.potato_method.population.routing import route_rows
from app.core.contracts.potato_method.population.table import PopulationTable
from app.core.contracts.potato_method.ppi import MachineAnswers, evaluate_ppi, machine_tier
from app.core.contracts.potato_method.selective_risk import coverage
from app.core.contracts.potato_method.view import MethodView, PopulationItem, TierAnswer
from app.core.formats.potato.engine.answers import TierColumns
from tests.core.test_potato_method_ppi import CASES, _case

LABELS = ("pos", "neg", "mixed")


def table_of(population: Sequence[PopulationItem], n_tiers: int,
             fields: dict[str, dict[str, str]] | None = None, coded: bool = False
             ) -> PopulationTable:
    """The same population as columns: each tier's answers in population order; with
    ``coded``, each tier whose values are all known (none is null) carries their codes
    over one list of known values, as the store's reader gives them."""
    known: list[Any] = list(dict.fromkeys(
        a.value for p in population for a in p.tiers if a is not None and a.value is not None))
    columns: list[TierColumns | None] = []
    rows = np.full((n_tiers, len(population)), -1, np.int64)
    for j in range(n_tiers):
        answered = [(i, p.item, a) for i, p in enumerate(population)
                    if j < len(p.tiers) and (a := p.tiers[j]) is not None]
        if not answered:
            columns.append(None)
            continue
        answers = [a for _, _, a in answered]
        values = [known[known.index(a.value)] if a.value is not None else None
                  for a in answers]
        codes = np.array([known.index(v) for v in values], np.int32) \
            if coded and None not in values else None
        columns.append(TierColumns.build(
            "s", f"t{j}", [item for _, item, _ in answered], values,
            [a.confidence for a in answers], [a.status for a in answers],
            [dict(a.distribution) if a.distribution is not None else None for a in answers]
            if any(a.distribution is not None for a in answers) else None,
            codes=codes, known=known))
        for row, (i, _, _) in enumerate(answered):
            rows[j, i] = row
    output = np.array([next((j for j, a in enumerate(p.tiers) if a == p.output), -1)
                       if p.output is not None else -1 for p in population], np.int64)
    if not all(p.output is None or output[i] >= 0 for i, p in enumerate(population)):
        pytest.skip("an output that is no tier's answer (a store's view has none)")

    def field_column(items: Sequence[str], key: str) -> list[str | None]:
        return [((fields or {}).get(item) or {}).get(key) for item in items]
    items = [p.item for p in population]
    return PopulationTable(items, columns, rows, output, [p.pi for p in population],
                           field_column, dict.fromkeys(items).keys() if coded else None)


def _answer(rng: random.Random) -> TierAnswer | None:
    if rng.random() < 0.15:
        return None
    status = rng.choice(["ok", "ok", "ok", "ok", "abstain", "error"])
    value = rng.choice([*LABELS, None]) if rng.random() < 0.1 else rng.choice(LABELS)
    confidence = rng.choice([0.0, 0.5, 0.7, 0.9, 1.0, round(rng.random(), 2)])
    return TierAnswer(value, confidence, status)


def _population(rng: random.Random, n_tiers: int, n: int) -> list[PopulationItem]:
    out = []
    for i in range(n):
        answers = tuple(_answer(rng) for _ in range(n_tiers))
        out.append(PopulationItem(f"i{i}", answers, None, rng.choice([0.1, 0.5, None])))
    return out


def _route(rng: random.Random, tiers: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    route: dict[str, Any] = {}
    cells: dict[str, Any] = {}
    for tier in tiers:
        if rng.random() < 0.2:
            continue
        route[tier] = {key: rng.choice([None, 0.5, 0.7, 0.9, 1.0])
                       for key in rng.sample([*LABELS, "*"], rng.randint(0, 4))}
        for key in [*LABELS, "*"]:
            if rng.random() < 0.5:
                cells[f"{tier}:{key}"] = {"n_dev": rng.choice([0, 29, 30, 100])}
    return route, cells


@pytest.mark.parametrize("seed", range(80))
def test_the_cascade_stops_where_route_stop_stops(seed: int) -> None:
    rng = random.Random(seed)
    tiers = tuple(f"t{j}" for j in range(rng.randint(1, 4)))
    population = _population(rng, len(tiers), rng.randint(0, 120))
    table = table_of(population, len(tiers))
    for per_class in (False, True):
        route, cells = _route(rng, tiers)
        stops, complete = route_rows(tiers, table.tiers, table.rows, route, cells, per_class)
        expected = [route_stop(tiers, p.tiers, route, cells, per_class) for p in population]
        assert stops.tolist() == [-1 if s is None else s for s, _ in expected]
        assert complete == all(c for _, c in expected)


@pytest.mark.parametrize("seed", range(40))
def test_the_table_is_its_items(seed: int) -> None:
    rng = random.Random(seed)
    population = [dataclasses.replace(p, output=rng.choice([a for a in p.tiers] + [None]))
                  for p in _population(rng, 3, rng.randint(0, 50))]
    table = table_of(population, 3, coded=seed % 2 == 1)
    assert table == tuple(population)
    assert list(table) == population
    assert set(table.members()) == {p.item for p in population}  # given, or made
    if population:
        assert table[-1] == population[-1]
        assert table[1:4] == tuple(population[1:4])
        chosen = np.array(sorted(rng.sample(range(len(population)), len(population) // 2)))
        assert list(table.take(chosen)) == [population[i] for i in chosen.tolist()]
    for tier in (None, 0, 1, 2):
        names = MachineAnswers.of_table(table, tier)
        plain = MachineAnswers([(p.output if tier is None else p.tiers[tier])
                                for p in population])
        assert names.names().tolist() == plain.names().tolist()
        assert names.plain == plain.plain
        assert names.answers == plain.answers


@pytest.mark.parametrize("seed", range(60))
def test_coverage_from_the_columns_equals_the_walk(seed: int) -> None:
    rng = random.Random(seed)
    tiers = tuple(f"t{j}" for j in range(rng.randint(1, 3)))
    population = _population(rng, len(tiers), rng.randint(0, 150))
    view = MethodView("s", LABELS, tiers, population=tuple(population))
    table_view = dataclasses.replace(view, population=table_of(population, len(tiers)))
    for per_class in (False, True):
        route = {j: {k: rng.choice([None, 0.5, 0.8, 1.0]) for k in [*LABELS, "*"]}
                 for j in range(len(tiers)) if rng.random() < 0.8}
        acceptance = {t: {k: rng.choice([None, 0.6, 0.9]) for k in [*LABELS, "*"]}
                      for t in tiers if rng.random() < 0.8}
        assert coverage(table_view, acceptance, route, per_class) == \
            coverage(view, acceptance, route, per_class)


@pytest.mark.parametrize("case", CASES[::3])
def test_ppi_on_the_columns_equals_ppi_on_the_items(case: str) -> None:
    contract, view, look = _case(case)
    for coded in (False, True):
        table = table_of(view.population, len(view.tiers),
                         {k: dict(v) for k, v in view.item_fields.items()}, coded)
        as_table = dataclasses.replace(view, population=table)
        assert machine_tier(contract, as_table) == machine_tier(contract, view)
        assert evaluate_ppi(contract, as_table, look).to_json() == \
            evaluate_ppi(contract, view, look).to_json()
