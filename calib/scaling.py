"""Temperature-scaled softmax and the proper scores built on it.

Every function accepts either a scalar temperature or a 1-D array of
temperatures. With an array of ``G`` temperatures the leading axis of every
result has length ``G``, so a whole grid is evaluated in one vectorised pass.

Conventions (top-label, used everywhere in the project):

* the predicted class is the argmax of the *raw* logits (first index on ties),
  so it cannot change with the temperature;
* the confidence is that class's probability at temperature ``T``;
* an example is correct when its predicted class equals its label.
"""

from typing import NamedTuple

import numpy as np

from .blocks import BLOCK_ELEMENTS, Workspace, block_shape, row_chunks, run_tasks, worker_count
from .validation import positive_int

__all__ = [
    "as_logits",
    "as_labels",
    "as_temperatures",
    "log_softmax",
    "scaled_probs",
    "example_scores",
    "scores_over_grid",
    "predicted_class",
    "top_label",
    "nll",
    "brier",
]


def as_logits(logits):
    """Validate and return ``logits`` as a finite float64 array of shape (n, K), K ≥ 2."""
    array = np.asarray(logits, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"logits must be a 2-D array (n, K); got shape {array.shape}")
    if array.shape[0] < 1 or array.shape[1] < 2:
        raise ValueError(f"logits need at least one row and two classes; got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("logits must be finite (no NaN or inf)")
    return array


def as_labels(labels, n_examples, n_classes):
    """Validate and return ``labels`` as an int64 vector of class indices in [0, K)."""
    array = np.asarray(labels)
    if array.shape != (n_examples,):
        raise ValueError(f"labels must have shape ({n_examples},); got {array.shape}")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        if not np.all(np.equal(np.mod(array, 1), 0)):
            raise ValueError("labels must be whole class indices")
    array = array.astype(np.int64)
    if array.size and (array.min() < 0 or array.max() >= n_classes):
        raise ValueError(f"labels must lie in [0, {n_classes}); got {array.min()}..{array.max()}")
    return array


def as_temperatures(temperature):
    """Return ``(temps, scalar)``: a 1-D float64 array of positive temperatures and whether the input was a scalar."""
    temps = np.asarray(temperature, dtype=np.float64)
    scalar = temps.ndim == 0
    temps = np.atleast_1d(temps)
    if temps.ndim != 1:
        raise ValueError(f"temperature must be a scalar or a 1-D array; got shape {temps.shape}")
    if not np.all(np.isfinite(temps)) or np.any(temps <= 0):
        raise ValueError("temperature must be positive and finite")
    return temps, scalar


def _scaled_exponentials(z, temps):
    """``(shifted, e, norm)`` for every temperature: the scaled logits (z − max z) / T, shape (G, n, K),
    their exponentials ``e`` and the row sums ``norm`` (G, n).

    Subtracting each row's maximum first keeps every exponent ≤ 0, so nothing
    overflows; the predicted class's exponential is exactly 1, so its
    probability is exactly ``1 / norm``. Sums over the short class axis are
    done as a matrix product, which is several times faster than ``sum``.
    """
    shifted = (z - z.max(axis=1, keepdims=True))[None] / temps[:, None, None]
    e = np.exp(shifted)
    norm = e @ np.ones(z.shape[1])
    return shifted, e, norm


def log_softmax(logits, temperature):
    """Log-probabilities log softmax(logits / T), shape (G, n, K) (or (n, K) for scalar T).

    Computed with the log-sum-exp shift (subtract each row's maximum), so logits
    of ±1e4 and T as small as 0.05 stay finite.
    """
    z = as_logits(logits)
    temps, scalar = as_temperatures(temperature)
    shifted, _, norm = _scaled_exponentials(z, temps)
    result = shifted - np.log(norm)[..., None]
    return result[0] if scalar else result


def scaled_probs(logits, temperature):
    """Class probabilities softmax(logits / T), each row summing to 1.

    Shape (n, K) for a scalar T, (G, n, K) for a 1-D array of G temperatures.

    >>> np.round(scaled_probs([[3.0, 1.0, 0.0]], 1.0), 3)
    array([[0.844, 0.114, 0.042]])
    """
    z = as_logits(logits)
    temps, scalar = as_temperatures(temperature)
    _, e, norm = _scaled_exponentials(z, temps)
    result = e / norm[..., None]
    return result[0] if scalar else result


def _softmax_scores(shifted, true_shifted, divisor, work, ones, nll_out, brier_out=None, conf_out=None):
    """The one softmax kernel: per-example scores of softmax(shifted / divisor), written into the ``*_out`` arrays.

    ``shifted`` (r, K) is each row's logits minus the row's maximum and
    ``true_shifted`` (r,) its label's entry (both computed once, outside any
    loop over temperatures); ``divisor`` holds positive temperatures shaped
    (g, 1, 1) (one per grid point) or (1, r, 1) (one per row); ``work`` is a
    C-contiguous float64 scratch array of shape (g, r, K) that is overwritten;
    ``ones`` is ``np.ones(K)``. Writes arrays of shape (g, r): the NLL
    −log p(label) in nats into ``nll_out``, and, unless they are None, the
    Brier term Σ_k (p_k − onehot_k)² into ``brier_out`` and the top-label
    confidence into ``conf_out``. Every exponent is ≤ 0, so nothing
    overflows, and the predicted class's exponential is exactly 1, so its
    probability is exactly 1 / norm. Both row sums (Σ e_k and Σ e_k²) are
    matrix products with ones: several times faster than ``sum`` or
    ``einsum`` over a short class axis.
    """
    true_scaled = true_shifted / divisor[..., 0]
    np.divide(shifted[None], divisor, out=work)
    np.exp(work, out=work)
    norm = np.matmul(work, ones)
    log_norm = np.log(norm)
    np.subtract(log_norm, true_scaled, out=nll_out)
    if brier_out is not None:
        squares = np.matmul(np.square(work, out=work), ones)  # Σ_k e_k², after the norm is taken
        p_true = np.exp(true_scaled - log_norm)
        # sum_k (p_k - onehot_k)^2 = sum_k p_k^2 - 2 p_y + 1
        np.add(squares / norm ** 2 - 2.0 * p_true, 1.0, out=brier_out)
    if conf_out is not None:
        np.divide(1.0, norm, out=conf_out)


def example_scores(z, y, divisor):
    """Per-example ``(nll, brier, confidence)`` of softmax((z − max z) / divisor), one pass over validated arrays.

    ``z`` (n, K) float64 logits, ``y`` (n,) int labels; ``divisor`` holds
    positive temperatures shaped to broadcast against (·, n, K): (G, 1, 1) for
    one temperature per grid point, (1, n, 1) for one temperature per row.
    Returns arrays of shape (G, n) (or (1, n)): each example's NLL in nats
    (−log p(label)), its multiclass Brier term Σ_k (p_k − onehot_k)² in [0, 2],
    and its top-label confidence. It runs the same kernel as
    :func:`scores_over_grid` and :func:`calib.grid_metrics`, so they agree to the bit.
    """
    shifted = z - z.max(axis=1, keepdims=True)
    divisor = np.asarray(divisor, dtype=np.float64)
    g = divisor.shape[0]
    shape = (g, z.shape[0])
    nll_values, brier_values, confidence = np.empty(shape), np.empty(shape), np.empty(shape)
    _softmax_scores(shifted, shifted[np.arange(z.shape[0]), y], divisor, np.empty(shape + (z.shape[1],)),
                    np.ones(z.shape[1]), nll_values, brier_values, confidence)
    return nll_values, brier_values, confidence


# --- the grid engine: rows prepared once, blocks of calib.blocks, one work buffer per worker -------------

class _Rows(NamedTuple):
    """Validated rows, prepared once for any number of temperatures: ``shifted`` (n, K) = logits minus each
    row's maximum (every entry ≤ 0), ``true_shifted`` (n,) its label's entry, ``correct`` (n,) bool."""

    shifted: np.ndarray
    true_shifted: np.ndarray
    correct: np.ndarray


def _prepare(z, y):
    shifted = z - z.max(axis=1, keepdims=True)
    return _Rows(shifted, shifted[np.arange(z.shape[0]), y], np.argmax(z, axis=1) == y)


def _grid_pass(rows, temps, block_elements, workers, want_brier=True, conf_out=None, per_block=None):
    """Scores at every temperature of ``temps`` over prepared ``rows``: ``(nll (G,), brier (G,) or None)``.

    Temperatures are processed in blocks of :func:`block_shape`; within a
    block, rows are processed in chunks that fill the work buffer, and the
    per-example scores of the block, (g, n), are assembled before any mean is
    taken, so every figure is the same whatever the block size or the number
    of ``workers``. ``conf_out`` (G, n), if given, receives the confidences;
    ``per_block(start, confidence (g, n), workspace)``, if given, is called
    once per block (from a worker thread) with the block's confidences and
    the worker's :class:`calib.blocks.Workspace` (whose ``hint`` it may keep).
    """
    n, k = rows.shifted.shape
    g_max, r_max = block_shape(n, k, temps.size, block_elements)
    starts = range(0, temps.size, g_max)
    nll_values = np.empty(temps.size)
    brier_values = np.empty(temps.size) if want_brier else None
    need_conf = conf_out is not None or per_block is not None

    def task(i, workspace):
        start = starts[i]
        block = temps[start:start + g_max]
        g = block.size
        divisor = block[:, None, None]
        example_nll = np.empty((g, n))
        example_brier = np.empty((g, n)) if want_brier else None
        if conf_out is not None:
            confidence = conf_out[start:start + g]
        else:
            confidence = np.empty((g, n)) if need_conf else None
        for part in row_chunks(n, r_max):
            r = part.stop - part.start
            _softmax_scores(rows.shifted[part], rows.true_shifted[part], divisor, workspace.work(g, r, k),
                            workspace.ones, example_nll[:, part],
                            None if example_brier is None else example_brier[:, part],
                            None if confidence is None else confidence[:, part])
        nll_values[start:start + g] = example_nll.mean(axis=1)
        if want_brier:
            brier_values[start:start + g] = example_brier.mean(axis=1)
        if per_block is not None:
            per_block(start, confidence, workspace)

    size = max(g_max * r_max * k, k)
    run_tasks(task, len(starts), [Workspace(size, k) for _ in range(min(worker_count(workers), len(starts)))])
    return nll_values, brier_values


def _check_block(block, block_elements):
    """The element budget of a block: ``block_elements``, or ``block`` temperatures' worth when given."""
    if block is None:
        return positive_int(block_elements, "block_elements")
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"block must be a positive integer; got {block!r}")
    return None


