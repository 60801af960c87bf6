"""The reader's own model (``build.py --data FILE``): their logits become one more dataset of the page.

The file is read and checked by the engine (:func:`calib.io.load_predictions`,
:func:`calib.io.split_masks`); this module turns it into a
:class:`calib.Dataset` under the fixed slug :data:`USER_SLUG` (``yours``), so
it runs through the same precomputation, payload and analysis code as the
built-in datasets. The reader's name, description, class and group names are
display text only: they never become a file name, a payload key or part of the
``#state/`` hash, and they never pass through the Markdown prose.

What the site holds of the reader's rows: the six examples the explorer's bars
show (:func:`sitegen.compute.precompute.showcase_examples`: among the right answers and
among the wrong ones, the most confident, the one at the median confidence and
the least confident, at T = 1; ties go to the row that sorts last for "most" and
first for "least"; with ``--no-examples`` none), each with its label and the
logits of the classes its bars show. Everything else is an aggregate over rows.
With more than :data:`USER_BAR_CLASSES` classes an example's bars show its nine
largest logits (the label takes the ninth place when it is not among them) and
one bar "all others" with the rest of the probability.
"""

import base64
import json
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple, Optional

import numpy as np

from calib import (
    BOUND_MARGIN,
    DEFAULT_SPLIT_SEED,
    MIN_PART_ROWS,
    POOLED,
    ROUNDING_FORMAT,
    Dataset,
    InputError,
    calibrator_record,
    calibrator_texts,
    load_predictions,
    scaled_probs,
    split_masks,
)
from sitegen.common.errors import BuildError
from sitegen.common.settings import (
    FIT_BOUNDS,
    FIT_TOLERANCE,
    SHOWCASE_SIZE,
    SIGNIFICANT_DIGITS,
    USER_BAR_CLASSES,
    USER_MAX_DESCRIPTION_CHARS,
    USER_MAX_GROUPS,
    USER_MAX_LABEL_CHARS,
    USER_MAX_NAME_CHARS,
    USER_SLUG,
    USER_SWEEP_ROWS,
)
from sitegen.compute.precompute import Precomputed, fit_for, precompute_dataset, round_significant
from sitegen.compute.splice import insert_temperature
from sitegen.content.sections import load_sections
from sitegen.yours import decision as user_decision

__all__ = [
    "UserModel", "check_text", "load_user_model", "user_dataset", "shown_classes", "precompute_with_user",
    "user_examples_payload", "temperature_json", "groups_csv", "csv_cell", "user_strings", "user_files",
    "user_report", "add_user_facts", "load_user_section", "user_fit_warnings", "calibrator_downloads",
    "calibrator_files",
]


class UserModel(NamedTuple):
    """The reader's model as the build uses it: the validated :class:`calib.Predictions`, display ``name`` and
    ``description``, the split ``rule`` and ``seed`` (None unless random), and whether the six examples are kept."""

    predictions: object
    name: str
    description: str
    rule: str
    seed: Optional[int]
    parts: dict
    examples: bool


def check_text(text, what, limit):
    """``text`` stripped; refuses (:class:`BuildError`) one longer than ``limit`` characters or with control
    characters other than tab (a line break would break the one-line messages and table cells)."""
    text = str(text).strip()
    if len(text) > limit:
        raise BuildError(f"{what}: {len(text)} characters; the limit is {limit}")
    bad = next((c for c in text if (ord(c) < 32 and c != "\t") or ord(c) == 127), None)
    if bad is not None:
        raise BuildError(f"{what}: holds the control character U+{ord(bad):04X}; use plain text")
    return text


def _check_labels(path, values, what):
    """Class or group names: each short, with no control character (refused naming the file and the place)."""
    for i, value in enumerate(values.tolist()):
        check_text(value, f"{path}: {what}[{i}]", USER_MAX_LABEL_CHARS)


