"""sitegen/render/panels.py and templates/panels/manifest.toml: the explorer's panel list, its markup, the
order of the scripts and stylesheets and the views' registration all follow from the manifest, so a
new panel is one manifest record, one markup template and one view file (docs/panels.md).

The last tests add a throwaway panel to a private copy of ``templates/`` and ``static/`` (nothing
else changes: no edit to explorer.js, _explorer.html.j2, order.txt or settings.py) and check that
the page stage places its markup, ships its script and stylesheet, and that the script registers
itself; tests/browser/test_panel_recipe.py watches it follow the slider in a browser.
"""

import re
import shutil
from pathlib import Path

import pytest

from sitegen.common.errors import BuildError
from sitegen.render.assets import WIDGETS_MARK
from sitegen.render.panels import MANIFEST, PANELS_MARK, expand_order, load_manifest, template_globals, widget_heights

ROOT = Path(__file__).resolve().parents[1]
REGISTERS = re.compile(r'CT\.explorerView\("([\w-]+)"')

PROBE_RECORD = """
[[panel]]
name = "probe"
markup = { body = "panels/probe.html.j2", buttons = "panels/probe-button.html.j2" }
reads = ["index"]
script = "probe.js"
style = "probe.css"
"""
PROBE_MARKUP = '<p class="probe" id="{{ id }}-probe">{{ ui.temperature }}</p>\n'
PROBE_BUTTON = '<button type="button" id="{{ id }}-probe-button">{{ ui.button_t1 }}</button>\n'
PROBE_SCRIPT = """/* probe.js — a throwaway panel of the tests: it prints the grid index and dataset it was handed. */
(function (CT) {
  "use strict";
  CT.explorerView("probe", function (x) {
    var node = x.$("probe"), renders = 0;
    return node && {
      watch: node,
      config: function (state, data) { node.setAttribute("data-dataset", data.model.name); },
      render: function (state) {
        renders += 1;
        node.setAttribute("data-renders", renders);
        CT.setAttrs(node, { "data-index": state.index });
      }
    };
  });
})(window.CalibTutorial);
"""
PROBE_STYLE = ".probe { outline: 3px solid rgb(1, 2, 3); }\n"


def registered(script):
    return REGISTERS.findall((ROOT / "static" / "js" / script).read_text(encoding="utf-8"))


def test_the_macro_knows_exactly_the_manifest_panels_in_its_order():
    entries, _ = load_manifest(ROOT)
    names = template_globals(ROOT / "templates")["explorer_panels"]
    assert list(names) == [e.name for e in entries]
    text = (ROOT / MANIFEST).read_text(encoding="utf-8")
    assert [m for m in re.findall(r'^name = "([\w-]+)"', text, re.M)] == list(names)
    # no panel name is typed in the explorer macro
    macro = (ROOT / "templates" / "components" / "_explorer.html.j2").read_text(encoding="utf-8")
    assert not [n for n in names if f'"{n}"' in macro]


def test_every_record_points_at_files_that_exist_and_its_view_registers_itself():
    entries, _ = load_manifest(ROOT)
    for e in entries:
        for slot, template in e.markup.items():
            assert (ROOT / "templates" / template).is_file(), (e.name, slot, template)
        if e.style:
            assert (ROOT / "static" / "css" / e.style).is_file(), e.name
        assert e.script and (ROOT / "static" / "js" / e.script).is_file(), e.name
        # the view registers under the record's name, or under a record sharing its markup (a variant)
        sharing = {o.name for o in entries if o.markup == e.markup}
        assert set(registered(e.script)) & sharing, (e.name, e.script)


def test_every_registered_view_is_a_manifest_record():
    entries, _ = load_manifest(ROOT)
    names = {e.name for e in entries}
    for path in (ROOT / "static" / "js").glob("*.js"):
        assert set(registered(path.name)) <= names, path.name


def test_variants_share_one_markup_and_slots_come_in_manifest_order():
    markup = template_globals(ROOT / "templates")["explorer_markup"]
    assert markup(("cards", "cards-basic"), "body") == ["panels/cards.html.j2"]
    assert markup(("reliability", "curves", "cards-basic"), "body") == [
        "panels/cards.html.j2", "panels/curves.html.j2", "panels/reliability.html.j2"]
    assert markup(("compare",), "buttons") == ["panels/pin-button.html.j2"]
    assert markup(("overlays",), "body") == [] and markup(("overlays",), "bin-controls") == ["panels/overlays.html.j2"]


def test_the_group_radios_and_the_sliders_ece_follow_what_panels_read_and_print():
    names = template_globals(ROOT / "templates")
    assert names["panels_reading"](("sweep", "uncertainty", "bars"), "group") == []
    assert names["panels_reading"](("sweep", "curves"), "group") == ["curves"]
    assert names["panels_printing_ece"](("cards-basic",), False)
    assert not names["panels_printing_ece"](("reliability",), False)
    assert names["panels_printing_ece"](("reliability",), True)


