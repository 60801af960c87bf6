#!/usr/bin/env python3
"""Page benchmark: what a first view costs and how fast the explorer answers. Prints figures only.

    python3 bench/page.py                  # builds the site into a temporary folder, then measures
    python3 bench/page.py --site site      # measures an existing build
    python3 bench/page.py --no-lighthouse  # skips the Lighthouse runs (about a minute each)

Figures, all against the site served on 127.0.0.1 (nothing leaves the machine):

1. First-view transfer of each language's page (sitegen.settings.LANGUAGES: index.html, es/index.html):
   every response until the network is idle, each body gzip-compressed with Python's gzip at
   level 6 (what a static host serving gzip would send), summed. The on-demand dataset scripts,
   shared by every language, are listed too, and each page's view without JavaScript (no app.js; the
   static figures, figures/<name>.<lang>.svg, load instead: they must not count in the first view).
   Then each embed page (embed/<widget>.html, es/embed/…) the same way, counting only what comes
   before its data: the page, app.js and the favicon (budget: 60 KB gzip), with its data listed apart.
2. Slider responsiveness on each language's page, per keyboard step (ArrowRight/ArrowLeft on the
   temperature slider):
   * the explorer's own timings, ``window.CalibTutorial.perf`` (start of its input handler to
     the end of its DOM update), when the page exposes them;
   * an injected harness: keydown (capture, first listener) to a document-level ``input``
     listener that runs after the explorer's and forces a layout;
   * Event Timing API durations (PerformanceObserver, type "event", durationThreshold 16 ms,
     which also covers rendering up to the next paint), as a p95 over all steps.
   Also each language's element count at load (a 412 × 823 phone viewport, network idle): the elements
   outside closed <details>, and how many of them are MathML.
3. Lighthouse 12.2.3 (node_modules), mobile preset: the median over runs (``--runs``, default 5) of each
   category score and of the paint metrics (FCP, LCP, TBT, Speed Index, CLS); the first run also prints
   the LCP element, Lighthouse's own breakdown of LCP into phases, and the main thread's work by kind.

Last, the targets of issue 26 against these figures (first view ≤ 110,000 bytes gzip per language, ≤ 1,800
elements outside closed <details>, TBT ≤ 150 ms and Lighthouse performance ≥ 98 as medians with their range, the
explorer's own slider timings median ≤ 4 ms and p95 ≤ 10 ms), each met or missed, with the machine's load average
(figures on a busy machine are indicative).

Needs what ``bash tools/setup.sh`` installs (Playwright, /usr/bin/chromium, node_modules).
"""

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sitegen.serve import serving  # noqa: E402  (after the path set-up above)
from sitegen.settings import LANGUAGES  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
# audit id -> (label, unit): the paint metrics printed per run and as a median
METRICS = {"first-contentful-paint": ("FCP", "ms"), "largest-contentful-paint": ("LCP", "ms"),
           "total-blocking-time": ("TBT", "ms"), "speed-index": ("SI", "ms"),
           "cumulative-layout-shift": ("CLS", "")}

# Installed before any page script: the Event Timing observer and the keydown→input harness.
HARNESS = """
(() => {
  const bench = window.__bench = {events: [], steps: [], t0: null};
  try {
    new PerformanceObserver(list => {
      for (const e of list.getEntries()) {
        bench.events.push({name: e.name, duration: e.duration, id: e.interactionId || 0, start: e.startTime});
      }
    }).observe({type: 'event', durationThreshold: 16, buffered: true});
    bench.eventTiming = true;
  } catch (error) {
    bench.eventTiming = false;
  }
  window.addEventListener('keydown', () => { bench.t0 = performance.now(); }, true);
  const finish = () => {
    if (bench.t0 === null) return;
    document.body.getBoundingClientRect();       // force style and layout
    void document.body.offsetHeight;
    bench.steps.push(performance.now() - bench.t0);
    bench.t0 = null;
  };
  // Added after load, so it runs after the explorer's own input listener(s) on the slider
  // and, bubbling, after any delegated listener below the document.
  window.addEventListener('load', () => document.addEventListener('input', finish));
})();
"""


