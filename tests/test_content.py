"""The prose: no typed numbers, a reproduction program that agrees with the engine, and a built page that says
what the engine computed.

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

import numpy as np
import pytest
from sitegen_inputs import page_inputs

import calib
from sitegen.common.numbers import fixed, pct, pp, temp
from sitegen.facts.results import fact_key

ROOT = Path(__file__).resolve().parents[1]
CONTENT = ROOT / "content" / "en"
REPRODUCE = ROOT / "content" / "reproduce.py"
ALLOWLIST = CONTENT / "allowed_numbers.txt"

# What the content pipeline treats as Jinja, math and Markdown syntax (see sitegen/content/sections.py).
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{##.*?##\}", re.S)
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$")
# Markdown and HTML syntax, which may hold digits that are not numbers: footnote marks, attribute lists,
# component markers, ordered-list markers and HTML tag names such as <h2>.
_MARKDOWN_SYNTAX = re.compile(r"\[\^[^\]]+\]|\{:?[#.][^}]*\}|\[\[component:[a-z0-9-]+\]\]|^[ \t]*\d+\.(?=[ \t])"
                              r"|</?h[1-6]\b", re.M)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+")

SECTIONS = ("intro", "promise", "temperature", "fitting", "reliability", "paradox", "held-out",
            "explorer", "chance", "bins", "smooth", "groups", "beyond",
            "contract", "reproduce", "equations", "data", "sources", "terms")
COMPONENTS = {"hero": "00-intro.md", "paradox-figure": "05-paradox.md", "one-bin": "01-promise.md",
              "held-out-chart": "06-held-out.md",
              "softmax-demo": "02-temperature.md", "nll-curve": "03-fitting.md",
              "reliability-demo": "04-reliability.md", "paradox-bins": "16-data.md",
              "worked-bins-t1": "05-paradox.md", "worked-bins-fit": "05-paradox.md",
              "explorer": "07-explorer.md",
              "split-table": "06-held-out.md", "test-tube": "09-bins.md", "chance-demo": "08-chance.md",
              "bin-sweep": "09-bins.md", "smooth-demo": "10-smooth.md", "subgroups": "11-groups.md",
              "reproduce": "14-reproduce.md", "downloads": "14-reproduce.md", "twelve-examples": "16-data.md",
              "beyond-compare": "12-beyond.md", "calibration-test": "08-chance.md",
              "corp-decomposition": "10-smooth.md", "classwise-diagrams": "12-beyond.md", "beyond-rows": "12-beyond.md",
              "beyond-decide": "12-beyond.md"}

# Prose holds words and {{ … }} expressions only: loops, tests, selections and aliases live in the facts
# (sitegen/facts/results.py, sitegen/facts/uncertainty_facts.py), so a translator never copies template logic.
_STATEMENT = re.compile(r"\{%")
_EXPRESSION = re.compile(r"\{\{(.*?)\}\}", re.S)


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


def every_language_section():
    return sorted(p for p in (ROOT / "content").glob("*/[0-9][0-9]-*.md"))


@pytest.mark.parametrize("path", every_language_section(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_prose_holds_words_and_expressions_only(path):
    """No ``{% … %}`` statement (set, for, if, macro) in a section file, and no quoted text inside an
    expression: a string literal there is a word a translator cannot reach."""
    text = path.read_text(encoding="utf-8")
    statements = [text.count("\n", 0, m.start()) + 1 for m in _STATEMENT.finditer(text)]
    assert not statements, f"{path}: Jinja statements on lines {statements}; compute them as facts in sitegen/"
    quoted = [m.group(0) for m in _EXPRESSION.finditer(text) if '"' in m.group(1) or "'" in m.group(1)]
    assert not quoted, f"{path}: quoted text inside expressions: {quoted}"


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
    assert not typed_numbers("NLL falls to {{ six.fit.nll | fixed(5) }} at $T = {{ six.fitted_t | fixed(2) }}$",
                             allowed)
    assert not typed_numbers("{## a comment with 0.5 ##}{% set top = 12 %}[[component:nll-curve]]", allowed)
    assert not typed_numbers("1. first\n2. second", allowed)
    assert typed_numbers("see step 2. Then", allowed)
    assert typed_numbers("ResNet-110 and ResNet-50", {"ResNet-110": "model"}) == [(1, "number '50' typed in prose")]


@pytest.mark.parametrize("path", sorted((ROOT / "content").glob("*/strings.toml")), ids=lambda p: p.parent.name)
def test_strings_hold_no_decimals(path):
    text = path.read_text(encoding="utf-8")
    found = [(n, m.group(0)) for n, line in enumerate(text.splitlines(), 1) for m in _DECIMAL.finditer(line)]
    assert not found, f"{path} must not type decimals (quote them from facts in the prose): " + ", ".join(
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


def test_section_files_in_order():
    """The files are numbered 00, 01, … without gaps, and their slugs give the page's section order."""
    files = section_files()
    names = [p.name for p in files]
    assert [int(n[:2]) for n in names] == list(range(len(names))), f"section numbers must run 00, 01, …: {names}"
    assert tuple(n[3:-3] for n in names) == SECTIONS, f"section order: {names}"


