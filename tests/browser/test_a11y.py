"""Accessibility: axe-core (from node_modules) finds no violation in light or dark (every "Embed" box open),
before and after the explorer shows a split dataset, in every language edition; on every embed page, each
language in one scheme; every form control has an accessible name."""

import re

import pytest

from sitegen.common.settings import LANGUAGES

from .conftest import page_path

pytestmark = pytest.mark.every_language  # each edition's names, labels and contrast

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def run_axe(page, axe_script):
    """Inject axe-core and run every default rule; returns the violations (JSON-ready)."""
    page.add_script_tag(path=str(axe_script))
    results = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return {
            version: axe.version,
            violations: r.violations.map(v => ({
                id: v.id, impact: v.impact, tags: v.tags, help: v.help,
                nodes: v.nodes.slice(0, 5).map(n => ({target: n.target.join(' '), summary: n.failureSummary})),
                count: v.nodes.length,
            })),
            ran: r.passes.length + r.violations.length + r.incomplete.length + r.inapplicable.length,
        };
    }""")
    assert results["ran"] > 50, f"axe ran only {results['ran']} rules"
    return results["violations"]


def describe(violations):
    lines = []
    for v in violations:
        wcag = [t for t in v["tags"] if t in WCAG_TAGS]
        lines.append(f"{v['id']} ({v['impact']}; {', '.join(wcag) or 'best practice'}): {v['help']} "
                     f"— {v['count']} node(s)")
        lines += [f"    {n['target']}: {n['summary']}".replace("\n", " ") for n in v["nodes"]]
    return "\n".join(lines)


def open_embed_boxes(page):
    """Open every "Embed" box of the page (their snippets and notes are checked with the rest)."""
    boxes = page.locator("details.embed-box")
    assert boxes.count() >= 7
    boxes.evaluate_all("boxes => boxes.forEach(box => { box.open = true; })")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations(open_page, axe_script, scheme, lang):
    """The whole page with every "Embed" box open: closed, a box shows only its summary, which stays in view."""
    page = open_page(color_scheme=scheme, lang=lang)
    page.wait_for_load_state("networkidle")
    open_embed_boxes(page)
    violations = run_axe(page, axe_script)
    assert violations == [], f"axe-core, {lang} page, {scheme} scheme, every Embed box open:\n{describe(violations)}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_with_a_split_dataset(open_explorer, axe_script, scheme, expect):
    ex = open_explorer(color_scheme=scheme, viewport={"width": 390, "height": 844})
    ex.choose(dataset="sim-600")
    expect(ex.part("test")).to_be_visible()
    ex.fit.click()
    violations = run_axe(ex.page, axe_script)
    assert violations == [], f"axe-core, {scheme} scheme, sim-600 at 390 px:\n{describe(violations)}"


def test_axe_finds_no_violations_on_the_embed_pages(open_page, axe_script, lang, site_dir):
    """Each language in one scheme, the languages alternating light and dark (en light, es dark): a scheme
    changes only colours, which are the same stylesheet's in every language, and a language only text and
    geometry, which no scheme changes; the main page is checked in every pair above. One page visits them all."""
    scheme = ("light", "dark")[list(LANGUAGES).index(lang) % 2]
    found, page = {}, None
    for path in sorted((site_dir / page_path(lang, "embed")).glob("*.html")):
        if page is None:
            page = open_page(f"embed/{path.name}", lang=lang, color_scheme=scheme)
        else:
            page.goto(page.url.rsplit("/", 1)[0] + f"/{path.name}", wait_until="load")
        page.wait_for_load_state("networkidle")
        found[f"embed/{path.name}"] = run_axe(page, axe_script)
    assert len(found) >= 7
    bad = {where: describe(v) for where, v in found.items() if v}
    assert not bad, f"axe-core, {lang}, {scheme}:\n" + "\n".join(f"{where}:\n{text}" for where, text in bad.items())


def test_every_control_has_an_accessible_name(open_explorer, expect):
    ex = open_explorer()
    controls = ex.page.locator("input, select, button")
    assert controls.count() > 0

    def check_visible():
        unnamed = []
        for i in range(controls.count()):
            control = controls.nth(i)
            if not control.is_visible():
                continue
            try:
                expect(control).to_have_accessible_name(re.compile(r"\S"), timeout=1000)
            except AssertionError:
                unnamed.append(control.evaluate("e => e.outerHTML.slice(0, 160)"))
        return unnamed

    unnamed = check_visible()
    ex.choose(dataset="sim-600")
    expect(ex.part("test")).to_be_visible()
    unnamed += check_visible()
    assert unnamed == [], f"controls without an accessible name: {unnamed}"


def test_explorer_controls_have_their_roles_and_names(open_explorer, expect):
    ex = open_explorer()
    # Two sliders: the temperature, and the bin-count chart's reading position.
    expect(ex.root.get_by_role("slider")).to_have_count(2)
    expect(ex.slider).to_have_count(1)
    expect(ex.root.get_by_role("slider", name=ex.ui["sweep_read"], exact=True)).to_have_count(1)
    expect(ex.slider).to_have_attribute("aria-valuetext", re.compile(r"^T \d+(\.\d+)?, ECE \d+\.\d\u00a0?%$"))
    expect(ex.status).to_have_count(1)
    expect(ex.status).to_have_attribute("aria-live", "polite")
    for button in (ex.reset, ex.fit, ex.pin):
        expect(button).to_have_count(1)
        expect(button).to_have_accessible_name(re.compile(r"\S"))
    expect(ex.root.get_by_role("radio")).not_to_have_count(0)
    expect(ex.dataset).to_have_count(1)
    assert ex.dataset.evaluate("e => e.tagName") == "SELECT"
    expect(ex.bins).to_have_count(1)  # a spinbutton named by its label
    assert ex.bins.evaluate("e => e.type") == "number"
