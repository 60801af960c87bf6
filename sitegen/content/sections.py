"""Prose and interface text: Markdown with engine numbers in scope, math as MathML Core.

A section file ``content/<lang>/NN-name.md`` is rendered in three passes:

1. Jinja2 (StrictUndefined) with the engine's facts in scope, so a number a
   sentence quotes is an expression such as ``{{ six.fit.nll | fixed(5) }}``;
2. TeX between ``$…$`` (inline) or ``$$…$$`` (display) becomes MathML Core (a simple inline formula, HTML text)
   (:mod:`sitegen.content.mathml`);
3. Markdown to HTML. A paragraph holding only ``[[component:NAME]]`` is
   replaced by that component's rendered template.

Numbers are written the way the section's language does (its strings.toml ``[format]``), in the
text and inside MathML ``<mn>`` alike. Every language has the same section files and the same
strings keys as the reference language (:func:`require_same_sections`, :func:`require_same_keys`).
"""

import re
import tomllib
from html import escape as html_escape
from pathlib import Path
from typing import NamedTuple

import jinja2
import markdown

from sitegen.common.errors import BuildError, template_lines
from sitegen.common.numbers import FORMAT_KEYS
from sitegen.common.settings import SCROLLING_TABLE_SECTIONS
from sitegen.content.article import MarginNotes, arrange_tables
from sitegen.content.mathml import DISPLAY_MATH, INLINE_MATH, TexError, inline_formula, tex_to_mathml_core

__all__ = ["Section", "MissingName", "content_folder", "load_strings", "require_strings", "load_sections",
           "require_same_keys", "require_same_sections", "render_section"]

_SECTION_FILE = re.compile(r"^(\d\d)-([a-z0-9-]+)\.md$")
NOT_SECTIONS = frozenset({"glossary.md"})  # a language's terminology table (sitegen.content.glossary), never a section
_COMPONENT = re.compile(r"<p>\[\[component:([a-z0-9-]+)\]\]</p>")
_FIRST_HEADING = re.compile(r"<(h[12])(?![^>]*\bid=)([^>]*)>")
_ANY_COMPONENT = re.compile(r"\[\[component:[^\]]*\]\]")
_LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")


class Section(NamedTuple):
    """One Markdown section: its anchor id (from the file name), file path and source text."""

    slug: str
    path: Path
    source: str


def content_folder(content_root, lang):
    """The folder ``content/<lang>/`` of the language asked for; refuses a name that is not a plain language tag."""
    if not _LANGUAGE_TAG.fullmatch(lang):
        raise BuildError(f"--lang {lang!r} is not a simple language tag such as en or pt-BR")
    folder = Path(content_root) / lang
    if not folder.is_dir():
        found = sorted(p.name for p in Path(content_root).iterdir() if p.is_dir() and _LANGUAGE_TAG.fullmatch(p.name))
        raise BuildError(f"--lang {lang}: there is no content folder {folder} "
                         f"(languages: {', '.join(found) or 'none'})")
    return folder


class MissingString(BuildError, KeyError):
    """A key a strings table lacks, read from Python (the figures, the build): a one-line build error.

    It is also a ``KeyError``, so Jinja (which tries ``table[key]`` and catches lookup errors) still
    reports a missing key through :class:`MissingName`.
    """

    def __str__(self):
        return self.args[0]


class StringTable(dict):
    """One table of a strings file: a plain dict that also knows its file and key, so a missing key can be named."""

    def __init__(self, items, path, key):
        super().__init__(items)
        self._toml_place = (path, key)

    def __missing__(self, name):
        raise MissingString(_missing(self, name))


def _table_name(key):
    return f"[{key}]" if key else "the top level"


