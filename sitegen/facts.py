"""The engine's results as a context for prose, and the filters that format them.

Prose quotes numbers through these objects, e.g. ``{{ six.fit.nll | fixed(5) }}``
or ``{{ six.t1.ece_w[4] | pct(1) }}``. The filters round with the payload's
rule (:func:`calib.payload.to_units`), so a sentence and a slider readout
always print the same digits.

Per dataset (dashes become underscores: ``sim_600``):

``n``, ``k``, ``fitted_t``, ``fitted_on``, ``grid_fitted_t`` (grid argmin of NLL on the fitting part),
``t1`` / ``fit`` — a :class:`State` on the reported part (``all`` if unsplit, else ``test``),
``cal`` — ``{"t1": State, "fit": State}`` on the calibration part (split datasets only),
``examples`` — a row per example (six and twelve only).

Added for the prose (see :func:`build_facts`):

``n_cal`` / ``n_test`` (split datasets), ``groups`` (``{group: rows}``, mixed only),
``base_grid_t`` / ``base_grid_nll`` (NLL argmin on the plain geometric grid, without the inserted fitted T),
``brier_grid_t`` (the grid temperature with the lowest Brier score on the fitting part),
``ece_sweep_w`` / ``ece_sweep_a`` (``{B: {t1, fit}}``, ECE of the reported part for B = 1…50),
``bin_jumps_w4`` (six and twelve: the grid steps where a four-bin equal-width count changes),
each example's ``bin4_t1`` / ``bin4_fit`` (its four-bin equal-width bin, with ``lower``/``upper``), ``crosses``,
``p_true_t1`` / ``p_true_fit`` and ``loss_t1`` / ``loss_fit`` (its true class's probability and its own NLL),
each bin's ``share`` (its weighted gap rounded so a table's shares add up to the ECE shown, as the payload does).

Page-wide: ``softmax_example`` (the first six-row's probabilities at several T),
``lcg`` (the generator's constants), ``recipe`` (dataset constants),
``t_search`` (bounds and tolerance of the temperature fit), ``t_grid`` (the slider's temperature grid)
and ``bin_edges`` (``{B: edges}`` of the equal-width bins, for each offered bin count).
"""

import inspect
from types import SimpleNamespace

import numpy as np

from calib import datasets as recipes
from calib import fit_temperature, nll, reliability_bins, rng, scaled_probs, top_label
from calib.fitting import DEFAULT_BOUNDS, golden_section_minimise
from calib.payload import RATE_SCALE, shares_summing_to, to_units
from calib.precompute import GRID_BOUNDS, GRID_POINTS, MAX_SWEEP_BINS, OFFERED_BIN_COUNTS, base_grid, part_masks

__all__ = ["fixed", "pct", "num", "vec", "thousands", "build_facts", "FILTERS",
           "SOFTMAX_SHARP_T", "SOFTMAX_SOFT_T"]

# The two illustrative temperatures of the softmax walk-through (one sharpens, one softens).
SOFTMAX_SHARP_T = 0.5
SOFTMAX_SOFT_T = 2.0


def fixed(value, digits=3):
    """``value`` with ``digits`` decimals, rounded half away from zero like the payload."""
    scale = 10 ** int(digits)
    units = int(to_units(float(value), scale))
    sign = "−" if units < 0 else ""
    whole, frac = divmod(abs(units), scale)
    return f"{sign}{whole}.{frac:0{digits}d}" if digits else f"{sign}{whole}"


def pct(value, digits=1):
    """``value`` (a probability) as a percentage with ``digits`` decimals and a % sign."""
    return fixed(float(value) * 100, digits) + "%"


def num(value):
    """A constant as written in the code: an integer without decimals, else the shortest exact decimal."""
    number = float(value)
    if number.is_integer():
        text = str(int(number))
    else:
        text = repr(number)
    return text.replace("-", "−")


def vec(values, digits=None):
    """A vector in brackets, e.g. ``[3, 1, 0]`` (``num`` per entry) or ``[0.844, 0.114, 0.042]`` (``fixed``)."""
    parts = [num(v) if digits is None else fixed(v, digits) for v in values]
    return "[" + ", ".join(parts) + "]"


def thousands(value):
    """A whole number with thousands separators, e.g. ``6,000``."""
    return f"{int(value):,}"


FILTERS = {"fixed": fixed, "pct": pct, "num": num, "vec": vec, "thousands": thousands}