def percentile(values, q):
    """The q-th percentile (0–100) by linear interpolation; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def build_site(out):
    started = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(out)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - started


def kib(n):
    return f"{n / 1024:9.1f} KiB"


def first_view(browser, url, site, path="", javascript=True):
    """Responses of a first view of the page at ``path`` (e.g. "es/") until network idle, with
    JavaScript on or off: [(path, raw bytes, gzip bytes)]."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=javascript)
    page = context.new_page()
    responses = []
    page.on("response", lambda response: responses.append(response))
    page.goto(url + path, wait_until="networkidle")
    rows = []
    for response in responses:
        try:
            body = response.body()
        except Exception:  # a redirect or an aborted response has no body
            body = b""
        name = response.url[len(url):] or "index.html"
        rows.append((name, response.status, len(body), len(gzip.compress(body, compresslevel=6))))
    context.close()
    on_demand = sorted((f"data/{p.name}", p.stat().st_size, len(gzip.compress(p.read_bytes(), 6)))
                       for p in (site / "data").glob("*.js"))
    return rows, on_demand


def embed_first_views(browser, url, site):
    """Each embed page's first view: ``[(page, before-data gzip bytes, requests, data gzip bytes)]``."""
    rows = []
    for path in sorted(site.glob("**/embed/*.html")):
        relative = path.relative_to(site).as_posix()
        responses, _ = first_view(browser, url, site, relative)
        before = [r for r in responses if "data/" not in r[0]]
        data = [r for r in responses if "data/" in r[0]]
        rows.append((relative, sum(r[3] for r in before), len(before), sum(r[3] for r in data)))
    return rows


TARGETS = {"elements": 1800, "tbt_ms": 150, "performance": 98, "slider_median_ms": 4, "slider_p95_ms": 10,
           "first_view_bytes": 110_000}

COUNT_ELEMENTS = """() => {
    let shown = 0, math = 0;
    for (const e of document.querySelectorAll('*')) {
        if (e.closest('details:not([open]) > :not(summary)')) continue;
        shown++;
        if (e.closest('math')) math++;
    }
    return {shown, math, all: document.querySelectorAll('*').length};
}"""


def element_count(browser, url):
    """Elements at load on a phone viewport: ``{shown, math, all}`` (shown: outside closed <details>)."""
    context = browser.new_context(viewport={"width": 412, "height": 823})
    page = context.new_page()
    page.goto(url, wait_until="networkidle")
    page.wait_for_timeout(500)  # the components near the viewport start after the first paint
    counts = page.evaluate(COUNT_ELEMENTS)
    context.close()
    return counts


def verdict(ok):
    return "met   " if ok else "MISSED"


