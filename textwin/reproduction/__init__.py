"""Regenerate ``docs/reproduction.md``: the papers' experiments, measured in one run.

``textwin reproduce`` (or ``python -m textwin.reproduce``) trains every
method of the dual-formulation paper's Reuters tables with the paper's settings
(:data:`textwin.experiments.METHODS`), the extra rows beyond the paper, a few
alternatives to the reconstructed constants (to explain the misses), the
*Regularized Winnow* paper's synthetic experiment over several random draws,
and draws two figures. Every number in the written document is measured by that
run, except the papers' published figures, which come from the registry
(:mod:`textwin.experiments`) and from :data:`SYNTHETIC_PAPER`.

Progress goes to stderr (tqdm, only on a terminal); the document and the
figures are written atomically.

The parts: :mod:`.plan` (what a run measures), :mod:`.runs` and :mod:`.synthetic`
(the measurements), :mod:`.tables` and :mod:`.report` (the document, one writer per
section), :mod:`.figures`, :mod:`.command` (a run: :func:`run`) and :mod:`.errors` (what
stops one). The command, its options and its exit codes are :mod:`textwin.cli.reproduce`'s.
"""
from .command import run
from .errors import DataError, DestinationError, ReproductionError
from .plan import (BEYOND, CATEGORY_TARGET, CV_ROWS, MICRO_TARGET, SYNTHETIC_ONLINE,
                   SYNTHETIC_ORDER, SYNTHETIC_PAPER, SYNTHETIC_REGULARIZED, TABLE1, TABLE2, Plan,
                   full_plan, quick_plan)
from .runs import Alternative, Measurements, measure, run_alternatives, run_cross_validated
from .synthetic import READINGS, SyntheticResult, run_synthetic, synthetic_summary

__all__ = ["run", "ReproductionError", "DestinationError", "DataError", "Plan", "full_plan",
           "quick_plan", "measure", "Measurements", "SYNTHETIC_PAPER", "run_synthetic", "synthetic_summary",
           "SyntheticResult", "run_alternatives", "run_cross_validated", "Alternative",
           "READINGS", "MICRO_TARGET", "CATEGORY_TARGET", "TABLE1", "TABLE2", "BEYOND",
           "CV_ROWS", "SYNTHETIC_ONLINE", "SYNTHETIC_REGULARIZED", "SYNTHETIC_ORDER"]
