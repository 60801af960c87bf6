"""Rendering the pages and collecting every output file of the site.

One build writes one page per language edition (``index.html`` at the root, ``es/index.html``, …)
from the same templates, facts and data files: the data scripts and CSV downloads are language-neutral
and written once, at the root, and every page refers to them relative to its own folder.

Every interactive widget (a component whose template calls the ``explorer`` macro) is also an embed
page of its edition, ``embed/<widget>.html`` (``es/embed/…``): the widget alone, for a course page's
iframe, and on the full page an "Embed" box holds the iframe snippet. With a base URL the snippets are
absolute and each embed page gets an oEmbed file, ``embed/<widget>.oembed.json``. The one-file edition
(:func:`assemble_single_file`) is one edition's page with the script and every data file inlined.
Embeds live in :mod:`sitegen.embeds`, the Jinja side in :mod:`sitegen.render.templating`, the shipped
stylesheet and scripts in :mod:`sitegen.render.assets` and the strings the scripts read in
:mod:`sitegen.render.page_strings`.

The static figures (what a reader without JavaScript sees in place of a widget) are files of their own
on the site's pages, ``figures/<name>.<lang>.svg``, shown by an ``<img>`` inside ``<noscript>``: a page
read with JavaScript never requests them. Embed pages and the one-file edition inline them instead: a
sandboxed frame opened from disk is given no other file, and the one file must need none.
"""

import base64
from pathlib import Path
from typing import NamedTuple

import markupsafe

from sitegen.analyses.calibrator_fits import offered_methods
from sitegen.assemble.one_file import one_file_links, tutorial_path, widget_one_file, widget_path
from sitegen.common.cache import cached
from sitegen.common.errors import BuildError
from sitegen.common.numbers import number_filters as localised_number_filters
from sitegen.common.settings import CHART_TABLE_BINS, DEFAULT_DATASET, EXAMPLE_LIST_MAX_ROWS, PARTS, USER_SLUG
from sitegen.content.glossary import glossary_names, load_glossary
from sitegen.content.reading_time import count_words, section_minutes, section_tasks
from sitegen.content.sections import render_section, require_strings
from sitegen.embeds.box import box_context, resizer_path, resizer_script
from sitegen.embeds.pages import embed_snippet, oembed_json, page_widgets, render_embed
from sitegen.facts.show_links import show_links
from sitegen.figures.static_svg import figure_colours, figure_file
from sitegen.render.analysis_payload import analysis_payload
from sitegen.render.assets import (
    APP_SCRIPT,
    WIDGET_SCRIPT,
    inline_script,
    read_script,
    read_static,
    shipped,
    split_widgets,
)
from sitegen.render.deferred import defer_markup, markup_file, markup_script
from sitegen.render.downloads import data_csv, metrics_csv
from sitegen.render.hero import hero_series, hero_view
from sitegen.render.methods_payload import methods_payload
from sitegen.render.page_strings import filled_strings, require_script_strings
from sitegen.render.page_strings import strings_json as make_strings_json
from sitegen.render.payload import bins_payload, core_payload, dataset_payload, groups_payload, to_script
from sitegen.render.reproduce import run_reproduction
from sitegen.render.reserve import reserve_css
from sitegen.render.tables import build_tables
from sitegen.render.templating import (
    content_environment,
    contents_text,
    figure_path,
    heading_text,
    math_filters,
    page_context,
    render_template,
    template_environment,
)
from sitegen.yours import model as user_model

__all__ = ["Edition", "app_script", "site_scripts", "assemble_files", "assemble_single_file"]


class Edition(NamedTuple):
    """One language's page: its tag, its folder in the site ("" is the root), its strings table, sections
    and static figures."""

    lang: str
    folder: str
    strings: dict
    sections: list
    figures: dict


def app_script(core, js):
    """The whole front end as one script, for a page that inlines it (the one-file editions): the core
    payload and every script in ``order.txt`` order. The interface strings are each page's own
    (``<script type="application/json" id="ct-strings">``); datasets are not in it either: each explorer
    loads ``data/<name>.js`` when it starts."""
    return to_script("core", core) + shipped(js)


