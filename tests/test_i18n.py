"""Languages: every edition has every string and section, numbers follow each language's settings,
and a pseudo-locale proves that every visible word and number of the page comes from the content.

* Every ``content/<lang>/strings.toml`` has exactly the keys of the reference language (English),
  and every ``content/<lang>/`` the same section files; the build refuses a language that does not,
  with one line naming the file and the key.
* The Spanish ``[format]`` is the Real Academia's: decimal point, ``12.9 %``, ``6000``, ``60 000``.
* The pseudo-locale (``tests/pseudo_locale.py``, built here and never shipped) shows no ASCII word
  outside code, ``<pre>`` and math except a short allowlist, and no ``.`` decimal anywhere visible,
  MathML ``<mn>`` included.
* No Spanish section is left marked for translation.
* The Spanish edition never shows a number of 1 or more with exactly three decimals (in Spain "1.058"
  reads as one thousand and fifty-eight), and writes every range of values one way, «de A a B».

Whole-site checks of the two-language build (same section ids and structure, shared data files,
language links) are in ``test_build.py``, which builds it.
"""

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pseudo_locale import TAG, make_pseudo_locale

from sitegen.common.errors import BuildError
from sitegen.common.settings import LANGUAGES, REFERENCE_LANGUAGE
from sitegen.content.sections import load_sections, load_strings, require_same_keys, require_same_sections

ROOT = Path(__file__).resolve().parents[1]
CONTENT = ROOT / "content"
SOURCES = ("content", "templates", "static", "calib", "sitegen", "build.py")
TRANSLATE_MARKER = "{## TRANSLATE ##}"

# Words a page may show in ASCII in any language: abbreviations kept as in the literature, names of
# the mixed dataset's groups, and proper names. Keep it short: anything else is a leak to fix.
ALLOWED_WORDS = {"NLL", "ECE", "MCE", "T", "A", "B"}


def languages():
    return sorted(p.name for p in CONTENT.iterdir() if (p / "strings.toml").is_file())


# --------------------------------------------------------------------------- every key, every section

def test_the_settings_list_every_language_with_a_content_folder():
    assert languages() == sorted(LANGUAGES), "a content/<lang>/ folder and sitegen.common.settings.LANGUAGES disagree"
    assert LANGUAGES[REFERENCE_LANGUAGE] == "", "the reference language's page is the site's root (x-default)"
    assert len(set(LANGUAGES.values())) == len(LANGUAGES), "two languages share a folder"


@pytest.mark.parametrize("lang", [lang for lang in languages() if lang != REFERENCE_LANGUAGE])
def test_every_key_exists_in_every_language(lang):
    reference, strings = load_strings(CONTENT / REFERENCE_LANGUAGE), load_strings(CONTENT / lang)
    require_same_keys(reference, strings)
    require_same_keys(strings, reference)  # and no key that only this language has


@pytest.mark.parametrize("lang", [lang for lang in languages() if lang != REFERENCE_LANGUAGE])
def test_every_language_has_every_section_file(lang):
    require_same_sections(load_sections(CONTENT / REFERENCE_LANGUAGE), load_sections(CONTENT / lang), CONTENT / lang)


def test_a_missing_or_extra_key_is_named_with_its_file(tmp_path):
    english = load_strings(CONTENT / "en")
    text = (CONTENT / "es" / "strings.toml").read_text(encoding="utf-8")
    (tmp_path / "strings.toml").write_text(re.sub(r"\nbutton_pin = [^\n]*", "", text), encoding="utf-8")
    with pytest.raises(BuildError) as raised:
        require_same_keys(english, load_strings(tmp_path))
    assert str(raised.value) == (f"{tmp_path / 'strings.toml'}: [ui] has no key 'button_pin' "
                                 f"({CONTENT / 'en' / 'strings.toml'} has it)")
    (tmp_path / "strings.toml").write_text(text.replace("[ui]\n", '[ui]\nbuton_pin = "x"\n'), encoding="utf-8")
    with pytest.raises(BuildError, match=r"en/strings\.toml: \[ui\] has no key 'buton_pin' \(.*has it\)"):
        require_same_keys(load_strings(tmp_path), english)


def _string_values(table, path=""):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _string_values(value, f"{path}.{key}" if path else key)
        elif isinstance(value, str):
            yield f"{path}.{key}", value


@pytest.mark.parametrize("lang", languages())
def test_no_string_types_an_engine_constant(lang):
    """Bin counts, quantiles, row counts and recipe constants are placeholders the build fills
    ({table_bins}, {spread_hi}, {n}, …): the only number a string may type is the 1 of "T = 1"
    (and a dataset's short name, its id)."""
    typed = [(where, value) for where, value in _string_values(load_strings(CONTENT / lang))
             if not where.startswith("format.") and not where.endswith(".short")
             and set(re.findall(r"\d+", re.sub(r"\{\w+\}", "", value))) - {"1"}]
    assert not typed, f"content/{lang}/strings.toml types numbers: {typed}"


