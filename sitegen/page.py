"""Rendering the page and collecting every output file of the site."""

import json
import re
import subprocess
import sys
from pathlib import Path

import jinja2
import markupsafe

from .analysis_payload import analysis_payload
from .content import MissingName, render_section, require_script_strings, require_strings
from .downloads import data_csv, metrics_csv
from .errors import BuildError, template_lines
from .facts import FILTERS
from .payload import bins_payload, core_payload, dataset_payload, groups_payload, to_script
from .settings import DEFAULT_DATASET
from .tables import build_tables

__all__ = ["template_environment", "content_environment", "render_template", "page_context", "assemble_files"]


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


def app_script(core, strings, js):
    """The page's one script, loaded with ``defer`` so that nothing runs before the first paint: the core
    payload, the interface strings (``CalibTutorial._strings``) and the front end in ``order.txt`` order.
    Datasets are not in it: each explorer loads ``data/<name>.js`` when it starts."""
    head = ("window.CalibTutorial=window.CalibTutorial||{};window.CalibTutorial._strings="
            + json.dumps(strings, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + ";\n")
    return head + to_script("core", core) + js


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
_INDEX_NAMES = ("sections", "inline_css", "app_script")


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
    require_strings(strings, precomputed.datasets)
    number_filters = localised_filters(strings["format"])
    env.filters.update(number_filters)
    descriptions = strings["datasets"]
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
    core = core_payload(precomputed, {name: descriptions[name]["summary"] for name in precomputed.datasets},
                        DEFAULT_DATASET)
    css, js = _read_static(root)
    require_script_strings(js, strings)
    shared = page_context({
        "lang": lang, "t": strings, "figures": figures, "core": core,
        "datasets": precomputed.datasets, "default_dataset": DEFAULT_DATASET,
        "reproduce": run_reproduction(root / "content" / "reproduce.py"),
        "tables": build_tables(precomputed, analyses, number_filters),
    }, facts)

    def render_component(name):
        if not (root / "templates" / "components" / f"{name}.html.j2").is_file():
            raise BuildError(f"unknown component (there is no templates/components/{name}.html.j2)")
        return render_template(env, f"components/{name}.html.j2", shared)

    content_env = content_environment()
    content_env.filters.update(number_filters)
    rendered = []
    for s in sections:
        section_html = render_section(s, content_env, shared, render_component)
        rendered.append({"slug": s.slug, "html": section_html, "title": heading_text(section_html)})
    html = render_template(env, "index.html.j2", dict(shared, sections=rendered, inline_css=css,
                                                      app_script=APP_SCRIPT))
    files[APP_SCRIPT] = app_script(core, {"ui": strings["ui"], "format": strings["format"]}, js)
    files["index.html"] = html
    files["favicon.svg"] = (root / "static" / "favicon.svg").read_text(encoding="utf-8")
    return files
