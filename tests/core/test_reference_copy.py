"""The vendored reference values are the spec's, whenever the spec is at hand."""

from __future__ import annotations

import json

import pytest

from tests.reference import VENDORED, spec_path


def test_reference_copy_is_current() -> None:
    spec = spec_path()
    if spec is None:
        pytest.skip("shared/spec is not beside this checkout; the vendored copy is used")
    assert json.loads(VENDORED.read_text()) == json.loads(spec.read_text()), (
        f"{spec} changed: copy it to {VENDORED} and rerun the reference tests")