def load_user_model(path, name=None, description="", split=None, seed=None, examples=True, kind=None):
    """Read and check the reader's file; every problem is a :class:`BuildError` naming the file and the place.

    ``seed`` (None: :data:`calib.io.DEFAULT_SPLIT_SEED`) is refused when the split is not random (it would be
    silently ignored, e.g. with a file that has its own split column). ``kind`` is ``--input`` (None, ``"logits"``
    or ``"probabilities"``: :func:`calib.io.load_predictions`).
    """
    try:
        data = load_predictions(path, kind)
        n = data.labels.size
        rule = split or data.split_rule or ("file" if data.split is not None else "random")
        if seed is not None and rule != "random":
            raise BuildError(f"{path}: --seed applies to the random split only; this build uses --split {rule}")
        seed = DEFAULT_SPLIT_SEED if seed is None else seed
        parts = split_masks(n, split, data.split, seed=seed, source=str(path))
    except InputError as error:
        raise BuildError(str(error)) from None
    name = check_text(name if name is not None else _default_name(path), "--name", USER_MAX_NAME_CHARS)
    if not name:
        raise BuildError("--name: empty; give the model a name to show")
    description = check_text(description or "", "--description", USER_MAX_DESCRIPTION_CHARS)
    if data.class_names is not None:
        _check_labels(path, data.class_names, "class_names" if str(path).lower().endswith(".npz") else "header")
    if data.groups is not None:
        _check_groups(path, data.groups, parts)
    return UserModel(data, name, description, rule, seed if rule == "random" else None, parts, bool(examples))


def _default_name(path):
    return Path(path).stem


def _check_groups(path, groups, parts):
    """At most :data:`USER_MAX_GROUPS` groups, none named ``pooled``, each with :data:`MIN_PART_ROWS` rows in
    every part (a group's own T is fitted on its calibration rows and judged on its test rows)."""
    where = "groups" if str(path).lower().endswith(".npz") else "column 'group'"
    names, first = np.unique(groups, return_index=True)
    _check_labels(path, names, where)
    if names.size > USER_MAX_GROUPS:
        raise BuildError(f"{path}: {where}: {names.size} distinct groups; the page shows at most {USER_MAX_GROUPS}")
    if POOLED in names.tolist():
        raise BuildError(f"{path}: {where}: the group name {POOLED!r} is reserved for all rows together; rename it")
    for part, mask in parts.items():
        counts = {g: int(np.count_nonzero(mask & (groups == g))) for g in names[np.argsort(first)].tolist()}
        for g, rows in counts.items():
            if rows < MIN_PART_ROWS:
                raise BuildError(f"{path}: {where}: group {g!r} has {rows} row(s) in the {part} part; each group "
                                 f"needs at least {MIN_PART_ROWS} in every part")


def user_dataset(user):
    """The reader's rows as a :class:`calib.Dataset` named :data:`USER_SLUG`: the file's logits as read (float32 or
    float64). No float64 copy of a float32 file is kept beside it: the engine makes each part it takes float64
    (exactly: every float32 is a float64), so the results are those of a float64 copy."""
    data = user.predictions
    calibration = user.parts.get("calibration")
    logits = np.asarray(data.logits)
    if logits.dtype not in (np.float32, np.float64):
        logits = logits.astype(np.float64)
    return Dataset(USER_SLUG, logits, data.labels, data.groups, calibration)


def shown_classes(logits, labels, max_bars=USER_BAR_CLASSES):
    """The classes each example's bars show: ``(m, bars)`` int, ``-1`` standing for "all others".

    With K ≤ ``max_bars`` every class in order; otherwise the ``max_bars - 1`` largest logits in decreasing
    order (ties: lower class first), the label taking the last of those places when it is not among them,
    then ``-1``.
    """
    logits = np.asarray(logits)
    m, k = logits.shape
    if k <= max_bars:
        return np.tile(np.arange(k), (m, 1))
    keep = max_bars - 1
    order = np.argsort(-logits, axis=1, kind="stable")[:, :keep]
    missing = ~np.any(order == np.asarray(labels)[:, None], axis=1)
    order[missing, keep - 1] = np.asarray(labels)[missing]
    values = np.take_along_axis(logits, order, axis=1)
    resort = np.argsort(-values, axis=1, kind="stable")
    order = np.take_along_axis(order, resort, axis=1)
    return np.concatenate([order, np.full((m, 1), -1)], axis=1)


def _shown_probs(probs, classes):
    """``probs`` (G, m, K) at the shown ``classes`` (m, bars): the "all others" column (−1) is one minus the rest."""
    if classes.size == 0:
        return np.zeros(probs.shape[:2] + (classes.shape[1] if classes.ndim == 2 else 0,))
    picked = np.take_along_axis(probs, np.maximum(classes, 0)[None], axis=2)
    others = classes[None] < 0
    rest = 1.0 - np.where(others, 0.0, picked).sum(axis=2, keepdims=True)
    return np.where(others, np.maximum(rest, 0.0), picked)


