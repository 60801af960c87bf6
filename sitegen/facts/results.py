"""The engine's results as a context for prose.

Prose quotes numbers through these objects, e.g. ``{{ six.fit.nll | fixed(5) }}``
or ``{{ six.t1.ece_w[4] | pct(1) }}``, written by the filters of :mod:`sitegen.common.numbers`.

Every value is read from the precomputation (:mod:`sitegen.compute.precompute`); nothing here calls the
engine, so the prose and the page can never disagree.

Per dataset (dashes become underscores, :func:`fact_key`: ``sim_600``):

``n``, ``k``, ``fitted_t``, ``fitted_on``, ``grid_fitted_t`` (grid argmin of NLL on the fitting part),
``t1`` / ``fit`` — a :class:`State` on the reported part (``all`` if unsplit, else ``test``),
``cal`` — ``{"t1": State, "fit": State}`` on the calibration part (split datasets only),
``examples`` — a row per example (six and twelve only).

Added for the prose (see :func:`build_facts`):

``n_cal`` / ``n_test`` (split datasets), ``groups`` (``{group: rows}``, mixed only),
``base_grid_t`` / ``base_grid_nll`` (NLL argmin on the plain geometric grid, without the inserted fitted T),
``ece_sweep_w`` / ``ece_sweep_a`` (``{B: {t1, fit}}``, ECE of the reported part for B = 1…50),
``bin_jumps_w4`` (six and twelve: the grid steps where a four-bin equal-width count changes),
each example's ``bin4_t1`` / ``bin4_fit`` (its four-bin equal-width bin, with ``lower``/``upper``), ``crosses``,
``p_true_t1`` / ``p_true_fit`` and ``loss_t1`` / ``loss_fit`` (its true class's probability and its own NLL),
each bin's ``share`` (its weighted gap rounded so a table's shares add up to the ECE shown, as the payload does),
``hits`` (right answers in it) and ``abs_gap`` (the absolute difference of accuracy and confidence),
``jumps_to_fit`` (the bin jumps between T = 1 and the fitted T), ``nll_gain`` (split datasets: ``cal`` and
``test``, NLL at T = 1 minus NLL at the fitted T), and for datasets that list their examples the facts of
:func:`_add_example_facts` (``hits``, ``misses``, ``crossers``, ``wrong_mover``, ``right_mover``, each bin's
``members`` and ``marked``, ``ece_verdict_w``).

For a dataset that lists its examples (six and twelve; see :func:`_example_roles`): ``n_correct``,
``correct_loss_t1`` (the correct examples' NLL at T = 1, summed), ``hit`` (the first correct example),
``big_miss`` / ``small_miss`` (the wrong examples with the largest and the smallest NLL at T = 1),
``rest_rise`` (how much the NLL of all the other examples rises, summed, from T = 1 to the fitted T) and each
example's ``mark`` (✓ or ✗).

Page-wide: ``src`` (the sources the page cites, ``content/sources.toml`` through :mod:`sitegen.facts.sources`:
per key ``year``, ``url``, ``label``, ``cite``) and ``n_sources`` (how many), ``softmax_example`` (the first
six-row's probabilities at several T),
``lcg`` (the generator's constants), ``recipe`` (dataset constants),
``t_search`` (bounds and tolerance of the temperature fit), ``t_grid`` (the slider's temperature grid)
``bin_edges`` (``{B: edges}`` of the equal-width bins, for each offered bin count) and ``table_bins``
(the bin count of the tables' ECE).

Prose holds words and ``{{ … }}`` expressions only: whatever needs a loop, a test or a selection is
computed here, so a translator never copies template logic.
"""

from types import SimpleNamespace

import numpy as np

from calib import datasets as recipes
from calib import rng
from sitegen.common.settings import (
    EXAMPLE_LIST_MAX_ROWS,
    FIT_BOUNDS,
    FIT_TOLERANCE,
    GRID_BOUNDS,
    GRID_POINTS,
    OFFERED_BIN_COUNTS,
    TABLE_BINS,
    VERDICT_MAX_BINS,
    WORKED_EXAMPLE,
    WORKED_EXAMPLE_BINS,
)
from sitegen.common.units import RATE_SCALE, shares_summing_to
from sitegen.compute.precompute import base_grid
from sitegen.facts.sources import SOURCES_FILE, load_sources, source_facts

__all__ = ["fact_key", "build_facts", "CORRECT_MARKS"]


def fact_key(name):
    """A dataset name as a name in the prose: dashes become underscores (``sim-600`` → ``sim_600``)."""
    return name.replace("-", "_")


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
                            share=float(shares[b][j]), hits=int(round(float(np.nan_to_num(s.accuracy[index, j]))
                                                                      * int(s.count[index, j]))),
                            abs_gap=abs(float(np.nan_to_num(s.accuracy[index, j]))
                                        - float(np.nan_to_num(s.confidence[index, j]))))
            for j in range(s.count.shape[1]) if s.count[index, j] > 0] for b, s in bins_w.items()},
    )


