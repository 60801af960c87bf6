"""What ``python -m calib fit`` and ``compare`` share on the command line: their common options, and how they
print problems, notes, warnings and saved files, and which exit status they end with.

Exit statuses: 0 success; 2 bad input or arguments (:func:`print_problems`: one line per problem);
:data:`STRICT_STATUS` (3) with ``--strict`` when a warning fired; 1 an internal error (a traceback).
"""

import json
import os
import sys

from .io import INPUT_KINDS, SPLIT_RULES

__all__ = ["STRICT_STATUS", "add_common_options", "print_problems", "save_record", "deploy_hint", "finish", "rows_text",
           "default_workers"]

STRICT_STATUS = 3  # --strict: the command ran, but a warning fired (for pipelines that must not deploy then)


def default_workers():
    """The usable cores (the default of ``--workers``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def add_common_options(command):
    """The file and the options ``fit`` and ``compare`` both take."""
    command.add_argument("file", help=".npz or .csv of logits (or probabilities) and labels")
    command.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    command.add_argument("--split", choices=SPLIT_RULES, default=None,
                         help="how rows are split: 'file' (default when the file has a split), 'random' (default "
                              "otherwise: a seeded half split), 'even-odd', or 'none' (fit and evaluate on all rows)")
    command.add_argument("--test", metavar="FILE2", default=None,
                         help="a second file of test rows: FILE's rows then all calibrate (no split)")
    command.add_argument("--input", choices=INPUT_KINDS, default=None,
                         help="what the numbers are, whatever the file names them (default: the names, then what "
                              "the numbers look like; CSV class columns named prob_<class> are probabilities)")
    command.add_argument("--seed", type=int, default=None, help="seed of the random split (default 0)")
    command.add_argument("--strict", action="store_true",
                         help=f"exit with status {STRICT_STATUS} when any warning fires (T at a search bound, "
                              "accuracy at chance, scores no better than the class frequencies)")


def print_problems(prog, error):
    """Every problem of an :class:`calib.InputError`, one line each on stderr."""
    for problem in error.problems:
        print(f"{prog}: error: " + " ".join(str(problem).split()), file=sys.stderr)


def save_record(prog, path, record, report):
    """Write a deploy record and its code (:func:`calib.deploy.save_calibrator`) and name them in ``report``
    (``saved``); returns 0, or 2 after one error line when they cannot be written."""
    from .deploy import save_calibrator

    try:
        written = save_calibrator(path, record)
    except OSError as error:
        print(f"{prog}: error: {path}: cannot write the calibrator ({error.strerror or error})", file=sys.stderr)
        return 2
    report["saved"] = {"method": record["kind"], "calibrator": str(written[0]), "code": str(written[1])}
    return 0


def deploy_hint(args, report, method):
    """The report's last line: what was saved, or how to save the calibrator (nothing to deploy when the verdict
    says to check the fit first)."""
    checks = report.get("decision", {}).get("verdict", {}).get("code") == "check" or report.get("warnings")
    if "saved" in report:
        saved = report["saved"]
        line = (f"deploy: wrote {saved['calibrator']} ({method}) and {saved['code']} (numpy, PyTorch and "
                "scikit-learn code that applies it)")
        return line + ("; check the warnings before using it" if checks else "")
    if checks:
        return "deploy: nothing to deploy until the warnings are checked"
    return (f"deploy: add --save NAME.json to write {method} as a small JSON file with numpy, PyTorch and "
            "scikit-learn code that applies it")


def finish(prog, report, text, strict):
    """Print the notes (stderr), the report (stdout: ``text``, or JSON when it is None) and the warnings (stderr);
    the exit status: :data:`STRICT_STATUS` with ``strict`` and a warning, else 0."""
    from .io import SPLIT_NONE_NOTE

    for note in report.get("notes", ()):
        print(f"{prog}: note: {note}", file=sys.stderr)
    if report["split"]["rule"] == "none":
        print(f"{prog}: warning: {SPLIT_NONE_NOTE}", file=sys.stderr)
    sys.stderr.flush()
    print(json.dumps(report, allow_nan=False) if text is None else text)
    sys.stdout.flush()  # the table first, then what to check about it
    for warning in report.get("warnings", ()):
        print(f"{prog}: warning: {warning['message']}", file=sys.stderr)
    return STRICT_STATUS if strict and report.get("warnings") else 0


def save_and_finish(prog, args, report, record, text_of):
    """``--save``'s file when asked (its failure's status), then :func:`finish` with ``text_of(report)`` and the
    deploy hint (or JSON with ``--json``): the exit status of ``calib fit`` and ``calib compare``."""
    if args.save:
        status = save_record(prog, args.save, record, report)
        if status:
            return status
    text = None if args.json else text_of(report) + "\n" + deploy_hint(args, report, record["kind"])
    return finish(prog, report, text, args.strict)


def rows_text(report):
    """The rows of a report's head line: ``"12000 rows"``, or with ``--test`` each file's own,
    ``"6000 rows + 6000 rows in test.npz"`` (the first file's name starts the line)."""
    files = report.get("files", ())
    if len(files) < 2:
        return f"{report['n']} rows"
    return " + ".join(f"{f['rows']} rows" + ("" if i == 0 else f" in {f['file']}") for i, f in enumerate(files))
