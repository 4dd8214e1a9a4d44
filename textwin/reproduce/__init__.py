"""``python -m textwin.reproduce``: `textwin reproduce` under that name (its shell is
:mod:`textwin.cli.reproduce`). The reproduction itself is :mod:`textwin.reproduction`,
whose names are handed on here."""
from ..reproduction import *  # noqa: F401,F403
from ..reproduction import __all__  # noqa: F401
