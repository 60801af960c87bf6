"""The decision part of the "Your model" report: whether the fitted T helps on the reader's rows, by how much
T itself could move, MCE without one-row bins, the per-class view, every calibrator against temperature scaling
and the code to deploy T.

The calibrator comparison is :func:`calib.compare_parts` on the reader's split with its defaults (paired
resamples, bootstrap seed 0), the call ``python -m calib compare FILE`` makes, so the page's table and that
command's agree; :func:`calib.compare_verdict` says whether any calibrator beats temperature scaling beyond
its range.

The paired change from T = 1 to the fitted T is the one the analyses already computed for the reported part
(:func:`sitegen.analyses.uncertainty.quote_part`, ``quoted[part].paired``); the verdict is
:func:`calib.decision.verdict` of it. The fitted T's spread is :func:`calib.decision.temperature_spread` on the
fitting rows, drawn from the part's "refit" stream (:func:`sitegen.analyses.uncertainty.part_generator`), its cost
bounded by :data:`sitegen.common.settings.USER_SPREAD_BUDGET`. Every number is the engine's; this module picks
and arranges.
"""

import threading
import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from calib import (
    CONSTANT_LOGIT,
    DECISION_BINS,
    DECISION_METRICS,
    MAX_AFFINE_CLASSES,
    NEGLIGIBLE_CHANGE,
    UNSETTLED,
    ScoreSet,
    classwise_bins,
    classwise_ece,
    compare_parts,
    compare_verdict,
    fit_warnings,
    max_gap,
    metric_changes,
    part_masks,
    rounding_range,
    scaled_probs,
    temperature_spread,
    verdict,
    winner,
)
from sitegen.analyses.uncertainty import part_generator
from sitegen.common.cache import cached
from sitegen.common.settings import (
    ANALYSIS_SEED,
    FIT_BOUNDS,
    FIT_RESAMPLES,
    REFIT_TOLERANCE,
    USER_CLASS_ROWS,
    USER_MCE_MIN_ROWS,
    USER_SLUG,
    USER_SPREAD_BUDGET,
    USER_SPREAD_MIN_RESAMPLES,
)
from sitegen.compute.precompute import grid_index
from sitegen.facts.beyond_dives import comparison_view

__all__ = ["SCHEMA_VERSION", "project_version", "user_comparison", "start_comparison",
           "decision", "decision_record", "verdict_line", "deploy_snippets", "fit_checks",
           "deploy_file"]

SCHEMA_VERSION = 2  # of downloads/yours-temperature.json: 2 added the test metrics, their ranges and the verdict
ROOT = Path(__file__).resolve().parents[2]


def project_version():
    """The project's version, read at build from its one home: ``pyproject.toml``'s ``[project] version``."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


def _observed(part, t1, fit):
    """The reported part's scores at T = 1 and the fitted T (grid indices ``t1``, ``fit``) as a ScoreSet of (2,)."""
    pick = (t1, fit)
    return ScoreSet(np.asarray(part.nll)[list(pick)], np.asarray(part.brier)[list(pick)],
                    {s: {DECISION_BINS: np.asarray(part.ece[s][DECISION_BINS])[list(pick)]} for s in part.ece})


def _mce_view(part, t1, fit, min_rows):
    """MCE over the bins of at least ``min_rows`` rows (both schemes, :data:`DECISION_BINS` bins), at T = 1 and
    the fitted T, and how many non-empty bins hold fewer rows."""
    out = {}
    for scheme, by_count in part.bins.items():
        stats = by_count[DECISION_BINS]
        for name, g in (("t1", t1), ("fit", fit)):
            row = type(stats)(*(np.asarray(field)[g] for field in stats))
            few = (row.count > 0) & (row.count < min_rows)
            kept = row._replace(count=np.where(few, 0, row.count))
            out[f"{name}_{scheme}"] = SimpleNamespace(mce=float(max_gap(kept)), few=int(few.sum()),
                                                      bins=int((row.count > 0).sum()))
    return out


CLASS_BLOCK_ELEMENTS = 1 << 22  # (row, class) probabilities held at once when K is grouped


