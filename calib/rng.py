"""The project's documented pseudo-random generator.

A linear congruential generator, x ← (a·x + c) mod m, with the constants of
Numerical Recipes (Press et al., 2007): a = 1664525, c = 1013904223,
m = 2**32. It is not a good generator for serious simulation, but it is tiny,
stated in full on the page, and gives every dataset bit-for-bit the same
values on any machine and any numpy version.
"""

import numpy as np

__all__ = ["LCG_MULTIPLIER", "LCG_INCREMENT", "LCG_MODULUS", "lcg_uniforms", "lcg_normals"]

LCG_MULTIPLIER = 1664525
LCG_INCREMENT = 1013904223
LCG_MODULUS = 2 ** 32


def lcg_uniforms(seed, count):
    """The first ``count`` outputs after ``seed``, each x / 2**32, a float64 array in [0, 1).

    The recurrence is inherently sequential; it runs on Python integers
    (about 0.1 µs a step), which keeps it exact.
    """
    if count < 0:
        raise ValueError("count must be non-negative")
    state = int(seed) % LCG_MODULUS
    out = np.empty(count, dtype=np.float64)
    for i in range(count):
        state = (LCG_MULTIPLIER * state + LCG_INCREMENT) % LCG_MODULUS
        out[i] = state
    return out / LCG_MODULUS


def lcg_normals(uniform_pairs):
    """Standard normal draws from an (..., 2) array of uniforms in [0, 1), by the Box–Muller transform.

    Returns an array of shape (..., 2). ``1 - u`` keeps the logarithm's argument in (0, 1].
    """
    u = np.asarray(uniform_pairs, dtype=np.float64)
    radius = np.sqrt(-2.0 * np.log(1.0 - u[..., 0]))
    angle = 2.0 * np.pi * u[..., 1]
    return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=-1)
