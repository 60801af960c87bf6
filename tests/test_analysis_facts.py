"""The numbers issue 12 added to the prose, each tied to the engine by an independent recomputation or a property.

* the exceedance tail (how many bins a calibrated model leaves outside its bands): the engine's law against an
  exact calculation and a brute-force count over a simulation of our own; the binomial bound against scipy;
* the paired change from T = 1 to the fitted T: against a plain resampling loop of per-row differences;
* the Monte Carlo intervals of quoted quantiles: they bracket the quantile, and 200 resamples give wider ones
  than 2,000; the explorer's redraw equals the explorer's own band;
* the fitted T's spread on sim-600: against refits with calib.fit_temperature one resample (or label set) at a time;
* the marginal balance: slopes and curvatures against finite differences of calib.nll in β = 1/T;
* the worked example's roles, the paradox's bin-count verdict and the sources registry.
"""

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sitegen_inputs import page_inputs

import calib
from calib import marginal_balance, row_scores
from sitegen.analyses.uncertainty import fit_spread, part_generator, quote_part
from sitegen.common.settings import TABLE_BINS
from sitegen.facts.results import fact_key
from sitegen.facts.sources import load_sources, source_link

ROOT = Path(__file__).resolve().parents[1]
SOURCES = load_sources(ROOT / "content" / "sources.toml")
SPLIT = ("sim-60", "sim-600", "overconfident", "mixed")


@pytest.fixture(scope="module")
def inputs(precomputed):
    analyses, facts, _ = page_inputs(precomputed)
    return precomputed, analyses, facts


def split_rows(name, part="test"):
    data = calib.load(name)
    rows = ~data.is_calibration if part == "test" else data.is_calibration
    return data.logits[rows], data.labels[rows]


# ---------------------------------------------------------------- the exceedance tail

