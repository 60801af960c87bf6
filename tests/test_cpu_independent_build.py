"""The built site does not depend on the CPU: a build with numpy's SIMD paths disabled is byte-identical.

numpy dispatches ``exp``, ``log``, sums and sorts to SSE, AVX2 or AVX-512 code by CPU, and the paths may
differ in the last bits. The site must not show it: the datasets are generated without those paths
(``calib.rng``) and every number is printed with the digits the arithmetic guarantees. The whole site is
compared in tests/test_cache.py: its uncached build runs with ``NPY_DISABLE_CPU_FEATURES`` (on a CPU without
AVX2 both builds run the same paths and the check holds trivially) and with BLAS on two threads instead of
the run's one (a paired range's last bits once moved a chart's clip-path ids), and must equal the cached build
file by file. This file checks that the setting really turns the paths off.

Not covered: OpenBLAS picks its kernels by CPU too, and the engine's row sums are BLAS products, so under
``OPENBLAS_CORETYPE=Prescott`` the payloads differ in the last digits they carry (docs/testing.md).
"""

import subprocess
import sys

from conftest import NUMPY_WITHOUT_SIMD, ROOT


def test_numpy_really_runs_without_simd_under_the_setting():
    script = ("from numpy._core._multiarray_umath import __cpu_dispatch__ as d, __cpu_features__ as f\n"
              "print(' '.join(sorted(x for x in d if f.get(x))))")
    done = subprocess.run([sys.executable, "-c", script], env={**NUMPY_WITHOUT_SIMD, "PATH": "/usr/bin:/bin"},
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "", f"still dispatched: {done.stdout.strip()}"

