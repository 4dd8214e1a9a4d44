"""The textwin command in a process of its own, on the textwin these tests import.

``python -m`` puts the working folder first on sys.path: started from a checkout whose
kernels are not built (CI tests the installed textwin), it would import the checkout's
sources. So the command starts in a folder that holds no package, with the imported
textwin's folder on PYTHONPATH: the checkout after an in-place build, else the installed one.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import textwin

COMMAND = [sys.executable, "-m", "textwin.cli"]
ENV = dict(os.environ, PYTHONPATH=str(Path(textwin.__file__).resolve().parents[1]))
CWD = tempfile.gettempdir()


def run_textwin(*argv, **kwargs):
    """``subprocess.run`` of ``textwin ARGV`` (output captured as text unless told)."""
    kwargs.setdefault("env", ENV)
    kwargs.setdefault("cwd", CWD)
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    return subprocess.run([*COMMAND, *map(str, argv)], **kwargs)
