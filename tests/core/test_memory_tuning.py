"""glibc's heap thresholds pinned by :func:`app.core.memory_tuning.tune_allocator`.

The effect is measured in fresh interpreters (the allocator's state is per process): a
loop that builds a few MB of 200 KB numpy temporaries and frees them all, as a block of
the cuboid IoU does. Untuned, glibc trims the heap's top after each round and the next
round page-faults it in again; tuned, the pages stay. The untuned run is the control:
it shows the loop does fault on this machine, so the tuned run's silence means something.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core import memory_tuning

ROOT = Path(__file__).resolve().parents[2]

_LOOP = """
import resource, sys
import numpy as np
if sys.argv[1] == "tuned":
    from app.core.memory_tuning import tune_allocator
    assert tune_allocator()
def round_():
    arrays = [np.ones(25_000) for _ in range(30)]  # 30 x 200 KB, touched
    del arrays
round_()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    round_()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


def _faults_per_round(mode: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", _LOOP, mode], capture_output=True, text=True,
                          check=True, cwd=ROOT, env=env)
    return float(done.stdout.strip())


@pytest.mark.skipif(not (sys.platform.startswith("linux")
                         and os.confstr("CS_GNU_LIBC_VERSION")), reason="glibc only")
def test_tuned_heap_keeps_its_pages() -> None:
    untuned = _faults_per_round("untuned")
    assert untuned > 500, "the control: 6 MB freed and touched again faults untuned"
    assert _faults_per_round("tuned") < 20


def test_elsewhere_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_tuning, "_done", [])
    monkeypatch.setattr(sys, "platform", "darwin")
    assert memory_tuning.tune_allocator() is False
    monkeypatch.setattr(sys, "platform", "darwin-again")
    assert memory_tuning.tune_allocator() is False, "the first answer stands"