def site_scripts(core, js):
    """``{file: text}``, the site's two script files, shared by every language: ``app.js`` (the core payload
    and the scripts before order.txt's ``<widgets>`` line, loaded with ``defer`` so that nothing runs before
    the first paint) and ``widgets.js`` (the explorer and its panels, which the course page's first widget
    to start loads: the first view parses only what it shows; an embed page loads both)."""
    first, widgets = split_widgets(js)
    return {APP_SCRIPT: to_script("core", core) + shipped(first), WIDGET_SCRIPT: shipped(widgets)}


def _dataset_script(precomputed, name, user, bin_counts=None):
    """The script ``data/<name>.js``; ``bin_counts`` (None: every selectable one), the bin counts whose changes
    against T = 1 the page can print (:func:`sitegen.render.payload.dataset_payload`)."""
    result = precomputed.datasets[name]
    payload = dataset_payload(result, precomputed, bin_counts)
    if name == USER_SLUG:
        payload = user_model.user_examples_payload(payload, user, result)
    return to_script("dataset", payload)


@cached("data-files")  # language-neutral: keyed by the engine's cached results
def _data_files(precomputed, analyses, user=None):
    """The language-neutral files: data scripts and CSV downloads of every dataset. The reader's own model
    (``user``, :mod:`sitegen.yours.model`) gets no per-row CSV; its payload keeps only the shown examples'
    classes, and its downloads add ``temperature.json``."""
    files = {}
    for name, result in precomputed.datasets.items():
        files[f"data/{name}.js"] = _dataset_script(precomputed, name, user)
        files[f"data/{name}-analysis.js"] = to_script("analysis", analysis_payload(analyses, name))
        for part in result.parts:
            files[f"data/{name}-{part}-bins.js"] = to_script("bins", bins_payload(result, precomputed, part))
        if result.groups is not None:
            files[f"data/{name}-groups.js"] = to_script("groups", groups_payload(result, precomputed))
        if offered_methods(name, result.parts):
            files[f"data/{name}-methods.js"] = to_script("methods", methods_payload(name))
        if name != USER_SLUG:
            files[f"downloads/{name}-data.csv"] = data_csv(result.dataset)
        files[f"downloads/{name}-metrics.csv"] = metrics_csv(result, precomputed.grid)
    if user is not None:
        files.update(user_model.user_files(user, precomputed, analyses))
    return files


def _page_path(edition):
    return f"{edition.folder}/index.html" if edition.folder else "index.html"


def _link(from_edition, to_edition):
    """The link from one edition's page to another's (``es/index.html``, ``../index.html``, ``index.html``)."""
    if to_edition.folder == from_edition.folder:
        return "index.html"
    up = "../" * (from_edition.folder.count("/") + 1) if from_edition.folder else ""
    return up + _page_path(to_edition)


def _languages(edition, editions, base_url=None):
    """The page's language links: ``others`` (the switcher's relative links to the other editions) and,
    with ``base_url`` only, ``alternates`` (every edition's absolute address, for ``<link rel=alternate
    hreflang>``) and ``x_default`` (the root page's). Search engines read hreflang addresses only when
    fully qualified, and a build without ``base_url`` does not know where it will be published."""
    if len(editions) < 2:
        return {"alternates": [], "others": [], "x_default": None}
    links = [{"lang": e.lang, "href": _link(edition, e), "name": e.strings["meta"]["language_name"]}
             for e in editions]
    others = [link for link in links if link["lang"] != edition.lang]
    if not base_url:
        return {"alternates": [], "others": others, "x_default": None}
    address = {e.lang: f"{base_url}/{e.folder}/" if e.folder else f"{base_url}/" for e in editions}
    root = next((e for e in editions if not e.folder), editions[0])
    return {"alternates": [dict(link, href=address[link["lang"]]) for link in links], "others": others,
            "x_default": address[root.lang]}


