"""What the page stage needs besides the precomputation, computed once per test session.

Not a test module: several test files import it, and they share one computation per test run (the
analyses take seconds), across the processes of ``pytest -n`` too (tests/shared_values.py).
"""

_CACHE = {}


def page_inputs(precomputed):
    """``(analyses, facts, figures)`` for the session's ``precomputed`` fixture (English figures and charts)."""
    if id(precomputed) not in _CACHE:
        from shared_values import shared_value

        _CACHE[id(precomputed)] = (precomputed, *shared_value("page_inputs", lambda: _compute(precomputed)))
    return _CACHE[id(precomputed)][1:]


def _compute(precomputed):
    """``(analyses, facts, figures)``, computed as build.py computes them."""
    from pathlib import Path

    from shared_values import cached_step

    from sitegen.analyses.uncertainty import precompute_analyses
    from sitegen.content.sections import load_strings
    from sitegen.facts.beyond_dives import build_beyond_facts
    from sitegen.facts.evidence import build_evidence_facts
    from sitegen.facts.exercise_facts import build_exercise_facts
    from sitegen.facts.results import build_facts
    from sitegen.facts.uncertainty_facts import build_analysis_facts
    from sitegen.figures.charts import chart_figures
    from sitegen.figures.static_svg import render_evidence_figures, render_figures

    # keyed as build.py keys it: the session's build has usually cached them already
    analyses = cached_step("analyses", (precomputed,), lambda: precompute_analyses(precomputed))
    facts = build_facts(precomputed)
    facts.update(build_analysis_facts(precomputed, analyses))
    facts.update(build_exercise_facts(precomputed))
    content = Path(__file__).resolve().parents[1] / "content"
    facts.update(cached_step("beyond", (), build_beyond_facts))  # by.*
    facts.update(cached_step("evidence", (), build_evidence_facts))  # ev.*
    english = load_strings(content / "en")
    figures = {**render_figures(precomputed, english), **chart_figures(facts, english),
               **render_evidence_figures(facts["ev"], english)}
    return analyses, facts, figures
