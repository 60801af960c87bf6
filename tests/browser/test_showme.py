"""Issue 17 in the browser: every "show me" link of the core path puts its explorer into the state it
names and scrolls there, in both languages; deep dives open from a link into them (with and without a
state), show whole when printed, and open by hand without JavaScript.

One page load per language for the links (each clicked in turn, after the reader has moved the
explorer, so a link must set every field it names). The expected state is read from the link itself
(its fields) and the engine's grid (the nearest grid point to its ``t``), never from the page's scripts.
"""

import re
from urllib.parse import parse_qsl

import numpy as np

STATE = """id => {
    const root = document.getElementById(id), x = root && root.explorer, s = x && x.state;
    if (!s || !s.model) return null;
    const own = document.getElementById(id + '-own'), select = document.getElementById(id + '-dataset');
    return {dataset: s.dataset, index: s.index, bins: String(s.bins), scheme: s.scheme, part: s.part,
            group: s.group, own: s.own ? '1' : '0', slider: Number(document.getElementById(id + '-t').value),
            select: select ? select.value : null, ownBox: own ? own.checked : null,
            top: root.getBoundingClientRect().top, height: window.innerHeight};
}"""


STUCK = """id => {
    const x = document.getElementById(id).explorer, s = x && x.state;
    return {hash: location.hash, explorer: !!x, dataset: s && s.dataset, model: s && s.model && s.model.name,
            index: s && s.index, drawn: !!(x && x.data && x.data.model === s.model),
            slider: (document.getElementById(id + '-t') || {}).value,
            status: (document.getElementById(id + '-status') || {}).textContent};
}"""


def core_links(page):
    """``[href]`` of the links that set a state, outside closed details (the core path), in page order."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('main a[href*="/state/"]'))
        .filter(a => !a.closest('details:not([open])')).map(a => a.getAttribute('href'))""")


def test_every_show_me_link_sets_its_explorer(open_page, engine, lang, expect):
    page = open_page(lang=lang)
    hrefs = core_links(page)
    assert len(hrefs) >= 8, hrefs
    grid = np.asarray(engine.grid)
    # the four "each side of a jump" links land on the main explorer's reliability diagram (the bins)
    main = page.evaluate("() => document.querySelector('[data-hash=\"on\"]').id")
    assert sum(h.startswith(f"#{main}-reliability/state/") for h in hrefs) >= 4, hrefs
    for n, href in enumerate(hrefs):
        at, fields = re.match(r"#([a-z0-9-]+)/state/(.+)$", href).groups()
        fields = dict(parse_qsl(fields))
        # the explorer the state is for (its widget field, else the main one); the link scrolls to `at`
        place = fields.get("widget") or main
        if page.evaluate("id => document.getElementById(id).dataset.component", place) == "bins-figure":
            continue  # the hero and the paradox's figure are not explorers: tests/browser/test_steps.py, test_hero.py
        if n:  # move the explorer away first, as a reader would have
            page.evaluate("id => { const x = document.getElementById(id).explorer; if (x) x.jumpTo(5); }", place)
        page.locator(f'main a[href="{href}"]').first.click()
        # drawn: the explorer's data are the new dataset's (set when it has redrawn with them)
        # ... and, unless each group is at its own T, the slider shows the state's temperature
        try:
            page.wait_for_function("""([id, name, own]) => { const x = document.getElementById(id).explorer;
                return x && x.state.model && x.state.model.name === name && x.data && x.data.model === x.state.model
                    && x.state.index !== 5
                    && (own || Number(document.getElementById(id + '-t').value) === x.state.index); }""",
                                   arg=[place, fields["dataset"], fields.get("own") == "1"], timeout=20_000)
        except Exception as error:  # say which link, and where the explorer and the URL stand
            raise AssertionError(f"link {n} {href}: never shown; {page.evaluate(STUCK, place)}") from error
        got = page.evaluate(STATE, place)
        index = int(np.argmin(np.abs(grid - float(fields["t"]))))
        want = {key: fields[key] for key in ("dataset", "bins", "scheme", "part")}
        assert {key: got[key] for key in want} == want, (href, got)
        if fields.get("own") == "1":
            assert got["own"] == "1" and got["ownBox"] is True, (href, got)
        else:
            assert got["index"] == index and got["slider"] == index, (href, got, index)
        if "group" in fields:
            assert (got["group"], got["own"]) == (fields["group"], fields["own"]), (href, got)
        if got["select"] is not None:
            assert got["select"] == fields["dataset"]
        top = page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", at)
        assert -2 <= top < got["height"] / 2, f"{href}: {at} is not at the top ({top})"
        expect(page).to_have_url(re.compile(re.escape(f"#{at}/state/")))
        check_sweep(page, place, fields, href)


