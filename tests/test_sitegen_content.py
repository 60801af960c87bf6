"""sitegen/content/sections.py: TeX → MathML Core, the strings tables, sections, and the errors each one raises.

Every error must be a :class:`BuildError` whose one-line message names the file
and the key or place, never a ``KeyError`` or a blank in the page.
"""

import xml.etree.ElementTree as ET
from pathlib import Path

import jinja2
import pytest

from sitegen.common.errors import BuildError
from sitegen.content.mathml import tex_to_mathml_core
from sitegen.content.sections import (
    Section,
    content_folder,
    load_sections,
    load_strings,
    render_section,
    require_strings,
)
from sitegen.render.templating import content_environment

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ("six", "twelve")


def parse(mathml):
    """The MathML as an element tree (it is well-formed XML without a namespace)."""
    return ET.fromstring(mathml)


def text_of(element):
    return "".join(element.itertext())


# --- TeX → MathML Core ------------------------------------------------------------------------

def test_a_fraction_has_its_numerator_and_denominator_in_order():
    root = parse(tex_to_mathml_core(r"\frac{a+1}{b}"))
    fractions = root.findall(".//mfrac")
    assert len(fractions) == 1
    numerator, denominator = list(fractions[0])
    assert text_of(numerator) == "a+1" and text_of(denominator) == "b"


def test_double_struck_one_is_the_unicode_character_without_mathvariant():
    mathml = tex_to_mathml_core(r"\mathbb{1}[y = k]")
    assert "\U0001D7D9" in mathml  # MATHEMATICAL DOUBLE-STRUCK DIGIT ONE, 𝟙
    assert "mathvariant" not in mathml
    assert text_of(parse(mathml)).startswith("\U0001D7D9")


@pytest.mark.parametrize("tex", [r"\mathbb{E}[X]", r"\mathbf{x}", r"\mathcal{L}", r"\mathrm{ECE}", r"\boldsymbol{z}"])
def test_no_mathvariant_other_than_normal(tex):
    root = parse(tex_to_mathml_core(tex))
    variants = {node.get("mathvariant") for node in root.iter() if node.get("mathvariant") is not None}
    assert variants <= {"normal"}


def test_display_and_inline():
    assert parse(tex_to_mathml_core("x", display=True)).get("display") == "block"
    assert parse(tex_to_mathml_core("x")).get("display") is None  # inline, MathML's default
    assert "xmlns" not in tex_to_mathml_core("x")


@pytest.mark.parametrize("tex", [r"\frac{1}{", "x^", r"\left( x", r"\begin{matrix} a", r"\sqrt",
                                 r"\nosuchcommand x", "{x", "x}", "   "])
def test_malformed_tex_is_a_build_error_naming_the_expression(tex):
    with pytest.raises(BuildError) as raised:
        tex_to_mathml_core(tex)
    message = str(raised.value)
    assert repr(tex.strip()) in message and "\n" not in message


def test_escaped_braces_are_not_unbalanced():
    assert text_of(parse(tex_to_mathml_core(r"\{x\}"))) == "{x}"


# --- the strings table ------------------------------------------------------------------------

def write_strings(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "strings.toml").write_text(text, encoding="utf-8")
    return folder


GOOD = """
[format]
decimal = ","
group = "\\u202F"
group_from = 5
percent = "{value} %"
interval = "[{lo}; {hi}{close}"
list = "; "
list_and = " and "
points = "{value} pp"
avoid_decimals = 0

[ui]
button = "Go"

[datasets.six]
label = "Six"
short = "six"
summary = "Six rows"

[datasets.twelve]
label = "Twelve"
short = "twelve"
summary = "Twelve rows"
"""


def test_a_complete_strings_table_passes_and_stays_a_plain_mapping(tmp_path):
    strings = load_strings(write_strings(tmp_path, GOOD))
    require_strings(strings, DATASETS)
    assert strings["ui"]["button"] == "Go" and isinstance(strings["ui"], dict)


@pytest.mark.parametrize("cut, key", [
    ('decimal = ","\n', "decimal"),
    ('percent = "{value} %"\n', "percent"),
    ('[ui]\nbutton = "Go"\n', "[ui]"),
    ('summary = "Twelve rows"\n', "summary"),
    ('[datasets.six]\nlabel = "Six"\nshort = "six"\nsummary = "Six rows"\n', "six"),
    ('interval = "[{lo}; {hi}{close}"\n', "interval"),
    ('short = "twelve"\n', "short"),
])
def test_a_missing_key_the_build_reads_names_the_file_and_key(tmp_path, cut, key):
    assert cut in GOOD
    strings = load_strings(write_strings(tmp_path, GOOD.replace(cut, "")))
    with pytest.raises(BuildError) as raised:
        require_strings(strings, DATASETS)
    message = str(raised.value)
    assert str(tmp_path / "strings.toml") in message and key in message