def precompute_with_user(user, plain):
    """The page's precomputation with the reader's dataset first (:class:`sitegen.compute.precompute.Precomputed`):
    ``plain`` (the built-in datasets' own, :func:`sitegen.compute.precompute.precompute_all`) with the reader's
    fitted T spliced into its grid (:func:`sitegen.compute.splice.insert_temperature`), and the reader's
    dataset over that grid."""
    mine = user_dataset(user)
    fitted_t, fitted_on = fit_for(mine)
    spliced = insert_temperature(plain, fitted_t)
    grid = spliced.grid
    result = precompute_dataset(mine, grid, fitted_t, fitted_on, spliced.t1_index)
    showcase = result.showcase if user.examples else np.zeros(0, dtype=np.int64)
    showcase = showcase[:SHOWCASE_SIZE]
    classes = shown_classes(mine.logits[showcase], mine.labels[showcase]) if showcase.size else \
        np.zeros((0, min(mine.logits.shape[1], USER_BAR_CLASSES)), dtype=np.int64)
    probs = scaled_probs(mine.logits[showcase], grid) if showcase.size else np.zeros((grid.size, 0, 1))
    result = result._replace(showcase=showcase, showcase_probs=_shown_probs(probs, classes), examples=None)
    return Precomputed(grid, spliced.t1_index, {USER_SLUG: result, **spliced.datasets}, spliced.softmax)


def user_examples_payload(payload, user, result):
    """The dataset payload of :data:`USER_SLUG` with its examples as the page keeps them: per example the
    shown classes (``classes``, −1: all others), their logits, the names of those classes only, and ``file_rows``
    (1: ``index`` is a row of the reader's file, counted from 0, which the example's heading names)."""
    data = result.dataset
    rows = result.showcase
    classes = shown_classes(data.logits[rows], data.labels[rows]) if rows.size else np.zeros((0, 0), np.int64)
    examples = dict(payload["examples"])
    examples["logits"] = [[None if c < 0 else round(float(data.logits[r, c]), 3) for c in row]
                          for r, row in zip(rows.tolist(), classes.tolist())]
    examples["classes"] = classes.tolist()
    examples["file_rows"] = 1  # the page also names each example's row of the reader's file (``index``, from 0)
    out = dict(payload, examples=examples)
    names = user.predictions.class_names
    if names is not None and rows.size:
        used = sorted({int(c) for c in classes.ravel() if c >= 0} | {int(v) for v in examples["predicted"]}
                      | {int(v) for v in examples["label"]})
        out["class_names"] = {str(c): str(names[c]) for c in used}
    return out


# --- downloads ------------------------------------------------------------------------------------------

DEPLOY_DIGITS = SIGNIFICANT_DIGITS  # the fitted T's significant digits (round_significant), kept in temperature.json


def temperature_json(user, result, decided=None):
    """``temperature.json``: the fitted T to deploy, how it was fitted, on which rows, from which file; with
    ``decided`` (:func:`sitegen.yours.decision.decision`) also the test metrics before and after with their paired
    ranges, the verdict and the spread of T; the project's version and the file's ``schema_version``."""
    data = user.predictions
    fitted_on = result.fitted_on
    record = {
        "temperature": result.fitted_t,
        "objective": "mean negative log-likelihood (nats) of the labels under softmax(logits / T)",
        "method": "bounded golden-section search",
        "bounds": [float(b) for b in FIT_BOUNDS],
        "tolerance": float(FIT_TOLERANCE),
        "significant_digits_kept": DEPLOY_DIGITS,
        "fitted_on": fitted_on,
        "rows_used": int(user.parts[fitted_on].sum()),
        "rows_total": int(data.labels.size),
        "classes": int(data.logits.shape[1]),
        "split": {"rule": user.rule, "seed": user.seed,
                  "rows": {part: int(mask.sum()) for part, mask in user.parts.items()}},
        "data_file": {"name": _file_name(data.path), "sha256": data.sha256},
        "usage": "divide every logit by temperature before the softmax",
        "schema_version": user_decision.SCHEMA_VERSION,
        "project_version": user_decision.project_version(),
    }
    if decided is not None:
        record["decision"] = _significant(user_decision.decision_record(decided))
    return json.dumps(record, indent=2, sort_keys=True, ensure_ascii=True, allow_nan=False) + "\n"


