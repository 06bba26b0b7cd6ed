"""Build the Cython kernels: cython_core/<name>.pyx -> pgmpy_ext._core.<name>.

All metadata lives in pyproject.toml. Compiler directives are set once, here (never in file headers).
Set PGMPY_EXT_DEBUG_CYTHON=1 to turn bounds and initialisation checks back on for a debug build.
OpenMP is used only when a compile test with -fopenmp succeeds; the kernels build and run serially without it.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

KERNELS = sorted(p.stem for p in Path(__file__).parent.joinpath("cython_core").glob("*.pyx"))

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "nonecheck": False,
    "cdivision": True,
}
DEBUG = os.environ.get("PGMPY_EXT_DEBUG_CYTHON") == "1"
if DEBUG:
    DIRECTIVES.update(boundscheck=True, initializedcheck=True)


def _openmp_flags():
    """Return (compile_args, link_args) for OpenMP if the C compiler accepts -fopenmp, else empty lists."""
    if os.environ.get("PGMPY_EXT_NO_OPENMP") == "1" or sys.platform == "darwin":
        return [], []
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        return [], []
    src = "#include <omp.h>\nint main(void){return omp_get_max_threads() > 0 ? 0 : 1;}\n"
    with tempfile.TemporaryDirectory() as tmp:
        c_file = Path(tmp) / "omp_test.c"
        c_file.write_text(src)
        try:
            res = subprocess.run([cc, "-fopenmp", str(c_file), "-o", str(Path(tmp) / "a.out")],
                                 capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return [], []
    return (["-fopenmp"], ["-fopenmp"]) if res.returncode == 0 else ([], [])


def _popcnt_flags():
    """``-mpopcnt`` for the bit-counting K2 kernel when compiling for x86-64 and the compiler accepts it (every
    x86-64 CPU since 2008 has the instruction; without it ``__builtin_popcountll`` is a slower library call)."""
    import platform

    if os.environ.get("PGMPY_EXT_NO_POPCNT") == "1" or platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        c_file = Path(tmp) / "popcnt_test.c"
        c_file.write_text("int main(void){return __builtin_popcountll(3ULL) == 2 ? 0 : 1;}\n")
        try:
            res = subprocess.run([cc, "-mpopcnt", str(c_file), "-o", str(Path(tmp) / "a.out")],
                                 capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return []
    return ["-mpopcnt"] if res.returncode == 0 else []


omp_compile, omp_link = _openmp_flags()
EXTRA_COMPILE = {"_k2": _popcnt_flags()}
extensions = [
    Extension(
        f"pgmpy_ext._core.{name}",
        [f"cython_core/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", *omp_compile, *EXTRA_COMPILE.get(name, [])],
        extra_link_args=omp_link,
    )
    for name in KERNELS
]

setup(ext_modules=cythonize(extensions, include_path=["cython_core"], compiler_directives=DIRECTIVES,
                                 force=DEBUG))
