"""The documentation: README.md and docs/*.md.

The API reference is generated (tools/apidoc.py) and must be what the script writes now; every relative
link and #anchor must resolve; every module path and dotted ``calib.x.y`` / ``sitegen.x.y`` name a page
mentions must exist, so a renamed or split module fails here until the pages follow; the README stays short.
"""

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

import calib

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
README_MAX_LINES = 200

FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
MODULE_PATH = re.compile(r"(?<![\w./-])((?:calib|sitegen|tests|bench|tools|content|static/js|static/css)/"
                         r"[\w/.-]*\w\.(?:py|js|css|sh|mjs|txt))\b")
DOTTED = re.compile(r"(?<![\w./-])((?:calib|sitegen)\.[a-z_]+)\.([A-Za-z_]\w*)")


def load_apidoc():
    spec = importlib.util.spec_from_file_location("apidoc", ROOT / "tools" / "apidoc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prose_lines(text):
    """The lines of a Markdown text outside fenced code blocks, as (line number, line)."""
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line.lstrip()):
            inside = not inside
            continue
        if not inside:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped except '-' and '_', spaces to '-'."""
    text = CODE_SPAN.sub(lambda m: m.group(2), heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text):
    """Every heading anchor of a Markdown text, with GitHub's -1, -2, … suffixes for repeated headings."""
    seen, out = {}, set()
    for _, line in prose_lines(text):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    return out


def links(text):
    """(line number, target) of every inline Markdown link and image outside code."""
    for number, line in prose_lines(text):
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            yield number, target


def broken_links(page, text, root=ROOT):
    """The relative links of ``page`` (under ``root``) whose file or #anchor does not exist, as readable lines."""
    broken = []
    for number, target in links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto: — not checked here
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        where = f"{page.relative_to(root)}:{number}: {target}"
        if not file.exists():
            broken.append(f"{where}: no file {path}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{where}: no heading #{anchor} in {file.relative_to(root)}")
    return broken


# --- the API reference ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def apidoc_text():
    """What tools/apidoc.py renders now, once for the module (a render imports and inspects the whole package)."""
    return load_apidoc().render()


def test_the_api_reference_is_what_tools_apidoc_writes_now(apidoc_text):
    expected = apidoc_text
    current = (DOCS / "api.md").read_text(encoding="utf-8")
    assert current == expected, "docs/api.md is stale: regenerate it with .venv/bin/python tools/apidoc.py"


def test_the_api_reference_names_every_public_name_of_calib():
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    # a name has its own entry; a submodule exported whole (calib.datasets) has its own section
    missing = [name for name in calib.__all__
               if f"### `{name}`\n" not in text and f"## calib.{name}\n" not in text]
    assert not missing, f"not in docs/api.md: {missing}"


def test_the_api_reference_holds_no_address_or_local_path(apidoc_text):
    text = apidoc_text
    assert not re.search(r"0x[0-9a-fA-F]{6,}", text)
    assert str(ROOT) not in text and "/home/" not in text and "/tmp/" not in text


def test_the_api_reference_groups_names_under_their_defining_module():
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    module_of = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
        elif line.startswith("### `"):
            module_of[line[5:-1]] = current
    # a function's or class's home is where Python says it was defined, independently of the script
    for name in calib.__all__:
        obj = getattr(calib, name)
        if callable(obj) and getattr(obj, "__module__", "").startswith("calib."):
            assert module_of[name] == obj.__module__, name
    # module sections and the names inside each are sorted
    modules = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    assert modules == sorted(modules)
    for module in modules:
        names = [name for name, home in module_of.items() if home == module]
        assert names == sorted(names), module


def test_apidoc_check_fails_on_a_stale_file(tmp_path, monkeypatch, apidoc_text):
    apidoc = load_apidoc()
    monkeypatch.setattr(apidoc, "render", lambda: apidoc_text)  # --check compares what render gives with the file
    stale = tmp_path / "api.md"
    stale.write_text(apidoc_text + "a hand edit\n", encoding="utf-8")
    monkeypatch.setattr(apidoc, "OUTPUT", stale)
    assert apidoc.main(["--check"]) == 1
    stale.write_text(apidoc_text, encoding="utf-8")
    assert apidoc.main(["--check"]) == 0


