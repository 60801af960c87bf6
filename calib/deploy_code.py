"""The code that applies a saved calibrator (:mod:`calib.deploy`) without ``calib``: numpy, PyTorch, scikit-learn.

Each is a self-contained Python source (a string): :data:`NUMPY_CODE` defines
``load_calibrator(path)`` (the JSON record) and ``calibrated_probs(scores,
record)``; :data:`TORCH_CODE` defines ``calibrated_probs_torch(scores,
record)`` on float64 tensors; :data:`SKLEARN_CODE` (which needs the numpy code
first) defines ``CalibratedModel(model, record)``, a wrapper of a fitted
scikit-learn classifier whose ``predict_proba`` goes through the calibrator.
``scores`` are what the calibrator was fitted on (the record's ``input``): the
model's logits (n, K), or a binary model's one logit or score (n,); or, when
``input`` is ``"probabilities"``, its probabilities (n, K) or the positive
class's (n,). Each mirrors the order of operations of the ``calib`` class it
stands for, so its probabilities equal ``predict_proba``'s to rounding (the
tests hold them to 1e-12).
"""

__all__ = ["NUMPY_CODE", "TORCH_CODE", "SKLEARN_CODE", "deploy_source"]

NUMPY_CODE = '''"""Apply a calibrator saved by python -m calib (its .json file) with numpy alone."""
import json

import numpy as np


def load_calibrator(path):
    with open(path, encoding="utf-8") as handle:
        record = json.load(handle)
    if record.get("schema") != "calib-calibrator" or record.get("schema_version") != 1:
        raise ValueError(f"{path}: not a calib calibrator of schema version 1")
    return record


def _logits(scores, record):
    s = np.asarray(scores, dtype=np.float64)
    s = s[:, None] if s.ndim == 1 else s
    if record["input"] == "probabilities":
        s = np.concatenate([1.0 - s, s], axis=1) if s.shape[1] == 1 else s
        return np.log(np.maximum(s, 1e-300))
    return np.concatenate([np.zeros_like(s), s], axis=1) if s.shape[1] == 1 else s


def _softmax(z, temperature=1.0):
    e = np.exp((z - z.max(axis=1, keepdims=True)) / temperature)
    return e / (e @ np.ones(z.shape[1]))[:, None]


def _sigmoid(s):
    e = np.exp(-np.abs(s))
    return np.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _renormalise(p):
    total = p.sum(axis=1)
    out = p / np.where(total == 0, 1.0, total)[:, None]
    out[total == 0] = 1.0 / p.shape[1]
    return out


def calibrated_probs(scores, record):
    """Calibrated probabilities (n, K) of the model's scores (what the record's 'input' says they are)."""
    z = _logits(scores, record)
    kind, p = record["kind"], record["parameters"]
    if kind == "temperature":
        return _softmax(z, p["temperature"])
    if kind == "ensemble-temperature":
        w = p["weights"]
        return w[0] * _softmax(z, p["temperature"]) + w[1] * _softmax(z) + w[2] * np.full(z.shape, 1.0 / z.shape[1])
    if kind in ("vector", "matrix", "dirichlet"):
        if kind == "dirichlet":  # log-probabilities as features
            shifted = z - z.max(axis=1, keepdims=True)
            z = shifted - np.log(np.exp(shifted) @ np.ones(z.shape[1]))[:, None]
        w, b = np.asarray(p["weights"]), np.asarray(p["bias"])
        s = (z @ w.T if w.ndim == 2 else z * w) + b
        shifted = s - s.max(axis=1, keepdims=True)
        return np.exp(shifted - np.log(np.exp(shifted) @ np.ones(s.shape[1]))[:, None])
    if kind in ("histogram", "scaling-binning"):
        q = _softmax(z, p.get("temperature", 1.0))
        edges, table = np.asarray(p["edges"]), np.asarray(p["bin_values"])
        last = table.shape[1] - 1
        ids = np.stack([np.clip(np.searchsorted(edges[j], q[:, j], side="right") - 1, 0, last)
                        for j in range(q.shape[1])], axis=1)
        return _renormalise(table[np.arange(q.shape[1]), ids])
    if kind == "isotonic":
        q = _softmax(z)
        return _renormalise(np.stack([np.interp(q[:, j], p["thresholds"][j], p["values"][j])
                                      for j in range(q.shape[1])], axis=1))
    if kind == "platt":
        s = (z[:, 1:2] - z[:, 0:1] if z.shape[1] == 2 else z) * np.asarray(p["slope"]) + np.asarray(p["bias"])
        return np.concatenate([_sigmoid(-s), _sigmoid(s)], axis=1) if z.shape[1] == 2 else _renormalise(_sigmoid(s))
    raise ValueError(f"unknown calibrator kind {kind!r}")
'''

