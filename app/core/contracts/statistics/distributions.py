"""The four distribution functions the contracts use, without importing ``scipy.stats``.

``import scipy.stats`` costs about 0.6 s (its whole catalogue of distributions, each
with its documentation built at import), a third of ``accord label status``'s imports;
the contracts need four functions of it. Each one here calls the very ``scipy.special``
function that ``scipy.stats`` evaluates for it, so the results are bit-identical
(checked on random inputs in ``tests/core/test_distributions.py``):

- :func:`binom_cdf`: ``scipy.stats.binom.cdf`` evaluates ``_binom_cdf`` (Boost) at the
  floored count inside the support, 0 below it and 1 at ``n`` and above;
- :func:`beta_ppf`: ``scipy.stats.beta.ppf`` evaluates ``_beta_ppf`` (Boost) for
  ``0 < q < 1``;
- :func:`norm_ppf`: ``scipy.stats.norm.ppf`` is ``ndtri``;
- :func:`t_cdf`: ``scipy.stats.t.cdf`` is ``stdtr(df, t)``.

``_binom_cdf`` and ``_beta_ppf`` are private names of ``scipy.special``: a scipy without
them falls back to ``scipy.stats`` (slower to import, same numbers), as do arguments
outside the range handled here (``beta_ppf`` at ``q`` 0 or 1), so behaviour never
depends on the shortcut.

**Loading the kernels.** ``import scipy.special`` costs about 0.3 s of interpreter time
(its ``__init__`` loads scipy's array-API layer, which clones numpy's namespace and so
imports ``numpy.f2py``, ``numpy.testing`` and more): a sixth of a 100,000-item
``label status``. The kernels themselves are compiled modules that load in about 10 ms.
When this is the process's only thread (the command line), :func:`kernels` loads
``scipy.special._ufuncs`` under its own name with ``scipy.special`` standing in
sys.modules as a bare package (its spec, its path, its ``__init__`` not run) for that
moment, then removes the stand-in: the same compiled functions, and a later
``import scipy.special`` runs the package's ``__init__`` as usual and finds them loaded.
With other threads alive (the GUI's pool), one of them could import ``scipy.special``
during that moment and get the stand-in, so the package is imported as usual (on a
thread of its own, :func:`import_in_background`, while SQLite reads). Either way is
the same code; if the short way fails, nothing it loaded is kept and the usual import
runs.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import math
import sys
import threading
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

Numbers = float | int | npt.NDArray[Any]
_SCALARS = (int, float)


def binom_cdf(k: Numbers, n: Numbers, p: Numbers) -> Any:
    """``P(Binomial(n, p) ≤ k)``, as ``scipy.stats.binom.cdf`` (scalar or array)."""
    _binom_cdf, _ = _boost()
    if _binom_cdf is None:  # pragma: no cover
        from scipy import stats

        return stats.binom.cdf(k, n, p)
    if type(k) in _SCALARS and type(n) is int and type(p) in _SCALARS and math.isfinite(k) \
            and n >= 0 and 0.0 <= p <= 1.0:
        # One count (the sequential tests ask tens of thousands of these in a row): the
        # same ufunc on the same float64 arguments, without the array masks (about
        # 30 µs a call) around it.
        floor = math.floor(k)
        if floor >= n:
            return np.float64(1.0)
        if floor < 0:
            return np.float64(0.0)
        return _binom_cdf(float(floor), n, float(p))
    kf = np.floor(np.asarray(k, dtype=np.float64))
    nn = np.asarray(n)
    pp = np.asarray(p, dtype=np.float64)
    # scipy answers NaN outside the distribution's parameters (n a count, 0 <= p <= 1)
    # and for a NaN count, whatever the count's place.
    undefined = np.isnan(kf) | ~((nn >= 0) & (nn == np.floor(nn)) & (pp >= 0) & (pp <= 1))
    inside = (kf >= 0) & (kf < nn) & ~undefined
    out = np.where(undefined, np.nan, np.where(kf >= nn, 1.0, 0.0))
    if np.any(inside):
        value = _binom_cdf(np.where(inside, kf, 0.0), nn, pp)
        out = np.where(inside, value, out)
    return out[()] if out.ndim == 0 else out


def beta_ppf(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of Beta(a, b), as ``scipy.stats.beta.ppf`` (a, b > 0)."""
    _, _beta_ppf = _boost()
    if _beta_ppf is None or not 0.0 < q < 1.0 or not (a > 0 and b > 0):
        from scipy import stats

        return float(stats.beta.ppf(q, a, b))
    return float(_beta_ppf(q, a, b))


def norm_ppf(q: float) -> float:
    """The standard normal quantile, as ``scipy.stats.norm.ppf``."""
    return float(kernels().ndtri(q))


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function, as ``scipy.stats.t.cdf``."""
    return float(kernels().stdtr(df, t))


def import_in_background() -> None:
    """Have the kernels ready for a caller that will evaluate contracts after reading a
    project. Alone in the process they load now (about 10 ms, :func:`kernels`);
    otherwise ``scipy.special`` is imported on a thread of its own (about 0.3 s), which
    then runs while SQLite reads and lets go of the interpreter lock. The first call
    waits for it if it is not done (Python's import lock), and a failure there is raised
    by that call's own import, as without this."""
    if sys.modules.get(_UFUNCS) is not None:
        return  # loaded already
    if _alone():
        kernels()
        return

    def load() -> None:
        with contextlib.suppress(ImportError):  # the caller's own import says why
            import scipy.special._ufuncs  # noqa: F401
    threading.Thread(target=load, name="accord-import-scipy", daemon=True).start()


_UFUNCS = "scipy.special._ufuncs"


def kernels() -> ModuleType:
    """``scipy.special._ufuncs``, the compiled module holding every kernel used here,
    loaded without the package's ``__init__`` when that is safe (module docstring)."""
    loaded = sys.modules.get(_UFUNCS)
    if loaded is not None:
        return loaded
    if "scipy.special" not in sys.modules and _alone():
        quick = _load_without_package_init()
        if quick is not None:
            return quick
    return importlib.import_module(_UFUNCS)


def _alone() -> bool:
    """This is the main thread and no other Python thread is alive."""
    return threading.current_thread() is threading.main_thread() \
        and threading.active_count() == 1


def _load_without_package_init() -> ModuleType | None:
    """:data:`_UFUNCS` imported with a bare ``scipy.special`` standing in for the package
    (``None``, and nothing kept, if that does not work with this scipy)."""
    before = set(sys.modules)
    try:
        spec = importlib.util.find_spec("scipy.special")
        if spec is None or spec.submodule_search_locations is None:
            return None
        sys.modules["scipy.special"] = importlib.util.module_from_spec(spec)
        try:
            module = importlib.import_module(_UFUNCS)
        finally:
            del sys.modules["scipy.special"]
    except Exception:  # any failure: forget it all, import as usual
        for name in set(sys.modules) - before:
            if name.startswith("scipy.special"):
                del sys.modules[name]
        return None
    return module


@functools.cache
def _boost() -> tuple[Any, Any]:
    """``(_binom_cdf, _beta_ppf)`` from ``scipy.special``, or ``None`` each where absent."""
    try:
        ufuncs = kernels()
    except ImportError:  # pragma: no cover - no scipy.special at all
        return None, None
    return getattr(ufuncs, "_binom_cdf", None), getattr(ufuncs, "_beta_ppf", None)