def _grouped_probs(logits, t, shown):
    """softmax(logits / t) at the ``shown`` columns and one last column with the rest of each row's probability:
    (n, len(shown) + 1), computed a block of rows at a time (memory bounded whatever K)."""
    n, k = logits.shape
    out = np.empty((n, shown.size + 1))
    step = max(1, CLASS_BLOCK_ELEMENTS // k)
    for start in range(0, n, step):
        kept = scaled_probs(logits[start:start + step], t)[:, shown]
        out[start:start + step, :-1] = kept
        out[start:start + step, -1] = np.clip(1.0 - kept.sum(axis=1), 0.0, 1.0)
    return out / out.sum(axis=1, keepdims=True)


def _classes(data, rows, fitted_t, top):
    """Per-class view of the reported rows: each class's one-vs-rest calibration error (equal-width,
    :data:`DECISION_BINS` bins) and the class-wise ECE, at T = 1 and the fitted T (:func:`calib.classwise_bins`,
    :func:`calib.classwise_ece`). With K ≤ ``top`` every class; beyond, the ``top`` most frequent (ties: lower
    class first) and one column "all other classes" holding the rest of each row's probability, so the
    engine's measures run on (n, top + 1) probabilities whatever K (a K = 1,000 model costs as K = 21)."""
    labels = data.labels[rows]
    k = data.logits.shape[1]
    counts = np.bincount(labels, minlength=k)
    grouped = k > top
    shown = np.argsort(-counts, kind="stable")[:top] if grouped else np.arange(k)
    if grouped:
        position = np.full(k, top)
        position[shown] = np.arange(top)
        labels = position[labels]
    out = SimpleNamespace(k=int(k), shown=int(shown.size), all=not grouped, rows=[], ece={},
                          others=int(counts.sum() - counts[shown].sum()) if grouped else 0)
    per = {}
    for name, t in (("t1", 1.0), ("fit", fitted_t)):
        probs = _grouped_probs(data.logits[rows], t, shown) if grouped else scaled_probs(data.logits[rows], t)
        per[name] = classwise_bins(probs, labels, DECISION_BINS).weighted_gap.sum(axis=1)
        out.ece[name] = classwise_ece(probs, labels, DECISION_BINS)
        del probs
    for j, c in enumerate(shown.tolist()):
        out.rows.append(SimpleNamespace(cls=int(c), count=int(counts[c]), t1=float(per["t1"][j]),
                                        fit=float(per["fit"][j])))
    if grouped:
        out.other = SimpleNamespace(count=out.others, t1=float(per["t1"][top]), fit=float(per["fit"][top]))
    return out


@cached("compare")  # its own entry: build.py starts it on a thread while the grid and the analyses run
def user_comparison(user):
    """:func:`calib.compare_parts` on the reader's file and split (a :class:`calib.Comparison`), with Platt scaling
    for two classes, as ``python -m calib compare`` runs it."""
    logits = user.predictions.logits
    return compare_parts(logits, user.predictions.labels, user.parts, binary=logits.shape[1] == 2)


_STARTED = {}  # id(user) → (user, thread, result holder) of a comparison start_comparison began


def start_comparison(user):
    """Begin :func:`user_comparison` of ``user`` on a daemon thread (the comparison needs only the file, so it can
    run beside the temperature grid and the analyses: the build's second core is idle for much of them);
    :func:`decision` then waits for it instead of computing it again. A daemon thread: a build that fails or is
    interrupted before the decision exits without waiting for it."""
    holder = {}

    def run():
        try:
            holder["value"] = user_comparison(user)
        except BaseException as error:  # handed to the caller of decision(), which raises it there
            holder["error"] = error

    thread = threading.Thread(target=run, name="compare", daemon=True)
    _STARTED[id(user)] = (user, thread, holder)
    thread.start()


def _comparison(user):
    """The comparison :func:`start_comparison` began for ``user`` (waiting for it), else computed now."""
    started = _STARTED.pop(id(user), None)
    if started is None or started[0] is not user:
        return user_comparison(user)
    _, thread, holder = started
    thread.join()
    if "error" in holder:
        raise holder["error"]
    return holder["value"]


@cached("fit-checks")  # build.py prints them after the grid, the report shows them: one refit of the zeros
def fit_checks(precomputed, user=None):
    """``(warnings, rounding)``: what to check about the reader's fit (:func:`calib.fit_warnings`: the fitted T
    within 1% of a search bound, the reported part's accuracy at or below 1/K, and, with ``user``, a T decided by
    probabilities the file printed as 0) and that last check's :class:`calib.rounding.RoundingRange` (or None)."""
    result = precomputed.datasets[USER_SLUG]
    data = result.dataset
    reported = "test" if "test" in result.parts else "all"
    rounding = None
    if user is not None:
        rows = part_masks(data)[result.fitted_on]
        rounding = rounding_range(data.logits[rows], data.labels[rows], user.predictions.decimals, FIT_BOUNDS,
                                  REFIT_TOLERANCE)
    warnings = fit_warnings(result.fitted_t, result.parts[reported].accuracy, data.logits.shape[1], FIT_BOUNDS,
                            reported, rounding=rounding)
    return warnings, rounding


_LAST = {}  # the last decision, keyed by the objects it was computed from: every edition and file reuses it


def decision(user, precomputed, analyses):
    """Everything the decision part shows (a namespace; natural units): ``changes`` {metric: MetricChange},
    ``verdict`` (``check`` with any of ``warnings``: :func:`fit_checks`, with ``rounding``),
    ``spread`` (:class:`calib.decision.TemperatureSpread`), ``mce``, ``classes``, ``resamples``,
    ``compare`` (:func:`sitegen.facts.beyond_dives.comparison_view`) with ``compare_verdict``, ``compare_q``,
    ``compare_resamples``, ``compare_bins``, ``compare_max`` (the affine calibrators' class limit) and
    ``compare_negligible`` (:data:`calib.NEGLIGIBLE_CHANGE`, the verdict's least change), the
    methods left out with :data:`calib.UNSETTLED` (``compare_unsettled``) and :data:`calib.CONSTANT_LOGIT`
    (``compare_constant``),
    ``recommended`` (:func:`calib.compare.winner`) with ``recommended_calibrator`` (fitted) and ``passed_over``
    ({method: test rows with a hard 0}).
    Computed once per build (the editions, the downloads and build.py's last line share it)."""
    sources = (user, precomputed, analyses)
    if not (_LAST and all(a is b for a, b in zip(_LAST["sources"], sources))):
        _LAST.clear()  # the sources are kept with it, so their ids cannot be reused while it is cached
        _LAST.update(sources=sources, view=_decide(*sources))
    return _LAST["view"]


def _decide(user, precomputed, analyses):
    result = precomputed.datasets[USER_SLUG]
    data = result.dataset
    reported = "test" if "test" in result.parts else "all"
    quoted = analyses.datasets[USER_SLUG].quoted[reported]
    t1, fit = precomputed.t1_index, grid_index(precomputed.grid, result.fitted_t)
    part = result.parts[reported]
    changes = metric_changes(quoted.paired, _observed(part, t1, fit))
    masks = part_masks(data)
    fit_rows = masks[result.fitted_on]
    spread = temperature_spread(data.logits[fit_rows], data.labels[fit_rows], result.fitted_t, FIT_RESAMPLES,
                                part_generator(ANALYSIS_SEED, USER_SLUG, result.fitted_on, "refit"),
                                USER_SPREAD_BUDGET, USER_SPREAD_MIN_RESAMPLES, tolerance=REFIT_TOLERANCE)
    compared = _comparison(user)
    warnings, rounding = fit_checks(precomputed, user)
    recommended, passed = winner(compared)  # the rule of python -m calib compare's "to deploy"
    return SimpleNamespace(
        warnings=warnings, rounding=rounding, recommended=recommended,
        recommended_calibrator=compared.calibrators[recommended],
        passed_over={m: int(compared.hard_rows[compared.methods.index(m)]) for m in passed},
        compare=comparison_view(compared), compare_verdict=compare_verdict(compared),
        compare_q=compared.quantiles, compare_resamples=compared.n_resamples, compare_bins=compared.n_bins,
        compare_max=MAX_AFFINE_CLASSES, compare_negligible=NEGLIGIBLE_CHANGE,
        # left out because its fit has no finite optimum (the rest of compare.skipped: too many classes)
        compare_unsettled=[m for m, reason in compared.skipped.items() if reason == UNSETTLED],
        # left out because a logit column is constant (a binary model's one score): vector scaling is Platt there
        compare_constant=[m for m, reason in compared.skipped.items() if reason == CONSTANT_LOGIT],
        reported=reported, rows=int(masks[reported].sum()), changes=changes, verdict=verdict(changes, warnings),
        spread=spread, resamples=int(quoted.paired.n_resamples), quantiles=quoted.paired.quantiles,
        mce=_mce_view(part, t1, fit, USER_MCE_MIN_ROWS), mce_min_rows=USER_MCE_MIN_ROWS,
        classes=_classes(data, masks[reported], result.fitted_t, USER_CLASS_ROWS), bins=DECISION_BINS,
        fitted_index=int(fit), metrics=DECISION_METRICS, pair=BINARY_PAIR, pair_sklearn=SKLEARN_BINARY_PAIR)


def decision_record(view):
    """The JSON-ready record of the decision (temperature.json and ``fit --json`` carry the same keys)."""
    return {
        "evaluated_on": view.reported, "rows": view.rows, "n_bins": view.bins,
        "paired_resamples": view.resamples, "range_quantiles": list(view.quantiles),
        "metrics": {k: c._asdict() for k, c in view.changes.items()},
        "verdict": view.verdict._asdict(),
        "temperature_spread": view.spread._asdict(),
    }


def verdict_line(view):
    """One line for stderr: the verdict code, NLL's change and range, and what gets worse."""
    v, nll = view.verdict, view.changes["nll"]
    worse = ", ".join(v.worse) or "nothing"
    return (f"verdict: {v.code} (NLL change {nll.change:+.4f} nats, 5-95% [{nll.lo:+.4f}, {nll.hi:+.4f}] on "
            f"{view.rows} {view.reported} rows); worse on these rows: {worse}")


BINARY_PAIR = "(0, x)"  # the logits the scikit-learn snippet makes of a binary model's one score x
SKLEARN_BINARY_PAIR = "(\u2212x, x)"  # … and those CalibratedClassifierCV(method="temperature") makes

# --- code to deploy T ------------------------------------------------------------------------------------

_NUMPY = '''import numpy as np

T = {t}
{note}


def calibrated_probs(logits):
    z = np.asarray(logits, dtype=np.float64) / T
    z -= z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=-1, keepdims=True)
'''

_TORCH = '''import torch

T = {t}
{note}


def calibrated_probs_torch(logits):
    return torch.softmax(logits / T, dim=-1)
'''

_SKLEARN = '''import numpy as np

T = {t}
SCORES = "{kind}"  # what T was fitted on: the model's logits, or the logarithms of its probabilities


class TemperatureScaled:
    def __init__(self, model, temperature=T, scores=SCORES):
        self.model, self.temperature, self.scores = model, temperature, scores
        self.classes_ = model.classes_

    def predict_proba(self, X):
        if self.scores == "logits" and hasattr(self.model, "decision_function"):
            scores = np.asarray(self.model.decision_function(X), dtype=np.float64)
            if scores.ndim == 1:
                scores = np.stack([np.zeros_like(scores), scores], axis=1)
        else:
            scores = np.log(np.clip(self.model.predict_proba(X), 1e-300, None))
        z = scores / self.temperature
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
'''


# a file of probabilities: T was fitted on their logarithms, which are what the numpy and torch functions take
_LOG_NOTE = "# T was fitted on the logarithms of your probabilities: pass log(p) as the logits\n"


def deploy_snippets(t_text, kind="logits"):
    """The three snippets with T filled in (``t_text``: T as temperature.json writes it): numpy, PyTorch,
    scikit-learn, keyed by those names. ``kind`` is what the file held (:attr:`calib.io.Predictions.kind`):
    the scikit-learn wrapper tempers the same scores, ``decision_function`` or the log of ``predict_proba``."""
    note = _LOG_NOTE if kind == "probabilities" else ""
    return {name: code.replace("{t}", t_text).replace("{note}\n", note).replace("{kind}", kind) for name, code in
            (("numpy", _NUMPY), ("pytorch", _TORCH), ("sklearn", _SKLEARN))}


def deploy_file(t_text, kind="logits"):
    """``downloads/yours-deploy.py``: the three snippets in one file (torch imported only where it is used)."""
    snippets = deploy_snippets(t_text, kind)
    torch = "def " + snippets["pytorch"].split("\ndef ", 1)[1]  # T and the note are in the numpy part
    torch = torch.replace("    return torch.softmax", "    import torch\n\n    return torch.softmax")
    sklearn = snippets["sklearn"].replace("import numpy as np\n\nT = " + t_text + "\n", "", 1)
    return snippets["numpy"] + "\n\n" + torch + "\n\n" + sklearn