def test_a_percent_format_without_its_placeholder_is_refused(tmp_path):
    strings = load_strings(write_strings(tmp_path, GOOD.replace('"{value} %"', '"%"')))
    with pytest.raises(BuildError, match=r"percent.*\{value\}"):
        require_strings(strings, DATASETS)


def test_an_empty_string_is_refused_as_it_would_render_a_blank(tmp_path):
    with pytest.raises(BuildError, match=r"strings\.toml: \[ui\] button is an empty string"):
        load_strings(write_strings(tmp_path, GOOD.replace('button = "Go"', 'button = "  "')))


def test_a_key_that_jinja_would_read_as_a_dict_method_is_refused(tmp_path):
    with pytest.raises(BuildError, match=r"\[ui\]: the key 'items'"):
        load_strings(write_strings(tmp_path, GOOD.replace('button = "Go"', 'items = "Items"')))


@pytest.mark.parametrize("expression, expected", [
    ("{{ t.ui.nothing }}", "[ui] has no key 'nothing'"),
    ("{{ t.datasets['sim-60'].label }}", "[datasets] has no key 'sim-60'"),
    ("{{ t.datasets.six.colour }}", "[datasets.six] has no key 'colour'"),
    ("{{ t.nothing.title }}", "has no [nothing] table"),
    ("{{ t.ui.nothing | replace('a', 'b') }}", "[ui] has no key 'nothing'"),
])
def test_a_missing_string_in_a_template_names_the_file_and_key(tmp_path, expression, expected):
    strings = load_strings(write_strings(tmp_path, GOOD))
    env = content_environment()
    with pytest.raises(jinja2.UndefinedError) as raised:
        env.from_string(expression).render(t=strings)
    message = str(raised.value)
    assert message.startswith(str(tmp_path / "strings.toml")) and message.endswith(expected)


# --- --lang -----------------------------------------------------------------------------------

def test_content_folder_accepts_a_language_with_a_folder():
    assert content_folder(ROOT / "content", "en") == ROOT / "content" / "en"


@pytest.mark.parametrize("lang", ["../content/en", "en/..", "/tmp", "EN", "e", "en_US", "", "en-"])
def test_content_folder_refuses_a_name_that_is_not_a_language_tag(lang):
    with pytest.raises(BuildError, match="not a simple language tag"):
        content_folder(ROOT / "content", lang)


def test_content_folder_names_the_missing_folder_and_the_languages_there_are():
    with pytest.raises(BuildError) as raised:
        content_folder(ROOT / "content", "pt-BR")
    message = str(raised.value)
    assert str(ROOT / "content" / "pt-BR") in message and "languages: en" in message


# --- sections ---------------------------------------------------------------------------------

def section(tmp_path, source, name="03-demo.md"):
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return Section("demo", path, source)


def no_components(name):
    raise AssertionError(f"no component expected, got {name}")


PAGE_STRINGS = {"format": {"decimal": ",", "group": "\u202f"},
                "meta": {"equation": "Gleichung", "table_region": "Tabelle {number} in „{section}“"}}


def render(tmp_path, source, context=None, render_component=no_components):
    return render_section(section(tmp_path, source), content_environment(), context or {}, render_component,
                          PAGE_STRINGS)


def test_numbers_in_math_are_one_mn_each_written_as_the_language_writes_them(tmp_path):
    html = render(tmp_path, "# Title\n\nA bin $x_{0,25}^2 / y_{0,50}$ of $\\sqrt{60\u202f000}$ rows.\n\n$$x = 1,5$$\n")
    assert "<mn>0,25</mn>" in html and "<mn>0,50</mn>" in html and "<mn>60\u202f000</mn>" in html
    assert "<mn>1,5</mn>" in html and 'aria-label="Gleichung"' in html


def test_a_simple_inline_formula_is_text_with_its_letters_in_var(tmp_path):
    html = render(tmp_path, "# Title\n\nA bin $[0,25; 0,50)$ of $60\u202f000$ rows at $T = 1$, "
                            "$\\beta = -1/T$ and $NLL$, $p_i$, $x_{ij}$, $x \\mapsto y$.\n\n$$x = 1,5$$\n")
    assert "A bin [0,25;\u00a00,50) of 60\u202f000 rows at <var>T</var>\u00a0=\u00a01, " in html
    assert "<var>β</var>\u00a0=\u00a0−1/<var>T</var> and" in html   # a sign takes no spaces
    assert "<var>p</var><sub><var>i</var></sub>," in html  # a letter's subscript, a letter or a number
    # letters side by side, a longer subscript, an operator MathML spaces otherwise: MathML
    assert "<math><mi>N</mi><mi>L</mi><mi>L</mi></math>," in html
    assert "<math><msub><mi>x</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub></math>," in html
    assert "<math><mi>x</mi><mo>↦</mo><mi>y</mi></math>." in html
    assert '<math display="block"><mi>x</mi><mo>=</mo><mn>1,5</mn></math>' in html  # display: always MathML


