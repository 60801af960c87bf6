"""The payload ``data/<name>-methods.js``: each other calibrator's test-row scores on a built-in dataset
(fitted by :mod:`sitegen.analyses.calibrator_fits`), in display units, laid out as a group at its own T."""

from calib import scaled_probs
from sitegen.analyses.calibrator_fits import METHOD_PART, METHODS, method_fits, method_metrics, method_rows
from sitegen.common.cache import cached
from sitegen.common.settings import OFFERED_BIN_COUNTS
from sitegen.render.payload import SCHEMA_VERSION, group_metrics_payload

__all__ = ["methods_payload"]


@cached("methods")  # a built-in dataset's fits: the same in every build, with --data or without
def methods_payload(name):
    """The payload ``data/<name>-methods.js`` of a dataset that :func:`offered_methods` offers methods on:
    ``name``, ``part``, ``n_calibration``, and ``methods[method]`` = the test rows' scores in display units, laid
    out as a group at its own T is in the groups file (``n``, every registered metric, ``bins``, ``fix`` against
    the uncalibrated test rows), plus ``zero_rows``; ``nll`` is ``null`` where it is infinite (``zero_rows`` > 0)."""
    zc, _, zt, yt = method_rows(name)
    uncalibrated = method_metrics(scaled_probs(zt, 1.0), yt)[0]  # the cards' changes are against it
    out = {}
    for method, calibrator in method_fits(name).items():
        if method not in METHODS or getattr(calibrator, "settled_", True) is False:  # offered_methods leaves it out
            continue
        metrics, zero = method_metrics(calibrator.predict_proba(zt), yt)
        body = group_metrics_payload(metrics._replace(nll=0.0) if zero else metrics, OFFERED_BIN_COUNTS,
                                     OFFERED_BIN_COUNTS, reference=uncalibrated)
        if zero and "nll" in body.get("fix", {}):  # no change of an infinite NLL is printed
            del body["fix"]["nll"]
            if not body["fix"]:
                del body["fix"]
        body["nll"] = None if zero else body["nll"]
        body["zero_rows"] = zero
        out[method] = body
    return {"schema_version": SCHEMA_VERSION, "name": name, "part": METHOD_PART, "n_calibration": int(zc.shape[0]),
            "methods": out}
