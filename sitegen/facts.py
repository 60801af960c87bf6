"""The engine's results as a context for prose, and the filters that format them.

Prose quotes numbers through these objects, e.g. ``{{ six.fit.nll | fixed(5) }}``
or ``{{ six.t1.ece_w[4] | pct(1) }}``. The filters round with the payload's
rule (:func:`sitegen.payload.to_units`), so a sentence and a slider readout
always print the same digits.

Every value is read from the precomputation (:mod:`sitegen.precompute`); nothing here calls the
engine, so the prose and the page can never disagree.

Per dataset (dashes become underscores, :func:`fact_key`: ``sim_600``):

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

Page-wide: ``src`` (the sources the page cites, :data:`SOURCES`: per key ``year``, ``url``, ``label``,
``cite``), ``softmax_example`` (the first six-row's probabilities at several T),
``lcg`` (the generator's constants), ``recipe`` (dataset constants),
``t_search`` (bounds and tolerance of the temperature fit), ``t_grid`` (the slider's temperature grid)
``bin_edges`` (``{B: edges}`` of the equal-width bins, for each offered bin count) and ``table_bins``
(the bin count of the tables' ECE).

Prose holds words and ``{{ … }}`` expressions only: whatever needs a loop, a test or a selection is
computed here, so a translator never copies template logic.
"""

import functools
import html
from types import SimpleNamespace
from urllib.parse import quote

import numpy as np

from calib import datasets as recipes
from calib import rng

from .payload import RATE_SCALE, shares_summing_to, to_units
from .precompute import base_grid
from .settings import (
    EXAMPLE_LIST_MAX_ROWS, FIT_BOUNDS, FIT_TOLERANCE, GRID_BOUNDS, GRID_POINTS, OFFERED_BIN_COUNTS, TABLE_BINS,
    VERDICT_MAX_BINS, WORKED_EXAMPLE, WORKED_EXAMPLE_BINS,
)

__all__ = ["fixed", "pct", "num", "sig", "temp", "vec", "thousands", "interval", "seq", "series", "number_filters",
           "PLAIN_FORMAT", "FORMAT_KEYS", "fact_key", "build_facts", "FILTERS", "CORRECT_MARKS", "SOURCES"]


def fact_key(name):
    """A dataset name as a name in the prose: dashes become underscores (``sim-600`` → ``sim_600``)."""
    return name.replace("-", "_")


# How numbers are written: the ``[format]`` table of a language's strings.toml. These are the English
# settings; a filter given a partial table (as some tests do) takes the rest from here.
PLAIN_FORMAT = {
    "decimal": ".",                    # decimal mark
    "group": ",",                      # between groups of three digits of a count
    "group_from": 4,                   # the fewest digits a grouped count has (4: 6,000; 5: 6000 but 60 000)
    "percent": "{value}%",             # a percentage; {value} is the number
    "interval": "[{lo}, {hi}{close}",  # a bin; {close} is ")" or, for the last bin, "]"
    "list": ", ",                      # between the items of a list of numbers
    "list_and": " and ",               # before the last item of a list written out in prose
    "points": "{value} pp",            # a difference of two percentages, in percentage points
}
FORMAT_KEYS = tuple(PLAIN_FORMAT)


def _format(fmt):
    """``fmt`` completed with :data:`PLAIN_FORMAT` for the keys it lacks."""
    return PLAIN_FORMAT if fmt is None else {**PLAIN_FORMAT, **fmt}


def _minus(text):
    return text.replace("-", "\u2212")


def fixed(value, digits=3, fmt=None):
    """``value`` with ``digits`` decimals, rounded half away from zero like the payload."""
    scale = 10 ** int(digits)
    units = int(to_units(float(value), scale))
    sign = "\u2212" if units < 0 else ""
    whole, frac = divmod(abs(units), scale)
    return f"{sign}{whole}{_format(fmt)['decimal']}{frac:0{digits}d}" if digits else f"{sign}{whole}"


def pct(value, digits=1, fmt=None):
    """``value`` (a probability) as a percentage with ``digits`` decimals, in the language's percent pattern."""
    return _format(fmt)["percent"].replace("{value}", fixed(float(value) * 100, digits, fmt))


def pp(value, digits=1, fmt=None):
    """``value``, a difference of two probabilities, in percentage points (``0.012`` → ``1.2 pp``): the one rule
    for a difference of percentages, in the language's ``points`` pattern (static/js/core.js ``CT.points`` agrees)."""
    return _format(fmt)["points"].replace("{value}", fixed(float(value) * 100, digits, fmt))


