"""The project's documented pseudo-random generator.

A linear congruential generator, x ← (a·x + c) mod m, with the constants of
Numerical Recipes (Press et al., 2007): a = 1664525, c = 1013904223,
m = 2**32. It is not a good generator for serious simulation, but it is tiny,
stated in full on the page, and gives every dataset bit-for-bit the same
values on any machine and any numpy version.

The Box–Muller transform needs a logarithm, a cosine and a sine. numpy's own
``log``/``cos``/``sin`` pick a SIMD path by CPU (SSE, AVX2, AVX-512), and the
paths differ in the last bit or two; the generated logits would then depend
on the machine. So this module evaluates them with the classic fdlibm
algorithms (Sun Microsystems, 1993: argument reduction, then a fixed
polynomial) written with elementwise ``+ - * /``, ``sqrt``, ``rint`` and
``frexp`` only. IEEE 754 rounds each of those exactly, on every CPU and
every SIMD width, and numpy never fuses two ufuncs into one FMA, so the
results are the same bits everywhere; each is within one ulp of the exact
value, as accurate as numpy's own.
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
    The same bits on every CPU (see the module's docstring).
    """
    u = np.asarray(uniform_pairs, dtype=np.float64)
    radius = np.sqrt(-2.0 * _log(1.0 - u[..., 0]))
    cos, sin = _cos_sin(2.0 * np.pi * u[..., 1])
    return np.stack([radius * cos, radius * sin], axis=-1)


# --- CPU-independent log, cos and sin -------------------------------------------------------------
# fdlibm's constants (e_log.c, k_cos.c, k_sin.c, e_rem_pio2.c), written in hexadecimal so they are
# exactly the intended doubles. Every expression below is a chain of separately rounded IEEE
# operations: keep it that way (no np.polyval tricks, no reordering), or the bits change.

_LN2_HI, _LN2_LO = float.fromhex("0x1.62e42fee00000p-1"), float.fromhex("0x1.a39ef35793c76p-33")
_LG = [float.fromhex(h) for h in (
    "0x1.5555555555593p-1", "0x1.999999997fa04p-2", "0x1.2492494229359p-2", "0x1.c71c51d8e78afp-3",
    "0x1.7466496cb03dep-3", "0x1.39a09d078c69fp-3", "0x1.2f112df3e5244p-3")]
_SQRT_HALF = float.fromhex("0x1.6a09e667f3bcdp-1")


def _log(x):
    """Natural logarithm of positive finite ``x`` (array), within one ulp, the same bits on every CPU."""
    mantissa, exponent = np.frexp(x)  # x = mantissa · 2**exponent, mantissa in [1/2, 1): exact
    low = mantissa < _SQRT_HALF
    mantissa = np.where(low, 2.0 * mantissa, mantissa)  # now in [√2/2, √2)
    k = (exponent - low).astype(np.float64)
    f = mantissa - 1.0  # exact
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    lg1, lg2, lg3, lg4, lg5, lg6, lg7 = _LG
    r = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7))) + w * (lg2 + w * (lg4 + w * lg6))
    half_f2 = 0.5 * f * f
    return k * _LN2_HI - ((half_f2 - (s * (half_f2 + r) + k * _LN2_LO)) - f)


_TWO_OVER_PI = float.fromhex("0x1.45f306dc9c883p-1")
# pi/2 in three 33-bit pieces (n · piece is exact for small n) and the tail after each
_PIO2 = [float.fromhex(h) for h in ("0x1.921fb54400000p+0", "0x1.0b4611a600000p-34", "0x1.3198a2e000000p-69")]
_PIO2_TAIL = [float.fromhex(h) for h in ("0x1.0b4611a626331p-34", "0x1.3198a2e037073p-69", "0x1.b839a252049c1p-104")]
_COS_C = [float.fromhex(h) for h in (
    "0x1.555555555554cp-5", "-0x1.6c16c16c15177p-10", "0x1.a01a019cb1590p-16", "-0x1.27e4f809c52adp-22",
    "0x1.1ee9ebdb4b1c4p-29", "-0x1.8fae9be8838d4p-37")]
_SIN_S = [float.fromhex(h) for h in (
    "-0x1.5555555555549p-3", "0x1.111111110f8a6p-7", "-0x1.a01a019c161d5p-13", "0x1.71de357b1fe7dp-19",
    "-0x1.ae5e68a2b9cebp-26", "0x1.5d93a5acfd57cp-33")]


def _reduce(x):
    """``x`` (|x| below about 1e6) as n·π/2 + (hi + lo), |hi| ≤ π/4: returns n mod 4, hi, lo.

    Up to three steps with pi/2 split in 33-bit pieces, the next step only where the previous one
    cancelled (the remainder lost more than 16, then 49, bits against ``x``): about 118 bits in all.
    """
    n = np.rint(x * _TWO_OVER_PI)
    r = x - n * _PIO2[0]
    w = n * _PIO2_TAIL[0]
    hi = r - w
    _, ex = np.frexp(x)
    for step in (1, 2):
        _, eh = np.frexp(hi)
        again = (ex - eh > (16 if step == 1 else 49)) & (hi != 0.0)
        t = r
        w2 = n * _PIO2[step]
        r2 = t - w2
        w2 = n * _PIO2_TAIL[step] - ((t - r2) - w2)
        r, w = np.where(again, r2, r), np.where(again, w2, w)
        hi = np.where(again, r - w, hi)
    lo = (r - hi) - w
    return n.astype(np.int64) % 4, hi, lo


def _kernel_cos(x, y):
    c1, c2, c3, c4, c5, c6 = _COS_C
    z = x * x
    w = z * z
    r = z * (c1 + z * (c2 + z * c3)) + w * w * (c4 + z * (c5 + z * c6))
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * r - x * y))


def _kernel_sin(x, y):
    s1, s2, s3, s4, s5, s6 = _SIN_S
    z = x * x
    w = z * z
    r = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6)
    v = z * x
    return x - ((z * (0.5 * y - v * r) - y) - v * s1)


def _cos_sin(x):
    """(cos x, sin x) for finite ``x`` (array, |x| below about 1e6), within one ulp, the same bits on every CPU."""
    quadrant, hi, lo = _reduce(np.asarray(x, dtype=np.float64))
    c, s = _kernel_cos(hi, lo), _kernel_sin(hi, lo)
    cos = np.choose(quadrant, [c, -s, -c, s])
    sin = np.choose(quadrant, [s, c, -s, -c])
    return cos, sin
