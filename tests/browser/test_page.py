"""The page as a whole: loads cleanly over http and file://, stays on the machine, works without
JavaScript, carries its metadata, uses relative URLs only, fits narrow screens, prints without
controls, honours reduced motion and shows where the keyboard focus is."""

import re
from html.parser import HTMLParser

import pytest

DATASETS = ["six", "twelve", "sim-60", "sim-600", "overconfident", "mixed", "digits-mlp"]


def test_loads_over_http_without_errors(shared_page, expect):
    page = shared_page()
    expect(page.locator("main")).to_be_visible()
    expect(page.locator("#ex1[data-component=explorer]")).to_be_attached()
    page.wait_for_load_state("networkidle")


def test_loads_from_file_url_without_errors(open_page, expect):
    page = open_page(file=True)
    assert page.url.startswith("file://")
    expect(page.locator("main")).to_be_visible()
    expect(page.locator("#ex1[data-component=explorer]")).to_be_attached()
    page.wait_for_timeout(300)  # let deferred scripts run: any error fails the test


def test_every_request_stays_on_this_machine(open_explorer):
    ex = open_explorer(wait="networkidle")
    page = ex.page
    for name in DATASETS[1:]:  # each dataset's payload loads on demand
        ex.choose(dataset=name)
        page.wait_for_load_state("networkidle")
    assert page.monitor.requests, "no request was recorded"
    assert page.monitor.external() == []
    loaded = [r for r in page.monitor.requests if "/data/" in r]
    assert loaded, "choosing other datasets loaded no data/<name>.js"


def test_without_javascript_prose_tables_and_figures_are_shown(open_page, site_dir):
    page = open_page(java_script_enabled=False)
    shown = page.evaluate("""() => {
        const visible = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
        const count = selector => Array.from(document.querySelectorAll(selector)).filter(visible).length;
        return {
            paragraphs: count('main p'),
            tables: count('main table'),
            tableRows: count('main table tbody tr'),
            figures: Array.from(document.querySelectorAll('main figure'))
                .filter(f => visible(f) && Array.from(f.querySelectorAll('img')).some(visible)).length,
            noscript: Array.from(document.querySelectorAll('noscript')).filter(visible).length
                + Array.from(document.querySelectorAll('noscript *')).filter(visible).length,
        };
    }""")
    assert shown["paragraphs"] >= 3, shown
    assert shown["tables"] >= 1 and shown["tableRows"] >= 1, f"no table shown without JavaScript: {shown}"
    assert shown["figures"] >= 1, f"no <figure> with an image shown without JavaScript: {shown}"
    assert "<noscript>" in (site_dir / "index.html").read_text(encoding="utf-8")
    assert shown["noscript"] >= 1, "the <noscript> note is not shown"


def test_metadata(shared_page):
    page = shared_page()
    assert page.title().strip()
    assert page.locator("html").get_attribute("lang") == "en"
    head = page.locator("head")

    def meta(selector):
        element = head.locator(selector)
        assert element.count() == 1, f"expected exactly one {selector}"
        content = (element.get_attribute("content") or "").strip()
        assert content, f"{selector} is empty"
        return content

    assert len(meta('meta[name="description"]')) >= 50
    assert meta('meta[name="viewport"]')
    for prop in ("og:title", "og:description", "og:type"):
        meta(f'meta[property="{prop}"]')
    for name in ("twitter:card", "twitter:title", "twitter:description"):
        meta(f'meta[name="{name}"]')
    icon = head.locator('link[rel~="icon"]')
    assert icon.count() >= 1
    href = icon.first.get_attribute("href")
    response = page.request.get(page.url.split("#")[0].rsplit("/", 1)[0] + "/" + href)
    assert response.status == 200, f"favicon {href}: HTTP {response.status}"
    assert response.body().lstrip().startswith(b"<svg") or b"<svg" in response.body()[:200]