def _bin_view(table, row, i):
    """Example ``i``'s equal-width bin at row ``row`` (0: T = 1, 1: fitted T): ``index``, ``lower``, ``upper``."""
    return SimpleNamespace(index=int(table.bin_index[row, i]), lower=float(table.bin_lower[row, i]),
                           upper=float(table.bin_upper[row, i]))


def _examples(result):
    """A row per example, read from the precomputed :class:`sitegen.compute.precompute.ExampleScores`: logits,
    label, prediction and, at T = 1 and the fitted T, its confidence, its bin (``bin4_t1``, ``bin4_fit``,
    ``crosses``), the probability of its true class (``p_true_*``) and its own NLL (``loss_*``, nats)."""
    data, table = result.dataset, result.examples
    rows = []
    for i in range(data.labels.size):
        bin_t1, bin_fit = _bin_view(table, 0, i), _bin_view(table, 1, i)
        rows.append(SimpleNamespace(
            number=i + 1, logits=data.logits[i].tolist(), label=int(data.labels[i]),
            predicted=int(table.predicted[i]), correct=bool(table.correct[i]),
            conf_t1=float(table.confidence[0, i]), conf_fit=float(table.confidence[1, i]),
            bin4_t1=bin_t1, bin4_fit=bin_fit, crosses=bin_t1.index != bin_fit.index,
            p_true_t1=float(table.p_true[0, i]), p_true_fit=float(table.p_true[1, i]),
            loss_t1=float(table.loss[0, i]), loss_fit=float(table.loss[1, i]),
            mark=CORRECT_MARKS[bool(table.correct[i])]))
    return rows


CORRECT_MARKS = {True: "✓", False: "✗"}  # a right and a wrong prediction in tables (symbols, in every language)


def _example_roles(ns):
    """The examples the prose singles out, and the counts it quotes, for a dataset that lists its examples.

    ``hit`` is the first correct example; ``big_miss`` / ``small_miss`` are the wrong examples with the
    largest and the smallest NLL at T = 1; ``n_correct`` and ``correct_loss_t1`` count the correct ones
    and add up their NLL at T = 1; ``rest_rise`` adds up how much every example but ``big_miss`` loses from
    T = 1 to the fitted T.
    """
    hits = [e for e in ns.examples if e.correct]
    misses = sorted((e for e in ns.examples if not e.correct), key=lambda e: e.loss_t1)
    ns.n_correct = len(hits)
    ns.correct_loss_t1 = float(sum(e.loss_t1 for e in hits))
    ns.hit = hits[0] if hits else None
    ns.big_miss = misses[-1] if misses else None
    ns.small_miss = misses[0] if misses else None
    ns.rest_rise = float(sum(e.loss_fit - e.loss_t1 for e in ns.examples if e is not ns.big_miss))



def _sweep_view(part, scheme):
    """``{B: {t1, fit}}``: the part's precomputed ECE with B = 1…max_bins bins at T = 1 and at the fitted T."""
    table = part.ece_by_bins[scheme]
    return {b: SimpleNamespace(t1=float(table[0, b - 1]), fit=float(table[1, b - 1]))
            for b in range(1, table.shape[1] + 1)}


def _bin_jumps(part, grid, n_bins=WORKED_EXAMPLE_BINS):
    """Where the equal-width bin counts change along the grid: ``[{before, after, counts_before, counts_after}]``.

    ``before``/``after`` are the neighbouring grid temperatures between which at least one example
    crosses a bin edge, so the ECE can jump there and nowhere else.
    """
    counts = part.bins["equal-width"][n_bins].count
    changed = np.flatnonzero(np.any(counts[1:] != counts[:-1], axis=1)) + 1
    return [SimpleNamespace(before=float(grid[i - 1]), after=float(grid[i]),
                            counts_before=counts[i - 1].tolist(), counts_after=counts[i].tolist())
            for i in changed]


def _softmax_example(walk):
    """The precomputed :class:`sitegen.compute.precompute.SoftmaxWalkthrough` as ``{logits, label, uniform}`` and,
    per temperature name, ``{t, probs, top, ratio}``."""
    at = {key: SimpleNamespace(t=float(t), probs=walk.probs[i].tolist(), top=float(walk.top[i]),
                               ratio=float(walk.ratio[i]))
          for i, (key, t) in enumerate(walk.temperatures.items())}
    return SimpleNamespace(logits=walk.logits.tolist(), label=walk.label, uniform=1.0 / walk.logits.size, **at)


