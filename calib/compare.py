"""Every calibrator against temperature scaling: fitted on calibration rows, scored on test rows, paired.

:func:`compare_calibrators` fits each calibrator of :data:`CALIBRATORS` on the
calibration rows, scores its probabilities on the test rows and sets each score
against temperature scaling's with a *paired* bootstrap: every resample draws
one multiset of test rows (:func:`calib.resample_counts`) and scores every
method on that same multiset, so the change "method minus temperature scaling"
is measured on identical rows. Scores (lower is better for all of them):

``nll``      mean negative log-likelihood of the label (nats);
``brier``    mean multiclass Brier score (0–2);
``ece_w``    top-label ECE, ``n_bins`` equal-width bins;
``ece_a``    top-label ECE, ``n_bins`` adaptive (equal-mass) bins;
``cw_ece``   class-wise ECE (:func:`calib.classwise_ece`), ``n_bins`` equal-width bins per class;
``smooth``   smooth ECE of the top label (:func:`calib.smooth_ece`).

Beside them, ``accuracy`` (higher is better; :data:`COMPARE_COLUMNS` lists all seven) with its paired range:
the top label of a row is its most probable class (the first on ties), so a
method that changes the ranking also changes which rows are right. Temperature
scaling and ensemble temperature scaling never do (``keeps_ranking``); every
other calibrator can, and ``changed_rows`` counts the test rows whose top class
it moved away from the logits' own.

An infinite NLL is reported as it is. Histogram binning and isotonic
calibration can give the true class probability exactly 0; the mean NLL over
the test rows is then ``inf`` (``zero_rows`` says on how many rows), and so is
the NLL of every resample that draws one of them. Quantiles over resamples
follow numpy's "linear" rule, with ``inf`` wherever an interpolation touches an
infinite draw. Nothing is clipped: a clipped NLL would depend on the clip.

Matrix scaling, Dirichlet calibration and vector scaling are skipped above
:data:`MAX_AFFINE_CLASSES` classes (their fits grow with K² or need many rows
per class), and a calibrator whose fit did not settle (``settled_`` False:
vector scaling on rows that some class's logit separates, whose loss has no
finite minimum) is left out of the table; ``skipped`` names them with the reason.
"""

from typing import Dict, NamedTuple, Tuple

import numpy as np

from .binned import HistogramBinning, IsotonicCalibration, ScalingBinning
from .binning import adaptive_ece_resampled, ece, equal_width_ids
from .blocks import one_blas_thread
from .bootstrap import DEFAULT_RESAMPLES, resample_counts
from .calibrators import EnsembleTemperatureScaling, TemperatureScaling
from .matrix import DirichletCalibration, MatrixScaling, VectorScaling
from .paired import change_side, paired_against
from .platt import PlattScaling
from .quantiles import SPREAD_QUANTILES
from .scaling import as_labels, as_logits
from .smooth import smooth_ece, smooth_ece_resampled
from .validation import as_generator, as_quantile_levels, positive_int

__all__ = ["CALIBRATORS", "BINARY_CALIBRATORS", "AFFINE_METHODS", "MAX_AFFINE_CLASSES", "UNSETTLED", "COMPARE_SCORES",
           "COMPARE_COLUMNS", "COMPARE_BINS", "Comparison", "CompareVerdict", "compare_calibrators", "compare_parts",
           "compare_verdict", "comparison_record", "method_row_scores", "comparison_resamples",
           "COMPARE_RESAMPLE_BUDGET", "COMPARE_MIN_RESAMPLES", "winner", "HARD_REASON"]

# name → calibrator class, in the order of the table; "temperature" is the reference
CALIBRATORS = {
    "temperature": TemperatureScaling, "vector": VectorScaling, "matrix": MatrixScaling,
    "dirichlet": DirichletCalibration, "histogram": HistogramBinning, "isotonic": IsotonicCalibration,
    "scaling-binning": ScalingBinning, "ensemble-temperature": EnsembleTemperatureScaling,
}
BINARY_CALIBRATORS = {"platt": PlattScaling}  # offered beside the others for a binary model (binary=True)
AFFINE_METHODS = ("vector", "matrix", "dirichlet")
_SHARE_T = ("scaling-binning", "ensemble-temperature")  # fit T as temperature scaling does, with its defaults
MAX_AFFINE_CLASSES = 100   # above this many classes the affine calibrators are skipped
UNSETTLED = ("left out: its fit has no finite optimum on these calibration rows (fits from two starting points "
             "end apart)")
