"""Widgets inside a deep dive get their interactive markup from a script when they start, not from the page.

On the course page every widget's markup waits in a ``<template data-widget-markup>`` until the widget
comes near the viewport (``static/js/main.js``). A widget inside a closed deep dive (``<details>``) waits
longer: until the reader opens it, follows a link into it, or prints. Its markup need not be in the page's
first view at all, so :func:`defer_markup` takes it out of the page into one script per edition,
``data/markup-<lang>.js``, leaving an empty ``<template data-widget-markup data-deferred>``; the explorer
loads that script first (``CT.withMarkup``, ``static/js/explorer.js``). Without JavaScript nothing
changes: a template is inert either way. Embed pages and the one-file editions keep their markup inline.
"""

import re

from sitegen.common.errors import BuildError
from sitegen.render.payload import SCHEMA_VERSION, to_script

__all__ = ["defer_markup", "markup_file", "markup_script"]

# an explorer's root and its template (templates/components/_explorer.html.j2 writes them side by side)
_WIDGET = re.compile(r'<div class="explorer[^"]*" id="([\w-]+)"[^>]*><template data-widget-markup>(.*?)</template>',
                     re.S)
_DETAILS = re.compile(r"<details[\s>]|</details>")
DEFERRED = "<template data-widget-markup data-deferred></template>"


def _markup_key(lang):
    """The payload's name, and its file's under data/ (static/js/explorer.js markupKey writes the same)."""
    return f"markup-{lang}"


def markup_file(lang):
    """The data script of one edition's deferred widget markup: ``data/markup-<lang>.js``."""
    return f"data/{_markup_key(lang)}.js"


def _depth(html, end):
    """How many ``<details>`` are open at position ``end`` of ``html``."""
    return sum(1 if tag.startswith("<details") else -1 for tag in _DETAILS.findall(html, 0, end))


def defer_markup(html):
    """``(page, {widget id: markup})``: ``html`` with the markup of every widget inside a ``<details>`` taken
    out (its template left empty and marked ``data-deferred``), and that markup by widget id."""
    parts, markup, last = [], {}, 0
    for match in _WIDGET.finditer(html):
        if _depth(html, match.start()) <= 0:
            continue
        widget, inner = match.group(1), match.group(2)
        if "<template" in inner:
            raise BuildError(f"widget {widget}: a <template> inside its markup cannot be deferred")
        template_at = match.start(2) - len("<template data-widget-markup>")
        parts += [html[last:template_at], DEFERRED]
        markup[widget] = inner
        last = match.end()
    return "".join(parts) + html[last:], markup


def markup_script(lang, markup):
    """The text of :func:`markup_file`: registers ``{name, schema_version, widgets}`` as kind ``markup``."""
    return to_script("markup", {"name": _markup_key(lang), "schema_version": SCHEMA_VERSION, "widgets": markup})
