"""docs/panels.md's recipe, in a browser: a throwaway panel ("probe") declared only by a manifest record,
its markup, one view file and one stylesheet (tests/test_panels.py ``add_probe``; no edit to explorer.js,
_explorer.html.j2, order.txt or settings.py) renders in the nll-curve widget, gets its style, and is
handed the state again whenever the T slider or the buttons move it."""

import shutil
from pathlib import Path

import pytest

from .explorer_ui import near

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def probe_site(precomputed, tmp_path_factory):
    """The English page stage of a private copy of the sources with the probe panel added, written out."""
    from test_panels import add_probe, copy_front_end
    from test_sitegen_page import assemble

    tmp = tmp_path_factory.mktemp("probe")
    root = copy_front_end(tmp)
    shutil.copytree(ROOT / "content", root / "content")
    add_probe(root)
    out = tmp / "site"
    for path, content in assemble(root, precomputed).items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return out


def test_a_panel_added_by_the_recipe_renders_and_follows_the_slider(probe_site, precomputed, watched_page, expect):
    page = watched_page(viewport={"width": 1280, "height": 900})
    page.goto((probe_site / "index.html").as_uri(), wait_until="load")
    near(page, "#fit1")  # its markup is built when it comes near
    probe, slider = page.locator("#fit1-probe"), page.locator("#fit1-t")
    probe.scroll_into_view_if_needed()
    t1 = precomputed.t1_index
    expect(probe).to_have_attribute("data-index", str(t1), timeout=20_000)
    expect(probe).to_have_attribute("data-panel", "probe")
    dataset = probe.get_attribute("data-dataset")
    assert dataset and page.locator("#fit1").get_attribute("data-dataset") == dataset
    # its stylesheet came with it (manifest "style")
    assert probe.evaluate("node => getComputedStyle(node).outlineColor") == "rgb(1, 2, 3)"
    before = int(probe.get_attribute("data-renders"))
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(probe).to_have_attribute("data-index", str(t1 + 1))
    page.keyboard.press("PageUp")
    expect(probe).to_have_attribute("data-index", str(t1 + 11))
    assert int(probe.get_attribute("data-renders")) >= before + 2
    page.locator("#fit1-reset").click()
    expect(probe).to_have_attribute("data-index", str(t1))
    page.locator("#fit1-fit").click()
    expect(probe).to_have_attribute("data-index", str(precomputed.index_of(precomputed.datasets[dataset].fitted_t)))
    # its button sits in the explorer's button row
    expect(page.locator("#fit1 .button-row #fit1-probe-button")).to_have_count(1)