TORCH_CODE = '''"""Apply a calibrator saved by python -m calib (its .json, read with json.load) to PyTorch tensors."""
import torch


def calibrated_probs_torch(scores, record):
    """Calibrated probabilities (n, K), float64, of the model's scores (what the record's 'input' says)."""
    f64 = torch.float64
    s = torch.as_tensor(scores, dtype=f64)
    s = s[:, None] if s.dim() == 1 else s
    if record["input"] == "probabilities":
        s = torch.cat([1.0 - s, s], dim=1) if s.shape[1] == 1 else s
        z = torch.log(torch.clamp(s, min=1e-300))
    else:
        z = torch.cat([torch.zeros_like(s), s], dim=1) if s.shape[1] == 1 else s
    kind, p = record["kind"], record["parameters"]

    def softmax(x, temperature=1.0):
        e = torch.exp((x - x.max(dim=1, keepdim=True).values) / temperature)
        return e / e.sum(dim=1, keepdim=True)

    def renormalise(q):
        total = q.sum(dim=1, keepdim=True)
        return torch.where(total == 0, torch.full_like(q, 1.0 / q.shape[1]),
                           q / torch.where(total == 0, torch.ones_like(total), total))

    if kind == "temperature":
        return softmax(z, p["temperature"])
    if kind == "ensemble-temperature":
        w = p["weights"]
        return w[0] * softmax(z, p["temperature"]) + w[1] * softmax(z) + w[2] * torch.full_like(z, 1.0 / z.shape[1])
    if kind in ("vector", "matrix", "dirichlet"):
        if kind == "dirichlet":
            z = torch.log_softmax(z, dim=1)
        w, b = torch.tensor(p["weights"], dtype=f64), torch.tensor(p["bias"], dtype=f64)
        return torch.softmax((z @ w.T if w.dim() == 2 else z * w) + b, dim=1)
    if kind in ("histogram", "scaling-binning"):
        q = softmax(z, p.get("temperature", 1.0))
        edges, table = torch.tensor(p["edges"], dtype=f64), torch.tensor(p["bin_values"], dtype=f64)
        ids = torch.searchsorted(edges, q.T.contiguous(), right=True) - 1
        ids = torch.clamp(ids, 0, table.shape[1] - 1)
        return renormalise(torch.gather(table, 1, ids).T)
    if kind == "isotonic":
        q = softmax(z)
        columns = []
        for j in range(q.shape[1]):
            xp, fp, x = torch.tensor(p["thresholds"][j], dtype=f64), torch.tensor(p["values"][j], dtype=f64), q[:, j]
            if xp.numel() == 1:
                columns.append(fp.expand_as(x))
                continue
            i = torch.clamp(torch.searchsorted(xp, x.contiguous(), right=True) - 1, 0, xp.numel() - 2)
            inside = (fp[i + 1] - fp[i]) / (xp[i + 1] - xp[i]) * (x - xp[i]) + fp[i]
            columns.append(torch.where(x < xp[0], fp[0], torch.where(x >= xp[-1], fp[-1], inside)))
        return renormalise(torch.stack(columns, dim=1))
    if kind == "platt":
        x = z[:, 1:2] - z[:, 0:1] if z.shape[1] == 2 else z
        s = x * torch.tensor(p["slope"], dtype=f64) + torch.tensor(p["bias"], dtype=f64)
        return torch.cat([torch.sigmoid(-s), torch.sigmoid(s)], dim=1) if z.shape[1] == 2 else \\
            renormalise(torch.sigmoid(s))
    raise ValueError(f"unknown calibrator kind {kind!r}")
'''

SKLEARN_CODE = '''class CalibratedModel:
    """A fitted scikit-learn classifier whose predict_proba goes through the calibrator (numpy code above):
    the scores it was fitted on are decision_function's (a file of logits; else the log of predict_proba) or
    predict_proba's (a file of probabilities)."""

    def __init__(self, model, record):
        self.model, self.record, self.classes_ = model, record, model.classes_

    def predict_proba(self, X):
        if self.record["input"] == "logits" and hasattr(self.model, "decision_function"):
            return calibrated_probs(self.model.decision_function(X), self.record)
        if self.record["input"] == "logits":
            return calibrated_probs(np.log(np.clip(self.model.predict_proba(X), 1e-300, None)), self.record)
        return calibrated_probs(self.model.predict_proba(X), self.record)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
'''


def deploy_source(json_name):
    """One ``.py`` file: the numpy code, the scikit-learn wrapper and the PyTorch function (torch imported inside
    it, so the file runs without torch), and how to call them on ``json_name``."""
    torch_body = TORCH_CODE.split("import torch\n\n\n", 1)[1].replace(
        '    f64 = torch.float64\n', '    import torch\n\n    f64 = torch.float64\n', 1)
    usage = (f'\n\n# record = load_calibrator("{json_name}")\n'
             "# probs = calibrated_probs(logits, record)              # numpy: logits (n, K), or (n,) for one score\n"
             "# probs = calibrated_probs_torch(logits_tensor, record) # PyTorch\n"
             "# model = CalibratedModel(fitted_sklearn_classifier, record); model.predict_proba(X)\n")
    return NUMPY_CODE + "\n\n" + SKLEARN_CODE + "\n\n" + torch_body + usage
