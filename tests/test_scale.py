"""Tests of the bounded-memory paths for large parts: blocks must not change a figure, and the large-part
approximations (cut noise-floor runs, fewer quoted resamples) must stay within their stated error of the
exact method at n ≤ 20,000.

References are independent of the blocking under test: one-pass computations (``calib.log_softmax`` over
all temperatures, one block of resamples, one block of temperatures) and numpy's own random stream.
"""

import numpy as np
from analysis_inputs import BIN_COUNTS, part_rows, scores

import calib.bootstrap as bootstrap_module
import calib.floor as floor_module
import sitegen.analyses.uncertainty as analysis_module
import sitegen.compute.precompute as precompute_module
from calib import SCHEMES, bootstrap_draws, noise_floor, resample_counts, row_scores_over_grid
from calib.floor import _split_long_runs
from sitegen.analyses.uncertainty import analyse_part, quote_part, quoted_resamples_for
from sitegen.common.settings import LARGE_PART_ROWS, QUOTED_RESAMPLES, RESAMPLES
from sitegen.compute.precompute import build_grid, grid_index, precompute_part, subgrid_indices


def synthetic(n, k, seed):
    """Over-confident logits (n, K) and labels drawn from softmax(z / 1.5)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 3.0
    p = np.exp((z - z.max(axis=1, keepdims=True)) / 1.5)
    p /= p.sum(axis=1, keepdims=True)
    labels = (p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1).clip(0, k - 1)
    return z, labels


def assert_same(a, b, path="result"):
    """Every array, float and key of two nested results is identical (NaN equal to NaN)."""
    if isinstance(a, dict):
        assert list(a) == list(b), path
        for key in a:
            assert_same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, tuple):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True), path
    else:
        assert a == b or (a != a and b != b), path


def test_row_scores_over_grid_equal_the_one_pass_log_softmax_bit_for_bit():
    logits, labels = synthetic(1000, 37, 1)
    temps = np.geomspace(0.2, 5.0, 23)
    confidence, correct, nll = scores(logits, labels, temps)
    for block in (1 << 22, 37 * 64, 5000, 1):
        got = row_scores_over_grid(logits, labels, temps, block_elements=block)
        assert np.array_equal(got[0], confidence) and np.array_equal(got[1], correct)
        assert np.array_equal(got[2], nll)


def test_resample_counts_drawn_in_blocks_equal_one_draw():
    whole = resample_counts(300, 40, np.random.default_rng(9))
    gen = np.random.default_rng(9)
    parts = [resample_counts(300, r, gen) for r in (7, 13, 20)]
    assert np.array_equal(np.concatenate(parts), whole)


def test_bootstrap_in_blocks_of_resamples_equals_one_block(monkeypatch):
    confidence, correct, nll = scores(*part_rows("mixed", "test"), [0.7, 1.0, 1.6])
    one = bootstrap_draws(confidence, correct, nll, BIN_COUNTS, 150, 3, example_brier=confidence ** 2)
    monkeypatch.setattr(bootstrap_module, "RESAMPLE_BLOCK_ELEMENTS", 7 * correct.size)  # 22 blocks, the last short
    blocked = bootstrap_draws(confidence, correct, nll, BIN_COUNTS, 150, 3, example_brier=confidence ** 2)
    # The resamples and the ECE draws are the same bits: counts come from one random stream and the ECE sums
    # run on int64 (calib.bootstrap), whatever the block.
    assert one.n_resamples == blocked.n_resamples
    assert_same(one.draws.ece, blocked.draws.ece)
    assert_same(one.observed, blocked.observed)
    # Mean NLL and Brier are one matrix product per block, counts @ scores.T / n: BLAS sums the n products
    # in an order that depends on the block's shape (and on the CPU's SIMD width), so only the rounding is
    # allowed to differ. Every product is ≥ 0, so any order of the sum is within γ_n = n·2⁻⁵³/(1 − n·2⁻⁵³)
    # of the exact sum, relative; two orders, within 2·γ_n of each other (about 4.4e-13 at n = 2,000).
    # A wrong block (another resample, a lost row) moves a mean by far more: at least one row of 2,000.
    n = correct.size
    bound = 2 * n * 2.0 ** -53 / (1 - n * 2.0 ** -53)
    for name in ("nll", "brier"):
        got, want = getattr(blocked.draws, name), getattr(one.draws, name)
        assert got.shape == want.shape == (150, 3)
        np.testing.assert_allclose(got, want, rtol=bound, atol=0, err_msg=name)


def test_split_long_runs_keeps_every_boundary_and_caps_lengths():
    bounds = np.array([0, 3, 700, 701, 1300])
    cut = _split_long_runs(bounds, 256)
    assert set(bounds.tolist()) <= set(cut.tolist()) and np.all(np.diff(cut) >= 1)
    assert np.diff(cut).max() <= 256
    # 697 rows in ⌈697 / 256⌉ = 3 pieces of 232-233; 599 rows in 3 pieces of 199-200
    assert sorted(np.diff(cut).tolist()) == [1, 3, 199, 200, 200, 232, 232, 233]
    assert _split_long_runs(np.array([0, 5, 9]), 256).tolist() == [0, 5, 9]


def test_noise_floor_with_cut_runs_matches_whole_runs_within_monte_carlo_error(monkeypatch):
    """Cutting runs keeps the law exact, so only the random stream changes: the floor's quantiles from
    runs of at most 16 rows and from whole runs differ by Monte Carlo noise only. With 4,000 draws each,
    the standard error of a 5-95% quantile of ECE is below 3% of its value here; allow 10%."""
    confidence = scores(*part_rows("overconfident", "test"), [1.0, 1.8])[0]
    whole = noise_floor(confidence, (5, 15), max_bins=15, n_draws=4000, sweep_draws=0, rng=11)
    monkeypatch.setattr(floor_module, "MAX_RUN", 16)
    cut = noise_floor(confidence, (5, 15), max_bins=15, n_draws=4000, sweep_draws=0, rng=11)
    for scheme in SCHEMES:
        for b in (5, 15):
            assert not np.array_equal(whole.ece[scheme][b], cut.ece[scheme][b])  # another stream …
            np.testing.assert_allclose(cut.ece[scheme][b], whole.ece[scheme][b], rtol=0.10)  # … the same law
            np.testing.assert_allclose(cut.band[scheme][b], whole.band[scheme][b], atol=0.02)


def test_analyse_part_in_blocks_of_temperatures_equals_one_block(monkeypatch):
    logits, labels = part_rows("sim-600", "test")
    temps = np.geomspace(0.5, 2.5, 9)
    settings = dict(n_resamples=30, n_draws=40, sweep_draws=20)
    one = analyse_part("test", logits, labels, temps, dataset="sim-600", **settings)
    monkeypatch.setattr(analysis_module, "ANALYSIS_BLOCK_ELEMENTS", 2 * labels.size)  # 2 temperatures a block
    blocked = analyse_part("test", logits, labels, temps, dataset="sim-600", **settings)
    assert_same(one, blocked)


def test_precompute_part_in_blocks_of_temperatures_equals_one_block(monkeypatch):
    logits, labels = part_rows("mixed", "test")
    grid = build_grid([1.3])
    t1, fitted = grid_index(grid, 1.0), grid_index(grid, 1.3)
    subgrid = subgrid_indices(grid.size, [t1, fitted], 10)
    one = precompute_part("test", logits, labels, grid, fitted, t1, subgrid=subgrid)
    blocked = precompute_part("test", logits, labels, grid, fitted, t1, subgrid=subgrid,
                              block_elements=23 * labels.size)  # 24 blocks, sub-grid points in most
    assert_same(one, blocked)
    monkeypatch.setattr(precompute_module, "PARALLEL_ROWS", 1)  # the same blocks on two threads
    threaded = precompute_part("test", logits, labels, grid, fitted, t1, subgrid=subgrid,
                               block_elements=23 * labels.size)
    assert_same(one, threaded)


def test_quoted_resamples_shrink_only_above_the_large_part_size():
    assert quoted_resamples_for(LARGE_PART_ROWS) == QUOTED_RESAMPLES
    assert quoted_resamples_for(2 * LARGE_PART_ROWS) == QUOTED_RESAMPLES // 2
    assert quoted_resamples_for(10 ** 7) == RESAMPLES
    sizes = [LARGE_PART_ROWS + 1, 50_000, 200_000, 10 ** 6]
    assert all(quoted_resamples_for(n) * n <= QUOTED_RESAMPLES * LARGE_PART_ROWS or quoted_resamples_for(n) == RESAMPLES
               for n in sizes)


def test_fewer_quoted_resamples_stay_inside_their_stated_monte_carlo_interval():
    """The large-part approximation draws fewer resamples; the page states each quantile's 95% Monte Carlo
    interval. At n = 20,000, the quantiles of the full 2,000 resamples lie inside the interval stated for
    200 resamples (the floor of the approximation) for at least 90% of the quoted figures."""
    logits, labels = synthetic(20_000, 10, 5)
    exact = quote_part("test", logits, labels, 1.4, n_resamples=QUOTED_RESAMPLES, explorer_resamples=RESAMPLES)
    inside = []

    def check(spread, interval):  # spread (2, Q) from 2,000 resamples; interval (Q, 2, 2) for 200
        for q in range(spread.shape[1]):
            for t in range(2):
                low, high = interval[q, t]
                inside.append(low <= spread[t, q] <= high)

    check(exact.spread.nll, exact.explorer_interval.nll)
    check(exact.spread.brier, exact.explorer_interval.brier)
    for scheme in SCHEMES:
        for b, values in exact.spread.ece[scheme].items():
            check(values, exact.explorer_interval.ece[scheme][b])
    assert len(inside) >= 12 and np.mean(inside) >= 0.9


def test_noise_floor_float32_gaps_stay_within_their_bound():
    """The floor's simulated bin gaps |successes − expected| are summed in float32 (calib.floor._bin_draws):
    exact integer successes (< 2²⁴), expected counts rounded to 24 bits. Against float64 the ECE of a draw
    moves by at most 2⁻²⁴ · (1 + B · ECE) + 2⁻⁴⁰ (the rounding of each expected count and of each
    partial sum), here checked at a million rows."""
    from calib.floor import _bin_draws
    rng = np.random.default_rng(2)
    n, draws = 1_000_000, 8
    sorted_conf = np.sort(rng.uniform(0.3, 1.0, n))
    conf_prefix = np.concatenate([[0.0], np.cumsum(sorted_conf)])
    for bins in (1, 15, 50):
        bounds = np.linspace(0, n, bins + 1).round().astype(np.int64)
        starts, ends = bounds[:-1], bounds[1:]
        expected = conf_prefix[ends] - conf_prefix[starts]
        hits = np.rint(expected[:, None] + rng.normal(0, 300, (bins, draws))).astype(np.int32)
        prefix = np.zeros((bins + 1, draws), dtype=np.int32)
        np.cumsum(hits, axis=0, out=prefix[1:])
        got = _bin_draws(bounds, prefix, conf_prefix, starts, ends, np.array([0]), n)[2][0]
        exact = np.abs(hits - expected[:, None]).sum(axis=0) / n
        assert np.all(np.abs(got - exact) <= 2.0 ** -24 * (1 + bins * exact) + 2.0 ** -40)
        assert np.max(np.abs(got - exact)) > 0  # float32 really is in play
