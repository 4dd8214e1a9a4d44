"""What the reproduction runs: the papers' published figures, the targets, and the
:class:`Plan` of one run (the full reproduction or the quick test version)."""
from __future__ import annotations

from dataclasses import dataclass

from ..experiments import TOP10

#: Targets of the reproduction (points of break-even, percent).
MICRO_TARGET = 1.0
CATEGORY_TARGET = 3.0

#: The dual-formulation paper's Table 1 and Table 2 rows (registry keys), then rows
#: beyond the paper.
TABLE1 = ("winnow", "rwinnow", "winnow-0.3", "rwinnow-0.3")
TABLE2 = ("perceptron", "svm-alg2", "mls", "smo", "linearsvc")
BEYOND = ("rwinnow-balanced", "svm-alg2-converged")

#: *Regularized Winnow methods*, Table 1 (seeds/000, section 4): test accuracy (%)
#: on the synthetic data, best lambda for the regularized methods. Published figures.
SYNTHETIC_PAPER = {
    500: {"Perceptron": 82.2, "LM-Perc": 87.1, "UWin": 82.4, "LM-UWin": 94.0,
          "NWin": 82.4, "LM-NWin": 94.3},
    5000: {"Perceptron": 67.9, "LM-Perc": 69.8, "UWin": 69.7, "LM-UWin": 87.4,
           "NWin": 69.7, "LM-NWin": 88.6},
}
SYNTHETIC_ONLINE = ("Perceptron", "UWin", "NWin")
SYNTHETIC_REGULARIZED = ("LM-Perc", "LM-UWin", "LM-NWin")
SYNTHETIC_ORDER = ("Perceptron", "LM-Perc", "UWin", "LM-UWin", "NWin", "LM-NWin")


@dataclass(frozen=True)
class Plan:
    """What one run measures (the full reproduction or the quick test version)."""

    name: str
    categories: tuple
    epoch_cap: int | None          # caps the Reuters methods' epochs (quick only)
    pr_category: str
    pr_methods: tuple
    alternatives: tuple            # (method key, label, estimator params, features)
    dims: tuple
    draws: int
    n_samples: int                 # synthetic training, validation and test size
    synth_epochs: int
    lams: tuple
    methods: tuple = ()            # Reuters registry keys (default: every table row)
    cv_rows: tuple = ()            # (key, description, features, estimator params)
    cv_folds: int = 5              # folds of the ModApte training set for cv_rows
    cv_lams: int = 10              # points of each cv row's automatic lam grid


_PR_METHODS = ("winnow", "rwinnow", "rwinnow-balanced", "perceptron", "svm-alg2", "mls",
               "smo", "linearsvc")

