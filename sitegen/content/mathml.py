"""TeX to MathML Core: the formulas of the prose and the strings, as Chromium renders them.

latex2mathml converts; a pass then removes what MathML Core ignores (``mathvariant`` other than
``normal``, the namespace attribute) and what only adds bytes (one-child rows, character references).
Numbers written the way a language does (``0,25``, ``60 000``) stay one ``<mn>`` each.
An inline formula that is only letters, numbers and simple operators in a row ($T = 1$, $[0.5, 0.75)$,
$1/K$) is written as HTML text instead (:func:`inline_formula`): the page loads with a quarter fewer
elements and reads the same.
"""

import re
from html import escape
from xml.etree import ElementTree

from sitegen.common.cache import memoized
from sitegen.common.errors import BuildError

__all__ = ["TexError", "tex_to_mathml_core", "inline_formula", "INLINE_MATH", "DISPLAY_MATH"]

DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)  # $$…$$: a display formula
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$")  # $…$: an inline formula (not \$, not $$)
_DOUBLE_STRUCK = {"1": "𝟙", "R": "ℝ", "E": "𝔼", "P": "ℙ", "N": "ℕ"}
_LEFT_IN_TEXT = re.compile(r">([^<]*\\[^<]*)<")  # a backslash in MathML text: a command latex2mathml did not know
# Operators of a formula written as text (inline_formula), by the room MathML Core's operator dictionary
# gives them: a relation or binary operator a space each side (a sign none), a separator a space after,
# the rest none. A formula with any other operator stays MathML.
_SPACED_OPERATORS = frozenset("=<>≤≥≈≠+−×·±→∈")
_SEPARATORS = frozenset(",;")
_TIGHT_OPERATORS = frozenset("/()[]{}|…")
_NO_BREAK = "\u00a0"  # the formula stays on one line, as a <math> does


class TexError(BuildError):
    """Malformed TeX; ``tex`` is the expression, so the caller can find its line."""

    def __init__(self, tex, reason):
        super().__init__(f"cannot convert the TeX {tex!r}: {reason}")
        self.tex = tex


def _check_braces(tex):
    """Refuse unbalanced braces, which latex2mathml would otherwise render as literal text."""
    depth, escaped = 0, False
    for char in tex:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise TexError(tex, "a } closes nothing")
    if depth:
        raise TexError(tex, f"{depth} {{ not closed")


def _number_pattern(number_format):
    """A regex for the numbers the filters write with ``number_format`` that TeX would split: grouped
    counts and decimals whose mark is not the point (None if there are none)."""
    group, decimal = re.escape(number_format["group"]), re.escape(number_format["decimal"])
    options = [rf"\d{{1,3}}(?:{group}\d{{3}})+(?:{decimal}\d+)?"]
    if number_format["decimal"] != ".":
        options.append(rf"\d+{decimal}\d+")
    return re.compile("|".join(options))


def _localised_numbers(tex, number_format):
    """``tex`` with each localised number written plainly (so it stays one ``<mn>``) and the list of
    ``(plain, localised)`` pairs to put back, in order."""
    if number_format is None:
        return tex, []
    restore = []

    def plain(match):
        text = match.group(0)
        bare = text.replace(number_format["group"], "").replace(number_format["decimal"], ".")
        if bare != text:
            restore.append((bare, text))
        return bare

    return _number_pattern(number_format).sub(plain, tex), restore


def _put_numbers_back(mathml, restore, tex):
    """Write the numbers of ``restore`` back into their ``<mn>`` elements, in order."""
    pending = list(restore)

    def back(match):
        if pending and match.group(1) == pending[0][0]:
            return f"<mn>{pending.pop(0)[1]}</mn>"
        return match.group(0)

    mathml = re.sub(r"<mn>([^<]*)</mn>", back, mathml)
    if pending:
        raise TexError(tex, f"the number {pending[0][1]} did not stay one number")
    return mathml


