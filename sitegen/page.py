"""Rendering the pages and collecting every output file of the site.

One build writes one page per language edition (``index.html`` at the root, ``es/index.html``, …)
from the same templates, facts and data files: the data scripts and CSV downloads are language-neutral
and written once, at the root, and every page refers to them relative to its own folder.
"""

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import jinja2
import markupsafe

from .analysis_payload import analysis_payload
from .content import MissingName, render_section, require_script_strings, require_strings, tex_to_mathml_core
from .downloads import data_csv, metrics_csv
from .errors import BuildError, template_lines
from .facts import FILTERS, number_filters
from .payload import bins_payload, core_payload, dataset_payload, groups_payload, to_script
from .settings import DEFAULT_DATASET, EXAMPLE_LIST_MAX_ROWS
from .tables import build_tables

__all__ = ["Edition", "template_environment", "content_environment", "render_template", "page_context",
           "engine_constants", "fill_constants", "localised_filters", "assemble_files"]


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
    """The stylesheet and the script, each concatenated in its ``order.txt`` order and compacted, to inline in the page."""
    parts = {}
    for kind in ("css", "js"):
        folder = root / "static" / kind
        order_file = folder / "order.txt"
        if not order_file.exists():
            raise BuildError(f"{order_file} is missing")
        names = [line.strip() for line in order_file.read_text(encoding="utf-8").splitlines()
                 if line.strip() and not line.startswith("#")]
        chunks = []
        for name in names:
            path = folder / name
            if not path.exists():
                raise BuildError(f"{order_file}: lists {name}, which does not exist")
            chunks.append(f"/* {kind}/{name} */\n" + compact(path.read_text(encoding="utf-8")) + "\n")
        parts[kind] = "".join(chunks)
    return parts["css"], parts["js"]


APP_SCRIPT = "app.js"


def app_script(core, js):
    """The site's one script, shared by every language and loaded with ``defer`` so that nothing runs
    before the first paint: the core payload and the front end in ``order.txt`` order. The interface
    strings are each page's own (``<script type="application/json" id="ct-strings">``); datasets are
    not in it either: each explorer loads ``data/<name>.js`` when it starts."""
    return to_script("core", core) + js


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
_INDEX_NAMES = ("sections", "inline_css", "app_script", "strings_json")


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


def _data_files(precomputed, analyses):
    """The language-neutral files: data scripts and CSV downloads of every dataset."""
    files = {}
    for name, result in precomputed.datasets.items():
        files[f"data/{name}.js"] = to_script("dataset", dataset_payload(result, precomputed))
        files[f"data/{name}-analysis.js"] = to_script("analysis", analysis_payload(analyses, name))
        for part in result.parts:
            files[f"data/{name}-{part}-bins.js"] = to_script("bins", bins_payload(result, precomputed, part))
        if result.groups is not None:
            files[f"data/{name}-groups.js"] = to_script("groups", groups_payload(result, precomputed))
        files[f"downloads/{name}-data.csv"] = data_csv(result.dataset)
        files[f"downloads/{name}-metrics.csv"] = metrics_csv(result, precomputed.grid)
    return files


def _page_path(edition):
    return f"{edition.folder}/index.html" if edition.folder else "index.html"


def _link(from_edition, to_edition):
    """The link from one edition's page to another's (``es/index.html``, ``../index.html``, ``index.html``)."""
    if to_edition.folder == from_edition.folder:
        return "index.html"
    up = "../" * (from_edition.folder.count("/") + 1) if from_edition.folder else ""
    return up + _page_path(to_edition)


def _languages(edition, editions):
    """The page's language links: ``alternates`` (every edition, for ``<link rel=alternate>``, and
    ``x_default``, the root page) and ``others`` (the switcher's links to the other editions)."""
    if len(editions) < 2:
        return {"alternates": [], "others": [], "x_default": None}
    links = [{"lang": e.lang, "href": _link(edition, e), "name": e.strings["meta"]["language_name"]}
             for e in editions]
    root = next((e for e in editions if not e.folder), editions[0])
    return {"alternates": links, "others": [link for link in links if link["lang"] != edition.lang],
            "x_default": _link(edition, root)}


def assemble_files(root, precomputed, analyses, facts, editions):
    """Every file of the site as ``{relative path: text}``: one page per :class:`Edition`, and once for all
    of them the data scripts, downloads and favicon."""
    root = Path(root)
    env = template_environment(root / "templates")
    css, js = _read_static(root)
    reproduce = run_reproduction(root / "content" / "reproduce.py")
    files = _data_files(precomputed, analyses)
    files[APP_SCRIPT] = app_script(core_payload(precomputed, DEFAULT_DATASET), js)
    for edition in editions:
        files[_page_path(edition)] = _render_page(root, env, precomputed, analyses, facts, edition, editions,
                                                  css, js, reproduce)
    files["favicon.svg"] = (root / "static" / "favicon.svg").read_text(encoding="utf-8")
    return files


def _render_page(root, env, precomputed, analyses, facts, edition, editions, css, js, reproduce):
    """One edition's ``index.html``."""
    strings = edition.strings
    require_strings(strings, precomputed.datasets)
    number_filters = localised_filters(strings["format"])
    strings = fill_constants(strings, engine_constants(facts, number_filters),
                             {name: number_filters["thousands"](r.dataset.labels.size)
                              for name, r in precomputed.datasets.items()})
    env.filters.update(number_filters)
    env.filters.update(math_filters(strings["format"]))
    descriptions = strings["datasets"]
    core = core_payload(precomputed, DEFAULT_DATASET)
    require_script_strings(js, strings)
    site_root = "../" * (edition.folder.count("/") + 1) if edition.folder else ""
    shared = page_context({
        "lang": edition.lang, "t": strings, "figures": edition.figures, "core": core,
        "datasets": precomputed.datasets, "default_dataset": DEFAULT_DATASET,
        # name -> the indices of the examples its payload carries (the showcase), for the example picker
        "example_datasets": {name: r.showcase.tolist() for name, r in precomputed.datasets.items()
                             if r.dataset.labels.size <= EXAMPLE_LIST_MAX_ROWS},
        "site_root": site_root, "languages": _languages(edition, editions),
        "reproduce": reproduce,
        "tables": build_tables(precomputed, analyses, number_filters),
    }, facts)

    def render_component(name):
        if not (root / "templates" / "components" / f"{name}.html.j2").is_file():
            raise BuildError(f"unknown component (there is no templates/components/{name}.html.j2)")
        return render_template(env, f"components/{name}.html.j2", shared)

    content_env = content_environment()
    content_env.filters.update(number_filters)
    rendered = []
    for s in edition.sections:
        section_html = render_section(s, content_env, shared, render_component, strings)
        rendered.append({"slug": s.slug, "html": section_html, "title": heading_text(section_html)})
    script_strings = {"ui": strings["ui"], "format": strings["format"],
                      "datasets": {name: {"short": table["short"], "summary": table["summary"]}
                                   for name, table in descriptions.items()}}
    return render_template(env, "index.html.j2", dict(
        shared, sections=rendered, inline_css=css, app_script=APP_SCRIPT,
        strings_json=markupsafe.Markup(json.dumps(script_strings, sort_keys=True, ensure_ascii=False)
                                       .replace("</", "<\\/")),
    ))
