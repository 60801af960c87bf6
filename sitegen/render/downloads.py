"""CSV downloads: each dataset's logits and labels, and its precomputed metric table."""

import csv
import io

from calib import SCHEMES, part_masks
from sitegen.common.metrics import csv_columns, values_of
from sitegen.common.settings import OFFERED_BIN_COUNTS
from sitegen.compute.precompute import grid_index

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
    """One row per (part, grid temperature): every registered metric with a CSV column
    (:func:`sitegen.common.metrics.csv_columns`: NLL, Brier, accuracy, mean confidence, then ECE and MCE per
    scheme and bin count), and last ``fitted``: ``true`` on the rows at the dataset's fitted T (one per part),
    ``false`` elsewhere."""
    columns = csv_columns(SCHEMES, OFFERED_BIN_COUNTS)
    rows = [["part", "temperature"] + [c[0] for c in columns] + ["fitted"]]
    fitted = grid_index(grid, result.fitted_t)
    for name, part in result.parts.items():
        values = [(metric.kind, values_of(part, metric) if s is None else values_of(part, metric)[s][b])
                  for _, metric, s, b in columns]
        for g, t in enumerate(grid):
            rows.append([name, repr(float(t))] + [f"{v if kind == 'constant' else v[g]:.8f}" for kind, v in values]
                        + ["true" if g == fitted else "false"])
    return _csv(rows)