def slider_timings(browser, url, dataset, steps):
    """Per-step timings for ``steps`` keyboard steps on the slider (half right, half left)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(HARNESS)
    page = context.new_page()
    page.goto(url, wait_until="networkidle")
    page.locator("#ex1").scroll_into_view_if_needed()  # a widget builds its controls when it comes near
    if dataset != page.locator("#ex1-dataset").input_value():
        page.locator("#ex1-dataset").select_option(dataset)
        page.wait_for_load_state("networkidle")
    page.locator("#ex1-reset").click()
    page.wait_for_timeout(300)
    page.evaluate("() => { __bench.steps.length = 0; __bench.events.length = 0; "
                  "if (window.CalibTutorial && Array.isArray(window.CalibTutorial.perf)) "
                  "window.CalibTutorial.perf.length = 0; }")
    slider = page.locator("#ex1-t")
    slider.focus()
    half = steps // 2
    started = time.perf_counter()
    for key in ["ArrowRight"] * half + ["ArrowLeft"] * (steps - half):
        page.keyboard.press(key)
        # let one frame render so each step is timed on its own, as a person pressing a key would see it
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
    wall = time.perf_counter() - started
    page.wait_for_timeout(500)  # let the last Event Timing entries arrive
    result = page.evaluate("""() => ({
        harness: __bench.steps.slice(),
        events: __bench.events.slice(),
        eventTiming: __bench.eventTiming,
        own: (window.CalibTutorial && Array.isArray(window.CalibTutorial.perf))
          ? window.CalibTutorial.perf.slice() : null,
    })""")
    context.close()
    interactions = {}
    for event in result["events"]:
        if event["name"] in ("keydown", "keyup", "input", "beforeinput", "keypress"):
            key = event["id"] or (event["name"], event["start"])
            interactions[key] = max(interactions.get(key, 0), event["duration"])
    result["slow_interactions"] = sorted(interactions.values())
    result["wall_per_step_ms"] = wall / steps * 1000
    result["steps"] = steps
    return result


def describe(label, values):
    if not values:
        return f"  {label:<44} (none recorded)"
    return (f"  {label:<44} median {statistics.median(values):7.2f} ms   p95 {percentile(values, 95):7.2f} ms   "
            f"max {max(values):7.2f} ms   (n = {len(values)})")


def event_timing_p95(slow, steps):
    """p95 over all steps, where a step without an entry took < 16 ms (the observer's threshold)."""
    if len(slow) <= steps * 0.05:
        return f"< 16 ms ({len(slow)} of {steps} steps reached the 16 ms threshold)"
    padded = [0.0] * (steps - len(slow)) + list(slow)
    return f"{percentile(padded, 95):.1f} ms ({len(slow)} of {steps} steps took ≥ 16 ms)"


def lcp_breakdown(data):
    """Lines describing run ``data``'s LCP element, its phases and the main thread's work (Lighthouse's own audits)."""
    lines = []
    audit = data["audits"].get("largest-contentful-paint-element", {})
    for table in (audit.get("details") or {}).get("items", []):
        for item in table.get("items", []):
            node = item.get("node")
            if node:
                lines.append(f"  LCP element: {node.get('nodeLabel', '')[:70]!r} ({node.get('selector', '')[:60]})")
            elif "phase" in item:
                lines.append(f"    {item['phase']:<14} {item.get('timing', 0):7.0f} ms  ({item.get('percent', '')})")
    work = data["audits"].get("mainthread-work-breakdown", {})
    groups = [(i.get("groupLabel", i.get("group", "")), i.get("duration", 0))
              for i in (work.get("details") or {}).get("items", [])]
    if groups:
        lines.append("  main thread: " + ", ".join(f"{label} {ms:.0f} ms" for label, ms in groups[:6]))
    for audit_id in ("render-blocking-resources", "server-response-time", "dom-size"):
        a = data["audits"].get(audit_id)
        if a and a.get("displayValue"):
            lines.append(f"  {a['title']}: {a['displayValue']}")
    return lines


def lighthouse(url, runs):
    """Scores (0–100) and paint metrics of ``runs`` Lighthouse runs: ``{name: [values]}``, plus a failure note."""
    if not LIGHTHOUSE.exists():
        return None, "node_modules/.bin/lighthouse is missing (run: npm ci)"
    env = dict(os.environ, CHROME_PATH=CHROMIUM)
    flags = "--headless=new " + " ".join(CHROMIUM_ARGS)
    scores = {c: [] for c in CATEGORIES + list(METRICS)}
    for run in range(runs):
        with tempfile.TemporaryDirectory(prefix="lighthouse-") as tmp:
            report = Path(tmp) / "report.json"
            command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={report}",
                       f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={flags}",
                       "--max-wait-for-load=60000"]
            started = time.perf_counter()
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
            if done.returncode != 0 or not report.exists():
                return scores, f"run {run + 1} failed ({done.returncode}): {done.stderr.strip()[-600:]}"
            data = json.loads(report.read_text(encoding="utf-8"))
            for category in CATEGORIES:
                score = data["categories"][category]["score"]
                scores[category].append(None if score is None else round(score * 100))
            for audit_id in METRICS:
                scores[audit_id].append(data["audits"][audit_id].get("numericValue"))
            print(f"  run {run + 1}: " + ", ".join(f"{c} {scores[c][-1]}" for c in CATEGORIES) + "; "
                  + ", ".join(f"{label} {format_metric(scores[a][-1], unit)}" for a, (label, unit) in METRICS.items())
                  + f"   ({time.perf_counter() - started:.0f} s)", flush=True)
            if run == 0:
                for line in lcp_breakdown(data):
                    print(line, flush=True)
                failing = [f"{a['id']} ({a['score']})" for a in data["audits"].values()
                           if a.get("score") is not None and a["score"] < 0.9
                           and a.get("scoreDisplayMode") in ("binary", "numeric")]
                if failing:
                    print("  audits below 0.9 in run 1: " + ", ".join(sorted(failing)), flush=True)
    return scores, None