def num(value, fmt=None):
    """A constant as written in the code: an integer without decimals or grouping, else the shortest exact decimal."""
    number = float(value)
    text = str(int(number)) if number.is_integer() else repr(number).replace(".", _format(fmt)["decimal"])
    return _minus(text)


def sig(value, digits=4, fmt=None):
    """``value`` to ``digits`` significant digits, trailing zeros kept (as JavaScript's ``toPrecision``)."""
    return _minus(f"{float(value):#.{int(digits)}g}".rstrip(".").replace(".", _format(fmt)["decimal"]))


def temp(value, fmt=None):
    """A temperature, by the page's one rule: three significant digits (``1.23``; static/js/core.js ``CT.temp``
    agrees). The fitting section alone prints the fitted T in full, with ``fixed``, and says so."""
    return sig(value, 3, fmt)


def vec(values, digits=None, fmt=None):
    """A vector in brackets, e.g. ``[3, 1, 0]`` (``num`` per entry) or ``[0.844, 0.114, 0.042]`` (``fixed``)."""
    parts = [num(v, fmt) if digits is None else fixed(v, digits, fmt) for v in values]
    return "[" + _format(fmt)["list"].join(parts) + "]"


def thousands(value, fmt=None):
    """A count, its digits grouped in threes from ``group_from`` digits on (``6,000``; Spanish ``6000``, ``60 000``).

    Only for counts: seeds, generator constants and years are written with :func:`num` or as they are.
    """
    fmt = _format(fmt)
    number = int(value)
    digits = str(abs(number))
    if len(digits) >= int(fmt["group_from"]):
        head = len(digits) % 3 or 3
        digits = fmt["group"].join([digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)])
    return ("\u2212" if number < 0 else "") + digits


def interval(bin, digits=None, fmt=None):
    """A bin ``[lower, upper)`` (closed, ``]``, when it ends at 1) in the language's interval pattern.

    ``bin`` has ``lower`` and ``upper``, or is a pair of edges; the ends have ``digits`` decimals, or
    are written as constants (:func:`num`) without ``digits``.
    """
    lower, upper = (bin.lower, bin.upper) if hasattr(bin, "lower") else (bin[0], bin[1])

    def end(value):
        return num(value, fmt) if digits is None else fixed(value, digits, fmt)

    return (_format(fmt)["interval"].replace("{lo}", end(lower)).replace("{hi}", end(upper))
            .replace("{close}", "]" if upper >= 1 else ")"))


def seq(values, fmt=None):
    """Items (numbers as they are, or strings) separated by the language's list separator: ``1, 3, 5``."""
    return _format(fmt)["list"].join(str(v) for v in values)


def series(values, fmt=None):
    """Items written out in prose: ``3``, ``3 and 5``, ``1, 3 and 5`` (the language's ``list_and``)."""
    items = [str(v) for v in values]
    if len(items) < 2:
        return "".join(items)
    return _format(fmt)["list"].join(items[:-1]) + _format(fmt)["list_and"] + items[-1]


def number_filters(fmt=None):
    """The page's number filters, writing numbers with the ``[format]`` table ``fmt`` of one language.

    One set of functions serves every language (and the templates, the prose, the tables and the
    figures): only the table changes. Without ``fmt``, the English settings.
    """
    fmt = _format(fmt)
    return {name: functools.partial(function, fmt=fmt) for name, function in _FILTER_FUNCTIONS.items()}


_FILTER_FUNCTIONS = {"fixed": fixed, "pct": pct, "pp": pp, "num": num, "sig": sig, "temp": temp, "vec": vec, "thousands": thousands,
                     "interval": interval, "seq": seq, "series": series}
FILTERS = dict(_FILTER_FUNCTIONS)  # the English filters, as plain functions

