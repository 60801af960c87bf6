"""One namespace for templates and prose: a fact can never shadow a page name such as ``t`` or ``core``."""

import pytest

from sitegen.errors import BuildError
from sitegen.templating import page_context


def test_facts_sit_beside_the_page_names_and_under_facts():
    context = page_context({"t": {"ui": {}}, "core": {}}, {"six": 1, "an": 2})
    assert context["t"] == {"ui": {}} and context["six"] == 1 and context["an"] == 2
    assert context["facts"] == {"six": 1, "an": 2}


@pytest.mark.parametrize("name", ["t", "core", "tables", "facts", "sections", "app_script"])
def test_a_fact_taking_a_page_name_stops_the_build(name):
    with pytest.raises(BuildError, match=f"reserved for the page: {name}"):
        page_context({"t": {}, "core": {}, "tables": {}}, {"six": 1, name: 2})


def test_the_facts_of_the_page_take_no_page_name(precomputed):
    from sitegen.facts import build_facts

    page = {name: None for name in ("lang", "t", "figures", "core", "datasets", "default_dataset", "reproduce",
                                    "tables")}
    page_context(page, build_facts(precomputed))  # does not raise
