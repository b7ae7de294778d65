"""Agent-trace review logs (``accord import traces``, ``formats.md`` "Trace review log").

Format: JSON Lines, one reviewed trace a line, one file per reviewer::

    {"trace_id": 17, "task": "...", "tools": [...],
     "messages": [{"role": "system" | "user" | "assistant" | "tool", "id"?, "content",
                   "tool_calls"?: [{"id", "type", "function": {"name", "arguments"}}]}],
     "ratings": [{"step_id": "m4", "correctness"?, "reward"?, "verdict"?}],
     "outcome"?: "success" | "partial" | "failure"}

A **step** is an assistant message, identified by its ``id``; its index is its position
among the trace's assistant messages (0-based), the same for every reviewer. System,
user and tool messages are context.

Who is who: each SOURCE file is one reviewer (``--annotator`` in the same position, else
the file's stem). Items are traces, matched across reviewers by ``str(trace_id)``, in
the order they first appear; two reviewers' files must hold the same ``messages`` for a
trace.

What is written (units: none; steps by index): the item record holds ``text`` (the
``task``, else the first user message), ``steps`` (the assistant messages in the
support_triage demo's shape: ``{"id", "role", "content", "tool_calls": [{"id"?,
"name", "arguments"}]}``, the arguments' JSON string parsed where it is JSON), the
original ``messages`` as context and ``tools`` when given. One scheme per rating key
that appears in some file, each reading the steps under ``steps_key: steps``:
``correctness`` → ``trajectory_eval`` (``{"steps": [{"step_index", "correctness",
"error_type", "severity", "rationale"}]}``), ``reward`` → ``process_reward`` per step
with a neutral 0 (``{"steps": [{"index", "reward"}], "mode": "per_step"}``), ``verdict``
→ ``tool_call_review`` (``[{"index", "step", "tool", "verdict", "notes"}]``), and
``outcome`` → a ``radio`` scheme (success / partial / failure).

Where the spec is silent, chosen here:

- A key missing from a rating, or ``null``, means that step was not judged on that
  question: it is left out of the answer. A reviewer's trace gets an answer (perhaps
  with no judged step) on every step scheme of the study; ``outcome`` only when given.
- ``tool_call_review``'s ``index`` is the step index (the unit ``agreement.md`` compares
  and the row Accord's traces view draws). Potato's own form numbers its cards by tool
  call instead, so where a step makes no call or several, Potato would show a verdict
  against a different card; ``step`` holds the step index too and ``tool`` the step's
  first call.
- ``error_type``, ``severity`` and ``rationale`` in a rating go with its correctness,
  ``notes`` with its verdict; any other key is not imported (a note counts it).
- Bad input: a line that is not JSON or not a trace, a trace id twice in one file, two
  assistant messages with one id, a rating whose ``step_id`` is not an assistant message
  of that trace or that rates a step twice, a value outside the options above (reward
  1 / −1 / 0), or two files with different messages for one trace: an error naming the
  file and line (and the other file).
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedItem, ImportedScheme, ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.reading import nesting
from app.core.formats.reading.boundary import ANYWHERE, read_bytes

CORRECTNESS = ("correct", "incorrect", "partially_correct")
REWARDS = (1, -1, 0)
VERDICTS = ("correct", "wrong_args", "wrong_tool")
OUTCOMES = ("success", "partial", "failure")
STEP_KEYS = ("correctness", "reward", "verdict")
EXTRAS = {"correctness": ("error_type", "severity", "rationale"), "verdict": ("notes",)}
KNOWN_KEYS = frozenset({"step_id", *STEP_KEYS, *(k for v in EXTRAS.values() for k in v)})
STEPS_KEY = "steps"
SCHEMES: dict[str, tuple[str, dict[str, Any]]] = {
    "correctness": ("trajectory_eval", {
        "description": "Was each agent step correct?", "steps_key": STEPS_KEY,
        "step_text_key": "content", "correctness_options": list(CORRECTNESS),
        "show_score": False}),
    "reward": ("process_reward", {
        "description": "Did each agent step move the task forward (+1), back (-1), or "
                       "neither (0)?", "steps_key": STEPS_KEY, "step_text_key": "content",
        "mode": "per_step", "allow_neutral": True}),
    "verdict": ("tool_call_review", {
        "description": "Was each step's tool call right?", "steps_key": STEPS_KEY,
        "verdict_options": list(VERDICTS)}),
    "outcome": ("radio", {"description": "Did the agent do the task?",
                          "labels": list(OUTCOMES)}),
}
"""Rating key → (Potato annotation type, the scheme's config), in the order listed."""


@dataclass
class _Trace:
    id: str
    record: dict[str, Any]
    step_ids: dict[str, int]
    first_tools: dict[int, str]
    file: Path
    line: int


@dataclass
class _Review:
    ratings: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    """Step key → step index → the judged step's fields (label first)."""
    outcome: str | None = None


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    names = annotator_names(sources, annotators)
    traces: dict[str, _Trace] = {}
    reviews: dict[str, dict[str, _Review]] = {}
    seen_keys: set[str] = set()
    skipped: Counter[str] = Counter()
    for source, name in zip(sources, names, strict=True):
        reviews[name] = {}
        for line, raw in _lines(source):
            trace = _trace(raw, source, line)
            known = traces.setdefault(trace.id, trace)
            if known is not trace and known.record["messages"] != trace.record["messages"]:
                raise InputError(f"trace {trace.id}'s messages differ from those in "
                                 f"{known.file} (line {known.line}); expected every "
                                 "reviewer's file to hold the same trace", file=source,
                                 line=line, key="messages")
            if trace.id in reviews[name]:
                raise InputError(f"trace {trace.id} appears twice in this file; expected one "
                                 "line per reviewed trace", file=source, line=line,
                                 key="trace_id")
            reviews[name][trace.id] = _review(raw, trace, source, line, seen_keys, skipped)
    study = ImportedStudy(format="traces")
    for trace in traces.values():
        study.items[trace.id] = ImportedItem(trace.id, trace.record)
    present = [key for key in SCHEMES if key in seen_keys]
    for key in present:
        kind, config = SCHEMES[key]
        study.schemes.append(ImportedScheme(key, kind, _config(key, config, reviews)))
    for name, mine in reviews.items():
        study.answers[name] = {
            trace_id: _answers(review, traces[trace_id], present)
            for trace_id, review in mine.items()}
    if skipped:
        study.notes.append("rating keys not imported (no scheme for them): " + ", ".join(
            f"{k} ({n})" for k, n in sorted(skipped.items())) + ".")
    study.notes.append("Steps are the assistant messages (indexed 0, 1, ... among them); "
                       "system, user and tool messages are kept as context in each item's "
                       "'messages'.")
    return study


def _lines(source: Path) -> list[tuple[int, dict[str, Any]]]:
    if not source.is_file():
        raise InputError("expected a JSON Lines file of reviewed traces (one per reviewer)",
                         file=source)
    try:
        text = read_bytes(source, root=ANYWHERE).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot be read ({exc}); expected a JSON Lines file",
                         file=source) from None
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = nesting.loads(line, file=source, line=n)
        except json.JSONDecodeError as exc:
            raise InputError(f"is not valid JSON ({exc.msg}); expected one reviewed trace "
                             "per line", file=source, line=n) from None
        if not isinstance(raw, dict):
            raise InputError("expected a JSON object (one reviewed trace) on each line",
                             file=source, line=n)
        out.append((n, raw))
    return out


