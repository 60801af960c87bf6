"""The Jinja side of the page: the two environments, their filters and globals, and the one namespace.

:func:`template_environment` renders ``templates/`` (autoescaped), :func:`content_environment` the
Markdown sections of ``content/<lang>/`` (not escaped, ``{## … ##}`` comments). Both stop the build on
a missing name (:class:`sitegen.content.sections.MissingName`) and know the number filters of
:mod:`sitegen.common.numbers`; :func:`render_template` turns any template error into one line naming the
chain of templates it passed through. :func:`page_context` is the one namespace templates and prose
read: the page's own names and the engine's facts side by side.
"""

import re
from pathlib import Path

import jinja2
import markupsafe

from sitegen.common.errors import BuildError, template_lines
from sitegen.common.metrics import cards_of, compared
from sitegen.common.numbers import FILTERS
from sitegen.content.mathml import INLINE_MATH, inline_formula
from sitegen.content.sections import MissingName
from sitegen.figures.static_svg import figure_size
from sitegen.render.panels import template_globals

__all__ = ["template_environment", "content_environment", "render_template", "page_context", "math_filters",
           "inline_svg", "static_figure", "chart_figure", "figure_path", "FIGURE_FOLDER", "heading_text",
           "contents_text", "TemplateFailure"]


def inline_svg(svg, instance, label):
    """An SVG figure ready to inline: ids re-prefixed by ``instance`` (unique per placement) and a text alternative."""
    svg = re.sub(r'(id="|url\(#|href="#)', lambda m: m.group(1) + instance + "-", svg)
    return markupsafe.Markup(svg.replace("<svg ", f'<svg role="img" aria-label="{markupsafe.escape(label)}" ', 1))


FIGURE_FOLDER = "figures"


def figure_path(name, lang):
    """The static figure ``name`` of language ``lang`` in the site (relative to its root)."""
    return f"{FIGURE_FOLDER}/{name}.{lang}.svg"


@jinja2.pass_context
def static_figure(context, name, instance, label):
    """The static figure ``name`` with the text alternative ``label``: on the site's pages an ``<img>`` of
    its file inside ``<noscript>`` (fetched only when scripts are off), elsewhere inlined (ids prefixed
    by ``instance``, see :func:`inline_svg`)."""
    svg = context["figures"][name]
    if context["embed_page"] or not context["figure_files"]:
        return inline_svg(svg, instance, label)
    width, height = figure_size(svg)
    src = markupsafe.escape(context["site_root"] + figure_path(name, context["lang"]))
    return markupsafe.Markup(f'<noscript><img src="{src}" alt="{markupsafe.escape(label)}" '
                             f'width="{width}" height="{height}"></noscript>')


@jinja2.pass_context
def chart_figure(context, name, label):
    """The chart ``name`` (sitegen/figures/charts.py) with the text alternative ``label``, for every reader: on
    the site's pages an ``<img>`` of its file, loaded when near (the charts sit in deep dives), elsewhere
    inlined."""
    svg = context["figures"][name]
    if context["embed_page"] or not context["figure_files"]:
        return inline_svg(svg, f"chart-{name}", label)
    width, height = figure_size(svg)
    src = markupsafe.escape(context["site_root"] + figure_path(name, context["lang"]))
    return markupsafe.Markup(f'<img class="chart" src="{src}" alt="{markupsafe.escape(label)}" width="{width}" '
                             f'height="{height}" loading="lazy" decoding="async">')


def heading_text(html):
    """The plain text of a section's first h1/h2 (for the table of contents); empty if it has none."""
    match = re.search(r"<h[12]\b[^>]*>(.*?)</h[12]>", html, re.S)
    return markupsafe.Markup(re.sub(r"<[^>]+>", "", match.group(1))).unescape().strip() if match else ""


def contents_text(html):
    """A section's entry in the contents: its first h1/h2's ``data-toc`` (a short title the Markdown gives
    with ``{: data-toc="…" }``, docs/design.md), else that heading's text."""
    match = re.search(r"<h[12]\b[^>]*\bdata-toc=\"([^\"]*)\"", html)
    return markupsafe.Markup(match.group(1)).unescape().strip() if match else heading_text(html)


