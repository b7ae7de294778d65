"""Each annotator's answers outside the annotation phase (prestudy and other survey pages).

What a ``distributional`` contract's ``groups_by`` names (``contracts.md``, "Agreeing with
Potato 2.12.1", item 7): Potato 2.12.1's server hands its engine these answers
(``integration/hooks.py``, ``user_attributes``), but its command line never does, so a
contract certified through ``potato label certify`` has no groups. Accord reads them
from ``annotation_output/<user>/user_state.json`` (``phase_to_page_to_label_to_value``)
and the status says so.

Rules, as Potato's server applies them: a phase whose name ends in ``annotation`` is
skipped; a choice question's answer is the chosen label's name (its value is true,
``"true"``, ``"on"`` or the name itself), any other answer its value as text; an empty,
false or missing value is no answer; the last page that answers a question wins.
Choices where Potato is silent for a file reader: an unreadable ``user_state.json`` is
skipped (the study reader already reported it), and both stored shapes of a page's
answers are read (a list of ``[label, value]`` pairs, as 2.12.1 writes them, and a
mapping from ``"schema:name"`` to value).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.potato.config import read_config
from app.core.formats.reading.json_file import read_json

STATE_FILE = "user_state.json"
_NO_ANSWER = (None, "", False, "false")
_CHOSEN = (True, "true", "on")


def _pairs(page: Any) -> Iterable[tuple[str, str, Any]]:
    """(schema, name, value) of one page's stored answers."""
    if isinstance(page, list):
        for pair in page:
            if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], Mapping):
                label = pair[0]
                yield str(label.get("schema")), str(label.get("name")), pair[1]
    elif isinstance(page, Mapping):
        for key, value in page.items():
            schema, _, name = str(key).partition(":")
            yield schema, name, value


def answers_of(state: Mapping[str, Any]) -> dict[str, str]:
    """One user's survey answers: question (scheme name) → answer."""
    out: dict[str, str] = {}
    phases = state.get("phase_to_page_to_label_to_value")
    if not isinstance(phases, Mapping):
        return out
    for phase, pages in phases.items():
        if str(phase).lower().endswith("annotation") or not isinstance(pages, Mapping):
            continue
        for page in pages.values():
            for schema, name, value in _pairs(page):
                if value in _NO_ANSWER:
                    continue
                out[schema] = name if value in _CHOSEN or value == name else str(value)
    return out


def prestudy_answers(project: Path, users: Iterable[str]) -> dict[str, dict[str, str]]:
    """``users``' survey answers (those with any), read from their ``user_state.json``."""
    config = read_config(project)
    out: dict[str, dict[str, str]] = {}
    for user in users:
        path = config.output_dir / user / STATE_FILE
        try:  # through the reader boundary: a link out of the project is not read
            state = read_json(path, root=config.root)
        except InputError:
            continue
        if isinstance(state, Mapping) and (found := answers_of(state)):
            out[user] = found
    return out
