"""The evidence a skeptical reader asks for, computed by the engine for the built-in datasets: facts under ``ev``.

:func:`build_evidence_facts` returns ``{"ev": namespace}`` for the prose context (build.py merges it):

``ev.brier_t.<key>`` — per built-in dataset (dashes as underscores), the temperature that minimises the mean
Brier score on its fitting rows (calibration rows, or all rows if it is not split): a bounded search, as the
NLL-minimising T is found (:func:`calib.fit_temperature` with ``score="brier"``).

``ev.pair.t1`` / ``ev.pair.fit`` — on the over-confident set's test rows at T = 1 and at its fitted T, how well the
top-label confidence separates right from wrong: ``auroc`` (:func:`calib.auroc`) and ``dsc``, the discrimination
component of the pair's Brier score in CORP's decomposition (:func:`calib.corp`). A temperature maps each
probability vector one-to-one, so it cannot change the refinement of the vectors; these are the pair's.

``ev.kl.t1`` / ``ev.kl.fit`` — on the same rows, the mean Kullback–Leibler divergence (nats) of the released
probability vectors p from the frequencies that follow them, E[Y | p]: known exactly here, since the labels were
drawn from the latent model, whose logits are the released ones divided by
:data:`calib.datasets.OVERCONFIDENT_SHARPNESS`. That divergence is NLL's calibration term.

``ev.tests.<key>`` — per split dataset, on its test rows at T = 1 (``t1``) and at the T fitted on its calibration
rows (``fit``): ``ece`` (:func:`calib.ece_consistency_test`, :data:`TABLE_BINS` equal-width bins, ``TEST_DRAWS``
draws) and ``skce`` (:func:`calib.skce_test`, ``SKCE_TEST_DRAWS`` draws on at most ``SKCE_TEST_ROWS`` rows), each a
namespace ``statistic``, ``p``, ``reject`` (p ≤ ``TEST_LEVEL``), ``rows``; ``ev.tests.keys``, ``ev.tests.rows`` (the
table's order, as namespaces with ``key``, ``name``). ``ev.level``, ``ev.test_draws``, ``ev.skce_draws``,
``ev.skce_rows``, ``ev.p_digits``. ``ev.size`` — the build's own check of the ECE test's size: ``sets`` outcome sets
drawn from a calibrated model with the over-confident test confidences at the fitted T, each tested with ``draws``
draws; ``share`` rejected at ``ev.level`` and its Wilson interval ``lo``–``hi`` (``coverage``).

``ev.corp.t1`` / ``ev.corp.fit`` — CORP's decomposition of the Brier score of the over-confident test rows' (confidence,
right) pairs at T = 1 and the fitted T: ``score``, ``mcb``, ``dsc``, ``unc``, each with ``value`` and the bootstrap
``lo``/``hi`` (:func:`calib.corp_decomposition_spread`, ``CORP_RESAMPLES`` resamples), and ``null_hi``: the
upper quantile of MCB for a calibrated model with the same confidences. ``ev.corp.resamples``, ``ev.corp.q``.

``ev.classwise.<key>`` — class-wise reliability diagrams beside the top-label one (:data:`CLASSWISE_DATASETS`), on
the test rows at T = 1 (``t1``) and the fitted T (``fit``, with ``t``): per state ``top`` (the top-label bins) and
``classes`` (one per class, :func:`calib.classwise_bins`), each with ``conf``, ``acc``, ``count`` (lists over the
non-empty bins of :data:`CLASSWISE_BINS` equal-width bins) and ``ece``; ``cw_ece`` (the mean of the classes' ECE).
``ev.classwise.bins``, ``ev.classwise.keys``.

``ev.real`` — the real network's dataset (``digits-mlp``, :data:`calib.datasets.DIGITS_FILE`): ``errors`` (its wrong
test rows), ``n_test``, ``n_cal``.
"""

import zlib
from statistics import NormalDist
from types import SimpleNamespace

import numpy as np

from calib import (
    SPREAD_QUANTILES,
    auroc,
    classwise_bins,
    corp,
    corp_decomposition_spread,
    datasets,
    ece_consistency_test,
    fit_temperature,
    load,
    part_masks,
    reliability_bins,
    scaled_probs,
    skce_test,
    top_label,
)
from sitegen.common.settings import (
    ANALYSIS_SEED,
    CLASSWISE_BINS,
    CLASSWISE_DATASETS,
    CORP_RESAMPLES,
    DATASETS,
    FIT_BOUNDS,
    FIT_TOLERANCE,
    P_DIGITS,
    SIZE_DRAWS,
    SIZE_SETS,
    SKCE_TEST_DRAWS,
    SKCE_TEST_ROWS,
    TABLE_BINS,
    TEST_DRAWS,
    TEST_LEVEL,
)
from sitegen.facts.results import fact_key