def exact_outside_law(confidence, n_bins, band):
    """The exact law of the number of equal-width bins outside ``band`` when every outcome is Bernoulli(confidence):
    per bin, the exact Poisson-binomial law of its successes (by enumeration), then a convolution over bins."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bin_of = np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, n_bins - 1)
    law = np.zeros(n_bins + 1)  # one entry per count 0..B, like NoiseFloor.outside (empty bins never stray)
    law[0] = 1.0
    for b in range(n_bins):
        p = confidence[bin_of == b]
        if p.size == 0:
            continue
        pmf = np.array([1.0])
        for q in p:  # successes of this bin
            pmf = np.convolve(pmf, [1 - q, q])
        accuracy = np.arange(p.size + 1) / p.size
        out = float(pmf[(accuracy < band[b, 0]) | (accuracy > band[b, 1])].sum())
        law = np.convolve(law, [1 - out, out])[:n_bins + 1]
    return law


def test_outside_law_matches_an_exact_calculation_and_a_brute_force_count():
    rng = np.random.default_rng(11)
    confidence = np.sort(rng.uniform(0.35, 0.98, 40))
    n_bins, draws = 5, 4000
    floor = calib.noise_floor(confidence, (n_bins,), max_bins=n_bins, n_draws=draws, sweep_draws=0, rng=5)
    band = floor.band["equal-width"][n_bins][0]
    law = floor.outside["equal-width"][n_bins][0]
    exact = exact_outside_law(confidence, n_bins, band)
    assert law.shape == exact.shape
    tolerance = 4 * np.sqrt(exact * (1 - exact) / draws) + 1e-3
    assert np.all(np.abs(law - exact) <= tolerance)
    # brute force: our own outcomes, our own count, the engine's bands
    outcomes = rng.random((20000, confidence.size)) < confidence
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bin_of = np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, n_bins - 1)
    counts = np.zeros(outcomes.shape[0], dtype=int)
    for b in sorted(set(bin_of.tolist())):  # the band has a row per bin, NaN where a bin is empty
        accuracy = outcomes[:, bin_of == b].mean(axis=1)
        counts += (accuracy < band[b, 0]) | (accuracy > band[b, 1])
    for k in range(law.size):
        brute = np.mean(counts >= k)
        engine = calib.tail_share(law, k)
        assert abs(engine - brute) <= 4 * np.sqrt(brute * (1 - brute) / 4000) + 2e-3, (k, engine, brute)
    assert calib.tail_share(law, law.size + 3) == 0.0


def test_band_facts_count_and_tail_come_from_the_engine(inputs):
    precomputed, analyses, facts = inputs
    for name in SPLIT:
        analysis = analyses.datasets[name]
        part = analysis.parts["test"]
        for state, index in (("t1", precomputed.t1_index), ("fit", analysis.fitted_index)):
            j = int(np.flatnonzero(analysis.subgrid == index)[0])
            bins = precomputed.datasets[name].parts["test"].bins["equal-width"][TABLE_BINS]
            band = part.floor.band["equal-width"][TABLE_BINS][j]
            used = bins.count[index] > 0
            outside = calib.bins_outside(bins.accuracy[index][used], bins.count[index][used], band[used])
            view = getattr(getattr(facts["an"], fact_key(name)).rep, state).bands
            assert view.outside == outside and view.bins == int(used.sum())
            law = part.floor.outside["equal-width"][TABLE_BINS][j]
            assert view.tail == pytest.approx(float(law[outside:].sum()), abs=1e-12)
            assert view.tail_draws == round(view.tail * part.floor.n_draws)


def test_binomial_bound_is_the_binomial_tail_and_bounds_the_simulated_law(inputs):
    _, analyses, facts = inputs
    bound = facts["an"].outside_bound
    assert bound.bins == TABLE_BINS and bound.p == pytest.approx(0.10)
    for k in range(bound.bins + 1):
        assert bound.tail[k] == pytest.approx(stats.binom.sf(k - 1, bound.bins, bound.p), rel=1e-9, abs=1e-15)
    assert (bound.at_10.k, bound.at_5.k) == (4, 5)
    assert bound.at_10.share == pytest.approx(0.0556, abs=5e-5) and bound.at_5.share == pytest.approx(0.0127, abs=5e-5)
    # the independent-bins bound holds (up to Monte Carlo error) for every simulated law with at most 15 bins
    for name in SPLIT:
        floor = analyses.datasets[name].parts["test"].floor
        law = floor.outside["equal-width"][TABLE_BINS]
        for row in law:
            used = row.size - 1
            for k in range(1, used + 1):
                assert calib.tail_share(row, k) <= bound.tail[k] + 4 * math.sqrt(bound.tail[k] / floor.n_draws) + 2e-3


# ---------------------------------------------------------------- the paired change and the quoted spreads

def per_row(name, t_fit):
    z, y = split_rows(name)
    at1, atf = row_scores(z, y, 1.0), row_scores(z, y, t_fit)
    return z, y, at1, atf


@pytest.mark.parametrize("name", ["sim-600", "mixed"])
def test_paired_change_matches_a_plain_resampling_loop(inputs, name):
    precomputed, _, facts = inputs
    paired = getattr(facts["an"], fact_key(name)).rep.paired
    t_fit = precomputed.datasets[name].fitted_t
    z, y, at1, atf = per_row(name, t_fit)
    assert paired.nll.change == pytest.approx(calib.nll(z, y, t_fit) - calib.nll(z, y, 1.0), abs=1e-12)
    assert paired.brier.change == pytest.approx(calib.brier(z, y, t_fit) - calib.brier(z, y, 1.0), abs=1e-12)
    ece = {t: calib.ece(*calib.top_label(z, y, t), TABLE_BINS) for t in (1.0, t_fit)}
    assert paired.ece.change == pytest.approx(ece[t_fit] - ece[1.0], abs=1e-12)
    rng = np.random.default_rng(2024)
    picks = rng.integers(0, y.size, size=(2000, y.size))
    d_nll = (atf[2] - at1[2])[picks].mean(axis=1)
    d_brier = (atf[3] - at1[3])[picks].mean(axis=1)
    correct = at1[1]
    d_ece = np.array([calib.ece(atf[0][p], correct[p], TABLE_BINS) - calib.ece(at1[0][p], correct[p], TABLE_BINS)
                      for p in picks[:500]])
    for ours, theirs, tol in ((d_nll, paired.nll, 0.006), (d_brier, paired.brier, 0.003), (d_ece, paired.ece, 0.008)):
        lo, hi = np.quantile(ours, (0.05, 0.95))
        assert lo == pytest.approx(theirs.lo, abs=tol) and hi == pytest.approx(theirs.hi, abs=tol)
    assert paired.nll.lower == pytest.approx(np.mean(d_nll < 0), abs=0.03)
    assert paired.nll.gain == -paired.nll.change and paired.nll.gain_lo == -paired.nll.hi


def test_paired_ranges_are_tighter_than_the_marginal_spreads(inputs):
    """Pairing removes the shared movement: always tighter than two independent spreads would combine to, and on
    sim-600 (where the prose shows it) far tighter than either spread alone."""
    an = inputs[2]["an"]
    for key in ("sim_60", "sim_600", "overconfident", "mixed"):
        rep = getattr(an, key).rep
        width = rep.paired.nll.hi - rep.paired.nll.lo
        marginal = [p.boot.nll.hi - p.boot.nll.lo for p in (rep.t1, rep.fit)]
        assert width < 0.8 * math.hypot(*marginal), key
    rep = an.sim_600.rep
    assert rep.paired.nll.hi - rep.paired.nll.lo < 0.5 * min(p.boot.nll.hi - p.boot.nll.lo for p in (rep.t1, rep.fit))
    assert rep.t1.boot.nll.lo < rep.fit.boot.nll.hi  # the two spreads overlap, as the prose says


def test_quoted_spreads_match_a_resampling_loop_and_carry_their_monte_carlo_error(inputs):
    precomputed, analyses, facts = inputs
    rep = facts["an"].sim_600.rep
    z, y, at1, _ = per_row("sim-600", precomputed.datasets["sim-600"].fitted_t)
    picks = np.random.default_rng(99).integers(0, y.size, size=(2000, y.size))
    lo, hi = np.quantile(at1[2][picks].mean(axis=1), (0.05, 0.95))
    assert lo == pytest.approx(rep.t1.boot.nll.lo, abs=0.008) and hi == pytest.approx(rep.t1.boot.nll.hi, abs=0.008)
    quoted = analyses.datasets["sim-600"].quoted["test"]
    # every quoted quantile lies inside its Monte Carlo interval, and 200 resamples give wider intervals than 2,000
    for spread, interval in ((quoted.spread.nll, quoted.interval.nll),
                             (quoted.explorer_spread.nll, quoted.explorer_interval.nll)):
        assert np.all(interval[..., 0] <= spread.T + 1e-12) and np.all(spread.T <= interval[..., 1] + 1e-12)
    narrow = quoted.interval.ece["equal-width"][TABLE_BINS]
    wide = quoted.explorer_interval.ece["equal-width"][TABLE_BINS]
    assert np.all(np.diff(wide, axis=-1) > np.diff(narrow, axis=-1))
    # the ranks behind an interval: 2.5% and 97.5% tails of Binomial(R, q), checked with scipy
    ranks, _ = calib.order_statistic_ranks(quoted.n_resamples, (0.05,), quoted.level)
    assert stats.binom.cdf(ranks[0, 0], quoted.n_resamples, 0.05) <= (1 - quoted.level) / 2
    assert stats.binom.cdf(ranks[0, 0] + 1, quoted.n_resamples, 0.05) > (1 - quoted.level) / 2
    # the prose's claims about these errors
    assert rep.t1.boot.ece.mc < 0.005
    band = rep.t1.explorer.ece
    assert max(band.hi_to - band.hi, band.hi - band.hi_from) > 0.01


def test_explorer_redraw_is_the_explorer_band(inputs):
    """quote_part redraws the explorer's own 200 resamples: its quantiles equal the explorer's band at both
    temperatures."""
    precomputed, analyses, _ = inputs
    for name in SPLIT:
        analysis = analyses.datasets[name]
        for part, q in analysis.quoted.items():
            spread = analysis.parts[part].bootstrap
            for column, index in enumerate((precomputed.t1_index, analysis.fitted_index)):
                j = int(np.flatnonzero(analysis.subgrid == index)[0])
                # same resamples; the per-row scores come from two softmax kernels that agree to rounding
                assert np.allclose(q.explorer_spread.nll[column], spread.nll[j], rtol=1e-12, atol=0)
                assert np.allclose(q.explorer_spread.ece["equal-width"][TABLE_BINS][column],
                                   spread.ece["equal-width"][TABLE_BINS][j], rtol=0, atol=1e-9)


def test_quoted_streams_are_their_own():
    """The quoted bootstrap draws from its own stream: not the explorer's, and the same again for the same seed."""
    z, y = split_rows("sim-60")
    first = quote_part("test", z, y, 1.5, seed=3, dataset="sim-60", n_resamples=50, explorer_resamples=50)
    again = quote_part("test", z, y, 1.5, seed=3, dataset="sim-60", n_resamples=50, explorer_resamples=50)
    assert np.array_equal(first.spread.nll, again.spread.nll)
    assert not np.array_equal(first.spread.nll, first.explorer_spread.nll)
    with pytest.raises(ValueError, match="purpose"):
        part_generator(3, "sim-60", "test", "nothing")


