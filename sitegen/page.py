"""Rendering the pages and collecting every output file of the site.

One build writes one page per language edition (``index.html`` at the root, ``es/index.html``, …)
from the same templates, facts and data files: the data scripts and CSV downloads are language-neutral
and written once, at the root, and every page refers to them relative to its own folder.

Every interactive widget (a component whose template calls the ``explorer`` macro) is also an embed
page of its edition, ``embed/<widget>.html`` (``es/embed/…``): the widget alone, for a course page's
iframe, and on the full page an "Embed" box holds the iframe snippet. With a base URL the snippets are
absolute and each embed page gets an oEmbed file, ``embed/<widget>.oembed.json``. The one-file edition
(:func:`assemble_single_file`) is one edition's page with the script and every data file inlined.

The static figures (what a reader without JavaScript sees in place of a widget) are files of their own
on the site's pages, ``figures/<name>.<lang>.svg``, shown by an ``<img>`` inside ``<noscript>``: a page
read with JavaScript never requests them. Embed pages and the one-file edition inline them instead: a
sandboxed frame opened from disk is given no other file, and the one file must need none.
"""

import base64
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import jinja2
import markupsafe

from .analysis_payload import analysis_payload
from .content import MissingName, _missing, render_section, require_script_strings, require_strings, tex_to_mathml_core
from .downloads import data_csv, metrics_csv
from .errors import BuildError, template_lines
from .facts import FILTERS, number_filters
from .figures import figure_colours, figure_file, figure_size
from .payload import bins_payload, core_payload, dataset_payload, groups_payload, to_script
from .embed_box import box_context, resizer_path, resizer_script
from .embed_heights import snippet_height
from .embed_theme import themed_css
from .panels import expand_order, template_globals
from .settings import DEFAULT_DATASET, EMBED_WIDTH, EXAMPLE_LIST_MAX_ROWS, USER_SLUG
from .tables import build_tables
from . import user_model

__all__ = ["Edition", "template_environment", "content_environment", "render_template", "page_context",
           "engine_constants", "fill_constants", "localised_filters", "assemble_files", "assemble_single_file",
           "embeddable_components", "page_widgets", "embed_snippet", "EMBED_SANDBOX", "filled_strings", "script_ui"]


class Edition(NamedTuple):
    """One language's page: its tag, its folder in the site ("" is the root), its strings table, sections
    and static figures."""

    lang: str
    folder: str
    strings: dict
    sections: list
    figures: dict


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


def heading_text(html):
    """The plain text of a section's first h1/h2 (for the table of contents); empty if it has none."""
    match = re.search(r"<h[12]\b[^>]*>(.*?)</h[12]>", html, re.S)
    return markupsafe.Markup(re.sub(r"<[^>]+>", "", match.group(1))).unescape().strip() if match else ""


def localised_filters(number_format):
    """The number filters (``fixed``, ``pct``, ``num``, ``vec``, ``thousands``, …) writing numbers the way
    the page's language does: :func:`sitegen.facts.number_filters` with its ``[format]`` table."""
    return number_filters(number_format)


# Placeholders of the strings tables that the build fills from the engine's settings, so no string
# types an engine constant as a word. (Other placeholders, {t}, {ece}, …, are filled later.)
def engine_constants(facts, filters):
    """``{placeholder: text}`` of the engine constants the strings quote, written with ``filters``."""
    an, recipe = facts["an"], facts["recipe"]
    return {
        "table_bins": str(facts["table_bins"]),
        "max_bins": str(an.max_bins),
        "spread_lo": filters["fixed"](an.spread_q.lo * 100, 0), "spread_hi": filters["pct"](an.spread_q.hi, 0),
        "band_lo": filters["fixed"](an.band_q.lo * 100, 0), "band_hi": filters["pct"](an.band_q.hi, 0),
        "floor_lo": filters["pct"](an.floor_q.lo, 0), "floor_hi": filters["pct"](an.floor_q.hi, 0),
        "floor_hi_rank": filters["fixed"](an.floor_q.hi * 100, 0),
        "sim_logit_range": filters["interval"]((0, recipe.sim_logit_range)),
        "sim_60_n": filters["thousands"](facts["sim_60"].n),
        "overconfident_sharpness": filters["num"](recipe.overconfident_sharpness),
    }


