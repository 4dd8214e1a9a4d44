"""Build the Cython kernels; everything else lives in pyproject.toml."""
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent

# One extension per .pyx under textwin/ (generated C is never committed).
extensions = [
    Extension(
        ".".join(pyx.relative_to(HERE).with_suffix("").parts),
        [str(pyx.relative_to(HERE))],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"],
    )
    for pyx in sorted((HERE / "textwin").rglob("*.pyx"))
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