# ---------------------------------------------------------------- the fitted temperature's spread

def test_fit_spread_agrees_with_one_fit_at_a_time(inputs):
    precomputed, analyses, facts = inputs
    spread = facts["an"].sim_600.fit_spread
    z, y = split_rows("sim-600", "calibration")
    assert spread.t == precomputed.datasets["sim-600"].fitted_t and spread.truth == 1.8 and spread.n == y.size == 300
    raw = analyses.datasets["sim-600"].fit_spread
    assert (spread.reach == np.mean(raw.bootstrap >= raw.truth)
            and spread.below == np.mean(raw.under_truth <= raw.fitted_t))
    rng = np.random.default_rng(31)
    boot = np.array([calib.fit_temperature(z[p], y[p]) for p in rng.integers(0, y.size, size=(300, y.size))])
    assert np.median(boot) == pytest.approx(spread.mid, abs=0.03)
    assert np.quantile(boot, 0.025) == pytest.approx(spread.lo, abs=0.06)
    assert np.quantile(boot, 0.975) == pytest.approx(spread.hi, abs=0.08)
    p = calib.scaled_probs(z, spread.truth)
    labels = (rng.random((300, y.size, 1)) > np.cumsum(p, axis=1)[None]).sum(axis=2).clip(0, 2)
    truth = np.array([calib.fit_temperature(z, lab) for lab in labels])
    assert np.median(truth) == pytest.approx(spread.truth_mid, abs=0.04)
    assert np.mean(truth <= spread.t) == pytest.approx(spread.below, abs=0.03)
    # the prose: the truth barely within reach of the bootstrap, the fit near the 2.5% point under the truth
    assert spread.lo < spread.t < spread.hi < spread.truth < spread.truth_hi
    assert 0.005 < spread.reach < 0.05 and 0.01 < spread.below < 0.06


