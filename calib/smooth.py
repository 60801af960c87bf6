"""Smooth ECE and the kernel-smoothed reliability curve (Błasiok & Nakkiran, 2023).

Binning chops the confidence axis at arbitrary places. The smooth ECE
replaces the bins with a Gaussian kernel of bandwidth σ (probability units):

* the smoothed residual ``r̂(t) = Σ_i K_σ(t, f_i)(f_i − y_i) / Σ_i K_σ(t, f_i)``,
  with f the top-label confidence and y ∈ {0, 1} whether it was right;
* the smoothed density ``δ̂(t) = Σ_i K_σ(t, f_i)``;
* ``smECE_σ = ∫ |r̂(t)| δ̂(t) dt / ∫ δ̂(t) dt``;

and σ is not a free choice: it is the fixed point ``σ* = smECE_σ*`` (found by
bisection), so the error is measured at the resolution it itself sets. The
reliability curve ``t − r̂(t)`` is the smoothed accuracy at confidence t; its
density-weighted distance from the diagonal is exactly the smooth ECE.

The computation follows the discretisation of the reference implementation
(the ``relplot`` package, whose default kernel is the reflected Gaussian) step
for step, so the numbers agree with ``relplot.smECE`` to rounding:

1. each value is split linearly between the two nearest points of a mesh of
   ``M = max(2000, round(20/σ)) // 2 + 1`` points on [0, 1];
2. the mesh is mirrored at both ends (without repeating the end points) and
   convolved with a Gaussian sampled at ``linspace(0, 1, M) − 0.5``, divided by
   ``σ·√(2π)``;
3. the result is linearly interpolated at ``max(round(10/σ), 200)`` points
   ``linspace(0, 1, ·)``, where the metric is summed, with 1e-4 added to the
   density;
4. σ starts at 1 and is halved by bisection ten times towards 0 (σ < 0.001
   counts as a fixed point).

Where relplot convolves directly, this module multiplies Fourier transforms,
one row per temperature, so a whole set of temperatures costs a few FFTs.

References
----------
J. Błasiok and P. Nakkiran, "Smooth ECE: Principled Reliability Diagrams via
Kernel Smoothing", 2023. arXiv:2309.12236.
"""

from typing import NamedTuple

import numpy as np

from .validation import as_probability_rows

__all__ = [
    "MIN_EVAL_POINTS", "DENSITY_FLOOR", "SMALLEST_BANDWIDTH", "BISECTION_STEPS",
    "mesh_points", "eval_points", "deposit", "reflected_gaussian_smooth", "interpolate",
    "smooth_on", "smooth_ece_at", "SmoothECE", "smooth_ece", "smooth_ece_resampled", "SmoothCurve",
    "smooth_reliability",
]

MIN_EVAL_POINTS = 200      # relplot.config.smECE_mesh_pts
DENSITY_FLOOR = 1e-4       # added to the smoothed density before dividing
SMALLEST_BANDWIDTH = 1e-3  # bandwidths below this count as fixed points
BISECTION_STEPS = 10


def _bandwidths(sigma, rows):
    widths = np.broadcast_to(np.asarray(sigma, dtype=np.float64), (rows,)).copy()
    if not np.all(np.isfinite(widths)) or np.any(widths <= 0):
        raise ValueError("sigma must be positive and finite")
    return widths


def mesh_points(sigma):
    """Points of the convolution mesh for bandwidth σ (relplot's rule): ``max(2000, round(20/σ)) // 2 + 1``."""
    return max(2000, round(20.0 / float(sigma))) // 2 + 1


def eval_points(sigma):
    """Points where the smooth ECE is summed for bandwidth σ: ``max(round(10/σ), 200)``."""
    return max(round(10.0 / float(sigma)), MIN_EVAL_POINTS)


def deposit(f, weights, m):
    """Split each weight between the two mesh points around its f (linear binning): array (G, m).

    ``f`` (G, n) in [0, 1]; ``weights`` (G, n); mesh point j sits at j / (m − 1).
    """
    rows, n = f.shape
    position = f * (m - 1)
    left = np.clip(position.astype(np.int64), 0, m - 2)
    frac = position - left
    base = (np.arange(rows) * m)[:, None] + left
    size = rows * m
    out = np.bincount(base.ravel(), ((1.0 - frac) * weights).ravel(), size)
    out += np.bincount((base + 1).ravel(), (frac * weights).ravel(), size)
    return out.reshape(rows, m)


