"""One-file editions published with the site (sitegen/assemble/one_file.py, ``build.py --one-file-editions``):
which datasets a widget's file carries, the size cap, and the downloads section linking exactly the files
a build wrote (none in a build without the option: tests/test_content.py checks the session's site)."""

import gzip
import hashlib
import re
from pathlib import Path

import pytest

from sitegen.assemble import one_file
from sitegen.common.numbers import number_filters
from sitegen.common.settings import ONE_FILE_WIDGET_MAX_GZIP
from sitegen.content.sections import load_strings
from sitegen.embeds.pages import Widget
from sitegen.render.templating import render_template, template_environment

ROOT = Path(__file__).resolve().parents[1]


def widget(name, title="A title"):
    return Widget(name=name, section="s", title=title, path=f"embed/{name}.html", src=f"embed/{name}.html",
                  height=500, oembed="https://example.org/embed/x.oembed.json")


def test_a_widget_carries_the_datasets_its_markup_can_show():
    markup = ('<div data-component="explorer" data-dataset="six"><select id="a-dataset">'
              '<option value="sim-60">S</option><option value="mixed" selected>M</option></select>'
              '<select id="a-example"><option value="twelve:3">row</option></select>'
              '<select id="a-bins"><option value="15">15</option></select><input value="adaptive"></div>')
    assert one_file.widget_datasets(markup, ["six", "twelve", "sim-60", "mixed", "overconfident"]) == [
        "mixed", "sim-60", "six", "twelve"]


@pytest.fixture
def fake_embed(monkeypatch):
    """render_embed replaced: the page is its widget's markup, then the inlined scripts, padded to a size."""
    calls = []

    def render(env, shared, w, strings_json, css, embed_script, inline_scripts=None, full_page=None,
               favicon_href=None):
        calls.append({"oembed": w.oembed, "full_page": full_page, "icon": favicon_href})
        return '<div data-dataset="six"></div>' + str(inline_scripts or "") + "x" * shared["pad"]
    monkeypatch.setattr(one_file, "render_embed", render)
    return calls


def make(pad, calls):
    data = {"data/six.js": "SIX", "data/six-analysis.js": "SIXA", "data/six-all-bins.js": "BINS",
            "data/mixed.js": "MIXED"}
    return one_file.widget_one_file(None, {"datasets": {"six": 0, "mixed": 0}, "pad": pad}, widget("w"), "{}", "",
                                    "", "APP", data, "https://example.org/index.html", "data:,")


def test_a_widget_file_inlines_app_js_and_its_datasets_only(fake_embed):
    page = make(0, fake_embed)
    assert "APP" in page and "SIX" in page and "SIXA" in page
    assert "BINS" not in page and "MIXED" not in page  # no bins files, no dataset it cannot show
    assert fake_embed[-1] == {"oembed": None, "full_page": "https://example.org/index.html", "icon": "data:,"}


def test_a_widget_file_over_the_gzip_cap_is_not_written(fake_embed, monkeypatch):
    noise = "".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(10_000))  # compresses about 2:1
    monkeypatch.setattr(one_file, "render_embed", lambda env, shared, *args, **kwargs: noise[:shared["pad"]])
    small, big = 100_000, len(noise)
    assert len(gzip.compress(noise[:small].encode(), mtime=0)) < ONE_FILE_WIDGET_MAX_GZIP
    assert len(gzip.compress(noise.encode(), mtime=0)) >= ONE_FILE_WIDGET_MAX_GZIP
    assert make(small, fake_embed) == noise[:small]
    assert make(big, fake_embed) is None


def test_the_downloads_link_exactly_the_one_files_present():
    files = {"one-file/tutorial-es.html": "é" * 1500, "one-file/b-es.html": "x" * 1000, "one-file/a-en.html": "x"}
    widgets = [widget("a", "Alpha"), widget("b", "Beta")]
    links = one_file.one_file_links(files, "es", widgets, "../")
    assert links == [{"href": "../one-file/tutorial-es.html", "name": None, "kb": 3},  # 3,000 bytes of UTF-8
                     {"href": "../one-file/b-es.html", "name": "Beta", "kb": 1}]
    assert one_file.one_file_links({}, "es", widgets, "../") == []


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_downloads_section_lists_the_links_it_is_given_and_nothing_without(lang):
    strings = load_strings(ROOT / "content" / lang)
    env = template_environment(ROOT / "templates")
    env.filters.update(number_filters(strings["format"]))
    context = {"t": strings, "core": {"datasets": []}, "extra_datasets": (), "downloads_root": ""}
    without = render_template(env, "components/downloads.html.j2", dict(context, one_files=[]))
    assert "one-file" not in without and strings["downloads"]["one_file_intro"] not in without
    links = [{"href": "one-file/tutorial-en.html", "name": None, "kb": 2837},
             {"href": "one-file/w-en.html", "name": "Widget", "kb": 60}]
    shown = render_template(env, "components/downloads.html.j2", dict(context, one_files=links))
    assert shown.count("<li>") == 2 and 'href="one-file/w-en.html" download' in shown
    assert strings["downloads"]["one_file_tutorial"] in shown and "Widget" in shown
    assert "2,837" in shown or "2837" in shown or "2 837" in shown or "2.837" in shown


@pytest.mark.parametrize("full_page", [None, "https://example.org/index.html"])
def test_a_widget_file_links_the_full_tutorial_only_at_an_absolute_address(full_page):
    """A downloaded widget has no site beside it: with a base URL its link is absolute, without one the
    link is left out (a relative ``../index.html`` would lead nowhere)."""
    strings = load_strings(ROOT / "content" / "en")
    env = template_environment(ROOT / "templates")
    page = render_template(env, "embed.html.j2", {
        "t": strings, "lang": "en", "site_root": "", "widget": widget("w"), "widget_html": "", "strings_json": "{}",
        "inline_css": "", "embed_script": "", "inline_scripts": "<script></script>", "full_page": full_page,
        "favicon_href": "data:,", "explorer_id": "ex1", "main_explorer": False})
    assert (strings["embed"]["open_full"] in page) == (full_page is not None)
    links = re.findall(r'<a href="([^"]*)"[^>]*data-full-tutorial', page)
    assert links == ([] if full_page is None else [full_page + "#s"]), links
