"""``python -m calib fit FILE``: fit the temperature of a model's validation outputs, without building a site.

Reads FILE (``.npz`` or ``.csv``, see :mod:`calib.io`), splits its rows
(:func:`calib.io.split_masks`), fits T by NLL on the calibration part (bounded
golden-section search, :func:`calib.fit_temperature` with its default bounds
and tolerance) and prints the test part's metrics at T = 1 and at the fitted
T: NLL (nats), Brier, accuracy, mean confidence, and ECE and MCE with 15
equal-width and 15 adaptive bins. ``--json`` prints the same as one JSON
object. A ``.npy`` or Parquet FILE (or folder, or glob), or the options
``--scheduler ADDRESS`` and ``--local-cluster N``, take the partitioned path
instead (:mod:`calib.large_cli`: streamed on this machine, or on Dask).
``--input logits|probabilities`` says what the file's numbers are when its
names do not (:func:`calib.io.load_predictions`). A fit that ran but
looks wrong (T within 1% of a search bound, accuracy at or below 1/K) is
printed with one ``warning:`` line per finding on stderr and listed under
``warnings`` in the JSON.

Exit status: 0 on success, 2 for bad input or arguments (one line on stderr
naming the file, the place and the fix), 1 for an internal error (with its
traceback), and :data:`PIPE_CLOSED_STATUS` (141, what a shell reports for a
command ended by SIGPIPE) when the reader of stdout closed it before
everything was written (``| head -3``): nothing more is printed, no traceback.
"""

import argparse
import json
import os
import sys

import numpy as np

from .binning import SCHEMES
from .compare import add_compare_command, run_compare_command
from .decision import metric_changes, paired_changes, temperature_spread, verdict
from .fitting import DEFAULT_BOUNDS, DEFAULT_TOLERANCE, fit_temperature
from .grid import grid_metrics
from .io import DEFAULT_SPLIT_SEED, INPUT_KINDS, SPLIT_NONE_NOTE, SPLIT_RULES, InputError, load_predictions, split_masks
from .io_checks import fit_warnings
from .large_cli import add_partitioned_options, exactness_lines, partitioned_report, partitioned_requested

N_BINS = 15
PROG = "python -m calib"
DECISION_SEED = 20230922  # the bootstrap of the decision (paired change, spread of T): fixed, so reruns agree
DECISION_RESAMPLES = 2000  # paired resamples up to DECISION_ROW_BUDGET / n, never fewer than 200 (cost ∝ rows)
DECISION_ROW_BUDGET = 2000 * 20_000
SPREAD_BUDGET = 8_000_000  # (row, class) values per search step of the refits of T (calib.decision.temperature_spread)
PIPE_CLOSED_STATUS = 141  # 128 + SIGPIPE: the reader closed stdout early; the shell's code for such a command


def _default_workers():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def part_metrics(logits, labels, temperatures, workers=1):
    """Metrics of rows at each temperature: a list of dicts (one per T) of plain floats."""
    m = grid_metrics(logits, labels, temperatures, bin_counts=(N_BINS,), schemes=SCHEMES, workers=workers)
    return [{
        "temperature": float(t), "nll": float(m.nll[i]), "brier": float(m.brier[i]),
        "accuracy": m.accuracy, "mean_confidence": float(m.mean_confidence[i]),
        "ece": {scheme: float(m.ece[scheme][N_BINS][i]) for scheme in SCHEMES},
        "mce": {scheme: float(m.mce[scheme][N_BINS][i]) for scheme in SCHEMES},
    } for i, t in enumerate(temperatures)]


