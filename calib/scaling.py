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

import numpy as np

__all__ = [
    "as_logits",
    "as_labels",
    "as_temperatures",
    "log_softmax",
    "scaled_probs",
    "example_scores",
    "scores_at",
    "scores_over_grid",
    "TEMPERATURE_BLOCK",
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


def example_scores(z, y, divisor):
    """Per-example ``(nll, brier, confidence)`` of softmax((z − max z) / divisor), one pass over validated arrays.

    ``z`` (n, K) float64 logits, ``y`` (n,) int labels; ``divisor`` holds
    positive temperatures shaped to broadcast against (·, n, K): (G, 1, 1) for
    one temperature per grid point, (1, n, 1) for one temperature per row.
    Returns arrays of shape (G, n) (or (1, n)): each example's NLL in nats
    (−log p(label)), its multiclass Brier term Σ_k (p_k − onehot_k)² in [0, 2],
    and its top-label confidence. This is the one softmax kernel behind
    :func:`scores_at` and per-row scores, so they agree to the bit.
    It allocates one (G, n, K) array and exponentiates it in place: with
    arrays this size, fresh allocations (page faults) cost more than the maths.
    """
    rows = np.arange(z.shape[0])
    work = np.divide((z - z.max(axis=1, keepdims=True))[None], divisor)
    true_shifted = work[:, rows, y]
    np.exp(work, out=work)
    norm = work @ np.ones(z.shape[1])
    squares = np.einsum("gnk,gnk->gn", work, work)
    log_norm = np.log(norm)
    p_true = np.exp(true_shifted - log_norm)
    # sum_k (p_k - onehot_k)^2 = sum_k p_k^2 - 2 p_y + 1
    return log_norm - true_shifted, squares / norm ** 2 - 2.0 * p_true + 1.0, 1.0 / norm


def scores_at(z, y, temps):
    """``(nll, brier, confidence)`` at each temperature in one pass over validated arrays.

    ``z`` (n, K) float64 logits, ``y`` (n,) int labels, ``temps`` (G,) positive.
    Returns NLL in nats (G,), multiclass Brier (G,) and the top-label
    confidence (G, n): the means over examples of :func:`example_scores`.
    This is the kernel behind :func:`nll`, :func:`brier`, :func:`top_label`
    and :func:`scores_over_grid`, so all of them agree to the bit.
    """
    example_nll, example_brier, confidence = example_scores(z, y, temps[:, None, None])
    return example_nll.mean(axis=1), example_brier.mean(axis=1), confidence


TEMPERATURE_BLOCK = 8  # temperatures per block: small blocks stay in cache and bound peak memory


def scores_over_grid(logits, labels, temps, block=TEMPERATURE_BLOCK):
    """NLL (nats), Brier and top-label confidence at every temperature of a long grid.

    Returns ``(nll, brier, confidence)`` with shapes (G,), (G,), (G, n), the
    same numbers :func:`nll`, :func:`brier` and :func:`top_label` give. The
    grid is processed ``block`` temperatures at a time so that the (G, n, K)
    tensor of exponentials never exists whole.

    >>> nll_t, brier_t, conf_t = scores_over_grid([[3.0, 1.0, 0.0]], [0], [1.0, 2.0])
    >>> np.round(nll_t, 4).tolist(), np.round(conf_t, 3).tolist()
    ([0.1698, 0.4644], [[0.844], [0.629]])
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps, _ = as_temperatures(temps)
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise ValueError(f"block must be a positive integer; got {block!r}")
    nll_values = np.empty(temps.size)
    brier_values = np.empty(temps.size)
    confidence = np.empty((temps.size, z.shape[0]))
    for start in range(0, temps.size, block):
        chunk = slice(start, start + block)
        nll_values[chunk], brier_values[chunk], confidence[chunk] = scores_at(z, y, temps[chunk])
    return nll_values, brier_values, confidence


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
    confidence = scores_at(z, y, temps)[2]
    return (confidence[0] if scalar else confidence), np.argmax(z, axis=1) == y


def nll(logits, labels, temperature):
    """Mean negative log-likelihood of the labels under softmax(logits / T), in nats.

    Returns a float for a scalar T and an array (G,) for an array of T.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps, scalar = as_temperatures(temperature)
    values = scores_at(z, y, temps)[0]
    return float(values[0]) if scalar else values


def brier(logits, labels, temperature):
    """Multiclass Brier score: squared error against the one-hot label, summed over classes, averaged over examples.

    Ranges from 0 (certain and right) to 2 (certain and wrong). A float for a
    scalar T, an array (G,) for an array of T.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps, scalar = as_temperatures(temperature)
    values = scores_at(z, y, temps)[1]
    return float(values[0]) if scalar else values
