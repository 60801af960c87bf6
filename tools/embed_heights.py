#!/usr/bin/env python3
"""Measure every embed page's height and write it into the panel manifest's [widgets] table.

    .venv/bin/python tools/embed_heights.py                # builds the site into a temporary folder
    .venv/bin/python tools/embed_heights.py --site DIR     # measures an existing build
    .venv/bin/python tools/embed_heights.py --check        # prints the table, writes nothing

Each embed page (embed/<widget>.html, and es/embed/… for every language of sitegen.common.settings.LANGUAGES)
and each slimmer version of sitegen.common.settings.EMBED_PANEL_CHOICES (``#state/panels=…``, manifest key
``<widget>#panels=<value>``) is served on 127.0.0.1 and opened in Debian's Chromium (/usr/bin/chromium,
headless, Playwright) in a viewport as wide as each width of sitegen.common.settings.EMBED_MEASURED_WIDTHS
(320 px, the narrowest common course column: a 360 px phone less its page's padding; 720 px). After
the page's load event, its fonts and every explorer's dataset (and analyses, where it shows them), the
tool waits until the page's height has not changed for 500 ms and reads it: the root element's box
height, CSS pixels rounded up, which is the number the page posts to its host. Output: a Markdown
table (printed) and, unless --check, the [widgets] table of
templates/panels/manifest.toml, rewritten in place (the records above it are left as they are).
"""

import argparse
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sitegen.common.settings import EMBED_MEASURED_WIDTHS, EMBED_PANEL_CHOICES, LANGUAGES  # noqa: E402
from sitegen.embeds.heights import measured, panels_key  # noqa: E402
from sitegen.render.panels import MANIFEST  # noqa: E402
from sitegen.write.serve import serving  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
TABLE_MARK = "# Embeddable widgets"  # the comment that opens the generated part of the manifest

SETTLED = """async () => {
  await document.fonts.ready;
  const ready = () => Array.from(document.querySelectorAll('[data-component="explorer"]'))
    .every(root => root.explorer && root.explorer.state && root.explorer.state.model
      && (!root.explorer.options.analysis || root.explorer.analysis));  // and its analyses, where it shows them
  const height = () => Math.ceil(document.documentElement.getBoundingClientRect().height);
  const start = performance.now();
  while (!ready() && performance.now() - start < 15000) await new Promise(r => setTimeout(r, 50));
  let last = height(), since = performance.now();
  while (performance.now() - since < 500 && performance.now() - start < 20000) {
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)));
    const now = height();
    if (now !== last) { last = now; since = performance.now(); }
  }
  return last;
}"""


def measure(site):
    """``{lang: {widget: [height at each width]}}`` of the build in ``site``."""
    from playwright.sync_api import sync_playwright
    results = {}
    with serving(site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for lang, folder in LANGUAGES.items():
                prefix = f"{folder}/" if folder else ""
                names = sorted(p.stem for p in (Path(site) / prefix / "embed").glob("*.html"))
                pages = [(name, "") for name in names] + [
                    (panels_key(name, panels), f"#state/panels={panels}")
                    for name in names for panels in EMBED_PANEL_CHOICES.get(name, ())]
                for name, fragment in pages:
                    row = []
                    for width in EMBED_MEASURED_WIDTHS:
                        page = browser.new_page(viewport={"width": width, "height": 900})
                        page.goto(f"{url}{prefix}embed/{name.split('#')[0]}.html{fragment}", wait_until="load")
                        row.append(int(page.evaluate(SETTLED)))
                        page.close()
                    results.setdefault(lang, {})[name] = row
        finally:
            browser.close()
    return results


def manifest_table(results, chromium):
    widths = ", ".join(str(w) for w in EMBED_MEASURED_WIDTHS)
    lines = [
        f"{TABLE_MARK}: each one's height, measured by tools/embed_heights.py (do not edit by hand: run it again",
        f"# after changing a widget). <widget> = {{<lang> = [height at {widths} px wide]}}, CSS pixels, the page's",
        f"# content after its scripts and data, {chromium}, rounded up. The iframe snippet starts at",
        "# the first (sitegen.embeds.heights); a widget not listed starts at",
        "# sitegen.common.settings.EMBED_DEFAULT_HEIGHT.",
        "[widgets]",
    ]
    names = sorted({n for per_lang in results.values() for n in per_lang})
    for name in names:
        cells = ", ".join(f"{lang} = [{', '.join(str(h) for h in results[lang][name])}]"
                          for lang in LANGUAGES if name in results.get(lang, {}))
        key = f'"{name}"' if "#" in name else name  # a slimmer version's key is quoted
        lines.append(f"{key} = {{ {cells} }}")
    return "\n".join(lines) + "\n"


def markdown(results):
    head = "| widget | " + " | ".join(f"{lang} {w} px" for lang in LANGUAGES for w in EMBED_MEASURED_WIDTHS) + " |"
    rule = "|---|" + "---:|" * (len(LANGUAGES) * len(EMBED_MEASURED_WIDTHS))
    rows = [f"| {name} | " + " | ".join(str(h) for lang in LANGUAGES for h in results[lang][name]) + " |"
            for name in sorted(results[next(iter(LANGUAGES))])]
    return "\n".join([head, rule] + rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", help="an existing build to measure (default: build one into a temporary folder)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the manifest (exit 1 when a height is over 5% off), write nothing")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"embed_heights: {CHROMIUM} is missing (bash tools/setup.sh)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site = str(Path(tmp) / "site")
            subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", site], cwd=ROOT, check=True)
        elif not (Path(site) / "embed").is_dir():
            print(f"embed_heights: {site}: no embed/ folder (not a build of the site)", file=sys.stderr)
            return 2
        results = measure(site)
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip() or "Chromium"
    print(markdown(results))
    if args.check:
        off = []
        for lang, rows in results.items():
            for name, row in rows.items():
                stored = list(measured(ROOT, lang, name).values()) or [math.inf] * len(row)
                if any(abs(h - m) > 0.05 * m for h, m in zip(row, stored)):
                    off.append(f"{lang} {name}: manifest {stored}, measured {row}")
        print("\n".join(off))
        return 1 if off else 0
    path = ROOT / MANIFEST
    text = path.read_text(encoding="utf-8")
    at = text.find(TABLE_MARK)
    if at < 0:
        at = text.find("[widgets]")
    head = text[:at] if at >= 0 else text.rstrip("\n") + "\n\n"
    path.write_text(head + manifest_table(results, chromium), encoding="utf-8")
    print(f"wrote the [widgets] table of {MANIFEST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