def test_components_placed_once_where_they_belong():
    for name, file_name in COMPONENTS.items():
        counts = {p.name: p.read_text(encoding="utf-8").count(f"[[component:{name}]]") for p in section_files()}
        holders = {n: c for n, c in counts.items() if c}
        assert holders == {file_name: 1}, f"[[component:{name}]] should appear once, in {file_name}; found {holders}"


def test_test_tube_sits_in_its_subsection():
    """The test-tube component belongs under "Guo et al. in a test tube", which opens the bins section."""
    text = (CONTENT / COMPONENTS["test-tube"]).read_text(encoding="utf-8")
    heading = text.index("### Guo et al. in a test tube")
    assert text.index("\n## ") < heading < text.index("[[component:test-tube]]") < text.index("[[component:bin-sweep]]")
    assert "\n## " not in text[heading:] and "\n### " not in text[heading + 4:text.index("[[component:test-tube]]")]


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
def page(built_site):
    """The English page of the session's built site (the reference language, at the site's root)."""
    return (built_site / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def facts(precomputed):
    """The whole prose context, as build.py assembles it: engine facts plus the analyses under ``an``."""
    return page_inputs(precomputed)[1]


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
        for expected in (fixed(six.t1.nll, 5), fixed(six.fit.nll, 5),
                         pct(six.t1.ece_w[4], 1), pct(six.fit.ece_w[4], 1)):
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
    # the Brier score's disagreement is told where the two scores' disagreement is (#paradox)
    paradox = section_text(page, "paradox")
    assert fixed(six.t1.brier, 3) in paradox and fixed(six.fit.brier, 3) in paradox
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
    assert match, "the reproduce component shows no <pre id=\"reproduce-output\"> element"
    shown = html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))
    assert shown.strip() == reproduce_output.strip()


# ---------------------------------------------------------------- (d) the analysis sections

B_TABLE = 15  # the bin count the analysis sections quote


def _split(name):
    """``(data, calibration mask, T fitted on the calibration rows)``, computed here with calib alone."""
    data = calib.load(name)
    cal = data.is_calibration
    return data, cal, calib.fit_temperature(data.logits[cal], data.labels[cal])


def _scores(logits, labels, temperature, n_bins=B_TABLE):
    conf, correct = calib.top_label(logits, labels, temperature)
    return {"accuracy": float(correct.mean()), "conf": float(conf.mean()), "ece": calib.ece(conf, correct, n_bins),
            "nll": calib.nll(logits, labels, temperature)}


def test_analysis_facts_cover_every_dataset(facts, precomputed):
    an = facts["an"]
    for name, result in precomputed.datasets.items():
        view = getattr(an, fact_key(name))
        assert view.fitted_t == result.fitted_t
        assert view.split == ("calibration" in result.parts)
        for part in view.parts.values():
            for point in (part.t1, part.fit):
                for b in an.bin_counts:
                    assert point.spread.ece_w[b].lo <= point.spread.ece_w[b].hi
                    assert point.floor.ece_w[b].lo <= point.floor.ece_w[b].mid <= point.floor.ece_w[b].hi
                    band = point.bands_w[b]
                    assert band.outside == band.above + band.below <= band.bins
                assert set(point.ece_w) == set(range(1, an.max_bins + 1))
        # the sweep at an offered bin count is the engine's ECE of the reported part
        reported = result.parts.get("test") or result.parts["all"]
        assert view.rep.fit.ece_w[B_TABLE] == pytest.approx(
            reported.ece["equal-width"][B_TABLE][precomputed.index_of(result.fitted_t)], abs=1e-12)
    assert len({getattr(an, k).subgrid_size for k in ("sim_60", "sim_600", "overconfident", "mixed")}) == 1


