"""The targeted attacks of issue 16, each a named edit of a copied real project.

Each :class:`Attack` names the project it starts from, the edit, and the exit each
command must give (``{2}``: refused with one line naming a file; ``{0}``: read, with
the bad object counted). ``tests/core/test_reader_boundary.py`` runs every one;
``scripts/fuzz`` runs them too, before its random mutations.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.fuzzing.projects import (
    Raw,
    deep_json,
    edit_json,
    edit_json_line,
    first_annotator_state,
    int_digits,
    set_structured,
)

AGREEMENT = "agreement"
STATUS = "label status"


@dataclass(frozen=True)
class Attack:
    name: str
    project: str
    edit: Callable[[Path, Path], None]
    """``edit(project copy, a scratch folder outside it)``."""
    exits: dict[str, frozenset[int]]
    """Command → the exits allowed (a command not named may exit 0 or 2)."""
    needs_root: bool = False


def _both(*codes: int) -> dict[str, frozenset[int]]:
    return {AGREEMENT: frozenset(codes), STATUS: frozenset(codes)}


def _config(project: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = project / "config.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")


def _append_config(project: Path, text: str) -> None:
    with (project / "config.yaml").open("a", encoding="utf-8") as handle:
        handle.write("\n" + text + "\n")


def _scheme(raw: dict[str, Any], annotation_type: str) -> dict[str, Any]:
    schemes = raw["annotation_schemes"]
    return next(s for s in schemes if s["annotation_type"] == annotation_type)


def _set_key(key: str, value: Any) -> Callable[[Any], Any]:
    def change(obj: Any) -> Any:
        obj[key] = value
        return obj

    return change


def _link_outside(relative: str) -> Callable[[Path, Path], None]:
    """Move a file out of the project and leave a link to it in its place."""

    def edit(project: Path, outside: Path) -> None:
        path = project / relative if "*" not in relative else sorted(project.glob(relative))[0]
        target = outside / path.name
        path.replace(target)
        path.symlink_to(target)

    return edit


def _link_to(relative: str, target: str) -> Callable[[Path, Path], None]:
    def edit(project: Path, outside: Path) -> None:
        path = project / relative if "*" not in relative else sorted(project.glob(relative))[0]
        path.unlink()
        path.symlink_to(target)

    return edit


def _fifo(relative: str) -> Callable[[Path, Path], None]:
    def edit(project: Path, outside: Path) -> None:
        path = project / relative if "*" not in relative else sorted(project.glob(relative))[0]
        path.unlink()
        os.mkfifo(path)

    return edit


def _device(relative: str) -> Callable[[Path, Path], None]:
    def edit(project: Path, outside: Path) -> None:
        path = project / relative
        path.unlink()
        os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero's numbers

    return edit


def _socket(relative: str) -> Callable[[Path, Path], None]:
    def edit(project: Path, outside: Path) -> None:
        path = project / relative
        path.unlink()
        here = Path.cwd()
        os.chdir(path.parent)  # a socket's path must be short: bind by its bare name
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.bind(path.name)
        finally:
            os.chdir(here)

    return edit


def _sparse(relative: str, size: int) -> Callable[[Path, Path], None]:
    def edit(project: Path, outside: Path) -> None:
        path = project / relative if "*" not in relative else sorted(project.glob(relative))[0]
        with path.open("r+b") as handle:
            handle.truncate(size)

    return edit


def _state(change: Callable[[Any], Any]) -> Callable[[Path, Path], None]:
    return lambda project, outside: edit_json(first_annotator_state(project), change)


def _line(relative: str, change: Callable[[Any], Any]) -> Callable[[Path, Path], None]:
    def edit(project: Path, outside: Path) -> None:
        path = sorted(project.glob(relative))[0]
        edit_json_line(path, 0, change)

    return edit


def _cuboid(key: str, value: Any) -> Callable[[Any], Any]:
    def change(shapes: Any) -> Any:
        shapes[0]["coordinates"][key] = value
        return shapes

    return change


def _likert(size: Any) -> Callable[[Path, Path], None]:
    return lambda project, outside: _config(
        project, lambda raw: _scheme(raw, "likert").__setitem__("size", size)
    )


def _slider(**values: Any) -> Callable[[Path, Path], None]:
    return lambda project, outside: _config(
        project, lambda raw: _scheme(raw, "slider").update(values)
    )


def _mask_size(h: int, w: int) -> Callable[[Path, Path], None]:
    def shape(shapes: Any) -> Any:
        shapes = shapes if isinstance(shapes, list) else shapes.get("annotations", shapes)
        shapes[0] = {"type": "mask", "label": "x", "rle": {"size": [h, w], "counts": [h * w]}}
        return shapes

    return _state(lambda state: set_structured(state, shape))


def _head_with_newline(project: Path, outside: Path) -> None:
    (project / ".accord" / "ledger-head").write_bytes(b"4 20482\nde35\x00ea")


def _billion_laughs(project: Path, outside: Path) -> None:
    lines = ['lol0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 9):
        refs = ", ".join([f"*l{i - 1}"] * 9)
        lines.append(f"lol{i}: &l{i} [{refs}]")
    _append_config(project, "\n".join(lines))


ATTACKS: tuple[Attack, ...] = (
    # nesting, at every place the issue found it
    Attack(
        "user_state nested 1000 deep",
        "sentiment_reviews",
        _state(_set_key("deep", deep_json(1000))),
        _both(2),
    ),
    Attack(
        "user_state nested 1000 deep (objects)",
        "sentiment_reviews",
        _state(_set_key("deep", deep_json(1000, "object"))),
        _both(2),
    ),
    Attack(
        "user_state nested 101 deep",
        "sentiment_reviews",
        _state(_set_key("deep", deep_json(101))),
        _both(2),
    ),
    Attack(
        "structured answer nested 1000 deep",
        "lidar_sweeps",
        _state(lambda s: set_structured(s, lambda v: deep_json(1000))),
        {AGREEMENT: frozenset({2})},
    ),
    Attack(
        "data file nested 1000 deep",
        "sentiment_reviews",
        _line("data/*.jsonl", _set_key("extra", deep_json(1000))),
        _both(2),
    ),
    Attack(
        "requests.jsonl nested 1000 deep",
        "sentiment_reviews",
        _line("labeling/requests.jsonl", _set_key("extra", deep_json(1000))),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "predictions.jsonl nested 1000 deep",
        "sentiment_reviews",
        _line("labeling/predictions.jsonl", _set_key("extra", deep_json(1000))),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "config.yaml nested 2000 deep",
        "sentiment_reviews",
        lambda p, o: _append_config(p, "deep: " + "[" * 2000 + "1" + "]" * 2000),
        _both(2),
    ),
    Attack(
        "config.yaml nested 2000 deep (block mappings)",
        "sentiment_reviews",
        lambda p, o: _append_config(
            p, "deep:\n" + "".join(" " * i + "a:\n" for i in range(1, 2000)) + " " * 2000 + "b: 1"
        ),
        _both(2),
    ),
    Attack("config.yaml billion laughs", "sentiment_reviews", _billion_laughs, _both(2)),
    Attack(
        "config.yaml with a control character",
        "potato_reviews",
        lambda p, o: _append_config(p, "note: a\x01b"),
        _both(2),
    ),
    # numbers
    Attack(
        "config.yaml 5000-digit integer",
        "sentiment_reviews",
        lambda p, o: _append_config(p, "big: 1" + "0" * 4999),
        _both(2),
    ),
    Attack("likert size 10^400", "support_triage", _likert(10**400), _both(2)),
    Attack(
        "slider max 10^400",
        "categorical",
        lambda p, o: _config(
            p, lambda raw: raw["annotation_schemes"][-1].__setitem__("max_value", 10**400)
        ),
        _both(2),
    ),
    Attack(
        "cuboid rotation -10^400",
        "lidar_sweeps",
        _state(lambda s: set_structured(s, _cuboid("rotation", [int_digits(401, True), 0, 0, 1]))),
        {AGREEMENT: frozenset({2})},
    ),
    Attack(
        "cuboid rotation -10^300",
        "lidar_sweeps",
        _state(lambda s: set_structured(s, _cuboid("rotation", [int_digits(300, True), 0, 0, 1]))),
        {AGREEMENT: frozenset({0})},
    ),
    Attack(
        "user_state 5000-digit integer",
        "sentiment_reviews",
        _state(_set_key("big", int_digits(5000))),
        _both(2),
    ),
    Attack(
        "data file 5000-digit integer",
        "sentiment_reviews",
        _line("data/*.jsonl", _set_key("big", int_digits(5000))),
        _both(2),
    ),
    Attack(
        "requests.jsonl 5000-digit pi",
        "sentiment_reviews",
        _line("labeling/requests.jsonl", _set_key("pi", int_digits(5000))),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "cuboid size 1e308",
        "lidar_sweeps",
        _state(lambda s: set_structured(s, _cuboid("size", [Raw("1e308")] * 3))),
        {AGREEMENT: frozenset({0})},
    ),
    Attack(
        "cuboid centre -1e308",
        "lidar_sweeps",
        _state(lambda s: set_structured(s, _cuboid("center", [Raw("-1e308"), 0, 0]))),
        {AGREEMENT: frozenset({0})},
    ),
    Attack(
        "cuboid size NaN",
        "lidar_sweeps",
        _state(lambda s: set_structured(s, _cuboid("size", [Raw("NaN"), 1, 1]))),
        {AGREEMENT: frozenset({0})},
    ),
    Attack(
        "cuboid size Infinity",
        "lidar_sweeps",
        _state(lambda s: set_structured(s, _cuboid("size", [Raw("Infinity"), 1, 1]))),
        {AGREEMENT: frozenset({0})},
    ),
    # declared sizes that drive allocation
    Attack("likert size 1000000000", "support_triage", _likert(1_000_000_000), _both(2)),
    Attack(
        "likert size 1001 (the bound)", "support_triage", _likert(1001), {AGREEMENT: frozenset({0})}
    ),
    Attack("likert size 1002", "support_triage", _likert(1002), _both(2)),
    Attack(
        "slider of 1001 positions (the bound)",
        "categorical",
        _slider(min_value=0, max_value=1000),
        {AGREEMENT: frozenset({0})},
    ),
    Attack(
        "slider of 1002 positions", "categorical", _slider(min_value=0, max_value=1001), _both(2)
    ),
    Attack("likert size 10000000", "support_triage", _likert(10_000_000), _both(2)),
    Attack("slider max 1e308", "categorical", _slider(min_value=-1e308, max_value=1e308), _both(2)),
    Attack("slider step 1e-300", "categorical", _slider(step=1e-300), _both(2)),
    Attack(
        "mask 1e6 x 1e6", "images", _mask_size(1_000_000, 1_000_000), {AGREEMENT: frozenset({0})}
    ),
    Attack(
        "output_annotation_dir of 300 characters",
        "sentiment_reviews",
        lambda p, o: _config(p, lambda raw: raw.__setitem__("output_annotation_dir", "a" * 300)),
        _both(2),
    ),
    # found by scripts/fuzz (each a traceback before its fix)
    Attack(
        "display field whose type is a mapping",
        "people_photos",
        lambda p, o: _config(
            p, lambda raw: raw["instance_display"]["fields"][0].__setitem__("type", {"a": 1})
        ),
        _both(0, 2),
    ),
    Attack(
        "engine.sqlite label no longer an option",
        "potato_reviews",
        lambda p, o: _config(
            p, lambda raw: raw["annotation_schemes"][0].__setitem__("labels", ["positive", "x"])
        ),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "engine.sqlite-wal removed",
        "server_engine",
        lambda p, o: (p / "engine.sqlite-wal").unlink(),
        _both(0, 2),
    ),
    # links and special files
    Attack(
        "user_state.json -> /dev/zero",
        "sentiment_reviews",
        _link_to("annotation_output/*/user_state.json", "/dev/zero"),
        _both(2),
    ),
    Attack(
        "user_state.json linked outside",
        "sentiment_reviews",
        _link_outside("annotation_output/*/user_state.json"),
        _both(2),
    ),
    Attack(
        "user_state.json a FIFO",
        "sentiment_reviews",
        _fifo("annotation_output/*/user_state.json"),
        _both(2),
    ),
    Attack(
        "user_state.json of 600 MB (sparse)",
        "sentiment_reviews",
        _sparse("annotation_output/*/user_state.json", 600 * 1024 * 1024),
        _both(2),
    ),
    Attack(
        "requests.jsonl a FIFO",
        "sentiment_reviews",
        _fifo("labeling/requests.jsonl"),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "requests.jsonl a device",
        "sentiment_reviews",
        _device("labeling/requests.jsonl"),
        {STATUS: frozenset({2})},
        needs_root=True,
    ),
    Attack(
        "requests.jsonl a socket",
        "sentiment_reviews",
        _socket("labeling/requests.jsonl"),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "requests.jsonl -> /dev/null",
        "sentiment_reviews",
        _link_to("labeling/requests.jsonl", "/dev/null"),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "requests.jsonl linked outside",
        "sentiment_reviews",
        _link_outside("labeling/requests.jsonl"),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "predictions.jsonl linked outside",
        "sentiment_reviews",
        _link_outside("labeling/predictions.jsonl"),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "data file linked outside",
        "sentiment_reviews",
        _link_outside("data/reviews.jsonl"),
        _both(2),
    ),
    Attack("data file a FIFO", "sentiment_reviews", _fifo("data/reviews.jsonl"), _both(2)),
    Attack("config.yaml a FIFO", "sentiment_reviews", _fifo("config.yaml"), _both(2)),
    Attack(
        "config.yaml linked outside", "sentiment_reviews", _link_outside("config.yaml"), _both(2)
    ),
    Attack(
        "config.yaml a link loop",
        "sentiment_reviews",
        _link_to("config.yaml", "config.yaml"),
        _both(2),
    ),
    Attack(
        "engine.sqlite a FIFO", "potato_reviews", _fifo("engine.sqlite"), {STATUS: frozenset({2})}
    ),
    Attack(
        "engine.sqlite linked outside",
        "potato_reviews",
        _link_outside("engine.sqlite"),
        {STATUS: frozenset({2})},
    ),
    Attack(
        "ledger.jsonl a FIFO",
        "certified:sentiment_reviews",
        _fifo("labeling/ledger.jsonl"),
        {STATUS: frozenset({1, 2})},
    ),
    Attack(
        "ledger-head a FIFO",
        "certified:sentiment_reviews",
        _fifo(".accord/ledger-head"),
        {STATUS: frozenset({1, 2})},
    ),
    Attack(
        "ledger.lock a FIFO",
        "certified:sentiment_reviews",
        _fifo(".accord/ledger.lock"),
        {STATUS: frozenset({0})},
    ),
    Attack(
        "certify.lock a FIFO",
        "certified:sentiment_reviews",
        _fifo(".accord/certify.lock"),
        {STATUS: frozenset({0})},
    ),
    Attack(
        "ledger-head holding a newline and a NUL",
        "certified:sentiment_reviews",
        _head_with_newline,
        {STATUS: frozenset({1})},
    ),
    Attack(
        "ledger.jsonl linked outside",
        "certified:sentiment_reviews",
        _link_outside("labeling/ledger.jsonl"),
        {STATUS: frozenset({1, 2})},
    ),
    Attack(
        "ledger.jsonl -> /dev/zero",
        "certified:sentiment_reviews",
        _link_to("labeling/ledger.jsonl", "/dev/zero"),
        {STATUS: frozenset({1, 2})},
    ),
    Attack(
        "ledger.jsonl nested 1000 deep",
        "certified:sentiment_reviews",
        _line("labeling/ledger.jsonl", _set_key("extra", deep_json(1000))),
        {STATUS: frozenset({1, 2})},
    ),
    Attack(
        "ledger.jsonl 5000-digit integer",
        "certified:sentiment_reviews",
        _line("labeling/ledger.jsonl", _set_key("extra", int_digits(5000))),
        {STATUS: frozenset({1, 2})},
    ),
    Attack("image a FIFO", "people_photos", _fifo("images/photo_001.png"), _both(2)),
    Attack(
        "image: ../../../../etc/passwd",
        "people_photos",
        _line("data/*.jsonl", _set_key("image", "../../../../etc/passwd")),
        _both(2),
    ),
    Attack(
        "image: /etc/passwd",
        "street_images",
        _line("data/*.jsonl", _set_key("image", "/etc/passwd")),
        _both(2),
    ),
    Attack(
        "point cloud linked outside",
        "lidar_sweeps",
        _link_outside("clouds/sweep_001.npy"),
        _both(2),
    ),
)
