"""The "Beyond one temperature" section: its four deep dives, computed by the engine, as facts for the prose.

:func:`build_beyond_facts` returns ``{"by": …}`` for the prose context (build.py merges it; the works the section
cites are in content/sources.toml, the page's one bibliography, as ``src.*``):

``by.cmp.<key>`` (``overconfident``, ``mixed``, ``sim_600``, ``digits_mlp``; ``by.compared`` lists them in order, each
with ``name`` and ``key``) — :func:`calib.compare_calibrators` on the
dataset's calibration and test rows: ``n_cal``, ``n_test``, ``rows`` (the table, one namespace per method in
:data:`calib.CALIBRATORS` order, for the template) and ``<method key>.<score>`` with ``value``, ``change``
(method − temperature scaling), ``lo``/``hi`` (the paired 5–95% range), ``lower`` (share of resamples where the
method scores lower), ``finite`` / ``lo_finite`` / ``hi_finite`` (False where that value is infinite), ``side``
(:func:`calib.change_side`: -1 or 1 when the whole range lies below or above zero, the verdict's rule), for every
column of :data:`calib.COMPARE_COLUMNS` (the six scores and ``accuracy``); ``<method key>.zero_rows``,
``.changed_rows`` (test rows whose top class the calibrator moved) and ``.hyper`` (the fitted calibrator's
:meth:`hyperparameters` record: ``settings``, ``fitted``, ``chosen_by``, ``keeps_ranking``).
``by.settings`` — the hyperparameters fixed in advance, for the prose: ``strengths`` (the λ grid), ``folds``,
``hist_bins``, ``sb_bins`` (bins per class of histogram binning and scaling-binning); ``by.sb`` — scaling-binning's
test NLL on the mixed set for each bin count of :data:`SB_BIN_COUNTS` (how much the fixed count matters; see
:func:`_scaling_binning_bins`).
``by.resamples``, ``by.bins`` — the comparison's resamples and bins; ``by.calibrator_bins`` — the binned
calibrators' bins per class; ``by.q`` (``lo``, ``hi``: 0.05, 0.95).

``by.binned`` — what binned ECE sees (overconfident): for histogram binning (``hist``) and temperature scaling
(``ts``), ``cal_cw`` (class-wise ECE on the calibration rows, fifteen equal-width bins: the bins histogram binning
was fitted on), ``test_cw``, ``test_w[B]`` (top-label ECE on the test rows, B in :data:`BIN_CONTRASTS`) and
``test_smooth``.

``by.rows`` — how many calibration rows (overconfident): see :func:`rows_study`.

``by.decide`` — abstaining below a confidence (overconfident test rows): see :func:`selective`.

``by.corp`` — the CORP reliability diagram's miscalibration (overconfident test rows, quoted in the binning-free
deep dive, #smooth): see :func:`_corp_view`.

"""

import zlib
from statistics import NormalDist
from types import SimpleNamespace

import numpy as np

from calib import (
    CALIBRATORS,
    COMPARE_COLUMNS,
    DEFAULT_RESAMPLES,
    SPREAD_QUANTILES,
    HistogramBinning,
    MatrixScaling,
    ScalingBinning,
    VectorScaling,
    change_side,
    classwise_ece,
    compare_calibrators,
    corp,
    ece,
    fit_temperature,
    fit_weighted_temperatures,
    inf_quantiles,
    load,
    method_row_scores,
    nll,
    nll_beta_derivatives,
    part_masks,
    resample_counts,
    scaled_probs,
    smooth_ece,
    top_label,
)
from sitegen.analyses.calibrator_fits import method_fits
from sitegen.common.settings import ANALYSIS_SEED, REFIT_TOLERANCE, TABLE_BINS
from sitegen.facts.results import fact_key

__all__ = ["COMPARED_DATASETS", "ROW_SIZES", "T_DRAWS", "AFFINE_DRAWS", "ABSTAIN_THRESHOLD", "RC_COVERAGES",
           "RC_CURVE_POINTS", "build_beyond_facts", "comparison_view", "rows_study", "delta_method_se", "selective",
           "offdiagonal_share"]