# The sources the page cites: key → (how the prose cites it, year, identifier). An identifier is a DOI
# ("doi:…"), an arXiv id ("arXiv:…"), a web address, or None for a work with neither (then the page cites it
# in full, without a link). Years live here so the sources section quotes them as expressions.
SOURCES = {
    "brier": ("Brier", 1950, "doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2"),
    "murphy_winkler": ("Murphy and Winkler", 1977, "doi:10.2307/2346866"),
    "degroot_fienberg": ("DeGroot and Fienberg", 1983, "doi:10.2307/2987588"),
    "numerical_recipes": ("Press et al.", 1992, None),
    "platt": ("Platt", 2000, None),
    "zadrozny_elkan": ("Zadrozny and Elkan", 2002, "doi:10.1145/775047.775151"),
    "niculescu_mizil_caruana": ("Niculescu-Mizil and Caruana", 2005, "doi:10.1145/1102351.1102430"),
    "gneiting_raftery": ("Gneiting and Raftery", 2007, "doi:10.1198/016214506000001437"),
    "brocker_smith": ("Bröcker and Smith", 2007, "doi:10.1175/WAF993.1"),
    "naeini": ("Naeini et al.", 2015, "doi:10.1609/aaai.v29i1.9602"),
    "guo": ("Guo et al.", 2017, "arXiv:1706.04599"),
    "kleinberg": ("Kleinberg et al.", 2017, "arXiv:1609.05807"),
    "pleiss": ("Pleiss et al.", 2017, "arXiv:1709.02012"),
    "hebert_johnson": ("Hébert-Johnson et al.", 2018, "arXiv:1711.08513"),
    "kumar": ("Kumar et al.", 2019, "arXiv:1909.10155"),
    "vaicenavicius": ("Vaicenavicius et al.", 2019, "arXiv:1902.06977"),
    "widmann": ("Widmann et al.", 2019, "arXiv:1910.11385"),
    "kull": ("Kull et al.", 2019, "arXiv:1910.12656"),
    "ovadia": ("Ovadia et al.", 2019, "arXiv:1906.02530"),
    "nixon": ("Nixon et al.", 2019, "arXiv:1904.01685"),
    "minderer": ("Minderer et al.", 2021, "arXiv:2106.07998"),
    "gupta_ramdas": ("Gupta and Ramdas", 2022, "arXiv:2107.08353"),
    "roelofs": ("Roelofs et al.", 2022, "arXiv:2012.08668"),
    "blasiok_et_al": ("Błasiok et al.", 2023, "arXiv:2211.16886"),
    "blasiok_nakkiran": ("Błasiok and Nakkiran", 2024, "arXiv:2309.12236"),
    "sklearn": ("scikit-learn", None, "https://scikit-learn.org/stable/modules/calibration.html"),
}


def source_link(identifier):
    """``(url, label)`` of a source identifier: a DOI → https://doi.org/…, an arXiv id → https://arxiv.org/abs/…,
    a web address as it is; the label is HTML-escaped (a DOI may hold ``<`` and ``>``).

    >>> source_link("arXiv:1706.04599")
    ('https://arxiv.org/abs/1706.04599', 'arXiv:1706.04599')
    >>> source_link("doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2")[0]
    'https://doi.org/10.1175/1520-0493(1950)078%3C0001:VOFEIT%3E2.0.CO;2'
    """
    if identifier.startswith("doi:"):
        url = "https://doi.org/" + quote(identifier[4:], safe="/():;.-_")
    elif identifier.startswith("arXiv:"):
        url = "https://arxiv.org/abs/" + identifier[6:]
    else:
        url = identifier
    return url, html.escape(identifier, quote=True)


def _sources():
    """``src``: per key of :data:`SOURCES` a namespace with ``cite``, ``year``, ``url`` and ``label`` (None
    for a work without a DOI, arXiv page or web address)."""
    out = {}
    for key, (cite, year, identifier) in SOURCES.items():
        url, label = source_link(identifier) if identifier else (None, None)
        # An identifier is code, not words: <code> keeps it out of translation (the label is escaped already).
        label = f"<code>{label}</code>" if label else None
        out[key] = SimpleNamespace(cite=cite, year=year, url=url, label=label)
    return SimpleNamespace(**out)


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
    """A row per example, read from the precomputed :class:`sitegen.precompute.ExampleScores`: logits,
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
    """The precomputed :class:`sitegen.precompute.SoftmaxWalkthrough` as ``{logits, label, uniform}`` and,
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


def _page_facts(precomputed):
    """Facts that belong to the page rather than one dataset: generator, recipes, search and grid."""
    plain = base_grid()
    return {
        "src": _sources(),
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
        ),
        "t_search": SimpleNamespace(
            low=FIT_BOUNDS[0], high=FIT_BOUNDS[1],
            tolerance=FIT_TOLERANCE, tolerance_exponent=int(round(np.log10(FIT_TOLERANCE)))),
        "bin_edges": _bin_edges(precomputed),
        "table_bins": TABLE_BINS,
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
        if result.examples is not None:
            ns.examples = _examples(result)
            _example_roles(ns)
        _add_prose_facts(ns, result, reported, grid)
        facts[fact_key(name)] = ns
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
    ns.base_grid_t, ns.base_grid_nll = result.base_grid_t, result.base_grid_nll
    ns.ece_sweep_w = _sweep_view(reported, "equal-width")
    ns.ece_sweep_a = _sweep_view(reported, "adaptive")
    ns.brier_grid_t = float(grid[np.argmin(result.parts[result.fitted_on].brier)])
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