def _gaussian_taps(sigma, m):
    t = np.linspace(0.0, 1.0, m)
    return np.exp(-(t - 0.5) ** 2 / (2.0 * sigma[:, None] ** 2)) / (np.sqrt(2.0 * np.pi) * sigma[:, None])


def _fft_size(m):
    """A fast FFT length (2^a · 3^b · 5^c) long enough that the circular wrap misses the m outputs used.

    The mirrored row has 3m − 2 points and the taps m; the outputs kept are
    full-convolution indices m − 1 + m//2 … 2m − 2 + m//2, so any length above
    3m − 3 − m//2 keeps them clear of the wrapped tail.
    """
    need = 3 * m - 2 - m // 2
    size = need
    while True:
        rest = size
        for factor in (2, 3, 5):
            while rest % factor == 0:
                rest //= factor
        if rest == 1:
            return size
        size += 1


def _mirrored_spectrum(values):
    """Spectrum of each mesh row mirrored at both ends (end points not repeated): ``(spectrum, m, size)``."""
    m = values.shape[1]
    extended = np.concatenate([values[:, :0:-1], values, values[:, -2::-1]], axis=1)  # (G, 3m − 2)
    size = _fft_size(m)
    return np.fft.rfft(extended, size), m, size


def _convolve_spectrum(spectrum, m, size, sigma):
    """Finish :func:`reflected_gaussian_smooth` from a row spectrum: (G, m)."""
    widths, which = np.unique(sigma, return_inverse=True)
    taps = np.fft.rfft(_gaussian_taps(widths, m), size)[which.ravel()]
    start = m - 1 + m // 2
    return np.fft.irfft(spectrum * taps, size)[:, start:start + m]


def reflected_gaussian_smooth(values, sigma):
    """Convolve each mesh row with its own Gaussian (bandwidth ``sigma[row]``), mirroring at 0 and 1.

    ``values`` (G, m) on the mesh j / (m − 1); returns (G, m). The mirror
    image leaves out the end point itself, and the kernel is cut at ±0.5.
    The convolution is a product of Fourier transforms.
    """
    return _convolve_spectrum(*_mirrored_spectrum(values), sigma)


def interpolate(mesh_values, t):
    """Linear interpolation of mesh rows (G, m), mesh point j at j / (m − 1), at the points ``t`` (P,): (G, P)."""
    m = mesh_values.shape[1]
    step = 1.0 / (m - 1)
    index = np.clip((t * (m - 1)).astype(np.int64), 0, m - 2)
    residual = (t - index * step) / step
    return mesh_values[:, index] * (1.0 - residual) + mesh_values[:, index + 1] * residual


def smooth_on(f, weights, sigma, t):
    """Kernel sums ``Σ_i K_σ(t, f_i) · weight_i`` (discretised as in relplot) at points ``t``: (G, P).

    All rows must share one mesh size, i.e. one value of :func:`mesh_points`.
    """
    m = mesh_points(sigma[0])
    return interpolate(reflected_gaussian_smooth(deposit(f, weights, m), sigma), t)


def _groups(sigma, key):
    """Row indices grouped by ``key(σ)`` (rows that share a mesh are smoothed together)."""
    keys = [key(s) for s in sigma]
    for value in dict.fromkeys(keys):
        yield value, np.array([i for i, k in enumerate(keys) if k == value])


class _Meshes:
    """Spectra of the mirrored deposits (residuals and counts) of every row, per mesh size.

    They do not depend on σ beyond the mesh size, so the bisection reuses them.
    """

    def __init__(self, f, y, weights=None):
        self.f, self.y, self.cache, self.cache_weights = f, y, {}, weights

    def rows(self, m, rows):
        """``(spectrum, size)`` for ``rows``: residual rows first, then count rows."""
        if m not in self.cache:
            f = self.f
            spectrum, _, size = _mirrored_spectrum(np.concatenate([deposit(f, f - self.y, m),
                                                                   deposit(f, np.ones_like(f), m)]))
            self.cache[m] = (spectrum, size)
        spectrum, size = self.cache[m]
        return spectrum[np.concatenate([rows, rows + self.f.shape[0]])], size