def _significant(value):
    """``value`` with every float in it rounded to :data:`DEPLOY_DIGITS` significant digits: the paired ranges'
    last bits follow the BLAS kernel and thread count of the machine, and the file must not."""
    if isinstance(value, dict):
        return {key: _significant(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_significant(v) for v in value]
    if isinstance(value, float):
        return float(round_significant(value, DEPLOY_DIGITS)[0])
    return value


def _file_name(path):
    return Path(path).name


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A CSV cell: numbers as they are (a negative number is never changed); text starting with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return gets a leading apostrophe, so a spreadsheet shows it as text
    instead of running it as a formula."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return value
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _quoted(text):
    """A text cell, always quoted (and guarded by :func:`csv_cell`)."""
    return '"' + str(csv_cell(text)).replace('"', '""') + '"'


def groups_csv(analyses_sub):
    """Per-group metrics of the reader's rows under T = 1, the global T and each group's own T: one row per
    (part, group or pooled, condition). Numbers are written as the metrics CSV writes them (unquoted; the
    temperature in full, the metrics with 8 decimals); text cells are quoted and guarded (:func:`csv_cell`).
    The temperature is the one applied: 1, the global T, or the group's own T; the pooled row "each group at
    its own T" applies several, so its temperature cell is empty."""
    own = analyses_sub.temperatures
    lines = [",".join(_quoted(c) for c in ("part", "group", "condition", "temperature", "rows", "nll", "brier",
                                             "accuracy", "mean_confidence", "ece_equal-width_15"))]
    for part, table in analyses_sub.metrics.items():
        for who, by_condition in table.items():
            for condition, m in by_condition.items():
                t = {"t1": 1.0, "global": own["global"]}.get(condition, own.get(who))
                cells = [_quoted(part), _quoted(who), _quoted(condition), "" if t is None else repr(float(t)),
                         str(int(m.n))]
                cells += [f"{float(v):.8f}" for v in (m.nll, m.brier, m.accuracy, m.mean_confidence,
                                                        m.ece["equal-width"][15])]
                lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def user_files(user, precomputed, analyses, decided=None):
    """The reader's downloads: ``downloads/yours-temperature.json``, ``downloads/yours-deploy.py`` (the code to
    apply T) and, with groups, ``downloads/yours-groups.csv`` (the metrics CSV is written like every dataset's)."""
    result = precomputed.datasets[USER_SLUG]
    decided = decided or user_decision.decision(user, precomputed, analyses)
    deploy = user_decision.deploy_file(json.dumps(result.fitted_t), user.predictions.kind)
    files = {f"downloads/{USER_SLUG}-temperature.json": temperature_json(user, result, decided),
             f"downloads/{USER_SLUG}-deploy.py": deploy}
    sub = analyses.datasets[USER_SLUG].subgroups
    if sub is not None:
        files[f"downloads/{USER_SLUG}-groups.csv"] = groups_csv(sub)
    files.update(calibrator_files(user, decided))
    return files


def calibrator_files(user, decided):
    """``{path: text}`` of the recommended calibrator, when it is not T and no warning stands (else ``{}``): its
    JSON record and the code that applies it, the files ``python -m calib compare --save`` writes."""
    offered = calibrator_downloads(decided)
    if not offered:
        return {}
    data = user.predictions
    fit_rows = user.parts.get("calibration", user.parts.get("all"))
    record = calibrator_record(decided.recommended, decided.recommended_calibrator, data.kind, data.class_names,
                               data.binary, {"file": _file_name(data.path), "sha256": data.sha256,
                                             "rows": int(fit_rows.sum())})
    text, code = calibrator_texts(record, offered["calibrator"])
    return {f"downloads/{offered['calibrator']}": text, f"downloads/{offered['calibrator_code']}": code}


def calibrator_downloads(decided):
    """``{"calibrator": JSON file, "calibrator_code": its .py}`` of the calibrator the comparison recommends, or
    ``{}`` when that is temperature scaling (its files are temperature.json and deploy.py) or a warning stands."""
    if decided.recommended == "temperature" or decided.verdict.code == "check":
        return {}
    return {"calibrator": f"{USER_SLUG}-{decided.recommended}.json",
            "calibrator_code": f"{USER_SLUG}-{decided.recommended}.py"}


# --- strings ------------------------------------------------------------------------------------------

def user_strings(strings, user):
    """The edition's strings with the reader's dataset added, after the engine's constants were filled in
    (so a name holding ``{n}`` is shown as typed): ``datasets.yours`` (label, short, summary), the report
    explorer's name, from the edition's ``[yours]`` table."""
    own = strings["yours"]
    datasets = dict(strings["datasets"])
    datasets[USER_SLUG] = {"label": own["label"].replace("{name}", user.name), "short": user.name,
                           "summary": _as_sentence(user.description, own["description_sentence"]) or own["summary"]}
    ui = dict(strings["ui"])
    ui["explorer_names"] = dict(ui["explorer_names"], **{"yr1": own["explorer_name"]})
    out = type(strings).__new__(type(strings))
    dict.__init__(out, strings)
    out.__dict__.update(getattr(strings, "__dict__", {}))
    dict.__setitem__(out, "datasets", datasets)
    dict.__setitem__(out, "ui", ui)
    return out


_SENTENCE_END = (".", "!", "?", "…", ".)", ".»", '."', ".”")


def _as_sentence(text, pattern):
    """``text`` as a sentence: as given when it ends like one, else through ``pattern`` (``{description}.``)."""
    text = text.strip()
    if not text or text.endswith(_SENTENCE_END):
        return text
    return pattern.replace("{description}", text)


# --- what the report's template reads -------------------------------------------------------------------

def user_fit_warnings(precomputed, user=None):
    """What to check about the reader's fit (:func:`sitegen.yours.decision.fit_checks`): the fitted T within 1% of a
    search bound, the reported part's accuracy at or below 1/K, and (with ``user``) a T decided by probabilities
    printed as 0. build.py prints them; the report shows them."""
    return user_decision.fit_checks(precomputed, user)[0]


def user_report(user, precomputed, analyses, decided=None):
    """The "Your model" section's own values besides the facts (``yours``, ``an.yours``): display text (escaped by
    the template), the split, the file, which downloads exist, the rows of its small tables, and the decision
    (``decision``: :func:`sitegen.yours.decision.decision`, with the deploy snippets in ``snippets``)."""
    data = user.predictions
    result = precomputed.datasets[USER_SLUG]
    decided = decided or user_decision.decision(user, precomputed, analyses)
    sub = analyses.datasets[USER_SLUG].subgroups
    return SimpleNamespace(
        name=user.name, description=user.description, rule=user.rule, seed=user.seed,
        file=_file_name(data.path), sha256=data.sha256, kind=data.kind,
        n=int(data.labels.size), k=int(data.logits.shape[1]),
        parts={part: int(mask.sum()) for part, mask in user.parts.items()},
        reported="test" if "test" in user.parts else "all", fitted_on=result.fitted_on,
        # the value to deploy, written as temperature.json writes it (10 significant digits, JSON's float text)
        t_deploy=json.dumps(result.fitted_t), t_digits=DEPLOY_DIGITS,
        examples=int(result.showcase.size), examples_kept=user.examples,
        class_names=data.class_names is not None, many_classes=data.logits.shape[1] > USER_BAR_CLASSES,
        groups=list(sub.groups) if sub is not None else [],
        sweep_rows=list(USER_SWEEP_ROWS),
        # what to check before deploying: codes of calib.io_checks.fit_warnings, and chance (1/K) for the sentence
        warnings=[w.code for w in decided.warnings], chance=1.0 / data.logits.shape[1], rounding=decided.rounding,
        rounding_format=ROUNDING_FORMAT,
        bound_margin=BOUND_MARGIN,
        # the one-file edition has no downloads folder: it carries temperature.json itself, as a data: link
        temperature_href="data:application/json;base64," + base64.b64encode(
            temperature_json(user, result, decided).encode("utf-8")).decode("ascii"),
        downloads={"temperature": f"{USER_SLUG}-temperature.json", "metrics": f"{USER_SLUG}-metrics.csv",
                   "deploy": f"{USER_SLUG}-deploy.py",
                   "groups": f"{USER_SLUG}-groups.csv" if sub is not None else None,
                   "calibrator": None, "calibrator_code": None, **calibrator_downloads(decided)},
        decision=decided, snippets=user_decision.deploy_snippets(json.dumps(result.fitted_t), data.kind),
        class_labels=None if data.class_names is None else [str(c) for c in data.class_names.tolist()],
    )


def add_user_facts(facts, precomputed):
    """Facts the "Your model" prose quotes beyond every dataset's: ``yours.fitted_on_rows`` (rows T was fitted on)."""
    result = precomputed.datasets[USER_SLUG]
    mask = np.ones(result.dataset.labels.size, bool) if result.dataset.is_calibration is None \
        else result.dataset.is_calibration
    facts[USER_SLUG].fitted_on_rows = int(mask.sum())
    return facts


def load_user_section(content_dir):
    """The "Your model" section of one language: ``content/<lang>/user/01-yours.md``, included only with --data."""
    return load_sections(Path(content_dir) / "user")