def fill_constants(strings, constants, counts):
    """A copy of the strings table with the engine's constants filled in; ``counts`` gives each
    ``[datasets.<name>]`` table its ``{n}`` (the dataset's rows)."""
    def fill(value, extra):
        if isinstance(value, dict):
            filled = type(value).__new__(type(value))
            dict.__init__(filled, {k: fill(v, extra) for k, v in value.items()})
            filled.__dict__.update(getattr(value, "__dict__", {}))
            return filled
        if isinstance(value, str):
            for name, text in {**constants, **extra}.items():
                value = value.replace("{" + name + "}", text)
        return value

    result = fill(strings, {})
    for name, table in strings["datasets"].items():
        result["datasets"][name] = fill(table, {"n": counts[name]} if name in counts else {})
    return result


def filled_strings(strings, facts, datasets):
    """An edition's strings table as its page shows it: :func:`fill_constants` with the engine's constants
    written in its language, and each dataset's row count (``datasets``: name → precomputed result)."""
    filters = localised_filters(strings["format"])
    return fill_constants(strings, engine_constants(facts, filters),
                          {name: filters["thousands"](r.dataset.labels.size) for name, r in datasets.items()})


# How the scripts read the [ui] table: ui.name, ui["name"] or ui["prefix" + …]; anything else that
# names the table (ui[key], another name for it) could read a string script_ui leaves out.
_UI_KEY = re.compile(r'\bui\[\s*"([\w-]+)"\s*(\+)?')
_UI_OTHER = re.compile(r'\bui\[(?!\s*"[\w-]+"\s*[\]+])|(?<!\bui = CT\.strings\(\))(?<!\bui=CT\.strings\(\))\.ui\b(?!\s*[.\[])')


def script_ui(ui, script):
    """The part of the ``[ui]`` table that ``script`` (the concatenated scripts, with their ``/* js/file */``
    headers) reads: ``ui.name`` and ``ui["name"]``, and every key starting with ``prefix`` for
    ``ui["prefix" + …]``. The page's strings JSON carries only these: the labels that templates write
    are in the HTML already. A script reading the table any other way stops the build, naming its file."""
    parts = re.split(r"^/\* js/(\S+) \*/$", script, flags=re.M)
    exact, prefixes = set(), set()
    for name, body in zip(["(script)", *parts[1::2]], parts[0::2]):
        other = _UI_OTHER.search(body)
        if other:
            raise BuildError(f"static/js/{name}: reads the [ui] strings as "
                             f"{body[other.start():other.start() + 30]!r}: write ui.name, ui[\"name\"] or "
                             f"ui[\"prefix\" + …] (or var ui = CT.strings().ui), so the page ships what it reads")
        exact.update(re.findall(r"\bui\.([A-Za-z_]\w*)", body))
        for key, plus in _UI_KEY.findall(body):
            (prefixes if plus else exact).add(key)
    return {key: value for key, value in ui.items()
            if key in exact or any(key.startswith(prefix) for prefix in prefixes)}


def math_filters(number_format):
    """``tex`` (a TeX formula as inline MathML) and ``with_math`` (a string whose ``$…$`` parts are TeX),
    writing numbers in math with ``number_format``, as the prose does."""
    def tex(formula):
        return markupsafe.Markup(tex_to_mathml_core(str(formula), number_format=number_format))

    def with_math(text):
        parts = _INLINE_MATH.split(str(text))
        return markupsafe.Markup("").join(tex(part) if i % 2 else markupsafe.escape(part) for i, part in enumerate(parts))

    return {"tex": tex, "with_math": with_math}


_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$")


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
    env.globals.update(template_globals(templates_dir))  # the explorer's panels (sitegen/panels.py)
    return env


def content_environment():
    """The Jinja environment for Markdown sources: no autoescaping (the source is Markdown, not HTML)."""
    # "{#" opens a Jinja comment but also Markdown's attribute lists ({#id .class}); comments use "{##" here.
    env = jinja2.Environment(undefined=MissingName, autoescape=False, keep_trailing_newline=True,
                             comment_start_string="{##", comment_end_string="##}")
    env.filters.update(FILTERS)
    return env


