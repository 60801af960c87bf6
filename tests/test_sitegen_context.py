"""One namespace for templates and prose: a fact can never shadow a page name such as ``t`` or ``core``."""

import pytest

from sitegen.common.errors import BuildError
from sitegen.render.templating import _INDEX_NAMES, page_context


def test_facts_sit_beside_the_page_names_and_under_facts():
    context = page_context({"t": {"ui": {}}, "core": {}}, {"six": 1, "an": 2})
    assert context["t"] == {"ui": {}} and context["six"] == 1 and context["an"] == 2
    assert context["facts"] == {"six": 1, "an": 2}


@pytest.mark.parametrize("name", ["t", "core", "tables", "facts", "sections", "app_script"])
def test_a_fact_taking_a_page_name_stops_the_build(name):
    with pytest.raises(BuildError, match=f"reserved for the page: {name}"):
        page_context({"t": {}, "core": {}, "tables": {}}, {"six": 1, name: 2})


def test_the_facts_of_the_page_take_no_page_name(precomputed):
    from sitegen.facts.results import build_facts, fact_key

    # the names sitegen.assemble.page.assemble_files gives every page (the page template adds _INDEX_NAMES)
    page = {name: f"page {name}" for name in (
        "lang", "t", "figures", "core", "datasets", "default_dataset", "main_dataset", "extra_datasets", "user",
        "example_datasets", "site_root", "languages", "reproduce", "tables", "downloads_root", "embed_page",
        "figure_files")}
    facts = build_facts(precomputed)
    context = page_context(page, facts)
    assert not set(facts) & (set(page) | set(_INDEX_NAMES) | {"facts"})
    assert {fact_key(name) for name in precomputed.datasets} <= set(facts)  # every dataset's facts are there
    assert all(context[name] is value for name, value in facts.items())
    assert all(context[name] == f"page {name}" for name in page)  # no page name was shadowed
    assert context["facts"] is facts
