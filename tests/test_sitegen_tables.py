"""The static tables of sitegen/render/tables.py: every gap equals the difference of the two numbers shown beside it.

The tables are built with a comma-decimal, spaced-percent format so the test
also sees that every cell went through the page's filters. Cells are read back
as exact decimals; no engine value is used for the expected gaps.
"""

import re
from decimal import Decimal

import pytest
from sitegen_inputs import page_inputs

from sitegen.common.numbers import number_filters
from sitegen.render.tables import build_tables

MINUS = "\u2212"
FORMAT = {"decimal": ",", "percent": "{value}\u00a0%", "points": "{value}\u00a0p.p."}
SPLIT_DATASETS = {"sim-60", "sim-600", "overconfident", "mixed", "digits-mlp"}


@pytest.fixture(scope="module")
def tables(precomputed):
    analyses, _, _ = page_inputs(precomputed)
    return build_tables(precomputed, analyses, number_filters(FORMAT))


def read(cell, percent=False, points=False):
    """A displayed number back as an exact Decimal (sign marks +, ±, U+2212; comma decimals; "\u00a0%";
    a difference of rates in percentage points, "\u00a0p.p.")."""
    text = cell
    if percent:
        assert text.endswith("\u00a0%"), cell
        text = text[:-2]
    if points:
        assert text.endswith("\u00a0p.p."), cell
        text = text[:-5]
    assert "." not in text and "-" not in text, cell
    sign = -1 if text.startswith(MINUS) else 1
    text = text.lstrip("+±" + MINUS).replace(",", ".")
    return sign * Decimal(text)


def sign_mark(cell):
    return cell[0] if cell[0] in "+±" + MINUS else ""


def test_split_rows_cover_each_split_dataset_at_t1_and_fitted(tables):
    keys = [(row.name, row.state) for row in tables.split_rows]
    assert sorted(keys) == sorted((name, state) for name in SPLIT_DATASETS for state in ("t1", "fit"))


def test_each_gap_is_the_difference_of_the_displayed_columns(tables):
    for row in tables.split_rows:
        nll_cal, nll_test, nll_gap = read(row.nll_cal), read(row.nll_test), read(row.nll_gap)
        assert nll_gap == nll_test - nll_cal, row
        assert all(len(cell.split(",")[1]) == 5 for cell in (row.nll_cal, row.nll_test, row.nll_gap))
        ece_cal, ece_test = (read(c, percent=True) for c in (row.ece_cal, row.ece_test))
        ece_gap = read(row.ece_gap, points=True)  # a difference of two rates: percentage points
        assert ece_gap == ece_test - ece_cal, row
        assert all(len(cell[:-2].split(",")[1]) == 1 for cell in (row.ece_cal, row.ece_test))
        assert len(row.ece_gap[:-5].split(",")[1]) == 1, row


def test_a_gap_always_carries_its_sign(tables):
    for row in tables.split_rows:
        for gap in (row.nll_gap, row.ece_gap):
            value = read(gap, points=gap.endswith("p.p."))
            assert sign_mark(gap) == ("+" if value > 0 else MINUS if value < 0 else "±"), gap
        for cell in (row.nll_cal, row.nll_test, row.ece_cal, row.ece_test):
            assert sign_mark(cell) == "", cell  # metrics are never negative


def test_the_fitted_temperature_is_written_with_three_significant_digits(tables):
    for row in tables.split_rows:
        assert len(re.sub(r"\D", "", row.t).lstrip("0")) == 3 and read(row.t) > 0, row.t


def test_the_test_tube_table_reads_as_percentages(tables):
    tube = tables.test_tube
    for name in ("accuracy_t1", "accuracy_fit", "conf_t1", "conf_fit", "ece_t1", "ece_fit"):
        value = read(getattr(tube, name), percent=True)
        assert 0 <= value <= 100, name
    # temperature scaling never changes which class is predicted, so accuracy is the same at both
    assert tube.accuracy_t1 == tube.accuracy_fit


def test_the_subgroup_trend_agrees_with_the_displayed_ece(tables):
    rows = tables.subgroups.rows
    assert rows
    for row in rows:
        shown = {condition: read(cell, percent=True) for condition, cell in row.ece.items()}
        assert row.ece_trend == ("worse" if shown["global"] > shown["t1"] else "better"), row
