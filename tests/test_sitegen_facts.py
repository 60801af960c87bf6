"""The number filters of sitegen/common/numbers.py (``fixed``, ``pct``, ``num``, ``sig``, ``vec``, ``thousands``,
``interval``, ``seq``, ``series``), in English and with other ``[format]`` tables.

Expected values are written by hand or computed with exact decimal arithmetic
in the test; more language variants are in ``test_sitegen_page.py``.
"""

from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitegen.common.numbers import (
    FILTERS,
    PLAIN_FORMAT,
    fixed,
    interval,
    num,
    number_filters,
    pct,
    pp,
    seq,
    series,
    sig,
    temp,
    thousands,
    vec,
)

MINUS = "\u2212"
NNBSP, NBSP = "\u202f", "\u00a0"
SPANISH = {**PLAIN_FORMAT, "group": NNBSP, "group_from": 5, "percent": "{value}" + NBSP + "%", "list_and": " y ",
           "avoid_decimals": 3}
COMMA = {**PLAIN_FORMAT, "decimal": ",", "group": NNBSP, "group_from": 5, "percent": "{value}" + NBSP + "%",
         "interval": "[{lo}; {hi}{close}", "list": "; "}


def test_the_filter_table_holds_the_eleven_filters():
    assert FILTERS == {"fixed": fixed, "pct": pct, "pp": pp, "num": num, "sig": sig, "temp": temp, "vec": vec,
                       "thousands": thousands, "interval": interval, "seq": seq, "series": series}
    assert set(number_filters(SPANISH)) == set(FILTERS)


@pytest.mark.parametrize("value, english, spanish", [
    (999, "999", "999"), (1000, "1,000", "1000"), (6000, "6,000", "6000"), (9999, "9,999", "9999"),
    (10000, "10,000", "10" + NNBSP + "000"), (60000, "60,000", "60" + NNBSP + "000"),
    (1234567, "1,234,567", "1" + NNBSP + "234" + NNBSP + "567"),
    (-60000, MINUS + "60,000", MINUS + "60" + NNBSP + "000"),
])
def test_thousands_groups_from_the_languages_threshold(value, english, spanish):
    assert thousands(value) == english
    assert number_filters(SPANISH)["thousands"](value) == spanish


def test_a_language_writes_every_number_with_its_own_settings():
    es, comma = number_filters(SPANISH), number_filters(COMMA)
    assert es["pct"](0.129) == "12.9" + NBSP + "%" and es["fixed"](0.82278, 5) == "0.82278"
    assert comma["pct"](0.129) == "12,9" + NBSP + "%" and comma["fixed"](-0.5, 2) == MINUS + "0,50"
    assert comma["num"](1.8) == "1,8" and comma["num"](20261024) == "20261024"  # constants are never grouped
    assert comma["vec"]([0.5, 1], 2) == "[0,50; 1,00]" and comma["vec"]([3, 1, 0]) == "[3; 1; 0]"
    assert comma["sig"](1.0, 4) == "1,000" and sig(1.229751214, 3) == "1.23"
    assert es["series"]([3, 5]) == "3 y 5" and series([1, 3, 5]) == "1, 3 and 5" and series([4]) == "4"
    assert comma["seq"]([1, 2, 3]) == "1; 2; 3"


def test_a_difference_of_percentages_is_written_in_percentage_points():
    """A change from 14.4% to 5.7% is 8.7 percentage points, not 8.7%: each language's [format] points pattern."""
    from pathlib import Path

    from sitegen.content.sections import load_strings
    root = Path(__file__).resolve().parents[1]
    assert pp(0.144 - 0.057) == "8.7 pp" and pp(-0.0123) == MINUS + "1.2 pp"
    spanish = number_filters(load_strings(root / "content" / "es")["format"])
    assert spanish["pp"](0.087) == "8.7" + NBSP + "p." + NBSP + "p."
    assert "%" not in spanish["pp"](0.087) and "%" not in pp(0.087)


@pytest.mark.parametrize("edges, digits, english, comma", [
    ((0.25, 0.5), 2, "[0.25, 0.50)", "[0,25; 0,50)"),
    ((0.75, 1.0), 2, "[0.75, 1.00]", "[0,75; 1,00]"),   # the last bin is closed
    ((0, 0.25), None, "[0, 0.25)", "[0; 0,25)"),        # without digits, the ends are constants
])
def test_interval(edges, digits, english, comma):
    assert interval(edges, digits) == english
    assert number_filters(COMMA)["interval"](edges, digits) == comma


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
def test_thousands_in_english(value, expected):
    assert thousands(value) == expected


# In Spain a point followed by three digits groups thousands: "1.058" reads as one thousand and fifty-eight.
@pytest.mark.parametrize("value, digits, english, spanish", [
    (1.05812, 3, "1.058", "1.0581"),             # one more decimal, from the value itself
    (-2.62398, 3, MINUS + "2.624", MINUS + "2.6240"),
    (1.0, 3, "1.000", "1"),                       # a probability of one: a whole number
    (0.99996, 3, "1.000", "1"),                   # rounds to one, as the page's scripts see it (units of 1e-3)
    (0.82278, 3, "0.823", "0.823"),               # below one: no thousand to mistake it for
    (1.05812, 2, "1.06", "1.06"), (1.05812, 4, "1.0581", "1.0581"), (1.05812, 5, "1.05812", "1.05812"),
    (4.4094, 3, "4.409", "4.4094"), (12345.6789, 3, "12345.679", "12345.6789"),
])
def test_spanish_never_shows_three_decimals_on_a_number_of_one_or_more(value, digits, english, spanish):
    assert fixed(value, digits) == english
    assert number_filters(SPANISH)["fixed"](value, digits) == spanish


def test_every_filter_follows_the_three_decimals_rule():
    es = number_filters(SPANISH)
    assert es["vec"]([1.0, 0.36788, 0.22313], 3) == "[1, 0.368, 0.223]"
    assert es["interval"]((0.75, 1.0), 3) == "[0.750, 1]" and interval((0.75, 1.0), 3) == "[0.750, 1.000]"
    assert es["num"](1.645) == "1.6450" and num(1.645) == "1.645" and es["num"](0.125) == "0.125"
    assert es["num"](2.5) == "2.5" and es["num"](-1.645) == MINUS + "1.6450"
    assert es["sig"](1.05812, 4) == "1.0581" and sig(1.05812, 4) == "1.058" and es["sig"](0.823, 3) == "0.823"
    assert es["temp"](1.2297) == "1.23" and es["pct"](0.12345, 1) == "12.3" + NBSP + "%"
    assert es["pct"](0.0123456, 3) == "1.2346" + NBSP + "%"


def test_no_filter_writes_an_ascii_hyphen_minus_for_a_negative_number():
    for text in (fixed(-1.25, 2), pct(-0.5, 0), num(-3), vec([-1, -2]), vec([-0.5], 1)):
        assert "-" not in text and MINUS in text
