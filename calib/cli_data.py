"""The rows ``python -m calib fit`` and ``compare`` run on: one file split in two, or a validation file and a
test file (``--test``); and what both commands check about a fit before anyone deploys it.

:func:`load_run` reads the file(s) (:func:`calib.load_predictions`) and splits the rows
(:func:`calib.io.split_masks`): with ``test`` given, every (non-training) row of the first file calibrates and
every row of the second is a test row (rule ``files``), and both must hold the same classes, as the same kind of
numbers. :func:`run_warnings` is :func:`calib.fit_warnings` with the class frequencies' NLL as the reference of
"the scores say nothing about these labels".
"""

from typing import NamedTuple, Optional, Tuple

import numpy as np

from .fitting import DEFAULT_BOUNDS
from .io import DEFAULT_SPLIT_SEED, load_predictions, split_masks
from .io_checks import InputError, Problems, fail, fit_warnings

__all__ = ["RunData", "load_run", "prior_nll", "run_warnings"]


class RunData(NamedTuple):
    """The rows of a run: ``logits`` (n, K) (float32 or float64, as read), ``labels`` (n,), ``parts``
    ``{name: mask (n,)}`` (``calibration``/``test`` or ``all``), ``rule`` (a split rule, or ``files``), ``seed``
    (of a random split, else None), ``files`` (one dict per file: ``file``, ``sha256``, ``rows``), ``kind``,
    ``binary``, ``class_names`` (K,) or None, ``notes`` (from reading, each prefixed with its file), ``decimals``
    (of the first file's rounded probabilities with cells printed as 0, which T is fitted on: :mod:`calib.rounding`;
    else None)."""

    logits: np.ndarray
    labels: np.ndarray
    parts: dict
    rule: str
    seed: Optional[int]
    files: Tuple[dict, ...]
    kind: str
    binary: bool
    class_names: Optional[np.ndarray]
    notes: Tuple[str, ...]
    decimals: Optional[int] = None


def _notes(data):
    return tuple(f"{data.path}: {note}" for note in data.notes)


def _same_model(path, first, second):
    """Refuse a test file whose classes or kind of numbers differ from the validation file's (all problems)."""
    problems = Problems(path)
    k1, k2 = first.logits.shape[1], second.logits.shape[1]
    with problems.collect():
        if k1 != k2 or first.binary != second.binary:
            what = lambda d: "one column (binary)" if d.binary else f"{d.logits.shape[1]} classes"  # noqa: E731
            fail(path, "", f"{what(second)}, but {first.path} has {what(first)}; both files hold the same model")
    same_way = ("save both the same way, both logits (they keep every digit) or both probabilities; --input "
                "reads both files alike, so it cannot mend this")
    with problems.collect():
        if first.kind != second.kind:
            fail(path, "", f"holds {second.kind}, but {first.path} holds {first.kind}; {same_way}")
        elif first.looks != second.looks:  # --input read both alike, yet one file's numbers are the other kind
            fail(path, "", f"its numbers look like {second.looks}, but {first.path}'s like {first.looks}, and "
                 f"--input {first.kind} reads both as {first.kind}; {same_way}")
    with problems.collect():
        names = (first.class_names, second.class_names)
        if all(n is not None for n in names) and names[0].tolist() != names[1].tolist():
            fail(path, "", f"classes {', '.join(names[1].tolist()[:10])}, but {first.path} has "
                 f"{', '.join(names[0].tolist()[:10])}; both files need the same classes in the same order")
    problems.done()


def load_run(path, split=None, seed=None, kind=None, test=None):
    """:class:`RunData` of ``path`` (and ``test``: a second file of test rows, or None). ``split`` is a rule of
    :data:`calib.io.SPLIT_RULES` or None (the file's split, the rule its split asks for, else random);
    ``seed`` None is :data:`calib.io.DEFAULT_SPLIT_SEED`; ``kind`` is ``--input``. Raises
    :class:`calib.InputError` (with every problem of both files)."""
    seed = DEFAULT_SPLIT_SEED if seed is None else seed
    if test is not None and split is not None:
        raise InputError(f"{path}: --split {split} and --test both choose the test rows; give one")
    if test is None:
        data = load_predictions(path, kind)
        rule = split or data.split_rule or ("file" if data.split is not None else "random")
        parts = split_masks(data.labels.size, rule, data.split, seed=seed, source=str(path))
        return RunData(data.logits, data.labels, parts, rule, seed if rule == "random" else None,
                       ({"file": str(path), "sha256": data.sha256, "rows": int(data.labels.size)},), data.kind,
                       data.binary, data.class_names, _notes(data), data.decimals)
    found = []
    loaded = []
    for name in (path, test):
        try:
            loaded.append(load_predictions(name, kind))
        except InputError as error:
            found.extend(error.problems)
    if found:
        problems = Problems(path)
        problems.found = found
        problems.done()
    first, second = loaded
    _same_model(test, first, second)
    notes = _notes(first) + _notes(second)
    for data in loaded:
        if data.split is not None or data.split_rule is not None:
            notes += (f"{data.path}: its split column is not used: --test gives the test rows",)
    n1, n2 = first.labels.size, second.labels.size
    calibration = np.r_[np.ones(n1, dtype=bool), np.zeros(n2, dtype=bool)]
    parts = split_masks(n1 + n2, "file", calibration, source=f"{path} and {test}")
    logits = np.concatenate([first.logits, second.logits.astype(first.logits.dtype, copy=False)])
    files = tuple({"file": str(d.path), "sha256": d.sha256, "rows": int(d.labels.size)} for d in loaded)
    names = first.class_names if first.class_names is not None else second.class_names
    return RunData(logits, np.concatenate([first.labels, second.labels]), parts, "files", None, files, first.kind,
                   first.binary, names, notes, first.decimals)


def prior_nll(fit_labels, eval_labels, k):
    """Mean NLL (nats) of ``eval_labels`` under the class frequencies of ``fit_labels`` (add-one smoothed): what a
    model that knows nothing of a row scores.

    >>> round(prior_nll(np.array([0, 0, 1]), np.array([0, 1]), 2), 6)  # -(ln 3/5 + ln 2/5) / 2
    0.713558
    """
    freq = (np.bincount(fit_labels, minlength=k) + 1.0) / (fit_labels.size + k)
    return float(-np.mean(np.log(freq[eval_labels])))


def run_warnings(temperature, accuracy, nll, fit_labels, eval_labels, k, part, rounding=None):
    """:func:`calib.fit_warnings` of a fit: T at a bound of :data:`calib.DEFAULT_BOUNDS`, accuracy of the ``part``
    rows at chance, their NLL at the fitted T (``nll``, nats) no better than :func:`prior_nll`'s, or T decided by
    probabilities printed as 0 (``rounding``: :func:`calib.rounding.rounding_range` of the fit's rows, or None)."""
    return fit_warnings(temperature, accuracy, k, DEFAULT_BOUNDS, part, nll=nll,
                        prior_nll=prior_nll(fit_labels, eval_labels, k), rounding=rounding)
