"""Every listed term is defined once, before the page first uses it, and the glossary lists them all.

The terms are the ``[terms]`` table of each language's ``content/<lang>/strings.toml`` (issue 17): a
name, the forms that count as a use, and the one-line definition the glossary section shows. The
prose defines each with ``<dfn id="term-KEY">`` (dashes for underscores). Walking each language's
built page in document order, inside ``<main>``, over the prose (paragraphs, list items, table cells
and captions; not headings, the contents, code, math or the ``<dfn>`` itself), no term may be met
before its definition, in any case or in the plural.

The built site comes from one build into a temporary folder, or, to check another build (say, the
reference site before the glossary existed), from the folder named by ``CALIB_TEST_SITE``.
"""

import re
import tomllib
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONTENT = ROOT / "content"
LANGUAGES = {"en": "index.html", "es": "es/index.html"}
GLOSSARY = "terms"  # the glossary section's id (content/<lang>/18-terms.md)

COUNTED = {"p", "li", "td", "th", "caption", "figcaption"}  # where prose is read
SKIPPED = {"h1", "h2", "h3", "h4", "h5", "h6", "nav", "script", "style", "code", "pre", "math", "svg",
           "template", "textarea", "dfn"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2013": "-", "\u2212": "-"})


def load_terms(lang):
    """``{key: {name, forms, text}}`` of one language, in the file's order."""
    with open(CONTENT / lang / "strings.toml", "rb") as handle:
        return tomllib.load(handle)["terms"]


def term_id(key):
    return "term-" + key.replace("_", "-")


def use_pattern(forms):
    """A regex for any of ``forms``, whole words, any case, with an optional plural ending."""
    options = sorted((r"\s+".join(re.escape(word) for word in form.translate(_DASHES).split()) for form in forms),
                     key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(options) + r")(?:s|es)?(?!\w)", re.I)


class Prose(HTMLParser):
    """The prose of a page's ``<main>`` as one string, in document order, with where each ``<dfn>`` sits.

    ``text`` holds the counted text (``COUNTED`` elements, outside ``SKIPPED`` ones); any other text, and
    the edges of counted elements, become a line break so no match runs across them. ``dfns`` maps each
    ``<dfn>`` id to the positions in ``text`` where one starts; ``dfn_text`` to its own words.
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.length = [], 0
        self.stack, self.in_main, self.skipped, self.counted = [], 0, 0, 0
        self.dfns, self.dfn_text, self._dfn = {}, {}, None

    def _add(self, text):
        self.parts.append(text)
        self.length += len(text)

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            if tag == "br":
                self._add("\n")
            return
        self.stack.append(tag)
        self.in_main += tag == "main"
        if tag == "dfn" and self.in_main and not self.skipped:
            self._dfn = dict(attrs).get("id") or ""
            self.dfns.setdefault(self._dfn, []).append(self.length)
            self.dfn_text.setdefault(self._dfn, []).append("")
        self.skipped += tag in SKIPPED
        if tag in COUNTED:
            self.counted += 1
            self._add("\n")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag not in self.stack:
            return
        while self.stack:
            top = self.stack.pop()
            self.in_main -= top == "main"
            self.skipped -= top in SKIPPED
            if top == "dfn":
                self._dfn = None
            if top in COUNTED:
                self.counted -= 1
                self._add("\n")
            if top == tag:
                break

    def handle_data(self, data):
        if self._dfn is not None:
            self.dfn_text[self._dfn][-1] += data
        if self.in_main and not self.skipped and self.counted:
            self._add(data.translate(_DASHES))
        else:
            self._add("\n")

    @property
    def text(self):
        return "".join(self.parts)


def read_prose(html):
    parser = Prose()
    parser.feed(html)
    parser.close()
    return parser


def term_problems(html, terms):
    """Every way the page breaks the rule, one line each: a term without exactly one ``<dfn>``, an
    abbreviation defined without its full name, a use before the definition (with its context)."""
    prose = read_prose(html)
    text, problems = prose.text, []
    for key, term in terms.items():
        ident = term_id(key)
        places = prose.dfns.get(ident, [])
        if len(places) != 1:
            problems.append(f"{ident}: {len(places)} definitions (<dfn id=\"{ident}\">), want exactly one")
        else:
            defined = " ".join(prose.dfn_text[ident][0].split()).translate(_DASHES)
            abbreviation = re.fullmatch(r"(.+) \((\w+)\)", term["name"])
            wanted = abbreviation.groups() if abbreviation else ()
            missing = [part for part in wanted if part.lower().translate(_DASHES) not in defined.lower()]
            if not use_pattern(term["forms"]).search(defined):
                missing.append(term["name"])
            if missing:
                problems.append(f"{ident}: the definition reads {defined!r}, without {missing}")
        use = use_pattern(term["forms"]).search(text)
        if use and (not places or use.start() < places[0]):
            context = " ".join(text[max(0, use.start() - 60):use.end() + 30].split())
            problems.append(f"{ident}: used before its definition: …{context}…")
    strays = sorted(set(prose.dfns) - {term_id(key) for key in terms})
    if strays:
        problems.append(f"<dfn> elements of no listed term: {strays}")
    return problems


# ---------------------------------------------------------------- the walker itself

TOY_TERMS = {"bin": {"name": "bin", "forms": ["bin"], "text": "."},
             "nll": {"name": "negative log-likelihood (NLL)", "forms": ["negative log-likelihood", "NLL"],
                     "text": "."}}


def toy(body):
    return (f"<nav><p>bins NLL</p></nav><main><h2>Bins and NLL</h2>{body}</main>"
            "<footer><p>bins</p></footer>")


GOOD = ('<p>Cut the axis into <dfn id="term-bin">bins</dfn>.</p><p>Each bin, and the '
        '<dfn id="term-nll">negative log-likelihood (NLL)</dfn>; the NLL again.</p>')


def test_a_page_that_defines_first_passes():
    assert term_problems(toy(GOOD), TOY_TERMS) == []


@pytest.mark.parametrize("body, found", [
    ('<p>Four BINS.</p>' + GOOD, "term-bin: used before its definition: …Four BINS."),  # any case, plural
    ('<table><tr><td>NLL</td></tr></table>' + GOOD, "term-nll: used before its definition"),
    ('<ul><li>per-bin gaps</li></ul>' + GOOD, "term-bin: used before its definition"),
    ('<p>the negative\nlog-likelihood</p>' + GOOD, "term-nll: used before its definition"),
    (GOOD.replace('<dfn id="term-bin">bins</dfn>', "bins"), "term-bin: 0 definitions"),
    (GOOD + '<p><dfn id="term-bin">bin</dfn></p>', "term-bin: 2 definitions"),
    (GOOD.replace("negative log-likelihood (NLL)", "NLL"), "term-nll: the definition reads 'NLL'"),
    (GOOD + '<p><dfn id="term-other">x</dfn></p>', "<dfn> elements of no listed term: ['term-other']"),
])
def test_the_walker_finds_what_it_should(body, found):
    problems = term_problems(toy(body), TOY_TERMS)
    assert any(found in problem for problem in problems), problems


def test_headings_the_contents_code_math_and_words_inside_others_do_not_count():
    body = ("<h3>Bins</h3><p><code>bins</code> <math><mi>NLL</mi></math> binary, binned, cabin</p>"
            "<figure><svg><text>bins</text></svg></figure><div>bins outside the prose</div>" + GOOD)
    assert term_problems(toy(body), TOY_TERMS) == []


# ---------------------------------------------------------------- the built pages

@pytest.fixture(scope="module")
def site(built_site):
    """The session's built site (tests/conftest.py: one build, or ``CALIB_TEST_SITE``)."""
    return built_site


def page(site, lang):
    return (site / LANGUAGES[lang]).read_text(encoding="utf-8")


def test_every_language_lists_the_same_terms():
    keys = {lang: list(load_terms(lang)) for lang in LANGUAGES}
    assert keys["es"] == keys["en"]
    assert len(keys["en"]) >= 23
    for lang in LANGUAGES:
        for key, term in load_terms(lang).items():
            assert term["name"].strip() and term["text"].strip() and term["forms"], f"{lang}: [terms.{key}]"


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_term_is_defined_before_it_is_used(site, lang):
    problems = term_problems(page(site, lang), load_terms(lang))
    assert not problems, f"{LANGUAGES[lang]}:\n  " + "\n  ".join(problems)


def alphabetical(name):
    """A sort key that ignores case and accents (área sorts with a)."""
    return "".join(c for c in unicodedata.normalize("NFD", name.casefold()) if unicodedata.category(c) != "Mn")


def glossary_entries(html):
    """``[(href, entry text)]`` of the glossary section's list items."""
    section = re.search(rf'<section id="{GLOSSARY}"[^>]*>(.*?)</section>', html, re.S)
    assert section, f"the page has no #{GLOSSARY} section"
    entries = re.findall(r'<li>\s*<a href="(#term-[a-z-]+)">(.*?)</li>', section.group(1), re.S)
    return [(href, " ".join(re.sub(r"<[^>]+>", " ", text).split())) for href, text in entries]


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_the_glossary_lists_every_term_with_a_link_to_its_definition(site, lang):
    html, terms = page(site, lang), load_terms(lang)
    entries = glossary_entries(html)
    assert sorted(href for href, _ in entries) == sorted(f"#{term_id(key)}" for key in terms)
    names = {f"#{term_id(key)}": term["name"] for key, term in terms.items()}
    assert [href for href, _ in entries] == sorted(names, key=lambda href: alphabetical(names[href])), \
        "the glossary lists the terms in alphabetical order"
    for href, text in entries:
        term = terms[href[len("#term-"):].replace("-", "_")]
        name = " ".join(re.sub(r"\$[^$]*\$", "", term["name"]).split())
        assert text.startswith(name), f"{href}: the entry should open with {name!r}: {text[:80]!r}"
        first_words = " ".join(re.sub(r"[*`]", "", term["text"].split("$")[0]).split()[:4])
        assert first_words in text, f"{href}: the entry lacks its definition ({first_words!r}…): {text[:160]!r}"


def test_the_spanish_glossary_gives_each_english_name():
    english, spanish = load_terms("en"), load_terms("es")
    source = (CONTENT / "es" / "18-terms.md").read_text(encoding="utf-8")
    for key, term in english.items():
        if spanish[key]["name"] == term["name"]:
            continue  # logit, softmax, bootstrap: the same word in both
        name = re.sub(r" \(\w+\)$", "", term["name"])  # the abbreviation is the Spanish entry's too
        assert f'<span lang="en">{name}</span>' in source, f"the Spanish glossary lacks {name!r}"