def assemble_files(root, precomputed, analyses, facts, editions, base_url=None, user=None, one_file_editions=False):
    """Every file of the site as ``{relative path: text}``: one page per :class:`Edition` with an embed
    page per widget, and once for all of them the data scripts, downloads and favicon.

    ``base_url`` (the address the site is published at, without a trailing slash) makes the embed
    snippets absolute and adds an oEmbed file per embed page; without it every address is relative.
    ``user`` (a :class:`sitegen.yours.model.UserModel`, whose dataset ``precomputed`` holds) adds the reader's
    model: its strings and its files. ``one_file_editions`` adds, per edition, the whole tutorial and each
    widget alone as one file (:mod:`sitegen.assemble.one_file`), linked from the edition's downloads section.
    """
    root = Path(root)
    env = template_environment(root / "templates")
    css, js = read_static(root)
    reproduce = run_reproduction(root / "content" / "reproduce.py")
    core = core_payload(precomputed, DEFAULT_DATASET)
    files = _data_files(precomputed, analyses, user)
    files.update(site_scripts(core, js))
    embed_script = read_script(root, "embed.js")
    colours = figure_colours(css)
    for edition in editions:
        site_root = "../" * (edition.folder.count("/") + 1) if edition.folder else ""
        shared, strings, strings_json, number_filters = _edition_context(
            root, env, precomputed, analyses, facts, edition, _languages(edition, editions, base_url), js, reproduce,
            core, site_root=site_root, downloads_root=site_root, figure_files=True, user=user)
        widgets = page_widgets(root, edition, strings, base_url=base_url)
        if one_file_editions:
            _one_file_editions(root, files, env, shared, strings_json, (css, js, core, embed_script), edition, widgets,
                               (precomputed, analyses, facts, user), base_url)
        shared["one_files"] = one_file_links(files, edition.lang, widgets, site_root)
        page = _render_page(
            root, env, shared, strings, number_filters, edition, widgets, strings_json,
            inline_css=shipped(css) + reserve_css(root, edition.lang), app_script=APP_SCRIPT,
            widget_script=WIDGET_SCRIPT, favicon_href=f"{site_root}favicon.svg",
            inline_scripts=None, edition_note=None)
        # the widgets of the deep dives: their markup loads when they start (sitegen/render/deferred.py)
        files[_page_path(edition)], deferred = defer_markup(page)
        if deferred:
            files[markup_file(edition.lang)] = markup_script(edition.lang, deferred)
        for widget in widgets:
            files[widget.path] = render_embed(env, shared, widget, strings_json, css, embed_script)
            files[resizer_path(widget)] = resizer_script(root)
            if widget.oembed:
                oembed = oembed_json(widget, strings, base_url, edition.folder)
                files[widget.path[:-len(".html")] + ".oembed.json"] = oembed
        for name, svg in edition.figures.items():
            files[figure_path(name, edition.lang)] = figure_file(svg, colours)
    files["favicon.svg"] = (root / "static" / "favicon.svg").read_text(encoding="utf-8")
    return files


def _one_file_editions(root, files, env, shared, strings_json, static, edition, widgets, inputs, base_url):
    """Add ``edition``'s one-file editions to ``files``: its whole tutorial, and each widget alone where
    that file stays under the size cap (:func:`sitegen.assemble.one_file.widget_one_file`)."""
    css, js, core, embed_script = static
    precomputed, analyses, facts, user = inputs
    single = assemble_single_file(root, precomputed, analyses, facts, edition._replace(folder=""), base_url=base_url,
                                  published_folder=edition.folder, user=user)
    files[tutorial_path(edition.lang)] = single
    offered = app_script(dict(core, bin_counts=list(core["offered_bin_counts"])), js)
    # A downloaded file has no site beside it: link the full tutorial only where its address is known.
    page = f"{base_url}/{_page_path(edition)}" if base_url else None
    icon = _favicon_data_url(root)
    for widget in widgets:
        text = widget_one_file(env, shared, widget, strings_json, css, embed_script, offered, files, page, icon)
        if text is not None:
            files[widget_path(widget.name, edition.lang)] = text


