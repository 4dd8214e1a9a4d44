"""The compiled kernels (Cython over C).

A checkout that was never built holds the ``.pyx`` sources but no compiled
modules, and ``python -m textwin...`` run from its root imports it ahead of the
installed textwin. That is one line that says what to do, not a traceback from
deep inside an import.
"""
import importlib.machinery
import os
import shlex
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _built(name):
    return any(os.path.exists(os.path.join(_HERE, name + suffix))
               for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def _unbuilt_message():
    """What to do when this textwin is sources only; the command is the one that ran."""
    argv = getattr(sys, "orig_argv", [])
    module = argv[argv.index("-m") + 1] if "-m" in argv[:-1] else None
    if module is not None and module.startswith("textwin"):
        words = [] if module in ("textwin.cli", "textwin") else [module.split(".")[-1]]
        instead = ("; run the installed command instead (`"
                   + shlex.join(["textwin", *words, *argv[argv.index("-m") + 2:]]) + "`)")
    else:
        instead = "; run from another folder to use the installed textwin"
    return (f"the textwin in {os.path.dirname(_HERE)} is not built (a checkout's sources "
            f"without their compiled kernels, ahead of any installed textwin on sys.path)"
            f"{instead}, or build it in place: "
            f"pip install \".[build]\" && python setup.py build_ext --inplace")


# a checkout's every .pyx (an installed textwin ships none), and the solver in any case
_NEEDED = {"_dual_gs", *(f[:-4] for f in os.listdir(_HERE) if f.endswith(".pyx"))}
if not all(_built(name) for name in _NEEDED):
    if sys.argv[:1] == ["-m"]:
        # `python -m textwin.X` still importing X's package: no command runs to catch this
        print(f"textwin: error: {_unbuilt_message()}", file=sys.stderr)
        sys.exit(2)  # the command line's exit status for what the user can fix
    raise ImportError(_unbuilt_message(), name=__name__, path=_HERE)
