"""Deploying a fitted calibrator: a small versioned JSON record, loaded back with numpy alone.

:func:`calibrator_record` turns any fitted calibrator of
:data:`DEPLOYABLE` into a plain dict, :func:`save_calibrator` writes it
(``NAME.json``) with the code that applies it (``NAME.py``: numpy, PyTorch and
a scikit-learn wrapper, :mod:`calib.deploy_code`), and :func:`load_calibrator`
reads it back into the ``calib`` calibrator it came from, whose
``predict_proba`` then gives the very probabilities the fitted one gave (the
floats are written with ``repr``, which reads back exactly; prediction needs
numpy only).

The record (schema ``calib-calibrator``, :data:`SCHEMA_VERSION` 1):

``kind``            the method (:data:`DEPLOYABLE` key: ``temperature``, ``platt``, …);
``parameters``      its fitted parameters (``temperature``; ``weights``/``bias``; ``edges``/``bin_values``/
                    ``scheme``; ``thresholds``/``values``; ``slope``/``bias``), plain lists;
``input``           what the scores it takes are: ``logits`` or ``probabilities`` (the file's kind);
``classes``         K; ``class_names`` (K,) or null; ``binary``: the file gave one column (pass (n,) scores);
``data``            the file it was fitted on: ``file`` (name), ``sha256``, ``rows`` (calibration rows);
``calib_version``   the version of the package that wrote it; ``schema``, ``schema_version``.
"""

import json
from pathlib import Path

import numpy as np

from .binned import HistogramBinning, IsotonicCalibration, ScalingBinning
from .calibrators import EnsembleTemperatureScaling, TemperatureScaling
from .deploy_code import deploy_source
from .matrix import DirichletCalibration, MatrixScaling, VectorScaling
from .platt import PlattScaling

__all__ = ["SCHEMA", "SCHEMA_VERSION", "DEPLOYABLE", "calibrator_record", "calibrator_texts", "save_calibrator",
           "load_calibrator",
           "package_version"]

SCHEMA = "calib-calibrator"
SCHEMA_VERSION = 1
# method name → (class, the fitted attributes written as parameters (record name: attribute), init choices kept)
DEPLOYABLE = {
    "temperature": (TemperatureScaling, {"temperature": "temperature_"}, ()),
    "vector": (VectorScaling, {"weights": "weights_", "bias": "bias_"}, ()),
    "matrix": (MatrixScaling, {"weights": "weights_", "bias": "bias_"}, ()),
    "dirichlet": (DirichletCalibration, {"weights": "weights_", "bias": "bias_"}, ()),
    "histogram": (HistogramBinning, {"edges": "edges_", "bin_values": "bin_values_"}, ("scheme",)),
    "isotonic": (IsotonicCalibration, {"thresholds": "thresholds_", "values": "values_"}, ()),
    "scaling-binning": (ScalingBinning, {"temperature": "temperature_", "edges": "edges_",
                                         "bin_values": "bin_values_"}, ("scheme",)),
    "ensemble-temperature": (EnsembleTemperatureScaling, {"temperature": "temperature_", "weights": "weights_"}, ()),
    "platt": (PlattScaling, {"slope": "slope_", "bias": "bias_"}, ()),
}


def package_version():
    """The version of the installed package (``pyproject.toml``'s), or ``"unknown"``."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version("calibration-tutorial")
    except (ImportError, PackageNotFoundError):
        return "unknown"


def _plain(value):
    """Arrays and tuples of arrays as nested lists of Python floats (``repr`` round-trips them exactly)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    return float(value) if isinstance(value, (float, np.floating)) else value


def calibrator_record(method, calibrator, kind="logits", class_names=None, binary=False, data=None):
    """The JSON-ready record of ``calibrator`` (fitted), the method ``method`` of :data:`DEPLOYABLE`.

    ``kind`` is what its scores are (``"logits"`` or ``"probabilities"``: :attr:`calib.Predictions.kind`),
    ``class_names`` (K,) or None, ``binary`` whether the file gave one column, ``data`` a dict about the
    fitting rows (``file``, ``sha256``, ``rows``) or None.
    """
    if method not in DEPLOYABLE:
        raise ValueError(f"method must be one of {', '.join(DEPLOYABLE)}; got {method!r}")
    cls, fitted, choices = DEPLOYABLE[method]
    if not isinstance(calibrator, cls) or not hasattr(calibrator, "n_classes_"):
        raise ValueError(f"calibrator must be a fitted {cls.__name__} for method {method!r}")
    parameters = {name: _plain(getattr(calibrator, attribute)) for name, attribute in fitted.items()}
    parameters.update({name: getattr(calibrator, name) for name in choices})
    return {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "kind": method, "parameters": parameters,
        "input": kind, "classes": int(calibrator.n_classes_), "binary": bool(binary),
        "class_names": None if class_names is None else [str(c) for c in class_names],
        "data": dict(data or {}), "calib_version": package_version(),
    }


def calibrator_texts(record, json_name):
    """``(json_text, code)``: ``record`` as the JSON file :func:`save_calibrator` writes, and the Python source
    that applies it (numpy, scikit-learn, PyTorch: :func:`calib.deploy_code.deploy_source`), naming ``json_name``."""
    return json.dumps(record, allow_nan=False, sort_keys=True, indent=1) + "\n", deploy_source(json_name)


def save_calibrator(path, record):
    """Write ``record`` to ``path`` (JSON) and the code that applies it beside it (``path`` with ``.py``).

    Returns the two paths. Nothing is written if either cannot be (an ``OSError`` says why).
    """
    path = Path(path)
    code_path = path.with_suffix(".py")
    text, code = calibrator_texts(record, path.name)
    for target, content in ((path, text), (code_path, code)):
        partial = target.with_name(target.name + ".part")
        partial.write_text(content, encoding="utf-8")
        partial.replace(target)
    return path, code_path


def load_calibrator(source):
    """The ``calib`` calibrator of a record (a dict, or the path of its JSON): fitted, ready to ``predict_proba``
    the logits (n, K) it was fitted on (numpy only). Raises ``ValueError`` for a file that is no such record."""
    record = source
    if not isinstance(source, dict):
        record = json.loads(Path(source).read_text(encoding="utf-8"))
    if not isinstance(record, dict) or record.get("schema") != SCHEMA or record.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{source if not isinstance(source, dict) else 'record'}: not a {SCHEMA} record of schema "
                         f"version {SCHEMA_VERSION}")
    method = record.get("kind")
    if method not in DEPLOYABLE:
        raise ValueError(f"unknown calibrator kind {method!r}; known: {', '.join(DEPLOYABLE)}")
    cls, fitted, choices = DEPLOYABLE[method]
    calibrator = cls()
    parameters = record["parameters"]
    for name, attribute in fitted.items():
        value = parameters[name]
        if method == "isotonic":
            value = tuple(np.array(v, dtype=np.float64) for v in value)
        elif isinstance(value, list):
            value = np.array(value, dtype=np.float64)
        setattr(calibrator, attribute, value)
    for name in choices:
        setattr(calibrator, name, parameters[name])
    calibrator.n_classes_ = int(record["classes"])
    return calibrator