def test_the_spanish_numbers_follow_the_real_academia():
    fmt = load_strings(CONTENT / "es")["format"]
    assert fmt["decimal"] == "."                                  # the point, which the Ortografía recommends
    assert fmt["percent"] == "{value}\u00a0%"                     # 12.9 %, with a no-break space
    assert (fmt["group"], fmt["group_from"]) == ("\u202f", 5)     # 6000, but 60 000 (narrow no-break space)
    assert fmt["interval"] == "[{lo}, {hi}{close}"


def test_the_glossary_is_kept_but_never_a_section():
    assert (CONTENT / "es" / "glossary.md").is_file()
    assert "glossary" not in [s.slug for s in load_sections(CONTENT / "es")]


def test_no_spanish_section_is_left_to_translate():
    pending = [p.name for p in sorted((CONTENT / "es").glob("[0-9][0-9]-*.md"))
               if TRANSLATE_MARKER in p.read_text(encoding="utf-8")]
    assert not pending, f"still marked {TRANSLATE_MARKER}: {', '.join(pending)}"


# --------------------------------------------------------------------------- builds that must refuse

def run_build(root, *options):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, str(root / "build.py"), *map(str, options)], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def copy_sources(destination):
    destination.mkdir(parents=True)
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, destination / name)
    return destination


def one_error_line(result):
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr.rstrip("\n").splitlines()[-1]


def test_a_missing_spanish_key_stops_the_build_naming_file_and_key(tmp_path):
    root = copy_sources(tmp_path / "src")
    strings = root / "content" / "es" / "strings.toml"
    strings.write_text(re.sub(r"\nlegend_gap = [^\n]*", "", strings.read_text(encoding="utf-8")), encoding="utf-8")
    line = one_error_line(run_build(root, "--out", tmp_path / "site"))
    assert line == (f"build.py: error: {strings}: [figures] has no key 'legend_gap' "
                    f"({root / 'content' / 'en' / 'strings.toml'} has it)")
    assert not (tmp_path / "site").exists()


def test_a_missing_spanish_section_stops_the_build_naming_the_file(tmp_path):
    root = copy_sources(tmp_path / "src")
    (root / "content" / "es" / "06-held-out.md").unlink()
    line = one_error_line(run_build(root, "--out", tmp_path / "site"))
    assert line.startswith(f"build.py: error: {root / 'content' / 'es' / '06-held-out.md'}: section file is missing")


# --------------------------------------------------------------------------- the pseudo-locale

# textarea: the Embed boxes' HTML code; var: a formula's letter where the formula is text (sitegen.content.mathml)
SKIPPED_TAGS = {"script", "style", "code", "pre", "samp", "math", "var", "textarea"}
VOID = {"meta", "link", "input", "br", "img", "hr", "source", "col", "wbr", "area", "base", "track", "embed"}
TEXT_ATTRIBUTES = {"aria-label", "title", "alt", "placeholder", "label"}
META_TEXT = re.compile(r"^(description|twitter:(title|description)|og:(title|description|site_name))$")


class VisibleText(HTMLParser):
    """The text a reader meets: text nodes outside code, ``<pre>`` and math (by section id), the text
    attributes, the page's meta descriptions; and, apart, the contents of MathML ``<mn>``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.skipped, self.section = [], 0, None
        self.texts, self.numbers = [], []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "section":
            self.section = attributes.get("id")
        if tag == "meta" and META_TEXT.match(attributes.get("name") or attributes.get("property") or ""):
            self.texts.append((None, attributes.get("content") or ""))
        if not self.skipped:
            self.texts += [(self.section, value) for key, value in attrs if key in TEXT_ATTRIBUTES and value]
        if tag in VOID:
            return
        self.stack.append(tag)
        self.skipped += tag in SKIPPED_TAGS

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag not in self.stack:
            return
        while self.stack:
            top = self.stack.pop()
            self.skipped -= top in SKIPPED_TAGS
            if top == tag:
                break
        if tag == "section":
            self.section = None

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "mn":
            self.numbers.append(data)
        if not self.skipped and data.strip():
            self.texts.append((self.section, data))


def visible_text(html):
    parser = VisibleText()
    parser.feed(html)
    return parser


_ASCII_WORD = re.compile(r"(?<![^\W\d_])[A-Za-z]+(?![^\W\d_])")
_FILE_NAME = re.compile(r"\S+\.(?:csv|py|js|json|npz|html|toml)\b")  # a file name is no English
_POINT_DECIMAL = re.compile(r"\d\.\d")


@pytest.fixture(scope="module")
def pseudo_site(tmp_path_factory):
    """A build of the pseudo-locale alone (``--lang en-XA``) from a private copy of the sources: its folder."""
    base = tmp_path_factory.mktemp("pseudo")
    root = copy_sources(base / "src")
    make_pseudo_locale(root / "content")
    result = run_build(root, "--lang", TAG, "--out", base / "site")
    assert result.returncode == 0, result.stderr
    return base / "site"


@pytest.fixture(scope="module")
def pseudo_page(pseudo_site):
    """The page of the pseudo-locale build."""
    return (pseudo_site / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def pseudo_figures(pseudo_site):
    """``{file name: text}`` of the pseudo-locale's static figures (``figures/<name>.en-XA.svg``)."""
    figures = {path.name: path.read_text(encoding="utf-8")
               for path in sorted((pseudo_site / "figures").glob(f"*.{TAG}.svg"))}
    assert figures, "the pseudo-locale build wrote no figure of its own"
    return figures


