"""What a student reader still found in the widgets: the softmax demo's picker names the dataset and
fitted T it applies, a first click on a widget that has only just started is honoured, a slider
announces only what its widget shows, the probability bars explain their marks, and on a narrow screen
the contents stay one button away (shown while the reader scrolls back up). Every test runs once per
language; controls are found by role and by the label the page shows."""


import pytest

from .explorer_ui import named, near


def fill(template, **values):
    """A strings.toml template with its {placeholders} filled (as CT.fill does)."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", str(value))
    return template


@pytest.fixture
def strings(edition_strings, lang):
    return edition_strings[lang]


def explorers(page):
    """[(id, dataset)] of every explorer on the page, in page order."""
    return page.locator('[data-component="explorer"]').evaluate_all("rs => rs.map(r => [r.id, r.dataset.dataset])")


# --------------------------------------------------------------------------- the example picker

def test_the_example_picker_names_its_dataset_and_fitted_t(open_page, engine, strings, number, expect, lang):
    ui = strings["ui"]
    page = open_page(lang=lang)
    demo = near(page, "#sm1")
    picker = demo.get_by_role("combobox", name=ui["example_picker"], exact=True)
    fit = demo.get_by_role("button", name=named(ui["button_fitted_plain"]))
    # the six examples only: the twelve are introduced later (and their "Example 3" would be a second one)
    groups = picker.locator("optgroup").evaluate_all("gs => gs.map(g => g.label)")
    assert groups == [strings["datasets"]["six"]["label"]]
    for name, value in (("six", "six:4"), ("six", "six:2")):
        picker.select_option(value)
        t = number["temp"](engine.datasets[name].fitted_t)
        line = fill(ui["example_from"], dataset=strings["datasets"][name]["label"], t=t)
        expect(demo.get_by_text(line, exact=True)).to_be_visible()
        expect(fit).to_have_text(fill(ui["button_fitted"], t=t))


# --------------------------------------------------------------------------- the first click

def test_a_first_click_on_set_fitted_t_is_honoured_in_every_widget(open_page, engine, strings, number, expect, lang):
    """Scroll each widget into view and click its "Set fitted T" at once, while its data are held on
    their way: once they arrive, the slider and readout stand at that dataset's fitted T."""
    ui = strings["ui"]
    ids = explorers(open_page(lang=lang))
    assert len(ids) >= 6, ids
    for id_, dataset in ids:
        page = open_page(lang=lang)
        held = []  # the data requests held until the click is done (then None: requests go through)
        # (a deep dive's widget markup, data/markup-<lang>.js, is the widget itself, not its data: it goes through)
        page.route("**/data/**", lambda route: route.continue_() if held is None or "/data/markup-" in route.request.url
                   else held.append(route))
        root = page.locator("#" + id_)
        # a widget inside a deep dive: the reader opens the disclosure first
        page.evaluate("id => { const box = document.getElementById(id).closest('details');"
                      " if (box) box.open = true; }", id_)
        root.scroll_into_view_if_needed()
        root.get_by_role("button", name=named(ui["button_fitted_plain"])).click()
        held, waiting = None, held
        for route in waiting:
            route.continue_()
        fitted = engine.datasets[dataset].fitted_t
        slider = root.get_by_role("slider", name=ui["temperature"], exact=True)
        expect(slider).to_have_value(str(engine.index_of(fitted)))
        expect(root.locator("output").first).to_have_text(number["temp"](fitted))


# --------------------------------------------------------------------------- what a slider announces

def test_a_slider_announces_only_what_its_widget_shows(open_page, strings, expect, lang):
    """The softmax demo shows T and bars, never an ECE: its valuetext says T only. The fitting demo
    prints the ECE on a card: its valuetext carries that very value."""
    ui = strings["ui"]
    page = open_page(lang=lang)
    for id_, card in (("sm1", None), ("fit1", "ece-w")):
        root = near(page, "#" + id_)
        slider = root.get_by_role("slider", name=ui["temperature"], exact=True)
        readout = root.locator("output")
        first = readout.inner_text()
        if card is None:
            expect(slider).to_have_attribute("aria-valuetext", fill(ui["slider_valuetext"], t=first))
        slider.focus()
        for _ in range(20):
            slider.press("ArrowRight")
        expect(readout).not_to_have_text(first)
        said = fill(ui["slider_valuetext"], t=readout.inner_text())
        if card is not None:
            value = root.locator(f'[data-metric="{card}"] .value')
            expect(value).not_to_have_text("")
            said = fill(ui["slider_valuetext_ece"], at=said, ece=value.inner_text())
        expect(slider).to_have_attribute("aria-valuetext", said)


# --------------------------------------------------------------------------- the bars' key

def test_the_probability_bars_explain_their_marks(open_page, strings, expect, lang):
    ui = strings["ui"]
    page = open_page(lang=lang)
    before, after = (part.strip() for part in ui["bars_key"].split("{swatch}"))
    for id_ in ("sm1", "ex1"):
        root = page.locator("#" + id_)
        root.scroll_into_view_if_needed()
        panel = root.locator(".panel").filter(has=page.get_by_role("heading", name=ui["bars_title"], exact=True))
        expect(panel.get_by_text(before)).to_be_visible()
        expect(panel.get_by_text(after)).to_be_visible()
        # the underlined name is the true class the example's heading names
        expect(panel.locator(".bar-row.truth .bar-name").first).to_have_css("text-decoration-line", "underline")


# --------------------------------------------------------------------------- the way back to the contents

@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_narrow_screen_keeps_the_contents_one_button_away(open_page, strings, expect, lang, scheme):
    from .test_reading import contrast
    page = open_page(lang=lang, viewport={"width": 320, "height": 640}, color_scheme=scheme)
    button = page.get_by_role("button", name=strings["meta"]["toc"], exact=True)
    expect(button).to_be_hidden()  # the contents are in view at the top
    page.locator("#reliability").scroll_into_view_if_needed()
    expect(button).to_be_hidden()  # reading on downwards: it keeps off the text
    page.mouse.wheel(0, -200)      # scrolling back up: there it is
    expect(button).to_be_visible()
    box = button.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 320 and box["y"] + box["height"] <= 640, box
    colours = button.evaluate("b => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]")
    assert contrast(*colours) >= 4.5, colours
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#toc")).to_have_attribute("open", "")
    expect(page.locator("#toc summary")).to_be_focused()
    page.locator("#reliability").scroll_into_view_if_needed()
    page.mouse.wheel(0, -200)
    expect(button).to_be_visible()
    page.emulate_media(media="print")
    expect(button).to_be_hidden()


def test_a_wide_screen_needs_no_button_back_to_the_contents(open_page, strings, expect, lang):
    page = open_page(lang=lang, viewport={"width": 1280, "height": 800})
    page.locator("#reliability").scroll_into_view_if_needed()
    expect(page.get_by_role("navigation", name=strings["meta"]["toc"]).get_by_role("link").first).to_be_visible()
    expect(page.get_by_role("button", name=strings["meta"]["toc"], exact=True)).to_be_hidden()