URL_ATTRIBUTES = {"href", "src", "xlink:href", "action", "formaction", "poster", "data", "cite",
                  "manifest", "background", "longdesc", "ping"}


class _UrlCollector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls = []
        self._meta_urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            if value is None:
                continue
            if name in URL_ATTRIBUTES:
                self.urls.append((tag, name, value.strip()))
            elif name in ("srcset", "imagesrcset"):
                self.urls += [(tag, name, part.strip().split()[0]) for part in value.split(",") if part.strip()]
            elif name == "style":
                self.urls += [(tag, "style", u) for u in re.findall(r"url\(\s*['\"]?([^'\")]+)", value)]
        if tag == "meta" and re.search(r"(image|url)$", attrs.get("property") or attrs.get("name") or ""):
            self.urls.append((tag, "content", (attrs.get("content") or "").strip()))


# Links a reader may follow to the cited works (never loaded by the page): a DOI, an arXiv page, scikit-learn's guide.
CITATION_LINK = re.compile(r"https://(doi\.org/10\.[^\s\"'<>]+|arxiv\.org/abs/\d{4}\.\d{5}|scikit-learn\.org/stable/[\w./-]+)")


def test_every_url_in_the_html_is_relative(site_dir):
    """Everything the page loads is relative; the only absolute URLs are citation links (<a href>) to the sources."""
    html = (site_dir / "index.html").read_text(encoding="utf-8")
    collector = _UrlCollector()
    collector.feed(html)
    css_urls = re.findall(r"url\(\s*['\"]?([^'\")]+)", "".join(re.findall(r"<style[^>]*>(.*?)</style>", html, re.S)))
    urls = collector.urls + [("style", "url()", u) for u in css_urls]
    def absolute(url):
        has_scheme = re.match(r"[a-z][a-z0-9+.-]*:", url, re.I) and not url.lower().startswith("data:")
        return url.startswith("/") or bool(has_scheme) or "http" in url.lower()

    citations = [url for tag, attr, url in urls if tag == "a" and attr == "href" and CITATION_LINK.fullmatch(url)]
    bad = [(tag, attr, url) for tag, attr, url in urls if absolute(url) and url not in citations]
    assert bad == [], f"absolute URLs in index.html: {bad}"
    assert len(citations) >= 25, "the sources section should link every cited work"
    without_links = re.sub(r"<a\s+href=\"https://[^\"]*\"", "<a", html)
    assert not re.search(r"""(?:href|src)\s*=\s*["']?\s*(?:https?:|//)""", without_links, re.I)


