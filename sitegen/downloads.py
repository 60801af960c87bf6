"""CSV downloads: each dataset's logits and labels, and its precomputed metric table."""

import csv
import io

from calib import SCHEMES, part_masks

from .precompute import grid_index
from .settings import OFFERED_BIN_COUNTS

__all__ = ["data_csv", "metrics_csv"]


def _csv(rows):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


def data_csv(dataset):
    """One row per example: index, split (its part), group (if any), label, then the K logits (full precision):
    the columns ``python -m calib fit`` reads (it skips ``index``)."""
    k = dataset.logits.shape[1]
    part_of = {}
    for name, mask in part_masks(dataset).items():
        for i in mask.nonzero()[0]:
            part_of[int(i)] = name
    header = ["index", "split", "group", "label"] + [f"logit_{j}" for j in range(k)]
    rows = [header]
    for i in range(dataset.labels.size):
        group = "" if dataset.groups is None else str(dataset.groups[i])
        rows.append([i, part_of[i], group, int(dataset.labels[i])] + [repr(float(v)) for v in dataset.logits[i]])
    return _csv(rows)


def metrics_csv(result, grid):
    """One row per (part, grid temperature): NLL, Brier, accuracy, mean confidence, ECE and MCE per scheme and bin
    count, and last ``fitted``: ``true`` on the rows at the dataset's fitted T (one per part), ``false`` elsewhere."""
    columns = [(f"ece_{s}_{b}", "ece", s, b) for s in SCHEMES for b in OFFERED_BIN_COUNTS]
    columns += [(f"mce_{s}_{b}", "mce", s, b) for s in SCHEMES for b in OFFERED_BIN_COUNTS]
    rows = [["part", "temperature", "nll", "brier", "accuracy", "mean_confidence"] + [c[0] for c in columns]
            + ["fitted"]]
    fitted = grid_index(grid, result.fitted_t)
    for name, part in result.parts.items():
        for g, t in enumerate(grid):
            rows.append([name, repr(float(t)), f"{part.nll[g]:.8f}", f"{part.brier[g]:.8f}", f"{part.accuracy:.8f}",
                         f"{part.mean_confidence[g]:.8f}"]
                        + [f"{getattr(part, kind)[s][b][g]:.8f}" for _, kind, s, b in columns]
                        + ["true" if g == fitted else "false"])
    return _csv(rows)
