"""Embeds: every interactive widget of an edition as a page of its own, for a course page's iframe.

A widget is a component whose template calls the ``explorer`` macro (:func:`embeddable_components`).
Its embed page, ``embed/<widget>.html`` (``es/embed/…``), shows the widget alone (:func:`render_embed`);
the full page follows each widget with an "Embed" box holding the iframe snippet (:func:`embed_snippet`).
With a base URL the snippets are absolute and each embed page gets an oEmbed file,
``embed/<widget>.oembed.json`` (:func:`oembed_json`).
"""

import json
import re
from pathlib import Path
from typing import NamedTuple

import markupsafe

from sitegen.common.errors import BuildError
from sitegen.common.settings import EMBED_WIDTH
from sitegen.content.sections import _missing
from sitegen.embeds.heights import snippet_height
from sitegen.embeds.theme import themed_css
from sitegen.render.assets import APP_SCRIPT, WIDGET_SCRIPT, inline_script, shipped
from sitegen.render.templating import render_template

__all__ = ["EMBED_FOLDER", "EMBED_SANDBOX", "Widget", "embeddable_components", "page_widgets", "embed_snippet",
           "oembed_json", "render_embed"]

EMBED_FOLDER = "embed"
# An embed frame may run scripts and open the full tutorial in a new, unsandboxed tab. It keeps its own
# origin (allow-same-origin), so a host that answers its messages at event.origin (Canvas) can: the embed
# is on another origin than the course page, whose document it still cannot reach (docs/teaching.md).
EMBED_SANDBOX = "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"
_EXPLORER_IMPORT = re.compile(r"\bimport\s+explorer\b")
_SECTION_COMPONENT = re.compile(r"\[\[component:([a-z0-9-]+)\]\]")


class Widget(NamedTuple):
    """An embeddable widget of one edition."""

    name: str       # its component, e.g. "reliability-demo"
    section: str    # the slug of the section that shows it on the full page
    title: str      # its title in the edition's language
    path: str       # its embed page in the site, e.g. "es/embed/reliability-demo.html"
    src: str        # the snippet's address: relative to the edition's page, or absolute with a base URL
    height: int     # the snippet's starting height, CSS pixels
    oembed: object  # the absolute address of its oEmbed file (with a base URL), or None


def embeddable_components(root):
    """The interactive widgets: components whose template calls the ``explorer`` macro, sorted by name."""
    folder = Path(root) / "templates" / "components"
    return sorted(path.name[:-len(".html.j2")] for path in folder.glob("*.html.j2")
                  if not path.name.startswith("_") and _EXPLORER_IMPORT.search(path.read_text(encoding="utf-8")))


def _string(table, *keys):
    """``table[keys[0]][keys[1]]…``; a missing key stops the build naming the strings file and table."""
    for key in keys:
        if not isinstance(table, dict) or key not in table:
            raise BuildError(_missing(table, key) or f"strings.toml: no {'.'.join(keys)}")
        table = table[key]
    return table


def page_widgets(root, edition, strings, base_url=None):
    """The edition's embeddable widgets in page order: each component once, in the first section that
    shows it. ``strings`` is the edition's strings table (titles); ``base_url`` makes addresses absolute."""
    embeddable = set(embeddable_components(root))
    found = {}
    for section in edition.sections:
        for name in _SECTION_COMPONENT.findall(section.source):
            if name in embeddable:
                found.setdefault(name, section.slug)
    prefix = f"{edition.folder}/" if edition.folder else ""
    widgets = []
    for name, slug in found.items():
        path = f"{prefix}{EMBED_FOLDER}/{name}.html"
        widgets.append(Widget(
            name=name, section=slug, title=_string(strings, "embed", "widgets", name), path=path,
            src=f"{base_url}/{path}" if base_url else f"{EMBED_FOLDER}/{name}.html",
            height=snippet_height(root, edition.lang, name),
            oembed=f"{base_url}/{prefix}{EMBED_FOLDER}/{name}.oembed.json" if base_url else None))
    return widgets


def _frame_title(widget, strings):
    return _string(strings, "embed", "frame_title").replace("{widget}", widget.title).replace(
        "{site}", _string(strings, "meta", "short_title"))


def embed_snippet(widget):
    """The ``<iframe>`` a course page embeds ``widget`` with: titled, lazily loaded, full width at a
    starting height (the widget then reports its own), sandboxed (its own origin, no access to the host's)."""
    def attr(value):
        return str(value).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return (f'<iframe src="{attr(widget.src)}" title="{attr(widget.title)}" loading="lazy" '
            f'width="100%" height="{widget.height}" style="border:0" sandbox="{EMBED_SANDBOX}"></iframe>')


def oembed_json(widget, strings, base_url, folder):
    """The oEmbed response (``type: rich``) of ``widget``, as a static JSON file's text."""
    response = {
        "version": "1.0", "type": "rich", "html": embed_snippet(widget),
        "width": EMBED_WIDTH, "height": widget.height, "title": _frame_title(widget, strings),
        "provider_name": _string(strings, "meta", "short_title"),
        "provider_url": f"{base_url}/{folder}/" if folder else f"{base_url}/",
    }
    return json.dumps(response, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def render_embed(env, shared, widget, strings_json, css, embed_script, inline_scripts=None, full_page="../index.html",
                 favicon_href=None):
    """The embed page of ``widget``: the widget alone (no page chrome), its state from the ``#state/``
    hash, a link to its section of the full page (``full_page``, relative to the embed folder), and the
    script that reports its height; with ``inline_scripts`` (markup), those instead of app.js's file, and
    with ``favicon_href`` that icon instead of the site's file."""
    site_root = "../" + shared["site_root"]
    context = dict(shared, site_root=site_root, embed_page=True)
    html = render_template(env, f"components/{widget.name}.html.j2", context)
    main_explorer = 'data-hash="on"' in render_template(env, f"components/{widget.name}.html.j2", shared)
    return render_template(env, "embed.html.j2", dict(
        context, widget=widget, widget_html=markupsafe.Markup(html), strings_json=strings_json,
        inline_css=shipped(themed_css(css)), app_script=APP_SCRIPT, widget_script=WIDGET_SCRIPT,
        embed_script=markupsafe.Markup(inline_script(embed_script)),
        inline_scripts=inline_scripts, full_page=full_page, favicon_href=favicon_href,
        explorer_id=re.search(r'id="([^"]+)" data-component="explorer"', html).group(1),
        main_explorer=main_explorer))
