"""sitegen/facts/sources.py: the bibliography file content/sources.toml, its records and the prose's view of them.

The identifiers and years themselves are checked against the issue's list in ``test_analysis_facts.py``.
"""

import pytest

from sitegen.common.errors import BuildError
from sitegen.facts.sources import Source, load_sources, source_facts


def write(tmp_path, text):
    path = tmp_path / "sources.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_records_keep_their_order_and_optional_fields(tmp_path):
    path = write(tmp_path, '[b]\ncite = "Bee"\nyear = 2001\nid = "arXiv:2101.00001"\n\n'
                           '[a]\ncite = "Ay"\nyear = 1999\n\n[web]\ncite = "site"\nid = "https://example.org/x"\n')
    sources = load_sources(path)
    assert list(sources) == ["b", "a", "web"]
    assert sources["a"] == Source("Ay", 1999, None) and sources["web"] == Source("site", None, "https://example.org/x")
    src = source_facts(sources)
    assert (src.b.url, src.b.label) == ("https://arxiv.org/abs/2101.00001", "<code>arXiv:2101.00001</code>")
    assert src.a.url is None and src.a.label is None and src.a.year == 1999 and src.web.year is None


@pytest.mark.parametrize("text, message", [
    ('[a]\ncite = "A"\nyear = "1999"\n', r"\[a\] year must be a whole number"),
    ('[a]\ncite = "A"\nyear = true\n', r"\[a\] year must be a whole number"),
    ('[a]\nyear = 1999\n', r"\[a\] has no cite"),
    ('[a]\ncite = "A"\ndoi = "10.1/x"\n', r"\[a\] has an unknown field 'doi'"),
    ('a = "A"\n', r"a must be a table"),
    ('[a\ncite = "A"\n', r"invalid TOML"),
])
def test_a_bad_record_stops_the_build_naming_the_file_and_the_record(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(BuildError, match=message) as caught:
        load_sources(path)
    assert str(caught.value).startswith(f"{path}: ") and "\n" not in str(caught.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(BuildError, match="sources file is missing"):
        load_sources(tmp_path / "nowhere.toml")


def test_the_real_file_loads():
    sources = load_sources()
    assert sources and all(source.cite for source in sources.values())


# ------------------------------------------------------------------ one bibliography (issue 27, correction 6)

import re  # noqa: E402
from pathlib import Path  # noqa: E402

CONTENT = Path(__file__).resolve().parents[1] / "content"
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{##.*?##\}", re.S)
_MATH = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?!\$).+?(?<!\\)\$", re.S)
_TYPED_YEAR = re.compile(r"(?<![\w.,-])(1[89]\d\d|20\d\d)(?![\w.,-]?\d)")


def _surname(cite):
    """The first author's surname of a ``cite`` ("Gneiting and Raftery" → "Gneiting")."""
    return re.split(r",| and | et al\.", cite)[0].strip()


def _sections(lang):
    """``{file name: text}`` of a language's sections; the sources section itself apart."""
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted((CONTENT / lang).glob("[0-9][0-9]-*.md"))}
    files.update({f"user/{p.name}": p.read_text(encoding="utf-8") for p in (CONTENT / lang / "user").glob("*.md")})
    listing = next(name for name in files if name.endswith("-sources.md"))
    return files.pop(listing), files


def _typed_citations(text, sources):
    """``(cited keys, unmatched)``: keys whose first author's surname stands within 80 characters before a year
    typed in the running text (outside expressions and math), and the typed years no source accounts for."""
    plain = _MATH.sub(" ", _JINJA.sub(" ", text))
    cited, unmatched = set(), []
    for match in _TYPED_YEAR.finditer(plain):
        before = plain[max(0, match.start() - 80):match.start()]
        keys = {key for key, source in sources.items()
                if source.year == int(match.group(1)) and _surname(source.cite) in before}
        cited |= keys
        if not keys:
            unmatched.append(plain[max(0, match.start() - 40):match.end()])
    return cited, unmatched


@pytest.mark.parametrize("lang", sorted(p.name for p in CONTENT.iterdir() if (p / "strings.toml").exists()))
def test_one_bibliography_every_citation_listed_and_every_listed_work_cited(lang):
    """Every work the prose cites (``src.<key>`` or an author and a typed year) is a record of sources.toml and is
    listed in the sources section; every record is listed there and cited somewhere else on the page."""
    sources = load_sources()
    listing, sections = _sections(lang)
    dated = set(re.findall(r"\{\{ src\.(\w+)\.year \}\}", listing))
    assert dated == {key for key, source in sources.items() if source.year is not None}
    assert set(re.findall(r"\bsrc\.(\w+)", listing)) == set(sources), "the sources section lists every record"
    prose = "\n".join(sections.values())
    assert not re.search(r"\blit\.\w+", prose), "one bibliography: cite content/sources.toml as src.<key>"
    by_expression = set(re.findall(r"\bsrc\.(\w+)\.", prose))
    assert by_expression <= set(sources), sorted(by_expression - set(sources))
    typed, unmatched = _typed_citations(prose, sources)
    assert not unmatched, f"{lang}: typed years that cite no listed source: {unmatched}"
    uncited = set(sources) - by_expression - typed
    assert not uncited, f"{lang}: listed but never cited outside the sources section: {sorted(uncited)}"


def test_the_citation_checker_catches_what_it_should():
    sources = {"gr": Source("Gneiting and Raftery", 2007, None), "k": Source("Kumar et al.", 2019, None)}
    assert _typed_citations("as Kumar et al. (2019) show", sources) == ({"k"}, [])
    assert _typed_citations("(Gneiting y Raftery, 2007)", sources)[0] == {"gr"}
    assert _typed_citations("Smith (2007) found", sources)[1]  # a year no listed source accounts for
    assert _typed_citations("{{ src.k.year }} and $x_{2019}$", sources) == (set(), [])
