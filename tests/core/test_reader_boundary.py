"""Every targeted attack of issue 16 ends in exit 0 or a one-line exit 2, never worse.

Each attack edits a fresh copy of a real project (``tests/fuzzing/attacks.py``) and runs
``accord agreement P --json`` and ``accord label status P`` in this process. The promise
checked for each (``tests/fuzzing/runner.py``): no traceback, no warning, no hang, no
write to the project, and exit 2 only with one stderr line that names a file of the
project. Each attack also fixes the exit it must give: a link out of the project, a FIFO,
a device, nesting past 100 levels, an integer past 300 digits or a likert scale of a
billion points is refused (2); a cuboid of size 1e308 is read and left out as unusable (0).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InputError
from app.core.formats.reading import nesting
from tests.fuzzing.attacks import AGREEMENT, ATTACKS, STATUS, Attack
from tests.fuzzing.projects import REPO, copy_project
from tests.fuzzing.runner import check_project


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_is_refused_or_read_cleanly(tmp_path: Path, attack: Attack) -> None:
    if attack.needs_root and os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    project = copy_project(attack.project, tmp_path / "project")
    outside = tmp_path / "outside"
    outside.mkdir()
    attack.edit(project, outside)
    start = time.perf_counter()
    outcomes, problems = check_project(project, timeout=60)
    seconds = time.perf_counter() - start
    assert problems == []
    for command, outcome in zip((AGREEMENT, STATUS), outcomes, strict=True):
        allowed = attack.exits.get(command, frozenset({0, 2}))
        assert outcome.code in allowed, (command, outcome.code, outcome.stderr)
    assert seconds < 30, f"{attack.name} took {seconds:.1f} s"


def _agreement_json(tmp_path: Path, attack_name: str) -> dict[str, object]:
    attack = next(a for a in ATTACKS if a.name == attack_name)
    project = copy_project(attack.project, tmp_path / "project")
    attack.edit(project, tmp_path)
    outcomes, problems = check_project(project)
    assert problems == []
    assert outcomes[0].code == 0
    return json.loads(outcomes[0].stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "attack_name",
    ["cuboid size 1e308", "cuboid centre -1e308", "cuboid size NaN", "cuboid rotation -10^300"],
)
def test_overflowing_cuboid_is_counted_as_unusable(tmp_path: Path, attack_name: str) -> None:
    report = _agreement_json(tmp_path, attack_name)
    text = json.dumps(report)
    assert "left out for an unusable object" in text


def test_huge_mask_is_counted_as_unusable(tmp_path: Path) -> None:
    report = _agreement_json(tmp_path, "mask 1e6 x 1e6")
    assert "left out for an unusable object" in json.dumps(report)


def test_refusals_name_the_file_and_the_bound(tmp_path: Path) -> None:
    expected = {
        "user_state nested 1000 deep": ("user_state.json", "nested deeper than 100 levels"),
        "config.yaml nested 2000 deep": ("config.yaml", "nested deeper than 100 levels"),
        "user_state 5000-digit integer": ("user_state.json", "5,000 digits"),
        "likert size 1000000000": ("config.yaml", "1,000,000,000 points"),
        "user_state.json -> /dev/zero": ("user_state.json", "outside the project"),
        "user_state.json a FIFO": ("user_state.json", "FIFO"),
        "requests.jsonl a FIFO": ("requests.jsonl", "FIFO"),
        "output_annotation_dir of 300 characters": ("config.yaml", "at most 255 bytes"),
        "data file linked outside": ("data_files[0]", "leaves the project"),
    }
    for i, (name, (file, words)) in enumerate(expected.items()):
        attack = next(a for a in ATTACKS if a.name == name)
        project = copy_project(attack.project, tmp_path / str(i))
        outside = tmp_path / f"outside{i}"
        outside.mkdir()
        attack.edit(project, outside)
        outcomes, problems = check_project(project)
        assert problems == []
        command = 1 if STATUS in attack.exits and AGREEMENT not in attack.exits else 0
        line = outcomes[command].stderr.strip()
        assert file in line and words in line, (name, line)


@pytest.mark.parametrize(
    "attack_name", ["likert size 1001 (the bound)", "slider of 1001 positions (the bound)"]
)
def test_the_largest_scale_allowed_stays_small(tmp_path: Path, attack_name: str) -> None:
    """At the scale bound, ``accord agreement`` in its own process peaks well under 1 GB
    (measured 85 MB; 10,001 points, the bound before, took 4.6 GB)."""
    attack = next(a for a in ATTACKS if a.name == attack_name)
    project = copy_project(attack.project, tmp_path / "project")
    attack.edit(project, tmp_path)
    peak_file = tmp_path / "peak"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "ACCORD_PEAK_FILE": str(peak_file)}
    argv = [sys.executable, "-m", "tests.fuzzing.peak", "agreement", str(project), "--json"]
    done = subprocess.run(argv, capture_output=True, cwd=REPO, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    peak_kb = int(peak_file.read_text())
    assert 0 < peak_kb < 300 * 1024, f"{peak_kb // 1024} MB"


# ------------------------------------------------------------ the bounds, unit by unit

_text = st.text(alphabet='[]{}"\\\\/abc\n\t\u00e9', max_size=12)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=40,
)


def _depth_oracle(value: object) -> int:
    """Nesting depth by walking the parsed value (an empty list or object counts 1)."""
    if isinstance(value, list):
        return 1 + max((_depth_oracle(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth_oracle(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(_json_values, st.booleans())
def test_json_depth_matches_a_walk_of_the_parsed_value(value: object, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert nesting.json_depth(text) == _depth_oracle(value)
    assert nesting.json_depth(text.encode()) == _depth_oracle(value)
    assert nesting.deeper_than(text, 2) == (_depth_oracle(value) > 2)


def test_json_depth_on_hand_cases() -> None:
    assert nesting.json_depth("[[1], [[2]]]") == 3
    assert nesting.json_depth('["[[[[", "\\\\", "\\"[[["]') == 1
    assert nesting.json_depth('{"a": "}}}", "b": {"c": []}}') == 3
    assert nesting.json_depth("1") == 0
    assert not nesting.deeper_than("[" * 100 + "]" * 100)
    assert nesting.deeper_than("[" * 101 + "]" * 101)


def test_one_line_too_deep_is_found_among_many() -> None:
    shallow = b'{"a": {"b": [1, 2]}}\n' * 1000
    assert not nesting.some_line_may_nest_deeper(shallow)
    assert nesting.some_line_may_nest_deeper(shallow + b'{"a": ' * 101 + b"1" + b"}" * 101)
    assert not nesting.some_line_may_nest_deeper(b"{" * 60 + b"\n" + b"{" * 60)


def test_integers_are_bounded_at_300_digits() -> None:
    assert nesting.loads("[" + "9" * 300 + "]", file="f.json") == [int("9" * 300)]
    for text in ("1" * 301, "-" + "1" * 301, '{"a": [' + "7" * 5000 + "]}"):
        with pytest.raises(InputError, match="digits"):
            nesting.loads(text, file="f.json")
    assert nesting.loads('["' + "1" * 5000 + '"]', file="f.json") == ["1" * 5000]  # a string


def _yaml(text: str) -> object:
    loader = nesting.BoundedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def test_yaml_bounds() -> None:
    assert _yaml("a: [" + "[" * 98 + "1" + "]" * 98 + "]") is not None
    with pytest.raises(nesting.YAMLLimitError, match="nested deeper than 100"):
        _yaml("a: " + "[" * 101 + "1" + "]" * 101)
    with pytest.raises(nesting.YAMLLimitError, match="5,000 digits"):
        _yaml("a: 1" + "0" * 4999)
    small_aliases = "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n"
    assert _yaml(small_aliases) == {"a": [1, 2, 3], "b": [[1, 2, 3]] * 3}
    laughs = ['l0: &l0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    laughs += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 7)]
    with pytest.raises(nesting.YAMLLimitError, match="expands to more than"):
        _yaml("\n".join(laughs))


def test_yaml_aliases_cannot_nest_deeper_than_the_bound() -> None:
    """Each anchor is 90 deep, within the bound; each one holds the previous by alias, so
    once constructed they nest 90, 180, 270 … deep: refused before construction."""
    chain = "a: &a " + "[" * 90 + "1" + "]" * 90 + "\n"
    chain += "".join(
        f"{c}: &{c} {'[' * 90}*{p}{']' * 90}\n" for p, c in zip("abcd", "bcde", strict=True)
    )
    with pytest.raises(nesting.YAMLLimitError, match="once its aliases are followed"):
        _yaml(chain)
