"""What the page stage needs besides the precomputation, computed once per test session.

Not a test module: ``test_sitegen_page.py`` and ``test_sitegen_tables.py`` both
import it, and the cache makes them share one computation (the analyses take
several seconds).
"""

_CACHE = {}


def page_inputs(precomputed):
    """``(analyses, facts, figures)`` for the session's ``precomputed`` fixture (English figures)."""
    if id(precomputed) not in _CACHE:
        from sitegen.analysis import precompute_analyses
        from sitegen.analysis_facts import build_analysis_facts
        from sitegen.facts import build_facts
        from sitegen.figures import render_figures

        analyses = precompute_analyses(precomputed)
        facts = build_facts(precomputed)
        facts.update(build_analysis_facts(precomputed, analyses))
        from sitegen.exercise_facts import build_exercise_facts

        facts.update(build_exercise_facts(precomputed))  # as build.py does
        from sitegen.beyond import build_beyond_facts

        facts.update(build_beyond_facts(precomputed))  # as build.py does: #beyond reads by.* and lit.*
        from pathlib import Path

        from sitegen.content import load_strings

        english = load_strings(Path(__file__).resolve().parents[1] / "content" / "en")
        _CACHE[id(precomputed)] = (precomputed, analyses, facts, render_figures(precomputed, english))
    return _CACHE[id(precomputed)][1:]