def _string_tables(value, path, key=""):
    """``value`` with every table a :class:`StringTable`; refuses empty strings and keys a template cannot reach."""
    if isinstance(value, list):
        return [_string_tables(item, path, key) for item in value]
    if not isinstance(value, dict):
        return value
    for name, item in value.items():
        if hasattr(dict, name):  # Jinja's ``t.ui.items`` finds the dict method before the key
            raise BuildError(f"{path}: {_table_name(key)}: the key {name!r} cannot be used in templates; rename it")
        if isinstance(item, str) and not item.strip() and not (key == "format" and item):  # a space may separate digits
            raise BuildError(f"{path}: {_table_name(key)} {name} is an empty string (it would show as a blank)")
    return StringTable({name: _string_tables(item, path, f"{key}.{name}" if key else name)
                        for name, item in value.items()}, path, key)


def load_strings(content_dir):
    """The interface strings table ``strings.toml`` of one language, as nested :class:`StringTable` dicts."""
    path = Path(content_dir) / "strings.toml"
    try:
        with open(path, "rb") as handle:
            table = tomllib.load(handle)
    except FileNotFoundError:
        raise BuildError(f"{path}: interface strings file is missing") from None
    except tomllib.TOMLDecodeError as error:
        raise BuildError(f"{path}: invalid TOML: {error}") from None
    return _string_tables(table, path)


def _missing(table, name):
    """The message for ``name`` missing from ``table`` (a :class:`StringTable`), or None for any other object."""
    place = getattr(table, "_toml_place", None)
    if not isinstance(table, StringTable) or place is None:
        return None
    path, key = place
    if not key:
        return f"{path} has no [{name}] table"
    return f"{path}: [{key}] has no key {name!r}"


class MissingName(jinja2.StrictUndefined):
    """StrictUndefined that names the strings file and table when a template asks for a string it lacks."""

    __slots__ = ()

    @property
    def _undefined_message(self):
        if self._undefined_hint is None and isinstance(self._undefined_name, str):
            message = _missing(self._undefined_obj, self._undefined_name)
            if message:
                return message
        return super()._undefined_message


def require_strings(strings, dataset_names):
    """Refuse a strings table lacking what the build reads outside templates.

    That is every ``[format]`` setting (``percent`` with its ``{value}``
    placeholder, ``interval`` with ``{lo}``, ``{hi}`` and ``{close}``), a ``[ui]``
    table (the page's scripts read it), and a ``label``, ``short`` and ``summary``
    for every dataset.
    """
    needed = [("format", key) for key in FORMAT_KEYS] + [("ui",)]
    needed += [("datasets", name, field) for name in dataset_names for field in ("label", "short", "summary")]
    for keys in needed:
        table = strings
        for key in keys:
            if not isinstance(table, dict) or key not in table:
                raise BuildError(_missing(table, key) or f"strings.toml: no {'.'.join(keys)}")
            table = table[key]
    path = strings._toml_place[0] if isinstance(strings, StringTable) else "strings.toml"
    if "{value}" not in strings["format"]["percent"]:
        raise BuildError(f"{path}: [format] percent must contain {{value}}, where the number goes")
    lacking = [name for name in ("{lo}", "{hi}", "{close}") if name not in strings["format"]["interval"]]
    if lacking:
        raise BuildError(f"{path}: [format] interval must contain {', '.join(lacking)}")
    if not isinstance(strings["format"]["group_from"], int) or strings["format"]["group_from"] < 4:
        raise BuildError(f"{path}: [format] group_from must be a whole number of digits, 4 or more")


def _keys(table, prefix=""):
    """Every key of a strings table as ``("[table]", key)`` pairs, sub-tables included."""
    for name, value in table.items():
        if isinstance(value, dict):
            yield from _keys(value, f"{prefix}.{name}" if prefix else name)
        else:
            yield (f"[{prefix}]" if prefix else "the top level", name)