def test_gap_is_the_difference_of_printed_values(facts):
    """A quoted gap equals the difference of the two numbers printed beside it."""
    for key in ("sim_60", "sim_600", "overconfident", "mixed"):
        ns, gap = facts[key], facts["an"].__dict__[key].gap
        for state in ("t1", "fit"):
            cal, test, g = getattr(ns.cal, state), getattr(ns, state), getattr(gap, state)
            assert fixed(g.nll, 5) == fixed(float(fixed(test.nll, 5)) - float(fixed(cal.nll, 5)), 5)
            assert pct(g.ece, 1) == pct(float(pct(test.ece_w[B_TABLE], 1)[:-1]) / 100
                                        - float(pct(cal.ece_w[B_TABLE], 1)[:-1]) / 100, 1)


def test_held_out_quotes_the_engine(page):
    """The test tube (now opening #bins) and the calibration/test gaps, recomputed here from calib: load, fit, score."""
    text = section_text(page, "held-out") + section_text(page, "bins")
    data, cal, t = _split("overconfident")
    before, after = (_scores(data.logits[~cal], data.labels[~cal], temp) for temp in (1.0, t))
    # a temperature: three significant digits pct(before["conf"], 1), pct(after["conf"], 1),
    for expected in (f"{t:#.3g}", pct(before["accuracy"], 1),
                     pct(before["ece"], 1), pct(after["ece"], 1), fixed(before["nll"], 5), fixed(after["nll"], 5)):
        assert expected in text, f"#held-out should quote {expected}"
    assert abs(t - 2.0) < 0.1, "the over-confident set's logits were doubled: the fit should find T near 2"
    for name in ("sim-60", "sim-600", "overconfident"):
        data, cal, t = _split(name)
        nll_cal = float(fixed(calib.nll(data.logits[cal], data.labels[cal], t), 5))
        nll_test = float(fixed(calib.nll(data.logits[~cal], data.labels[~cal], t), 5))
        assert fixed(abs(nll_test - nll_cal), 5) in text, f"#held-out should quote the {name} gap"


def test_groups_quote_the_engine(page):
    """Per-group ECE (15 equal-width bins, test rows) under T = 1, the global T and each group's own T."""
    text = section_text(page, "groups")
    data, cal, t_global = _split("mixed")
    test = ~cal
    own = {g: calib.fit_temperature(data.logits[cal & (data.groups == g)], data.labels[cal & (data.groups == g)])
           for g in ("A", "B")}
    scores = {}
    for g in ("A", "B"):
        rows = test & (data.groups == g)
        scores[g] = {c: _scores(data.logits[rows], data.labels[rows], temp)
                     for c, temp in (("t1", 1.0), ("global", t_global), ("group", own[g]))}
        for c in ("t1", "global", "group"):
            assert pct(scores[g][c]["ece"], 1) in text, f"#groups should quote group {g}'s ECE under {c}"
        assert temp(own[g]) in text  # the page's one rule for a temperature
    pooled = {c: _scores(data.logits[test], data.labels[test], temp) for c, temp in (("t1", 1.0), ("global", t_global))}
    for c in ("t1", "global"):
        assert pct(pooled[c]["ece"], 1) in text and fixed(pooled[c]["nll"], 5) in text
    assert temp(t_global) in text
    # the claims the section makes in words
    assert (scores["B"]["global"]["ece"] > scores["B"]["t1"]["ece"]
            and scores["B"]["global"]["nll"] > scores["B"]["t1"]["nll"])
    assert scores["A"]["group"]["ece"] < scores["A"]["global"]["ece"] < scores["A"]["t1"]["ece"]
    assert pooled["global"]["ece"] > pooled["t1"]["ece"] and pooled["global"]["nll"] < pooled["t1"]["nll"]
    assert abs(t_global - own["A"]) < abs(t_global - own["B"])