def test_fit_spread_with_a_known_answer():
    """Labels drawn at T = 1 from many rows: refits centre on 1 under the truth and in the bootstrap."""
    rng = np.random.default_rng(4)
    z = rng.normal(0, 2, (400, 3))
    y = (rng.random((400, 1)) > np.cumsum(calib.scaled_probs(z, 1.0), axis=1)).sum(axis=1).clip(0, 2)
    t = calib.fit_temperature(z, y)
    result = fit_spread(z, y, t, 1.0, seed=1, dataset="check", n_resamples=300, truth_draws=300)
    assert result.truth_q[1] == pytest.approx(1.0, abs=0.05)
    assert result.bootstrap_q[0] < t < result.bootstrap_q[2]
    assert result.truth_q[0] < 1.0 < result.truth_q[2]


# ---------------------------------------------------------------- the marginal balance

def nll_slope_curvature(z, y, t, share, step=1e-4):
    """Finite differences of share · NLL in β = 1/T, from calib.nll alone."""
    beta = 1.0 / t
    f = [share * calib.nll(z, y, 1.0 / (beta + d)) for d in (-step, 0.0, step)]
    return (f[2] - f[0]) / (2 * step), (f[2] - 2 * f[1] + f[0]) / step ** 2


def test_group_slopes_cancel_and_curvatures_match_finite_differences(inputs):
    precomputed, _, facts = inputs
    balance = facts["an"].mixed.balance
    data = calib.load("mixed")
    cal = data.is_calibration
    t = precomputed.datasets["mixed"].fitted_t
    assert balance.t == t and balance.up.name == "A"
    found = {}
    for g in ("A", "B"):
        rows = cal & (data.groups == g)
        found[g] = nll_slope_curvature(data.logits[rows], data.labels[rows], t, rows.sum() / cal.sum())
    assert balance.up.slope == pytest.approx(found["A"][0], abs=1e-5)
    assert balance.rest.slope == pytest.approx(found["B"][0], abs=1e-5)
    assert balance.up.curvature == pytest.approx(found["A"][1], rel=1e-3)
    assert balance.rest.curvature == pytest.approx(found["B"][1], rel=1e-3)
    assert abs(balance.up.slope + balance.rest.slope) < 1e-6 < balance.up.slope
    assert balance.ratio > 1 and balance.ratio == pytest.approx(3.07, abs=0.05)