def _trace(raw: dict[str, Any], file: Path, line: int) -> _Trace:
    trace_id = raw.get("trace_id")
    if isinstance(trace_id, bool) or not isinstance(trace_id, int | str) or trace_id == "":
        raise InputError(f"trace_id is {trace_id!r}; expected a number or a name",
                         file=file, line=line, key="trace_id")
    messages = raw.get("messages")
    if not isinstance(messages, list) or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages):
        raise InputError("expected messages: a list of {role, content, ...} objects",
                         file=file, line=line, key="messages")
    steps: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    tools: dict[int, str] = {}
    for message in messages:
        if message["role"] != "assistant":
            continue
        index = len(steps)
        ident = message.get("id")
        named = isinstance(ident, int | str) and not isinstance(ident, bool) and ident != ""
        if named:
            if str(ident) in ids:
                raise InputError(f"two assistant messages of trace {trace_id} have the id "
                                 f"'{ident}'; expected each step's id to be unique",
                                 file=file, line=line, key="messages")
            ids[str(ident)] = index
        calls = _calls(message.get("tool_calls"))
        if calls:
            tools[index] = str(calls[0]["name"])
        steps.append({**({"id": str(ident)} if named else {}),
                      "role": "assistant", "content": _content(message.get("content")),
                      "tool_calls": calls})
    record: dict[str, Any] = {"text": _task(raw, messages), STEPS_KEY: steps,
                              "messages": messages}
    if raw.get("tools") is not None:
        record["tools"] = raw["tools"]
    return _Trace(str(trace_id), record, ids, tools, file, line)