def test_analysis_sections_quote_the_engine(page, facts):
    an = facts["an"]
    a60, a600, aoc = an.sim_60.rep, an.sim_600.rep, an.overconfident.rep
    checks = {
        "chance": [pct(a60.t1.floor.ece_w[B_TABLE].mid, 1), pct(a60.t1.floor.ece_w[B_TABLE].hi, 1),
                   pct(a600.t1.boot.ece.lo, 1), pct(a600.t1.boot.ece.hi, 1),
                   pct(an.sim_600.cal.fit.ece_w[B_TABLE], 1), pct(an.sim_600.cal.fit.boot.ece.lo, 1),
                   f"{aoc.t1.bands_w[B_TABLE].outside} of its {aoc.t1.bands_w[B_TABLE].bins}",
                   f"in {aoc.t1.bands.tail_draws} of {an.draws:,} draws",
                   f"{pct(an.outside_bound.at_10.share, 1)} of the time", pct(an.outside_bound.at_5.share, 1),
                   pct(a600.t1.explorer.ece.hi, 1), pct(a600.t1.explorer.ece.hi_to, 1),
                   fixed(a600.paired.nll.lo, 3), fixed(a600.paired.nll.hi, 3), fixed(an.mixed.rep.paired.brier.lo, 3),
                   pp(an.mixed.rep.paired.ece.change),  # a change of a percentage: percentage points
                   temp(an.sim_600.fit_spread.lo), temp(an.sim_600.fit_spread.hi),
                   pct(an.sim_600.fit_spread.reach, 1), pct(an.sim_600.fit_spread.below, 1),
                   temp(an.sim_600.fit_spread.truth_mid)],
        "held-out": [f"{fixed(an.sim_60.rep.paired.nll.gain_lo, 3)} to {fixed(an.sim_60.rep.paired.nll.gain_hi, 3)}",
                     fixed(an.overconfident.rep.paired.nll.gain_lo, 3)],
        "groups": [fixed(an.mixed.balance.up.slope, 3), fixed(an.mixed.balance.rest.slope, 3),
                   fixed(an.mixed.balance.up.curvature, 2), fixed(an.mixed.balance.rest.curvature, 2),
                   fixed(an.mixed.balance.ratio, 1)],
        "fitting": [fixed(an.six.balance.up.slope, 3), fixed(an.six.balance.rest.slope, 3)],
        "paradox": [fixed(facts["ev"].brier_t.overconfident, 4), fixed(facts["ev"].brier_t.mixed, 4),
                    fixed(facts["ev"].brier_t.six, 4), fixed(facts["overconfident"].fitted_t, 4)],
        "bins": [pct(aoc.fit.ece_w[5], 1), pct(aoc.fit.ece_w[an.max_bins], 1),
                 pct(aoc.fit.floor_sweep_w[an.max_bins].mid, 1), pct(aoc.t1.ece_w[an.max_bins], 1)],
        "smooth": [pct(aoc.t1.smooth.ece, 1), pct(aoc.fit.smooth.ece, 1), fixed(aoc.t1.smooth.sigma, 3),
                   pct(a600.fit.smooth.ece, 1)],
    }
    for slug, expected in checks.items():
        text = section_text(page, slug)
        missing = [value for value in expected if value not in text]
        assert not missing, f"#{slug} lacks {missing}"


# The sections (or parts) issue 12 rewrote, which a translation follows: words and {{ … }} expressions only.
TRANSLATABLE = {"03-fitting.md": None, "05-paradox.md": ("### Why the two scores disagree", "### Three statements"),
                "06-held-out.md": ("What the fit can claim", "So report the test rows"),
                "08-chance.md": None, "09-bins.md": None, "10-smooth.md": None, "11-groups.md": None,
                "12-beyond.md": None, "13-contract.md": None, "14-reproduce.md": ("### In scikit-learn", None),
                "17-sources.md": None}


@pytest.mark.parametrize("name", sorted(TRANSLATABLE))
def test_translatable_sections_hold_words_and_expressions_only(name):
    text = (CONTENT / name).read_text(encoding="utf-8")
    if TRANSLATABLE[name]:
        start, end = TRANSLATABLE[name]
        text = text[text.index(start):text.index(end) if end else None]
    for construct in ("{%", "selectattr", "rejectattr", "macro", "{{ \"", "if e.", " if ", " else "):
        found = [m.group(0) for m in re.finditer(r"\{\{.*?\}\}|\{%.*?%\}", text, re.S) if construct in m.group(0)]
        found += [construct] if construct == "{%" and "{%" in text else []
        assert not found, f"{name}: move {found[:3]} into the facts (sitegen/facts/, or sitegen/render/tables.py)"


def test_external_links_go_to_doi_arxiv_or_the_scikit_learn_guide(page):
    links = re.findall(r'<a\b[^>]*href="(https?:[^"]*)"', page)
    assert len(links) >= 25
    for url in links:
        assert re.match(r"https://(doi\.org/10\.|arxiv\.org/abs/\d{4}\.\d{5}$|scikit-learn\.org/stable/)", url), url
    assert not re.search(r'<(?:script|link|img|iframe|source)\b[^>]*(?:src|href)="https?:', page)


