"""``python -m calib fit FILE``: fit the temperature of a model's validation outputs, without building a site.

Reads FILE (``.npz`` or ``.csv``, see :mod:`calib.io`), splits its rows
(:func:`calib.io.split_masks`; or takes the test rows from ``--test FILE2``),
fits T by NLL on the calibration part (bounded golden-section search,
:func:`calib.fit_temperature` with its default bounds and tolerance) and prints
the test part's metrics at T = 1 and at the fitted T: NLL (nats), Brier,
accuracy, mean confidence, and ECE and MCE with 15 equal-width and 15 adaptive
bins; then the paired change of each, the spread of T and the verdict. A binary
model (one score or probability column) also gets Platt scaling and the
positive class's reliability. ``--json`` prints the same as one JSON object.
``--input logits|probabilities`` says what the file's numbers are when its
names do not (:func:`calib.io.load_predictions`). ``--method NAME`` fits that
calibrator too and ``--save PATH`` writes it (:mod:`calib.deploy`; the fitted
T without ``--method``). A ``.npy`` or Parquet FILE (or folder, or glob),
or the options ``--scheduler ADDRESS`` and ``--local-cluster N``, take the partitioned path instead
(:mod:`calib.large_cli`: streamed on this machine, or on Dask).

What was read in a way the file did not spell out is printed as ``note:``
lines on stderr (``notes`` in the JSON). A fit that ran but looks wrong (T
within 1% of a search bound, accuracy at or below 1/K, scores no better than
the class frequencies, a T decided by probabilities printed as 0:
:mod:`calib.rounding`) is printed with one ``warning:`` line per finding on
stderr, listed under ``warnings`` in the JSON, and turns the verdict into
``check``: it never recommends deploying.

Exit status: 0 on success, 2 for bad input or arguments (one line per problem
on stderr, each naming the file, the place and the fix), 3 with ``--strict``
when any warning fired, 1 for an internal error (with its traceback), and
:data:`PIPE_CLOSED_STATUS` (141, what a shell reports for a command ended by
SIGPIPE) when the reader of stdout closed it before everything was written
(``| head -3``): nothing more is printed, no traceback.
"""

import argparse
import os
import sys

import numpy as np

from .binning import SCHEMES, ece, reliability_bins
from .blocks import one_blas_thread
from .cli_data import load_run, run_warnings
from .cli_output import (
    STRICT_STATUS,
    add_common_options,
    default_workers,
    finish,
    print_problems,
    rows_text,
    save_and_finish,
)
from .compare import method_row_scores
from .compare_cli import add_compare_command, run_compare_command
from .decision import metric_changes, paired_changes, temperature_spread, verdict
from .deploy import DEPLOYABLE, calibrator_record
from .fitting import DEFAULT_BOUNDS, DEFAULT_TOLERANCE, fit_temperature
from .grid import grid_metrics
from .io import InputError
from .large_cli import add_partitioned_options, exactness_lines, partitioned_report, partitioned_requested
from .platt import PlattScaling
from .rounding import rounding_range
from .scaling import scaled_probs

N_BINS = 15
PROG = "python -m calib"
DECISION_SEED = 20230922  # the bootstrap of the decision (paired change, spread of T): fixed, so reruns agree
DECISION_RESAMPLES = 2000  # paired resamples up to DECISION_ROW_BUDGET / n, never fewer than 200 (cost ∝ rows)
DECISION_ROW_BUDGET = 2000 * 20_000
SPREAD_BUDGET = 8_000_000  # (row, class) values per search step of the refits of T (calib.decision.temperature_spread)
SPREAD_MIN_RESAMPLES = 100  # past that budget, floor(budget / (n·K)) refits but never fewer (then a subsample)
PIPE_CLOSED_STATUS = 141  # 128 + SIGPIPE: the reader closed stdout early; the shell's code for such a command
__all__ = ["fit_report", "part_metrics", "main", "N_BINS", "PIPE_CLOSED_STATUS", "STRICT_STATUS"]


def part_metrics(logits, labels, temperatures, workers=1):
    """Metrics of rows at each temperature: a list of dicts (one per T) of plain floats."""
    m = grid_metrics(logits, labels, temperatures, bin_counts=(N_BINS,), schemes=SCHEMES, workers=workers)
    return [{
        "temperature": float(t), "nll": float(m.nll[i]), "brier": float(m.brier[i]),
        "accuracy": m.accuracy, "mean_confidence": float(m.mean_confidence[i]),
        "ece": {scheme: float(m.ece[scheme][N_BINS][i]) for scheme in SCHEMES},
        "mce": {scheme: float(m.mce[scheme][N_BINS][i]) for scheme in SCHEMES},
    } for i, t in enumerate(temperatures)]