def test_the_pseudo_locale_shows_no_english_word(pseudo_page, pseudo_figures):
    leaks = {}
    texts = visible_text(pseudo_page).texts
    texts += [(name, text) for name, svg in pseudo_figures.items() for _, text in visible_text(svg).texts]
    for section, text in texts:
        for word in _ASCII_WORD.findall(_FILE_NAME.sub(" ", text)):
            if word not in ALLOWED_WORDS:
                leaks.setdefault(word, f"#{section}: {text.strip()[:80]!r}")
    assert not leaks, "English that bypasses the strings tables:\n  " + "\n  ".join(
        f"{word}: {where}" for word, where in sorted(leaks.items()))


def test_the_pseudo_locale_shows_no_point_decimal(pseudo_page):
    page = visible_text(pseudo_page)
    texts = [text for _, text in page.texts if _POINT_DECIMAL.search(text)]
    numbers = [number for number in page.numbers if _POINT_DECIMAL.search(number)]
    assert not texts, f"numbers written with a point outside the language's format: {texts[:10]}"
    assert not numbers, f"MathML <mn> written with a point: {numbers[:10]}"
    assert any("," in number for number in page.numbers), "no engine number reached MathML in the pseudo-locale"


def test_the_pseudo_locale_really_is_one(pseudo_page, pseudo_figures):
    """The checks above only mean something if the pseudo text and numbers reached the page."""
    page = visible_text(pseudo_page)
    assert f'<html lang="{TAG}"' in pseudo_page
    assert any("Ţĥéé" in text for _, text in page.texts)
    assert any(re.search(r"\d,\d\u00a0%", text) for _, text in page.texts)   # percentages from the filters
    assert any(re.search(r"\[\d,\d+; \d,\d+\)", text) for _, text in page.texts)  # intervals (paradox-bins)
    for name, svg in pseudo_figures.items():  # a tick label, or a legend's number where the ticks are whole
        assert re.search(r">(?:[^<>]*\D)?\d+,\d+<", svg), f"{name}: the figure's numbers do not use the decimal comma"


# --------------------------------------------------------------------------- the Spanish page itself

# Words that only English prose uses; none may show in the Spanish page outside code, math and parts
# marked lang="en" (titles of sources, a quoted English term), as WCAG's language-of-parts rule asks.
ENGLISH_STOP_WORDS = {
    "the", "and", "of", "to", "is", "are", "with", "for", "that", "this", "which", "from", "by", "it",
    "its", "be", "an", "or", "not", "you", "your", "what", "when", "how", "each", "every", "than",
    "shows", "show", "rows", "bins", "temperature", "confidence", "accuracy", "fitted", "calibrated",
}
_ENGLISH_PART = re.compile(r'<(\w+)\b[^>]*\blang="en"[^>]*>.*?</\1>', re.S)


@pytest.fixture(scope="module")
def spanish_page(built_site):
    """The Spanish page of the session's built site (every language)."""
    return (built_site / LANGUAGES["es"] / "index.html").read_text(encoding="utf-8")


def test_the_spanish_page_shows_no_english_words(spanish_page):
    page = visible_text(_ENGLISH_PART.sub(" ", spanish_page))
    leaks = {}
    for section, text in page.texts:
        for word in _ASCII_WORD.findall(_FILE_NAME.sub(" ", text)):
            if word.lower() in ENGLISH_STOP_WORDS:
                leaks.setdefault(word, f"#{section}: {text.strip()[:80]!r}")
    assert not leaks, "English in the Spanish page (mark it lang=\"en\" or translate it):\n  " + "\n  ".join(
        f"{word}: {where}" for word, where in sorted(leaks.items()))


def test_the_spanish_page_marks_its_english_parts(spanish_page):
    assert '<html lang="es"' in spanish_page
    assert re.search(r'<span lang="en">[^<]*(Calibration|Calibrated|Reliability)', spanish_page), \
        "the sources' English titles are marked lang=\"en\""


