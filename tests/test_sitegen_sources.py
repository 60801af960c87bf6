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
