"""The built site does not depend on the CPU: a build with numpy's SIMD paths disabled is byte-identical.

numpy dispatches ``exp``, ``log``, sums and sorts to SSE, AVX2 or AVX-512 code by CPU, and the paths may
differ in the last bits. The site must not show it: the datasets are generated without those paths
(``calib.rng``) and every number is printed with the digits the arithmetic guarantees. This test builds
the site a second time with ``NPY_DISABLE_CPU_FEATURES`` (``site_without_simd``, tests/conftest.py; on a
CPU without AVX2 both builds run the same paths and the test holds trivially) and with BLAS on two threads
instead of the run's one (a paired range's last bits once moved a chart's clip-path ids), and compares every file.

Not covered: OpenBLAS picks its kernels by CPU too, and the engine's row sums are BLAS products, so under
``OPENBLAS_CORETYPE=Prescott`` the payloads differ in the last digits they carry (docs/testing.md).
"""

import subprocess
import sys

from conftest import NUMPY_WITHOUT_SIMD, ROOT


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_numpy_really_runs_without_simd_under_the_setting():
    script = ("from numpy._core._multiarray_umath import __cpu_dispatch__ as d, __cpu_features__ as f\n"
              "print(' '.join(sorted(x for x in d if f.get(x))))")
    done = subprocess.run([sys.executable, "-c", script], env={**NUMPY_WITHOUT_SIMD, "PATH": "/usr/bin:/bin"},
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "", f"still dispatched: {done.stdout.strip()}"


def test_a_build_without_numpys_simd_paths_is_byte_identical(built_site, site_without_simd):
    default, without = files(built_site), files(site_without_simd)
    assert sorted(default) == sorted(without)
    differ = [name for name in default if default[name] != without[name]]
    assert not differ, f"{len(differ)} files depend on the CPU's SIMD paths: {differ[:10]}"
