"""How the page writes numbers: the filters of templates, prose, tables and figures.

``fixed``, ``pct``, ``pp``, ``num``, ``sig``, ``temp``, ``vec``, ``thousands``, ``interval``, ``seq`` and
``series`` round with the payload's rule (:func:`sitegen.common.units.to_units`), so a sentence and a slider
readout always print the same digits, and write numbers the way a language does: its strings.toml
``[format]`` table (:data:`PLAIN_FORMAT` holds the English settings). :func:`number_filters` binds one
table to all of them.
"""

import functools

from sitegen.common.units import to_units

__all__ = ["fixed", "pct", "pp", "num", "sig", "temp", "vec", "thousands", "interval", "seq", "series",
           "number_filters", "PLAIN_FORMAT", "FORMAT_KEYS", "FILTERS"]


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
    "avoid_decimals": 0,               # decimals a number of 1 or more never shows (0: no such rule; see _avoided)
}
FORMAT_KEYS = tuple(PLAIN_FORMAT)


def _format(fmt):
    """``fmt`` completed with :data:`PLAIN_FORMAT` for the keys it lacks."""
    return PLAIN_FORMAT if fmt is None else {**PLAIN_FORMAT, **fmt}


def _minus(text):
    return text.replace("-", "\u2212")


def _avoided(fmt, digits, whole_units):
    """Whether a number with ``digits`` decimals and integer part ``whole_units`` (≥ 0) would read as a grouped
    count in the language of ``fmt``: in Spain "1.058" is one thousand and fifty-eight, so a Spanish number of
    1 or more never shows exactly three decimals (``avoid_decimals = 3``); English has no such rule (0)."""
    avoid = int(fmt["avoid_decimals"])
    return avoid > 0 and int(digits) == avoid and whole_units >= 1


def fixed(value, digits=3, fmt=None):
    """``value`` with ``digits`` decimals, rounded half away from zero like the payload.

    Where the language avoids ``digits`` decimals on a number of 1 or more (``avoid_decimals``), such a
    number is written as a whole number when those decimals are all zeros (a probability of ``1``) and
    with one decimal more otherwise (``1.0581``, not ``1.058``); static/js/core.js ``CT.fixed`` agrees.
    """
    fmt, digits = _format(fmt), int(digits)
    scale = 10 ** digits
    units = int(to_units(float(value), scale))
    whole, frac = divmod(abs(units), scale)
    if _avoided(fmt, digits, whole):
        if not frac:
            digits = 0
        else:
            digits += 1
            scale *= 10
            units = int(to_units(float(value), scale))
            whole, frac = divmod(abs(units), scale)
    sign = "\u2212" if units < 0 else ""
    return f"{sign}{whole}{fmt['decimal']}{frac:0{digits}d}" if digits else f"{sign}{whole}"


def pct(value, digits=1, fmt=None):
    """``value`` (a probability) as a percentage with ``digits`` decimals, in the language's percent pattern."""
    return _format(fmt)["percent"].replace("{value}", fixed(float(value) * 100, digits, fmt))


def pp(value, digits=1, fmt=None):
    """``value``, a difference of two probabilities, in percentage points (``0.012`` → ``1.2 pp``): the one rule
    for a difference of percentages, in the language's ``points`` pattern (static/js/core.js ``CT.points`` agrees)."""
    return _format(fmt)["points"].replace("{value}", fixed(float(value) * 100, digits, fmt))


def num(value, fmt=None):
    """A constant as written in the code: an integer without decimals or grouping, else the shortest exact decimal
    (with a trailing zero where the language avoids its number of decimals: Spanish ``1.6450``, see :func:`fixed`)."""
    fmt, number = _format(fmt), float(value)
    text = str(int(number)) if number.is_integer() else repr(number)
    whole, _, decimals = text.lstrip("-").partition(".")
    if decimals and "e" not in text and _avoided(fmt, len(decimals), int(whole)):
        text += "0"  # exact: a constant's next decimal is zero
    return _minus(text.replace(".", fmt["decimal"]))


def sig(value, digits=4, fmt=None):
    """``value`` to ``digits`` significant digits, trailing zeros kept (as JavaScript's ``toPrecision``); where
    that leaves a number of 1 or more with the decimals the language avoids, one significant digit more."""
    fmt, digits = _format(fmt), int(digits)
    text = f"{float(value):#.{digits}g}".rstrip(".")
    whole, _, decimals = text.lstrip("-").partition(".")
    if "e" not in text and _avoided(fmt, len(decimals), int(whole or 0)):
        text = f"{float(value):#.{digits + 1}g}".rstrip(".")
    return _minus(text.replace(".", fmt["decimal"]))


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


_FILTER_FUNCTIONS = {"fixed": fixed, "pct": pct, "pp": pp, "num": num, "sig": sig, "temp": temp, "vec": vec,
                     "thousands": thousands, "interval": interval, "seq": seq, "series": series}
FILTERS = dict(_FILTER_FUNCTIONS)  # the English filters, as plain functions