def _scores(probs, labels):
    """NLL, Brier and both 15-bin top-label ECEs of probability rows: the scores of a calibrator's output."""
    nll, brier, conf, hits = method_row_scores(probs, labels)
    return {"nll": float(np.mean(nll)) if np.all(np.isfinite(nll)) else None, "brier": float(np.mean(brier)),
            "ece": {scheme: ece(conf, hits, N_BINS, scheme) for scheme in SCHEMES}}


def _positive_class(logits, labels, temperature, platt):
    """The positive class's reliability (15 equal-width bins of p₁ against the fraction of positives) at T = 1,
    at the fitted T and under Platt scaling, with its ECE: a binary model's reliability diagram."""
    out = {}
    for name, probs in (("t1", scaled_probs(logits, 1.0)), ("fitted", scaled_probs(logits, temperature)),
                        ("platt", platt.predict_proba(logits))):
        bins = reliability_bins(probs[:, 1], labels == 1, N_BINS)
        filled = bins.count > 0
        out[name] = {"ece": float(bins.weighted_gap.sum()), "bins": [
            {"lower": float(lo), "upper": float(hi), "rows": int(c), "mean_probability": float(p),
             "fraction_positive": float(a)}
            for lo, hi, c, p, a in zip(bins.lower[filled], bins.upper[filled], bins.count[filled],
                                       bins.confidence[filled], bins.accuracy[filled])]}
    return out


