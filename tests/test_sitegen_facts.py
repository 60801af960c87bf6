"""The number filters of sitegen/facts.py (``fixed``, ``pct``, ``num``, ``vec``, ``thousands``).

Expected values are written by hand or computed with exact decimal arithmetic
in the test; the page's language variants are in ``test_sitegen_page.py``.
"""

from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitegen.facts import FILTERS, fixed, num, pct, thousands, vec

MINUS = "\u2212"


def test_the_filter_table_holds_the_five_filters():
    assert FILTERS == {"fixed": fixed, "pct": pct, "num": num, "vec": vec, "thousands": thousands}


@pytest.mark.parametrize("value, digits, expected", [
    (0.125, 2, "0.13"),        # exactly half: away from zero
    (0.625, 2, "0.63"),
    (-0.625, 2, MINUS + "0.63"),
    (0.5, 0, "1"),
    (1.5, 0, "2"),
    (2.5, 0, "3"),             # not banker's rounding (which gives 2)
    (-2.5, 0, MINUS + "3"),
    (0.8227800, 5, "0.82278"),
    (3, 3, "3.000"),
    (-0.0004, 3, "0.000"),     # rounds to zero: no minus sign
    (12345.678, 1, "12345.7"),
])
def test_fixed(value, digits, expected):
    assert fixed(value, digits) == expected


def test_fixed_defaults_to_three_decimals():
    assert fixed(0.1234) == "0.123"


@pytest.mark.parametrize("value, digits, expected", [
    (0.125, 1, "12.5%"),
    (0.3125, 1, "31.3%"),      # 31.25 → 31.3
    (0.00125, 2, "0.13%"),     # 0.125 → 0.13 (0.00125 * 100 is 0.125 in floating point)
    (-0.3125, 1, MINUS + "31.3%"),
    (1, 0, "100%"),
    (0, 1, "0.0%"),
])
def test_pct(value, digits, expected):
    assert pct(value, digits) == expected


@given(st.integers(-10**8, 10**8), st.integers(0, 4))
def test_fixed_matches_exact_decimal_rounding_half_away_from_zero(numerator, digits):
    # numerator / 32 is exact in binary, and so is its product with 10**digits
    exact = Decimal(numerator) / 32
    rounded = exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    expected = format(abs(rounded), "f")
    if rounded < 0:
        expected = MINUS + expected
    assert fixed(numerator / 32, digits) == expected


@pytest.mark.parametrize("value, expected", [
    (3, "3"), (3.0, "3"), (-2, MINUS + "2"), (0.05, "0.05"), (1.8, "1.8"), (-0.5, MINUS + "0.5"),
    (1664525, "1664525"), (2.0 ** 32, "4294967296"),
])
def test_num_writes_a_constant_as_in_the_code(value, expected):
    assert num(value) == expected


def test_vec():
    assert vec([3, 1, 0]) == "[3, 1, 0]"
    assert vec([-1, 2.5]) == f"[{MINUS}1, 2.5]"
    assert vec([0.8444, 0.1142, 0.0414], 3) == "[0.844, 0.114, 0.041]"
    assert vec([0.125, -0.125], 2) == f"[0.13, {MINUS}0.13]"
    assert vec([]) == "[]"


@pytest.mark.parametrize("value, expected", [
    (6, "6"), (999, "999"), (1000, "1,000"), (6000, "6,000"), (4000.0, "4,000"), (1234567, "1,234,567"),
])
def test_thousands(value, expected):
    assert thousands(value) == expected


def test_no_filter_writes_an_ascii_hyphen_minus_for_a_negative_number():
    for text in (fixed(-1.25, 2), pct(-0.5, 0), num(-3), vec([-1, -2]), vec([-0.5], 1)):
        assert "-" not in text and MINUS in text