# --- links, anchors and names of modules --------------------------------------------------------

@pytest.mark.parametrize("heading, expected", [
    ("Payload format (`schema_version` 3)", "payload-format-schema_version-3"),
    ("Large models: memory, time and the one approximation", "large-models-memory-time-and-the-one-approximation"),
    ("The page: `build.py --data`", "the-page-buildpy---data"),
    ("Learning platforms: Canvas, Moodle, a plain HTML page", "learning-platforms-canvas-moodle-a-plain-html-page"),
    ("Números y fórmulas", "números-y-fórmulas"),
])
def test_slugs_follow_githubs_rule(heading, expected):
    assert slug(heading) == expected


def test_the_link_checker_reports_a_missing_file_and_a_missing_anchor(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A part\n", encoding="utf-8")
    text = ("[ok](other.md#a-part) [self](#top) [gone](missing.md) [bad](other.md#no-such-part) "
            "[web](https://example.org/x#y) `[code](nowhere.md)` [lost](#nowhere)\n\n# Top\n\n"
            "```\n[fenced](nowhere.md)\n```\n")
    page.write_text(text, encoding="utf-8")
    broken = broken_links(page, text, root=tmp_path)
    assert len(broken) == 3, broken
    assert "no file missing.md" in broken[0]
    assert "no heading #no-such-part in other.md" in broken[1]
    assert "no heading #nowhere in page.md" in broken[2]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page):
    broken = broken_links(page, page.read_text(encoding="utf-8"))
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_path_and_dotted_name_a_page_mentions_exists(page):
    text = page.read_text(encoding="utf-8")
    missing = sorted({path for path in MODULE_PATH.findall(text) if not (ROOT / path).exists()})
    assert not missing, f"{page.relative_to(ROOT)} names files that do not exist: {missing}"
    unknown = []
    for module_name, attribute in sorted(set(DOTTED.findall(text))):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            unknown.append(f"{module_name} (no such module)")
            continue
        if not hasattr(module, attribute) and importlib.util.find_spec(f"{module_name}.{attribute}") is None:
            unknown.append(f"{module_name}.{attribute}")  # neither a name of the module nor a submodule
    assert not unknown, f"{page.relative_to(ROOT)} names what does not exist: {unknown}"


def test_every_docs_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = {target.partition("#")[0] for _, target in links(readme)}
    unlinked = [p.name for p in sorted(DOCS.glob("*.md")) if f"docs/{p.name}" not in targets]
    assert not unlinked, f"docs pages the README's reading table does not link: {unlinked}"


def test_the_readme_stays_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail to docs/ (limit {README_MAX_LINES})"


# --- derived numbers: the embed heights have one home, the manifest ------------------------------------------


def quoted_heights(text, widgets):
    """``{widget: [numbers]}`` of the Markdown table rows of ``text`` whose first cell names one of ``widgets``
    (a copy of the embed heights table, as ``tools/embed_heights.py --check`` prints it)."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
        if cells and cells[0] in widgets:
            rows[cells[0]] = [int(c) for c in cells[1:] if c.isdigit()]
    return rows


def test_quoted_heights_reads_a_copied_table():
    text = "| widget | en 320 px | en 720 px |\n|---|---:|---:|\n| explorer | 6617 | 4313 |\n| other | 1 | 2 |\n"
    assert quoted_heights(text, {"explorer": None}) == {"explorer": [6617, 4313]}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_quotes_embed_heights_other_than_the_manifests(page):
    from sitegen.common.settings import LANGUAGES
    from sitegen.render.panels import widget_heights

    heights = widget_heights(ROOT)
    for widget, numbers in quoted_heights(page.read_text(encoding="utf-8"), heights).items():
        manifest = [h for lang in LANGUAGES for h in heights[widget].get(lang, [])]
        assert numbers == manifest, (f"{page.relative_to(ROOT)} quotes {widget}'s heights {numbers}; the manifest's "
                                     f"[widgets] table (tools/embed_heights.py) says {manifest}: link to it instead")


def test_the_teaching_page_links_to_the_heights_home():
    assert "](../templates/panels/manifest.toml)" in (DOCS / "teaching.md").read_text(encoding="utf-8")
