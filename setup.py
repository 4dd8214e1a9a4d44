"""Build the Cython kernels; everything else lives in pyproject.toml."""
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent

KERNELS = Path("textwin", "_kernels")
# The hand-written C (src/, apart from the C that Cython generates beside the .pyx),
# compiled into the extension whose code calls it: its run-time choice of SIMD path
# lives in one table per extension. Every extension finds rowops.h on its include path.
C_SRC = KERNELS / "src"
C_SOURCES = {
    "textwin._kernels._regularizers": [
        str(C_SRC / name) for name in ("rowops_base.c", "rowops_avx2.c", "rowops_dispatch.c")
    ],
    "textwin._kernels._chars": [str(C_SRC / "charngrams.c")],
    "textwin._kernels._vocabulary": [str(C_SRC / "vocabulary.c")],
}

# One extension per .pyx under textwin/ (generated C is never committed).
extensions = [
    Extension(
        name,
        [str(pyx.relative_to(HERE))] + C_SOURCES.get(name, []),
        include_dirs=[np.get_include(), str(C_SRC)],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
        depends=[str(C_SRC / h) for h in ("rowops.h", "rowops_inline.h", "charngrams.h",
                                          "vocabulary.h", "slots.h", "resize.h", "fmix64.h")],
    )
    for pyx in sorted((HERE / "textwin").rglob("*.pyx"))
    for name in [".".join(pyx.relative_to(HERE).with_suffix("").parts)]
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
)
