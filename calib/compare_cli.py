"""``python -m calib compare FILE``: every calibrator against temperature scaling on a file's rows, and the one to
deploy.

The rows are read and split as ``python -m calib fit`` reads them (:func:`calib.cli_data.load_run`: the same
notes, ``--test``, the same warnings about the temperature fit, which turn the recommendation into "check
first"). :func:`compare_parts` fits every calibrator on the calibration rows and scores it on the test rows;
the table gives each score's change from temperature scaling with its paired range. The calibrator to deploy
(:func:`calib.compare.winner`) is the one with the lowest test NLL among those whose NLL's whole range of change
lies below zero (they beat temperature scaling on the proper score, beyond the resampling noise) and that give no
test row a probability of exactly 0 or 1 (a hard 0 costs infinite log loss on the next miss: such a method is
passed over, with a note), else temperature scaling; ``--save PATH`` writes it (:func:`calib.deploy.save_calibrator`).
"""

import sys

import numpy as np

from .bootstrap import DEFAULT_RESAMPLES
from .cli_data import load_run, run_warnings
from .cli_output import add_common_options, default_workers, print_problems, rows_text, save_and_finish
from .compare import (
    COMPARE_COLUMNS,
    COMPARE_MIN_RESAMPLES,
    COMPARE_RESAMPLE_BUDGET,
    compare_parts,
    comparison_record,
    winner,
)
from .deploy import calibrator_record
from .io import InputError
from .paired import NEGLIGIBLE_CHANGE
from .rounding import rounding_range

__all__ = ["SCORE_LABELS", "comparison_report", "comparison_text", "winner", "add_compare_command",
           "run_compare_command"]

SCORE_LABELS = {"nll": "NLL (nats)", "brier": "Brier", "ece_w": "ECE equal-width", "ece_a": "ECE adaptive",
                "cw_ece": "class-wise ECE", "smooth": "smooth ECE", "accuracy": "accuracy (higher is better)"}


def comparison_report(path, split=None, seed=None, n_resamples=None, bootstrap_seed=0, kind=None,
                      test=None, workers=1):
    """What ``python -m calib compare FILE`` prints, as a dict of plain values, and the deploy record of the
    :func:`winner` (raises :class:`calib.InputError`). The rows are split as ``python -m calib fit`` splits them;
    ``kind`` is ``--input``, ``test`` a file of test rows, ``workers`` threads (the methods are fitted and
    scored side by side; results do not depend on it); ``None`` in a score means ``inf``."""
    run = load_run(path, split, seed, kind, test)
    k = run.logits.shape[1]
    result = compare_parts(run.logits, run.labels, run.parts, n_resamples=n_resamples, seed=bootstrap_seed,
                           binary=k == 2, workers=workers)
    fit_rows = run.parts.get("calibration", run.parts.get("all"))
    eval_name = "test" if "test" in run.parts else "all"
    eval_rows = run.parts[eval_name]
    temperature = float(result.calibrators["temperature"].temperature_)
    z = np.asarray(run.logits)[eval_rows]
    accuracy = float(np.mean(np.argmax(z, axis=1) == run.labels[eval_rows]))  # T never moves the argmax
    rounding = rounding_range(np.asarray(run.logits)[fit_rows], run.labels[fit_rows], run.decimals, workers=workers)
    warnings = run_warnings(temperature, accuracy, float(result.scores["nll"][0]), run.labels[fit_rows],
                            run.labels[eval_rows], k, eval_name, rounding)
    best, passed = winner(result)
    record = calibrator_record(best, result.calibrators[best], run.kind, run.class_names, run.binary,
                               {"file": run.files[0]["file"], "sha256": run.files[0]["sha256"],
                                "rows": int(fit_rows.sum())})
    report = {"file": str(path), "sha256": run.files[0]["sha256"], "files": list(run.files),
              "n": int(run.labels.size), "kind": run.kind, "binary": run.binary, "notes": list(run.notes),
              "split": {"rule": run.rule, "seed": run.seed,
                        "parts": {name: int(mask.sum()) for name, mask in run.parts.items()}},
              "temperature": temperature, **comparison_record(result),
              "warnings": [w._asdict() for w in warnings],
              "deploy": {"method": best, "code": "check" if warnings else "deploy", "passed_over": passed}}
    return report, record


def _cell(value, digits=4):
    return "inf" if value is None else f"{value:.{digits}f}"