CONSTANT_LOGIT = ("left out: a class's logit is the same on every calibration row (a binary model's one score column "
                  "gives (0, x)), so vector scaling's scale for it has nothing to fit; on one score column it is Platt "
                  "scaling")
COMPARE_SCORES = ("nll", "brier", "ece_w", "ece_a", "cw_ece", "smooth")  # lower is better: the verdict's scores
COMPARE_COLUMNS = COMPARE_SCORES + ("accuracy",)  # every column of the table (accuracy: higher is better)
COMPARE_BINS = 15          # bins of every binned score (as Guo et al. report)
_BLOCK_ELEMENTS = 1 << 22  # (resample, row) weights of the draws held at once (as float64: 32 MiB)
# The paired draws cost resamples × test rows × methods: past this many (resample, row) pairs a comparison
# by default draws fewer resamples (comparison_resamples), never fewer than COMPARE_MIN_RESAMPLES.
COMPARE_RESAMPLE_BUDGET = 50_000_000
COMPARE_MIN_RESAMPLES = 100


class Comparison(NamedTuple):
    """The table of :func:`compare_calibrators`: M methods (row 0 is temperature scaling) by the columns.

    Every dict is keyed by :data:`COMPARE_COLUMNS`. ``scores[s]`` (M,): each method's score ``s`` on the test
    rows (``inf`` for an infinite NLL);
    ``change[s]`` (M,): method minus temperature scaling; ``spread[s]`` (M, Q): the ``quantiles`` of that
    change over the paired resamples; ``share_lower[s]`` (M,): the share of resamples in which the method
    scores strictly lower than temperature scaling. ``zero_rows`` (M,): test rows whose label got
    probability 0. ``changed_rows`` (M,): test rows whose most probable class differs from the logits' argmax.
    ``skipped``: ``{method: reason}``. ``calibrators``: the fitted calibrators by name. ``hard_rows`` (M,): test
    rows on which the method gives some class a probability of exactly 0, so another exactly 1 or the rest summing
    to 1 (a hard 0 costs infinite NLL on the next row of that class; :func:`winner` never picks such a method). A
    probability that rounds to 1.0 beside others above 0 is not counted: its miss costs a finite NLL.
    """

    methods: Tuple[str, ...]
    n_calibration: int
    n_test: int
    n_classes: int
    n_bins: int
    n_resamples: int
    seed: int
    quantiles: Tuple[float, ...]
    scores: Dict[str, np.ndarray]
    change: Dict[str, np.ndarray]
    spread: Dict[str, np.ndarray]
    share_lower: Dict[str, np.ndarray]
    zero_rows: np.ndarray
    skipped: Dict[str, str]
    calibrators: Dict[str, object]
    changed_rows: np.ndarray
    hard_rows: np.ndarray


def method_row_scores(probs, labels):
    """Per test row: ``(nll, brier, confidence, correct)`` of probability rows ``probs`` (n, K) and ``labels`` (n,).

    ``nll`` (nats) is ``inf`` where the label has probability 0; ``correct`` says whether the most
    probable class (the first on ties) is the label.
    """
    rows = np.arange(labels.size)
    picked = probs[rows, labels]
    with np.errstate(divide="ignore"):
        nll = -np.log(picked)
    brier = np.einsum("ij,ij->i", probs, probs) - 2.0 * picked + 1.0  # no (n, K) square held
    top = np.argmax(probs, axis=1)
    return nll, np.clip(brier, 0.0, 2.0), probs[rows, top], top == labels