def _smooth_ece_rows(meshes, rows, sigma):
    """Smooth ECE of ``rows`` at bandwidths ``sigma`` (one per row), from cached spectra."""
    result = np.empty(rows.size)
    for (m, points), group in _groups(sigma, lambda s: (mesh_points(s), eval_points(s))):
        t = np.linspace(0.0, 1.0, points)
        spectrum, size = meshes.rows(m, rows[group])
        widths = np.concatenate([sigma[group], sigma[group]])
        sums = interpolate(_convolve_spectrum(spectrum, m, size, widths), t)
        residual_sum, density = sums[:group.size], sums[group.size:] + DENSITY_FLOOR
        result[group] = np.sum(np.abs(residual_sum / density) * density, axis=1) / np.sum(density, axis=1)
    return result


def smooth_ece_at(f, y, sigma):
    """Smooth ECE (probability units) at a fixed bandwidth per row: array (G,).

    ``f`` (G, n) or (n,) confidences, ``y`` (G, n) or (n,) outcomes in {0, 1},
    ``sigma`` a scalar or (G,) bandwidths in probability units.
    """
    f = as_probability_rows(f, "f")
    y = np.broadcast_to(as_probability_rows(y, "y"), f.shape)
    sigma = _bandwidths(sigma, f.shape[0])
    return _smooth_ece_rows(_Meshes(f, y), np.arange(f.shape[0]), sigma)


class SmoothECE(NamedTuple):
    """Smooth ECE at the fixed-point bandwidth: ``value`` (G,) and ``sigma`` (G,), both probabilities."""

    value: np.ndarray
    sigma: np.ndarray


def smooth_ece(f, y):
    """Smooth ECE with the fixed-point bandwidth σ* (the largest tested σ with σ ≥ smECE_σ), per row.

    Bisection over σ in (0, 1]: if σ = 1 already satisfies ``σ < smECE_σ`` it is
    returned; otherwise ten halvings keep ``smECE_σ ≤ σ`` at the upper end.
    All rows run in lockstep; each step evaluates every row that still needs
    it in one batched call.

    >>> result = smooth_ece([0.9, 0.9, 0.9, 0.9], [1, 1, 1, 0])
    >>> round(float(result.value[0]), 3), float(result.sigma[0])
    (0.15, 0.150390625)
    """
    f = as_probability_rows(f, "f")
    y = np.broadcast_to(as_probability_rows(y, "y"), f.shape)
    return _fixed_point(_Meshes(f, y), f.shape[0])


