"""One-file editions published with the site (``build.py --one-file-editions``, which the Pages workflow
passes): each language's whole tutorial as one file, and each widget alone as one file where that file
stays under :data:`sitegen.common.settings.ONE_FILE_WIDGET_MAX_GZIP` gzip. They go in ``one-file/`` at the
site's root; the page's downloads section links exactly the files the build wrote
(:func:`one_file_links`), so a build without the option links none.
"""

import gzip
import re

import markupsafe

from sitegen.common.settings import ONE_FILE_WIDGET_MAX_GZIP
from sitegen.embeds.pages import render_embed
from sitegen.render.assets import inline_script

__all__ = ["ONE_FILE_FOLDER", "one_file_links", "tutorial_path", "widget_datasets", "widget_one_file", "widget_path"]

ONE_FILE_FOLDER = "one-file"


def tutorial_path(lang):
    """Where the whole tutorial in ``lang`` goes in the site (``one-file/tutorial-en.html``)."""
    return f"{ONE_FILE_FOLDER}/tutorial-{lang}.html"


def widget_path(name, lang):
    """Where widget ``name`` alone, in ``lang``, goes in the site (``one-file/reliability-demo-en.html``)."""
    return f"{ONE_FILE_FOLDER}/{name}-{lang}.html"


def widget_datasets(widget_html, names):
    """The datasets (of ``names``) a widget's markup can show: its explorer's own, its dataset picker's
    options and its example picker's (``value="<name>:<row>"``)."""
    found = set(re.findall(r'data-dataset="([a-z0-9-]+)"', widget_html))
    found |= set(re.findall(r'<option value="([a-z0-9-]+)(?::\d+)?"', widget_html))
    return sorted(found & set(names))


def widget_one_file(env, shared, widget, strings_json, css, embed_script, scripts, data_files, full_page, favicon_href):
    """Widget ``widget`` alone as one self-contained page, or None when it would be
    :data:`ONE_FILE_WIDGET_MAX_GZIP` bytes or more once gzipped. ``scripts`` is app.js's text (its core
    payload limited to the bin counts whose diagrams it carries); ``data_files`` the site's data scripts,
    of which it inlines those of the datasets the widget can show (:func:`widget_datasets`), bins files
    left out as in the one-file edition; ``full_page`` its "open in the full tutorial" address (absolute:
    None leaves the link out); ``favicon_href`` its icon (a data URL)."""
    probe = render_embed(env, shared, widget, strings_json, css, embed_script)
    names = widget_datasets(probe, shared["datasets"])
    wanted = [f"data/{name}{suffix}" for name in names for suffix in (".js", "-analysis.js", "-groups.js")]
    texts = [scripts] + [data_files[path] for path in wanted if path in data_files]
    inline = markupsafe.Markup("").join(
        markupsafe.Markup(f"<script>\n{inline_script(text)}</script>\n") for text in texts)
    page = render_embed(env, shared, widget._replace(oembed=None), strings_json, css, embed_script,
                        inline_scripts=inline, full_page=full_page, favicon_href=favicon_href)
    if len(gzip.compress(page.encode("utf-8"), mtime=0)) >= ONE_FILE_WIDGET_MAX_GZIP:
        return None
    return page


def one_file_links(files, lang, widgets, site_root):
    """The downloads section's links for edition ``lang``: its tutorial's and its widgets' one-file editions
    that ``files`` (the site's ``{path: text}``) holds, each ``{href, name, kb}`` (``name``: None for the
    whole tutorial, else the widget's title; ``kb``: the file's size in kilobytes, rounded up)."""
    wanted = [(tutorial_path(lang), None)] + [(widget_path(w.name, lang), w.title) for w in widgets]
    return [{"href": site_root + path, "name": name, "kb": -(-len(files[path].encode("utf-8")) // 1000)}
            for path, name in wanted if path in files]