def _gap_operators(probs, hit_column, n_bins):
    """What every block of resamples multiplies for the binned gaps of ``probs`` (n, K): ``(hits, upper, probs_t)``.

    ``hits`` (K, n) sparse: 1 where ``hit_column`` (n,) names the right column (−1: none); ``upper`` (K · B, n)
    sparse: ([right] − p) of every value in a bin above the first (:func:`calib.binning.equal_width_ids`; few per
    row, as a row's probabilities sum to 1); ``probs_t`` (K, n) the probabilities, a transposed view (BLAS reads
    it as it is: no (K, n) copy of a large model's probabilities). Equal-width bins do
    not move when rows are resampled, so each bin's sum over a resample is a product with its counts.
    """
    import scipy.sparse  # imported on first use, as in calib.calibrators

    n, k = probs.shape
    hit_rows = np.flatnonzero(hit_column >= 0)
    hits = scipy.sparse.csr_matrix((np.ones(hit_rows.size), (hit_column[hit_rows], hit_rows)), shape=(k, n))
    rows, cols = np.nonzero(probs >= np.linspace(0.0, 1.0, n_bins + 1)[1])
    values = probs[rows, cols]
    ids = equal_width_ids(values, n_bins)
    upper = scipy.sparse.csr_matrix(((cols == hit_column[rows]) - values, (cols * n_bins + ids, rows)),
                                    shape=(k * n_bins, n))
    return hits, upper, probs.T


def _binned_gap_draws(operators, weights, n_bins):
    """Σ_b |Σ_i w[i, r] · ([hit_column[i] = k] − p[i, k]) · [p[i, k] in bin b]| / n per resample r, column k: (R, K).

    ``operators`` from :func:`_gap_operators`; ``weights`` (n, R), C-contiguous: each row's count in each resample.
    The first bin's sum is the column's total (one dense product, as BLAS runs it) minus the other bins' (one
    sparse product), so the cost is one (K × n) by (n × R) product whatever K.
    """
    hits, upper, probs_t = operators
    k, n = probs_t.shape
    r = weights.shape[1]
    total = hits @ weights - probs_t @ weights  # (K, R)
    sums = np.asarray(upper @ weights).reshape(k, n_bins, r)
    sums[:, 0, :] = total - sums[:, 1:, :].sum(axis=1)
    return np.abs(sums).sum(axis=1).T / n