# In Spain a point followed by exactly three digits groups thousands: "1.058" reads as 1058 (issue 28).
_THOUSAND_LOOKALIKE = re.compile(r"(?<![\d.,])([1-9]\d*)\.\d{3}(?![\d])")


def spanish_edition_pages(site):
    """``{name: text}`` of every file a reader of the Spanish edition sees: its page, embed pages and figures."""
    folder = site / LANGUAGES["es"]
    pages = {"index.html": (folder / "index.html").read_text(encoding="utf-8")}
    pages.update({f"embed/{p.name}": p.read_text(encoding="utf-8") for p in sorted((folder / "embed").glob("*.html"))})
    figures = sorted((site / "figures").glob("*.es.svg"))
    pages.update({f"figures/{p.name}": p.read_text(encoding="utf-8") for p in figures})
    assert len(pages) > 5
    return pages


def test_no_spanish_number_of_one_or_more_shows_three_decimals(built_site):
    found = []
    for name, html in spanish_edition_pages(built_site).items():
        parsed = visible_text(html)
        for text in [text for _, text in parsed.texts] + parsed.numbers:
            found += [f"{name}: …{text[max(0, m.start() - 40):m.end() + 20].strip()}…"
                      for m in _THOUSAND_LOOKALIKE.finditer(text)]
    assert not found, "numbers a reader in Spain reads as thousands:\n  " + "\n  ".join(found[:30])


def test_the_thousands_check_sees_what_it_should():
    html = ('<p>de 1.058 a 1.0581; 0.823; 12.9 %; 6000; 1.9.1</p><math><mn>2.624</mn></math>'
            '<code>1.234</code><img alt="T = 3.141">')
    parsed = visible_text(html)
    texts = [text for _, text in parsed.texts] + parsed.numbers
    assert [m.group(0) for text in texts for m in _THOUSAND_LOOKALIKE.finditer(text)] == ["1.058", "3.141", "2.624"]


_NUMBER = r"[\u2212+]?\d[\d.\u202f]*(?:\u00a0%)?"
_OTHER_RANGES = {
    "A–B": re.compile(rf"{_NUMBER}\s?\u2013\s?{_NUMBER}"),
    "A a B": re.compile(rf"(?<![\w.\u2212+])(?<!de )(?<!del )(?<!desde )(?<!=[\s\u00a0]){_NUMBER} a {_NUMBER}"),
    "entre A y B": re.compile(rf"\bentre {_NUMBER} y {_NUMBER}"),
    "{lo}–{hi}": re.compile(r"\{\w+\}\s?\u2013\s?\{\w+\}"),
    "{lo} a {hi}": re.compile(r"(?<!de )(?<!del )\{(?:lo|low)\} a \{(?:hi|high)\}"),
    "entre {lo} y {hi}": re.compile(r"entre \{\w+\} y \{\w+\}"),
}


def test_the_spanish_edition_writes_every_range_one_way(built_site):
    """«de A a B» (with percentages, «del A % al B %») in the prose, the tables, the embeds and every
    interface string the explorer fills; «A–B», «A a B» and «entre A y B» never."""
    texts = {name: " ".join(text for _, text in visible_text(html).texts)
             for name, html in spanish_edition_pages(built_site).items()}
    texts.update({f"strings.toml [{where}]": value for where, value in _string_values(load_strings(CONTENT / "es"))})
    found = [f"{form} in {name}: …{text[max(0, m.start() - 30):m.end() + 10]}…"
             for name, text in texts.items() for form, pattern in _OTHER_RANGES.items()
             for m in pattern.finditer(text)]
    assert not found, "ranges written another way:\n  " + "\n  ".join(found[:30])


def test_the_range_check_sees_what_it_should():
    text = "de 1.06 a 1.36; del 5 % al 95 %; 0.97 a 3.14; 5\u201395 %; entre 0.2 y 0.3; de T = 1 a la T ajustada"
    assert [form for form, pattern in _OTHER_RANGES.items() for _ in pattern.finditer(text)] == \
        ["A–B", "A a B", "entre A y B"]


_CAPTION = re.compile(r'<(caption|figcaption)\b[^>]*>(.*?)</\1>|<p class="table-caption"[^>]*>(.*?)</p>', re.S)


def test_every_spanish_caption_starts_with_a_capital(built_site):
    """Table and figure captions open with a capital, also where they start with a dataset's short name."""
    found = []
    for name, html in spanish_edition_pages(built_site).items():
        for match in _CAPTION.finditer(html):
            text = " ".join(re.sub(r"<[^>]+>", " ", match.group(2) or match.group(3) or "").split())
            if text and text[0].islower():
                found.append(f"{name}: {text[:60]!r}")
    assert not found, "captions that start in lower case:\n  " + "\n  ".join(found)
