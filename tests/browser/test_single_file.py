"""The one-file edition (``build.py --single-file OUT.html``), opened from disk with the network off.

The file is built once per session (``single_file``, tests/conftest.py). Every request but the file
itself is refused (and the context is offline), so a single stray reference to another file or host
fails: the tests operate
explorers on datasets that are not the default, the groups view of ``mixed`` (its groups file is
inlined) and check the cards against the engine; the bin selectors offer the detailed counts only,
as the page says; without JavaScript the prose, tables and static figures are there; the Nu checker
finds no error.
"""

import pytest

from .explorer_ui import Explorer
from .test_explorer import expected_cards
from .test_html_valid import run_vnu


@pytest.fixture
def open_offline(watched_page, single_file):
    """``open_offline(**context_options)`` → the file opened from disk, every other request refused."""
    url = single_file.as_uri()

    def refused(monitor):
        def refuse(route):
            monitor.add(f"request for another file or host: {route.request.url}")
            route.abort()
        return (lambda address: address != url and not address.startswith("data:")), refuse

    def opener(**context_options):
        context_options.setdefault("viewport", {"width": 1280, "height": 900})
        page = watched_page(offline=True, route=refused, **context_options)
        page.goto(url, wait_until="load")
        return page

    return opener


@pytest.fixture(scope="module")
def english(edition_strings):
    """The English ``[ui]`` strings, as the file shows them (its strings JSON holds only what its scripts read)."""
    return edition_strings["en"]["ui"]


def test_every_explorer_works_from_disk_with_the_network_off(open_offline, english, engine, expect):
    page = open_offline()
    url = page.url
    assert page.monitor.requests == [url]
    ex = Explorer(page, english, expect)
    ex.root.scroll_into_view_if_needed()
    ex.choose(dataset="sim-600")
    page.wait_for_function("() => document.getElementById('ex1').explorer.state.model.name === 'sim-600'")
    ex.choose(part="calibration", scheme="adaptive", bins=15)
    ex.fit.click()
    fitted = engine.datasets["sim-600"].fitted_t
    expect(ex.slider).to_have_value(str(engine.index_of(fitted)))
    for metric, text in expected_cards("sim-600", "calibration", fitted, "adaptive", 15).items():
        expect(ex.card(metric)).to_have_text(text)
    # the groups file of mixed is inlined too: its group view needs no request
    ex.choose(dataset="mixed")
    page.wait_for_function("() => document.getElementById('ex1').explorer.state.model.name === 'mixed'")
    ex.root.get_by_role("checkbox", name=english["own_t"], exact=True).check()
    expect(ex.status).to_have_text("")
    # every dataset, in every explorer that offers a picker
    names = page.evaluate("() => CalibTutorial.core.datasets.map(d => d.name)")
    page.evaluate("() => document.querySelectorAll('details.deep-dive').forEach(box => { box.open = true; })")
    for root in page.locator('[data-component="explorer"]').all():
        root.scroll_into_view_if_needed()
        picker = root.locator('select[id$="-dataset"]')
        for value in (picker.locator("option").evaluate_all("os => os.map(o => o.value)") if picker.count() else []):
            picker.select_option(value)
            root_id = root.get_attribute("id")
            page.wait_for_function("([id, name]) => document.getElementById(id).explorer.state.model.name === name",
                                   arg=[root_id, value])
            expect(page.locator(f"#{root_id}-status")).to_have_text("")
    assert set(page.evaluate("() => Object.keys(CalibTutorial.datasets)")) == set(names)
    assert page.monitor.requests == [url], page.monitor.requests


def test_the_bin_selectors_offer_the_detailed_counts_and_the_page_says_so(open_offline, english):
    page = open_offline()
    counts = page.evaluate("() => CalibTutorial.core.offered_bin_counts")
    for select in page.locator('select[id$="-bins"]').all():
        assert select.locator("option").evaluate_all("os => os.map(o => Number(o.value))") == counts
    note = page.locator(".single-file-note")
    text = note.inner_text()
    assert "20" in text and "CSV" in text
    assert "python" not in text.lower() and "build" not in text.lower(), text  # the note speaks to students
    assert page.locator('a[href*="downloads/"]').count() == 0  # named, not linked: they are not in the file


def test_without_javascript_the_file_shows_prose_tables_and_figures(open_offline):
    page = open_offline(java_script_enabled=False)
    assert page.locator("section").count() > 10
    assert page.locator(".static-figure svg").first.is_visible()
    assert page.locator("table").first.is_visible()


def test_the_file_is_valid_html(vnu_command, single_file):
    errors = run_vnu(vnu_command, single_file)
    found = errors.get(str(single_file), [])
    assert found == [], "vnu: " + "\n  ".join(found)