@memoized("mathml")  # pure: a build reuses the conversions of the last ones
def tex_to_mathml_core(tex, display=False, number_format=None):
    """MathML for ``tex`` restricted to what MathML Core renders.

    With ``number_format`` (a language's ``[format]`` table), a number written with its decimal mark
    or digit groups (``0,25``, ``60 000``) becomes one ``<mn>``, as written, instead of several tokens.

    Chromium ignores ``mathvariant`` values other than ``normal``, so a
    double-struck letter becomes its Unicode character (𝟙, ℝ, 𝔼, …) and other
    variants are dropped; the MathML namespace attribute is dropped too, since
    HTML parsing supplies it. Malformed TeX (empty, unbalanced braces, an
    unknown command, anything latex2mathml rejects) raises :class:`TexError`
    naming the expression.
    """
    from latex2mathml.converter import convert as latex_to_mathml  # not loaded when every formula is cached

    source = tex.strip()
    if not source:
        raise TexError(source, "empty formula")
    _check_braces(source)
    plain, restore = _localised_numbers(source, number_format)
    try:
        mathml = latex_to_mathml(plain, display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises several types on malformed TeX, some without a message
        reason = f"{error.__class__.__name__}: {error}" if str(error) else error.__class__.__name__
        raise TexError(source, reason) from None
    unknown = _LEFT_IN_TEXT.search(mathml)
    if unknown:
        raise TexError(source, f"unknown command {unknown.group(1).strip()}")
    mathml = re.sub(
        r'<(m[in]) mathvariant="double-struck">([^<])</\1>',
        lambda m: f"<{m.group(1)}>{_DOUBLE_STRUCK.get(m.group(2), m.group(2))}</{m.group(1)}>", mathml)
    mathml = re.sub(r' mathvariant="(?!normal")[^"]*"', "", mathml)
    mathml = mathml.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")
    return _tidy_mathml(_put_numbers_back(mathml, restore, source), source)


def _unwrap_rows(parent):
    """Replace, below ``parent``, every attribute-less ``<mrow>`` holding exactly one element (and no
    text) by that element: MathML Core lays a one-child row out as the child itself."""
    for index, child in enumerate(list(parent)):
        _unwrap_rows(child)
        if (child.tag == "mrow" and not child.attrib and len(child) == 1
                and not (child.text or "").strip() and not (child[0].tail or "").strip()):
            only = child[0]
            only.tail = child.tail
            parent[index] = only


_LARGE_OPERATORS = frozenset("∑∏∫∮⋃⋂")
_LIMIT_NAMES = frozenset({"max", "min", "lim", "sup", "inf", "argmax", "argmin"})
_PRIMES = frozenset("′″‴")


def _for_the_body_font(parent, display):
    """Below ``parent``, what lets a formula be drawn in the page's body font (base.css, which sets a letter
    in its italic): a name of several letters (``ln``, ``conf``) marked upright, a display formula's large
    operator marked ``large-op`` (base.css enlarges it), a display formula's ``\\max_{…}`` with its limit under
    it (as TeX sets it: latex2mathml writes a subscript), and a prime as an operator after its letter instead
    of a superscript (the body font's prime is raised already)."""
    for index, child in enumerate(list(parent)):
        _for_the_body_font(child, display)
        text = (child.text or "").strip()
        if child.tag == "mi" and len(text) > 1 and "mathvariant" not in child.attrib:
            child.set("mathvariant", "normal")
        elif child.tag == "mo" and display and text in _LARGE_OPERATORS:
            child.set("class", "large-op")
        elif (child.tag == "msub" and display and len(child) == 2 and child[0].tag == "mo"
              and (child[0].text or "").strip() in _LIMIT_NAMES):
            child.tag = "munder"
        elif (child.tag == "msup" and len(child) == 2 and child[0].tag == "mi" and child[1].tag in ("mi", "mo")
              and (child[1].text or "") in _PRIMES):
            base, prime = child
            prime.tag, prime.attrib = "mo", {}
            base.tail, prime.tail = None, child.tail
            parent[index:index + 1] = [base, prime]


def _tidy_mathml(mathml, tex):
    """The same formula in fewer bytes, laid out the same by MathML Core: characters instead of
    character references (``&``, ``<`` and ``>`` stay escaped), no one-child ``<mrow>``, no ``<mrow>``
    around the whole formula (``<math>`` is a row itself), no ``display="inline"`` (the default); and
    marked for the body font (:func:`_for_the_body_font`)."""
    try:
        root = ElementTree.fromstring(mathml)
    except ElementTree.ParseError as error:
        raise TexError(tex, f"unreadable MathML ({error})") from None
    _unwrap_rows(root)
    _for_the_body_font(root, root.get("display") == "block")
    if len(root) == 1 and root[0].tag == "mrow" and not root[0].attrib and not (root.text or "").strip():
        row = root[0]
        root.remove(row)
        root.text = row.text
        root.extend(list(row))
        if len(root):
            root[-1].tail = (root[-1].tail or "") + (row.tail or "")
    if root.get("display") == "inline":
        del root.attrib["display"]
    return ElementTree.tostring(root, encoding="unicode")


def _as_text(mathml):
    """The HTML text of an inline MathML formula made only of one-letter identifiers (``<var>``, italic as
    MathML draws them), numbers and the operators above, each a child of ``<math>``, no two letters side by
    side; None for any other."""
    root = ElementTree.fromstring(mathml)
    if root.attrib or (root.text or "").strip():
        return None
    pieces, previous = [], None
    for child in root:
        text, attrs = child.text or "", dict(child.attrib)
        if child.tag == "msub" and not attrs and previous != "letter":
            piece = _subscript(child)
            if piece is None:
                return None
            pieces.append(piece)
            previous = "letter"
            continue
        if len(child) or (child.tail or "").strip() or not text:
            return None
        if child.tag == "mi" and text in _SEPARATORS and not attrs:  # latex2mathml makes ";" an identifier
            piece, previous = text + _NO_BREAK, "operator"
        elif child.tag == "mi" and text == "…" and not attrs:  # and \ldots
            piece, previous = text, "term"
        elif (letter := _letter(child)) is not None:
            if previous == "letter":
                return None  # letters side by side ($NLL$) would read as a word of the prose
            piece, previous = letter, "letter"
        elif child.tag == "mn" and not attrs:
            piece, previous = escape(text, quote=False), "term"
        elif child.tag != "mo" or attrs not in ({}, {"stretchy": "false"}):
            return None
        elif text in _SPACED_OPERATORS:
            sign = previous in (None, "operator") and text in "+−±"  # a sign: −1, [−2, 2]
            piece = escape(text, quote=False) if sign else _NO_BREAK + escape(text, quote=False) + _NO_BREAK
            previous = "operator"
        elif text in _SEPARATORS:
            piece, previous = text + _NO_BREAK, "operator"
        elif text in _TIGHT_OPERATORS:
            piece, previous = escape(text, quote=False), ("operator" if text in "([{|" else "term")
        else:
            return None
        pieces.append(piece)
    return "".join(pieces)


def _letter(element):
    """``<var>`` of a one-letter ``<mi>`` without attributes, else None."""
    text = element.text or ""
    if element.tag != "mi" or element.attrib or len(element) or len(text) != 1 or not text.isalpha():
        return None
    return f"<var>{escape(text)}</var>"


def _subscript(msub):
    """HTML of a ``<msub>`` of a letter and a letter or a number ($x_i$, $p_0$), else None."""
    if len(msub) != 2 or (msub.text or "").strip() or any((part.tail or "").strip() for part in msub):
        return None
    base, index = msub
    number = index.tag == "mn" and not index.attrib and not len(index) and index.text
    script = escape(index.text, quote=False) if number else _letter(index)
    if _letter(base) is None or script is None or (msub.tail or "").strip():
        return None
    return f"{_letter(base)}<sub>{script}</sub>"


def inline_formula(tex, number_format=None):
    """An inline formula for the page: HTML text when it is only one-letter identifiers, numbers and simple
    operators in a row ($T = 1$ becomes ``<var>T</var> = 1`` with no-break spaces: one element, not four),
    else the MathML of :func:`tex_to_mathml_core`. Raises :class:`TexError` as that does."""
    mathml = tex_to_mathml_core(tex, number_format=number_format)
    return _as_text(mathml) or mathml
