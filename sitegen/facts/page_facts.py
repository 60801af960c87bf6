"""The page's whole facts context: each namespace of stage 4 gathered into one dict, as build.py keys and
caches it (tests/sitegen_inputs.py reads the same entry)."""

from sitegen.facts.exercise_facts import build_exercise_facts
from sitegen.facts.results import build_facts
from sitegen.facts.uncertainty_facts import build_analysis_facts

__all__ = ["page_facts"]


def page_facts(precomputed, analyses, sources_file, beyond, evidence):
    """``{name: namespace}``: the results of ``precomputed`` (with the bibliography ``sources_file``), the
    ``analyses`` under ``an``, the exercises' numbers, and the deep dives' ``beyond`` and ``evidence`` facts
    (each computed once, on the built-in datasets only)."""
    facts = build_facts(precomputed, sources_file)
    facts.update(build_analysis_facts(precomputed, analyses))
    facts.update(build_exercise_facts(precomputed))
    facts.update(beyond)
    facts.update(evidence)
    return facts
