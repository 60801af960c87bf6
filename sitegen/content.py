"""Prose and interface text: Markdown with engine numbers in scope, math as MathML Core.

A section file ``content/<lang>/NN-name.md`` is rendered in three passes:

1. Jinja2 (StrictUndefined) with the engine's facts in scope, so a number a
   sentence quotes is an expression such as ``{{ six.fit.nll | fixed(5) }}``;
2. TeX between ``$…$`` (inline) or ``$$…$$`` (display) becomes MathML Core
   (latex2mathml, then a pass that removes what Chromium ignores);
3. Markdown to HTML. A paragraph holding only ``[[component:NAME]]`` is
   replaced by that component's rendered template.
"""

import re
import tomllib
from pathlib import Path
from typing import NamedTuple

import jinja2
import markdown
from latex2mathml.converter import convert as latex_to_mathml

from .errors import BuildError

__all__ = ["Section", "load_strings", "load_sections", "render_section", "tex_to_mathml_core"]

_SECTION_FILE = re.compile(r"^(\d\d)-([a-z0-9-]+)\.md$")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$")
_COMPONENT = re.compile(r"<p>\[\[component:([a-z0-9-]+)\]\]</p>")
_FIRST_HEADING = re.compile(r"<(h[12])(?![^>]*\bid=)([^>]*)>")
_DOUBLE_STRUCK = {"1": "𝟙", "R": "ℝ", "E": "𝔼", "P": "ℙ", "N": "ℕ"}


class Section(NamedTuple):
    """One Markdown section: its anchor id (from the file name), file path and source text."""

    slug: str
    path: Path
    source: str


def load_strings(content_dir):
    """The interface strings table ``strings.toml`` of one language, as a nested dict."""
    path = Path(content_dir) / "strings.toml"
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise BuildError(f"{path}: interface strings file is missing") from None
    except tomllib.TOMLDecodeError as error:
        raise BuildError(f"{path}: invalid TOML: {error}") from None


def load_sections(content_dir):
    """The sections of one language in file-name order; refuses stray or empty Markdown files."""
    folder = Path(content_dir)
    if not folder.is_dir():
        raise BuildError(f"{folder}: content folder is missing")
    sections = []
    for path in sorted(folder.glob("*.md")):
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


def tex_to_mathml_core(tex, display=False):
    """MathML for ``tex`` restricted to what MathML Core renders.

    Chromium ignores ``mathvariant`` values other than ``normal``, so a
    double-struck letter becomes its Unicode character (𝟙, ℝ, 𝔼, …) and other
    variants are dropped; the MathML namespace attribute is dropped too, since
    HTML parsing supplies it.
    """
    mathml = latex_to_mathml(tex.strip(), display="block" if display else "inline")
    mathml = re.sub(
        r'<(m[in]) mathvariant="double-struck">([^<])</\1>',
        lambda m: f"<{m.group(1)}>{_DOUBLE_STRUCK.get(m.group(2), m.group(2))}</{m.group(1)}>", mathml)
    mathml = re.sub(r' mathvariant="(?!normal")[^"]*"', "", mathml)
    mathml = mathml.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")
    return mathml


def _protect_math(text):
    """Swap math for placeholder tokens (so Markdown cannot touch it); return the text and the token table."""
    table = {}

    def stash(html):
        token = f"MATHTOKEN{len(table):04d}X"
        table[token] = html
        return token

    text = _DISPLAY_MATH.sub(lambda m: "\n\n" + stash(tex_to_mathml_core(m.group(1), True)) + "\n\n", text)
    text = _INLINE_MATH.sub(lambda m: stash(tex_to_mathml_core(m.group(1))), text)
    return text, table


def render_section(section, env, context, render_component):
    """HTML of one section: Jinja pass, math, Markdown, then components spliced in."""
    try:
        text = env.from_string(section.source).render(context)
    except jinja2.TemplateError as error:
        line = getattr(error, "lineno", None)
        where = f"{section.path}:{line}" if line else str(section.path)
        raise BuildError(f"{where}: {error.__class__.__name__}: {error}") from None
    try:
        text, math = _protect_math(text)
    except Exception as error:  # latex2mathml raises several types on malformed TeX
        raise BuildError(f"{section.path}: cannot convert math: {error}") from None
    html = markdown.markdown(text, extensions=["tables", "attr_list", "fenced_code", "footnotes"],
                             output_format="html")
    for token, mathml in math.items():
        # A display formula may be wider than a phone: it scrolls in its own focusable box.
        block = f'<div class="math-block" tabindex="0" role="group" aria-label="equation">{mathml}</div>'
        html = html.replace(f"<p>{token}</p>", block).replace(token, mathml)
    # Wide Markdown tables scroll inside their own labelled, focusable region instead of widening the
    # page on phones; each region's name ("Table 2 of <section heading>", strings meta.table_region) is unique.
    heading = re.search(r"<h[12]\b[^>]*>(.*?)</h[12]>", html, re.S)
    where = re.sub(r"<[^>]+>", "", heading.group(1)).strip() if heading else section.slug
    template = context["t"]["meta"]["table_region"]
    count = iter(range(1, html.count("<table>") + 1))
    html = re.sub("<table>", lambda m: '<div class="table-wrap" tabindex="0" role="region" aria-label="{}">\n<table>'.format(
        template.replace("{number}", str(next(count))).replace("{section}", where).replace('"', "&quot;")), html)
    html = html.replace("</table>", "</table>\n</div>")
    html = _FIRST_HEADING.sub(lambda m: f'<{m.group(1)} id="{section.slug}-title"{m.group(2)}>', html, count=1)
    return _COMPONENT.sub(lambda m: render_component(m.group(1)), html)