def fit_report(path, split=None, seed=None, workers=1, kind=None, test=None, method=None):
    """Everything ``fit`` prints, as a dict of plain values, and the deploy record of the calibrator ``method``
    (temperature scaling when None) fitted on the calibration rows (:func:`calib.deploy.calibrator_record`).
    Raises :class:`calib.io.InputError`; ``kind`` is ``--input``, ``test`` a file of test rows (``--test``)."""
    run = load_run(path, split, seed, kind, test)
    n, k = run.logits.shape
    parts = run.parts
    fit_rows = parts.get("calibration", parts.get("all"))
    eval_name = "test" if "test" in parts else "all"
    eval_rows = parts[eval_name]
    logits = run.logits.astype(np.float64, copy=False)
    z_fit, y_fit, z_eval, y_eval = logits[fit_rows], run.labels[fit_rows], logits[eval_rows], run.labels[eval_rows]
    temperature = fit_temperature(z_fit, y_fit, method="bounded", workers=workers)
    before, after = part_metrics(z_eval, y_eval, [1.0, temperature], workers)
    gen = np.random.default_rng(DECISION_SEED)
    rows = int(eval_rows.sum())
    resamples = int(min(DECISION_RESAMPLES, max(200, DECISION_ROW_BUDGET // rows)))
    paired, observed = paired_changes(z_eval, y_eval, temperature, resamples, gen, N_BINS)
    changes = metric_changes(paired, observed, N_BINS)
    spread = temperature_spread(z_fit, y_fit, temperature, DECISION_RESAMPLES, gen, SPREAD_BUDGET,
                                SPREAD_MIN_RESAMPLES)
    rounding = rounding_range(z_fit, y_fit, run.decimals, workers=workers)
    warnings = run_warnings(temperature, after["accuracy"], after["nll"], y_fit, y_eval, k, eval_name, rounding)
    report = {
        "file": str(path), "sha256": run.files[0]["sha256"], "files": list(run.files), "n": n, "k": k,
        "kind": run.kind, "binary": run.binary, "notes": list(run.notes),
        "split": {"rule": run.rule, "seed": run.seed, "parts": {name: int(mask.sum()) for name, mask in parts.items()}},
        "temperature": temperature,
        "fit": {"objective": "mean NLL (nats)", "method": "bounded golden-section", "bounds": list(DEFAULT_BOUNDS),
                "tolerance": DEFAULT_TOLERANCE, "part": "calibration" if "calibration" in parts else "all",
                "rows": int(fit_rows.sum())},
        "evaluated_on": eval_name, "n_bins": N_BINS,
        "before": before, "after": after,
        "decision": {"evaluated_on": eval_name, "rows": rows, "n_bins": N_BINS, "paired_resamples": resamples,
                     "range_quantiles": list(paired.quantiles),
                     "metrics": {key: change._asdict() for key, change in changes.items()},
                     "verdict": verdict(changes, warnings)._asdict(), "temperature_spread": spread._asdict()},
        "warnings": [w._asdict() for w in warnings],
    }
    fitted = {"temperature": None}
    if run.binary or k == 2:
        platt = PlattScaling().fit(z_fit, y_fit)
        fitted["platt"] = platt
        report["platt"] = {"slope": float(platt.slope_[0]), "bias": float(platt.bias_[0]),
                           **_scores(platt.predict_proba(z_eval), y_eval)}
        report["positive_class"] = _positive_class(z_eval, y_eval, temperature, platt)
    method = method or "temperature"
    calibrator = fitted.get(method)
    if calibrator is None:
        cls = DEPLOYABLE[method][0]
        calibrator = cls(temperature=temperature) if method in ("scaling-binning", "ensemble-temperature") else \
            cls()
        if method == "temperature":
            calibrator.temperature_, calibrator.n_classes_ = temperature, k
        else:
            calibrator.fit(z_fit, y_fit)
    if method != "temperature":
        report["calibrator"] = {"method": method, "before": _scores(scaled_probs(z_eval, 1.0), y_eval),
                                "after": _scores(calibrator.predict_proba(z_eval), y_eval)}
    record = calibrator_record(method, calibrator, run.kind, run.class_names, run.binary,
                               {"file": run.files[0]["file"], "sha256": run.files[0]["sha256"],
                                "rows": int(fit_rows.sum())})
    return report, record


def _text(report):
    split = report["split"]
    sizes = ", ".join(f"{rows} {name}" for name, rows in split["parts"].items())
    seed = f", seed {split['seed']}" if split["seed"] is not None else ""
    engine = report.get("engine", {})
    source = f"sha256 {report['sha256'][:16]}…" if "sha256" in report else \
        f"{engine.get('kind')}, {engine.get('partitions', engine.get('pieces'))} partitions"
    what = "one score column (a binary model)" if report.get("binary") else f"{report['k']} classes"
    kind = f"{report['kind']}, " if "kind" in report else ""
    rows = rows_text(report)
    lines = [
        f"{report['file']}: {rows}, {what}, {kind}{source}",
        f"split: {split['rule']}{seed} ({sizes} rows)",
        f"fitted T = {report['temperature']:.6g} (NLL on {report['fit']['rows']} {report['fit']['part']} rows, "
        f"bounds {report['fit']['bounds'][0]:g}–{report['fit']['bounds'][1]:g})",
        f"metrics on the {report['evaluated_on']} part ({split['parts'][report['evaluated_on']]} rows):",
        f"  {'':28s} {'T = 1':>10s} {'fitted T':>10s}",
    ]
    before, after = report["before"], report["after"]
    rows = [("NLL (nats)", "nll"), ("Brier", "brier"), ("accuracy", "accuracy"),
            ("mean confidence", "mean_confidence")]
    for label, key in rows:
        lines.append(f"  {label:28s} {before[key]:10.5f} {after[key]:10.5f}")
    for metric in ("ece", "mce"):
        for scheme in ("equal-width", "adaptive"):
            label = f"{metric.upper()} ({report['n_bins']} {scheme} bins)"
            if scheme in before[metric]:
                lines.append(f"  {label:28s} {before[metric][scheme]:10.5f} {after[metric][scheme]:10.5f}")
    if "decision" not in report:
        return "\n".join(lines + exactness_lines(report))
    decision = report["decision"]
    q = decision["range_quantiles"]
    lines.append(f"change from T = 1 to the fitted T, with its paired bootstrap {q[0]:.0%}-{q[-1]:.0%} range "
                 f"({decision['paired_resamples']} resamples):")
    for key, change in decision["metrics"].items():
        lines.append(f"  {key:28s} {change['change']:+10.5f}   [{change['lo']:+.5f}, {change['hi']:+.5f}]")
    spread = decision["temperature_spread"]
    sub = "" if spread["subsample"] == spread["rows"] else f", m-out-of-n with m = {spread['subsample']}"
    lines.append(f"fitted T over {spread['resamples']} bootstrap refits{sub}: "
                 f"{spread['values'][0]:.4g} to {spread['values'][-1]:.4g}")
    if "platt" in report:
        lines += _binary_text(report)
    if "calibrator" in report:
        c = report["calibrator"]
        cell = lambda v: "inf" if v is None else f"{v:.5f}"  # noqa: E731
        lines.append(f"{c['method']} on the {report['evaluated_on']} part, uncalibrated → calibrated: NLL "
                     f"{cell(c['before']['nll'])} → {cell(c['after']['nll'])}, Brier {c['before']['brier']:.5f} → "
                     f"{c['after']['brier']:.5f}, ECE (15 equal-width) {c['before']['ece']['equal-width']:.5f} → "
                     f"{c['after']['ece']['equal-width']:.5f}")
    v = decision["verdict"]
    if v["code"] == "check":
        lines.append(f"verdict: check before deploying ({', '.join(v['checks'])}): "
                     + " ".join(w["message"] for w in report["warnings"]))
    else:
        lines.append(f"verdict: {v['code']}; worse on these rows: {', '.join(v['worse']) or 'nothing'}"
                     f"; NLL changes by at most {v['nll_bound']:.4f} nats within its range")
    return "\n".join(lines + exactness_lines(report))


def _binary_text(report):
    """A binary model's lines: Platt scaling beside T, and the positive class's reliability bins."""
    p, pc = report["platt"], report["positive_class"]
    nll = "inf" if p["nll"] is None else f"{p['nll']:.5f}"
    lines = [f"Platt scaling, p = sigmoid(a·x + b) on the log-odds x: a = {p['slope']:.6g}, b = {p['bias']:.6g} "
             f"(T alone is a = 1/T = {1 / report['temperature']:.6g}, b = 0); on the {report['evaluated_on']} part "
             f"NLL {nll}, Brier {p['brier']:.5f}, ECE (15 equal-width) {p['ece']['equal-width']:.5f}",
             f"positive class: ECE of p(positive) in 15 equal-width bins: T = 1 {pc['t1']['ece']:.5f}, fitted T "
             f"{pc['fitted']['ece']:.5f}, Platt {pc['platt']['ece']:.5f}; reliability at the fitted T:",
             f"  {'bin':>13s} {'rows':>8s} {'mean p':>8s} {'positive':>9s}"]
    for b in pc["fitted"]["bins"]:
        lines.append(f"  {b['lower']:.3f}–{b['upper']:.3f} {b['rows']:8d} {b['mean_probability']:8.4f} "
                     f"{b['fraction_positive']:9.4f}")
    return lines


def main(argv=None):
    """Run the command line; returns the exit status (see the module docstring). A closed stdout ends it quietly
    (the recipe of Python's ``signal`` documentation: stdout is pointed at /dev/null so the exit flush is silent)."""
    try:
        try:
            with one_blas_thread():
                return _main(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return PIPE_CLOSED_STATUS


def _main(argv):
    parser = argparse.ArgumentParser(prog=PROG, description="Temperature scaling for your own model's logits.")
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("fit", help="fit T on FILE and print the before/after metrics",
                              description=__doc__.splitlines()[0])
    add_common_options(fit)
    fit.add_argument("--method", choices=tuple(DEPLOYABLE), default=None,
                     help="also fit this calibrator on the calibration rows and score it (with --save: write it)")
    fit.add_argument("--save", metavar="PATH", default=None,
                     help="write the calibrator (--method, else the fitted T) as JSON to PATH, and beside it "
                          "PATH with .py: numpy, PyTorch and scikit-learn code that applies it")
    fit.add_argument("--workers", type=int, default=default_workers(),
                     help="threads for the engine (default: the usable cores); results do not depend on it")
    add_partitioned_options(fit)
    add_compare_command(commands)
    args = parser.parse_args(argv)
    if args.command == "compare":
        return run_compare_command(args, PROG)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.seed is not None and args.seed < 0:
        parser.error("--seed must be a non-negative integer")
    try:
        if partitioned_requested(args):  # no deploy file: the partitioned path fits T alone
            report = partitioned_report(args)
            return finish(PROG, report, None if args.json else _text(report), args.strict)
        report, record = fit_report(args.file, args.split, args.seed, args.workers, args.input, args.test, args.method)
    except InputError as error:
        print_problems(PROG, error)
        return 2
    return save_and_finish(PROG, args, report, record, _text)


if __name__ == "__main__":
    sys.exit(main())
