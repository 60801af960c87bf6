"""What the page stage needs besides the precomputation, computed once per test run.

Not a test module: several test files import it. Each step is read from the run's build cache, keyed as
build.py keys it (tests/shared_values.py): the session's site build has computed them all, and otherwise the
first process to ask computes and stores them. Each process keeps what it read.
"""

_CACHE = {}


def page_inputs(precomputed):
    """``(analyses, facts, figures)`` for the session's ``precomputed`` fixture (English figures and charts)."""
    if id(precomputed) not in _CACHE:
        _CACHE[id(precomputed)] = (precomputed, *_compute(precomputed))
    return _CACHE[id(precomputed)][1:]


def _compute(precomputed):
    """``(analyses, facts, figures)``, computed as build.py computes them, and keyed as it keys them: the
    session's build has usually cached them already (a build without ``--data``: no reader's model)."""
    from pathlib import Path

    from shared_values import cached_reading, cached_step

    from sitegen.analyses.uncertainty import precompute_analyses
    from sitegen.content.sections import load_strings
    from sitegen.facts.beyond_dives import build_beyond_facts
    from sitegen.facts.evidence import build_evidence_facts
    from sitegen.facts.page_facts import page_facts
    from sitegen.figures.charts import chart_figures
    from sitegen.figures.static_svg import render_evidence_figures, render_figures

    content = Path(__file__).resolve().parents[1] / "content"
    sources = content / "sources.toml"
    analyses = cached_step("analyses", (precomputed,), lambda: precompute_analyses(precomputed))
    beyond = cached_step("beyond", (), build_beyond_facts)  # by.*
    evidence = cached_step("evidence", (), build_evidence_facts)  # ev.*

    facts = cached_step("facts", (precomputed, analyses, None, sources, beyond, evidence),
                        lambda: page_facts(precomputed, analyses, sources, beyond, evidence))
    english = load_strings(content / "en")
    figures = {**cached_reading("figures", (precomputed, "en"), english,
                                lambda strings: render_figures(precomputed, strings)),
               **cached_reading("charts", (facts, "en"), english, lambda strings: chart_figures(facts, strings)),
               **cached_reading("evidence-figures", (evidence, "en"), english,
                                lambda strings: render_evidence_figures(evidence["ev"], strings))}
    return analyses, facts, figures
