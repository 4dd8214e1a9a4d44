"""``python -m textwin.cli``: the ``textwin`` command."""
import sys

from . import main

sys.exit(main())
