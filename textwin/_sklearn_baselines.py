"""scikit-learn's SVC and LinearSVC as methods of the experiments (:mod:`textwin.experiments`),
one binary problem per category; imported only when such a method is built, so that
the registry of methods (and ``textwin --help``) does without scikit-learn."""
import warnings

import numpy as np
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC, LinearSVC


class ConstantLinearModel:
    """A category with training documents of one side only: weights 0 and intercept
    +-1, as textwin's own estimators give it (a score that never beats a learned class)."""

    def __init__(self, n_features, sign):
        self.coef_ = np.zeros((1, n_features))
        self.intercept_ = np.array([float(sign)])

    def decision_function(self, X):
        return np.full(X.shape[0], self.intercept_[0])


class OneVsRest(OneVsRestClassifier):
    """scikit-learn's ``OneVsRestClassifier``, except for a category whose training
    documents are all on one side: scikit-learn scores it 0 (or 1) with no weights,
    so that such a class won the argmax wherever the learned ones scored below 0,
    and the model could not be saved. It gets :class:`ConstantLinearModel`."""

    def fit(self, X, y, **params):
        if getattr(y, "ndim", 1) == 2:
            # its LabelBinarizer mixes up the columns of a uint8 indicator of more than
            # 255 categories (the command line's label matrices are uint8)
            y = y.astype(np.int64)
        with warnings.catch_warnings():
            # "Label not k is present in all training examples": said here in its place
            warnings.filterwarnings("ignore", message="Label .* is present in all training")
            super().fit(X, y, **params)
        Y = self.label_binarizer_.transform(y)
        Y = Y.toarray() if hasattr(Y, "toarray") else np.asarray(Y)
        for k, member in enumerate(self.estimators_):
            if not hasattr(member, "coef_"):
                sign = 1 if Y[:, k].all() else -1
                self.estimators_[k] = ConstantLinearModel(X.shape[1], sign)
        return self


def linear_svc_one_vs_rest(C, tol):
    """The paper's SMO row: a linear-kernel SVC per category."""
    return OneVsRest(SVC(kernel="linear", C=C, tol=tol))


def liblinear_one_vs_rest(C, tol, max_iter, random_state):
    """liblinear's dual coordinate descent on the hinge loss, per category."""
    return OneVsRest(LinearSVC(C=C, loss="hinge", dual=True, tol=tol, max_iter=max_iter,
                               random_state=random_state))
