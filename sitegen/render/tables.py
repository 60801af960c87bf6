"""Rows of the static tables of the analysis sections, as display strings.

Differences are taken between values already rounded to display units (as the
payload does), so a gap column always equals the difference of the two columns
beside it.

``six_examples`` is the body of the worked example's table in the prose (Markdown rows holding only
numbers and the ✓/✗ marks, so the words stay in the section's header row and translate with it).
"""

from types import SimpleNamespace

from sitegen.common.settings import TABLE_BINS, WORKED_EXAMPLE
from sitegen.common.units import RATE_SCALE, SCORE_SCALE, displayed_difference, to_units
from sitegen.facts.results import _examples

NBSP = "\u00a0"  # a no-break space

__all__ = ["build_tables"]



def _score(units, fmt, signed=False):
    return fmt["fixed"](units / SCORE_SCALE, 5) if not signed else _signed(fmt["fixed"](units / SCORE_SCALE, 5), units)


def _rate(units, fmt, signed=False):
    text = fmt["pct"](units / RATE_SCALE, 1)
    return _signed(text, units) if signed else text


def _points(units, fmt):
    """A signed difference of two rates in display units, in percentage points."""
    return _signed(fmt["pp"](units / RATE_SCALE, 1), units)


def _signed(text, units):
    return text if units < 0 else ("+" + text if units > 0 else "±" + text)


def _split_rows(precomputed, fmt):
    rows = []
    split = [(name, r) for name, r in precomputed.datasets.items() if "calibration" in r.parts]
    for name, result in split:  # every dataset with a held-out split, in the page's order
        cal, test = result.parts["calibration"], result.parts["test"]
        for state, index in (("t1", precomputed.t1_index), ("fit", precomputed.index_of(result.fitted_t))):
            nll_cal, nll_test = (int(to_units(p.nll[index], SCORE_SCALE)) for p in (cal, test))
            ece_cal, ece_test = (p.ece["equal-width"][TABLE_BINS][index] for p in (cal, test))
            rows.append(SimpleNamespace(
                name=name, state=state, t=fmt["temp"](result.fitted_t),
                nll_cal=_score(nll_cal, fmt), nll_test=_score(nll_test, fmt),
                nll_gap=_score(int(displayed_difference(test.nll[index], cal.nll[index], SCORE_SCALE)), fmt,
                               signed=True),
                ece_cal=_rate(int(to_units(ece_cal, RATE_SCALE)), fmt),
                ece_test=_rate(int(to_units(ece_test, RATE_SCALE)), fmt),
                ece_gap=_points(int(displayed_difference(ece_test, ece_cal, RATE_SCALE)), fmt)))
    return rows


def _test_tube(precomputed, fmt):
    result = precomputed.datasets["overconfident"]
    test = result.parts["test"]
    t1, fit = precomputed.t1_index, precomputed.index_of(result.fitted_t)
    ece = test.ece["equal-width"][TABLE_BINS]
    return SimpleNamespace(
        accuracy_t1=fmt["pct"](test.accuracy, 1), accuracy_fit=fmt["pct"](test.accuracy, 1),
        conf_t1=fmt["pct"](test.mean_confidence[t1], 1), conf_fit=fmt["pct"](test.mean_confidence[fit], 1),
        ece_t1=fmt["pct"](ece[t1], 1), ece_fit=fmt["pct"](ece[fit], 1),
        fitted_t=fmt["temp"](result.fitted_t))


def _subgroups(analyses, fmt, part="test"):
    table = analyses.datasets["mixed"].subgroups
    rows = []
    for who, by_condition in table.metrics[part].items():
        ece = {c: int(to_units(m.ece["equal-width"][TABLE_BINS], RATE_SCALE)) for c, m in by_condition.items()}
        rows.append(SimpleNamespace(
            who=who, own_t=fmt["temp"](table.temperatures.get(who, table.temperatures["global"])),
            ece={c: _rate(v, fmt) for c, v in ece.items()},
            nll={c: fmt["fixed"](m.nll, 5) for c, m in by_condition.items()},
            ece_trend="worse" if ece["global"] > ece["t1"] else "better"))
    return SimpleNamespace(rows=rows, global_t=fmt["temp"](table.temperatures["global"]))


def _six_examples(precomputed, fmt):
    """Markdown rows of the worked example's table: number, logits, true and predicted class, ✓/✗,
    and the confidence at T = 1 and at the fitted T (three decimals). A logit vector never breaks
    across lines (no-break spaces)."""
    result = precomputed.datasets[WORKED_EXAMPLE]
    return "\n".join(
        f"| {e.number} | {fmt['vec'](e.logits).replace(' ', NBSP)} | {e.label} | {e.predicted} | {e.mark} | "
        f"{fmt['fixed'](e.conf_t1, 3)} | {fmt['fixed'](e.conf_fit, 3)} |"
        for e in _examples(result))


def build_tables(precomputed, analyses, number_filters):
    """``{"split_rows", "test_tube", "subgroups", "six_examples"}`` for the templates and the prose, formatted
    with the page's filters."""
    return SimpleNamespace(
        split_rows=_split_rows(precomputed, number_filters),
        test_tube=_test_tube(precomputed, number_filters),
        subgroups=_subgroups(analyses, number_filters),
        six_examples=_six_examples(precomputed, number_filters),
    )