def format_metric(value, unit):
    """A paint metric as Lighthouse reports it: seconds with two decimals, or a bare number (CLS)."""
    if value is None:
        return "n/a"
    return f"{value / 1000:.2f} s" if unit == "ms" else f"{value:.3f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", help="an existing build to measure (default: build into a temporary folder)")
    parser.add_argument("--steps", type=int, default=120, help="keyboard steps per dataset (default: 120)")
    parser.add_argument("--datasets", default="six,mixed", help="datasets to time the slider on (default: six,mixed)")
    parser.add_argument("--runs", type=int, default=5, help="Lighthouse runs (default: 5)")
    parser.add_argument("--no-lighthouse", action="store_true", help="skip Lighthouse")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-page-") as tmp:
        if args.site:
            site = Path(args.site).resolve()
            print(f"site: {site}")
        else:
            site = Path(tmp) / "site"
            print(f"site: built into a temporary folder in {build_site(site):.1f} s")
        # gzip like a static host, so Lighthouse sees what a reader's browser would download
        with serving(site, gzip=True) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            print(f"browser: Chromium {browser.version} (headless); server: {url}\n")

            pages = {lang: f"{folder}/" if folder else "" for lang, folder in LANGUAGES.items()
                     if (site / folder / "index.html").is_file()}
            totals = {}
            print("1. First view (everything loaded until network idle; gzip level 6)")
            for lang, path in pages.items():
                rows, on_demand = first_view(browser, url, site, path)
                print(f"  the {lang} page, {path or '(site root)'}")
                for name, status, raw, packed in rows:
                    print(f"  {name:<40} {status}  raw {kib(raw)}   gzip {kib(packed)}")
                total_raw, total_gzip = sum(r[2] for r in rows), sum(r[3] for r in rows)
                totals[lang] = total_gzip
                print(f"  {'TOTAL (' + str(len(rows)) + ' requests)':<40}      "
                      f"raw {kib(total_raw)}   gzip {kib(total_gzip)}")
            print("  first view, gzip: "
                  + ", ".join(f"{lang} {n:,} bytes ({n / 1024:.1f} KiB)" for lang, n in totals.items()))
            for lang, path in pages.items():
                rows, _ = first_view(browser, url, site, path, javascript=False)
                figures = [name for name, *_ in rows if "figures/" in name]
                print(f"  without JavaScript, the {lang} page: {sum(r[3] for r in rows):,} bytes gzip, "
                      f"{len(rows)} requests ({len(figures)} static figures: {', '.join(figures) or 'none'})")
            elements = {}
            for lang, path in pages.items():
                elements[lang] = counts = element_count(browser, url + path)
                print(f"  elements at load, the {lang} page (phone viewport): {counts['shown']:,} outside closed "
                      f"<details> ({counts['math']:,} of them MathML; {counts['all']:,} in all)")
            print("  embed pages (embed/<widget>.html): first view before data, gzip (budget 60,000 bytes)")
            for name, before, count, data in embed_first_views(browser, url, site):
                print(f"    {name:<38} {before:7,} bytes ({before / 1024:5.1f} KiB), {count} requests;"
                      f" then data {data / 1024:7.1f} KiB")
            print("  on demand, per dataset chosen (shared by every language):")
            for name, raw, packed in on_demand:
                print(f"    {name:<38}      raw {kib(raw)}   gzip {kib(packed)}")

            print(f"\n2. Slider responsiveness ({args.steps} keyboard steps per dataset, one frame apart)")
            own_timings = {}
            for lang, dataset in [(lang, d.strip()) for lang in pages for d in args.datasets.split(",") if d.strip()]:
                timing = slider_timings(browser, url + pages[lang], dataset, args.steps)
                print(f"  {lang} page, dataset {dataset}: {timing['wall_per_step_ms']:.1f} ms wall time per step "
                      "(driver included)")
                if timing["own"] is not None:
                    own_timings[f"{lang}/{dataset}"] = timing["own"]
                    print(describe("explorer's own timings (CalibTutorial.perf)", timing["own"]))
                else:
                    print("  explorer's own timings: window.CalibTutorial.perf is absent")
                print(describe("harness: keydown → input handled + layout", timing["harness"]))
                if timing["eventTiming"]:
                    print(f"  {'Event Timing p95 (keydown/input, to paint)':<44} "
                          f"{event_timing_p95(timing['slow_interactions'], timing['steps'])}")
                else:
                    print("  Event Timing API: not supported by this browser")
            browser.close()

            scores = None
            if args.no_lighthouse:
                print("\n3. Lighthouse: skipped (--no-lighthouse)")
            else:
                print(f"\n3. Lighthouse 12.2.3, mobile preset, {args.runs} runs")
                scores, failure = lighthouse(url, args.runs)
                if failure:
                    print(f"  Lighthouse failed: {failure}")
                if scores and all(scores[c] for c in CATEGORIES):
                    print("  median: " + ", ".join(
                        f"{c} {statistics.median(v for v in scores[c] if v is not None):.0f}" for c in CATEGORIES)
                        + "; " + ", ".join(
                        f"{label} {format_metric(statistics.median(v for v in scores[a] if v is not None), unit)}"
                        for a, (label, unit) in METRICS.items() if any(v is not None for v in scores[a])))
            print_targets(elements, own_timings, scores, totals)
    return 0


