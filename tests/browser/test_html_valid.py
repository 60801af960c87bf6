"""HTML validity: the Nu HTML checker (vnu.jar from node_modules) finds no error in the built page,
nor in the document the explorer leaves after running (the DOM serialised by the browser), in every
language edition (``lang``), nor in any embed page (built, and after its widget has run)."""

import json
import subprocess

import pytest

from .conftest import page_path

pytestmark = pytest.mark.every_language  # each edition's markup


def run_vnu(vnu_command, *paths):
    """``{path: [error messages]}`` from one vnu run (``--errors-only --format json``)."""
    result = subprocess.run([*vnu_command, "--errors-only", "--format", "json", "--stdout", *map(str, paths)],
                            capture_output=True, text=True, timeout=300)
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"vnu exited {result.returncode} without a JSON report:\n{result.stdout}\n{result.stderr}")
    errors = {str(p): [] for p in paths}
    for message in report.get("messages", []):
        if message.get("type") in ("error", "non-document-error") or message.get("subType") == "fatal":
            where = message.get("url", "").removeprefix("file:")
            line = f"line {message.get('lastLine', '?')}:{message.get('firstColumn', '?')}"
            text = f"{line}: {message.get('message')} [{message.get('extract', '').strip()[:120]!r}]"
            key = next((k for k in errors if where.endswith(k) or k.endswith(where)), where)
            errors.setdefault(key, []).append(text)
    if result.returncode not in (0, 1):
        pytest.fail(f"vnu exited {result.returncode}: {result.stderr}")
    return errors


@pytest.fixture(scope="module")
def live_dom(browser, site_url, ui, lang, expect):
    """``(html, problem)``: the document as the browser holds it once the explorer has run
    (sim-600, fitted T), or what went wrong getting there."""
    from playwright.sync_api import Error

    from .explorer_ui import Explorer

    context = browser.new_context()
    page = context.new_page()
    problem = None
    try:
        page.goto(site_url + page_path(lang), wait_until="networkidle")
        ex = Explorer(page, ui, expect)
        try:
            ex.dataset.select_option("sim-600", timeout=5000)
            page.wait_for_load_state("networkidle")
            ex.fit.click(timeout=5000)
        except Error as error:
            problem = f"could not drive the explorer: {error.message.splitlines()[0]}"
        return page.content(), problem
    finally:
        context.close()


@pytest.fixture(scope="module")
def vnu_report(vnu_command, site_dir, live_dom, lang):
    """One vnu run over the built index.html of the ``lang`` edition and its live DOM."""
    built, live = site_dir / page_path(lang, "index.html"), site_dir.parent / f"live-dom-{lang}.html"
    live.write_text(live_dom[0], encoding="utf-8")
    return run_vnu(vnu_command, built, live), built, live


def test_built_page_is_valid_html(vnu_report):
    errors, built, _ = vnu_report
    found = errors.get(str(built), [])
    assert found == [], f"vnu: {len(found)} error(s) in the built index.html:\n  " + "\n  ".join(found)


def test_document_after_the_explorer_ran_is_valid_html(vnu_report, live_dom):
    errors, _, live = vnu_report
    found = errors.get(str(live), [])
    assert found == [], f"vnu: {len(found)} error(s) in the live DOM:\n  " + "\n  ".join(found)
    assert live_dom[1] is None, live_dom[1]


def test_embed_pages_are_valid_html(vnu_command, site_dir, browser, site_url):
    built = sorted(site_dir.glob("**/embed/*.html"))
    assert len(built) >= 14
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(site_url + "embed/explorer.html", wait_until="networkidle")
        live = site_dir.parent / "live-dom-embed-explorer.html"
        live.write_text(page.content(), encoding="utf-8")
    finally:
        context.close()
    errors = run_vnu(vnu_command, *built, live)
    found = {path: messages for path, messages in errors.items() if messages}
    assert not found, "vnu:\n" + "\n".join(f"{path}:\n  " + "\n  ".join(m) for path, m in found.items())