def fit_report(path, split=None, seed=DEFAULT_SPLIT_SEED, workers=1, kind=None):
    """Everything ``fit`` prints, as a dict of plain values (raises :class:`calib.io.InputError`); ``kind`` is
    ``--input`` (None: the file's names say whether it holds logits or probabilities)."""
    data = load_predictions(path, kind)
    n, k = data.logits.shape
    parts = split_masks(n, split, data.split, seed=seed, source=str(path))
    rule = split or ("file" if data.split is not None else "random")
    fit_rows = parts.get("calibration", parts.get("all"))
    eval_name = "test" if "test" in parts else "all"
    eval_rows = parts[eval_name]
    logits = data.logits.astype(np.float64, copy=False)
    temperature = fit_temperature(logits[fit_rows], data.labels[fit_rows], method="bounded", workers=workers)
    before, after = part_metrics(logits[eval_rows], data.labels[eval_rows], [1.0, temperature], workers)
    gen = np.random.default_rng(DECISION_SEED)
    rows = int(eval_rows.sum())
    resamples = int(min(DECISION_RESAMPLES, max(200, DECISION_ROW_BUDGET // rows)))
    paired, observed = paired_changes(logits[eval_rows], data.labels[eval_rows], temperature, resamples, gen, N_BINS)
    changes = metric_changes(paired, observed, N_BINS)
    spread = temperature_spread(logits[fit_rows], data.labels[fit_rows], temperature, DECISION_RESAMPLES, gen,
                                SPREAD_BUDGET, 100)
    return {
        "file": str(path), "sha256": data.sha256, "n": n, "k": k,
        "split": {"rule": rule, "seed": seed if rule == "random" else None,
                  "parts": {name: int(mask.sum()) for name, mask in parts.items()}},
        "temperature": temperature,
        "fit": {"objective": "mean NLL (nats)", "method": "bounded golden-section", "bounds": list(DEFAULT_BOUNDS),
                "tolerance": DEFAULT_TOLERANCE, "part": "calibration" if "calibration" in parts else "all",
                "rows": int(fit_rows.sum())},
        "evaluated_on": eval_name, "n_bins": N_BINS,
        "before": before, "after": after,
        "decision": {"evaluated_on": eval_name, "rows": rows, "n_bins": N_BINS, "paired_resamples": resamples,
                     "range_quantiles": list(paired.quantiles),
                     "metrics": {key: change._asdict() for key, change in changes.items()},
                     "verdict": verdict(changes)._asdict(), "temperature_spread": spread._asdict()},
        "warnings": [w._asdict() for w in fit_warnings(temperature, after["accuracy"], k, DEFAULT_BOUNDS, eval_name)],
    }


def _text(report):
    split = report["split"]
    sizes = ", ".join(f"{rows} {name}" for name, rows in split["parts"].items())
    seed = f", seed {split['seed']}" if split["seed"] is not None else ""
    engine = report.get("engine", {})
    source = f"sha256 {report['sha256'][:16]}…" if "sha256" in report else \
        f"{engine.get('kind')}, {engine.get('partitions', engine.get('pieces'))} partitions"
    lines = [
        f"{report['file']}: {report['n']} rows, {report['k']} classes ({source})",
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
    v = decision["verdict"]
    lines.append(f"verdict: {v['code']}; worse on these rows: {', '.join(v['worse']) or 'nothing'}"
                 f"; NLL changes by at most {v['nll_bound']:.4f} nats within its range")
    return "\n".join(lines + exactness_lines(report))


def main(argv=None):
    """Run the command line; returns the exit status (see the module docstring). A closed stdout ends it quietly
    (the recipe of Python's ``signal`` documentation: stdout is pointed at /dev/null so the exit flush is silent)."""
    try:
        try:
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
    fit.add_argument("file", help=".npz or .csv of logits (or probabilities) and labels; or a .npy or Parquet "
                     "file, folder or glob, fitted in partitions (see --scheduler)")
    fit.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    fit.add_argument("--split", choices=SPLIT_RULES, default=None,
                     help="how rows are split: 'file' (default when the file has a split), 'random' (default "
                          "otherwise: a seeded half split), 'even-odd', or 'none' (fit and evaluate on all rows)")
    fit.add_argument("--input", choices=INPUT_KINDS, default=None,
                     help="what the numbers are, whatever the file names them (default: .npz 'logits' or "
                          "'probabilities'; CSV class columns named prob_<class> or p_<class> are probabilities)")
    fit.add_argument("--seed", type=int, default=DEFAULT_SPLIT_SEED,
                     help=f"seed of the random split (default {DEFAULT_SPLIT_SEED})")
    fit.add_argument("--workers", type=int, default=_default_workers(),
                     help="threads for the engine (default: the usable cores); results do not depend on it")
    add_partitioned_options(fit)
    add_compare_command(commands, SPLIT_RULES, INPUT_KINDS)
    args = parser.parse_args(argv)
    if args.command == "compare":
        return run_compare_command(args, PROG)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.seed < 0:
        parser.error("--seed must be a non-negative integer")
    try:
        if partitioned_requested(args):
            report = partitioned_report(args)
        else:
            report = fit_report(args.file, args.split, args.seed, args.workers, args.input)
    except InputError as error:
        print(f"{PROG}: error: " + " ".join(str(error).split()), file=sys.stderr)
        return 2
    if report["split"]["rule"] == "none":
        print(f"{PROG}: warning: {SPLIT_NONE_NOTE}", file=sys.stderr)
    print(json.dumps(report, allow_nan=False) if args.json else _text(report))
    sys.stdout.flush()  # the table first, then what to check about it
    for warning in report["warnings"]:
        print(f"{PROG}: warning: {warning['message']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