SWEEP = """id => {
    const host = document.getElementById(id + '-sweep'), input = document.getElementById(id + '-sweep-b');
    const marker = host.querySelector('circle.dot'), guide = host.querySelector('line.ref-line');
    return {hidden: host.hidden || host.closest('[hidden]') !== null, input: input.value,
            marker: marker.getAttribute('cx'), guide: guide.getAttribute('x1')};
}"""


def check_sweep(page, place, fields, href):
    """The explorer's bin-count chart follows a link (issue 17's stale chart): a pooled view shows its
    dataset's curve read at the link's bin count; a group view (no pooled analyses) hides the chart."""
    if not page.evaluate("id => !!document.getElementById(id + '-sweep')", place):
        return
    pooled = fields.get("group", "pooled") == "pooled" and fields.get("own", "0") != "1"
    if pooled:  # the analyses of the link's dataset have arrived
        page.wait_for_function("""([id, name]) => { const x = document.getElementById(id).explorer;
            return x.analysis && x.analysis.raw.name === name; }""", arg=[place, fields["dataset"]])
    got = page.evaluate(SWEEP, place)
    if pooled:
        assert not got["hidden"] and got["input"] == fields["bins"], (href, got)
        assert got["marker"] == got["guide"], (href, got)
    else:
        assert got["hidden"], f"{href}: the bin-count chart still shows a pooled curve ({got})"


def test_deep_dives_open_from_links_print_whole_and_work_without_javascript(open_page, expect):
    """English only: the same ids and structure in Spanish are checked at build time (test_core_path.py)."""
    # a link to a term defined inside a closed deep dive (the glossary's) opens it and scrolls there
    page = open_page()
    dive = page.locator("#chance-more")
    expect(dive).not_to_have_attribute("open", "")
    page.locator("#terms-list > summary").click()  # the glossary's list is a deep dive of its own
    page.locator('#terms a[href="#term-monte-carlo-error"]').click()
    expect(dive).to_have_attribute("open", "")
    expect(page.locator("#term-monte-carlo-error")).to_be_in_viewport()
    # printing shows every deep dive's content, closed ones included
    page.emulate_media(media="print")
    for ident in ("pairing", "groups-more", "data-more", "sklearn"):
        expect(page.locator(f"#{ident} > :not(summary)").first).to_be_visible()
    page.emulate_media(media="screen")
    expect(page.locator("#pairing > :not(summary)").first).to_be_hidden()
    # a URL whose place is inside a deep dive, with a state, opens it at load
    page = open_page("#term-bonferroni-correction/state/dataset=overconfident&bins=15")
    expect(page.locator("#bins-more")).to_have_attribute("open", "")
    expect(page.locator("#term-bonferroni-correction")).to_be_in_viewport()
    # without JavaScript a deep dive opens from its summary
    plain = open_page(java_script_enabled=False)
    summary = plain.locator("#smooth-more > summary")
    summary.scroll_into_view_if_needed()
    expect(plain.locator("#smooth-more > :not(summary)").first).to_be_hidden()
    summary.click()
    expect(plain.locator("#smooth-more > :not(summary)").first).to_be_visible()