def require_same_keys(reference, strings):
    """Refuse a language's strings table that lacks a key of the reference language's.

    Names the file and the first key missing, e.g.
    ``content/es/strings.toml: [ui] has no key 'button_pin' (content/en/strings.toml has it)``.
    (A key only the other language has is found by calling it the other way round, as the tests do;
    the build leaves it to the templates, which name the template that reads it.)
    """
    mine, theirs = set(_keys(strings)), set(_keys(reference))
    path, reference_path = strings._toml_place[0], reference._toml_place[0]
    for table, key in sorted(theirs - mine):
        raise BuildError(f"{path}: {table} has no key {key!r} ({reference_path} has it)")


def require_same_sections(reference, sections, folder):
    """Refuse a language whose section files differ from the reference language's (by file name)."""
    mine, theirs = {s.path.name for s in sections}, {s.path.name: s.path for s in reference}
    for name in sorted(set(theirs) - mine):
        raise BuildError(f"{Path(folder) / name}: section file is missing ({theirs[name]} has it; "
                         "copy it there to translate it)")
    for name in sorted(mine - set(theirs)):
        raise BuildError(f"{Path(folder) / name}: section file has no counterpart in "
                         f"{theirs and next(iter(theirs.values())).parent}")


def load_sections(content_dir):
    """The sections of one language in file-name order; refuses stray or empty Markdown files
    (``glossary.md``, the translators' terminology, is not a section)."""
    folder = Path(content_dir)
    if not folder.is_dir():
        raise BuildError(f"{folder}: content folder is missing")
    sections = []
    for path in sorted(folder.glob("*.md")):
        if path.name in NOT_SECTIONS:
            continue
        match = _SECTION_FILE.match(path.name)
        if not match:
            raise BuildError(f"{path}: section files must be named NN-name.md (lower case)")
        source = path.read_text(encoding="utf-8")
        if not source.strip():
            raise BuildError(f"{path}: section is empty")
        sections.append(Section(match.group(2), path, source))
    if not sections:
        raise BuildError(f"{folder}: no NN-name.md sections found")
    return sections


def _display_parts(tex):
    """A display formula's parts: split where ``\\qquad`` joins two of them at the top level (outside braces and
    ``\\left … \\right``), so that each is a formula of its own and they wrap onto lines of their own where the
    column is narrow (base.css ``.math-block``)."""
    parts, depth, start = [], 0, 0
    for match in re.finditer(r"\\left\b|\\right\b|\\qquad\b|\\[{}]|[{}]", tex):
        token = match.group(0)
        if token in ("{", "\\left"):
            depth += 1
        elif token in ("}", "\\right"):
            depth -= 1
        elif token == "\\qquad" and depth == 0:
            parts.append(tex[start:match.start()])
            start = match.end()
    parts.append(tex[start:])
    return [part.strip() for part in parts if part.strip()]


def _protect_math(text, number_format=None):
    """Swap math for placeholder tokens (so Markdown cannot touch it); return the text and the token table."""
    table = {}

    def stash(html):
        token = f"MATHTOKEN{len(table):04d}X"
        table[token] = html
        return token

    def display(tex):
        return "".join(tex_to_mathml_core(part, True, number_format) for part in _display_parts(tex))

    text = DISPLAY_MATH.sub(lambda m: "\n\n" + stash(display(m.group(1))) + "\n\n", text)
    text = INLINE_MATH.sub(lambda m: stash(inline_formula(m.group(1), number_format)), text)
    return text, table


def _line_of(source, tex):
    """The line of ``source`` where ``tex`` first appears (None if a Jinja expression made it)."""
    at = source.find(tex) if tex else -1
    return source.count("\n", 0, at) + 1 if at >= 0 else None


_ROW = re.compile(r"<tr>.*?</tr>", re.S)
_CELL = re.compile(r"<t[dh]\b[^>]*>")


