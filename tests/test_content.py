"""The prose: no typed numbers, a reproduction program that agrees with the engine, and a built page that says what the engine computed.

(a) Every number in ``content/en/*.md`` comes from a Jinja expression, is an integer inside TeX math,
    or is on ``content/en/allowed_numbers.txt`` with a reason; ``strings.toml`` holds no decimals.
(b) ``content/reproduce.py`` (numpy only) prints the engine's values, formatted the same way.
(c) The built page's sections contain the numbers the prose quotes, as the engine computes them.
"""

import ast
import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

import calib
from sitegen.facts import build_facts, fixed, pct

ROOT = Path(__file__).resolve().parents[1]
CONTENT = ROOT / "content" / "en"
REPRODUCE = ROOT / "content" / "reproduce.py"
ALLOWLIST = CONTENT / "allowed_numbers.txt"

# What the content pipeline treats as Jinja, math and Markdown syntax (see sitegen/content.py).
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{##.*?##\}", re.S)
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$")
_MARKDOWN_SYNTAX = re.compile(r"\[\^[^\]]+\]|\{:?[#.][^}]*\}|\[\[component:[a-z0-9-]+\]\]|^[ \t]*\d+\.(?=[ \t])", re.M)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+")

SECTIONS = ("intro", "promise", "temperature", "fitting", "reliability", "paradox", "explorer",
            "contract", "reproduce", "equations", "data", "sources")
COMPONENTS = {"teaser": "00-intro.md", "softmax-demo": "02-temperature.md", "nll-curve": "03-fitting.md",
              "reliability-demo": "04-reliability.md", "paradox-bins": "05-paradox.md",
              "explorer": "06-explorer.md", "reproduce": "08-reproduce.md", "downloads": "08-reproduce.md"}


# ---------------------------------------------------------------- (a) no typed numbers

def allowlist():
    """``{entry: reason}`` from allowed_numbers.txt; every entry must state a reason."""
    entries = {}
    for number, line in enumerate(ALLOWLIST.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entry, sep, reason = line.partition(" # ")
        assert sep and reason.strip(), f"allowed_numbers.txt:{number}: give a reason after ' # '"
        entries[entry.strip()] = reason.strip()
    return entries


def typed_numbers(source, allowed):
    """``[(line, problem)]`` for every number in a Markdown source that is not allowed."""
    problems = []
    # Blank out Jinja (keeping line breaks so line numbers stay right) before looking at anything else.
    text = _JINJA.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)

    def line_of(pos):
        return text.count("\n", 0, pos) + 1

    def check_math(match):
        for decimal in _DECIMAL.finditer(match.group(1)):
            problems.append((line_of(match.start()), f"decimal {decimal.group(0)!r} typed in math; use an expression"))
        return re.sub(r"[^\n]", " ", match.group(0))

    text = _DISPLAY_MATH.sub(check_math, text)
    text = _INLINE_MATH.sub(check_math, text)
    text = _MARKDOWN_SYNTAX.sub(lambda m: " " * len(m.group(0)), text)
    for entry in sorted(allowed, key=len, reverse=True):
        pattern = re.compile(r"(?<![\w.])" + re.escape(entry) + r"(?![\w]|[.,]\d)")
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    for number in _NUMBER.finditer(text):
        problems.append((line_of(number.start()), f"number {number.group(0)!r} typed in prose"))
    return problems


def section_files():
    return sorted(CONTENT.glob("*.md"))


def test_allowlist_is_short_and_reasoned():
    entries = allowlist()
    assert 0 < len(entries) <= 20, "keep the allowlist short; prefer expressions"


@pytest.mark.parametrize("path", section_files(), ids=lambda p: p.name)
def test_no_typed_numbers(path):
    problems = typed_numbers(path.read_text(encoding="utf-8"), allowlist())
    assert not problems, "\n".join(f"{path.name}:{line}: {what}" for line, what in problems)


def test_checker_catches_what_it_should():
    allowed = {"2017": "year", "scikit-learn ≥ 1.8": "version"}
    assert typed_numbers("NLL falls to 0.812 here.", allowed)
    assert typed_numbers("ECE is 38% at four bins.", allowed)
    assert typed_numbers("at $T = 1.23$ the vector", allowed)
    assert typed_numbers("label temperature 1.8 and scikit-learn ≥ 1.8", allowed) == [
        (1, "number '1.8' typed in prose")]
    assert not typed_numbers("Guo et al. (2017) and $e^{2}$ at $T = 1$", allowed)
    assert not typed_numbers("NLL falls to {{ six.fit.nll | fixed(5) }} at $T = {{ six.fitted_t | fixed(2) }}$", allowed)
    assert not typed_numbers("{## a comment with 0.5 ##}{% set top = 12 %}[[component:nll-curve]]", allowed)
    assert not typed_numbers("1. first\n2. second", allowed)
    assert typed_numbers("see step 2. Then", allowed)
    assert typed_numbers("ResNet-110 and ResNet-50", {"ResNet-110": "model"}) == [(1, "number '50' typed in prose")]


def test_strings_hold_no_decimals():
    text = (CONTENT / "strings.toml").read_text(encoding="utf-8")
    found = [(n, m.group(0)) for n, line in enumerate(text.splitlines(), 1) for m in _DECIMAL.finditer(line)]
    assert not found, "strings.toml must not type decimals (quote them from facts in the prose): " + ", ".join(
        f"line {n}: {value}" for n, value in found)


def test_section_headings():
    """Only the first file has the page's h1; every other section starts with an h2."""
    files = section_files()
    for index, path in enumerate(files):
        text = _JINJA.sub("", path.read_text(encoding="utf-8"))
        first = next(line for line in text.splitlines() if line.startswith("#"))
        if index == 0:
            assert first.startswith("# "), f"{path.name}: the first section must open with the page title (#)"
        else:
            assert first.startswith("## "), f"{path.name}: a section must open with a ## heading"
        assert not re.search(r"^# ", text, re.M) or index == 0, f"{path.name}: only the first section has an h1"


def test_components_placed_once_where_they_belong():
    for name, file_name in COMPONENTS.items():
        holders = [p.name for p in section_files() if f"[[component:{name}]]" in p.read_text(encoding="utf-8")]
        assert holders == [file_name], f"[[component:{name}]] should appear once, in {file_name}; found in {holders}"


# ---------------------------------------------------------------- (b) the reproduction program

@pytest.fixture(scope="module")
def reproduce_output():
    done = subprocess.run([sys.executable, str(REPRODUCE)], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def engine_six():
    """The engine's values for the six examples, as the program prints them."""
    data = calib.load("six")
    t = calib.fit_temperature(data.logits, data.labels)

    def at(temperature):
        conf, correct = calib.top_label(data.logits, data.labels, temperature)
        return {"nll": calib.nll(data.logits, data.labels, temperature),
                "ece": calib.ece(conf, correct, 4),
                "brier": calib.brier(data.logits, data.labels, temperature)}

    return {"t": t, "t1": at(1.0), "fit": at(t)}


def test_reproduce_imports_only_numpy():
    tree = ast.parse(REPRODUCE.read_text(encoding="utf-8"))
    modules = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert modules <= {"numpy", "math"}, f"reproduce.py must stand alone (numpy only); imports {sorted(modules)}"


def test_reproduce_prints_the_engine_values(reproduce_output, engine_six):
    lines = reproduce_output.splitlines()
    fitted = re.fullmatch(r"fitted temperature T\* = (\S+)", lines[0])
    assert fitted, f"unexpected first line: {lines[0]!r}"
    assert fitted.group(1) == f"{engine_six['t']:.5f}"
    rows = {}
    for line in lines[2:]:
        label, at_t1, at_fit = re.fullmatch(r"(.+?)\s+(\S+)\s+(\S+)", line).groups()
        rows[label] = (at_t1, at_fit)
    e1, ef = engine_six["t1"], engine_six["fit"]
    assert rows == {
        "mean NLL (nats)": (f"{e1['nll']:.5f}", f"{ef['nll']:.5f}"),
        "ECE, 4 equal bins": (f"{100 * e1['ece']:.1f}%", f"{100 * ef['ece']:.1f}%"),
        "Brier score": (f"{e1['brier']:.3f}", f"{ef['brier']:.3f}"),
    }


def test_reproduce_agrees_with_the_page_formatting(reproduce_output, engine_six):
    """The program's rounding and the page's filters print the same digits for these values."""
    e1, ef = engine_six["t1"], engine_six["fit"]
    for expected in (fixed(engine_six["t"], 5), fixed(e1["nll"], 5), fixed(ef["nll"], 5),
                     pct(e1["ece"], 1), pct(ef["ece"], 1), fixed(e1["brier"], 3), fixed(ef["brier"], 3)):
        assert expected in reproduce_output


# ---------------------------------------------------------------- (c) the built page

@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("content-site") / "site"
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return (out / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def facts():
    from calib.precompute import precompute_all

    return build_facts(precompute_all())


def section_text(page, slug):
    """The visible text of one section: tags removed, entities decoded, whitespace collapsed."""
    match = re.search(rf'<section id="{slug}"[^>]*>(.*?)</section>', page, re.S)
    assert match, f"section #{slug} is missing"
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", match.group(1), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def test_sections_and_heading_ids(page):
    assert re.findall(r'<section id="([a-z0-9-]+)"', page)[:len(SECTIONS)] == list(SECTIONS) or \
        all(f'<section id="{s}"' in page for s in SECTIONS)
    for slug in SECTIONS:
        assert f'id="{slug}-title"' in page, f"#{slug} lacks its heading id"
    assert page.count("<h1") == 1


def test_no_template_leftovers(page):
    for leftover in ("{{", "{%", "[[component:", "MATHTOKEN", "Undefined"):
        assert leftover not in page, f"{leftover!r} leaked into the page"


def test_intro_and_paradox_quote_the_engine(page, facts):
    six = facts["six"]
    for slug in ("intro", "paradox"):
        text = section_text(page, slug)
        for expected in (fixed(six.t1.nll, 5), fixed(six.fit.nll, 5), pct(six.t1.ece_w[4], 1), pct(six.fit.ece_w[4], 1)):
            assert expected in text, f"#{slug} should quote {expected}"


def test_paradox_tables_add_up(page, facts):
    six = facts["six"]
    text = section_text(page, "paradox")
    for state in (six.t1, six.fit):
        shares = [b.share for b in state.bins_w[4]]
        assert pct(sum(shares), 1) == pct(state.ece_w[4], 1)
        for b in state.bins_w[4]:
            assert pct(b.share, 1) in text and fixed(b.conf, 3) in text
    crossing = [e.number for e in six.examples if e.crosses]
    assert len(crossing) == 2
    for number in crossing:
        assert f"Example {number}" in text


def test_fitting_quotes_the_six_table(page, facts):
    six = facts["six"]
    text = section_text(page, "fitting")
    assert fixed(six.fitted_t, 5) in text
    assert fixed(six.t1.brier, 3) in text and fixed(six.fit.brier, 3) in text
    for e in six.examples:
        assert fixed(e.conf_t1, 3) in text and fixed(e.conf_fit, 3) in text


def test_other_sections_quote_the_engine(page, facts):
    six, oc = facts["six"], facts["overconfident"]
    checks = {
        "temperature": [fixed(p, 3) for p in facts["softmax_example"].t1.probs + facts["softmax_example"].fit.probs],
        "promise": [pct(oc.t1.accuracy, 1), pct(oc.t1.conf, 1), pct(oc.fit.conf, 1)],
        "reliability": [pct(six.t1.ece_w[4], 1), pct(six.t1.mce_w[4], 1)],
        "explorer": [fixed(facts["mixed"].t1.nll, 5), pct(facts["sim_600"].fit.ece_w[15], 1)],
        "reproduce": [fixed(six.fitted_t, 5), fixed(six.t1.brier, 3)],
        "data": [str(facts["lcg"].multiplier), str(facts["lcg"].increment), str(facts["recipe"].sim_seed),
                 str(facts["recipe"].overconfident_seed), str(facts["recipe"].mixed_seed)],
    }
    for slug, expected in checks.items():
        text = section_text(page, slug)
        missing = [value for value in expected if value not in text]
        assert not missing, f"#{slug} lacks {missing}"


def test_page_shows_what_reproduce_printed(page, reproduce_output):
    match = re.search(r'id="reproduce-output"[^>]*>(.*?)</pre>', page, re.S)
    if not match:
        pytest.skip("the reproduce component shows no #reproduce-output element")
    shown = html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))
    assert shown.strip() == reproduce_output.strip()