def assemble_single_file(root, precomputed, analyses, facts, edition, base_url=None, published_folder="", user=None):
    """The whole tutorial in one language as one self-contained HTML page (its text).

    The stylesheet, ``app.js`` and every data script (datasets, analyses, groups) are inlined, the
    favicon is a data URL: opened from disk it needs no other file and no network. Two things are left
    out, and the page says so: the bins files of the bin counts beyond the offered ones (their
    diagrams would about triple the file; the bin selectors list the offered counts only), and the
    CSV downloads (linked on the published site when ``base_url`` is given, whose ``published_folder``
    holds this language; named otherwise). The embed boxes appear only with ``base_url``: a snippet
    must point at the published embed pages.
    """
    root = Path(root)
    env = template_environment(root / "templates")
    css, js = read_static(root)
    reproduce = run_reproduction(root / "content" / "reproduce.py")
    core = core_payload(precomputed, DEFAULT_DATASET)
    core = dict(core, bin_counts=list(core["offered_bin_counts"]))
    shared, strings, strings_json, number_filters = _edition_context(
        root, env, precomputed, analyses, facts, edition, _languages(edition, [edition]), js, reproduce, core,
        site_root="", downloads_root=f"{base_url}/" if base_url else None, figure_files=False, user=user)
    published = edition._replace(folder=published_folder)
    widgets = page_widgets(root, published, strings, base_url=base_url) if base_url else []
    data = dict(_data_files(precomputed, analyses, user))
    for name in precomputed.datasets:  # the bin selectors list the offered counts only: no others' exact changes
        data[f"data/{name}.js"] = _dataset_script(precomputed, name, user, tuple(core["bin_counts"]))
    scripts = [app_script(core, js)] + [text for name, text in sorted(data.items())
                                        if name.endswith(".js") and not name.endswith("-bins.js")]
    inline = markupsafe.Markup("").join(
        markupsafe.Markup(f"<script>\n{inline_script(text)}</script>\n") for text in scripts)
    note = markupsafe.Markup(render_template(env, "single-file-note.html.j2", dict(shared, base_url=base_url)))
    return _render_page(root, env, shared, strings, number_filters, edition, widgets, strings_json,
                        inline_css=shipped(css) + reserve_css(root, edition.lang), app_script=None, widget_script=None,
                        inline_scripts=inline, edition_note=note,
                        favicon_href=_favicon_data_url(root))


def _favicon_data_url(root):
    """The site's icon as a data URL, for the files that must need no other file."""
    favicon = (Path(root) / "static" / "favicon.svg").read_bytes()
    return "data:image/svg+xml;base64," + base64.b64encode(favicon).decode("ascii")


def _edition_context(root, env, precomputed, analyses, facts, edition, languages, js, reproduce, core, *,
                     site_root, downloads_root, figure_files, user=None):
    """The names shared by one edition's page, its components and its embed pages, with the edition's
    strings (engine constants filled) and the strings JSON its scripts read; sets ``env``'s number filters.
    ``figure_files``: the static figures are files of the site (else they are inlined)."""
    strings = edition.strings
    require_strings(strings, [name for name in precomputed.datasets if name != USER_SLUG])
    number_filters = localised_number_filters(strings["format"])
    strings = filled_strings(strings, facts, precomputed.datasets)
    if user is not None:
        strings = user_model.user_strings(strings, user)
    env.filters.update(number_filters)
    env.filters.update(math_filters(strings["format"]))
    require_script_strings(js, strings)
    shared = page_context({
        "lang": edition.lang, "t": strings, "figures": edition.figures, "core": core,
        "hero": hero_view(hero_series(precomputed), precomputed.grid), "chart_table_bins": CHART_TABLE_BINS,
        "datasets": precomputed.datasets, "default_dataset": DEFAULT_DATASET,
        # the main explorer opens on the reader's model when there is one; the prose's small explorers do not
        "main_dataset": USER_SLUG if user is not None else DEFAULT_DATASET,
        "extra_datasets": (USER_SLUG,) if user is not None else (),
        "user": _user_view(user, precomputed, analyses) if user is not None else None,
        # name -> the indices of the examples its payload carries (the showcase), for the example picker
        "example_datasets": {name: r.showcase.tolist() for name, r in precomputed.datasets.items()
                             if r.dataset.labels.size <= EXAMPLE_LIST_MAX_ROWS and name != USER_SLUG},
        "site_root": site_root, "languages": languages,
        "reproduce": reproduce,
        "tables": build_tables(precomputed, analyses, number_filters),
        "show": show_links(precomputed.datasets, facts),
        # {[terms] key: English name} from the language's terminology table (content/<lang>/glossary.md)
        "glossary": glossary_names(load_glossary(Path(root) / "content" / edition.lang)),
        "downloads_root": downloads_root, "embed_page": False, "figure_files": figure_files,
    }, facts)
    return shared, strings, make_strings_json(strings, js), number_filters


