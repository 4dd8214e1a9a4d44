"""``python -m textwin.reproduce``."""
import sys

from .command import console

sys.exit(console())