def smooth_ece_resampled(f, y, counts, deposits=None):
    """:func:`smooth_ece` of resamples of one set of rows, each given by how often it draws every row.

    ``f`` (n,) confidences, ``y`` (n,) outcomes in {0, 1}, ``counts`` (R, n) non-negative integers (row i
    drawn ``counts[r, i]`` times in resample r). Equal, to rounding, to ``smooth_ece`` of the R resampled row
    sets: a mesh deposit is linear in the rows' weights, so each resample's deposit is one sparse product of
    its counts, and no (R, n) array of resampled values is built. ``deposits`` is a dict the caller keeps
    across calls on the same ``f`` and ``y`` (blocks of resamples of the same rows): the sparse deposit
    matrices of each mesh size are built once and kept there.
    """
    f = as_probability_rows(f, "f")[0]
    y = np.broadcast_to(as_probability_rows(y, "y")[0], f.shape)
    weights = np.asarray(counts, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != f.size:
        raise ValueError(f"counts must have shape (R, {f.size}); got {np.shape(counts)}")
    return _fixed_point(_ResampledMeshes(f, y, weights, {} if deposits is None else deposits), weights.shape[0])


class _ResampledMeshes(_Meshes):
    """:class:`_Meshes` of resamples: row r of the deposits is ``counts[r] @ D`` with D the (n, m) split of
    each row's weight between its two mesh points (:func:`deposit`'s rule); the D of each m is kept in
    ``spreads`` (shared by the blocks of resamples of the same rows)."""

    def __init__(self, f, y, weights, spreads):
        super().__init__(f[None], y[None], weights)
        self.columns = np.ascontiguousarray(weights.T)  # (n, R): what every sparse product multiplies
        self.spreads = spreads

    def _spread(self, m):
        """D (m, n) as CSR, for the values f − y and for ones (the residual and the density)."""
        if m not in self.spreads:
            import scipy.sparse  # imported on first use, as in calib.calibrators

            f = self.f[0]
            n = f.size
            position = f * (m - 1)
            left = np.clip(position.astype(np.int64), 0, m - 2)
            frac = position - left
            columns = np.concatenate([left, left + 1])
            split = np.concatenate([1.0 - frac, frac])
            at = np.tile(np.arange(n), 2)
            self.spreads[m] = [scipy.sparse.csr_matrix((split * np.tile(values, 2), (columns, at)), shape=(m, n))
                               for values in (f - self.y[0], np.ones(n))]
        return self.spreads[m]

    def rows(self, m, rows):
        if m not in self.cache:
            deposits = [np.asarray(spread @ self.columns).T for spread in self._spread(m)]
            spectrum, _, size = _mirrored_spectrum(np.concatenate(deposits))
            self.cache[m] = (spectrum, size)
        spectrum, size = self.cache[m]
        return spectrum[np.concatenate([rows, rows + self.cache_weights.shape[0]])], size


def _fixed_point(meshes, rows):
    """The bisection of :func:`smooth_ece` over ``rows`` rows of ``meshes``: :class:`SmoothECE`."""
    at_one = _smooth_ece_rows(meshes, np.arange(rows), np.ones(rows))
    done = 1.0 < at_one
    upper, lower = np.ones(rows), np.zeros(rows)
    upper_value = at_one.copy()
    for _ in range(BISECTION_STEPS):
        middle = (upper + lower) / 2.0
        needed = ~done & (middle >= SMALLEST_BANDWIDTH)
        value = np.full(rows, np.nan)
        if needed.any():
            value[needed] = _smooth_ece_rows(meshes, np.flatnonzero(needed), middle[needed])
        fixed = (middle < SMALLEST_BANDWIDTH) | (middle < value)
        move_lower = ~done & fixed
        move_upper = ~done & ~fixed
        lower = np.where(move_lower, middle, lower)
        upper = np.where(move_upper, middle, upper)
        upper_value = np.where(move_upper, value, upper_value)
    return SmoothECE(upper_value, upper)


class SmoothCurve(NamedTuple):
    """The smoothed reliability curve on ``mesh`` (P,): ``accuracy`` (G, P) = t − r̂(t),
    ``density`` (G, P), the smoothed density of confidences divided by its maximum (so in [0, 1]), and
    ``support`` (G, 2), the smallest and largest confidence of each row (outside it the curve is the
    kernel's extrapolation, not data)."""

    mesh: np.ndarray
    accuracy: np.ndarray
    density: np.ndarray
    support: np.ndarray


def smooth_reliability(f, y, sigma, mesh):
    """The kernel-smoothed reliability curve at bandwidth ``sigma`` (per row), on the points ``mesh``.

    ``accuracy = t − r̂(t)``, the smoothed accuracy at confidence t; where the
    density is tiny it is an extrapolation and may leave [0, 1] slightly.
    """
    f = as_probability_rows(f, "f")
    y = np.broadcast_to(as_probability_rows(y, "y"), f.shape)
    sigma = _bandwidths(sigma, f.shape[0])
    t = np.asarray(mesh, dtype=np.float64)
    if t.ndim != 1 or t.size < 2 or t.min() < 0 or t.max() > 1:
        raise ValueError("mesh must be a 1-D array of at least two points in [0, 1]")
    accuracy = np.empty((f.shape[0], t.size))
    density = np.empty((f.shape[0], t.size))
    for _, rows in _groups(sigma, mesh_points):
        ff = f[rows]
        sums = smooth_on(np.concatenate([ff, ff]), np.concatenate([ff - y[rows], np.ones_like(ff)]),
                         np.concatenate([sigma[rows], sigma[rows]]), t)
        mass = sums[rows.size:] + DENSITY_FLOOR
        accuracy[rows] = t - sums[:rows.size] / mass
        density[rows] = mass / mass.max(axis=1, keepdims=True)
    return SmoothCurve(t, accuracy, density, np.stack([f.min(axis=1), f.max(axis=1)], axis=1))
