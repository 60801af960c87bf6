"""sitegen/assemble/page.py and the modules it assembles with (templating, assets, page_strings): SVG inlining,
the localised number filters, the shipped scripts, and the page's template errors.

The error tests run the page stage (``assemble_files``) on a private copy of
``templates/``, ``static/`` and ``content/``, broken in one place each; every
failure must be one :class:`BuildError` line naming the file and the key or
place, never a ``KeyError``, a Jinja exception or a blank in the page.
"""

import re
import shutil
import xml.etree.ElementTree as ET
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from shared_values import with_run_cache
from sitegen_inputs import page_inputs

from sitegen.assemble.page import Edition, assemble_files
from sitegen.common.errors import BuildError
from sitegen.common.numbers import number_filters
from sitegen.content.sections import load_sections, load_strings
from sitegen.render.templating import inline_svg

ROOT = Path(__file__).resolve().parents[1]
MINUS = "\u2212"


# --- SVG inlining -----------------------------------------------------------------------------

SMALL_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
             '<defs><clipPath id="clip1"><rect width="5" height="5"/></clipPath></defs>'
             '<g clip-path="url(#clip1)"><use href="#mark"/></g><path id="mark" d="M0 0L1 1"/></svg>')


def ids_and_references(svg):
    ids = re.findall(r'\sid="([^"]+)"', svg)
    references = re.findall(r'url\(#([^)]+)\)|href="#([^"]+)"', svg)
    return ids, [a or b for a, b in references]


def test_inline_svg_prefixes_every_id_and_reference_with_the_instance():
    out = str(inline_svg(SMALL_SVG, "fig-a", "A label"))
    ids, references = ids_and_references(out)
    assert ids == ["fig-a-clip1", "fig-a-mark"]
    assert sorted(references) == ["fig-a-clip1", "fig-a-mark"]


def test_two_placements_of_one_figure_share_no_id():
    first, second = (ids_and_references(str(inline_svg(SMALL_SVG, name, "x")))[0] for name in ("one", "two"))
    assert first and second and not set(first) & set(second)


def test_inline_svg_applies_the_label_escaped_on_the_svg_element_only():
    out = str(inline_svg(SMALL_SVG, "f", 'Reliability "at T = 1" <fitted> & more'))
    root = ET.fromstring(out)
    assert root.get("role") == "img"
    assert root.get("aria-label") == 'Reliability "at T = 1" <fitted> & more'
    assert out.count("aria-label=") == 1


def test_the_real_figures_inline_without_an_xml_declaration_and_with_resolvable_references(precomputed):
    _, _, figures = page_inputs(precomputed)
    assert figures
    for name, svg in figures.items():
        out = str(inline_svg(svg, f"test-{name}", name))
        assert out.startswith("<svg ") and "<?xml" not in out and "<!DOCTYPE" not in out
        ids, references = ids_and_references(out)
        assert len(ids) == len(set(ids)) and set(references) <= set(ids), name
        assert all(i.startswith(f"test-{name}-") for i in ids)
        ET.fromstring(out)  # well-formed


# --- localised number filters -----------------------------------------------------------------

COMMA = number_filters({"decimal": ",", "percent": "{value}\u00a0%"})
POINT = number_filters({"decimal": ".", "percent": "{value}%"})


@pytest.mark.parametrize("value, digits, expected", [
    (0.125, 2, "0,13"),      # .5 boundaries (exact in binary) round away from zero
    (0.375, 2, "0,38"),
    (2.5, 0, "3"),
    (0.5, 0, "1"),
    (-0.125, 2, MINUS + "0,13"),
    (-2.5, 0, MINUS + "3"),
    (1.0625, 3, "1,063"),
    (0.124, 2, "0,12"),
    (-0.004, 2, "0,00"),     # no negative zero
    (7, 3, "7,000"),
    (12.0, 0, "12"),
])
def test_localised_fixed(value, digits, expected):
    assert COMMA["fixed"](value, digits) == expected
    assert POINT["fixed"](value, digits) == expected.replace(",", ".")


@pytest.mark.parametrize("value, digits, expected", [
    (0.3125, 1, "31,3"),     # 31.25 → 31.3
    (0.125, 0, "13"),
    (-0.3125, 1, MINUS + "31,3"),
    (1.0, 1, "100,0"),
    (0.0, 1, "0,0"),
])
def test_localised_pct(value, digits, expected):
    assert COMMA["pct"](value, digits) == expected + "\u00a0%"
    assert POINT["pct"](value, digits) == expected.replace(",", ".") + "%"


def decimal_oracle(exact, digits, separator):
    """``exact`` (a Decimal) rounded half away from zero to ``digits`` decimals, written with U+2212
    and ``separator``."""
    rounded = exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    text = format(abs(rounded), "f").replace(".", separator)
    return (MINUS + text) if rounded < 0 else text


