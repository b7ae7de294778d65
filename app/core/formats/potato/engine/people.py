"""People who labelled in Potato's ``engine.sqlite``: annotators of the study like any other.

A Potato 2.12.1 labelling project may keep every human label in its engine database
(labels given through ``potato label``'s queue, its SDK, or the server, which copies each
save into the engine): there may be no ``user_state.json`` at all. Those people are the
project's annotators, and their agreement is computed and shown like anyone else's.
Potato's own agreement page (``/admin/iaa``, ``potato/server_utils/iaa/``) reads only the
server's user states (``user_state.json``) and never the engine, so on such a project it
finds no overlap items where Accord finds the engine's panels.

Which engine labels are a person's answer (Potato does not say; our choices):

- **Answered human requests of purpose** ``calibration``, ``certification`` **or**
  ``verify`` (status ``done``), the purposes Accord reads as Potato's calibration and
  verification labels. Other purposes (distribution, audit, resolve, adjudicate, gold,
  organic) are not read here, as the rest of Accord does not read them as labels.
- **Blind labels only.** A request Potato stored with ``visibility = 'shown'`` was
  answered seeing the machine's label (Potato's verification requests are shown unless
  ``humans.verify_visibility`` is ``blind``). A person who saw the machine's answer is not
  an independent rater: counting those labels would raise the people's agreement by the
  anchoring, so they are left out of agreement and counted in a note. Calibration and
  certification requests are always blind; a blind verification request counts.
- **One answer per person, item and scheme: the latest** (``completed_at``, then the
  request id), as Potato's method reads a person's label. The person is ``user_id``,
  else ``assigned_user``; a label with neither is counted and left out.
- **A person who also has a ``user_state.json`` answer for the same item and scheme
  keeps that answer**: it is what they last saved in Potato's interface (the server
  copies each save into the engine, so the two agree unless one was edited elsewhere)
  and what Potato's agreement page reads. Answers that differ are counted in a note;
  engine answers on items and schemes their ``user_state.json`` lacks are added.
- A label is read by :func:`app.core.formats.labeling.answers.to_answer`, the one reader
  of engine labels (the contracts read the same labels the same way); a label that is
  not an option of its scheme is the same error ``label status`` gives. On a free-form
  scheme (no options, no scale), which ``label status`` does not check, a label that is
  no answer Accord reads is counted in a note instead.

**A database that cannot be read** (damaged, of another Potato version, refused by the
boundary, being written) is not the same failure everywhere. When the annotation files
(``user_state.json``) hold at least one answer of a person (a machine rater's, whose
``origin`` says it is one, does not count), their agreement does not depend on the
engine: the study is read without the engine's people and carries a note naming the
database and what is wrong with it, so ``accord agreement`` still reports the files'
agreement (anyone who labelled only in the engine is missing from it, and the note says
so). When the files hold no person's answer, the engine may hold the only human labels:
then it is the error naming the file, as before. ``label status`` and the window of a
project with a configured engine still fail on such a database (the contracts need it).
A label that is not an option of its scheme is the same case (the engine's people cannot
be read).

Cost: one query on ``human_request`` (the ``status`` index), nothing per item of the
population; a project without human labels in its engine pays only the opening. The
database is read as :mod:`.store` reads it: in place and immutable when it is at
rest, else from a private copy with its WAL, never creating a file beside it; within one
open of a project that copy is made once and shared with the contracts' store
(:mod:`.copies`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.labeling.answers import to_answer
from app.core.formats.potato.engine.copies import at_rest_uri, private_copy, stamp
from app.core.formats.potato.engine.json_cells import stored_json
from app.core.formats.potato.engine.parallel import unreadable
from app.core.formats.potato.engine.records import (
    CALIBRATION_PURPOSES,
    VERIFICATION_PURPOSES,
)
from app.core.formats.potato.engine.store import _open, engine_database
from app.core.formats.potato.place import sys_intern
from app.core.formats.reading.database_file import at_rest
from app.core.model import Answer, Study

PURPOSES = CALIBRATION_PURPOSES | VERIFICATION_PURPOSES
NEEDED = ("id", "item_id", "schema_name", "purpose", "visibility", "status", "label_json",
          "user_id", "assigned_user", "completed_at")


@dataclass(slots=True)
class EnginePeople:
    """What the engine adds to a study, and what it left out (for the notes)."""

    answers: dict[str, dict[str, dict[str, Answer]]] = field(default_factory=dict)
    """scheme → item → person → answer (blind, latest)."""
    shown: int = 0
    nameless: int = 0
    outside: int = 0
    unread: int = 0
    """Labels of free-form schemes (no options, no scale) that are no answer Accord reads."""

    @property
    def people(self) -> frozenset[str]:
        return frozenset(p for by_item in self.answers.values()
                         for by in by_item.values() for p in by)


def read_engine_people(database: Path, study: Study) -> EnginePeople:
    """Every person's blind answers in ``database`` on the study's items and schemes."""
    out = EnginePeople()
    latest: dict[tuple[str, str, str], tuple[float, int, Any]] = {}
    for ident, item, schema, visibility, label, person, done_at in _rows(database):
        if visibility == "shown":
            out.shown += 1
            continue
        if not person:
            out.nameless += 1
            continue
        item, schema = str(item), str(schema)
        if item not in study.items or schema not in study.schemes:
            out.outside += 1
            continue
        key = (schema, item, str(person))
        stamp = (float(done_at) if isinstance(done_at, int | float) else float("-inf"),
                 int(ident), label)
        if key not in latest or stamp[:2] > latest[key][:2]:
            latest[key] = stamp
    for (schema, item, person), (_, ident, label) in sorted(latest.items()):
        value = stored_json(label)
        if value is None:
            continue
        scheme = study.schemes[schema]
        try:
            answer = to_answer(scheme, value)
        except InputError as exc:
            if not (scheme.labels or scheme.scale):  # as label status: not checked there
                out.unread += 1
                continue
            raise InputError(f"the label of request {ident} on item '{item}' by '{person}': "
                             f"{exc.problem}", file=database, key=schema) from None
        out.answers.setdefault(schema, {}).setdefault(sys_intern(item), {})[
            sys_intern(person)] = answer
    return out


def add_engine_people(study: Study, task_dir: Path, with_files: frozenset[str]) -> frozenset[str]:
    """Add the people of ``<task_dir>/engine.sqlite`` to ``study`` (answers and notes) and
    return every person who answered there. ``with_files``: the annotators read from
    ``user_state.json`` (their answers there are kept where both have one).

    A database that cannot be read fails the study only when the annotation files hold
    no answer of a person (the engine may hold the only human labels); otherwise it is a
    note and the files' agreement stands (see the module's docstring)."""
    try:
        database = engine_database(task_dir)
        if database is None:
            return frozenset()
        engine = read_engine_people(database, study)
    except InputError as error:
        if not _a_person_answered(study):
            raise
        study.notes.append(unread_note(error))
        return frozenset()
    differ = added_to_files = 0
    for schema, by_item in engine.answers.items():
        kept = study.answers.setdefault(schema, {})
        for item, by_person in by_item.items():
            row = kept.setdefault(item, {})
            for person, answer in by_person.items():
                if person in row:
                    differ += row[person] != answer
                    continue
                row[person] = answer
                added_to_files += person in with_files
    study.notes.extend(_notes(engine, with_files, differ, added_to_files))
    return engine.people


def _a_person_answered(study: Study) -> bool:
    """Whether the annotation files hold one answer of a person (not a machine rater):
    else the engine may hold the only human labels."""
    machines = study.machine_raters
    return any(person not in machines for by_item in study.answers.values()
               for row in by_item.values() for person in row)


def unread_note(error: InputError) -> str:
    """The note of a study whose annotation files were read and whose engine was not."""
    return (f"The people of Potato's labelling engine could not be read ({error}); the "
            "agreement is that of the annotation files (user_state.json) alone, and anyone "
            "who labelled only in the engine is missing from it.")


def _notes(engine: EnginePeople, with_files: frozenset[str], differ: int, added: int
           ) -> list[str]:
    notes = []
    only = sorted(engine.people - with_files)
    if only:
        names = ", ".join(only[:10]) + (f" and {len(only) - 10} more" if len(only) > 10 else "")
        notes.append(
            f"{len(only)} {'person' if len(only) == 1 else 'people'} labelled only in "
            f"Potato's labelling engine (engine.sqlite): {names}. Their answers are their "
            "blind calibration and verification labels, the latest per item and scheme. "
            "Potato's own agreement page (/admin/iaa) reads only user_state.json files "
            "and does not count them.")
    if added:
        notes.append(f"{_n(added, 'answer')} of people who also have a user_state.json "
                     f"{_was(added)} found only in engine.sqlite (given through Potato's "
                     "command line or engine) and added.")
    if differ:
        notes.append(f"{_n(differ, 'answer')} in engine.sqlite {_differ(differ)} from the "
                     "same person's answer in their user_state.json; the user_state.json "
                     "answer is kept (what they last saved in Potato's interface, and what "
                     "Potato's agreement page reads).")
    if engine.shown:
        notes.append(f"{_n(engine.shown, 'verification label')} in engine.sqlite "
                     f"{_was(engine.shown)} given seeing the machine's answer and "
                     f"{'is' if engine.shown == 1 else 'are'} not counted as people's "
                     "answers for agreement (a person who saw the machine's label is not an "
                     "independent rater); the contracts and the export read them as "
                     "before.")
    if engine.unread:
        notes.append(f"{_n(engine.unread, 'label')} in engine.sqlite on schemes without "
                     "options cannot be compared as answers and were left out.")
    if engine.outside:
        notes.append(f"{_n(engine.outside, 'label')} in engine.sqlite on items or schemes "
                     "that are not in the project's data files or config were left out.")
    if engine.nameless:
        notes.append(f"{_n(engine.nameless, 'answered request')} in engine.sqlite name no "
                     "person and are not counted as anyone's answers.")
    return notes


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _was(count: int) -> str:
    return "was" if count == 1 else "were"


def _differ(count: int) -> str:
    return "differs" if count == 1 else "differ"


# ------------------------------------------------------------------------- reading

_QUERY = (
    "SELECT id, item_id, schema_name, visibility, label_json,"
    " COALESCE(user_id, assigned_user), completed_at FROM human_request"
    " WHERE status = 'done' AND purpose IN ("
    + ", ".join(f"'{p}'" for p in sorted(PURPOSES)) + ") ORDER BY id")


def _rows(database: Path) -> list[tuple[Any, ...]]:
    """The answered requests, read in place when the database is at rest and did not
    change meanwhile, else from a private copy (as :mod:`.store` reads it)."""
    before = stamp(database)
    if at_rest(database):
        try:
            rows = _query(at_rest_uri(database), database)
        except InputError:
            if stamp(database) == before:
                raise  # the file did not change: a real problem, named
        else:
            if stamp(database) == before and at_rest(database):
                return rows
    with private_copy(database) as copy:
        return _query(str(copy), database)


def _query(location: str, shown: Path) -> list[tuple[Any, ...]]:
    try:
        db = _open(location)
    except sqlite3.DatabaseError as error:
        raise unreadable(shown, error) from None
    try:
        have = {row[1] for row in db.execute("PRAGMA table_info(human_request)")}
        missing = [c for c in NEEDED if c not in have]
        if missing:
            raise InputError(f"table 'human_request' has no column {', '.join(missing)}; "
                             "expected Potato 2.12's engine database", file=shown,
                             key="human_request")
        return db.execute(_QUERY).fetchall()
    except sqlite3.DatabaseError as error:
        raise unreadable(shown, error) from None
    finally:
        db.close()
