"""The reader's models behind the session's shared ``build.py --data`` builds (tests/conftest.py, ``user_builds``).

Not a test module: conftest writes these files when the session starts, so the builds run in the background,
and tests/test_user_model.py and tests/browser/test_yours.py read the same sites (one build each, not one per
file). The hostile strings are what a reader could type: markup, formula prefixes, U+2028/U+2029.
"""

import numpy as np

HOSTILE_NAME = "</script><img src=x onerror=alert(1)>\u2028<!--<script> {n} =1+1"
HOSTILE_CLASSES = ["=HYPERLINK(\"x\")", "</script><svg onload=alert(2)>", "<!--<script>", "-3", "@a", "+b"]
HOSTILE_GROUPS = ("=cmd|'/C calc'!A0", "</title><b id=injected>\u2029")
HOSTILE_DESCRIPTION = "=rows from <b>ward 3</b>"
MODEL_ROWS = 400


def model_file(path, n=MODEL_ROWS, k=12, seed=3, hostile=True, **extra):
    """Write a ``k``-class model's logits and labels (with hostile class and group names) to ``path`` (.npz)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    logits = rng.normal(0, 1.0, (n, k))
    logits[np.arange(n), labels] += 2.5
    arrays = dict(logits=(2.0 * logits).astype(np.float32), labels=labels)
    if hostile:
        arrays["class_names"] = np.array(HOSTILE_CLASSES + [f"c{i}" for i in range(len(HOSTILE_CLASSES), k)])
        arrays["groups"] = np.where(np.arange(n) % 3 == 0, HOSTILE_GROUPS[0], HOSTILE_GROUPS[1])
    arrays.update(extra)
    np.savez(path, **arrays)
    return path


def chance_file(path):
    """Write probabilities with plain headers (read with ``--input probabilities``) of a model no better than
    chance: every class is the top one on one row in five and the label is always 1, so T goes to the upper
    bound and accuracy is 1/K."""
    import pandas as pd
    scores = np.tile(3 * np.eye(5), (80, 1))
    probabilities = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    pd.DataFrame(probabilities, columns=[f"class {c}" for c in "abcde"]).assign(label=1).to_csv(path, index=False)
    return path