_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"^[ \t]*//.*\n", re.M)
_TRAILING_COMMENT = re.compile(r"([;{,)])[ \t]+// .*$", re.M)
_INDENT = re.compile(r"^[ \t]+", re.M)
_BLANK_LINES = re.compile(r"\n\s*\n")


def compact(text):
    """A stylesheet or classic script without its comments, indentation and blank lines: the sources
    keep their documentation, the page (inlined, so in the first view's bytes) does not ship it.
    Safe for this project's sources, whose strings hold no comment markers."""
    text = _BLOCK_COMMENT.sub("", text)
    text = _LINE_COMMENT.sub("", text)
    text = _TRAILING_COMMENT.sub(r"\1", text)
    text = _INDENT.sub("", text)
    return _BLANK_LINES.sub("\n", text).strip()


_CSS_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")
_CSS_SPACE = re.compile(r"\s*([{};,>])\s*|(:)\s+")


def squeeze_css(text):
    """A compacted stylesheet without the spaces CSS never needs: around ``{ } ; , >`` and after ``:``,
    and the last ``;`` of a block. Quoted strings are left as they are; other whitespace stays (a
    descendant combinator, ``and (``, the operators of ``calc()``)."""
    parts = _CSS_STRING.split(text)
    strings = _CSS_STRING.findall(text)
    squeezed = [_CSS_SPACE.sub(lambda m: m.group(1) or m.group(2), part).replace(";}", "}") for part in parts]
    return "".join(part + (strings[i] if i < len(strings) else "") for i, part in enumerate(squeezed))


_JS_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_JS_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^")
_JS_REGEX_KEYWORDS = frozenset({"return", "typeof", "case", "do", "else", "in", "instanceof", "new", "delete",
                                "void", "throw", "yield"})


def _js_literal_end(text, start):
    """The index after the string, template or regular-expression literal opening at ``text[start]``."""
    quote, i, in_class = text[start], start + 1, False
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if quote == "/" and char == "[":
            in_class = True
        elif quote == "/" and char == "]":
            in_class = False
        elif char == quote and not in_class:
            i += 1
            if quote == "/":
                while i < len(text) and text[i] in _JS_WORD:  # the flags
                    i += 1
            return i
        elif char == "\n" and quote != "`":
            raise BuildError(f"unterminated {quote} literal in a script: {text[start:start + 40]!r}")
        i += 1
    raise BuildError(f"unterminated {quote} literal in a script: {text[start:start + 40]!r}")


def squeeze_js(text):
    """A compacted classic script without the spaces and tabs JavaScript never needs, found by scanning
    its tokens: literals (strings, templates, regular expressions) are copied as they are, comments
    dropped, and a space stays only between two word characters or where removing it would join two
    tokens into one (``a + +b``, ``a / /re/``, ``1 .x``). Line breaks all stay, so automatic semicolon
    insertion reads the script as before."""
    out, i, n = [], 0, len(text)
    last, word = "", ""  # the last character written that is not a space, and the last word written

    def emit(piece):
        nonlocal last, word
        out.append(piece)
        stripped = piece.rstrip(" \t")
        if stripped:
            last = stripped[-1]
            tail = re.search(r"[\w$]+$", stripped)
            word = tail.group(0) if tail else ""

    while i < n:
        char = text[i]
        if char in " \t":
            j = i
            while j < n and text[j] in " \t":
                j += 1
            following = text[j] if j < n else "\n"
            if (out and out[-1] != "\n" and following != "\n" and (
                    (last in _JS_WORD and following in _JS_WORD) or (last in "+-" and following == last)
                    or (last == "/" and following in "/*") or (last.isdigit() and following == ".")
                    or (last + following in ("<!", "->")))):  # never write an HTML-like comment, <!-- or -->
                out.append(" ")
            i = j
        elif char == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                i += 1
        elif char == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            if end < 0:
                raise BuildError(f"unterminated comment in a script: {text[i:i + 40]!r}")
            if "\n" in text[i:end]:
                emit("\n")
            i = end + 2
        elif char in "'\"`" or (char == "/" and (last in _JS_REGEX_AFTER or not last or word in _JS_REGEX_KEYWORDS)
                                 and not (last in _JS_WORD and word not in _JS_REGEX_KEYWORDS) and last not in ")]"):
            end = _js_literal_end(text, i)
            emit(text[i:end])
            i = end
        else:
            emit(char)
            i += 1
    return "".join(out)