def _compact_counts(n, resamples, gen):
    """:func:`calib.resample_counts` (R, n) drawn a block of resamples at a time from ``gen`` (the same stream, so
    the same counts) and kept in the smallest unsigned type that holds them (uint8 unless a row is drawn 256 times
    or more): a tenth of the memory of the int64 array, and of its float64 copy, which is made a block at a time."""
    step = max(1, _BLOCK_ELEMENTS // n)
    counts = np.empty((resamples, n), dtype=np.uint8)
    for r0 in range(0, resamples, step):
        part = resample_counts(n, min(step, resamples - r0), gen)
        if part.max() > np.iinfo(counts.dtype).max:
            counts = counts.astype(np.min_scalar_type(int(part.max())))
        counts[r0:r0 + part.shape[0]] = part
    return counts


def _draws(probs, labels, nll, brier, conf, hits, counts, n_bins):
    """Every resample's seven columns for one method, ``{column: (R,)}`` (:data:`COMPARE_COLUMNS`), and the
    class-wise ECE of the sample itself (the same product with every row counted once: :func:`calib.classwise_ece`'s
    value, to rounding).

    Blocks of resamples of :data:`_BLOCK_ELEMENTS` (resample, row) weights at a time; what does not depend on the
    counts (the sparse bin operators, the sort of the confidences, the smooth ECE's mesh deposits) is built once.
    """
    n, k = probs.shape
    resamples = counts.shape[0]
    zero = ~np.isfinite(nll)
    finite = np.where(zero, 0.0, nll)
    classes = _gap_operators(probs, labels, n_bins)
    top = _gap_operators(conf[:, None], np.where(hits, 0, -1), n_bins)
    order = np.argsort(conf, kind="stable")
    deposits = {}
    out = {s: np.empty(resamples) for s in COMPARE_COLUMNS}
    point = float(_binned_gap_draws(classes, np.ones((n, 1)), n_bins).mean())
    block = max(1, _BLOCK_ELEMENTS // n)
    for r0 in range(0, resamples, block):  # weighted by the counts: no resample's rows are gathered
        part = counts[r0:r0 + block]
        rows = slice(r0, r0 + part.shape[0])
        weights = part.astype(np.float64)
        columns = np.ascontiguousarray(weights.T)
        out["nll"][rows] = weights @ finite / n
        out["nll"][rows][part[:, zero].sum(axis=1) > 0] = np.inf
        out["brier"][rows] = weights @ brier / n
        out["accuracy"][rows] = weights @ hits / n
        out["cw_ece"][rows] = _binned_gap_draws(classes, columns, n_bins).mean(axis=1)
        out["ece_w"][rows] = _binned_gap_draws(top, columns, n_bins)[:, 0]
        out["ece_a"][rows] = adaptive_ece_resampled(conf, hits, part, n_bins, order=order)
        # rows in confidence order: the same sums (to rounding), read in order by the sparse deposit products
        out["smooth"][rows] = smooth_ece_resampled(conf[order], hits[order], part[:, order], deposits=deposits).value
    return out, point


def compare_calibrators(cal_logits, cal_labels, test_logits, test_labels, n_resamples=DEFAULT_RESAMPLES, seed=0,
                        n_bins=COMPARE_BINS, quantiles=SPREAD_QUANTILES, max_affine_classes=MAX_AFFINE_CLASSES,
                        fitted=None, binary=False, workers=1):
    """Fit every calibrator of :data:`CALIBRATORS` on the calibration rows and compare them on the test rows.

    Parameters
    ----------
    cal_logits, cal_labels : arrays (n_cal, K), (n_cal,)
        The rows each calibrator is fitted on.
    test_logits, test_labels : arrays (n_test, K), (n_test,)
        The rows every score is measured on.
    n_resamples : int
        Paired bootstrap resamples R of the test rows (the same R for every method).
    seed : int
        Seed of the resamples (deterministic: the same arguments give the same table).
    n_bins : int
        Bins of the binned scores.
    quantiles : increasing probabilities
        Levels of each change's spread (default 5% and 95%).
    max_affine_classes : int
        Above this many classes, vector, matrix and Dirichlet scaling are skipped.
    fitted : dict or None
        Calibrators already fitted on exactly these calibration rows, by method name (a caller that also
        needs the fits passes them so each is fitted once); the methods it lacks are fitted here.
    binary : bool
        A binary model (K = 2): the calibrators of :data:`BINARY_CALIBRATORS` (Platt scaling) are compared too,
        after the others.
    workers : int
        Threads that fit and score the methods after temperature scaling, one method each (the results do not
        depend on it).

    Returns
    -------
    Comparison
        Scores in their natural units (see the module docstring), temperature scaling first.
    """
    z_cal, z_test = as_logits(cal_logits), as_logits(test_logits)
    k = z_cal.shape[1]
    if z_test.shape[1] != k:
        raise ValueError(f"test_logits must have {k} columns, as cal_logits; got {z_test.shape[1]}")
    y_cal = as_labels(cal_labels, z_cal.shape[0], k)
    y_test = as_labels(test_labels, z_test.shape[0], k)
    n_bins = positive_int(n_bins, "n_bins")
    resamples = positive_int(n_resamples, "n_resamples")
    q = as_quantile_levels(quantiles)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    skipped = {}
    if k > max_affine_classes:
        for name in AFFINE_METHODS:
            skipped[name] = f"skipped above {max_affine_classes} classes (this file has {k})"
    if "vector" not in skipped and np.any(np.all(z_cal == z_cal[:1], axis=0)):  # its scale there is no parameter
        skipped["vector"] = CONSTANT_LOGIT
    available = dict(CALIBRATORS, **(BINARY_CALIBRATORS if binary and k == 2 else {}))
    candidates = tuple(name for name in available if name not in skipped)
    n = y_test.size
    counts = _compact_counts(n, resamples, as_generator(int(seed)))
    fits, raw_top = {}, np.argmax(z_test, axis=1)

    def fit_and_score(name):
        """The fitted calibrator of ``name``, its test rows with label probability 0, its test rows whose top class
        it changes, its scores and their draws, and its test rows with some probability exactly 0 or 1 (only the
        calibrator when its fit did not settle)."""
        calibrator = (fitted or {}).get(name)
        if calibrator is None:
            # the calibrators built on temperature scaling take its T: the search they would run is the same one
            known = name in _SHARE_T and "temperature" in fits
            shared = {"temperature": fits["temperature"].temperature_} if known else {}
            calibrator = available[name](**shared).fit(z_cal, y_cal)
        if getattr(calibrator, "settled_", True) is False:
            return calibrator, None, None, None, None, None
        probs = calibrator.predict_proba(z_test)
        hard = int(np.count_nonzero(np.any(probs == 0, axis=1)))  # a hard 1 has hard 0s beside it
        nll, brier, conf, hits = method_row_scores(probs, y_test)
        changed = int(np.sum(np.argmax(probs, axis=1) != raw_top))
        resampled, classwise = _draws(probs, y_test, nll, brier, conf, hits, counts, n_bins)
        del probs
        point = {"nll": float(np.mean(nll)), "brier": float(np.mean(brier)),
                 "ece_w": ece(conf, hits, n_bins, "equal-width"), "ece_a": ece(conf, hits, n_bins, "adaptive"),
                 "cw_ece": classwise, "smooth": float(smooth_ece(conf, hits).value[0]), "accuracy": float(hits.mean())}
        return calibrator, int(np.sum(~np.isfinite(nll))), changed, point, resampled, hard

    done = {}
    if "temperature" in candidates:  # first: the methods of _SHARE_T take its T
        done["temperature"] = fit_and_score("temperature")
        fits["temperature"] = done["temperature"][0]
    rest = [name for name in candidates if name not in done]
    workers = positive_int(workers, "workers")
    if workers == 1:
        done.update((name, fit_and_score(name)) for name in rest)
    else:  # each method is fitted and scored on its own; BLAS held to one thread per worker
        from concurrent.futures import ThreadPoolExecutor

        with one_blas_thread(), ThreadPoolExecutor(workers) as pool:
            done.update(zip(rest, pool.map(fit_and_score, rest)))
    scores, draws, zero_rows, changed_rows = {s: [] for s in COMPARE_COLUMNS}, {s: [] for s in COMPARE_COLUMNS}, [], []
    hard_rows = []
    for name in candidates:
        fits[name], zero, changed, point, resampled, hard = done[name]
        if point is None:  # a fit that did not settle: left out, with the reason
            skipped[name] = UNSETTLED
            continue
        zero_rows.append(zero)
        changed_rows.append(changed)
        hard_rows.append(hard)
        for s in COMPARE_COLUMNS:
            scores[s].append(point[s])
            draws[s].append(resampled[s])
    methods = tuple(name for name in candidates if name not in skipped)
    table = {s: np.array(v) for s, v in scores.items()}
    change, spread, lower = {}, {}, {}
    for s in COMPARE_COLUMNS:
        with np.errstate(invalid="ignore"):
            change[s] = table[s] - table[s][0]
        spread[s], lower[s] = paired_against(np.stack(draws[s], axis=1), q)  # draws (R, M): paired on the rows
    return Comparison(methods, int(y_cal.size), int(n), int(k), n_bins, resamples, int(seed), q, table, change,
                      spread, lower, np.array(zero_rows), skipped, fits, np.array(changed_rows), np.array(hard_rows))


# ------------------------------------------------------------------ the verdict and the record of a comparison

def _plain(value):
    """A float for JSON: ``None`` stands for an infinite value (JSON has no infinity)."""
    return float(value) if np.isfinite(value) else None


class CompareVerdict(NamedTuple):
    """Whether any calibrator beats temperature scaling beyond its range: ``code`` is ``"beats"`` or ``"none"``;
    ``beats`` ``{method: (score, …)}`` (table order) the scores on which the method's whole range of change
    (every quantile of :attr:`Comparison.spread`) lies below zero by more than :data:`calib.NEGLIGIBLE_CHANGE`;
    ``worse`` the same above zero."""

    code: str
    beats: Dict[str, Tuple[str, ...]]
    worse: Dict[str, Tuple[str, ...]]


def compare_verdict(result):
    """The :class:`CompareVerdict` of a :class:`Comparison` (a change is beyond its range when its 5% and 95%
    points, or whichever quantiles it carries, are all on one side of zero, farther than
    :data:`calib.NEGLIGIBLE_CHANGE`)."""
    beats, worse = {}, {}
    for i, name in enumerate(result.methods[1:], start=1):
        below = tuple(s for s in COMPARE_SCORES if change_side(result.spread[s][i]) < 0)
        above = tuple(s for s in COMPARE_SCORES if change_side(result.spread[s][i]) > 0)
        if below:
            beats[name] = below
        if above:
            worse[name] = above
    return CompareVerdict("beats" if beats else "none", beats, worse)


HARD_REASON = ("gives {rows} test row(s) a probability of exactly 0 (and 1): a hard 0 costs an infinite log loss "
               "the next time that class occurs")


def winner(result):
    """``(method, passed_over)``: the method to deploy from a :class:`Comparison`, the lowest test NLL among the
    methods whose every quantile of NLL change from temperature scaling lies below zero (by more than
    :data:`calib.NEGLIGIBLE_CHANGE`) and that give no test row
    a probability of exactly 0 or 1 (``hard_rows``), else ``"temperature"``; and ``{method: reason}`` of the methods
    that would have won on NLL but were passed over for such rows (:data:`HARD_REASON`)."""
    nll = result.scores["nll"]
    hard = result.hard_rows
    beats = [i for i in range(1, len(result.methods))
             if change_side(result.spread["nll"][i]) < 0 and np.isfinite(nll[i])]
    beats.sort(key=lambda i: nll[i])
    passed = {}
    for i in beats:
        if hard[i] == 0:
            return result.methods[i], passed
        passed[result.methods[i]] = HARD_REASON.replace("{rows}", f"{int(hard[i]):,}")
    return "temperature", passed


def comparison_resamples(n_test, most=DEFAULT_RESAMPLES, budget=COMPARE_RESAMPLE_BUDGET,
                         least=COMPARE_MIN_RESAMPLES):
    """Paired resamples of a comparison on ``n_test`` test rows: ``most``, or ⌊``budget`` / ``n_test``⌋ when that
    is fewer, but never fewer than ``least`` (nor more than ``most``).

    >>> [comparison_resamples(n) for n in (1_000, 250_000, 400_000, 5_000_000)]
    [200, 200, 125, 100]
    """
    n_test, most, least = (positive_int(v, name) for v, name in ((n_test, "n_test"), (most, "most"), (least, "least")))
    return max(min(least, most), min(most, positive_int(budget, "budget") // n_test))


def compare_parts(logits, labels, parts, n_resamples=None, seed=0, binary=False, workers=1):
    """:func:`compare_calibrators` on a split as ``python -m calib fit`` uses it: ``parts`` {name: mask (n,)} from
    :func:`calib.io.split_masks`; fitted on ``calibration`` (or ``all``), scored on ``test`` (or ``all``);
    ``n_resamples`` the paired resamples (None: :func:`comparison_resamples` of the test rows); ``seed`` the
    bootstrap's; ``binary`` adds Platt scaling; ``workers`` threads. ``python -m calib compare`` and the "Your
    model" report both call it."""
    fit_rows = parts.get("calibration", parts.get("all"))
    eval_rows = parts.get("test", parts.get("all"))
    if n_resamples is None:
        n_resamples = comparison_resamples(int(np.sum(eval_rows)))
    z = np.asarray(logits)  # each part is taken, then made float64: no float64 copy of every row at once
    return compare_calibrators(z[fit_rows].astype(np.float64), labels[fit_rows], z[eval_rows].astype(np.float64),
                               labels[eval_rows], n_resamples=n_resamples, seed=seed, binary=binary,
                               workers=workers)


def comparison_record(result):
    """A :class:`Comparison` and its :func:`compare_verdict` as plain values (``None`` for ``inf``): what
    ``compare --json`` prints besides the file and the split. Each method carries its ``hyperparameters``
    (:meth:`calib.calibrators.Calibrator.hyperparameters`: settings, fitted values, how they were chosen),
    ``changed_rows`` and every column of :data:`COMPARE_COLUMNS`."""
    methods = []
    for i, name in enumerate(result.methods):
        methods.append({"method": name, "zero_probability_rows": int(result.zero_rows[i]),
                        "hard_rows": int(result.hard_rows[i]),
                        "changed_rows": int(result.changed_rows[i]),
                        "hyperparameters": result.calibrators[name].hyperparameters(), "scores": {
            s: {"value": _plain(result.scores[s][i]), "change": _plain(result.change[s][i]),
                "range": [_plain(v) for v in result.spread[s][i]], "share_lower": float(result.share_lower[s][i])}
            for s in COMPARE_COLUMNS}})
    v = compare_verdict(result)
    return {"k": result.n_classes, "reference": "temperature", "n_bins": result.n_bins,
            "n_resamples": result.n_resamples, "bootstrap_seed": result.seed, "quantiles": list(result.quantiles),
            "skipped": dict(result.skipped), "methods": methods,
            "verdict": {"code": v.code, "beats": {m: list(s) for m, s in v.beats.items()},
                        "worse": {m: list(s) for m, s in v.worse.items()}}}