def _without_default_alignment(row):
    """A Markdown table row (a match) without the alignments that are the stylesheet's default
    (base.css: a row's first cell to the left, every other cell to the right)."""
    position = iter(range(1_000_000))

    def cell(match):
        default = "left" if next(position) == 0 else "right"
        return match.group(0).replace(f' style="text-align: {default};"', "")

    return _CELL.sub(cell, row.group(0))


def render_section(section, env, context, render_component, strings):
    """HTML of one section: Jinja pass, math, Markdown, then components spliced in.

    ``strings`` is the language's strings table: its ``[format]`` writes the numbers inside math, its
    ``[meta]`` ``equation`` and ``table_region`` name the scrolling boxes of display formulas and tables.

    Every problem (a Jinja error, malformed TeX, an unknown component, an error
    inside a component) raises :class:`BuildError` naming the section file.
    """
    try:
        text = env.from_string(section.source).render(context)
    except jinja2.TemplateError as error:
        lines = [line for _, line in template_lines(error)]
        line = getattr(error, "lineno", None) or (lines[-1] if lines else None)
        where = f"{section.path}:{line}" if line else str(section.path)
        raise BuildError(f"{where}: {error.__class__.__name__}: {error}") from None
    # A unit written with an abbreviation's full stop ("14.3 p. p.") ending a sentence takes no second one.
    unit = strings["format"].get("points", "").partition("{value}")[2]
    if unit.endswith("."):
        text = text.replace(unit + ".", unit)
    try:
        text, math = _protect_math(text, strings["format"])
    except TexError as error:
        line = _line_of(section.source, error.tex)
        raise BuildError(f"{section.path}{f':{line}' if line else ''}: {error}") from None
    html = markdown.markdown(text, extensions=["tables", "attr_list", "fenced_code", "footnotes", "md_in_html",
                                               MarginNotes()], output_format="html")
    html = _ROW.sub(_without_default_alignment, html)
    equation = html_escape(strings["meta"]["equation"], quote=True)
    for token, mathml in math.items():
        # A display formula may be wider than a phone: it scrolls in its own focusable box.
        block = f'<div class="math-block" tabindex="0" role="group" aria-label="{equation}">{mathml}</div>'
        html = html.replace(f"<p>{token}</p>", block).replace(token, mathml)
    # Wide Markdown tables scroll inside their own labelled, focusable region instead of widening the
    # page on phones; each region's name ("Table 2 of <section heading>", strings meta.table_region) is unique.
    if "<table>" in html:
        heading = re.search(r"<h[12]\b[^>]*>(.*?)</h[12]>", html, re.S)
        where = re.sub(r"<[^>]+>", "", heading.group(1)).strip() if heading else section.slug
        template = strings["meta"]["table_region"]
        count = iter(range(1, html.count("<table>") + 1))
        html = re.sub("<table>", lambda m: (
            '<div class="table-wrap" tabindex="0" role="region" aria-label="{}">\n<table>'.format(
                template.replace("{number}", str(next(count))).replace("{section}", where).replace('"', "&quot;"))),
            html)
        html = html.replace("</table>", "</table>\n</div>")
    html = _FIRST_HEADING.sub(lambda m: f'<{m.group(1)} id="{section.slug}-title"{m.group(2)}>', html, count=1)
    stray = _ANY_COMPONENT.search(_COMPONENT.sub("", html))
    if stray:
        raise BuildError(f"{section.path}: {stray.group(0)} must be alone in its paragraph, "
                         "with a lower-case name (letters, digits, dashes)")

    def component(match):
        try:
            return render_component(match.group(1))
        except BuildError as error:
            raise BuildError(f"{section.path}: [[component:{match.group(1)}]]: {error}") from None

    html = _COMPONENT.sub(component, html)
    # Tables of six or more columns span the page; of four or more, stack on a phone (sitegen/content/article.py),
    # except the look-up sections', which scroll in their region (with a shadow at the hidden edge) as a reference
    # table may.
    return arrange_tables(html, stack=section.slug not in SCROLLING_TABLE_SECTIONS)
