"""Each row's own scores: at one temperature per row, or at many temperatures without a (G, n, K) array.

:func:`row_scores`
    confidence, correctness, NLL and Brier of every row, with a temperature
    per row (or per temperature set and row), by the engine's one softmax
    kernel (:func:`calib.scaling.example_scores`).
:func:`row_scores_over_grid`
    confidence and NLL of every row at every temperature of a grid, computed
    a block of temperatures and rows at a time, so memory stays bounded
    whatever n and K.
:func:`log_normaliser`
    the softmax normaliser ``log Σ_k exp(s_k)`` of max-shifted, scaled logits,
    shared with the weighted fits of :mod:`calib.refit`.
"""

import numpy as np

from .blocks import row_chunks
from .scaling import as_labels, as_logits, block_shape, example_scores, log_softmax

__all__ = ["ROW_BLOCK_ELEMENTS", "log_normaliser", "row_scores", "row_scores_over_grid"]

ROW_BLOCK_ELEMENTS = 1 << 20  # (temperature, row, class) values row_scores_over_grid holds at once (8 MiB)


def log_normaliser(scaled, out=None):
    """``log Σ_k exp(scaled[..., k])`` (nats), shape ``scaled.shape[:-1]``.

    ``scaled`` holds logits minus their row's maximum, divided by a temperature (every entry ≤ 0 and one
    entry 0 per row, so nothing overflows and the sum is ≥ 1). The row sum is a matrix product with ones
    (several times faster than ``sum`` over a short class axis). ``out`` (the shape of ``scaled``, may be
    ``scaled`` itself) receives the exponentials, so a caller that no longer needs ``scaled`` saves a copy.
    """
    exponentials = np.exp(scaled, out=out)
    return np.log(exponentials @ np.ones(scaled.shape[-1]))


def row_scores(logits, labels, temperature):
    """Per-row scores with a temperature per row: ``(confidence, correct, nll, brier)``.

    ``temperature`` is a scalar or an (n,) array of positive values: each output is (n,); or a
    (G, n) or (G, 1) array (G temperature sets): ``confidence``, ``nll`` and ``brier`` are (G, n),
    ``correct`` stays (n,). ``confidence`` is the probability of the largest raw logit's class,
    ``nll`` is −log p(label) in nats and ``brier`` the squared error against the one-hot label
    summed over classes.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps = np.asarray(temperature, dtype=np.float64)
    sets = temps.ndim == 2
    if sets and temps.shape[1] not in (1, z.shape[0]):
        raise ValueError(f"temperature sets must have shape (G, {z.shape[0]}) or (G, 1); got {temps.shape}")
    divisor = temps[..., None] if sets else np.broadcast_to(temps, (z.shape[0],))[None, :, None]
    if not np.all(np.isfinite(divisor)) or np.any(divisor <= 0):
        raise ValueError("temperature must be positive and finite")
    nll, brier, confidence = example_scores(z, y, divisor)
    correct = np.argmax(z, axis=1) == y
    return (confidence, correct, nll, brier) if sets else (confidence[0], correct, nll[0], brier[0])


def row_scores_over_grid(logits, labels, temperatures, block_elements=ROW_BLOCK_ELEMENTS):
    """``(confidence (G, n), correct (n,), example_nll (G, n))`` of the rows at each temperature (NLL in nats).

    The same numbers, bit for bit, as reading them off ``calib.log_softmax(logits, temperatures)`` (G, n, K)
    (confidence = exp of the predicted class's log-probability, NLL = minus the label's), but computed
    ``calib.block_shape`` temperatures × rows at a time, so no (G, n, K) array exists: row chunks start
    on multiples of ``calib.scaling.ROW_ALIGN``, where the row sums equal those of one call.
    """
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels)
    temps = np.asarray(temperatures, dtype=np.float64)
    log_softmax(z[:1], temps[:1])  # the same validation as the one-pass form (finite logits, positive T)
    n, k = z.shape
    shifted = z - z.max(axis=1, keepdims=True)
    predicted = np.argmax(z, axis=1)
    correct = predicted == y
    confidence, example_nll = np.empty((temps.size, n)), np.empty((temps.size, n))
    g_max, r_max = block_shape(n, k, temps.size, block_elements)
    chunks = row_chunks(n, r_max)
    # one scratch buffer for every block (a fresh one per block would be page-faulted in each time)
    buffer = np.empty(g_max * max(c.stop - c.start for c in chunks) * k)
    for g0 in range(0, temps.size, g_max):
        t = temps[g0:g0 + g_max]
        for rows in chunks:
            r = rows.stop - rows.start
            scaled = np.divide(shifted[rows][None], t[:, None, None], out=buffer[:t.size * r * k].reshape(t.size, r, k))
            index = np.arange(r)
            top, true = scaled[:, index, predicted[rows]], scaled[:, index, y[rows]]  # before exp overwrites them
            log_norm = log_normaliser(scaled, out=scaled)  # (g, r)
            confidence[g0:g0 + t.size, rows] = np.exp(top - log_norm)
            example_nll[g0:g0 + t.size, rows] = -(true - log_norm)
    return confidence, correct, example_nll