def _state(part, index):
    """Scalar metrics of one part at grid point ``index``."""
    def at(table):
        return {b: float(v[index]) for b, v in table.items()}

    bins_w = part.bins["equal-width"]
    shares = {b: shares_summing_to(s.weighted_gap[index], RATE_SCALE) / RATE_SCALE for b, s in bins_w.items()}
    return SimpleNamespace(
        nll=float(part.nll[index]), brier=float(part.brier[index]),
        conf=float(part.mean_confidence[index]), accuracy=part.accuracy,
        ece_w=at(part.ece["equal-width"]), ece_a=at(part.ece["adaptive"]),
        mce_w=at(part.mce["equal-width"]), mce_a=at(part.mce["adaptive"]),
        bins_w={b: [
            SimpleNamespace(lower=float(s.lower[index, j]), upper=float(s.upper[index, j]),
                            count=int(s.count[index, j]), conf=float(np.nan_to_num(s.confidence[index, j])),
                            acc=float(np.nan_to_num(s.accuracy[index, j])), gap=float(s.weighted_gap[index, j]),
                            share=float(shares[b][j]))
            for j in range(s.count.shape[1]) if s.count[index, j] > 0] for b, s in bins_w.items()},
    )


def _examples(result, t1_index, fit_index, grid):
    data = result.dataset
    conf, correct = top_label(data.logits, data.labels, grid[[t1_index, fit_index]])
    predicted = np.argmax(data.logits, axis=1)
    return [
        SimpleNamespace(number=i + 1, logits=data.logits[i].tolist(), label=int(data.labels[i]),
                        predicted=int(predicted[i]), correct=bool(correct[i]),
                        conf_t1=float(conf[0, i]), conf_fit=float(conf[1, i]))
        for i in range(data.labels.size)
    ]


def _bin_of(confidence, correct, n_bins=4):
    """The equal-width bin (``lower``, ``upper``, ``index``) that holds one confidence, by the engine's rule."""
    count = reliability_bins(np.array([confidence]), np.array([correct]), n_bins).count
    j = int(np.flatnonzero(count)[0])
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    return SimpleNamespace(index=j, lower=float(edges[j]), upper=float(edges[j + 1]))


def _enrich_examples(examples, result):
    """Per example: its four-bin equal-width bin at T = 1 and the fitted T (``bin4_t1``, ``bin4_fit``,
    ``crosses``), the probability of its true class (``p_true_t1``, ``p_true_fit``) and its own NLL
    (``loss_t1``, ``loss_fit``, nats)."""
    data = result.dataset
    for i, example in enumerate(examples):
        example.bin4_t1 = _bin_of(example.conf_t1, example.correct)
        example.bin4_fit = _bin_of(example.conf_fit, example.correct)
        example.crosses = example.bin4_t1.index != example.bin4_fit.index
        row, label = data.logits[i:i + 1], data.labels[i:i + 1]
        probs = scaled_probs(row, np.array([1.0, result.fitted_t]))[:, 0, example.label]
        example.p_true_t1, example.p_true_fit = float(probs[0]), float(probs[1])
        example.loss_t1 = nll(row, label, 1.0)
        example.loss_fit = nll(row, label, result.fitted_t)
    return examples


def _ece_sweep(part, scheme):
    """``{B: {t1, fit}}``: the part's ECE with B = 1…50 bins at T = 1 and at the fitted T."""
    table = part.ece_by_bins[scheme]
    return {b: SimpleNamespace(t1=float(table[0, b - 1]), fit=float(table[1, b - 1]))
            for b in range(1, MAX_SWEEP_BINS + 1)}


def _bin_jumps(part, grid, n_bins=4):
    """Where the equal-width bin counts change along the grid: ``[{before, after, counts_before, counts_after}]``.

    ``before``/``after`` are the neighbouring grid temperatures between which at least one example
    crosses a bin edge, so the ECE can jump there and nowhere else.
    """
    counts = part.bins["equal-width"][n_bins].count
    changed = np.flatnonzero(np.any(counts[1:] != counts[:-1], axis=1)) + 1
    return [SimpleNamespace(before=float(grid[i - 1]), after=float(grid[i]),
                            counts_before=counts[i - 1].tolist(), counts_after=counts[i].tolist())
            for i in changed]


def _base_grid_fit(dataset, fitted_on):
    """NLL argmin on the plain geometric grid (without the inserted fitted T), and its NLL."""
    rows = part_masks(dataset)[fitted_on]
    logits, labels = dataset.logits[rows], dataset.labels[rows]
    t = fit_temperature(logits, labels, method="grid", grid=base_grid())
    return float(t), float(nll(logits, labels, t))


