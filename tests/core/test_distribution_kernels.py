"""How ``distributions.kernels`` loads scipy's compiled kernels (its module docstring).

Alone in a process, ``scipy.special._ufuncs`` is loaded without running
``scipy.special``'s ``__init__`` (about 0.3 s of imports); with another thread alive the
package is imported as usual; a short way that fails leaves nothing behind. Each case
runs in a fresh interpreter, since the point is what a process has imported.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_alone_the_kernels_load_without_the_package_and_the_package_still_imports() -> None:
    out = _run("""
        import sys
        from app.core.contracts.statistics import distributions as d
        values = (float(d.binom_cdf(3, 10, 0.4)), d.norm_ppf(0.975), d.t_cdf(1.3, 5),
                  d.beta_ppf(0.3, 2, 3))
        assert "scipy.special" not in sys.modules, "the package's __init__ ran"
        assert "numpy.f2py" not in sys.modules
        import scipy.special
        from scipy.special import ndtri
        from scipy import stats
        assert scipy.special._ufuncs is d.kernels() and ndtri is d.kernels().ndtri
        assert values == (float(stats.binom.cdf(3, 10, 0.4)), float(stats.norm.ppf(0.975)),
                          float(stats.t.cdf(1.3, 5)), float(stats.beta.ppf(0.3, 2, 3)))
        print("ok")
    """)
    assert out == "ok"


def test_with_another_thread_alive_the_package_is_imported_as_usual() -> None:
    out = _run("""
        import sys, threading
        from app.core.contracts.statistics import distributions as d
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            d.kernels()
        finally:
            stop.set()
            other.join()
        print("scipy.special" in sys.modules)
    """)
    assert out == "True"


def test_a_short_way_that_fails_keeps_nothing_and_imports_as_usual() -> None:
    out = _run("""
        import importlib, sys
        from app.core.contracts.statistics import distributions as d
        real = importlib.import_module
        def failing(name, *args):  # its compiled modules load, then it fails
            real("scipy.special._special_ufuncs")
            raise ImportError("a scipy this was not made for")
        d.importlib.import_module = failing
        assert d._load_without_package_init() is None
        left = [m for m in sys.modules if m.startswith("scipy.special")]
        d.importlib.import_module = real
        kernels = d.kernels()
        import scipy.special
        print(left, kernels is scipy.special._ufuncs)
    """)
    assert out == "[] True"