def test_each_example_share_of_the_slope(inputs):
    precomputed, _, facts = inputs
    six, balance = facts["six"], facts["an"].six.balance
    data = calib.load("six")
    t = precomputed.datasets["six"].fitted_t
    slopes = [nll_slope_curvature(data.logits[[i]], data.labels[[i]], t, 1 / 6)[0] for i in range(6)]
    assert balance.up.name == six.big_miss.number == int(np.argmax(slopes)) + 1
    assert balance.up.slope == pytest.approx(max(slopes), abs=1e-5)
    assert balance.rest.slope == pytest.approx(sum(slopes) - max(slopes), abs=1e-5)
    assert abs(sum(slopes)) < 1e-5


def test_marginal_balance_of_a_made_up_split():
    """Slopes add up to the pooled slope, whatever the grouping; at the pooled fit it is zero."""
    z, y = split_rows("sim-600", "calibration")
    t = calib.fit_temperature(z, y)
    groups = np.arange(y.size) % 3
    balance = marginal_balance(z, y, t, groups)
    assert balance.slope.sum() == pytest.approx(balance.pooled_slope, abs=1e-12)
    assert abs(balance.pooled_slope) < 1e-5
    assert balance.curvature.sum() == pytest.approx(balance.pooled_curvature, rel=1e-12)
    off = marginal_balance(z, y, 2 * t, groups)
    assert off.pooled_slope < -1e-3  # softer than the optimum: sharpening (a larger β) lowers the NLL


# ---------------------------------------------------------------- the prose's other new facts

def test_worked_example_roles_and_verdict(inputs):
    precomputed, _, facts = inputs
    six = facts["six"]
    data = calib.load("six")
    t = precomputed.datasets["six"].fitted_t
    loss = {temp: -np.log(calib.scaled_probs(data.logits, temp)[np.arange(6), data.labels]) for temp in (1.0, t)}
    wrong = [i for i in range(6) if np.argmax(data.logits[i]) != data.labels[i]]
    assert six.big_miss.number == max(wrong, key=lambda i: loss[1.0][i]) + 1
    assert six.small_miss.number == min(wrong, key=lambda i: loss[1.0][i]) + 1
    assert six.n_correct == 6 - len(wrong) and six.hit.number == min(set(range(6)) - set(wrong)) + 1
    others = [i for i in range(6) if i != six.big_miss.number - 1]
    assert six.rest_rise == pytest.approx(sum(loss[t][i] - loss[1.0][i] for i in others), abs=1e-12)
    assert 0 < six.rest_rise < loss[1.0][six.big_miss.number - 1] - loss[t][six.big_miss.number - 1]
    verdict = six.ece_verdict_w
    for b in range(1, verdict.max_bins + 1):
        before, after = (calib.ece(*calib.top_label(data.logits, data.labels, temp), b) for temp in (1.0, t))
        assert (b in verdict.lower) == (after < before) and (b in verdict.higher) == (after > before)
    assert verdict.lower and verdict.higher


