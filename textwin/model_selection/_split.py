"""The folds, as the package of choosing by cross-validation names them: built in
:mod:`textwin._folds`, below the estimators, whose probability calibration draws its
folds there too."""
from textwin._folds import (CALIBRATION_FOLDS, SMALL_CLASS_FALLBACK, SMALL_CLASS_NOISE,
                            SmallClassWarning, calibration_fold_count, fold_of, fold_shortfall, search_folds, search_sample,
                            shuffled_folds, small_classes, split_folds, stratified_folds,
                            text_folds)

__all__ = ["SmallClassWarning", "SMALL_CLASS_NOISE", "SMALL_CLASS_FALLBACK", "small_classes",
           "fold_shortfall", "fold_of", "search_folds", "text_folds", "shuffled_folds",
           "split_folds", "stratified_folds", "search_sample", "CALIBRATION_FOLDS",
           "calibration_fold_count"]