def test_claims_in_words_still_hold(facts):
    """Sentences that state a direction or a comparison in words, checked against the engine's numbers."""
    an, s60, s600, oc = facts["an"], facts["sim_60"], facts["sim_600"], facts["overconfident"]
    a60, a600, aoc = an.sim_60.rep, an.sim_600.rep, an.overconfident.rep
    # held-out: who keeps how much of the improvement
    kept = {k: (ns.t1.nll - ns.fit.nll) / (ns.cal.t1.nll - ns.cal.fit.nll) for k, ns in
            (("sim_60", s60), ("sim_600", s600), ("overconfident", oc))}
    assert 0.5 < kept["sim_60"] < 0.65 and kept["overconfident"] > 0.9 and kept["sim_600"] > 1
    assert an.overconfident.gap.fit.nll < 0 < an.sim_600.gap.t1.nll
    assert an.sim_60.gap.fit.nll > 0 and an.sim_600.gap.fit.nll > 0  # "higher (worse) than the calibration rows'"
    assert pct(oc.fit.conf, 1) == pct(oc.fit.accuracy, 1), (
        "the test tube's confidence should land level with its accuracy")
    # held-out and chance: the paired change cannot tell on sim-60, can on the others; mixed worsens in Brier and ECE
    for score in ("nll", "brier", "ece"):
        assert getattr(an.sim_60.rep.paired, score).lo < 0 < getattr(an.sim_60.rep.paired, score).hi
        for key in ("sim_600", "overconfident"):
            assert getattr(getattr(an, key).rep.paired, score).hi < 0
    assert an.mixed.rep.paired.nll.hi < 0 < an.mixed.rep.paired.brier.lo and 0 < an.mixed.rep.paired.ece.lo
    assert an.sim_600.rep.paired.nll.lower == 1.0
    assert a60.t1.bands.outside <= 1 and aoc.t1.bands.tail_draws == 0 and a600.t1.bands.tail_draws <= 5
    assert aoc.fit.bands.tail > 0.5 and a600.fit.bands.tail < 0.05
    # groups: the two groups are the same size ("rows each"); the pooled fit sits nearer A's own temperature
    assert facts["mixed"].groups["A"] == facts["mixed"].groups["B"]
    sub = an.mixed.sub
    assert abs(1 / sub.t_global - 1 / sub.t_group["A"]) < abs(1 / sub.t_global - 1 / sub.t_group["B"])
    # chance: the point estimate below its spread; small sample indistinguishable; larger sample not
    assert an.sim_600.cal.fit.ece_w[B_TABLE] < an.sim_600.cal.fit.boot.ece.lo
    assert a60.t1.ece_w[B_TABLE] < a60.t1.floor.ece_w[B_TABLE].hi
    assert a600.t1.ece_w[B_TABLE] > a600.t1.floor.ece_w[B_TABLE].hi
    assert 0 < a600.fit.ece_w[B_TABLE] - a600.fit.floor.ece_w[B_TABLE].hi < 0.02  # "just above"
    assert aoc.t1.bands_w[B_TABLE].outside > aoc.t1.bands_w[B_TABLE].bins / 2
    assert aoc.fit.bands_w[B_TABLE].outside <= aoc.fit.bands_w[B_TABLE].bins / 10 + 1
    ratio = a60.t1.floor.ece_w[B_TABLE].mid / a600.t1.floor.ece_w[B_TABLE].mid
    assert 2.5 < ratio < 4, "the floor should shrink roughly like one over the square root of the rows"
    assert facts["recipe"].sim_label_t > s600.fitted_t, "the fit on sim-600 should stop short of the label temperature"
    # bins: flat before the fit, following the floor after it
    assert pct(aoc.t1.sweep_range_w.lo, 1) == pct(aoc.t1.sweep_range_w.hi, 1) == pct(oc.t1.conf - oc.t1.accuracy, 1)
    assert not aoc.fit.above_floor_w
    assert (aoc.fit.ece_w[an.max_bins] > aoc.fit.ece_w[5]
            and aoc.fit.floor_sweep_w[an.max_bins].mid > aoc.fit.floor_sweep_w[5].mid)
    assert a600.fit.floor_sweep_w[an.max_bins].mid > a600.fit.ece_w[an.max_bins] / 2  # "the bias is most of the number"
    assert facts["mixed"].ece_sweep_w[1].t1 < facts["mixed"].t1.ece_w[B_TABLE] / 5
    # smooth: the bandwidth is the fixed point; binned ECE scatters more than the smooth one after the fit
    for point in (aoc.t1, aoc.fit, a600.t1, a600.fit):
        assert abs(point.smooth.ece - point.smooth.sigma) < 0.005
    assert aoc.fit.ece_w[5] < aoc.fit.smooth.ece < aoc.fit.ece_w[an.max_bins]
    assert a600.fit.ece_w[5] < a600.fit.smooth.ece < a600.fit.ece_w[an.max_bins]
    # groups: pooled averages agree at T = 1 while each half is off
    pooled = an.mixed.sub.test.pooled.t1
    assert abs(pooled.conf - pooled.accuracy) < 0.05