def test_brier_and_nll_agree_only_where_the_family_holds_the_truth(inputs):
    facts = inputs[2]
    oc, mixed = facts["overconfident"], facts["mixed"]
    assert abs(oc.brier_grid_t - oc.fitted_t) < 0.02
    assert mixed.brier_grid_t < 1 < mixed.fitted_t


EXPECTED_IDENTIFIERS = {
    "guo": "arXiv:1706.04599", "naeini": "doi:10.1609/aaai.v29i1.9602", "kumar": "arXiv:1909.10155",
    "roelofs": "arXiv:2012.08668", "vaicenavicius": "arXiv:1902.06977", "blasiok_nakkiran": "arXiv:2309.12236",
    "blasiok_et_al": "arXiv:2211.16886", "gneiting_raftery": "doi:10.1198/016214506000001437",
    "ovadia": "arXiv:1906.02530", "brier": "doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2",
    "zadrozny_elkan": "doi:10.1145/775047.775151", "niculescu_mizil_caruana": "doi:10.1145/1102351.1102430",
    "widmann": "arXiv:1910.11385", "kull": "arXiv:1910.12656", "gupta_ramdas": "arXiv:2107.08353",
    "hebert_johnson": "arXiv:1711.08513", "kleinberg": "arXiv:1609.05807", "pleiss": "arXiv:1709.02012",
    "murphy_winkler": "doi:10.2307/2346866", "degroot_fienberg": "doi:10.2307/2987588", "nixon": "arXiv:1904.01685",
    "minderer": "arXiv:2106.07998", "brocker_smith": "doi:10.1175/WAF993.1",
    "platt": None, "numerical_recipes": None,
    "sklearn": "https://scikit-learn.org/stable/modules/calibration.html",
    "wang_feng_zhang": None,
    "white": "doi:10.2307/1912526", "dimitriadis": "doi:10.1073/pnas.2016191118",  # CORP, PNAS 118(8)
}


def test_sources_registry_holds_the_issue_identifiers_and_links_resolve():
    assert {key: identifier for key, (_, _, identifier) in SOURCES.items()} == EXPECTED_IDENTIFIERS
    assert SOURCES["blasiok_nakkiran"][1] == 2024 and SOURCES["platt"][1] == 2000
    assert SOURCES["numerical_recipes"][1] == 1992
    for key, (_, _, identifier) in SOURCES.items():
        if identifier is None:
            continue
        url, label = source_link(identifier)
        assert re.fullmatch(r"https://(doi\.org/10\.\S+|arxiv\.org/abs/\d{4}\.\d{5}|scikit-learn\.org/\S+)", url), url
        assert "<" not in url and "<" not in label


def test_sources_section_cites_every_source_and_running_text_years_agree():
    text = (ROOT / "content" / "en" / "17-sources.md").read_text(encoding="utf-8")
    for key, (_, year, identifier) in SOURCES.items():
        if year is not None:
            assert f"src.{key}.year" in text, f"the sources section does not list {key}"
        if identifier is not None:
            assert f'href="{{{{ src.{key}.url }}}}"' in text, f"{key} is not linked"
    prose = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "content" / "en").glob("*.md")))
    for key, (cite, year, _) in SOURCES.items():
        if year is None:
            continue
        for match in re.finditer(re.escape(cite) + r",? \(?(\d{4})\)?", prose):
            assert int(match.group(1)) == year, f"{cite} cited as {match.group(1)}, not {year}"
