"""textwin: sparse text categorization by the dual Gauss-Seidel method.

The estimators are imported lazily so that ``import textwin.datasets`` works
without touching the compiled kernels.
"""
from ._version import __version__

_LAZY = {
    # name -> module that defines it
    "DualGaussSeidelClassifier": "textwin.linear",
    "DualSVM": "textwin.linear",
    "ModifiedLeastSquares": "textwin.linear",
    "RegularizedWinnow": "textwin.linear",
    "LargeMarginPerceptron": "textwin.linear",
    "LargeMarginUWinnow": "textwin.linear",
    "LargeMarginNWinnow": "textwin.linear",
    "DegenerateSolutionWarning": "textwin.linear",
    "Perceptron": "textwin.online",
    "Winnow": "textwin.online",
    "BalancedWinnow": "textwin.online",
    "TunedThresholdsClassifierCV": "textwin.thresholds",
    "DualGaussSeidelClassifierCV": "textwin.model_selection",
    "regularization_path": "textwin.model_selection",
    "TextClassifier": "textwin.text_classifier",
    "TextClassifierCV": "textwin.model_selection",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'textwin' has no attribute {name!r}")


def __dir__():
    # dir(textwin) and tab completion list the lazily exported estimators too.
    return sorted({*globals(), *_LAZY})


__all__ = ["__version__", *_LAZY]