def render_template(env, name, context):
    """Render the template ``name``; any template error becomes a :class:`BuildError` saying where.

    The place is the chain of templates the error passed through, outermost
    first (``templates/components/explorer.html.j2:5: templates/components/_explorer.html.j2:47: …``).
    """
    try:
        return env.get_template(name).render(context)
    except jinja2.TemplateError as error:
        base = Path(env.loader.searchpath[0]).parent
        places = [(error.filename, error.lineno)] if isinstance(error, jinja2.TemplateSyntaxError) else template_lines(error)
        where = ": ".join(f"{_relative(file, base)}:{line}" for file, line in places) or f"templates/{name}"
        what = "" if isinstance(error, (jinja2.UndefinedError, TemplateFailure)) else f"{error.__class__.__name__}: "
        raise BuildError(f"{where}: {what}{error.message or error}") from None


def _relative(file, base):
    try:
        return Path(file).relative_to(base).as_posix()
    except ValueError:
        return str(file)


# Whole-line comments of the inlined stylesheet and script: they explain the sources, and would be
# about a quarter of the first view's script bytes. (Comments after code on a line are kept.)
_COMMENT_LINES = re.compile(r"^[ \t]*/\*(?:(?!\*/).)*\*/[ \t]*\n|^[ \t]*//[^\n]*\n", re.S | re.M)


def _strip_comment_lines(text):
    """``text`` (CSS or JavaScript) without the lines that hold only a comment."""
    return _COMMENT_LINES.sub("", text)


def _read_static(root):
    """The stylesheet and the script, each concatenated in its ``order.txt`` order and compacted, to inline in the
    page."""
    parts = {}
    for kind in ("css", "js"):
        folder = root / "static" / kind
        order_file = folder / "order.txt"
        if not order_file.exists():
            raise BuildError(f"{order_file} is missing")
        names = [line.strip() for line in order_file.read_text(encoding="utf-8").splitlines()
                 if line.strip() and not line.startswith("#")]
        names = expand_order(root, kind, names)  # "<panels>": the manifest's scripts or stylesheets
        chunks = []
        for name in names:
            path = folder / name
            if not path.exists():
                raise BuildError(f"{order_file}: lists {name}, which does not exist")
            text = compact(path.read_text(encoding="utf-8"))
            chunks.append(f"/* {kind}/{name} */\n" + (squeeze_css(text) if kind == "css" else squeeze_js(text)) + "\n")
        parts[kind] = "".join(chunks)
    return parts["css"], parts["js"]


APP_SCRIPT = "app.js"


_FILE_HEADERS = re.compile(r"^/\* (?:js|css)/\S+ \*/\n", re.M)


def shipped(text):
    """The stylesheet or script as pages get it: without the ``/* js/<file> */`` headers, which only
    serve the build's own messages (a strings key a script reads names its file)."""
    return _FILE_HEADERS.sub("", text)


def app_script(core, js):
    """The site's one script, shared by every language and loaded with ``defer`` so that nothing runs
    before the first paint: the core payload and the front end in ``order.txt`` order. The interface
    strings are each page's own (``<script type="application/json" id="ct-strings">``); datasets are
    not in it either: each explorer loads ``data/<name>.js`` when it starts."""
    return to_script("core", core) + shipped(js)


def run_reproduction(program):
    """Run the page's self-contained Python program; return ``{"source", "output"}`` (empty if it does not exist)."""
    if not program.exists():
        return {"source": "", "output": ""}
    try:
        done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{program}: did not finish within 120 s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise BuildError(f"{program}: exited with status {done.returncode}: {last}")
    return {"source": program.read_text(encoding="utf-8").rstrip("\n"), "output": done.stdout.rstrip("\n")}


# Names only the page template receives (see assemble_files); no fact may take them either.
_INDEX_NAMES = ("sections", "inline_css", "app_script", "strings_json", "favicon_href", "inline_scripts",
                "edition_note", "widget", "widget_html", "embed_script", "full_page", "explorer_id", "main_explorer",
                "snippet", "base_url")


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


