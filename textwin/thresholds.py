"""Decision thresholds tuned on held-out scores (their home is
:mod:`textwin.model_selection`; this module keeps the import path)."""
from textwin.model_selection._thresholds import (ARGMAX_OBJECTIVES, TunedThresholdsClassifierCV,
                                                 argmax_thresholds, out_of_fold_scores)

__all__ = ["TunedThresholdsClassifierCV", "argmax_thresholds", "out_of_fold_scores",
           "ARGMAX_OBJECTIVES"]