def print_targets(elements, own_timings, scores, first_views):
    """Issue 17's load targets, each met or missed, and the load average they were measured under."""
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"\nTargets (load average {load} on {os.cpu_count()} CPUs: on a busy machine the times are indicative)")
    for lang, total in first_views.items():
        print(f"  {verdict(total <= TARGETS['first_view_bytes'])} first view, {lang}: {total:,} bytes gzip "
              f"(budget {TARGETS['first_view_bytes']:,})")
    for lang, counts in elements.items():
        print(f"  {verdict(counts['shown'] <= TARGETS['elements'])} elements outside closed <details>, {lang}: "
              f"{counts['shown']:,} (target ≤ {TARGETS['elements']:,}; without its {counts['math']:,} MathML "
              f"{counts['shown'] - counts['math']:,})")
    for key, values in own_timings.items():
        median, p95 = statistics.median(values), percentile(values, 95)
        ok = median <= TARGETS["slider_median_ms"] and p95 <= TARGETS["slider_p95_ms"]
        print(f"  {verdict(ok)} slider handler, {key}: median {median:.2f} ms, p95 {p95:.2f} ms "
              f"(targets ≤ {TARGETS['slider_median_ms']} ms, ≤ {TARGETS['slider_p95_ms']} ms)")
    if not scores:
        print("  (Lighthouse skipped: no TBT or performance score)")
        return
    for key, label, target, better in (("total-blocking-time", "total blocking time", TARGETS["tbt_ms"], min),
                                       ("performance", "Lighthouse mobile performance", TARGETS["performance"], max)):
        values = [v for v in scores.get(key, []) if v is not None]
        if not values:
            continue
        median = statistics.median(values)
        ok = median <= target if better is min else median >= target
        unit = " ms" if key == "total-blocking-time" else ""
        print(f"  {verdict(ok)} {label}: median {median:.0f}{unit} (range {min(values):.0f}–{max(values):.0f}{unit}, "
              f"{len(values)} runs; target {'≤' if better is min else '≥'} {target}{unit})")


if __name__ == "__main__":
    sys.exit(main())