def _data_files(precomputed, analyses, user=None):
    """The language-neutral files: data scripts and CSV downloads of every dataset. The reader's own model
    (``user``, :mod:`sitegen.user_model`) gets no per-row CSV; its payload keeps only the shown examples'
    classes, and its downloads add ``temperature.json``."""
    files = {}
    for name, result in precomputed.datasets.items():
        payload = dataset_payload(result, precomputed)
        if name == USER_SLUG:
            payload = user_model.user_examples_payload(payload, user, result)
        files[f"data/{name}.js"] = to_script("dataset", payload)
        files[f"data/{name}-analysis.js"] = to_script("analysis", analysis_payload(analyses, name))
        for part in result.parts:
            files[f"data/{name}-{part}-bins.js"] = to_script("bins", bins_payload(result, precomputed, part))
        if result.groups is not None:
            files[f"data/{name}-groups.js"] = to_script("groups", groups_payload(result, precomputed))
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


def assemble_files(root, precomputed, analyses, facts, editions, base_url=None, user=None):
    """Every file of the site as ``{relative path: text}``: one page per :class:`Edition` with an embed
    page per widget, and once for all of them the data scripts, downloads and favicon.

    ``base_url`` (the address the site is published at, without a trailing slash) makes the embed
    snippets absolute and adds an oEmbed file per embed page; without it every address is relative.
    ``user`` (a :class:`sitegen.user_model.UserModel`, whose dataset ``precomputed`` holds) adds the reader's
    model: its strings and its files.
    """
    root = Path(root)
    env = template_environment(root / "templates")
    css, js = _read_static(root)
    reproduce = run_reproduction(root / "content" / "reproduce.py")
    core = core_payload(precomputed, DEFAULT_DATASET)
    files = _data_files(precomputed, analyses, user)
    files[APP_SCRIPT] = app_script(core, js)
    embed_script = _read_script(root, "embed.js")
    colours = figure_colours(css)
    for edition in editions:
        site_root = "../" * (edition.folder.count("/") + 1) if edition.folder else ""
        shared, strings, strings_json, number_filters = _edition_context(
            root, env, precomputed, analyses, facts, edition, _languages(edition, editions, base_url), js, reproduce, core,
            site_root=site_root, downloads_root=site_root, figure_files=True, user=user)
        widgets = page_widgets(root, edition, strings, base_url=base_url)
        files[_page_path(edition)] = _render_page(root, env, shared, strings, number_filters, edition, widgets, strings_json,
                                                  inline_css=shipped(css), app_script=APP_SCRIPT, favicon_href=f"{site_root}favicon.svg",
                                                  inline_scripts=None, edition_note=None)
        for widget in widgets:
            files[resizer_path(widget)] = resizer_script(root)
            files[widget.path] = _render_embed(root, env, shared, widget, strings_json, css, embed_script)
            if widget.oembed:
                files[widget.path[:-len(".html")] + ".oembed.json"] = oembed_json(widget, strings, base_url, edition.folder)
        for name, svg in edition.figures.items():
            files[figure_path(name, edition.lang)] = figure_file(svg, colours)
    files["favicon.svg"] = (root / "static" / "favicon.svg").read_text(encoding="utf-8")
    return files


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
    css, js = _read_static(root)
    reproduce = run_reproduction(root / "content" / "reproduce.py")
    core = core_payload(precomputed, DEFAULT_DATASET)
    core = dict(core, bin_counts=list(core["offered_bin_counts"]))
    shared, strings, strings_json, number_filters = _edition_context(
        root, env, precomputed, analyses, facts, edition, _languages(edition, [edition]), js, reproduce, core,
        site_root="", downloads_root=f"{base_url}/" if base_url else None, figure_files=False, user=user)
    published = edition._replace(folder=published_folder)
    widgets = page_widgets(root, published, strings, base_url=base_url) if base_url else []
    scripts = [app_script(core, js)] + [text for name, text in sorted(_data_files(precomputed, analyses, user).items())
                                        if name.endswith(".js") and not name.endswith("-bins.js")]
    inline = markupsafe.Markup("").join(
        markupsafe.Markup(f"<script>\n{_inline_script(text)}</script>\n") for text in scripts)
    favicon = (root / "static" / "favicon.svg").read_bytes()
    note = markupsafe.Markup(render_template(env, "single-file-note.html.j2", dict(shared, base_url=base_url)))
    return _render_page(root, env, shared, strings, number_filters, edition, widgets, strings_json,
                        inline_css=shipped(css), app_script=None, inline_scripts=inline, edition_note=note,
                        favicon_href="data:image/svg+xml;base64," + base64.b64encode(favicon).decode("ascii"))