def test_a_table_is_named_in_the_language_of_the_page(tmp_path):
    html = render(tmp_path, "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert 'role="region" aria-label="Tabelle 1 in „Title“"' in html


def test_a_section_renders_math_markdown_and_components(tmp_path):
    html = render(tmp_path, "# Title\n\nInline $x^2$ and\n\n$$\\frac{a}{b}$$\n\n[[component:demo-box]]\n",
                  render_component=lambda name: f"<div>{name}</div>")
    assert '<h1 id="demo-title">Title</h1>' in html
    assert "<math>" in html and '<math display="block">' in html  # inline is the default: not written
    assert "<div>demo-box</div>" in html and "[[component" not in html


def test_malformed_tex_in_a_section_names_the_file_line_and_expression(tmp_path):
    with pytest.raises(BuildError) as raised:
        render(tmp_path, "# Title\n\nFine $x$.\n\nBroken $\\frac{1}{$ here.\n")
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / '03-demo.md'}:5: ")
    assert repr("\\frac{1}{") in message


def test_an_undefined_name_in_a_section_names_the_file_line_and_name(tmp_path):
    with pytest.raises(BuildError) as raised:
        render(tmp_path, "# Title\n\nA number: {{ six.fit.nll }}.\n")
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / '03-demo.md'}:3: ") and "'six' is undefined" in message


def test_a_missing_string_in_a_section_names_both_files_and_the_key(tmp_path):
    strings = load_strings(write_strings(tmp_path / "strings", GOOD))
    with pytest.raises(BuildError) as raised:
        render(tmp_path, "# Title\n\n{{ t.ui.missing_key }}\n", {"t": strings})
    message = str(raised.value)
    assert str(tmp_path / "03-demo.md") in message
    assert f"{tmp_path / 'strings' / 'strings.toml'}: [ui] has no key 'missing_key'" in message


def test_an_error_in_a_component_is_prefixed_with_the_section_and_component(tmp_path):
    def failing(name):
        raise BuildError("templates/components/box.html.j2:3: something is wrong")

    with pytest.raises(BuildError) as raised:
        render(tmp_path, "# Title\n\n[[component:box]]\n", render_component=failing)
    assert str(raised.value) == (f"{tmp_path / '03-demo.md'}: [[component:box]]: "
                                 "templates/components/box.html.j2:3: something is wrong")


@pytest.mark.parametrize("marker", ["Text then [[component:box]] inline.", "[[component:Box]]", "[[component:a_b]]"])
def test_a_component_marker_that_would_print_as_text_is_refused(tmp_path, marker):
    with pytest.raises(BuildError, match=r"03-demo\.md: \[\[component:.*must be alone in its paragraph"):
        render(tmp_path, f"# Title\n\n{marker}\n", render_component=lambda name: "<div></div>")


def test_load_sections_refuses_badly_named_and_empty_files(tmp_path):
    (tmp_path / "01-ok.md").write_text("# ok\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("# no\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"notes\.md: section files must be named"):
        load_sections(tmp_path)
    (tmp_path / "notes.md").unlink()
    (tmp_path / "02-empty.md").write_text("  \n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"02-empty\.md: section is empty"):
        load_sections(tmp_path)


def test_tidied_mathml_keeps_every_element_but_redundant_rows_and_writes_characters():
    from latex2mathml.converter import convert
    tex = r"\frac{1}{n}\sum_{i=1}^{n} \ln p_{i,y_i}(T) < \left(x + 1\right)"
    raw = parse(convert(tex).replace(' xmlns="http://www.w3.org/1998/Math/MathML"', ""))
    tidy_text = tex_to_mathml_core(tex)
    tidy = parse(tidy_text)

    def elements(root):
        return [(e.tag, (e.text or "").strip(), sorted(e.attrib.items())) for e in root.iter()
                if e.tag not in ("mrow", "math")]

    def upright(element):  # a name of several letters (ln) is marked upright, for the body font (base.css)
        tag, text, attrs = element
        if tag == "mi" and len(text) > 1 and not attrs:
            return tag, text, [("mathvariant", "normal")]
        return element

    assert elements(tidy) == [upright(e) for e in elements(raw)]  # same tokens, same order, same attributes
    assert sum(e.tag == "mrow" for e in tidy.iter()) < sum(e.tag == "mrow" for e in raw.iter())
    assert all(len(row) > 1 for row in tidy.iter("mrow")), "a one-child row is left"
    assert "&#x" not in tidy_text and "∑" in tidy_text and "&lt;" in tidy_text