COMPARED_DATASETS = ("overconfident", "mixed", "sim-600", "digits-mlp")  # the comparison's datasets, in table order
STUDY_DATASET = "overconfident"  # the rows study and the abstention rule run on it
ROW_SIZES = (10, 30, 100, 300, 1000)  # calibration rows drawn without replacement; then all of them
T_DRAWS = 200                    # draws per size for temperature scaling (one golden-section fit each)
AFFINE_DRAWS = 10                # draws per size for vector and matrix scaling (L-BFGS fits: costlier)
# Unregularised vector scaling has 2K − 1 free parameters; ten rows per parameter is the rule of thumb the page
# states. It is not a limit: the rows study reports the draws' test NLL only where every draw's fit settled
# (calib.VectorScaling.settled_: two starting points reach the same optimum). A draw that lacks a class has no
# finite optimum (that class's intercept falls without end), so where the optimiser stops, and the NLL there,
# move with the CPU's arithmetic: such sizes show a dash and how many draws did not settle.
VECTOR_ROWS_PER_PARAMETER = 10
T_WITHIN = 0.05                  # "within ±5% of the full-data T"
T_WITHIN_SHARE = 0.9             # … in 90% of draws
BIN_CONTRASTS = (5, 10, 15, 20, 50)  # bin counts of the binned-ECE contrast
SB_BIN_COUNTS = (5, 10, 15, 20, 30)  # scaling-binning's bins per class tried on the mixed set (the page keeps 15)
ABSTAIN_THRESHOLD = 0.8          # abstain when the top-label confidence is below this
RC_COVERAGES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # coverages of the risk–coverage table
RC_CURVE_POINTS = 100  # the risk–coverage chart: the error rate at every 1/100 of the rows answered


def _generator(purpose):
    """This section's own random stream for ``purpose``, keyed by ANALYSIS_SEED (independent of the others)."""
    return np.random.default_rng(np.random.SeedSequence(ANALYSIS_SEED, spawn_key=(zlib.crc32(purpose.encode()),)))


def _split(name):
    data = load(name)
    masks = part_masks(data)
    cal, test = masks["calibration"], masks["test"]
    return data.logits[cal], data.labels[cal], data.logits[test], data.labels[test]


# ------------------------------------------------------------------ other calibrators, compared

def comparison_view(result):
    """A :class:`calib.Comparison` as a namespace (see the module docstring)."""
    rows, out = [], {}
    for i, method in enumerate(result.methods):
        cells = {}
        for s in COMPARE_COLUMNS:
            value = float(result.scores[s][i])
            cells[s] = SimpleNamespace(value=value, change=float(result.change[s][i]),
                                       lo=float(result.spread[s][i, 0]), hi=float(result.spread[s][i, -1]),
                                       lower=float(result.share_lower[s][i]), finite=bool(np.isfinite(value)),
                                       lo_finite=bool(np.isfinite(result.spread[s][i, 0])),
                                       hi_finite=bool(np.isfinite(result.spread[s][i, -1])),
                                       side=change_side(result.spread[s][i]))
        ns = SimpleNamespace(method=method, key=fact_key(method), zero_rows=int(result.zero_rows[i]),
                             changed_rows=int(result.changed_rows[i]),
                             hyper=_hyper_view(result.calibrators[method].hyperparameters()), **cells)
        rows.append(ns)
        out[ns.key] = ns
    return SimpleNamespace(n_cal=result.n_calibration, n_test=result.n_test, rows=rows,
                           skipped=dict(result.skipped), **out)


def _hyper_view(record):
    """A calibrator's hyperparameter record with its ``fitted`` values as attributes (``t``, ``strength``, ``w``)."""
    fitted = record["fitted"]
    return SimpleNamespace(chosen_by=record["chosen_by"], keeps_ranking=record["keeps_ranking"],
                           t=fitted.get("temperature"), strength=fitted.get("strength"), w=fitted.get("weights"))


def _scaling_binning_bins(zc, yc, zt, yt, fitted):
    """Scaling-binning's test NLL with each bin count of :data:`SB_BIN_COUNTS` (T shared with temperature
    scaling's fit): ``nll`` {B: nats}, ``counts``, and the lowest and highest (``low``/``low_bins``,
    ``high``/``high_bins``)."""
    t = fitted["temperature"].temperature_
    nlls = {b: _mean_nll(ScalingBinning(n_bins=b, temperature=t).fit(zc, yc), zt, yt) for b in SB_BIN_COUNTS}
    low, high = min(nlls, key=nlls.get), max(nlls, key=nlls.get)
    return SimpleNamespace(nll=nlls, counts=list(SB_BIN_COUNTS), low=nlls[low], low_bins=low, high=nlls[high],
                           high_bins=high)


def offdiagonal_share(weights):
    """How far a (K, K) weight matrix is from diagonal: the Frobenius norm of its off-diagonal part over its own."""
    off = weights - np.diag(np.diag(weights))
    return float(np.linalg.norm(off) / np.linalg.norm(weights))


