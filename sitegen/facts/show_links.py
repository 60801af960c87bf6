"""The prose's "show me" links: each puts an explorer into one state the sentence describes and scrolls to it.

A link is ``#<explorer id>/state/<fields>`` in the URL grammar of ``static/js/hash.js`` (docs/links.md):
the whole state (dataset, temperature, scheme, bins, part, and for a dataset with groups the group
and ``own``, each group at its own fitted T), so following it shows exactly that state whatever the
reader did before. Every temperature and bin count comes from the engine's facts; the prose names a
link (``{{ show.six_fit }}``) and never types one.
"""

from types import SimpleNamespace

from sitegen.common.settings import WORKED_EXAMPLE_BINS

__all__ = ["MAIN_EXPLORER", "state_link", "show_links"]

MAIN_EXPLORER = "ex1"   # the explorer that keeps its state in the URL (templates/components/explorer.html.j2)
HERO = "hero"  # the figure at the top of the page (templates/components/hero.html.j2, static/js/hero.js)
PARADOX_FIGURE = "pdx"  # the paradox's step figure (templates/components/paradox-figure.html.j2)
SOFTMAX_DEMO, NLL_CURVE = "sm1", "fit1"  # templates/components/softmax-demo.html.j2, nll-curve.html.j2
RELIABILITY_DEMO = "rel1"  # the worked example's reliability diagram (templates/components/reliability-demo.html.j2)


def state_link(result, t, bins, scheme="equal-width", part=None, group=None, own=False, widget=MAIN_EXPLORER,
               place=None):
    """The href that shows dataset ``result`` (a precomputed dataset) at temperature ``t`` with ``bins`` bins
    in explorer ``widget``: ``part`` defaults to the test rows of a split dataset (else its only part);
    ``group`` (default ``pooled``) and ``own`` are written for a dataset with groups. ``t`` is written with
    five significant digits, as the explorer writes it (it shows the nearest grid point). ``place`` is the
    id the page scrolls to (default: the explorer itself), e.g. one of its panels."""
    parts = list(result.parts)
    part = part or ("test" if "test" in parts else parts[0])
    if part not in parts:
        raise ValueError(f"{result.dataset.name}: no part {part!r} (parts: {', '.join(parts)})")
    fields = [("dataset", result.dataset.name), ("t", f"{float(t):.5g}"), ("scheme", scheme), ("bins", int(bins)),
              ("part", part)]
    if result.groups is not None:
        fields += [("group", group or "pooled"), ("own", int(bool(own)))]
    if widget != MAIN_EXPLORER:
        fields.append(("widget", widget))
    return f"#{place or widget}/state/" + "&".join(f"{key}={value}" for key, value in fields)


def show_links(datasets, facts):
    """``show``: every "show me" link the prose uses, by name, from the precomputed ``datasets`` and the
    ``facts`` (:func:`sitegen.facts.results.build_facts`, with ``an`` and ``ex``)."""
    six, over, mixed, sim = (datasets[name] for name in ("six", "overconfident", "mixed", "sim-600"))
    f_six, an, ex = facts["six"], facts["an"], facts["ex"]
    table, few, worked = an.table_bins, an.few_bins, WORKED_EXAMPLE_BINS
    # the jumps are examples crossing bin edges: seen in the explorer's reliability diagram
    at = f"{MAIN_EXPLORER}-reliability"
    jumps = [SimpleNamespace(before=state_link(six, j.before, worked, place=at),
                             after=state_link(six, j.after, worked, place=at))
             for j in f_six.jumps_to_fit]
    # the hero's states (templates/components/hero.html.j2): the worked example, four equal-width bins
    hero, pdx = dict(widget=HERO, place=HERO), dict(widget=PARADOX_FIGURE, place=PARADOX_FIGURE)
    f_soft = facts["softmax_example"]
    return SimpleNamespace(
        hero_t1=state_link(six, 1.0, worked, **hero), hero_fit=state_link(six, six.fitted_t, worked, **hero),
        # the paradox's figure, the same one stepped through: T = 1, each side of each jump, the fitted T
        pdx_t1=state_link(six, 1.0, worked, **pdx), pdx_fit=state_link(six, six.fitted_t, worked, **pdx),
        pdx_jumps=[SimpleNamespace(before=state_link(six, j.before, worked, **pdx),
                                   after=state_link(six, j.after, worked, **pdx)) for j in f_six.jumps_to_fit],
        # the section figures' own states: the softmax demo, the NLL curve, the reliability diagram
        sm_sharp=state_link(six, f_soft.sharp.t, worked, widget=SOFTMAX_DEMO),
        sm_t1=state_link(six, 1.0, worked, widget=SOFTMAX_DEMO),
        sm_fit=state_link(six, six.fitted_t, worked, widget=SOFTMAX_DEMO),
        sm_soft=state_link(six, f_soft.soft.t, worked, widget=SOFTMAX_DEMO),
        fit1_t1=state_link(six, 1.0, worked, widget=NLL_CURVE),
        fit1_fit=state_link(six, six.fitted_t, worked, widget=NLL_CURVE),
        six_fit_rel=state_link(six, six.fitted_t, worked, widget=RELIABILITY_DEMO),
        six_t1_rel=state_link(six, 1.0, worked, widget=RELIABILITY_DEMO),
        six_fit=state_link(six, six.fitted_t, worked),
        jumps=jumps,
        three_t1=state_link(six, 1.0, ex.three_bins.bins),
        three_fit=state_link(six, six.fitted_t, ex.three_bins.bins),
        over_t1=state_link(over, 1.0, table),
        over_fit=state_link(over, over.fitted_t, table),
        over_fit_few=state_link(over, over.fitted_t, few),
        mixed_t1=state_link(mixed, 1.0, table),
        mixed_fit=state_link(mixed, mixed.fitted_t, worked),
        mixed_b_global=state_link(mixed, an.mixed.sub.t_global, table, group="B"),
        mixed_b_own=state_link(mixed, an.mixed.sub.t_group["B"], table, group="B", own=True),
        sim_cal=state_link(sim, sim.fitted_t, table, part="calibration"),
        sim_test=state_link(sim, sim.fitted_t, table, part="test"),
    )