__all__ = ["build_evidence_facts", "brier_temperatures", "pair_discrimination", "calibration_divergence",
           "calibration_tests", "size_check", "wilson_interval"]


def _fitting_rows(name):
    """Logits and labels of the rows a dataset's T is fitted on (calibration rows, or all of them)."""
    data = load(name)
    masks = part_masks(data)
    rows = masks.get("calibration", masks.get("all"))
    return data.logits[rows], data.labels[rows]


def brier_temperatures(names=DATASETS):
    """``{key: T}``: each dataset's Brier-minimising temperature on its fitting rows (module docstring)."""
    return {fact_key(name): fit_temperature(*_fitting_rows(name), bounds=FIT_BOUNDS, tolerance=FIT_TOLERANCE,
                                            score="brier") for name in names}


def _overconfident():
    """The over-confident set's test logits and labels, and the T fitted on its calibration rows."""
    data = load("overconfident")
    masks = part_masks(data)
    cal, test = masks["calibration"], masks["test"]
    t = fit_temperature(data.logits[cal], data.labels[cal], bounds=FIT_BOUNDS, tolerance=FIT_TOLERANCE)
    return data.logits[test], data.labels[test], t


def pair_discrimination(logits, labels, temperature):
    """``auroc`` and CORP's ``dsc`` of the (top-label confidence, right) pairs at ``temperature``."""
    conf, hits = top_label(logits, labels, temperature)
    return SimpleNamespace(auroc=auroc(conf, hits), dsc=corp(conf, hits).brier.discrimination)


def calibration_divergence(logits, truth, temperature):
    """Mean KL(truth ‖ softmax(logits / T)) over rows (nats): the divergence of the tempered vectors from ``truth``
    (n, K), the frequencies that follow them."""
    p = scaled_probs(logits, temperature)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(truth > 0, truth * (np.log(truth) - np.log(p)), 0.0)
    return float(terms.sum(axis=1).mean())


def _generator(purpose):
    """This module's own random stream for ``purpose``, keyed by ANALYSIS_SEED (independent of the others)."""
    return np.random.default_rng(np.random.SeedSequence(ANALYSIS_SEED, spawn_key=(zlib.crc32(purpose.encode()),)))


def _test_view(result):
    return SimpleNamespace(statistic=result.statistic, p=result.p_value, reject=bool(result.p_value <= TEST_LEVEL),
                           rows=result.rows, draws=result.n_draws)


def calibration_tests(names=DATASETS):
    """``ev.tests`` (module docstring): both tests on every split dataset's test rows at T = 1 and the fitted T."""
    out, order = {}, []
    for name in names:
        data = load(name)
        masks = part_masks(data)
        if "test" not in masks:
            continue
        cal, test = masks["calibration"], masks["test"]
        fitted = fit_temperature(data.logits[cal], data.labels[cal], bounds=FIT_BOUNDS, tolerance=FIT_TOLERANCE)
        z, y = data.logits[test], data.labels[test]
        views = {}
        for key, t in (("t1", 1.0), ("fit", fitted)):
            ece = ece_consistency_test(*top_label(z, y, t), n_bins=TABLE_BINS, n_draws=TEST_DRAWS,
                                       rng=_generator(f"ece-test-{name}-{key}"))
            skce = skce_test(scaled_probs(z, t), y, n_draws=SKCE_TEST_DRAWS, max_rows=SKCE_TEST_ROWS,
                             rng=_generator(f"skce-test-{name}-{key}"))
            views[key] = SimpleNamespace(ece=_test_view(ece), skce=_test_view(skce))
        out[fact_key(name)] = SimpleNamespace(name=name, key=fact_key(name), n=int(y.size), t=fitted, **views)
        order.append(out[fact_key(name)])
    return SimpleNamespace(rows=order, **out)


SIZE_COVERAGE = 0.95  # the coverage of the Wilson interval stated with the size check


def wilson_interval(k, n, coverage=SIZE_COVERAGE):
    """The Wilson score interval of a binomial share ``k`` / ``n`` at ``coverage``: ``(lo, hi)``."""
    z = NormalDist().inv_cdf(0.5 + coverage / 2)
    share = k / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - half), float(centre + half)


def size_check(confidence, sets=SIZE_SETS, draws=SIZE_DRAWS, level=TEST_LEVEL):
    """The ECE test on ``sets`` outcome sets drawn from a calibrated model with these ``confidence`` values:
    ``share`` rejected at ``level``, its Wilson interval ``lo``/``hi``, and ``sets``, ``draws``."""
    gen = _generator("size-check")
    rejected = 0
    for _ in range(sets):
        outcomes = gen.random(confidence.size) < confidence
        result = ece_consistency_test(confidence, outcomes, n_bins=TABLE_BINS, n_draws=draws, rng=gen)
        rejected += result.p_value <= level
    lo, hi = wilson_interval(rejected, sets)
    return SimpleNamespace(sets=sets, draws=draws, rejected=int(rejected), share=rejected / sets, lo=lo, hi=hi,
                           coverage=SIZE_COVERAGE)