# Alternatives to the reconstructed settings, each tried in the same run. Features
# "global": the table's 1,000 global information-gain features; "per_category":
# the 1,000 words of highest binary information gain of each category (the paper
# counts "feature selection" in each method's training time, which suggests this).
# A "+topic_test" suffix scores only the 3,019 test documents that have a topic: the
# paper's test-set size was lost in extraction ("9603 documents in the training set
# and ... documents in the test set"), and many ModApte studies drop the test
# documents without a topic (an exploration measured this and the other pipeline
# readings, text fields, tokenizers and IG variants:
# `git show cbbb6d5:data_scripts/explore_pipeline_variants.py`).
_ALTERNATIVES = (
    ("winnow", "per-category IG", {}, "per_category"),
    ("winnow", "eta = 0.003", {"eta": 0.003}, "global"),
    ("winnow", "eta = 0.01", {"eta": 0.01}, "global"),
    ("winnow", "A = 2 (same as theta = 0.05)", {"mass": 2.0}, "global"),
    ("winnow", "same features, columns permuted", {}, "permuted"),
    ("winnow-0.3", "per-category IG", {}, "per_category"),
    ("winnow-0.3", "eta = 0.01", {"eta": 0.01}, "global"),
    ("rwinnow", "per-category IG", {}, "per_category"),
    ("rwinnow", "A = 0.5", {"mass": 0.5}, "global"),
    ("rwinnow", "A = 2", {"mass": 2.0}, "global"),
    ("rwinnow", "lam = 1e-3", {"lam": 1e-3}, "global"),
    ("rwinnow", "lam = 1e-5", {"lam": 1e-5}, "global"),
    ("rwinnow", "1000 epochs", {"max_epochs": 1000}, "global"),
    ("rwinnow-0.3", "per-category IG", {}, "per_category"),
    ("rwinnow-0.3", "1000 epochs", {"max_epochs": 1000}, "global"),
    ("perceptron", "per-category IG", {}, "per_category"),
    ("perceptron", "no rescaling", {"renormalize": False}, "global"),
    ("perceptron", "same features, columns permuted", {}, "permuted"),
    ("perceptron", "eta = 0.01", {"eta": 0.01}, "global"),
    ("svm-alg2", "per-category IG", {}, "per_category"),
    ("svm-alg2", "rho0 = 0.1", {"rho0": 0.1}, "global"),
    ("svm-alg2", "rho0 = 10", {"rho0": 10.0}, "global"),
    ("svm-alg2", "converged (svm-alg2-converged row)", {"intercept_solver": "converged",
                                                        "max_epochs": 500, "tol": 1e-4},
     "global"),
    ("mls", "per-category IG", {}, "per_category"),
    ("mls", "1000 epochs", {"max_epochs": 1000}, "global"),
    ("mls", "unregularized bias (Algorithm 2, converged)",
     {"intercept_solver": "converged", "max_epochs": 500}, "global"),
    ("perceptron", "constant feature (bias)", {"fit_intercept": True}, "global"),
) + tuple(
    # Pipeline variants: the test documents without a topic left out, alone and with
    # per-category features, for every paper row but SMO (same optimum as svm-alg2's
    # converged run, 20 s).
    (key, label, {}, features)
    for key in ("winnow", "rwinnow", "winnow-0.3", "rwinnow-0.3", "perceptron", "svm-alg2",
                "mls")
    for label, features in (("test: only documents with a topic", "global+topic_test"),
                            ("per-category IG, test: only documents with a topic",
                             "per_category+topic_test"))
) + (
    # ... and with the one baseline setting that moved each online method most.
    ("winnow", "eta = 0.01, per-category IG, test: only documents with a topic",
     {"eta": 0.01}, "per_category+topic_test"),
    ("perceptron", "constant feature, per-category IG, test: only documents with a topic",
     {"fit_intercept": True}, "per_category+topic_test"),
)


# Beyond the papers: tf-idf features, lam chosen per category by cross-validation on
# the ModApte training set alone (DualGaussSeidelClassifierCV), the test set read once.
# Features: "stems" (every stem of the training stories) or "stems+bigrams" (and every
# pair of consecutive stems in at least two training stories).
_CONSTANT_FEATURE = {"fit_intercept": True, "intercept_solver": "constant_feature"}
CV_ROWS = (
    ("svm-cv", "SVM (hinge, square regularizer, constant feature)", "stems",
     {"loss": "hinge", **_CONSTANT_FEATURE}),
    ("rwinnow-balanced-cv",
     "balanced regularized Winnow (squared hinge, balanced normalized entropy, "
     "mass='auto')", "stems",
     {"loss": "squared_hinge", "regularizer": "balanced_normalized_entropy"}),
    ("svm-cv-bigrams", "SVM (hinge, square regularizer, constant feature)",
     "stems+bigrams", {"loss": "hinge", **_CONSTANT_FEATURE}),
)


def full_plan():
    """The reproduction: ten categories, paper settings, 5 draws of d = 500 and 5000."""
    return Plan(name="full", categories=TOP10, epoch_cap=None, pr_category="money-fx",
                pr_methods=_PR_METHODS, alternatives=_ALTERNATIVES, dims=(500, 5000),
                draws=5, n_samples=1000, synth_epochs=200,
                lams=tuple(10.0 ** (-k / 2) for k in range(-2, 9)), cv_rows=CV_ROWS)


def quick_plan():
    """A small version for tests: three categories, 5 epochs, one small synthetic size."""
    return Plan(name="quick", categories=("earn", "acq", "money-fx"), epoch_cap=5,
                pr_category="acq", pr_methods=("rwinnow", "perceptron", "svm-alg2"),
                methods=("winnow", "rwinnow", "perceptron", "svm-alg2", "mls", "linearsvc",
                         "rwinnow-balanced"),
                alternatives=(("rwinnow", "per-category IG", {}, "per_category"),
                              ("perceptron", "no rescaling", {"renormalize": False}, "global"),
                              ("perceptron", "columns permuted", {}, "permuted")),
                dims=(500,), draws=2, n_samples=300, synth_epochs=20,
                lams=(1e-1, 1e-2, 1e-3), cv_rows=CV_ROWS[:1], cv_folds=3, cv_lams=3)