def test_a_build_without_one_file_editions_writes_and_links_none(built_site, page):
    """``build.py`` without ``--one-file-editions`` (a local build): no one-file/ folder, no link to one
    (with the option, the links are exactly the files written: tests/test_one_file.py)."""
    assert not (built_site / "one-file").exists()
    assert "one-file/" not in page and "one-file-downloads" not in page
    assert "python build.py" not in (ROOT / "templates" / "single-file-note.html.j2").read_text(encoding="utf-8")


# ---------------------------------------------------------------- (e) a researcher's corrections (issue 27)

def test_refinement_is_the_vectors_and_the_pairs_moves(page, facts):
    """Corrections 7 and 8: the pair (confidence, right) changes its discrimination under T, computed here with
    scikit-learn's AUROC; NLL's calibration term is the divergence from E[Y | p], known on the over-confident set
    (labels drawn from the latent softmax of the logits halved), recomputed with SciPy's relative entropy."""
    from scipy.special import rel_entr, softmax
    from sklearn.metrics import roc_auc_score

    data, cal, t = _split("overconfident")
    z, y = data.logits[~cal], data.labels[~cal]
    truth = softmax(z / calib.datasets.OVERCONFIDENT_SHARPNESS, axis=1)
    text = section_text(page, "paradox")
    for key, temperature in (("t1", 1.0), ("fit", t)):
        p = softmax(z / temperature, axis=1)
        auc = roc_auc_score(p.argmax(axis=1) == y, p.max(axis=1))
        kl = float(rel_entr(truth, p).sum(axis=1).mean())
        assert fixed(auc, 4) in text and fixed(kl, 4) in text, key
        assert fixed(getattr(facts["ev"].pair, key).dsc, 4) in text
    assert facts["ev"].pair.t1.auroc != facts["ev"].pair.fit.auroc  # the pair's refinement moved
    assert "frequencies that follow it" in text and "true probabilities" in text
    terms = section_text(page, "terms")
    assert "whole probability vector" in terms and "cannot change it" in terms


def test_equations_claim_only_the_core_path_and_point_to_the_rest(page):
    """Correction 9: the section no longer says it holds every formula, and links where the others are."""
    body = re.search(r'<section id="equations"[^>]*>(.*?)</section>', page, re.S).group(1)
    text = section_text(page, "equations")
    assert "Every formula" not in text and "The formulas of the core path" in text
    for target in ("#beyond", "#smooth", "#chance"):
        assert f'href="{target}"' in body, target


def test_literature_claims_most_and_the_gpt4_report_is_listed(page, facts):
    """Correction 10: "most" of the papers report temperature scaling; the one that does not is in the list."""
    text = section_text(page, "beyond")
    assert "most of the papers below report it" in text and "the GPT-4 report does not" in text
    assert "GPT-4 Technical Report" in section_text(page, "sources")
    assert f"OpenAI, {facts['src'].openai.year}" in text


def test_canonical_calibration_is_sufficient_and_cited(page, facts):
    """Correction 11: canonical calibration is sufficient for both other kinds, not the only way; cited (in the
    measurement contract, where issue 26's core path moved the kinds of calibration)."""
    text = section_text(page, "contract")
    assert "only canonical" not in text.lower() and "sufficient for both of the others, not necessary" in text
    assert f"Vaicenavicius et al., {facts['src'].vaicenavicius.year}" in text


def test_the_printed_box_muller_rebuilds_the_data_and_the_textbook_one_does_not(page, facts):
    """Correction 12: an independent LCG (the page's constants) and the page's formula, sqrt(−2 ln(1 − u1)) times
    cos and sin of 2π u2, rebuild the over-confident logits to floating-point accuracy; ln u1 does not."""
    lcg, recipe = facts["lcg"], facts["recipe"]
    n = 50
    state, draws = recipe.overconfident_seed, []
    for _ in range(12 * n):
        state = (lcg.multiplier * state + lcg.increment) % lcg.modulus
        draws.append(state / lcg.modulus)
    u = np.array(draws).reshape(n, 12)

    def logits(log_of):
        pairs = u[:, :10].reshape(n, 5, 2)
        radius = np.sqrt(-2.0 * log_of(pairs[..., 0]))
        angle = 2.0 * np.pi * pairs[..., 1]
        z = recipe.latent_scale * np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=-1).reshape(n, 10)
        z[np.arange(n), np.minimum((u[:, 10] * 10).astype(int), 9)] += recipe.latent_boost
        return recipe.overconfident_sharpness * z

    released = calib.load("overconfident").logits[:n]
    assert np.allclose(logits(lambda v: np.log(1.0 - v)), released, atol=1e-9)
    assert not np.allclose(logits(np.log), released, atol=1e-3)
    text = section_text(page, "data")
    assert "ln ( 1 − u 1 )" in text and "The textbook form has ln u 1" in text