def corp_view(logits, labels, temperature, purpose):
    """``ev.corp.<t>``: CORP's Brier decomposition of the pairs at ``temperature`` with its uncertainty."""
    conf, hits = top_label(logits, labels, temperature)
    found = corp(conf, hits).brier
    spread = corp_decomposition_spread(conf, hits, n_resamples=CORP_RESAMPLES, rng=_generator(purpose))

    def term(value, q):
        return SimpleNamespace(value=float(value), lo=float(q[0]), hi=float(q[-1]))

    return SimpleNamespace(score=term(found.score, spread.score), mcb=term(found.miscalibration, spread.miscalibration),
                           dsc=term(found.discrimination, spread.discrimination),
                           unc=term(found.uncertainty, spread.uncertainty),
                           null_hi=float(spread.null_miscalibration[-1]))


def _bins_view(bins, row=None):
    """The non-empty bins of one row of a :class:`calib.ReliabilityBins` as lists, and their summed gap (ECE)."""
    pick = (lambda a: a) if row is None else (lambda a: a[row])
    filled = pick(bins.count) > 0
    return SimpleNamespace(conf=pick(bins.confidence)[filled].tolist(), acc=pick(bins.accuracy)[filled].tolist(),
                           count=pick(bins.count)[filled].tolist(), ece=float(pick(bins.weighted_gap).sum()))


def classwise_view(name, n_bins=CLASSWISE_BINS):
    """``ev.classwise.<key>``: top-label and class-wise reliability bins of ``name``'s test rows (module docstring)."""
    data = load(name)
    masks = part_masks(data)
    cal, test = masks["calibration"], masks["test"]
    fitted = fit_temperature(data.logits[cal], data.labels[cal], bounds=FIT_BOUNDS, tolerance=FIT_TOLERANCE)
    z, y = data.logits[test], data.labels[test]
    states = {}
    for key, t in (("t1", 1.0), ("fit", fitted)):
        probs = scaled_probs(z, t)
        per_class = classwise_bins(probs, y, n_bins)
        classes = [_bins_view(per_class, k) for k in range(z.shape[1])]
        top = _bins_view(reliability_bins(probs.max(axis=1), probs.argmax(axis=1) == y, n_bins))
        states[key] = SimpleNamespace(top=top, classes=classes, cw_ece=float(np.mean([c.ece for c in classes])))
    return SimpleNamespace(name=name, key=fact_key(name), k=int(z.shape[1]), n=int(y.size), t=fitted, **states)


def real_network_view():
    """``ev.real`` (module docstring)."""
    data = load("digits-mlp")
    masks = part_masks(data)
    test = masks["test"]
    errors = int(np.sum(np.argmax(data.logits[test], axis=1) != data.labels[test]))
    return SimpleNamespace(errors=errors, n_test=int(test.sum()), n_cal=int(masks["calibration"].sum()))


def build_evidence_facts():
    """The facts of the module docstring, ``{"ev": namespace}``."""
    zt, yt, t = _overconfident()
    truth = scaled_probs(zt, datasets.OVERCONFIDENT_SHARPNESS)  # the latent model's probabilities: E[Y | p] exactly
    return {"ev": SimpleNamespace(
        brier_t=SimpleNamespace(**brier_temperatures()),
        pair=SimpleNamespace(t1=pair_discrimination(zt, yt, 1.0), fit=pair_discrimination(zt, yt, t)),
        kl=SimpleNamespace(t1=calibration_divergence(zt, truth, 1.0), fit=calibration_divergence(zt, truth, t),
                           truth_t=datasets.OVERCONFIDENT_SHARPNESS),
        real=real_network_view(), tests=calibration_tests(), size=size_check(top_label(zt, yt, t)[0]),
        level=TEST_LEVEL, test_draws=TEST_DRAWS, skce_draws=SKCE_TEST_DRAWS, skce_rows=SKCE_TEST_ROWS,
        p_digits=P_DIGITS, p_floor=10.0 ** -P_DIGITS,
        classwise=SimpleNamespace(bins=CLASSWISE_BINS, keys=[fact_key(n) for n in CLASSWISE_DATASETS],
                                  **{fact_key(n): classwise_view(n) for n in CLASSWISE_DATASETS}),
        corp=SimpleNamespace(t1=corp_view(zt, yt, 1.0, "corp-t1"), fit=corp_view(zt, yt, t, "corp-fit"),
                             resamples=CORP_RESAMPLES, q=SimpleNamespace(lo=SPREAD_QUANTILES[0],
                                                                          hi=SPREAD_QUANTILES[-1])))}