def _user_view(user, precomputed, analyses):
    """What the "Your model" section's template reads of the reader's model (display text is escaped there)."""
    return user_model.user_report(user, precomputed, analyses)


def _render_page(root, env, shared, strings, number_filters, edition, widgets, strings_json, **page):
    """One edition's page: its sections, each widget followed by its embed box (when ``widgets`` has it)."""
    boxes = {widget.name: widget for widget in widgets}

    def render_component(name):
        if not (root / "templates" / "components" / f"{name}.html.j2").is_file():
            raise BuildError(f"unknown component (there is no templates/components/{name}.html.j2)")
        html = render_template(env, f"components/{name}.html.j2", shared)
        if name in boxes:
            widget = boxes[name]
            # In a textarea only "&" and "<" need escaping: the quotes stay quotes (fewer bytes).
            code = embed_snippet(widget).replace("&", "&amp;").replace("<", "&lt;")
            html += render_template(env, "embed-box.html.j2",
                                    dict(shared, widget=widget, snippet=markupsafe.Markup(code),
                                         **box_context(root, edition.lang, widget)))
        return html

    content_env = content_environment()
    content_env.filters.update(number_filters)
    rendered = []
    for s in edition.sections:
        section_html = render_section(s, content_env, shared, render_component, strings)
        words, (exercises, figures) = count_words(section_html), section_tasks(section_html)
        rendered.append({"slug": s.slug, "path": s.path, "html": section_html, "title": heading_text(section_html),
                         "short": contents_text(section_html),
                         "words": words, "minutes": section_minutes(words, exercises, figures)})
    parts = page_parts(rendered)
    return render_template(env, "index.html.j2", dict(shared, parts=parts, sections=rendered, strings_json=strings_json,
                                                      total_minutes=sum(p["minutes"] for p in parts), **page))


def page_parts(sections):
    """The sections grouped into the page's parts (settings ``PARTS``), in order: ``[{name, number, sections,
    minutes}]``, a part's minutes the sum of its sections' (as the contents print them). A section that no part
    names, or one out of the parts' order, stops the build."""
    where = {slug: (i, name) for i, (name, slugs) in enumerate(PARTS) for slug in slugs}
    parts, last = [], -1
    for section in sections:
        if section["slug"] not in where:
            raise BuildError(f"{section['path']}: section {section['slug']!r} belongs to no part "
                             "(add it to PARTS in sitegen/common/settings.py)")
        index, name = where[section["slug"]]
        if index < last:
            raise BuildError(f"{section['path']}: section {section['slug']!r} of part {name!r} comes after part "
                             f"{parts[-1]['name']!r} (its file name orders it)")
        if index != last:
            parts.append({"name": name, "sections": [], "minutes": 0})
            last = index
        parts[-1]["sections"].append(section)
        parts[-1]["minutes"] += section["minutes"]
    for number, part in enumerate(parts, 1):
        part["number"] = number
    return parts