def test_the_script_order_puts_the_views_where_order_txt_says_panels():
    entries, _ = load_manifest(ROOT)
    listed = [line.strip() for line in (ROOT / "static" / "js" / "order.txt").read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.startswith("#")]
    order = expand_order(ROOT, "js", listed)
    at = listed.index(PANELS_MARK)
    views = list(dict.fromkeys(e.script for e in entries))
    assert order == listed[:at] + views + listed[at + 1:]
    # the views ship in widgets.js (after order.txt's <widgets> line), after the explorer they extend
    assert listed.index(WIDGETS_MARK) < order.index("explorer.js") < order.index(views[0])


def test_the_widget_heights_are_the_manifests():
    from sitegen.common.settings import EMBED_MEASURED_WIDTHS, LANGUAGES
    heights = widget_heights(ROOT)
    for lang in LANGUAGES:
        narrow, wide = heights["explorer"][lang][0], heights["explorer"][lang][-1]
        assert narrow > wide > heights["softmax-demo"][lang][-1] > 0  # a narrower column makes a taller widget
        assert len(heights["softmax-demo"][lang]) == len(EMBED_MEASURED_WIDTHS)


# --- a manifest that is wrong stops the build in one line naming it --------------------------

def copy_front_end(tmp_path):
    root = tmp_path / "root"
    for name in ("templates", "static"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.mark.parametrize("record, message", [
    ('[[panel]]\nname = "x"\nmarkup = { side = "panels/x.html.j2" }\n', "panel x: unknown slot 'side'"),
    ('[[panel]]\nname = "x"\ncolour = "red"\n', "unknown field 'colour'"),
    ('[[panel]]\nname = "curves"\n', "panel curves is declared twice"),
    ('[[panel]]\nname = "x"\nkind = "widget"\n', "panel x: kind must be one of panel, control"),
    ('[[panel]]\nname = "x"\nprints_ece = "sometimes"\n', "panel x: prints_ece must be one of always, offered"),
    ('[[panel]\nname = "x"\n', "manifest.toml: "),
])
def test_a_malformed_manifest_names_the_file_and_the_problem(tmp_path, record, message):
    root = copy_front_end(tmp_path)
    manifest = root / MANIFEST
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("\n[widgets]", "\n" + record + "\n[widgets]"), encoding="utf-8")
    with pytest.raises(BuildError) as raised:
        load_manifest(root)
    assert str(manifest) in str(raised.value) and message in str(raised.value)
    assert "\n" not in str(raised.value)


# --- the recipe: one record, its markup and its view, and nothing else ------------------------

def add_probe(root):
    """The throwaway panel "probe": a manifest record, two markup templates, one view and one stylesheet,
    used by the nll-curve widget. Returns the files the recipe touched."""
    manifest = root / MANIFEST
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("\n[widgets]", PROBE_RECORD + "\n[widgets]"), encoding="utf-8")
    (root / "templates" / "panels" / "probe.html.j2").write_text(PROBE_MARKUP, encoding="utf-8")
    (root / "templates" / "panels" / "probe-button.html.j2").write_text(PROBE_BUTTON, encoding="utf-8")
    (root / "static" / "js" / "probe.js").write_text(PROBE_SCRIPT, encoding="utf-8")
    (root / "static" / "css" / "probe.css").write_text(PROBE_STYLE, encoding="utf-8")
    component = root / "templates" / "components" / "nll-curve.html.j2"
    text = component.read_text(encoding="utf-8")
    assert text.count('panels=("cards-basic", "curves")') == 1
    component.write_text(text.replace('panels=("cards-basic", "curves")', 'panels=("cards-basic", "curves", "probe")'),
                         encoding="utf-8")


def test_a_new_panel_needs_only_its_record_markup_and_view(tmp_path, precomputed):
    from test_sitegen_page import assemble

    root = copy_front_end(tmp_path)
    shutil.copytree(ROOT / "content", root / "content")
    add_probe(root)
    for untouched in ("static/js/explorer.js", "static/js/order.txt", "templates/components/_explorer.html.j2"):
        assert (root / untouched).read_bytes() == (ROOT / untouched).read_bytes()
    files = assemble(root, precomputed)
    page, script, first = files["index.html"], files["widgets.js"], files["app.js"]
    explorer = page[page.index('id="fit1"'):]
    explorer = explorer.split('<div class="explorer-wrap')[0]
    # the body markup after the curves (manifest order), the button in the button row, and only in fit1
    assert explorer.index('id="fit1-curves"') < explorer.index('id="fit1-probe"')
    buttons = explorer[explorer.index('<div class="button-row">'):]
    assert buttons.index('id="fit1-fit"') < buttons.index('id="fit1-probe-button"') < buttons.index("</div>")
    assert page.count('class="probe"') == 1
    # the view ships in widgets.js after the explorer and the other views (app.js, with main.js, has none);
    # its stylesheet is inlined
    assert 'CT.explorerView("probe"' in script and "CT.explorerView(" not in first and "startExplorers" in first
    at = script.index('CT.explorerView("probe"')
    assert script.index("function Explorer(") < script.index('CT.explorerView("reliability"') < at
    assert ".probe{outline:3pxsolidrgb(1,2,3)" in re.sub(r"\s+", "", page)
