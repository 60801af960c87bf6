"""Rendering the page and collecting every output file of the site."""

import json
import re
import subprocess
import sys
from pathlib import Path

import jinja2
import markupsafe

from .analysis_payload import analysis_payload
from .content import render_section
from .downloads import data_csv, metrics_csv
from .errors import BuildError
from .facts import FILTERS
from .payload import core_payload, dataset_payload, to_script
from .settings import DEFAULT_DATASET
from .tables import build_tables

__all__ = ["template_environment", "content_environment", "page_context", "assemble_files"]


def inline_svg(svg, instance, label):
    """An SVG figure ready to inline: ids re-prefixed by ``instance`` (unique per placement) and a text alternative."""
    svg = re.sub(r'(id="|url\(#|href="#)', lambda m: m.group(1) + instance + "-", svg)
    return markupsafe.Markup(svg.replace("<svg ", f'<svg role="img" aria-label="{markupsafe.escape(label)}" ', 1))


def heading_text(html):
    """The plain text of a section's first h1/h2 (for the table of contents); empty if it has none."""
    match = re.search(r"<h[12]\b[^>]*>(.*?)</h[12]>", html, re.S)
    return markupsafe.Markup(re.sub(r"<[^>]+>", "", match.group(1))).unescape().strip() if match else ""


def localised_filters(number_format):
    """The ``fixed``, ``pct`` and ``temp`` filters writing numbers the way the page's language does."""
    decimal, percent = number_format["decimal"], number_format["percent"]
    return {
        "fixed": lambda value, digits=3: FILTERS["fixed"](value, digits).replace(".", decimal),
        "pct": lambda value, digits=1: percent.replace("{value}", FILTERS["fixed"](float(value) * 100, digits).replace(".", decimal)),
        # The one rule for printing a temperature: three significant digits (static/js/core.js CT.temp agrees).
        "temp": lambda value: f"{float(value):#.3g}".replace(".", decimal),
    }


def template_environment(templates_dir):
    """The one Jinja environment for templates: autoescaped, and a missing variable stops the build."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(FILTERS)
    env.filters["inline_svg"] = inline_svg
    return env


def content_environment():
    """The Jinja environment for Markdown sources: no autoescaping (the source is Markdown, not HTML)."""
    # "{#" opens a Jinja comment but also Markdown's attribute lists ({#id .class}); comments use "{##" here.
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True,
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


def _script_for_inline(text):
    """Make a script safe inside ``<script>…</script>``."""
    return text.replace("</script", "<\\/script")


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
_INDEX_NAMES = ("sections", "inline_css", "inline_js", "core_script", "strings_json")


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


def assemble_files(root, precomputed, analyses, facts, figures, sections, strings, lang):
    """Every file of the site as ``{relative path: text}``: page, data scripts, downloads, favicon."""
    root = Path(root)
    env = template_environment(root / "templates")
    if "format" not in strings:
        raise BuildError("strings.toml: the [format] table (decimal, percent) is missing")
    number_filters = localised_filters(strings["format"])
    env.filters.update(number_filters)
    descriptions = strings["datasets"]
    missing = [name for name in precomputed.datasets if name not in descriptions]
    if missing:
        raise BuildError(f"strings.toml: [datasets] lacks a description of {', '.join(missing)}")
    files = {}
    for name, result in precomputed.datasets.items():
        files[f"data/{name}.js"] = to_script("dataset", dataset_payload(result, precomputed))
        files[f"data/{name}-analysis.js"] = to_script("analysis", analysis_payload(analyses, name))
        files[f"downloads/{name}-data.csv"] = data_csv(result.dataset)
        files[f"downloads/{name}-metrics.csv"] = metrics_csv(result, precomputed.grid)
    core = core_payload(precomputed, {name: descriptions[name]["summary"] for name in precomputed.datasets},
                        DEFAULT_DATASET)
    css, js = _read_static(root)
    shared = page_context({
        "lang": lang, "t": strings, "figures": figures, "core": core,
        "datasets": precomputed.datasets, "default_dataset": DEFAULT_DATASET,
        "reproduce": run_reproduction(root / "content" / "reproduce.py"),
        "tables": build_tables(precomputed, analyses, number_filters),
    }, facts)

    def render_component(name):
        try:
            return env.get_template(f"components/{name}.html.j2").render(shared)
        except jinja2.TemplateNotFound:
            raise BuildError(f"unknown component [[component:{name}]] (no templates/components/{name}.html.j2)") from None

    content_env = content_environment()
    content_env.filters.update(number_filters)
    rendered = []
    for s in sections:
        section_html = render_section(s, content_env, shared, render_component)
        rendered.append({"slug": s.slug, "html": section_html, "title": heading_text(section_html)})
    try:
        html = env.get_template("index.html.j2").render(
            shared, sections=rendered, inline_css=css,
            inline_js=_script_for_inline(js),
            core_script=_script_for_inline(to_script("core", core)),
            strings_json=markupsafe.Markup(json.dumps({"ui": strings["ui"], "format": strings["format"]},
                                                      sort_keys=True, ensure_ascii=False)
                                           .replace("</", "<\\/")),
        )
    except jinja2.TemplateError as error:
        raise BuildError(f"templates: {error.__class__.__name__}: {error}") from None
    files["index.html"] = html
    files["favicon.svg"] = (root / "static" / "favicon.svg").read_text(encoding="utf-8")
    return files