def _binned_view(zc, yc, zt, yt):
    """What binned ECE reads for histogram binning and temperature scaling (module docstring, ``by.binned``)."""
    out = {}
    for key, method in (("hist", "histogram"), ("ts", "temperature")):
        fitted = CALIBRATORS[method]().fit(zc, yc)
        pc, pt = fitted.predict_proba(zc), fitted.predict_proba(zt)
        conf, hits = pt.max(axis=1), pt.argmax(axis=1) == yt
        out[key] = SimpleNamespace(
            cal_cw=classwise_ece(pc, yc, TABLE_BINS), test_cw=classwise_ece(pt, yt, TABLE_BINS),
            test_w={b: ece(conf, hits, b) for b in BIN_CONTRASTS},
            test_smooth=float(smooth_ece(conf, hits).value[0]))
    return SimpleNamespace(**out)


# ------------------------------------------------------------------ how many calibration rows?

def delta_method_se(logits, labels, temperature):
    """Delta-method (Fisher information) standard error of the fitted T from n rows: ``(se_t, se_beta, curvature)``.

    With β = 1/T the maximum-likelihood estimate, Var(β̂) ≈ 1 / (n · I) where I = E[∂²NLL/∂β²] is the
    mean curvature of the per-row NLL at β̂ (:func:`calib.nll_beta_derivatives`); T = 1/β, so
    SE(T̂) ≈ T̂² · SE(β̂). Units: T (dimensionless), β, and nats per unit β².
    """
    curvature = nll_beta_derivatives(logits, labels, temperature)[1]
    se_beta = 1.0 / np.sqrt(labels.size * curvature)
    return temperature ** 2 * se_beta, se_beta, curvature


STUDY_QUANTILES = (SPREAD_QUANTILES[0], 0.5, SPREAD_QUANTILES[-1])


def _quantile_ns(values):
    """5%, 50% and 95% of draws (:func:`calib.inf_quantiles`: an infinite draw stays infinite) and their count."""
    lo, mid, hi = (float(v) for v in inf_quantiles(np.asarray(values, dtype=np.float64), STUDY_QUANTILES))
    return SimpleNamespace(lo=lo, mid=mid, hi=hi, draws=int(np.size(values)),
                           lo_inf=bool(np.isinf(lo)), mid_inf=bool(np.isinf(mid)), hi_inf=bool(np.isinf(hi)))


def _mean_nll(calibrator, z, y):
    """Mean test NLL (nats) of a fitted calibrator; ``inf`` if a label gets probability 0."""
    return float(np.mean(method_row_scores(calibrator.predict_proba(z), y)[0]))