def _short(value):
    """A hyperparameter for the text table: numbers to four significant digits, lists in brackets."""
    if isinstance(value, list):
        return "[" + " ".join(_short(v) for v in value) + "]"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def comparison_text(report):
    """The report of :func:`comparison_report` as a table: one block per score, one line per method."""
    q = report["quantiles"]
    parts = ", ".join(f"{rows} {name}" for name, rows in report["split"]["parts"].items())
    what = "one score column (binary)" if report["binary"] else f"{report['k']} classes"
    rows = rows_text(report)
    lines = [f"{report['file']}: {rows}, {what}; split {report['split']['rule']} ({parts}); "
             f"fitted T = {report['temperature']:.6g}",
             f"scores on the test rows; change = method − temperature scaling, its {q[0]:.0%}–{q[-1]:.0%} range "
             f"over {report['n_resamples']} paired resamples (seed {report['bootstrap_seed']}); inf: a label got "
             f"probability 0; a range within {NEGLIGIBLE_CHANGE:g} of zero is no change"]
    for name, reason in report["skipped"].items():
        lines.append(f"{name}: {reason}")
    for s in COMPARE_COLUMNS:
        lines.append(f"{SCORE_LABELS[s]} ({report['n_bins']} bins)" if s in ("ece_w", "ece_a", "cw_ece")
                     else SCORE_LABELS[s])
        for m in report["methods"]:
            cell = m["scores"][s]
            low, high = cell["range"]
            lines.append(f"  {m['method']:22s} {_cell(cell['value']):>8s}  change {_cell(cell['change']):>8s}"
                         f"  [{_cell(low)}, {_cell(high)}]")
    lines.append("hyperparameters (settings; fitted) and test rows whose top class the calibrator changed")
    for m in report["methods"]:
        h = m["hyperparameters"]
        values = "; ".join(", ".join(f"{k}={_short(v)}" for k, v in part.items()) or "-"
                           for part in (h["settings"], h["fitted"]))
        lines.append(f"  {m['method']:22s} {values}; changed {m['changed_rows']}")
    beats = report["verdict"]["beats"]
    lines.append("verdict: " + ("; ".join(f"{m} beats temperature scaling beyond its range on {', '.join(v)}"
                                          for m, v in beats.items())
                                or "no calibrator beats temperature scaling beyond its range on any score"))
    best = report["deploy"]["method"]
    if report["deploy"]["code"] == "check":
        lines.append("to deploy: none until the warnings are checked: " + " ".join(w["message"] for w in
                                                                                report["warnings"]))
    else:
        if best != "temperature":
            why = "the lowest test NLL of those that beat temperature scaling beyond its range on NLL"
        elif report["deploy"].get("passed_over"):
            why = "every calibrator that beats it beyond its range on NLL gives hard 0/1 probabilities"
        else:
            why = "no calibrator beats it beyond its range on NLL"
        lines.append(f"to deploy: {best} ({why})")
    for name, reason in report["deploy"].get("passed_over", {}).items():
        lines.append(f"not {name}, though its NLL is lower: it {reason}")
    return "\n".join(lines)


def add_compare_command(commands):
    """Add the ``compare`` subcommand to an argparse subparsers object."""
    command = commands.add_parser("compare", help="compare every calibrator with temperature scaling on FILE",
                                  description=__doc__.splitlines()[0])
    add_common_options(command)
    command.add_argument("--resamples", type=int, default=None,
                         help=f"paired bootstrap resamples (default {DEFAULT_RESAMPLES}, fewer past "
                              f"{COMPARE_RESAMPLE_BUDGET:,} resample × test row pairs but never under "
                              f"{COMPARE_MIN_RESAMPLES}; seed 0)")
    command.add_argument("--workers", type=int, default=default_workers(),
                         help="threads, one calibrator each (default: the usable cores); results do not depend on it")
    command.add_argument("--save", metavar="PATH", default=None,
                         help="write the calibrator to deploy as JSON to PATH, and beside it PATH with .py: numpy, "
                              "PyTorch and scikit-learn code that applies it")


def run_compare_command(args, prog):
    """Run ``compare`` for parsed ``args``; returns the exit status (2: bad input, one line per problem)."""
    too_few = args.resamples is not None and args.resamples < 2
    if too_few or (args.seed is not None and args.seed < 0) or args.workers < 1:
        print(f"{prog} compare: error: --resamples must be at least 2, --seed non-negative and --workers at least 1",
              file=sys.stderr)
        return 2
    try:
        report, record = comparison_report(args.file, args.split, args.seed, args.resamples, kind=args.input,
                                           test=args.test, workers=args.workers)
    except InputError as error:
        print_problems(prog, error)
        return 2
    except ValueError as error:  # a file the calibrators cannot fit (e.g. too few rows to cross-validate)
        print(f"{prog}: error: {args.file}: " + " ".join(str(error).split()), file=sys.stderr)
        return 2
    return save_and_finish(prog, args, report, record, comparison_text)
