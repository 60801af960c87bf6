"""A page built around a reader's model whose name, class and group names are hostile: no script of theirs runs.

The build is the session's shared ``build.py --data`` of tests/user_inputs.py (``user_builds``, tests/conftest.py,
which tests/test_user_model.py reads too): a name with markup, ``<!--<script>`` and U+2028, class names that look
like markup and formulas, and such group names. In Chromium, from ``file://``: no dialog opens, no error is
logged, no element of theirs appears, and the page shows the name as typed; the main explorer opens on the
reader's model and the report's bars show six examples with the names as text.
"""

import re

import pytest
from user_inputs import HOSTILE_DESCRIPTION, HOSTILE_GROUPS, HOSTILE_NAME, MODEL_ROWS

from .explorer_ui import near

pytestmark = pytest.mark.every_language  # each edition of the reader's page

NAME, GROUPS, DESCRIPTION = HOSTILE_NAME, HOSTILE_GROUPS, HOSTILE_DESCRIPTION


@pytest.fixture(scope="module")
def hostile_site(user_builds):
    """The hostile model's site, every language (English at the root)."""
    return user_builds["hostile"]


def test_hostile_names_run_no_script_and_show_as_text(browser, expect, hostile_site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    problems, dialogs = [], []
    page = context.new_page()
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    try:
        page.goto((hostile_site / "index.html").as_uri(), wait_until="load")
        expect(page.locator(".yours-name")).to_have_text(NAME.strip())
        # the main explorer opens on the reader's model, listed under its name (built as it comes near)
        main = near(page, "#ex1").locator("#ex1-dataset")
        expect(main).to_have_value("yours")
        assert NAME.split("\u2028")[0] in main.locator("option[value=yours]").text_content()
        # the report's explorer draws six examples; names are text, "all others" closes each card
        page.locator("#yr1").scroll_into_view_if_needed()
        cards = page.locator("#yr1-bars .example")
        expect(cards).to_have_count(6, timeout=20_000)
        names = page.locator("#yr1-bars .bar-name").all_inner_texts()
        assert names.count("all others") == 6
        assert not [name for name in names if name.startswith("class ")]
        for selector in ("img[src=x]", "img[src=y]", "svg[onload]", "#injected", "b#injected"):
            assert page.locator(selector).count() == 0, selector
        page.locator("#ex1").scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        assert dialogs == [] and problems == [], (dialogs, problems)
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_report_passes_axe_at_390_px(browser, axe_script, hostile_site, scheme):
    from .test_a11y import describe, run_axe

    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto((hostile_site / "index.html").as_uri(), wait_until="load")
        page.locator("#yr1").scroll_into_view_if_needed()
        page.locator("#yr1-bars .example").first.wait_for(timeout=20_000)
        violations = run_axe(page, axe_script)
        assert violations == [], f"axe-core, {scheme}, page built with --data:\n{describe(violations)}"
        # no horizontal scrolling at this width, whatever the reader's text
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    finally:
        context.close()


def test_the_page_built_with_data_is_valid_html(vnu_command, hostile_site):
    from .test_html_valid import run_vnu

    page = hostile_site / "index.html"
    errors = run_vnu(vnu_command, page)
    assert errors == {str(page): []}, errors


def group_values(page):
    """The values of the main explorer's group radios that are shown (and enabled), in order."""
    return page.locator('#ex1-groups input[name="ex1-group"]').evaluate_all(
        "nodes => nodes.filter(n => n.getClientRects().length && !n.disabled).map(n => n.value)")


def test_the_group_radios_are_the_shown_datasets_own(browser, expect, hostile_site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    problems = []
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    try:
        page.goto((hostile_site / "index.html").as_uri(), wait_until="load")
        expect(near(page, "#ex1").locator("#ex1-dataset")).to_have_value("yours")
        expect(page.locator("#ex1-groups")).to_be_visible(timeout=20_000)
        assert sorted(group_values(page)) == sorted(["pooled", *GROUPS])
        # the description, then the dataset's line as a sentence of its own
        expect(page.locator("#ex1-summary")).to_have_text(
            re.compile("^" + re.escape(DESCRIPTION) + rf"\. {MODEL_ROWS} examples; "))
        # the built-in mixed population: its groups A and B, none of the reader's
        page.locator("#ex1-dataset").select_option("mixed")
        expect(page.locator('#ex1-groups input[value="A"]')).to_be_visible()
        assert sorted(group_values(page)) == ["A", "B", "pooled"]
        page.locator('#ex1-groups input[value="A"]').check()
        page.wait_for_timeout(400)
        assert "group=A" in page.evaluate("location.hash")
        # keyboard: from group A, the arrow keys go to the mixed population's radios only
        page.locator('#ex1-groups input[value="A"]').focus()
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.value") == "B"
        # the dataset changes under the focused radio (as a script or assistive technology may do it):
        # the radio goes away and the focus moves to "both pooled"
        page.evaluate("""() => { const select = document.getElementById("ex1-dataset");
            select.value = "yours"; select.dispatchEvent(new Event("change")); }""")
        expect(page.locator('#ex1-groups input[value="pooled"]')).to_be_focused()
        # back to the reader's model: its groups again, pooled checked, the hash's group with it
        page.locator("#ex1-dataset").select_option("yours")
        expect(page.locator('#ex1-groups input[value="A"]')).to_be_hidden()
        assert sorted(group_values(page)) == sorted(["pooled", *GROUPS])
        expect(page.locator('#ex1-groups input[value="pooled"]')).to_be_checked()
        page.wait_for_timeout(400)
        assert "group=pooled" in page.evaluate("location.hash")
        page.locator(f'#ex1-groups input[value="{GROUPS[1]}"]').check()
        page.wait_for_timeout(400)
        assert problems == [], problems
        # a shared URL: the group kept where the dataset has it, pooled where it does not
        for hash_, dataset, checked in (("#state/dataset=mixed&group=B", "mixed", "B"),
                                        ("#state/dataset=yours&group=A", "yours", "pooled")):
            page.goto((hostile_site / "index.html").as_uri() + hash_, wait_until="load")
            page.reload(wait_until="load")
            page.locator("#ex1").scroll_into_view_if_needed()
            expect(page.locator("#ex1-dataset")).to_have_value(dataset, timeout=20_000)
            expect(page.locator(f'#ex1-groups input[value="{checked}"]')).to_be_checked(timeout=20_000)
            page.wait_for_timeout(400)
            assert f"group={checked}" in page.evaluate("location.hash")
        assert problems == [], problems
    finally:
        context.close()


@pytest.fixture(scope="module")
def bare_site(user_builds):
    """The same model built with --no-examples --split none, English only."""
    return user_builds["bare"]


def test_no_examples_hides_the_bars_panel(browser, expect, bare_site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    problems = []
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(str(error)))
    try:
        page.goto((bare_site / "index.html").as_uri(), wait_until="load")
        for explorer in ("yr1", "ex1"):
            page.locator(f"#{explorer}").scroll_into_view_if_needed()
            expect(page.locator(f"#{explorer}-summary, #{explorer}-t-readout").first).not_to_be_empty(timeout=20_000)
            panel = page.locator(f"#{explorer}-bars").locator("xpath=..")
            expect(panel).to_be_hidden(timeout=20_000)
        # a built-in dataset has its six examples: the panel and its heading come back
        page.locator("#ex1-dataset").select_option("six")
        expect(page.locator("#ex1-bars").locator("xpath=..")).to_be_visible(timeout=20_000)
        expect(page.locator("#ex1-bars .example").first).to_be_visible()
        assert problems == [], problems
    finally:
        context.close()


def test_the_groups_table_scrolls_in_the_labelled_region_at_390_px(browser, hostile_site):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto((hostile_site / "index.html").as_uri(), wait_until="load")
        found = page.evaluate("""() => {
            const table = document.querySelector("table.yours-groups"), wrap = table.parentElement;
            const other = document.querySelector("table.yours-metrics").parentElement, style = getComputedStyle(wrap);
            return {wrap: wrap.className, role: wrap.getAttribute("role"), tabindex: wrap.getAttribute("tabindex"),
                    label: document.getElementById(wrap.getAttribute("aria-labelledby")).className,
                    overflow: style.overflowX, hint: style.backgroundImage,
                    otherHint: getComputedStyle(other).backgroundImage,
                    fits: wrap.getBoundingClientRect().right <= window.innerWidth,
                    page: document.documentElement.scrollWidth <= window.innerWidth + 1};
        }""")
        # (a table of six or more columns marks its region wide: sitegen/content/article.py arrange_tables)
        assert "table-wrap" in found["wrap"].split() and found["role"] == "region" and found["tabindex"] == "0", found
        assert found["label"] == "table-caption" and found["overflow"] == "auto", found
        assert "gradient" in found["hint"] and found["hint"] == found["otherHint"], found
        assert found["fits"] and found["page"], found
    finally:
        context.close()


def test_the_report_explorer_opens_at_the_fitted_t(browser, expect, hostile_site):
    import json
    fitted = json.loads((hostile_site / "downloads" / "yours-temperature.json").read_text())["temperature"]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    try:
        page.goto((hostile_site / "index.html").as_uri(), wait_until="load")
        page.locator("#yr1").scroll_into_view_if_needed()
        expect(page.locator("#yr1-bars .example")).to_have_count(6, timeout=20_000)
        # after the script has read the slider into its state and drawn: still at the fitted T
        expect(page.locator("#yr1-t-readout")).to_have_text(f"{fitted:.3g}")
        static = (hostile_site / "index.html").read_text(encoding="utf-8")
        opened = re.search(r'<input type="range" id="yr1-t" [^>]*value="(\d+)"', static).group(1)
        assert page.locator("#yr1-t").input_value() == opened  # the state kept the template's opening index
        # the main explorer still opens at T = 1
        at_one = re.search(r'id="ex1-t-readout"[^>]*>([^<]*)<', static).group(1)
        assert at_one != f"{fitted:.3g}"
        expect(near(page, "#ex1").locator("#ex1-t-readout")).to_have_text(at_one)
    finally:
        page.context.close()


@pytest.mark.parametrize("lang", ["en", "es"])
def test_each_example_heading_names_its_row_of_the_readers_file_from_0(browser, user_builds, lang):
    """The bars number a reader's examples from 1, as every dataset's, and name the row of their file from 0:
    the row named holds the logits and label the heading's example shows (read here from the file itself)."""
    import json

    import numpy as np

    site, data = user_builds["hostile"], np.load(user_builds["data"])
    text = (site / "data" / "yours.js").read_text(encoding="utf-8")
    examples = json.loads(text[text.index('["dataset",') + len('["dataset",'):text.rindex("]);")])["examples"]
    pattern = {"en": r"^Example (\d+) \(row (\d+) of your file, counting from zero\): true class ",
               "es": r"^Ejemplo (\d+) \(fila (\d+) de tu archivo, contando desde cero\): clase verdadera "}[lang]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    try:
        page.goto((site / ("index.html" if lang == "en" else "es/index.html")).as_uri(), wait_until="load")
        page.locator("#yr1").scroll_into_view_if_needed()
        heads = page.locator("#yr1-bars .example-head")
        heads.first.wait_for(timeout=20_000)
        texts = heads.all_inner_texts()
    finally:
        page.context.close()
    assert len(texts) == len(examples["index"]) == 6
    for e, head in enumerate(texts):
        found = re.match(pattern, head)
        assert found, head
        number, row = int(found.group(1)), int(found.group(2))
        assert number == row + 1
        assert int(data["labels"][row]) == examples["label"][e]
        shown = [(c, v) for c, v in zip(examples["classes"][e], examples["logits"][e]) if c >= 0]
        assert all(abs(float(data["logits"][row, c]) - v) <= 5e-4 for c, v in shown), (row, shown)