def test_terms_come_with_their_definitions(page):
    """Correction 13: the explorer's calibrator menu points to where the calibrators are defined; CORP is
    spelled out; MCB is in the Brier score's units."""
    body = re.search(r'<section id="explorer"[^>]*>(.*?)</section>', page, re.S).group(1)
    text = section_text(page, "explorer")
    assert "Calibrator replaces temperature scaling" in text and 'href="#beyond"' in body
    smooth = section_text(page, "smooth")
    assert "consistent, optimally binned, reproducible, and based on the PAV algorithm" in smooth
    assert "in the Brier score's own units" in smooth


def test_calibration_tests_on_the_page_are_the_engines_and_the_claims_hold(page, facts):
    """Evidence item 2: the p-values beside the ranges. Each ECE is recomputed here with calib.ece on the test rows
    (15 equal-width bins); the p-values are the facts' (calib.caltest's estimators are tested from their papers
    in tests/test_caltest.py); the sentences' claims (who is rejected where) hold; the size check covers 5%."""
    ev = facts["ev"]
    text = section_text(page, "chance")
    table = re.search(r'<table[^>]*id="caltest-table".*?</table>', page, re.S).group(0)
    for row in ev.tests.rows:
        data, cal, t = _split(row.name)
        for key, temperature in (("t1", 1.0), ("fit", t)):
            value = calib.ece(*calib.top_label(data.logits[~cal], data.labels[~cal], temperature), B_TABLE)
            test = getattr(row, key)
            assert test.ece.statistic == pytest.approx(value, abs=1e-12)
            assert pct(value, 1) in table and f"p = {fixed(test.skce.p, 3)}" in table
            assert 1 / (ev.test_draws + 1) <= test.ece.p <= 1 and 1 / (ev.skce_draws + 1) <= test.skce.p <= 1
    oc, mixed, s60 = ev.tests.overconfident, ev.tests.mixed, ev.tests.sim_60
    assert all(t.reject for t in (oc.t1.ece, oc.t1.skce, mixed.t1.ece, mixed.t1.skce, mixed.fit.ece, mixed.fit.skce))
    assert not any(t.reject for t in (oc.fit.ece, oc.fit.skce, s60.t1.ece, s60.t1.skce))
    assert oc.t1.ece.p == 1 / (ev.test_draws + 1)  # "the smallest … draws can give"
    assert ev.size.lo <= ev.level <= ev.size.hi
    for value in (fixed(oc.fit.ece.p, 3), fixed(mixed.fit.skce.p, 3), pct(ev.size.share, 1), f"{ev.size.sets} outcome"):
        assert value in text, value


def test_corp_decomposition_on_the_page_and_its_claims(page, facts):
    """Evidence item 3: MCB, DSC and UNC with their ranges. Each term recomputed here from scikit-learn's isotonic
    regression (Dimitriadis et al.'s definitions); the claims in words hold."""
    from sklearn.isotonic import IsotonicRegression

    c = facts["ev"].corp
    data, cal, t = _split("overconfident")
    table = re.search(r'<table[^>]*id="corp-table".*?</table>', page, re.S).group(0)
    for key, temperature in (("t1", 1.0), ("fit", t)):
        conf, hits = calib.top_label(data.logits[~cal], data.labels[~cal], temperature)
        hits = hits.astype(float)
        recal = IsotonicRegression().fit_transform(conf, hits)
        score, s_recal, unc = np.mean((conf - hits) ** 2), np.mean((recal - hits) ** 2), hits.mean() * (1 - hits.mean())
        row = getattr(c, key)
        for term, value in ((row.score, score), (row.mcb, score - s_recal), (row.dsc, unc - s_recal), (row.unc, unc)):
            assert term.value == pytest.approx(value, abs=1e-9)
            assert fixed(value, 4) in table and term.lo <= term.hi
    assert c.t1.unc.value == c.fit.unc.value
    assert c.t1.mcb.value > 5 * c.t1.null_hi and c.fit.mcb.value < c.fit.null_hi  # "many times"; "below it"
    assert c.fit.mcb.value < c.fit.mcb.lo  # "sits above the estimate itself"
    text = section_text(page, "smooth")
    assert fixed(c.fit.mcb.lo, 4) in text and fixed(c.t1.dsc.value, 4) in text