def _softmax_example(six_result):
    """The first six-example row at T = 1, the fitted T, and the two illustrative temperatures."""
    logits = six_result.dataset.logits[:1]
    temps = {"t1": 1.0, "fit": six_result.fitted_t, "sharp": SOFTMAX_SHARP_T, "soft": SOFTMAX_SOFT_T}
    probs = scaled_probs(logits, np.array(list(temps.values())))[:, 0, :]
    at = {key: SimpleNamespace(t=float(t), probs=probs[i].tolist(), top=float(probs[i].max()),
                               ratio=float(probs[i][0] / probs[i][1]))
          for i, (key, t) in enumerate(temps.items())}
    return SimpleNamespace(logits=logits[0].tolist(), label=int(six_result.dataset.labels[0]),
                           uniform=1.0 / logits.shape[1], **at)


def _page_facts(precomputed):
    """Facts that belong to the page rather than one dataset: generator, recipes, search and grid."""
    plain = base_grid()
    tolerance = inspect.signature(golden_section_minimise).parameters["tolerance"].default
    return {
        "softmax_example": _softmax_example(precomputed.datasets["six"]),
        "lcg": SimpleNamespace(multiplier=rng.LCG_MULTIPLIER, increment=rng.LCG_INCREMENT,
                               modulus=rng.LCG_MODULUS, modulus_bits=rng.LCG_MODULUS.bit_length() - 1),
        "recipe": SimpleNamespace(
            six_logits=recipes.SIX_LOGITS, six_labels=recipes.SIX_LABELS,
            twelve_logits=recipes.TWELVE_LOGITS, twelve_labels=recipes.TWELVE_LABELS,
            sim_seed=recipes.SIM_SEED, sim_logit_range=recipes.SIM_LOGIT_RANGE,
            sim_label_t=recipes.SIM_LABEL_TEMPERATURE,
            overconfident_seed=recipes.OVERCONFIDENT_SEED, mixed_seed=recipes.MIXED_SEED,
            latent_scale=recipes.LATENT_SCALE, latent_boost=recipes.LATENT_BOOST,
            overconfident_sharpness=recipes.OVERCONFIDENT_SHARPNESS,
            mixed_sharpness=dict(recipes.MIXED_SHARPNESS),
        ),
        "t_search": SimpleNamespace(
            low=DEFAULT_BOUNDS[0], high=DEFAULT_BOUNDS[1],
            tolerance=tolerance, tolerance_exponent=int(round(np.log10(tolerance)))),
        "bin_edges": {b: np.linspace(0.0, 1.0, b + 1).tolist() for b in OFFERED_BIN_COUNTS},
        "t_grid": SimpleNamespace(points=GRID_POINTS, low=GRID_BOUNDS[0], high=GRID_BOUNDS[1],
                                step=float(plain[1] / plain[0] - 1.0), size=int(precomputed.grid.size)),
    }


def build_facts(precomputed):
    """``{dataset_key: namespace}`` for every dataset, as described in the module docstring."""
    grid, t1 = precomputed.grid, precomputed.t1_index
    facts = {}
    for name, result in precomputed.datasets.items():
        fit = precomputed.index_of(result.fitted_t)
        reported = result.parts.get("test") or result.parts["all"]
        fitting_part = result.parts[result.fitted_on]
        ns = SimpleNamespace(
            name=name, n=int(result.dataset.labels.size), k=int(result.dataset.logits.shape[1]),
            fitted_t=result.fitted_t, fitted_on=result.fitted_on,
            grid_fitted_t=float(grid[fitting_part.nll_argmin]),
            t1=_state(reported, t1), fit=_state(reported, fit),
        )
        if "calibration" in result.parts:
            cal = result.parts["calibration"]
            ns.cal = SimpleNamespace(t1=_state(cal, t1), fit=_state(cal, fit))
        if result.dataset.labels.size <= 12:
            ns.examples = _enrich_examples(_examples(result, t1, fit, grid), result)
        _add_prose_facts(ns, result, reported, grid)
        facts[name.replace("-", "_")] = ns
    facts.update(_page_facts(precomputed))
    return facts


def _add_prose_facts(ns, result, reported, grid):
    """The per-dataset additions listed in the module docstring."""
    data = result.dataset
    if data.is_calibration is not None:
        ns.n_cal = int(data.is_calibration.sum())
        ns.n_test = int((~data.is_calibration).sum())
    if data.groups is not None:
        names, counts = np.unique(data.groups, return_counts=True)
        ns.groups = {str(g): int(c) for g, c in zip(names, counts)}
    ns.base_grid_t, ns.base_grid_nll = _base_grid_fit(data, result.fitted_on)
    ns.ece_sweep_w = _ece_sweep(reported, "equal-width")
    ns.ece_sweep_a = _ece_sweep(reported, "adaptive")
    ns.brier_grid_t = float(grid[np.argmin(result.parts[result.fitted_on].brier)])
    if data.labels.size <= 12:
        ns.bin_jumps_w4 = _bin_jumps(reported, grid)