def rows_study(zc, yc, zt, yt, fitted):
    """Temperature, vector and matrix scaling fitted to random subsets of the calibration rows.

    For each size in :data:`ROW_SIZES` (rows drawn without replacement), :data:`T_DRAWS` temperature fits and
    :data:`AFFINE_DRAWS` vector and matrix fits (matrix scaling at the ODIR strength cross-validation picks on
    all rows, so the draws compare fits, not strength searches); then all rows once, read from ``fitted`` (the
    comparison's calibrators fitted on all of ``zc``, by method name). Returns a namespace:
    ``full_t``, ``n_full``, ``sizes`` (list), per size ``at[n]`` with ``t`` (``lo``/``mid``/``hi``), ``within``
    (share of T draws within ±``T_WITHIN`` of ``full_t``), ``nll_ts``, ``nll_vector``, ``nll_matrix`` (test
    NLL quantiles; ``nll_vector`` None where some draw's vector fit did not settle (``VectorScaling.settled_``);
    ``vector_unsettled`` and ``vector_missing``: draws whose fit did not settle, and draws that lack a class),
    ``vector_beta``
    (mean of the vector weights), ``matrix_excess`` (quantiles of matrix − TS test
    NLL on the same subsets: negative where matrix scaling pays) and ``matrix_pays`` (its median > 0);
    ``vector_params`` (vector scaling's 2K parameters, one fewer identifiable),
    ``enough`` (the first size whose ``within`` ≥ ``T_WITHIN_SHARE``, else None), ``matrix_from`` (the first size
    from which matrix scaling's median gain stays positive, else None), ``full`` (the all-rows fits' test NLLs)
    and ``se`` (delta-method and bootstrap standard errors of T̂ on all rows, see :func:`delta_method_se`);
    ``offdiag``: :func:`offdiagonal_share` of the all-rows matrix-scaling fit (how close its map is to diagonal).
    """
    n = yc.size
    full_t = fit_temperature(zc, yc, tolerance=REFIT_TOLERANCE)
    strength = fitted["matrix"].strength_
    gen = _generator("rows")
    vector_rows = VECTOR_ROWS_PER_PARAMETER * (2 * zc.shape[1] - 1)  # fewer: not identified (see above)
    at = {}
    for size in ROW_SIZES:
        subsets = np.argsort(gen.random((T_DRAWS, n)), axis=1)[:, :size]
        temps = np.array([fit_temperature(zc[s], yc[s], tolerance=REFIT_TOLERANCE) for s in subsets])
        ts_nll = nll(zt, yt, temps)
        vec_nll, mat_nll, betas, unsettled, missing = [], [], [], 0, 0
        for s in subsets[:AFFINE_DRAWS]:
            v = VectorScaling().fit(zc[s], yc[s])
            unsettled += not v.settled_  # two starting points, one optimum (calib.VectorScaling)
            missing += np.unique(yc[s]).size < zc.shape[1]
            vec_nll.append(_mean_nll(v, zt, yt))
            betas.append(float(np.mean(v.weights_)))
            mat_nll.append(_mean_nll(MatrixScaling(strengths=(strength,)).fit(zc[s], yc[s]), zt, yt))
        gain = ts_nll[:AFFINE_DRAWS] - np.array(mat_nll)  # −inf where matrix scaling's NLL is infinite
        at[size] = SimpleNamespace(
            t=_quantile_ns(temps), within=float(np.mean(np.abs(temps / full_t - 1) <= T_WITHIN)),
            nll_ts=_quantile_ns(ts_nll),
            nll_vector=_quantile_ns(np.array(vec_nll)) if not unsettled else None,
            vector_unsettled=int(unsettled), vector_missing=int(missing),
            nll_matrix=_quantile_ns(np.array(mat_nll)), vector_beta=_quantile_ns(np.array(betas)),
            matrix_excess=_quantile_ns(-gain), matrix_pays=bool(np.median(gain) > 0))
    full = SimpleNamespace(ts=nll(zt, yt, full_t),
                           vector=_mean_nll(fitted["vector"], zt, yt), matrix=_mean_nll(fitted["matrix"], zt, yt))
    enough = next((s for s in ROW_SIZES if at[s].within >= T_WITHIN_SHARE), None)
    paying = [s for s in ROW_SIZES if all(at[t].matrix_pays for t in ROW_SIZES if t >= s)]
    matrix_from = paying[0] if paying and full.matrix < full.ts else None
    return SimpleNamespace(full_t=full_t, n_full=int(n), sizes=list(ROW_SIZES), at=at, enough=enough,
                           matrix_from=matrix_from, strength=strength, full=full, se=_se_view(zc, yc, full_t),
                           t_draws=T_DRAWS, affine_draws=AFFINE_DRAWS, within_pct=T_WITHIN, share=T_WITHIN_SHARE,
                           vector_rows=vector_rows, vector_params=2 * zc.shape[1],
                           offdiag=offdiagonal_share(fitted["matrix"].weights_))


def _se_view(zc, yc, full_t):
    """Delta-method and bootstrap standard errors of the all-rows T̂, and the rows the delta method asks for."""
    se_t, se_beta, curvature = delta_method_se(zc, yc, full_t)
    counts = resample_counts(yc.size, DEFAULT_RESAMPLES, _generator("rows-bootstrap"))
    boot = fit_weighted_temperatures(zc, yc, counts, tolerance=REFIT_TOLERANCE)
    z = NormalDist().inv_cdf(0.5 + T_WITHIN_SHARE / 2)  # two-sided: T̂ within ±5% with probability 90%
    # SE_n(T̂) = T̂² / sqrt(n · I) ≤ T_WITHIN · T̂ / z  ⇔  n ≥ (z · T̂ / T_WITHIN)² / I
    needed = int(np.ceil((z * full_t / T_WITHIN) ** 2 / curvature))
    return SimpleNamespace(delta=float(se_t), beta=float(se_beta), curvature=float(curvature),
                           boot=float(np.std(boot, ddof=1)), resamples=DEFAULT_RESAMPLES, z=z, needed=needed)


# ------------------------------------------------------------------ a decision that changes