def test_classwise_diagrams_beside_the_top_label_one(page, built_site, facts):
    """Evidence item 3: the small multiples are a figure every reader gets (an <img>, not only under <noscript>),
    with one panel per class; the table behind the disclosure holds each panel's ECE, recomputed here class by
    class with a plain loop over the bins; the claims in words hold."""
    v = facts["ev"].classwise.overconfident
    body = re.search(r'<section id="beyond"[^>]*>(.*?)</section>', page, re.S).group(1)
    image = re.search(r'<img class="chart" src="(figures/classwise-overconfident\.en\.svg)"[^>]*loading="lazy"', body)
    assert image and (built_site / image.group(1)).exists()
    svg = (built_site / image.group(1)).read_text(encoding="utf-8")
    assert all(f"class {k}" in svg for k in range(v.k)) and "top label" in svg
    data, cal, t = _split("overconfident")
    z, y = data.logits[~cal], data.labels[~cal]
    table = re.search(r'<details class="figure-table" id="classwise-table-overconfident">.*?</details>', body, re.S)
    for key, temperature in (("t1", 1.0), ("fit", t)):
        probs = calib.scaled_probs(z, temperature)
        eces = []
        for k in range(v.k):
            ids = np.minimum((probs[:, k] * facts["ev"].classwise.bins).astype(int), facts["ev"].classwise.bins - 1)
            gap = sum(abs(np.sum((y == k)[ids == b]) - np.sum(probs[ids == b, k])) for b in np.unique(ids))
            eces.append(gap / y.size)
            assert getattr(v, key).classes[k].ece == pytest.approx(eces[-1], abs=1e-12)
        assert pct(np.mean(eces), 1) in table.group(0)
    assert all(f.ece < b.ece for b, f in zip(v.t1.classes, v.fit.classes))  # "every class's ECE falls"
    assert pct(v.fit.cw_ece, 1) in section_text(page, "beyond")


def test_the_real_network_on_the_page_and_what_changes(page, facts, built_site):
    """Evidence item 4: the digits network's logits are a built-in dataset with its own explorer data, quoted in
    #beyond and described in #data; the paragraph's claims hold against the engine (recomputed where cheap)."""
    by, ev, digits = facts["by"], facts["ev"], facts["digits_mlp"]
    data, cal, t = _split("digits-mlp")
    z, y = data.logits[~cal], data.labels[~cal]
    assert int(np.sum(z.argmax(axis=1) != y)) == ev.real.errors and t == pytest.approx(digits.fitted_t, abs=1e-9)
    assert abs(digits.fitted_t - facts["overconfident"].fitted_t) < 0.3  # "by about the same factor"
    table = by.cmp.digits_mlp
    assert "vector" in table.skipped and "vector" not in {r.method for r in table.rows}
    assert table.histogram.zero_rows > 0 and table.isotonic.zero_rows > 0
    assert table.scaling_binning.changed_rows > 0 and table.scaling_binning.accuracy.hi < 0
    assert table.matrix.nll.lo < 0 < table.matrix.nll.hi  # "ties temperature scaling"
    cells = [(getattr(r, s).lo, getattr(r, s).hi) for r in table.rows[1:] for s in calib.COMPARE_SCORES]
    assert sum(lo < 0 < hi for lo, hi in cells) > len(cells) / 2  # "most paired ranges include zero"
    text = section_text(page, "beyond")
    for value in (temp(digits.fitted_t), fixed(digits.t1.nll, 3), fixed(digits.fit.nll, 3),
                  f"only {ev.real.errors} are", pct(digits.t1.ece_w[15], 1),
                  f"{table.scaling_binning.changed_rows} test rows", fixed(table.matrix.nll.value, 4)):
        assert value in text, value
    assert (built_site / "data" / "digits-mlp.js").exists() and (built_site / "data" / "digits-mlp-methods.js").exists()
    data_text = section_text(page, "data")
    assert "Handwritten digits, a real network" in data_text and "CC BY 4.0" in data_text
    assert "tools/train_digits_mlp.py" in data_text and str(facts["recipe"].digits_seed) in data_text


def test_the_real_networks_classwise_story(facts):
    """The class-wise paragraph's claims about the digits network: its NLL falls while, with the diagrams' bins, its
    top-label and class-wise ECE do not (a "less tidy story"), both under a couple of points ("small numbers")."""
    v, digits = facts["ev"].classwise.digits_mlp, facts["digits_mlp"]
    assert digits.fit.nll < digits.t1.nll and v.fit.top.ece >= v.t1.top.ece and v.fit.cw_ece > v.t1.cw_ece
    assert max(v.t1.top.ece, v.fit.top.ece, v.t1.cw_ece, v.fit.cw_ece) < 0.02
    assert facts["ev"].classwise.keys == ["overconfident", "digits_mlp"]  # "second below"
