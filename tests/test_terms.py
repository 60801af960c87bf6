"""Every listed term is defined once, before the page first uses it, and the glossary lists them all.

The terms are the ``[terms]`` table of each language's ``content/<lang>/strings.toml`` (issue 17): a
name, the forms that count as a use, and the one-line definition the glossary section shows. The
prose defines each with ``<dfn id="term-KEY">`` (dashes for underscores). Walking each language's
built page in document order, inside ``<main>``, over the prose (paragraphs, list items, table cells
and captions; not headings, the contents, code, math or the ``<dfn>`` itself), no term may be met
before its definition, in any case or in the plural.

The Spanish terminology (issue 28) has one source, the table of ``content/es/glossary.md``: the page's
glossary takes each term's English name from it, and none of the variants it records as replaced may
name its idea anywhere a reader of the Spanish edition looks (the page, its embeds, its figures and
every interface string), outside code, math and parts marked ``lang="en"``.

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


def plain(name):
    """A term's name without its Markdown emphasis (a foreign word is italic: ``_bootstrap_``)."""
    return re.sub(r"(?<!\w)[_*]|[_*](?!\w)", "", name)


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
    names = {f"#{term_id(key)}": plain(term["name"]) for key, term in terms.items()}
    assert [href for href, _ in entries] == sorted(names, key=lambda href: alphabetical(names[href])), \
        "the glossary lists the terms in alphabetical order"
    for href, text in entries:
        term = terms[href[len("#term-"):].replace("-", "_")]
        name = " ".join(re.sub(r"\$[^$]*\$", "", plain(term["name"])).split())
        assert text.startswith(name), f"{href}: the entry should open with {name!r}: {text[:80]!r}"
        first_words = " ".join(re.sub(r"[*`]", "", term["text"].split("$")[0]).split()[:4])
        assert first_words in text, f"{href}: the entry lacks its definition ({first_words!r}…): {text[:160]!r}"


# ---------------------------------------------------------------- the Spanish terminology table

GLOSSARY_TABLE = CONTENT / "es" / "glossary.md"


def table_rows(path=GLOSSARY_TABLE):
    """The terminology table's rows as ``[(line, [English, Spanish, replaced, notes])]``, read here with a
    plain split (independently of ``sitegen.content.load_glossary``), without the header and its rule."""
    rows = [(n, [cell.strip() for cell in line.strip().strip("|").split("|")])
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.startswith("|")]
    return [(n, cells) for n, cells in rows[2:]]


def variants(cells):
    return re.findall(r"«([^«»]+)»", cells[2])


def without_abbreviation(name):
    return re.sub(r" \(\w+\)$", "", name.replace("*", "").replace("`", ""))


def test_the_terminology_table_has_four_columns_and_one_row_per_glossary_term():
    rows = table_rows()
    assert len(rows) > 60 and all(len(cells) == 4 for _, cells in rows), \
        [n for n, cells in rows if len(cells) != 4]
    english = load_terms("en")
    keyed = {}
    for n, cells in rows:
        for key in re.findall(r"\[terms\.(\w+)\]", cells[3]):
            assert key not in keyed, f"glossary.md line {n}: [terms.{key}] again (line {keyed[key][0]})"
            keyed[key] = (n, cells)
    assert sorted(keyed) == sorted(english), "every [terms] entry has its row in glossary.md, and only those"
    for key, (n, cells) in keyed.items():
        assert without_abbreviation(cells[0]) == without_abbreviation(english[key]["name"]), \
            f"glossary.md line {n}: the English name of [terms.{key}] is {english[key]['name']!r}"
    assert sum(len(variants(cells)) for _, cells in rows) >= 60, "the replaced variants are recorded"


def test_the_build_reads_the_same_table():
    from sitegen.content.glossary import glossary_names, load_glossary
    rows = load_glossary(CONTENT / "es")
    assert [(r.english, r.term, list(r.replaced)) for r in rows] == \
        [(cells[0], cells[1], variants(cells)) for _, cells in table_rows()]
    assert glossary_names(rows) == {key: without_abbreviation(term["name"]) for key, term in load_terms("en").items()}
    assert load_glossary(CONTENT / "en") == []


