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

The top label of a row is its most probable class (the first on ties), so a
method that changes the ranking also changes which rows are right.

An infinite NLL is reported as it is. Histogram binning and isotonic
calibration can give the true class probability exactly 0; the mean NLL over
the test rows is then ``inf`` (``zero_rows`` says on how many rows), and so is
the NLL of every resample that draws one of them. Quantiles over resamples
follow numpy's "linear" rule, with ``inf`` wherever an interpolation touches an
infinite draw. Nothing is clipped: a clipped NLL would depend on the clip.

Matrix scaling, Dirichlet calibration and vector scaling are skipped above
:data:`MAX_AFFINE_CLASSES` classes (their fits grow with K² or need many rows
per class); ``skipped`` names them with the reason.
"""

from typing import Dict, NamedTuple, Tuple

import numpy as np

from .binned import HistogramBinning, IsotonicCalibration, ScalingBinning
from .binning import ece, equal_width_ids
from .bootstrap import DEFAULT_RESAMPLES, resample_counts
from .calibrators import EnsembleTemperatureScaling, TemperatureScaling
from .classwise import classwise_ece
from .matrix import DirichletCalibration, MatrixScaling, VectorScaling
from .quantiles import SPREAD_QUANTILES
from .scaling import as_labels, as_logits
from .smooth import smooth_ece
from .validation import as_generator, as_quantile_levels, positive_int

__all__ = ["CALIBRATORS", "AFFINE_METHODS", "MAX_AFFINE_CLASSES", "COMPARE_SCORES", "COMPARE_BINS", "Comparison",
           "compare_calibrators", "method_row_scores", "inf_quantiles"]

# name → calibrator class, in the order of the table; "temperature" is the reference
CALIBRATORS = {
    "temperature": TemperatureScaling, "vector": VectorScaling, "matrix": MatrixScaling,
    "dirichlet": DirichletCalibration, "histogram": HistogramBinning, "isotonic": IsotonicCalibration,
    "scaling-binning": ScalingBinning, "ensemble-temperature": EnsembleTemperatureScaling,
}
AFFINE_METHODS = ("vector", "matrix", "dirichlet")
MAX_AFFINE_CLASSES = 100   # above this many classes the affine calibrators are skipped
COMPARE_SCORES = ("nll", "brier", "ece_w", "ece_a", "cw_ece", "smooth")
COMPARE_BINS = 15          # bins of every binned score (as Guo et al. report)
_BLOCK_ELEMENTS = 1 << 23  # resampled values (resamples × rows × classes) held at once


class Comparison(NamedTuple):
    """The table of :func:`compare_calibrators`: M methods (row 0 is temperature scaling) by the scores.

    ``scores[s]`` (M,): each method's score ``s`` on the test rows (``inf`` for an infinite NLL);
    ``change[s]`` (M,): method minus temperature scaling; ``spread[s]`` (M, Q): the ``quantiles`` of that
    change over the paired resamples; ``share_lower[s]`` (M,): the share of resamples in which the method
    scores strictly lower than temperature scaling. ``zero_rows`` (M,): test rows whose label got
    probability 0. ``skipped``: ``{method: reason}``. ``calibrators``: the fitted calibrators by name.
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


def inf_quantiles(values, quantiles):
    """Linear-rule quantiles along axis 0 of ``values`` (R, ...) that may hold ``+inf``: array (Q, ...).

    Equal to ``numpy.quantile(values, quantiles, axis=0)`` for finite values; where the interpolation
    involves an infinite draw the quantile is ``inf`` (numpy would give NaN for inf − inf).
    """
    ordered = np.sort(np.asarray(values, dtype=np.float64), axis=0)
    out = []
    for level in quantiles:
        position = level * (ordered.shape[0] - 1)
        low = int(np.floor(position))
        high = min(low + 1, ordered.shape[0] - 1)
        frac = position - low
        a, b = ordered[low], ordered[high]
        with np.errstate(invalid="ignore"):
            value = np.where(frac == 0, a, np.where(np.isinf(b), b, a + (b - a) * frac))
        out.append(value)
    return np.stack(out)


def method_row_scores(probs, labels):
    """Per test row: ``(nll, brier, confidence, correct)`` of probability rows ``probs`` (n, K) and ``labels`` (n,).

    ``nll`` (nats) is ``inf`` where the label has probability 0; ``correct`` says whether the most
    probable class (the first on ties) is the label.
    """
    rows = np.arange(labels.size)
    picked = probs[rows, labels]
    with np.errstate(divide="ignore"):
        nll = -np.log(picked)
    brier = (probs ** 2).sum(axis=1) - 2.0 * picked + 1.0
    top = np.argmax(probs, axis=1)
    return nll, np.clip(brier, 0.0, 2.0), probs[rows, top], top == labels


def _resample_indices(counts):
    """Row indices of each resample (R, n), ascending, from counts (R, n)."""
    r, n = counts.shape
    return np.repeat(np.tile(np.arange(n), r), counts.ravel()).reshape(r, n)