def math_filters(number_format):
    """``tex`` (a TeX formula inline: MathML, or HTML text when it is that simple, sitegen.content.mathml) and
    ``with_math`` (a string whose ``$…$`` parts are TeX), writing numbers in math with ``number_format``,
    as the prose does."""
    def tex(formula):
        return markupsafe.Markup(inline_formula(str(formula), number_format))

    def with_math(text):
        parts = INLINE_MATH.split(str(text))
        return markupsafe.Markup("").join(tex(part) if i % 2 else markupsafe.escape(part)
                                          for i, part in enumerate(parts))

    return {"tex": tex, "with_math": with_math}


class TemplateFailure(jinja2.TemplateRuntimeError):
    """Raised by a template through ``fail(message)`` when it is called with arguments it cannot render."""


def _fail(message):
    raise TemplateFailure(message)


def template_environment(templates_dir):
    """The one Jinja environment for templates: autoescaped, and a missing variable or string stops the build.

    Templates can also stop the build themselves with ``{{ fail("message") }}``.
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=MissingName,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(FILTERS)
    env.filters["inline_svg"] = inline_svg
    env.globals["fail"] = _fail
    env.globals["static_figure"] = static_figure
    env.globals["chart_figure"] = chart_figure
    env.globals.update(template_globals(templates_dir))  # the explorer's panels (sitegen/render/panels.py)
    env.globals["metric_cards"] = cards_of  # the metric registry (sitegen/common/metrics.py)
    env.globals["compared_metrics"] = compared
    return env


def content_environment():
    """The Jinja environment for Markdown sources: no autoescaping (the source is Markdown, not HTML)."""
    # "{#" opens a Jinja comment but also Markdown's attribute lists ({#id .class}); comments use "{##" here.
    env = jinja2.Environment(undefined=MissingName, autoescape=False, keep_trailing_newline=True,
                             comment_start_string="{##", comment_end_string="##}")
    env.filters.update(FILTERS)
    return env


def render_template(env, name, context):
    """Render the template ``name``; any template error becomes a :class:`BuildError` saying where.

    The place is the chain of templates the error passed through, outermost
    first (``templates/components/explorer.html.j2:5: templates/components/_explorer.html.j2:47: …``).
    """
    try:
        return env.get_template(name).render(context)
    except jinja2.TemplateError as error:
        base = Path(env.loader.searchpath[0]).parent
        if isinstance(error, jinja2.TemplateSyntaxError):
            places = [(error.filename, error.lineno)]
        else:
            places = template_lines(error)
        where = ": ".join(f"{_relative(file, base)}:{line}" for file, line in places) or f"templates/{name}"
        what = "" if isinstance(error, (jinja2.UndefinedError, TemplateFailure)) else f"{error.__class__.__name__}: "
        raise BuildError(f"{where}: {what}{error.message or error}") from None


def _relative(file, base):
    try:
        return Path(file).relative_to(base).as_posix()
    except ValueError:
        return str(file)


# Names only the page template receives (see sitegen.assemble.page.assemble_files); no fact may take them either.
_INDEX_NAMES = ("sections", "inline_css", "app_script", "widget_script", "strings_json", "favicon_href",
                "inline_scripts", "edition_note", "widget", "widget_html", "embed_script", "full_page", "explorer_id",
                "main_explorer", "snippet", "base_url", "parts", "total_minutes")


def page_context(page, facts):
    """The one namespace of templates and prose: the page's own names and the facts side by side.

    ``page`` holds what the templates need (``t``, ``core``, ``tables``, …), ``facts`` the engine's
    results by name (``six``, ``an``, …). A fact may never take a page name (nor ``facts``, nor a
    name only the page template gets): it would shadow it or be shadowed, so it stops the build.
    ``facts`` is the same facts as one mapping, for templates that look a dataset up by its name.
    """
    reserved = set(page) | {"facts"} | set(_INDEX_NAMES)
    clash = sorted(reserved & set(facts))
    if clash:
        raise BuildError(f"facts use names reserved for the page: {', '.join(clash)}")
    return {**page, "facts": facts, **facts}