def test_a_malformed_table_stops_the_build_naming_file_and_line(tmp_path):
    from sitegen.common.errors import BuildError
    from sitegen.content.glossary import load_glossary
    table = "# G\n\n| a | b | c | d |\n|---|---|---|---|\n| bin | intervalo | «caja» | `[terms.bin]` |\n"
    (tmp_path / "glossary.md").write_text(table + "| x | y | z |\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"glossary\.md, line 6: .* 3 cells, not 4"):
        load_glossary(tmp_path)
    (tmp_path / "glossary.md").write_text(table + "| bins | intervalos | | `[terms.bin]` |\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"line 6: \[terms\.bin\] is already named on line 5"):
        load_glossary(tmp_path)


def test_the_spanish_glossary_gives_each_english_name_from_the_table(site):
    english, spanish = load_terms("en"), load_terms("es")
    entries = dict(glossary_entries_html(page(site, "es")))
    for key, term in english.items():
        if plain(spanish[key]["name"]) == term["name"]:
            continue  # logit, softmax, bootstrap, nat: the same word in both
        name = without_abbreviation(term["name"])
        assert f'<em lang="en">{name}</em>' in entries[f"#{term_id(key)}"], f"the Spanish glossary lacks {name!r}"


def glossary_entries_html(html):
    """``[(href, entry HTML)]`` of the glossary section's list items."""
    section = re.search(rf'<section id="{GLOSSARY}"[^>]*>(.*?)</section>', html, re.S)
    return re.findall(r'<li>\s*<a href="(#term-[a-z-]+)">(.*?)</li>', section.group(1), re.S)


# ---------------------------------------------------------------- no replaced variant comes back

class ReaderText(HTMLParser):
    """What a reader of a page sees, as text: text nodes and the text attributes (alt, title, aria-label),
    outside code, math, scripts, the embed boxes' code and parts marked ``lang="en"``; each element's text
    apart, so no match runs across two elements that do not flow together."""

    SKIPPED = {"script", "style", "code", "pre", "samp", "math", "var", "textarea", "template"}
    ATTRIBUTES = {"alt", "title", "aria-label", "placeholder", "label"}
    BLOCKS = {"p", "li", "td", "th", "caption", "figcaption", "h1", "h2", "h3", "h4", "summary", "dd", "dt",
              "option", "label", "button", "text", "title", "div", "section", "table", "tr", "ul", "ol"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.hidden, self.parts = [], 0, []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if not self.hidden:
            self.parts += ["\n" + value for key, value in attrs if key in self.ATTRIBUTES and value]
        if tag in VOID:
            return
        hides = tag in self.SKIPPED or attributes.get("lang", "es") != "es"
        self.stack.append((tag, hides))
        self.hidden += hides
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag not in [t for t, _ in self.stack]:
            return
        while self.stack:
            top, hides = self.stack.pop()
            self.hidden -= hides
            if top in self.BLOCKS:
                self.parts.append("\n")
            if top == tag:
                break

    def handle_data(self, data):
        self.parts.append(" " if self.hidden else data)


def reader_text(html):
    parser = ReaderText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def variant_pattern(variant):
    """A regex for a replaced variant: its words in any case and spacing (no-break spaces too), whole words,
    with an optional plural ending; ``{n}`` stands for a number or a strings.toml placeholder."""
    words = []
    for word in variant.split():
        if word == "{n}":
            words.append(r"(?:\d[\d.\u202f]*|\{\w+\})")
        else:
            edge = r"(?<!\w)" if re.match(r"\w", word) else ""
            words.append(edge + re.escape(word))
    tail = r"(?:s|es)?(?!\w)" if re.search(r"\w$", variant) else ""
    return re.compile(r"[\s\u00a0\u202f]+".join(words) + tail, re.I)


def interface_strings(lang="es"):
    """Every string value of a language's strings.toml (``[terms]``'s ``forms``, which list uses to look
    for, left out), and the raw text of its --data section, as ``{where: text}``."""
    with open(CONTENT / lang / "strings.toml", "rb") as handle:
        table = tomllib.load(handle)
    found = {}

    def walk(value, where):
        if isinstance(value, dict):
            for key, item in value.items():
                if not (where.startswith("terms.") and key == "forms"):
                    walk(item, f"{where}.{key}" if where else key)
        elif isinstance(value, str):
            found[where] = value
    walk(table, "")
    for path in sorted((CONTENT / lang / "user").glob("*.md")):
        found[f"user/{path.name}"] = reader_text(re.sub(r"\{\{.*?\}\}|\{#.*?#\}|\{##.*?##\}", " ",
                                                       path.read_text(encoding="utf-8"), flags=re.S))
    return found


def spanish_edition_texts(site):
    """``{where: text}``: the Spanish page, its embed pages and static figures as a reader sees them, and
    every interface string (the explorer's, the --data report's)."""
    texts = {"es/index.html": reader_text(page(site, "es"))}
    texts.update({f"es/embed/{p.name}": reader_text(p.read_text(encoding="utf-8"))
                  for p in sorted((site / "es" / "embed").glob("*.html"))})
    texts.update({f"figures/{p.name}": reader_text(p.read_text(encoding="utf-8"))
                  for p in sorted((site / "figures").glob("*.es.svg"))})
    texts.update({f"strings.toml [{where}]": text for where, text in interface_strings().items()})
    return texts


def variants_found(texts, rows):
    found = []
    for n, cells in rows:
        for variant in variants(cells):
            pattern = variant_pattern(variant)
            for where, text in texts.items():
                for match in pattern.finditer(text):
                    context = " ".join(text[max(0, match.start() - 50):match.end() + 30].split())
                    found.append(f"«{variant}» (glossary.md line {n}: {cells[1]}) in {where}: …{context}…")
    return found


def test_the_variant_finder_finds_what_it_should():
    rows = [(1, ["bin", "intervalo", "«en tramos», «{n} ejemplos», «el softmax», «(concentra)»", ""])]
    html = ('<p>Se reparten en Tramos.</p><p><code>en tramos</code> <span lang="en">en tramos</span></p>'
            '<p>600\u00a0ejemplos y tramos</p><p>tras el softmax; el softmaxito</p><td>T = 0.5 (concentra)</td>'
            '<img alt="se reparte en tramos">')
    found = variants_found({"page": reader_text(html), "ui": "{n} ejemplos; T ajustada"}, rows)
    assert [f.split(" in ")[0].split("«")[1].split("»")[0] + " @" + f.split(" in ")[1].split(":")[0]
            for f in found] == ["en tramos @page", "en tramos @page", "{n} ejemplos @page", "{n} ejemplos @ui",
                                "el softmax @page", "(concentra) @page"]


def test_no_replaced_variant_names_its_idea_in_the_spanish_edition(site):
    found = variants_found(spanish_edition_texts(site), table_rows())
    assert not found, "variants the glossary replaced (content/es/glossary.md):\n  " + "\n  ".join(found)


def test_every_right_or_wrong_column_uses_the_same_marks(site):
    """The six examples' table and the twelve's: ✓ and ✗, never «sí» and «no» in one of them."""
    html, columns = page(site, "es"), 0
    for table in re.findall(r"<table.*?</table>", html, re.S):
        rows = [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
                for row in re.findall(r"<tr.*?</tr>", table, re.S)]
        if rows and "¿Acierto?" in rows[0]:
            column = rows[0].index("¿Acierto?")
            marks = {row[column] for row in rows[1:]}
            assert marks <= {"✓", "✗"} and marks, marks
            columns += 1
    assert columns == 2, "both worked tables have a right-or-wrong column"


@pytest.mark.parametrize("abbreviation, expansion", [
    ("CORP", "consistent, optimally binned, reproducible"), ("PAV", "pool-adjacent-violators"),
    ("MCB", "miscalibration")])
def test_each_abbreviation_is_expanded_where_the_spanish_prose_first_uses_it(site, abbreviation, expansion):
    text = read_prose(page(site, "es")).text
    first = re.search(rf"(?<!\w){abbreviation}(?!\w)", text)
    assert first, f"{abbreviation} is not in the prose"
    assert expansion in text[first.start():first.end() + 80], text[first.start() - 40:first.end() + 80]
