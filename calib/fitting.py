"""Fitting the temperature: minimise the mean NLL (or the mean Brier score) over T.

NLL is convex in the inverse temperature 1/T, hence unimodal in T on any
interval, which is what makes a golden-section search safe. The Brier score
is not convex in 1/T, so its search first locates the valley among
:data:`BRIER_PROBES` geometric probes and runs the golden-section search
between the lowest probe's neighbours.

Each probe of the search evaluates the NLL alone (no Brier, no confidence)
on rows prepared once (the row-max shift and the label's logit are taken
before the search starts), in one reusable work buffer per worker.
"""

import numpy as np

from .blocks import BLOCK_ELEMENTS, Workspace, block_shape
from .scaling import _grid_pass, _prepare, as_labels, as_logits, nll_grid, nll_over_rows
from .validation import check_choice, positive_int

__all__ = ["DEFAULT_BOUNDS", "DEFAULT_TOLERANCE", "BRIER_PROBES", "FIT_SCORES", "fit_temperature",
           "golden_section_minimise"]

DEFAULT_BOUNDS = (0.05, 10.0)  # search interval of the bounded fit (dimensionless temperatures)
DEFAULT_TOLERANCE = 1e-7       # width of the final golden-section bracket (same units as T)
BRIER_PROBES = 64              # geometric probes over the bounds that locate the Brier score's valley
FIT_SCORES = ("nll", "brier")  # the scores a temperature can be fitted to
_INV_PHI = (np.sqrt(5.0) - 1.0) / 2.0


def golden_section_minimise(objective, low, high, tolerance=DEFAULT_TOLERANCE):
    """Minimise a unimodal scalar function on [low, high] by golden-section search.

    Returns the midpoint of the final bracket, whose width is ≤ ``tolerance``
    (same units as the argument). Two interior probes split the bracket in the
    golden ratio; each step drops the outer part beyond the worse probe and
    reuses the surviving probe, so it costs one call of ``objective``.
    """
    bracket = [float(low), float(high)]
    width = bracket[1] - bracket[0]
    probes = [bracket[1] - _INV_PHI * width, bracket[0] + _INV_PHI * width]
    losses = [objective(probes[0]), objective(probes[1])]
    while bracket[1] - bracket[0] > tolerance:
        if losses[0] <= losses[1]:
            # minimum is left of the right probe: it becomes the bracket's upper end
            bracket[1] = probes[1]
            probes[1], losses[1] = probes[0], losses[0]
            probes[0] = bracket[1] - _INV_PHI * (bracket[1] - bracket[0])
            losses[0] = objective(probes[0])
        else:
            bracket[0] = probes[0]
            probes[0], losses[0] = probes[1], losses[1]
            probes[1] = bracket[0] + _INV_PHI * (bracket[1] - bracket[0])
            losses[1] = objective(probes[1])
    return float((bracket[0] + bracket[1]) / 2.0)


def fit_temperature(logits, labels, method="bounded", grid=None, bounds=DEFAULT_BOUNDS,
                    tolerance=DEFAULT_TOLERANCE, workers=1, score="nll"):
    """The temperature T (dimensionless, > 0) that minimises the mean ``score`` on (logits, labels).

    ``score`` is ``"nll"`` (the default: mean negative log-likelihood, nats) or
    ``"brier"`` (mean multiclass Brier score, :func:`calib.brier`).
    ``method="bounded"`` runs a golden-section search on T within ``bounds``
    down to a bracket of ``tolerance`` (default 1e-7, so the answer is within
    1e-7 of the bounded minimiser). NLL is convex in 1/T, so the search spans
    the whole interval; the Brier score need not be, so its search first takes
    the lowest of :data:`BRIER_PROBES` geometrically spaced probes of ``bounds``
    and searches between that probe's two neighbours (exact whenever the score
    has one valley there). ``method="grid"`` returns the point of ``grid`` (a
    1-D array of temperatures, required) with the smallest score (first on
    ties). ``workers`` threads share the rows of each probe (bounded) or the
    grid's temperatures (grid); the answer does not depend on it.

    >>> z = [[3, 1, 0], [2.5, 1, 0], [3, .5, 0], [1.5, 2, 0], [.5, 0, 1.5], [2, 2.2, 0]]
    >>> y = [0, 0, 1, 1, 2, 0]
    >>> round(fit_temperature(z, y), 5)
    1.22975
    >>> fit_temperature(z, y, method="grid", grid=[0.5, 1.0, 1.25, 2.0])
    1.25
    >>> round(fit_temperature(z, y, score="brier"), 4)
    0.4761
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    workers = positive_int(workers, "workers")
    score = check_choice(score, FIT_SCORES, "score")
    rows = _prepare(z, y)
    shape = z.shape
    del z  # the search reads only the shifted rows (with float32 logits, z was a float64 copy)
    if method == "bounded":
        low, high = bounds
        if not (0 < low < high and np.isfinite(high)):
            raise ValueError(f"bounds must satisfy 0 < low < high < inf; got {bounds!r}")
        if not (np.isfinite(tolerance) and tolerance > 0):
            raise ValueError(f"tolerance must be positive and finite; got {tolerance!r}")
        if score == "brier":
            return _fit_brier(rows, low, high, tolerance, workers)
        chunks = -(-shape[0] // block_shape(*shape, 1)[1])
        size = max(BLOCK_ELEMENTS, block_shape(*shape, 1)[1] * shape[1])
        workspaces = [Workspace(size, shape[1]) for _ in range(min(workers, chunks))]
        return golden_section_minimise(lambda t: nll_over_rows(rows, t, workspaces), low, high, tolerance)
    if method == "grid":
        if grid is None:
            raise ValueError("grid is required with method='grid': pass a 1-D array of temperatures")
        temps = np.asarray(grid, dtype=np.float64)
        if temps.ndim != 1 or temps.size == 0:
            raise ValueError("grid must be a non-empty 1-D array of temperatures")
        if not (np.all(np.isfinite(temps)) and np.all(temps > 0)):
            raise ValueError("grid: every temperature must be positive and finite")
        values = _brier_at(rows, temps, workers) if score == "brier" else nll_grid(rows, temps, workers)
        return float(temps[np.argmin(values)])
    raise ValueError(f"method must be 'bounded' or 'grid'; got {method!r}")


def _brier_at(rows, temps, workers):
    """Mean Brier score of prepared ``rows`` at each of ``temps`` (G,): (G,)."""
    return _grid_pass(rows, np.asarray(temps, dtype=np.float64), BLOCK_ELEMENTS, workers)[1]


def _fit_brier(rows, low, high, tolerance, workers):
    """Brier's bounded minimiser: the lowest of BRIER_PROBES geometric probes, refined between its neighbours."""
    probes = np.geomspace(low, high, BRIER_PROBES)
    best = int(np.argmin(_brier_at(rows, probes, workers)))
    lo, hi = probes[max(best - 1, 0)], probes[min(best + 1, probes.size - 1)]
    return golden_section_minimise(lambda t: float(_brier_at(rows, [t], workers)[0]), lo, hi, tolerance)
