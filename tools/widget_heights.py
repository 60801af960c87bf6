#!/usr/bin/env python3
"""Measure the page's widgets (outside closed deep dives) at several widths: the height each reserves
before it is built (sitegen/render/reserve.py), so the page does not grow as the reader scrolls.

    .venv/bin/python tools/widget_heights.py                # builds the site into a temporary folder
    .venv/bin/python tools/widget_heights.py --site DIR     # measures an existing build
    .venv/bin/python tools/widget_heights.py --check        # prints the table, writes nothing

A widget waits in a <template> until it nears the viewport (static/js/main.js): until then it is an empty
box. Each language's page is opened in Debian's Chromium (headless, Playwright) at each viewport width of
sitegen.render.reserve.WIDTHS; every widget outside a closed <details> is started, and once its data (and analyses)
have arrived and the page's height has not changed for 500 ms, its box's height is read (CSS pixels, rounded
up). Output: templates/widget-heights.toml, ``[<lang>] <widget id> = [height at each width]``. A test
(tests/browser/test_design.py) fails when the page grows by more than 2% while scrolled: run this again after
changing a widget, its prose neighbours' layout or the stylesheet.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sitegen.common.settings import LANGUAGES  # noqa: E402
from sitegen.render.reserve import HEIGHTS_FILE, WIDTHS, write_heights  # noqa: E402
from sitegen.write.serve import serving  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]

SETTLED = """async () => {
  await document.fonts.ready;
  const roots = Array.from(document.querySelectorAll('[data-component="explorer"]'))
    .filter(root => !root.closest('details:not([open])'));
  roots.forEach(root => root.dispatchEvent(new FocusEvent('focusin')));
  const ready = () => roots.every(root => root.explorer && root.explorer.state && root.explorer.state.model
      && (!root.explorer.options.analysis || root.explorer.analysis));
  const heights = () => roots.map(root => Math.ceil(root.getBoundingClientRect().height));
  const start = performance.now();
  while (!ready() && performance.now() - start < 20000) await new Promise(r => setTimeout(r, 50));
  let last = JSON.stringify(heights()), since = performance.now();
  while (performance.now() - since < 500 && performance.now() - start < 30000) {
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)));
    const now = JSON.stringify(heights());
    if (now !== last) { last = now; since = performance.now(); }
  }
  return Object.fromEntries(roots.map((root, i) => [root.id, heights()[i]]));
}"""


def measure(site):
    """``{lang: {widget id: [height at each width]}}`` of the build in ``site``."""
    from playwright.sync_api import sync_playwright
    results = {}
    with serving(site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for lang, folder in LANGUAGES.items():
                prefix = f"{folder}/" if folder else ""
                for width in WIDTHS:
                    page = browser.new_page(viewport={"width": width, "height": 900})
                    page.goto(f"{url}{prefix}", wait_until="load")
                    for name, height in page.evaluate(SETTLED).items():
                        results.setdefault(lang, {}).setdefault(name, []).append(int(height))
                    page.close()
        finally:
            browser.close()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", help="an existing build to measure (default: build one)")
    parser.add_argument("--check", action="store_true", help="print the heights, write nothing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        site = args.site
        if site is None:
            site = Path(temporary) / "site"
            subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(site)], check=True)
        results = measure(site)
    for lang, widgets in results.items():
        for name, heights in widgets.items():
            print(f"{lang} {name:6} " + " ".join(f"{w}:{h}" for w, h in zip(WIDTHS, heights)))
    if not args.check:
        write_heights(ROOT, results)
        print(f"wrote {HEIGHTS_FILE}")


if __name__ == "__main__":
    main()