def test_no_output_path_starts_with_underscore(site_dir):
    offenders = [str(p.relative_to(site_dir)) for p in site_dir.rglob("*")
                 if any(part.startswith("_") for part in p.relative_to(site_dir).parts)]
    assert offenders == []
    assert (site_dir / "index.html").is_file() and (site_dir / "favicon.svg").is_file()
    expected = [f"{n}.js" for n in DATASETS] + [f"{n}-analysis.js" for n in DATASETS]
    parts = {n: ["all"] if n in ("six", "twelve") else ["calibration", "test"] for n in DATASETS}
    expected += [f"{n}-{part}-bins.js" for n in DATASETS for part in parts[n]] + ["mixed-groups.js"]
    # the other calibrators' scores, loaded when the explorer's Calibrator picker is first used: every dataset
    # with calibration and test rows
    expected += [f"{n}-methods.js" for n in DATASETS if parts[n] != ["all"]]
    # the deep dives' widget markup (sitegen/render/deferred.py)
    expected += [f"markup-{lang}.js" for lang in ("en", "es")]
    assert (site_dir / "app.js").is_file() and (site_dir / "widgets.js").is_file()
    assert sorted(p.name for p in (site_dir / "data").glob("*.js")) == sorted(expected)
    assert list((site_dir / "downloads").glob("*.csv"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [320, 390])
def test_no_horizontal_scrolling_on_narrow_screens(open_page, width, scheme):
    page = open_page(viewport={"width": width, "height": 800}, color_scheme=scheme)
    page.wait_for_load_state("networkidle")
    sizes = page.evaluate("({scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth})")
    if sizes["scroll"] > sizes["inner"]:
        wide = page.evaluate("""(inner) => Array.from(document.querySelectorAll('body *'))
            .filter(e => e.getBoundingClientRect().right > inner + 0.5)
            .filter(e => !e.parentElement || e.parentElement.getBoundingClientRect().right <= inner + 0.5)
            .slice(0, 8).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
              + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '')
              + ' right=' + Math.round(e.getBoundingClientRect().right))""", sizes["inner"])
        pytest.fail(f"scrollWidth {sizes['scroll']} > innerWidth {sizes['inner']} at {width} px ({scheme}); "
                    f"widest offenders: {wide}")


def test_print_hides_the_controls(open_page, expect):
    page = open_page()
    page.emulate_media(media="print")
    # An explorer that stands for a static figure prints its figures (see the next test), never its controls.
    report = page.evaluate("""() => ({
        noPrint: Array.from(document.querySelectorAll('.no-print'))
            .filter(e => !(e.matches('.explorer') && e.parentElement.querySelector(':scope > .static-only')))
            .map(e => [e.tagName + (e.id ? '#' + e.id : ''), getComputedStyle(e).display]),
        shownControls: Array.from(document.querySelectorAll('main input, main select, main button'))
            .filter(e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden')
            .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')),
    })""")
    assert report["noPrint"], "no element has class no-print"
    assert [e for e, display in report["noPrint"] if display != "none"] == []
    assert report["shownControls"] == [], "controls still rendered under print media"
    expect(page.locator("main p").first).to_be_visible()


# --------------------------------------------------------------------------- the static figures

def static_figure_alts(edition_strings, lang):
    text = edition_strings[lang]["figures"]
    return {"curves": text["curves_alt"], "reliability-t1": text["reliability_t1_alt"],
            "reliability-fitted": text["reliability_fitted_alt"]}


@pytest.mark.every_language
def test_without_javascript_each_static_figure_is_its_languages_image(open_page, lang, edition_strings, expect):
    page = open_page(lang=lang, java_script_enabled=False)
    expected = static_figure_alts(edition_strings, lang)
    images = page.locator(".static-figure img")
    expect(images).to_have_count(len(expected))
    found = {}
    for index in range(images.count()):
        image = images.nth(index)
        image.scroll_into_view_if_needed()
        expect(image).to_be_visible()
        page.wait_for_function("img => img.complete", arg=image.element_handle())
        width, src, alt = image.evaluate("img => [img.naturalWidth, img.currentSrc, img.alt]")
        name = re.search(rf"/figures/([a-z0-9-]+)\.{lang}\.svg$", src)
        assert name and width > 0, (src, width)
        found[name.group(1)] = alt
    assert found == expected


@pytest.mark.every_language
def test_without_javascript_the_figures_load_from_disk_too(open_page, lang):
    page = open_page(lang=lang, file=True, java_script_enabled=False)
    widths = page.eval_on_selector_all(".static-figure img", "images => Promise.all(images.map(img => "
                                       "img.decode().then(() => img.naturalWidth, () => 0)))")
    assert widths and all(width > 0 for width in widths), widths


def test_with_javascript_no_static_figure_is_requested(open_page, lang, expect):
    page = open_page(lang=lang, wait="networkidle")
    for selector in ("#fit1", "#rel1"):  # scroll past both widgets that stand for a static figure
        page.locator(selector).scroll_into_view_if_needed()
    expect(page.locator("#rel1-reliability svg")).to_be_attached()
    page.wait_for_load_state("networkidle")
    assert page.monitor.requests, "no request was recorded"
    assert [url for url in page.monitor.requests if "/figures/" in url] == []


def test_printing_with_javascript_shows_the_widgets_figures_where_the_static_ones_stand(open_page, expect):
    page = open_page(wait="networkidle")
    for selector in ("#fit1", "#rel1"):
        page.locator(selector).scroll_into_view_if_needed()
        expect(page.locator(f"{selector} .panel svg").first).to_be_attached()
    page.emulate_media(media="print")
    for selector in ("#fit1-curves svg", "#rel1-reliability svg"):
        expect(page.locator(selector).first).to_be_visible()
    for selector in ("#fit1 .slider-row", "#rel1 .control-row", ".static-only"):
        expect(page.locator(selector).first).to_be_hidden()


def test_reduced_motion_is_honoured(open_explorer):
    ex = open_explorer(reduced_motion="reduce")
    ex.choose(dataset="twelve")
    moving = ex.page.evaluate("""() => {
        const seconds = v => v.split(',').map(s => parseFloat(s) * (s.trim().endsWith('ms') ? 0.001 : 1));
        const out = [];
        for (const e of document.querySelectorAll('*')) {
            for (const pseudo of [null, '::before', '::after']) {
                const s = getComputedStyle(e, pseudo);
                const transition = seconds(s.transitionDuration).some(d => d > 0)
                    && s.transitionProperty !== 'none';
                const animation = s.animationName !== 'none' && seconds(s.animationDuration).some(d => d > 0);
                if (transition || animation) out.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
                    + (pseudo || '') + ' transition=' + s.transitionDuration + ' animation=' + s.animationName);
            }
        }
        if (getComputedStyle(document.documentElement).scrollBehavior === 'smooth') {
            out.push('html scroll-behavior: smooth');
        }
        return out.slice(0, 20);
    }""")
    assert moving == [], f"motion under prefers-reduced-motion: reduce: {moving}"


def test_focus_is_visible_on_every_tab_stop(open_page):
    page = open_page()
    seen, names, invisible = set(), [], []
    for _ in range(200):
        page.keyboard.press("Tab")
        # two frames, as between a person's key presses: a widget that focus brought near the viewport is
        # built by its observer before the next press (a loaded CI machine tabbed past ex1 before it was)
        info = page.evaluate("""async () => {
            await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
            const e = document.activeElement;
            if (!e || e === document.body || e === document.documentElement) return null;
            const s = getComputedStyle(e);
            return {
                key: Array.prototype.indexOf.call(document.getElementsByTagName('*'), e),
                name: e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.name ? '[name=' + e.name + ']' : '')
                    + (e.type === 'radio' ? '[value=' + e.value + ']' : '')
                    + (e.getAttribute('href') ? '[href=' + e.getAttribute('href') + ']' : ''),
                outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0,
                shadow: s.boxShadow !== 'none',
            };
        }""")
        if info is None or info["key"] in seen:
            if seen:
                break  # wrapped around
            continue
        seen.add(info["key"])
        names.append(info["name"])
        if not (info["outline"] or info["shadow"]):
            invisible.append(info["name"])
    controls = [n for n in names if n.startswith(("input", "select", "button"))]
    assert {"input#ex1-t", "select#ex1-dataset", "button#ex1-fit"} <= {n.split("[")[0] for n in controls}, (
        f"Tab did not reach the explorer's controls (reached: {names})")
    assert invisible == [], f"no visible focus indicator on: {invisible}"


def test_a_shared_page_charges_a_test_only_with_the_problems_seen_while_it_ran():
    """``shared_page`` (conftest.py): a page read by several tests fails the test during which its monitor saw a
    problem, not the tests before or after it."""
    from .conftest import PageMonitor, _MonitorSince

    monitor = PageMonitor()
    monitor.add("console error: before")
    during = _MonitorSince(monitor)
    monitor.allow("provoked")
    monitor.add("console error: during")
    monitor.add("request failed: provoked on purpose")
    after = _MonitorSince(monitor)
    assert during.problems == ["console error: during", "request failed: provoked on purpose"]
    assert during.unexpected() == ["console error: during"]
    assert after.problems == [] and after.unexpected() == []