def selective(zt, yt, temperature, threshold=ABSTAIN_THRESHOLD):
    """Abstain below ``threshold`` at one temperature: ``coverage`` (share of rows answered), ``accuracy`` (of
    those), ``conf`` (their mean confidence), ``answered`` (rows), and ``risk[c]``, the error rate of the
    ``c`` most confident share of rows for c in :data:`RC_COVERAGES` (the risk–coverage curve,
    Geifman & El-Yaniv 2017), with ``aurc``, its mean over every coverage k/n."""
    probs = scaled_probs(zt, temperature)
    conf, hits = probs.max(axis=1), probs.argmax(axis=1) == yt
    keep = conf >= threshold
    order = np.argsort(-conf, kind="stable")
    errors = np.cumsum(~hits[order]) / np.arange(1, yt.size + 1)  # risk when answering the k most confident
    risk = {c: float(errors[int(round(c * yt.size)) - 1]) for c in RC_COVERAGES}
    # the whole curve for the chart (sitegen/figures/charts.py): every hundredth of the rows
    curve = {c / RC_CURVE_POINTS: float(errors[int(round(c / RC_CURVE_POINTS * yt.size)) - 1])
             for c in range(1, RC_CURVE_POINTS + 1)}
    return SimpleNamespace(coverage=float(keep.mean()), accuracy=float(hits[keep].mean()),
                           conf=float(conf[keep].mean()), answered=int(keep.sum()), risk=risk, curve=curve,
                           aurc=float(errors.mean()))


def _decide_view(zc, yc, zt, yt):
    fitted = fit_temperature(zc, yc, tolerance=REFIT_TOLERANCE)
    t1, fit = selective(zt, yt, 1.0), selective(zt, yt, fitted)
    rows = [SimpleNamespace(coverage=c, t1=t1.risk[c], fit=fit.risk[c]) for c in RC_COVERAGES]
    return SimpleNamespace(threshold=ABSTAIN_THRESHOLD, t=fitted, n=int(yt.size), t1=t1, fit=fit, rows=rows)


def _corp_view(zt, yt, fitted):
    """CORP (:func:`calib.corp`) on the test rows at T = 1 and at ``fitted``: per temperature ``mcb``, the
    Brier score's miscalibration component of the (confidence, right) pairs (what moving every confidence onto
    the PAV curve would save), ``brier`` that score, and ``steps``, the curve's flat steps (its bins)."""
    def at(t):
        found = corp(*top_label(zt, yt, t))
        return SimpleNamespace(mcb=found.brier.miscalibration, brier=found.brier.score,
                               steps=int(np.unique(found.accuracy).size))

    return SimpleNamespace(t1=at(1.0), fit=at(fitted), n=int(yt.size))


def build_beyond_facts(precomputed=None):
    """The section's facts, ``{"by": namespace}`` (module docstring).

    ``precomputed`` is accepted for the build's uniform call and not read: every number here comes from the
    built-in datasets through :mod:`calib` (their fitted T agrees with the page's to the digits printed).
    """
    cmp, fitted = {}, {}
    for name in COMPARED_DATASETS:
        zc, yc, zt, yt = _split(name)
        result = compare_calibrators(zc, yc, zt, yt, n_resamples=DEFAULT_RESAMPLES, seed=ANALYSIS_SEED,
                                     n_bins=TABLE_BINS, fitted=method_fits(name))
        cmp[fact_key(name)], fitted[name] = comparison_view(result), result.calibrators
    study = _split(STUDY_DATASET)
    decide = _decide_view(*study)
    by = SimpleNamespace(cmp=SimpleNamespace(**cmp), resamples=DEFAULT_RESAMPLES, bins=TABLE_BINS,
                         compared=[SimpleNamespace(name=name, key=fact_key(name)) for name in COMPARED_DATASETS],
                         q=SimpleNamespace(lo=SPREAD_QUANTILES[0], hi=SPREAD_QUANTILES[-1]),
                         binned=_binned_view(*study), rows=rows_study(*study, fitted[STUDY_DATASET]),
                         decide=decide, corp=_corp_view(*study[2:], decide.t), contrasts=list(BIN_CONTRASTS),
                         calibrator_bins=HistogramBinning().n_bins,
                         sb=_scaling_binning_bins(*_split("mixed"), fitted["mixed"]),
                         settings=SimpleNamespace(strengths=list(MatrixScaling().strengths),
                                                  folds=MatrixScaling().n_folds, hist_bins=HistogramBinning().n_bins,
                                                  sb_bins=ScalingBinning().n_bins,
                                                  sb_scheme=ScalingBinning().scheme))
    return {"by": by}