@given(st.integers(-10**7, 10**7), st.integers(0, 3))
def test_localised_fixed_matches_exact_decimal_rounding(numerator, digits):
    # n / 16 is exact in binary and n / 16 * 10**digits is too, so float and Decimal agree on the input
    value = numerator / 16
    assert COMMA["fixed"](value, digits) == decimal_oracle(Decimal(numerator) / 16, digits, ",")


# --- template and strings errors through the page stage ---------------------------------------

def sources(tmp_path):
    """A private copy of what the page stage reads."""
    root = tmp_path / "root"
    for name in ("templates", "static", "content"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture(scope="module", autouse=True)
def data_files_once():
    """The error tests break templates and strings, never the engine's results, so the language-neutral
    data files (``sitegen.assemble.page._data_files``) are read once per module (from the run's build cache,
    which :func:`assemble` makes active) instead of once per assembly."""
    import sitegen.assemble.page as page

    original, memo = page._data_files, {}

    def once(precomputed, analyses, user=None):
        key = (id(precomputed), id(analyses), id(user))
        if key not in memo:
            memo[key] = original(precomputed, analyses, user)
        return memo[key]

    page._data_files = once
    yield
    page._data_files = original


def assemble(root, precomputed):
    """The English page stage of the sources at ``root`` (a copy whose front end a test changed), with the run's
    build cache active: the session's build has cached the data files and the calibrator fits, which no
    template, script or string changes."""
    analyses, facts, figures = page_inputs(precomputed)
    content = root / "content" / "en"
    edition = Edition("en", "", load_strings(content), load_sections(content), figures)
    return with_run_cache(lambda: assemble_files(root, precomputed, analyses, facts, [edition]))


def page_error(root, precomputed):
    """The one-line message of the BuildError the page stage raises."""
    with pytest.raises(BuildError) as raised:
        assemble(root, precomputed)
    message = str(raised.value)
    assert "\n" not in message and "KeyError" not in message
    return message


def test_the_copied_sources_assemble(tmp_path, precomputed):
    files = assemble(sources(tmp_path), precomputed)
    assert "index.html" in files


def test_a_missing_ui_string_names_the_strings_file_the_key_and_the_templates(tmp_path, precomputed):
    root = sources(tmp_path)
    strings = root / "content" / "en" / "strings.toml"
    edit(strings, 'button_pin = "Pin this state"\n', "")
    message = page_error(root, precomputed)
    assert f"{strings}: [ui] has no key 'button_pin'" in message
    assert re.search(r"components/explorer\.html\.j2:\d+: templates/components/_explorer\.html\.j2:\d+: ", message)
    assert "07-explorer.md: [[component:explorer]]" in message


def test_a_missing_ui_string_that_only_a_script_reads_names_the_key_and_the_script(tmp_path, precomputed):
    root = sources(tmp_path)
    strings = root / "content" / "en" / "strings.toml"
    text = strings.read_text(encoding="utf-8")
    strings.write_text(re.sub(r"\naxis_count = [^\n]*", "", text, count=1), encoding="utf-8")
    message = page_error(root, precomputed)
    assert message == f"{strings}: [ui] has no key 'axis_count' (static/js/reliability.js reads ui.axis_count)"


def test_a_missing_string_in_the_page_template_names_the_template_line(tmp_path, precomputed):
    root = sources(tmp_path)
    strings = root / "content" / "en" / "strings.toml"
    text = strings.read_text(encoding="utf-8")
    strings.write_text(re.sub(r"\nfooter = [^\n]*", "", text, count=1), encoding="utf-8")
    message = page_error(root, precomputed)
    assert re.match(r"templates/index\.html\.j2:\d+: .*strings\.toml: \[meta\] has no key 'footer'$", message), message


@pytest.mark.parametrize("table", ["datasets", "ui", "format"])
def test_a_missing_strings_table_names_the_file_and_table(tmp_path, precomputed, table):
    root = sources(tmp_path)
    strings = root / "content" / "en" / "strings.toml"
    text = strings.read_text(encoding="utf-8")
    # drop the table and its sub-tables, up to the next other table
    kept = re.sub(rf"\n\[{table}(\.[^\]]+)?\]\n(?:(?!\n\[)[\s\S])*", "\n", text)
    assert f"[{table}" not in kept
    strings.write_text(kept, encoding="utf-8")
    message = page_error(root, precomputed)
    assert str(strings) in message and f"[{table}]" in message


def test_a_dataset_without_a_summary_names_the_dataset_table(tmp_path, precomputed):
    root = sources(tmp_path)
    strings = root / "content" / "en" / "strings.toml"
    text = strings.read_text(encoding="utf-8")
    strings.write_text(re.sub(r"(\[datasets\.mixed\]\n(?:[^\n]*\n)*?)summary = [^\n]*\n", r"\1", text, count=1),
                       encoding="utf-8")
    assert f"{strings}: [datasets.mixed] has no key 'summary'" in page_error(root, precomputed)


def test_an_unknown_component_names_the_section_and_the_component(tmp_path, precomputed):
    root = sources(tmp_path)
    edit(root / "content" / "en" / "07-explorer.md", "[[component:explorer]]", "[[component:explorre]]")
    message = page_error(root, precomputed)
    assert "07-explorer.md: [[component:explorre]]: unknown component" in message
    assert "templates/components/explorre.html.j2" in message


def test_an_unknown_explorer_panel_names_the_instance_panel_and_template(tmp_path, precomputed):
    root = sources(tmp_path)
    component = root / "templates" / "components" / "nll-curve.html.j2"
    edit(component, 'panels=("cards-basic", "curves")', 'panels=("cards-basic", "curvs")')
    message = page_error(root, precomputed)
    assert re.search(r"templates/components/nll-curve\.html\.j2:\d+: templates/components/_explorer\.html\.j2:\d+: "
                     r"explorer fit1: unknown panel curvs \(known: datasets, ", message), message


def test_an_unknown_explorer_scheme_is_refused(tmp_path, precomputed):
    root = sources(tmp_path)
    component = root / "templates" / "components" / "bin-sweep.html.j2"
    edit(component, 'bins=15, fallback=fallback)', 'bins=15, fallback=fallback, scheme="equal-mass")')
    assert "explorer bs1: unknown scheme equal-mass" in page_error(root, precomputed)


def test_malformed_tex_in_a_section_names_the_file_line_and_expression(tmp_path, precomputed):
    root = sources(tmp_path)
    section = sorted((root / "content" / "en").glob("[0-9][0-9]-*.md"))[2]
    lines = section.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.append("\nA broken formula: $\\frac{1}{T$ here.\n")
    section.write_text("".join(lines), encoding="utf-8")
    message = page_error(root, precomputed)
    assert message.startswith(f"{section}:{len(lines) + 1}: cannot convert the TeX ")
    assert repr("\\frac{1}{T") in message


def test_a_template_syntax_error_names_the_template_and_line(tmp_path, precomputed):
    root = sources(tmp_path)
    teaser = root / "templates" / "components" / "test-tube.html.j2"
    edit(teaser, '<p class="teaser-note">{{ ', '<p class="teaser-note">{{ ( ')
    message = page_error(root, precomputed)
    assert re.search(r"templates/components/test-tube\.html\.j2:\d+: TemplateSyntaxError: ", message), message


# --- inlined static files ---------------------------------------------------------------------

def test_shipped_files_lose_only_their_file_headers():
    from sitegen.render.assets import shipped
    assert (shipped("/* js/core.js */\na();\n/* js/x-y.js */\nb(); /* js/keep.js */\n")
            == "a();\nb(); /* js/keep.js */\n")


# ---------------------------------------------------------------- the first view's bytes

def test_script_ui_keeps_the_keys_scripts_read_by_name_or_by_prefix():
    from sitegen.render.page_strings import script_ui
    ui = {"loading": "L", "scheme_adaptive": "a", "scheme_equal-width": "w", "caption": "only in HTML",
          "exact": "e", "scheme_note": "kept too: it starts with the prefix"}
    script = ('/* js/a.js */\nvar ui = CT.strings().ui, x = 1;\nset(ui.loading);\n'
              '/* js/b.js */\nvar n = ui["scheme_" + s]; var e = ui["exact"];\n')
    assert script_ui(ui, script) == {"loading": "L", "scheme_adaptive": "a", "scheme_equal-width": "w",
                                     "exact": "e", "scheme_note": "kept too: it starts with the prefix"}


@pytest.mark.parametrize("body", ["var t = ui[key];", "var table = CT.strings().ui; table.x;", "use(CT.strings().ui);"])
def test_script_ui_refuses_a_read_it_cannot_follow_naming_the_file(body):
    from sitegen.common.errors import BuildError
    from sitegen.render.page_strings import script_ui
    with pytest.raises(BuildError, match=r"static/js/b\.js: reads the \[ui\] strings"):
        script_ui({"a": "1"}, f"/* js/a.js */\nui.a;\n/* js/b.js */\n{body}\n")


def test_minify_drops_comments_and_spaces_and_keeps_literals():
    from sitegen.render.assets import minify
    css = ('a > b, c { font: "Segoe UI" , x; margin: 0 ; } /* gone */\n@media (max-width: 40rem) {\n'
           '.a .b { width: calc(100% - 2rem); }\n}\nx::before { content: "a ; b , c: d"; }')
    assert minify("css", css, "x.css") == ('a>b,c{font:"Segoe UI",x;margin:0}@media (max-width:40rem){'
                                          '.a .b{width:calc(100% - 2rem)}}x::before{content:"a ; b , c: d"}')
    script = ("var a = b / c, r = /[/ ]x/g.test(s) ? 1 : 2; // gone\n"
              "x = a + +b - -c; z = \"a  ,  b\" + 'c // d' + `t  ${a}`; /* gone */\n"
              "if (!/^a b$/.test(x)) return /x/;\n")
    assert minify("js", script, "x.js") == ("var a=b/c,r=/[/ ]x/g.test(s)?1:2;x=a+ +b- -c;"
                                            "z=\"a  ,  b\"+'c // d'+`t  ${a}`;"
                                            "if(!/^a b$/.test(x))return/x/;")


@pytest.mark.parametrize("script, marker", [("w = a < !--b;", "<!--"), ("w = a--\n> b;", "-->")])
def test_minify_refuses_to_write_an_html_like_comment(script, marker):
    from sitegen.render.assets import minify
    with pytest.raises(BuildError, match=f"static/js/x.js: minified, it would hold {marker}"):
        minify("js", script, "x.js")


def test_figure_file_carries_the_stylesheets_colours_for_both_schemes():
    from sitegen.figures.static_svg import figure_colours, figure_file
    css = (":root { --bg: #fff; --fig-ink: #111; --fig-muted: #222; --fig-grid: #333; --fig-model: #444;"
           " --fig-gap: #555; --fig-ideal: #666; --fig-accent: #777; --fig-bar: #888; }\n"
           "@media (prefers-color-scheme: dark) { :root { --fig-ink: #eee; --fig-muted: #ddd; --fig-grid: #ccc;"
           " --fig-model: #bbb; --fig-gap: #aaa; --fig-ideal: #999; --fig-accent: #a0a; --fig-bar: #0a0; } }")
    light, dark = figure_colours(css)
    assert light["--fig-ink"] == "#111" and dark["--fig-ink"] == "#eee" and "--bg" not in light
    out = figure_file('<svg viewBox="0 0 10.2 20" xmlns="http://www.w3.org/2000/svg">\n'
                      '<path style="stroke: var(--fig-ink)"/></svg>', (light, dark))
    assert out.startswith('<svg width="11" height="20" viewBox="0 0 10.2 20"')
    assert "svg{--fig-accent:#777;" in out and "@media (prefers-color-scheme: dark){svg{--fig-accent:#a0a;" in out
    assert 'style="stroke: var(--fig-ink)"' in out
    with pytest.raises(ValueError, match="--fig-bar"):
        figure_colours(css.replace(" --fig-bar: #0a0;", ""))


def test_every_minified_script_still_parses(tmp_path):
    """Each static/js file as pages get it, checked by Node's parser (``node --check``): the minifier
    must not break a script's syntax. (The browser tests run them.)"""
    import os
    import shutil
    import subprocess

    from sitegen.render.assets import minify
    if not shutil.which("node"):
        if os.environ.get("CI"):
            pytest.fail("node is missing (bash tools/setup.sh installs it)")
        pytest.skip("node is missing: bash tools/setup.sh")
    for path in sorted((ROOT / "static" / "js").glob("*.js")):
        minified = tmp_path / path.name
        minified.write_text(minify("js", path.read_text(encoding="utf-8"), path.name), encoding="utf-8")
        done = subprocess.run(["node", "--check", str(minified)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{path.name}: {done.stderr}"


def test_defer_markup_takes_out_only_the_markup_of_widgets_inside_details():
    from sitegen.render.deferred import DEFERRED, defer_markup
    widget = ('<div class="explorer js-only" id="{0}" data-x="1"><template data-widget-markup><p id="{0}-a">x</p>'
              "</template></div>")
    page = (widget.format("w1") + '<details class="deep-dive"><summary>s</summary>' + widget.format("w2")
            + "<details><summary>t</summary>" + widget.format("w3") + "</details></details>" + widget.format("w4"))
    html, markup = defer_markup(page)
    assert markup == {"w2": '<p id="w2-a">x</p>', "w3": '<p id="w3-a">x</p>'}
    assert html.count(DEFERRED) == 2 and '<p id="w1-a">' in html and '<p id="w4-a">' in html
    assert '<div class="explorer js-only" id="w2" data-x="1">' + DEFERRED + "</div>" in html
    assert defer_markup(html) == (html, {})  # nothing left to take out


def test_defer_markup_refuses_a_template_inside_a_widgets_markup():
    from sitegen.common.errors import BuildError
    from sitegen.render.deferred import defer_markup
    page = ('<details><div class="explorer" id="w"><template data-widget-markup><template>'
            '</template></template></div></details>')
    with pytest.raises(BuildError, match="widget w"):
        defer_markup(page)