def _bin_edges(precomputed):
    """``{B: edges}`` of the equal-width bins for each offered bin count, read from the precomputed bins."""
    part = next(iter(precomputed.datasets[WORKED_EXAMPLE].parts.values()))
    return {b: np.append(part.bins["equal-width"][b].lower[0], part.bins["equal-width"][b].upper[0, -1]).tolist()
            for b in OFFERED_BIN_COUNTS}


def _page_facts(precomputed, sources_file):
    """Facts that belong to the page rather than one dataset: sources, generator, recipes, search and grid."""
    plain = base_grid()
    sources = load_sources(sources_file)
    return {
        "src": source_facts(sources),
        "n_sources": len(sources),
        "softmax_example": _softmax_example(precomputed.softmax),
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
            digits_seed=recipes.DIGITS_SPLIT_SEED, digits_train=recipes.DIGITS_TRAIN_ROWS,
            digits_cal=recipes.DIGITS_CALIBRATION_ROWS, digits_hidden=recipes.DIGITS_HIDDEN_UNITS,
            digits_epochs=recipes.DIGITS_EPOCHS,
        ),
        "t_search": SimpleNamespace(
            low=FIT_BOUNDS[0], high=FIT_BOUNDS[1],
            tolerance=FIT_TOLERANCE, tolerance_exponent=int(round(np.log10(FIT_TOLERANCE)))),
        "bin_edges": _bin_edges(precomputed),
        "table_bins": TABLE_BINS,
        "t_grid": SimpleNamespace(points=GRID_POINTS, low=GRID_BOUNDS[0], high=GRID_BOUNDS[1],
                                step=float(plain[1] / plain[0] - 1.0), size=int(precomputed.grid.size)),
    }


def build_facts(precomputed, sources_file=SOURCES_FILE):
    """``{dataset_key: namespace}`` for every dataset, and the page-wide facts, as described in the module
    docstring; ``sources_file`` is the bibliography (:func:`sitegen.facts.sources.load_sources`)."""
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
        if result.examples is not None:
            ns.examples = _examples(result)
            _example_roles(ns)
        _add_prose_facts(ns, result, reported, grid)
        facts[fact_key(name)] = ns
    facts.update(_page_facts(precomputed, sources_file))
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
    ns.base_grid_t, ns.base_grid_nll = result.base_grid_t, result.base_grid_nll
    ns.ece_sweep_w = _sweep_view(reported, "equal-width")
    ns.ece_sweep_a = _sweep_view(reported, "adaptive")
    if data.labels.size <= EXAMPLE_LIST_MAX_ROWS:
        ns.bin_jumps_w4 = _bin_jumps(reported, grid)
        ns.jumps_to_fit = [j for j in ns.bin_jumps_w4 if j.after > 1 and j.before < ns.fitted_t]
    if "calibration" in result.parts:
        ns.nll_gain = SimpleNamespace(cal=ns.cal.t1.nll - ns.cal.fit.nll, test=ns.t1.nll - ns.fit.nll)
    if getattr(ns, "examples", None):
        _add_example_facts(ns)


def _add_example_facts(ns, n_bins=WORKED_EXAMPLE_BINS, max_bins=VERDICT_MAX_BINS):
    """What the prose says about a dataset small enough to list its examples, as data rather than template
    logic: ``hits`` / ``misses`` (examples right and wrong), ``crossers`` (numbers of the examples whose
    ``n_bins``-bin equal-width bin differs between T = 1 and the fitted T), ``wrong_mover`` / ``right_mover``
    (the first wrong and the first right one of them, or None), each ``n_bins``-bin's ``members`` (example
    numbers) and ``marked`` (the same, a wrong one followed by ✗) at ``t1`` and ``fit``, and
    ``ece_verdict_w`` (``max_bins``, and the bin counts up to it where the fitted T gives a ``lower`` or a
    ``higher`` equal-width ECE than T = 1).
    """
    examples = ns.examples
    ns.hits = sum(e.correct for e in examples)
    ns.misses = len(examples) - ns.hits
    movers = [e for e in examples if e.crosses]
    ns.crossers = [e.number for e in movers]
    ns.wrong_mover = next((e for e in movers if not e.correct), None)
    ns.right_mover = next((e for e in movers if e.correct), None)
    for state, key in ((ns.t1, "bin4_t1"), (ns.fit, "bin4_fit")):
        for b in state.bins_w[n_bins]:
            inside = [e for e in examples if getattr(e, key).lower == b.lower]
            b.members = [e.number for e in inside]
            b.marked = [f"{e.number}" if e.correct else f"{e.number} \u2717" for e in inside]
    sweep = ns.ece_sweep_w
    ns.ece_verdict_w = SimpleNamespace(
        max_bins=max_bins,
        lower=[b for b, v in sweep.items() if b <= max_bins and v.fit < v.t1],
        higher=[b for b, v in sweep.items() if b <= max_bins and v.fit > v.t1])
