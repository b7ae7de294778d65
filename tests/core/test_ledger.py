"""The looks ledger: chain, head, damage, acknowledgement and atomic writes."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.core.contracts.ledger.chain import (
    GENESIS,
    Event,
    Ledger,
    LedgerDamagedError,
    Look,
    LookConflictError,
    data_hash,
)

RULE = {"tiers": {"distilbert": 0.93}}


def ledger_file(project: Path) -> Path:
    return project / "labeling" / "ledger.jsonl"


def head_file(project: Path) -> Path:
    return project / ".accord" / "ledger-head"


def record(ledger: Ledger, contract: str, *, data: str = "d", state: str = "unmet",
           cascade: str | list[str] | None = None, renamed_from: str | None = None,
           rule: Any = None) -> Look:
    """Append the next look of ``contract`` as a scheduler would."""
    number = ledger.looks(contract, renamed_from) + 1
    return ledger.append_look(
        contract, look=number, level=0.1 * 6 / (3.14159**2 * number**2),
        data_hash=data_hash({"cert": data}, {"pred": data}, rule or RULE),
        rule=rule or RULE, result={"state": state, "look": number},
        cascade=cascade or ["distilbert", "gemma-12b"], renamed_from=renamed_from,
        time="2026-01-01T00:00:00+00:00")


def filled(project: Path, count: int = 6) -> Ledger:
    """A ledger with ``count`` looks alternating between contracts a and b."""
    ledger = Ledger.open(project)
    for index in range(count):
        record(ledger, "a" if index % 2 == 0 else "b", data=f"d{index}")
    return ledger


def lines(project: Path) -> list[bytes]:
    return ledger_file(project).read_bytes().split(b"\n")[:-1]


def write_lines(project: Path, content: list[bytes]) -> None:
    ledger_file(project).write_bytes(b"".join(line + b"\n" for line in content))


# ------------------------------------------------------------------ a whole ledger


def test_a_fresh_project_has_an_empty_whole_ledger_and_open_writes_nothing(
        tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    assert ledger.ok and ledger.damage is None
    assert ledger.report == {"ok": True, "problem": None}
    assert ledger.entries == () and ledger.looks("accuracy") == 0
    assert ledger.last_look("accuracy") is None
    assert list(tmp_path.iterdir()) == []


def test_append_then_reopen_verifies(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    first = record(ledger, "accuracy")
    second = record(ledger, "accuracy", data="more")
    assert (first.look, second.look) == (1, 2)

    reopened = Ledger.open(tmp_path)
    assert reopened.ok, reopened.damage
    assert [e.look for e in reopened.entries if isinstance(e, Look)] == [1, 2]
    assert reopened.entries == ledger.entries
    raw = lines(tmp_path)
    assert len(raw) == 2
    for line in raw:  # compact, sorted keys, UTF-8
        obj = json.loads(line)
        assert line == json.dumps(obj, sort_keys=True, separators=(",", ":"),
                                  ensure_ascii=False).encode()
    head = head_file(tmp_path).read_text(encoding="ascii")
    assert head == f"2 {hashlib.sha256(raw[-1]).hexdigest()}\n"


def test_the_first_line_chains_from_the_sha256_of_the_version_string(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    record(ledger, "accuracy")
    record(ledger, "accuracy", data="more")
    independent = hashlib.sha256(b"accord-ledger-v1").hexdigest()
    first, second = lines(tmp_path)
    assert independent == GENESIS
    assert json.loads(first)["prev"] == independent
    assert json.loads(second)["prev"] == hashlib.sha256(first).hexdigest()  # no newline
    assert [json.loads(line)["n"] for line in (first, second)] == [1, 2]


def test_looks_are_counted_per_contract_id_across_cascades(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    record(ledger, "accuracy", cascade=["distilbert"])
    record(ledger, "accuracy", cascade=["distilbert", "gemma-12b"], data="x")
    record(ledger, "accuracy", cascade=["distilbert"], data="y")  # back to the first: new look
    record(ledger, "plan")
    assert ledger.looks("accuracy") == 3
    assert ledger.looks("plan") == 1
    assert ledger.looks("other") == 0
    assert ledger.level_spent("accuracy") == pytest.approx(
        sum(0.1 * 6 / (3.14159**2 * k**2) for k in (1, 2, 3)))
    assert Ledger.open(tmp_path).looks("accuracy") == 3


def test_a_look_must_be_the_next_one(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    record(ledger, "accuracy")
    stale = Ledger.open(tmp_path)
    record(ledger, "accuracy", data="x")  # another process tests meanwhile
    with pytest.raises(LookConflictError, match="look 3"):
        stale.append_look("accuracy", look=2, level=0.01, data_hash="0" * 64, rule=RULE,
                          result={}, cascade="c")
    assert Ledger.open(tmp_path).looks("accuracy") == 2


def test_a_renamed_contract_keeps_its_old_ids_looks(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    record(ledger, "acc")
    record(ledger, "acc", data="x")
    assert ledger.looks("accuracy") == 0
    assert ledger.looks("accuracy", renamed_from="acc") == 2
    third = record(ledger, "accuracy", renamed_from="acc", data="y")
    assert third.look == 3
    reopened = Ledger.open(tmp_path)
    # The rename is recorded, so forgetting `renamed_from` later gives nothing back.
    assert ("accuracy", "acc") in reopened.renames()
    assert reopened.looks("accuracy") == 3
    assert record(reopened, "accuracy", data="z").look == 4
    events = [e for e in reopened.entries if isinstance(e, Event)]
    assert [e.event for e in events] == ["renamed"]  # written once


def test_testing_the_same_data_again_returns_the_stored_result(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    look = record(ledger, "accuracy", data="d", state="met")
    same = data_hash({"cert": "d"}, {"pred": "d"}, RULE)
    assert look.data_hash == same
    assert ledger.stored_result("accuracy", same, RULE) == {"state": "met", "look": 1}
    assert Ledger.open(tmp_path).stored_result("accuracy", same, RULE) is not None
    assert ledger.stored_result("accuracy", same, {"tiers": {"distilbert": 0.9}}) is None
    assert ledger.stored_result("accuracy", "f" * 64, RULE) is None
    assert ledger.looks("accuracy") == 1
    # Only the latest look is reused: going back to earlier data is a new look.
    record(ledger, "accuracy", data="other")
    assert ledger.stored_result("accuracy", same, RULE) is None


def test_data_hash_is_stable_and_order_independent_for_mappings() -> None:
    one = data_hash({"i1": "pos", "i2": "neg"}, {"i1": {"label": "pos", "confidence": 0.9}},
                    {"t": 0.5})
    two = data_hash({"i2": "neg", "i1": "pos"}, {"i1": {"confidence": 0.9, "label": "pos"}},
                    {"t": 0.5})
    assert one == two and len(one) == 64
    assert data_hash({"i1": "pos"}, {}, {"t": 0.5}) != data_hash({"i1": "pos"}, {}, {"t": 0.4})
    with pytest.raises(ValueError, match="not JSON"):
        data_hash({"i1": float("nan")}, {}, {})


def test_events_are_recorded_but_acknowledgement_is_reserved(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    event = ledger.append_event("note", {"text": "cascade changed"})
    assert event.line == 1 and Ledger.open(tmp_path).ok
    with pytest.raises(ValueError, match="acknowledge_damage"):
        ledger.append_event("acknowledged_damage", {})
    assert ledger.acknowledge_damage() is None  # nothing to acknowledge, nothing written
    assert len(lines(tmp_path)) == 1


# ------------------------------------------------------------------------- damage


def delete_middle(project: Path) -> None:
    content = lines(project)
    del content[2]  # line 3
    write_lines(project, content)


def swap_pair(project: Path) -> None:
    content = lines(project)
    content[2], content[3] = content[3], content[2]
    write_lines(project, content)


def alter_byte(project: Path) -> None:
    content = lines(project)
    content[3] = content[3].replace(b'"unmet"', b'"met"')  # line 4 now claims a pass
    write_lines(project, content)


def truncate_last(project: Path) -> None:
    path = ledger_file(project)
    path.write_bytes(path.read_bytes()[:-20])


def delete_last(project: Path) -> None:
    write_lines(project, lines(project)[:-1])


def remove_head(project: Path) -> None:
    head_file(project).unlink()


DAMAGE = [
    (delete_middle, ["line 3 does not chain from line 2", "records itself as line 4"]),
    (swap_pair, ["line 3 does not chain from line 2", "reordered"]),
    (alter_byte, ["line 5 does not chain from line 4", "altered"]),
    (truncate_last, ["line 6 is cut short"]),
    (delete_last, ["ends at line 5", "names line 6", "the last line was deleted"]),
    (remove_head, ["has 6 lines", ".accord/ledger-head is missing"]),
]


@pytest.mark.parametrize(("damage", "expected"), DAMAGE, ids=[d[0].__name__ for d in DAMAGE])
def test_damage_is_detected_with_a_sentence_naming_the_file_and_line(
        tmp_path: Path, damage: Any, expected: list[str]) -> None:
    looks_before = filled(tmp_path).looks("a")
    damage(tmp_path)
    ledger = Ledger.open(tmp_path)
    assert not ledger.ok
    assert ledger.damage is not None
    assert "ledger.jsonl" in ledger.damage
    for part in expected:
        assert part in ledger.damage
    assert ledger.report == {"ok": False, "problem": ledger.damage}
    # Counted conservatively even before anyone acknowledges: nothing given back.
    assert ledger.looks("a") >= looks_before


def test_a_missing_head_beside_an_empty_ledger_is_fine_but_not_beside_lines(
        tmp_path: Path) -> None:
    filled(tmp_path, 2)
    ledger_file(tmp_path).unlink()
    damaged = Ledger.open(tmp_path)
    assert damaged.damage is not None
    assert "is empty or missing" in damaged.damage and "names line 2" in damaged.damage
    head_file(tmp_path).unlink()
    assert Ledger.open(tmp_path).ok


def test_a_garbled_line_is_damage_not_a_crash(tmp_path: Path) -> None:
    filled(tmp_path, 4)
    content = lines(tmp_path)
    content[1] = b'{"kind": "look", \xff'
    write_lines(tmp_path, content)
    ledger = Ledger.open(tmp_path)
    assert ledger.damage == ("labeling/ledger.jsonl: line 2 is not a valid ledger entry "
                             "(it is not UTF-8 text)")


def test_converted_line_endings_are_named(tmp_path: Path) -> None:
    filled(tmp_path, 2)
    path = ledger_file(tmp_path)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    damage = Ledger.open(tmp_path).damage
    assert damage is not None and "line 1 ends with a carriage return" in damage


def test_appending_is_refused_while_the_ledger_is_damaged(tmp_path: Path) -> None:
    ledger = filled(tmp_path)
    delete_middle(tmp_path)
    before = ledger_file(tmp_path).read_bytes()
    with pytest.raises(LedgerDamagedError, match="line 3 does not chain") as caught:
        ledger.append_look("a", look=4, level=0.01, data_hash="0" * 64, rule=RULE,
                           result={}, cascade="c")
    assert "acknowledge-ledger" in str(caught.value)
    with pytest.raises(LedgerDamagedError):
        ledger.append_event("note", {})
    assert ledger_file(tmp_path).read_bytes() == before
    assert not ledger.ok  # the view now shows the damage it found


# ----------------------------------------------------------------- acknowledgement


def test_acknowledge_then_append_works_and_looks_are_not_given_back(tmp_path: Path) -> None:
    ledger = filled(tmp_path)  # a: looks 1-3 on lines 1, 3, 5; b: looks 1-3 on 2, 4, 6
    assert (ledger.looks("a"), ledger.looks("b")) == (3, 3)
    original = lines(tmp_path)
    delete_middle(tmp_path)  # line 3 (a's look 2) is gone
    damaged = Ledger.open(tmp_path)
    problem = damaged.damage
    assert problem is not None
    looks_damaged = (damaged.looks("a"), damaged.looks("b"))

    event = damaged.acknowledge_damage(problem, time="2026-01-02T00:00:00+00:00")
    assert isinstance(event, Event) and event.event == "acknowledged_damage"
    # Line 1 is vouched for by line 2's prev; line 2 only by the deleted line 3.
    assert event.details["kept_lines"] == 1 and event.line == 2
    assert event.details["unattributed"] == 1
    assert event.details["problem"] == problem

    reopened = Ledger.open(tmp_path)
    assert reopened.ok, reopened.damage
    assert (reopened.looks("a"), reopened.looks("b")) == looks_damaged
    # The lost line might have been anyone's look, so everyone is charged one: a has
    # looks 1 and 3 on record (3) plus 1, b has 1-3 plus 1. Nobody goes below 3.
    assert looks_damaged == (4, 4)
    assert reopened.looks("new-contract") == 1

    # The damaged bytes are kept for audit, exactly.
    side = tmp_path / event.details["damaged_file"]
    assert side.read_bytes() == b"".join(line + b"\n" for line in original[1:] if
                                         line != original[2])
    assert lines(tmp_path)[0] == original[0]

    nxt = record(reopened, "a", data="after")
    assert nxt.look == looks_damaged[0] + 1
    assert Ledger.open(tmp_path).ok


def test_an_altered_result_is_never_served_after_acknowledgement(tmp_path: Path) -> None:
    filled(tmp_path)
    alter_byte(tmp_path)  # line 4 = b's look 2, "unmet" edited to "met"
    damaged = Ledger.open(tmp_path)
    altered = data_hash({"cert": "d3"}, {"pred": "d3"}, RULE)
    assert damaged.stored_result("b", altered, RULE) is None
    damaged.acknowledge_damage()
    reopened = Ledger.open(tmp_path)
    assert reopened.ok
    assert reopened.looks("b") == 3 and reopened.looks("a") == 3
    assert reopened.stored_result("b", altered, RULE) is None
    assert reopened.last_look("b") is None  # its latest look lies in the damaged part
    assert all(e.line <= 4 for e in reopened.entries)


def test_a_deleted_last_line_keeps_its_look_after_acknowledgement(tmp_path: Path) -> None:
    filled(tmp_path)
    delete_last(tmp_path)  # b's look 3
    Ledger.open(tmp_path).acknowledge_damage()
    assert Ledger.open(tmp_path).looks("b") >= 3


def test_a_garbled_line_costs_every_contract_a_look(tmp_path: Path) -> None:
    filled(tmp_path, 4)  # a: lines 1, 3; b: lines 2, 4
    content = lines(tmp_path)
    content[3] = b"garbage"  # b's look 2 can no longer be read
    write_lines(tmp_path, content)
    Ledger.open(tmp_path).acknowledge_damage()
    ledger = Ledger.open(tmp_path)
    assert ledger.ok and ledger.unattributed == 1
    # Nothing says the line was b's: both are charged, so b keeps 2 and a pays one more.
    assert (ledger.looks("a"), ledger.looks("b")) == (3, 2)


def test_acknowledging_a_problem_not_shown_is_refused(tmp_path: Path) -> None:
    filled(tmp_path)
    delete_last(tmp_path)
    ledger = Ledger.open(tmp_path)
    with pytest.raises(LedgerDamagedError, match="names line 6"):
        ledger.acknowledge_damage("labeling/ledger.jsonl: something else")
    assert not Ledger.open(tmp_path).ok


def test_damage_after_an_acknowledgement_keeps_the_carried_looks(tmp_path: Path) -> None:
    filled(tmp_path)
    delete_middle(tmp_path)
    Ledger.open(tmp_path).acknowledge_damage()
    counted = (Ledger.open(tmp_path).looks("a"), Ledger.open(tmp_path).looks("b"))
    remove_head(tmp_path)  # now the acknowledgement line itself is unvouched
    Ledger.open(tmp_path).acknowledge_damage()
    ledger = Ledger.open(tmp_path)
    assert ledger.ok
    assert (ledger.looks("a"), ledger.looks("b")) == counted


# ------------------------------------------------------------------ atomic writes


def test_an_interrupted_write_leaves_the_old_ledger_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = filled(tmp_path, 3)
    before = ledger_file(tmp_path).read_bytes()
    head_before = head_file(tmp_path).read_bytes()

    def crash(*_: object) -> None:
        raise OSError("simulated power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="simulated"):
        record(ledger, "a", data="new")
    monkeypatch.undo()

    assert ledger_file(tmp_path).read_bytes() == before  # no half line under the name
    assert head_file(tmp_path).read_bytes() == head_before
    strays = [p.name for p in (tmp_path / "labeling").iterdir()] + [
        p.name for p in (tmp_path / ".accord").iterdir()]
    assert not [name for name in strays if name.endswith(".tmp")]
    reopened = Ledger.open(tmp_path)
    assert reopened.ok and reopened.looks("a") == 2


def test_a_crash_between_ledger_and_head_keeps_the_look_and_is_not_damage(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger line is the durable record; the head, one line behind, is rebuilt by
    the next write (issue 16, part 3). More in tests/core/test_ledger_crash.py."""
    ledger = filled(tmp_path, 3)
    real = os.replace
    old_head = head_file(tmp_path).read_bytes()

    def crash_on_head(source: Any, target: Any) -> None:
        if str(target).endswith("ledger-head"):
            raise OSError("simulated power cut")
        real(source, target)

    monkeypatch.setattr(os, "replace", crash_on_head)
    with pytest.raises(OSError, match="simulated"):
        record(ledger, "a", data="new")
    monkeypatch.undo()

    reopened = Ledger.open(tmp_path)
    assert reopened.ok and reopened.damage is None
    assert reopened.looks("a") == 3  # the interrupted look counts, once
    assert head_file(tmp_path).read_bytes() == old_head  # open never writes
    record(reopened, "b", data="after")
    assert head_file(tmp_path).read_text(encoding="ascii").startswith("5 ")
    assert Ledger.open(tmp_path).ok and Ledger.open(tmp_path).looks("a") == 3


def test_a_head_two_lines_behind_is_still_damage(tmp_path: Path) -> None:
    filled(tmp_path, 3)
    old_head = head_file(tmp_path).read_bytes()
    record(Ledger.open(tmp_path), "a", data="x")
    record(Ledger.open(tmp_path), "a", data="y")
    head_file(tmp_path).write_bytes(old_head)  # an older head copied back
    reopened = Ledger.open(tmp_path)
    assert reopened.damage is not None
    assert "has 5 lines but .accord/ledger-head names line 3 (2 lines ahead" in reopened.damage