def _task(raw: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    if isinstance(raw.get("task"), str):
        return str(raw["task"])
    first = next((m for m in messages if m["role"] == "user"), None)
    return _content(first.get("content")) if first else ""


def _content(content: Any) -> str:
    """A message's text: a string, the text parts of a list of parts, or ''."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p["text"]) for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _calls(raw: Any) -> list[dict[str, Any]]:
    """OpenAI tool calls as the demo's ``{"name", "arguments"}`` (arguments parsed)."""
    out = []
    for call in raw if isinstance(raw, list) else []:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        fn: dict[str, Any] = function if isinstance(function, dict) else call
        args = fn.get("arguments", {})
        if isinstance(args, str):  # else (not JSON) kept as the text the model wrote
            with contextlib.suppress(json.JSONDecodeError, InputError):
                args = nesting.loads(args, file=None) if args.strip() else {}
        entry = {"name": str(fn.get("name") or "?"), "arguments": args}
        out.append({"id": str(call["id"]), **entry} if call.get("id") is not None else entry)
    return out


def _review(raw: dict[str, Any], trace: _Trace, file: Path, line: int, seen_keys: set[str],
            skipped: Counter[str]) -> _Review:
    review = _Review({key: {} for key in STEP_KEYS})
    ratings = raw.get("ratings") or []
    if not isinstance(ratings, list):
        raise InputError("expected ratings: a list of {step_id, ...} objects", file=file,
                         line=line, key="ratings")
    rated: set[int] = set()
    for r, rating in enumerate(ratings):
        where = f"ratings[{r}]"
        if not isinstance(rating, dict):
            raise InputError("expected a rating object {step_id, ...}", file=file, line=line,
                             key=where)
        step = _step(rating.get("step_id"), trace, file, line, where)
        if step in rated:
            raise InputError(f"step '{rating['step_id']}' of trace {trace.id} is rated twice; "
                             "expected one rating per step", file=file, line=line, key=where)
        rated.add(step)
        for key in rating:
            if key in STEP_KEYS:
                seen_keys.add(key)
            elif key not in KNOWN_KEYS:
                skipped[key] += 1
        for key in STEP_KEYS:
            value = _value(key, rating.get(key), file, line, f"{where}.{key}")
            if value is not None:
                extras = {k: rating.get(k) for k in EXTRAS.get(key, ())}
                review.ratings[key][step] = {key: value, **extras}
    if "outcome" in raw:
        seen_keys.add("outcome")
        review.outcome = _value("outcome", raw["outcome"], file, line, "outcome")
    return review


def _step(step_id: Any, trace: _Trace, file: Path, line: int, where: str) -> int:
    key = str(step_id) if isinstance(step_id, int | str) and not isinstance(step_id, bool) \
        else None
    if key is None or key not in trace.step_ids:
        listed = ", ".join(trace.step_ids) or "none"
        raise InputError(f"step_id {step_id!r} is not an assistant message of trace "
                         f"{trace.id}; expected one of its assistant message ids ({listed})",
                         file=file, line=line, key=where)
    return trace.step_ids[key]


def _value(key: str, value: Any, file: Path, line: int, where: str) -> Any:
    """A rating value checked against its options (``None``: not judged)."""
    if value is None:
        return None
    if key == "reward":
        if isinstance(value, int | float) and not isinstance(value, bool) and value in REWARDS:
            return int(value)
        raise InputError(f"reward is {value!r}; expected 1, -1 or 0 (or null: not judged)",
                         file=file, line=line, key=where)
    options = {"correctness": CORRECTNESS, "verdict": VERDICTS, "outcome": OUTCOMES}[key]
    if value not in options:
        raise InputError(f"{key} is {value!r}; expected one of {', '.join(options)} (or null: "
                         "not judged)", file=file, line=line, key=where)
    return value


def _config(key: str, config: dict[str, Any], reviews: dict[str, dict[str, _Review]]
            ) -> dict[str, Any]:
    if key != "correctness":
        return dict(config)
    kinds = sorted({str(s["error_type"]) for mine in reviews.values() for r in mine.values()
                    for s in r.ratings["correctness"].values() if s.get("error_type")})
    return {**config, "error_types": kinds} if kinds else dict(config)


def _answers(review: _Review, trace: _Trace, present: list[str]) -> dict[str, Any]:
    """One reviewer's answers on one trace, in Potato's stored shapes (see the module)."""
    out: dict[str, Any] = {}
    judged = {key: sorted(review.ratings[key].items()) for key in STEP_KEYS}
    if "correctness" in present:
        out["correctness"] = {"steps": [
            {"step_index": i, "correctness": s["correctness"],
             "error_type": s.get("error_type"), "severity": s.get("severity"),
             "rationale": s.get("rationale") or ""} for i, s in judged["correctness"]],
            "score": None, "score_complete": False}
    if "reward" in present:
        out["reward"] = {"steps": [{"index": i, "reward": s["reward"]}
                                   for i, s in judged["reward"]], "mode": "per_step"}
    if "verdict" in present:
        out["verdict"] = [{"index": i, "step": i, "tool": trace.first_tools.get(i, ""),
                           "verdict": s["verdict"], "notes": s.get("notes") or ""}
                          for i, s in judged["verdict"]]
    if "outcome" in present and review.outcome is not None:
        out["outcome"] = review.outcome
    return out