def _inline_script(text):
    """A script's text made safe inside an HTML ``<script>`` element (no ``</script`` or ``<!--`` in it)."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.I).replace("<!--", "<\\!--")


def _read_script(root, name):
    """``static/js/<name>``, a script only some pages inline, compacted like the others."""
    path = Path(root) / "static" / "js" / name
    if not path.is_file():
        raise BuildError(f"{path} is missing")
    return compact(path.read_text(encoding="utf-8")) + "\n"


def _edition_context(root, env, precomputed, analyses, facts, edition, languages, js, reproduce, core, *,
                     site_root, downloads_root, figure_files, user=None):
    """The names shared by one edition's page, its components and its embed pages, with the edition's
    strings (engine constants filled) and the strings JSON its scripts read; sets ``env``'s number filters.
    ``figure_files``: the static figures are files of the site (else they are inlined)."""
    strings = edition.strings
    require_strings(strings, [name for name in precomputed.datasets if name != USER_SLUG])
    number_filters = localised_filters(strings["format"])
    strings = filled_strings(strings, facts, precomputed.datasets)
    if user is not None:
        strings = user_model.user_strings(strings, user)
    env.filters.update(number_filters)
    env.filters.update(math_filters(strings["format"]))
    descriptions = strings["datasets"]
    require_script_strings(js, strings)
    shared = page_context({
        "lang": edition.lang, "t": strings, "figures": edition.figures, "core": core,
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
        "downloads_root": downloads_root, "embed_page": False, "figure_files": figure_files,
    }, facts)
    script_strings = {"ui": script_ui(strings["ui"], js), "format": strings["format"],
                      "datasets": {name: {"short": table["short"], "summary": table["summary"]}
                                   for name, table in descriptions.items()}}
    # Inside <script>: no "</" (it could close the element) and no "<!--" (it could make the parser miss the end).
    strings_json = markupsafe.Markup(json.dumps(script_strings, sort_keys=True, ensure_ascii=False)
                                     .replace("</", "<\\/").replace("<!--", "\\u003c!--"))
    return shared, strings, strings_json, number_filters


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
            html += render_template(env, "embed-box.html.j2", dict(shared, widget=widget, snippet=markupsafe.Markup(code),
                                                                   **box_context(root, edition.lang, widget)))
        return html

    content_env = content_environment()
    content_env.filters.update(number_filters)
    rendered = []
    for s in edition.sections:
        section_html = render_section(s, content_env, shared, render_component, strings)
        rendered.append({"slug": s.slug, "html": section_html, "title": heading_text(section_html)})
    return render_template(env, "index.html.j2", dict(shared, sections=rendered, strings_json=strings_json, **page))


# ---------------------------------------------------------------------------------------- embeds

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


def _render_embed(root, env, shared, widget, strings_json, css, embed_script):
    """The embed page of ``widget``: the widget alone (no page chrome), its state from the ``#state/``
    hash, a link to its section of the full page, and the script that reports its height."""
    site_root = "../" + shared["site_root"]
    context = dict(shared, site_root=site_root, embed_page=True)
    html = render_template(env, f"components/{widget.name}.html.j2", context)
    main_explorer = 'data-hash="on"' in render_template(env, f"components/{widget.name}.html.j2", shared)
    return render_template(env, "embed.html.j2", dict(
        context, widget=widget, widget_html=markupsafe.Markup(html), strings_json=strings_json,
        inline_css=shipped(themed_css(css)), app_script=APP_SCRIPT, embed_script=markupsafe.Markup(_inline_script(embed_script)),
        full_page="../index.html", explorer_id=re.search(r'id="([^"]+)" data-component="explorer"', html).group(1),
        main_explorer=main_explorer))