def _binned_gap_draws(counts, residual, ids, n_bins):
    """Σ_b |Σ_i counts[r, i] · residual[i, k] · [ids[i, k] = b]| / n per resample and column k: (R, K).

    Equal-width bins do not move when rows are resampled, so every bin's residual sum is one product of the
    counts with a sparse (n, K·B) matrix holding each row's residual in its bin's column.
    """
    import scipy.sparse  # imported on first use, as in calib.calibrators

    n, k = residual.shape
    columns = (np.arange(k)[None, :] * n_bins + ids).ravel()
    rows = np.repeat(np.arange(n), k)
    spread = scipy.sparse.csr_matrix((residual.ravel(), (rows, columns)), shape=(n, k * n_bins))
    sums = np.asarray((spread.T @ counts.T.astype(np.float64)).T)  # (R, K·B)
    return np.abs(sums).reshape(-1, k, n_bins).sum(axis=2) / n


def _draws(probs, labels, nll, brier, conf, hits, counts, n_bins):
    """Every resample's six scores for one method: ``{score: (R,)}``."""
    n, k = probs.shape
    weights = counts.astype(np.float64)
    zero = ~np.isfinite(nll)
    out = {"nll": weights @ np.where(zero, 0.0, nll) / n, "brier": weights @ brier / n}
    out["nll"][counts[:, zero].sum(axis=1) > 0] = np.inf
    onehot = labels[:, None] == np.arange(k)[None, :]
    out["cw_ece"] = _binned_gap_draws(counts, onehot - probs, equal_width_ids(probs, n_bins), n_bins).mean(axis=1)
    out["ece_w"] = _binned_gap_draws(counts, (hits - conf)[:, None], equal_width_ids(conf, n_bins)[:, None],
                                     n_bins)[:, 0]
    out["ece_a"], out["smooth"] = np.empty(counts.shape[0]), np.empty(counts.shape[0])
    block = max(1, _BLOCK_ELEMENTS // n)
    for r0 in range(0, counts.shape[0], block):
        idx = _resample_indices(counts[r0:r0 + block])
        rows = slice(r0, r0 + idx.shape[0])
        c, h = conf[idx], hits[idx]
        out["ece_a"][rows] = ece(c, h, n_bins, "adaptive")
        out["smooth"][rows] = smooth_ece(c, h).value
    return out


def compare_calibrators(cal_logits, cal_labels, test_logits, test_labels, n_resamples=DEFAULT_RESAMPLES, seed=0,
                        n_bins=COMPARE_BINS, quantiles=SPREAD_QUANTILES, max_affine_classes=MAX_AFFINE_CLASSES,
                        fitted=None):
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
    methods = tuple(name for name in CALIBRATORS if name not in skipped)
    n = y_test.size
    counts = resample_counts(n, resamples, as_generator(int(seed)))
    fits, scores, draws, zero_rows = {}, {s: [] for s in COMPARE_SCORES}, {s: [] for s in COMPARE_SCORES}, []
    for name in methods:
        calibrator = (fitted or {}).get(name) or CALIBRATORS[name]().fit(z_cal, y_cal)
        fits[name] = calibrator
        probs = calibrator.predict_proba(z_test)
        nll, brier, conf, hits = method_row_scores(probs, y_test)
        zero_rows.append(int(np.sum(~np.isfinite(nll))))
        point = {"nll": float(np.mean(nll)), "brier": float(np.mean(brier)),
                 "ece_w": ece(conf, hits, n_bins, "equal-width"), "ece_a": ece(conf, hits, n_bins, "adaptive"),
                 "cw_ece": classwise_ece(probs, y_test, n_bins),
                 "smooth": float(smooth_ece(conf, hits).value[0])}
        for s in COMPARE_SCORES:
            scores[s].append(point[s])
        for s, values in _draws(probs, y_test, nll, brier, conf, hits, counts, n_bins).items():
            draws[s].append(values)
    table = {s: np.array(v) for s, v in scores.items()}
    change, spread, lower = {}, {}, {}
    for s in COMPARE_SCORES:
        d = np.stack(draws[s], axis=1)  # (R, M)
        with np.errstate(invalid="ignore"):
            moved = d - d[:, :1]
            change[s] = table[s] - table[s][0]
        moved[np.isinf(d) & np.isinf(d[:, :1])] = 0.0  # both infinite on one resample: no measurable change
        spread[s] = inf_quantiles(moved, q).T
        lower[s] = np.mean(d < d[:, :1], axis=0)
    return Comparison(methods, int(y_cal.size), int(n), int(k), n_bins, resamples, int(seed), q, table, change,
                      spread, lower, np.array(zero_rows), skipped, fits)


# ------------------------------------------------------------------ python -m calib compare FILE

SCORE_LABELS = {"nll": "NLL (nats)", "brier": "Brier", "ece_w": "ECE equal-width", "ece_a": "ECE adaptive",
                "cw_ece": "class-wise ECE", "smooth": "smooth ECE"}


def _plain(value):
    """A float for JSON: ``None`` stands for an infinite value (JSON has no infinity)."""
    return float(value) if np.isfinite(value) else None


def comparison_report(path, split=None, seed=None, n_resamples=DEFAULT_RESAMPLES, bootstrap_seed=0):
    """What ``python -m calib compare FILE`` prints, as a dict of plain values (raises :class:`calib.InputError`).

    The rows are split as ``python -m calib fit`` splits them; ``None`` in a score means ``inf``.
    """
    from .io import DEFAULT_SPLIT_SEED, load_predictions, split_masks

    seed = DEFAULT_SPLIT_SEED if seed is None else seed
    data = load_predictions(path)
    parts = split_masks(data.labels.size, split, data.split, seed=seed, source=str(path))
    rule = split or ("file" if data.split is not None else "random")
    fit_rows = parts.get("calibration", parts.get("all"))
    eval_rows = parts.get("test", parts.get("all"))
    logits = data.logits.astype(np.float64, copy=False)
    result = compare_calibrators(logits[fit_rows], data.labels[fit_rows], logits[eval_rows], data.labels[eval_rows],
                                 n_resamples=n_resamples, seed=bootstrap_seed)
    methods = []
    for i, name in enumerate(result.methods):
        methods.append({"method": name, "zero_probability_rows": int(result.zero_rows[i]), "scores": {
            s: {"value": _plain(result.scores[s][i]), "change": _plain(result.change[s][i]),
                "range": [_plain(v) for v in result.spread[s][i]], "share_lower": float(result.share_lower[s][i])}
            for s in COMPARE_SCORES}})
    return {"file": str(path), "sha256": data.sha256, "n": int(data.labels.size), "k": result.n_classes,
            "split": {"rule": rule, "seed": seed if rule == "random" else None,
                      "parts": {name: int(mask.sum()) for name, mask in parts.items()}},
            "reference": "temperature", "n_bins": result.n_bins, "n_resamples": result.n_resamples,
            "bootstrap_seed": result.seed, "quantiles": list(result.quantiles),
            "skipped": dict(result.skipped), "methods": methods}


def _cell(value, digits=4):
    return "inf" if value is None else f"{value:.{digits}f}"


def comparison_text(report):
    """The report of :func:`comparison_report` as a table: one block per score, one line per method."""
    q = report["quantiles"]
    parts = ", ".join(f"{rows} {name}" for name, rows in report["split"]["parts"].items())
    lines = [f"{report['file']}: {report['n']} rows, {report['k']} classes; split {report['split']['rule']} ({parts})",
             f"scores on the test rows; change = method − temperature scaling, its {q[0]:.0%}–{q[-1]:.0%} range "
             f"over {report['n_resamples']} paired resamples (seed {report['bootstrap_seed']}); inf: a label got "
             f"probability 0"]
    for name, reason in report["skipped"].items():
        lines.append(f"{name}: {reason}")
    for s in COMPARE_SCORES:
        lines.append(f"{SCORE_LABELS[s]} ({report['n_bins']} bins)" if s in ("ece_w", "ece_a", "cw_ece")
                     else SCORE_LABELS[s])
        for m in report["methods"]:
            cell = m["scores"][s]
            low, high = cell["range"]
            lines.append(f"  {m['method']:22s} {_cell(cell['value']):>8s}  change {_cell(cell['change']):>8s}"
                         f"  [{_cell(low)}, {_cell(high)}]")
    return "\n".join(lines)


def add_compare_command(commands, split_rules):
    """Add the ``compare`` subcommand to an argparse subparsers object."""
    command = commands.add_parser("compare", help="compare every calibrator with temperature scaling on FILE",
                                  description=__doc__.splitlines()[0])
    command.add_argument("file", help=".npz or .csv of logits (or probabilities) and labels")
    command.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    command.add_argument("--split", choices=split_rules, default=None, help="how rows are split, as for 'fit'")
    command.add_argument("--seed", type=int, default=None, help="seed of the random split, as for 'fit'")
    command.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                         help=f"paired bootstrap resamples (default {DEFAULT_RESAMPLES}; seed 0)")


def run_compare_command(args, prog):
    """Run ``compare`` for parsed ``args``; returns the exit status (2: bad input, one line on stderr)."""
    import json
    import sys

    from .io import SPLIT_NONE_NOTE, InputError

    if args.resamples < 2 or (args.seed is not None and args.seed < 0):
        print(f"{prog} compare: error: --resamples must be at least 2 and --seed non-negative", file=sys.stderr)
        return 2
    try:
        report = comparison_report(args.file, args.split, args.seed, args.resamples)
    except InputError as error:
        print(f"{prog}: error: " + " ".join(str(error).split()), file=sys.stderr)
        return 2
    except ValueError as error:  # a file the calibrators cannot fit (e.g. too few rows to cross-validate)
        print(f"{prog}: error: {args.file}: " + " ".join(str(error).split()), file=sys.stderr)
        return 2
    if report["split"]["rule"] == "none":
        print(f"{prog}: warning: {SPLIT_NONE_NOTE}", file=sys.stderr)
    print(json.dumps(report, allow_nan=False) if args.json else comparison_text(report))
    return 0
