"""The site as GitHub Pages serves a project site: under a sub-path, without dot-files.

The loopback server (sitegen.write.serve, ``prefix=``) serves the built site only under ``/calibration-tutorial/``
(anything else is a 404) and answers 404 for any path with a segment starting with a dot, since
upload-pages-artifact leaves such files out. It overrides ``site_url``, so ``open_page`` and its monitor
(any failed or 4xx request, or a request to another host, fails the test) work as in the other browser tests.
"""

import urllib.error
import urllib.request
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest

from sitegen.write.serve import serving

PREFIX = "/calibration-tutorial/"


@pytest.fixture(scope="module")
def site_url(site_dir):
    """The built site under the sub-path (overrides the conftest's site at the server root)."""
    with serving(site_dir, prefix=PREFIX) as url:
        yield url


def status(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


class References(HTMLParser):
    """Every href and src of a page."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        self.urls += [value for name, value in attrs if name in ("href", "src") and value]


def test_the_server_behaves_like_pages(site_url):
    root = site_url[: -len(PREFIX)]
    assert status(site_url) == 200
    assert status(root + "/index.html") == 404
    assert status(site_url + ".calib-tutorial-site") == 404


def test_nothing_the_site_needs_is_a_dot_file(site_dir):
    dotted = sorted(path.relative_to(site_dir).as_posix() for path in site_dir.rglob("*")
                    if any(part.startswith(".") for part in path.relative_to(site_dir).parts))
    # The writer's marker only guards site/ against replacing a folder the build did not write.
    assert dotted == [".calib-tutorial-site"], dotted


def test_every_link_of_the_page_resolves_under_the_sub_path(site_url, site_dir):
    parser = References()
    parser.feed((site_dir / "index.html").read_text(encoding="utf-8"))
    local = sorted({urljoin(site_url, url).split("#")[0] for url in parser.urls
                    if urlsplit(urljoin(site_url, url)).netloc == urlsplit(site_url).netloc})
    assert len(local) > 5, local
    outside = [url for url in local if not url.startswith(site_url)]
    assert outside == [], f"links that leave the sub-path: {outside}"
    broken = [(url, code) for url in local if (code := status(url)) != 200]
    assert broken == [], broken


def test_the_explorer_works_under_the_sub_path(open_page, site_url, expect):
    page = open_page()
    readout = page.locator("#ex1-t-readout")
    page.locator("#ex1").scroll_into_view_if_needed()
    before = readout.text_content()
    page.locator("#ex1-t").focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    expect(readout).not_to_have_text(before)
    nll = page.locator('#ex1 [data-metric="nll"] .value')
    shown = nll.text_content()
    # Another dataset is loaded on demand from data/<name>.js: it too must come from the sub-path.
    page.locator("#ex1-dataset").select_option("mixed")
    expect(nll).not_to_have_text(shown)
    requested = [url for url in page.monitor.requests if url.startswith("http")]
    assert any(url.endswith("/data/mixed.js") for url in requested), requested
    assert all(url.startswith(site_url) for url in requested), requested
