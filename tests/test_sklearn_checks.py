"""scikit-learn's estimator checks over the general estimator and every preset."""
from sklearn.utils.estimator_checks import parametrize_with_checks

from textwin.linear import (
    DualGaussSeidelClassifier,
    DualSVM,
    LargeMarginNWinnow,
    LargeMarginPerceptron,
    LargeMarginUWinnow,
    ModifiedLeastSquares,
    RegularizedWinnow,
)
from textwin.model_selection import DualGaussSeidelClassifierCV
from textwin.online import BalancedWinnow, Perceptron, Winnow

ESTIMATORS = [
    DualGaussSeidelClassifier(random_state=0),
    DualGaussSeidelClassifier(loss="logistic", random_state=0),
    DualGaussSeidelClassifier(
        loss="squared_hinge", regularizer="balanced_entropy", fit_intercept=True, random_state=0
    ),
    DualSVM(fit_intercept=True, random_state=0),
    DualSVM(probability=True, random_state=0),
    ModifiedLeastSquares(random_state=0),
    RegularizedWinnow(random_state=0),
    LargeMarginPerceptron(),
    LargeMarginUWinnow(),
    LargeMarginNWinnow(),
    Perceptron(),
    Winnow(),
    BalancedWinnow(),
    DualGaussSeidelClassifierCV(lams=3, cv=3, random_state=0),
]


def _expected_failed_checks(estimator):
    failed = {}
    # The dual estimators average the loss over the total sample weight, so a
    # weight k is exactly k copies of a row, at the optimum. The defaults stop at
    # a relative duality gap of 1e-3 (or after the papers' epoch budget), and the
    # check compares the two fits to about 1e-7: a looser solve cannot pass it.
    # test_estimators.py::test_sample_weight_equivalence_at_a_tight_tolerance runs
    # the same check with tol=1e-13, where it passes. The online learners are
    # mistake-driven: a weight k scales the step of a mistake, while k copies of
    # a row are visited k times and stop moving the weights once one copy is
    # right, so the two differ by design (test_online.py tests what a weight does).
    name = type(estimator).__name__
    online = name in ("Perceptron", "Winnow", "BalancedWinnow")
    reason = ("a weight scales a mistake's step; repeated rows are separate visits"
              if online else "the default tol=1e-3 is far looser than the check's comparison")
    failed["check_sample_weight_equivalence_on_dense_data"] = reason
    failed["check_sample_weight_equivalence_on_sparse_data"] = reason
    if name in ("RegularizedWinnow", "Winnow"):
        # Positive weights with ||w||_1 = 1 and a fixed threshold theta = 0.1 (the
        # papers' Reuters settings): on the check's small dense data with negative
        # features this model class cannot reach the 83% training accuracy
        # scikit-learn asks of every classifier.
        failed["check_classifiers_train"] = (
            "positive weights, ||w||_1 = 1, fixed threshold 0.1: cannot fit the "
            "check's data with negative features"
        )
    if name not in ("Perceptron", "Winnow", "BalancedWinnow"):
        # The check puts class weight 1000 on unscaled blobs (std 20) and keeps
        # the default lam = 1e-3, i.e. C = 1/(lam n) = 20 per unit weight: a dual
        # box of 20000. That problem is so ill-conditioned that LinearSVC with
        # the same C does not converge in 100000 iterations either (its
        # prediction is then as poor); LinearSVC passes the check only because
        # its default is C = 1. Whether a given preset scrapes past the 87% bar
        # after 1000 epochs depends on rounding, so every dual estimator is listed.
        failed["check_class_weight_classifiers"] = (
            "at the default lam the weighted problem is too ill-conditioned to "
            "solve in the check's budget (LinearSVC with C=1/(lam n) fails too)"
        )
    if getattr(estimator, "probability", False):
        # Platt's sigmoids, one per class, then normalized: the argmax of the
        # probabilities is the argmax of the scores but for a few samples (1 of the
        # check's 200), as with sklearn.svm.SVC(probability=True)
        failed["check_classifiers_train"] = (
            "predict is the argmax of the scores, predict_proba a sigmoid per class: "
            "they may differ on a few samples, as SVC(probability=True)'s do")
    return failed


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)