def scores_over_grid(logits, labels, temps, block=None, workers=1, block_elements=BLOCK_ELEMENTS):
    """NLL (nats), Brier and top-label confidence at every temperature of a long grid.

    Returns ``(nll, brier, confidence)`` with shapes (G,), (G,), (G, n), the
    same numbers :func:`nll`, :func:`brier` and :func:`top_label` give. The
    grid is processed in blocks of about ``block_elements`` (temperature, row,
    class) values in one reusable buffer per worker, so the (G, n, K) tensor
    of exponentials never exists; ``block`` (an int) instead fixes the number
    of temperatures per block. ``workers`` threads share the blocks; the
    results do not depend on ``workers``, ``block`` or ``block_elements``.

    >>> nll_t, brier_t, conf_t = scores_over_grid([[3.0, 1.0, 0.0]], [0], [1.0, 2.0])
    >>> np.round(nll_t, 4).tolist(), np.round(conf_t, 3).tolist()
    ([0.1698, 0.4644], [[0.844], [0.629]])
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps, _ = as_temperatures(temps)
    budget = _check_block(block, block_elements)
    if budget is None:
        budget = block * z.shape[0] * z.shape[1]
    confidence = np.empty((temps.size, z.shape[0]))
    rows = _prepare(z, y)
    del z  # the pass reads only the shifted rows (with float32 logits, z was a float64 copy)
    nll_values, brier_values = _grid_pass(rows, temps, budget, workers, conf_out=confidence)
    return nll_values, brier_values, confidence


def nll_over_rows(rows, temperature, workspaces, block_elements=BLOCK_ELEMENTS):
    """Mean NLL (nats) of prepared rows at one temperature; only the NLL is computed (no Brier, no confidence).

    The rows are split into chunks that fill one work buffer; with several
    ``workspaces`` the chunks run on that many threads. The per-example
    values are assembled before the mean, so the result does not depend on
    the chunking or the number of threads.
    """
    n, k = rows.shifted.shape
    r_max = block_shape(n, k, 1, block_elements)[1]
    chunks = row_chunks(n, r_max)
    divisor = np.array([[[float(temperature)]]])
    example_nll = np.empty((1, n))

    def task(i, workspace):
        part = chunks[i]
        _softmax_scores(rows.shifted[part], rows.true_shifted[part], divisor,
                        workspace.work(1, part.stop - part.start, k), workspace.ones, example_nll[:, part])

    run_tasks(task, len(chunks), workspaces)
    return float(example_nll.mean(axis=1)[0])


def nll_grid(rows, temps, workers=1, block_elements=BLOCK_ELEMENTS):
    """Mean NLL (nats) of prepared rows at every temperature of ``temps`` (G,): the NLL-only grid pass."""
    return _grid_pass(rows, temps, block_elements, workers, want_brier=False)[0]


def predicted_class(logits):
    """Index of the largest raw logit in each row (the first one on ties), shape (n,)."""
    return np.argmax(as_logits(logits), axis=1)


def top_label(logits, labels, temperature):
    """Top-label confidence and correctness: ``(confidence, correct)``.

    ``confidence`` has shape (G, n) (or (n,) for scalar T) and is the
    probability, at temperature T, of the class with the largest raw logit;
    ``correct`` is a boolean vector (n,) that does not depend on T.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps, scalar = as_temperatures(temperature)
    confidence = np.empty((temps.size, z.shape[0]))
    _grid_pass(_prepare(z, y), temps, BLOCK_ELEMENTS, 1, want_brier=False, conf_out=confidence)
    return (confidence[0] if scalar else confidence), np.argmax(z, axis=1) == y


def nll(logits, labels, temperature):
    """Mean negative log-likelihood of the labels under softmax(logits / T), in nats.

    Returns a float for a scalar T and an array (G,) for an array of T.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps, scalar = as_temperatures(temperature)
    values = nll_grid(_prepare(z, y), temps)
    return float(values[0]) if scalar else values


def brier(logits, labels, temperature):
    """Multiclass Brier score: squared error against the one-hot label, summed over classes, averaged over examples.

    Ranges from 0 (certain and right) to 2 (certain and wrong). A float for a
    scalar T, an array (G,) for an array of T.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps, scalar = as_temperatures(temperature)
    values = _grid_pass(_prepare(z, y), temps, BLOCK_ELEMENTS, 1)[1]
    return float(values[0]) if scalar else values
