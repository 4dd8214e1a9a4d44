"""``python -m textwin.reproduce``: `textwin reproduce` under that name."""
import sys

from ..cli.reproduce import main

sys.exit(main())
