"""TextClassifier: raw texts in, the task from the labels, model files (its search,
TextClassifierCV, in test_model_selection_text_search.py)."""
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from textwin import DualGaussSeidelClassifier, TextClassifier
from textwin.persistence import load_model
from textwin.text import TextVectorizer
from _text_corpora import BIAS, TOPICS, corpus, multilabel_corpus


# ---------------------------------------------------------------------------
# TextClassifier
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("classes", [("grain", "money"), ("grain", "money", "oil")])
def test_text_classifier_is_the_vectorizer_then_the_solver_at_one_over_n(classes):
    texts, y = corpus(classes=classes)
    clf = TextClassifier(tol=1e-6).fit(texts, y)
    X = TextVectorizer(weighting="tfidf").fit_transform(texts)
    ref = DualGaussSeidelClassifier(lam=1 / len(texts), tol=1e-6, random_state=0, **BIAS).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(texts), ref.decision_function(X),
                               atol=1e-9)
    assert clf.task_ == ("binary" if len(classes) == 2 else "multiclass")
    assert list(clf.classes_) == list(classes)
    np.testing.assert_array_equal(clf.predict(texts), ref.predict(X))
    assert clf.decision_function(texts[:3]).shape == ((3,) if len(classes) == 2 else (3, 3))


def test_label_lists_are_multilabel_unless_every_text_has_one():
    texts, labels = multilabel_corpus()
    clf = TextClassifier().fit(texts, labels)
    assert clf.task_ == "multilabel" and list(clf.classes_) == sorted(TOPICS)
    predicted = clf.predict(texts)
    assert predicted.shape == (len(texts), 3) and set(np.unique(predicted)) <= {0, 1}
    truth = np.array([[c in ls for c in clf.classes_] for ls in labels])
    assert (predicted == truth).mean() > 0.8
    # one label each: one class per text, predicted as a label
    texts, y = corpus()
    single = TextClassifier().fit(texts, [[label] for label in y])
    assert single.task_ == "multiclass" and single.predict(texts[:2]).tolist()[0] in TOPICS


def test_an_indicator_matrix_gives_its_columns_as_categories():
    texts, labels = multilabel_corpus()
    names = sorted(TOPICS)
    Y = np.array([[c in ls for c in names] for ls in labels], dtype=int)
    by_lists = TextClassifier().fit(texts, labels)
    by_matrix = TextClassifier().fit(texts, Y)
    assert list(by_matrix.classes_) == [0, 1, 2]
    np.testing.assert_allclose(by_matrix.decision_function(texts),
                               by_lists.decision_function(texts))


@pytest.mark.parametrize("nb_scaling", [False, True])
def test_a_single_label_indicator_with_a_class_without_texts_keeps_its_column(nb_scaling):
    # a fold of --auto --tune-thresholds that trains without a rare class: the
    # index of the classes dropped its row (a shape-mismatch error)
    texts, y = corpus()
    Y = np.zeros((len(texts), 4), dtype=int)
    Y[np.arange(len(texts)), [1 + sorted(TOPICS).index(label) for label in y]] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the constant model of the empty column
        clf = TextClassifier(task="multiclass", nb_scaling=nb_scaling).fit(texts, Y)
    present = TextClassifier(nb_scaling=nb_scaling).fit(texts, y)
    assert clf.task_ == "multiclass" and clf.coef_.shape[0] == 4
    np.testing.assert_allclose(clf.decision_function(texts)[:, 1:],
                               present.decision_function(texts), atol=1e-9)
    np.testing.assert_allclose(clf.decision_function(texts)[:, 0], -1.0)  # no texts, no win
    assert list(clf.predict(texts)) == [1 + sorted(TOPICS).index(c) for c in present.predict(texts)]


def test_features_keeps_the_terms_of_highest_information_gain_on_the_labels(tmp_path):
    from textwin.feature_selection import InformationGain

    texts, y = corpus()
    clf = TextClassifier(features=8, tol=1e-6).fit(texts, y)
    X = TextVectorizer(weighting="tfidf").fit_transform(texts)
    kept = InformationGain(k=8).fit(X, y).get_support(indices=True)
    ref = DualGaussSeidelClassifier(lam=1 / len(texts), tol=1e-6, random_state=0,
                                    **BIAS).fit(X[:, kept], y)
    np.testing.assert_array_equal(clf.selected_, kept)
    assert clf.coef_.shape == (3, 8)
    # new texts: scored on the kept columns of the whole vocabulary's matrix
    np.testing.assert_allclose(clf.decision_function(texts), ref.decision_function(X[:, kept]),
                               atol=1e-9)
    clf.save(tmp_path / "m.npz")
    model = load_model(tmp_path / "m.npz")
    np.testing.assert_array_equal(model.selected, kept)
    back = TextClassifier.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.decision_function(texts), clf.decision_function(texts))
    np.testing.assert_array_equal(model.decision_function(texts), clf.decision_function(texts))
    # the weights of a term not kept are 0 in an explanation, not an error
    why = clf.explain(texts[:1], n_terms=3)[0]
    assert all(t["term"] in set(clf.vectorizer_.get_feature_names_out()[kept])
               for terms in why.values() for t in terms["terms"])
    assert TextClassifier(features="all").fit(texts, y).selected_ is None


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
def test_a_classifier_is_fitted_on_the_texts_matrix_in_place_of_the_solver(tmp_path, task):
    from textwin.linear import ModifiedLeastSquares
    from textwin.online import Winnow

    if task == "multilabel":
        texts, labels = multilabel_corpus()
        names = sorted(TOPICS)
        Y = np.array([[c in ls for c in names] for ls in labels], dtype=int)
        target = Y
    else:
        texts, y = corpus(classes=("grain", "money") if task == "binary"
                          else ("grain", "money", "oil"))
        target = y
    X = TextVectorizer(weighting="tfidf").fit_transform(texts)
    # each text's class as an index, as the estimators take competing classes (binary: 0/1)
    labels = target if task == "multilabel" else np.unique(target, return_inverse=True)[1]
    for classifier in (Winnow(n_epochs=5, random_state=0), ModifiedLeastSquares(lam=0.01, random_state=0)):
        clf = TextClassifier(classifier=classifier).fit(texts, target)
        ref = clone(classifier).fit(X, labels)
        assert clf.task_ == task and clf.classifier_ is not classifier
        np.testing.assert_allclose(np.reshape(clf.decision_function(texts), (len(texts), -1)),
                                   np.reshape(ref.decision_function(X), (len(texts), -1)),
                                   atol=1e-9)
        model = clf.to_model({"corpus": "test"})
        assert model.metadata["estimator"] == f"{type(ref).__module__}.{type(ref).__name__}"
        assert model.metadata["corpus"] == "test"
        np.testing.assert_allclose(model.decision_function(texts),
                                   clf.decision_function(texts), atol=1e-12)
    with pytest.raises(ValueError, match="give its settings to the classifier"):
        TextClassifier(classifier=Winnow(), lam=0.1).fit(texts, target)



def test_a_classifier_whose_scores_are_not_its_weights_is_refused():
    """A model file keeps coef_ and intercept_ only: a classifier that scores with anything
    else (here a shift kept outside them) would be saved wrong, so the fit refuses it."""
    from textwin.linear import ModifiedLeastSquares

    class Shifted(ModifiedLeastSquares):
        def decision_function(self, X):
            return super().decision_function(X) + 0.5

    texts, y = corpus(classes=("grain", "money"))
    TextClassifier(classifier=ModifiedLeastSquares(lam=0.01)).fit(texts, y)
    with pytest.raises(ValueError, match="scores are not coef_ @ x"):
        TextClassifier(classifier=Shifted(lam=0.01)).fit(texts, y)

def test_an_indicators_columns_take_the_classes_given_and_keep_a_class_without_texts():
    texts, y = corpus()
    names = ["wheat", *sorted(TOPICS)]  # the first class has no text
    Y = np.zeros((len(texts), 4), dtype=int)
    Y[np.arange(len(texts)), [1 + sorted(TOPICS).index(label) for label in y]] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the constant model of the empty column
        clf = TextClassifier(task="multiclass").fit(texts, Y, classes=names)
    assert list(clf.classes_) == names and "wheat" not in set(clf.predict(texts))
    assert clf.to_model().target_names == names
    with pytest.raises(ValueError, match="columns of an indicator"):
        TextClassifier().fit(texts, y, classes=names)


def test_fit_returns_self_and_clone_keeps_the_parameters():
    clf = TextClassifier(stem=False, lam=0.01, loss="squared_hinge")
    texts, y = corpus()
    assert clf.fit(texts, y) is clf
    copy = clone(clf)
    assert copy.get_params() == clf.get_params() and not hasattr(copy, "coef_")
    copy.set_params(lam=1.0)
    assert copy.lam == 1.0 and clf.lam == 0.01


@pytest.mark.parametrize("kind", ["binary", "multiclass", "multilabel", "nb"])
def test_a_model_file_gives_the_same_scores_and_predictions(tmp_path, kind):
    if kind == "multilabel":
        texts, y = multilabel_corpus()
    else:
        texts, y = corpus(classes=("grain", "money", "oil")[:3 if kind == "multiclass" else 2])
    # thresholds away from 0 (multi-label), so that a file that drops them differs
    thresholds = [0.1, -0.2, 0.3] if kind == "multilabel" else None
    clf = TextClassifier(nb_scaling=kind == "nb", stem=False, thresholds=thresholds).fit(texts, y)
    path = tmp_path / "model.npz"
    clf.save(path)
    with open(path, "rb") as fh:
        assert fh.read(2) == b"PK"  # an .npz archive, not a pickle
    back = TextClassifier.load(path)
    np.testing.assert_allclose(back.decision_function(texts), clf.decision_function(texts),
                               atol=1e-12)
    np.testing.assert_array_equal(back.predict(texts), clf.predict(texts))
    assert back.get_params() == {**clf.get_params(), "lam": None, "thresholds": None}
    np.testing.assert_array_equal(back.thresholds_, clf.thresholds_)
    # the duality gaps with the rule they were measured against, as every model file has
    meta = load_model(path).metadata
    assert meta["duality_gap"] == clf.duality_gap_.tolist() and "<= tol" in meta["stopping_rule"]
    # the file is an ordinary model file: textwin predict reads it
    np.testing.assert_array_equal(load_model(path).predict(texts), clf.predict(texts))


def _nbsvm_by_hand(X, positive, lam):
    """NBSVM's scores: log-count ratios of the binary features, columns scaled, the SVM."""
    B = (X > 0).toarray()
    p, q = 1 + B[positive].sum(axis=0), 1 + B[~positive].sum(axis=0)
    r = np.log(p / p.sum()) - np.log(q / q.sum())
    Xr = X.multiply(r).tocsr()
    ref = DualGaussSeidelClassifier(lam=lam, tol=1e-6, random_state=0, **BIAS).fit(Xr, positive)
    return ref.decision_function(Xr)


@pytest.mark.parametrize("classes", [("grain", "money"), ("grain", "money", "oil")])
def test_nb_scaling_is_each_problems_own_and_folded_into_the_weights(classes):
    texts, y = corpus(classes=classes)
    clf = TextClassifier(nb_scaling=True, tol=1e-6).fit(texts, y)
    plain = TextClassifier(nb_scaling=False, tol=1e-6).fit(texts, y)
    assert not np.allclose(clf.coef_, plain.coef_)
    X = TextVectorizer(weighting="tfidf").fit_transform(texts)
    scores = clf.decision_function(texts).reshape(len(texts), -1)
    positives = list(classes[1:]) if len(classes) == 2 else list(classes)
    for k, c in enumerate(positives):  # one-vs-rest: each class its own ratios
        np.testing.assert_allclose(scores[:, k], _nbsvm_by_hand(X, y == c, 1 / len(texts)),
                                   atol=1e-9)


def test_predict_proba_for_the_logistic_loss_or_a_calibration():
    texts, y = corpus()
    clf = TextClassifier(loss="logistic").fit(texts, y)
    p = clf.predict_proba(texts)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (clf.classes_[p.argmax(axis=1)] == clf.predict(texts)).all()
    with pytest.raises(AttributeError) as caught:
        TextClassifier().fit(texts, y).predict_proba(texts)
    assert "probability=True" in str(caught.value.__cause__)


def test_bad_labels_and_texts_say_what_is_wrong():
    texts, y = corpus()
    with pytest.raises(ValueError, match="single class"):
        TextClassifier().fit(texts, ["grain"] * len(texts))
    with pytest.raises(TypeError, match="single string"):
        TextClassifier().fit("one text", ["a"])
    with pytest.raises(ValueError, match="texts but"):
        TextClassifier().fit(texts[:-1], y)
    with pytest.raises(ValueError, match="ngrams=0"):
        TextClassifier(ngrams=0).fit(texts, y)


def test_a_lam_per_category_fits_each_as_the_multilabel_fit_does():
    texts, labels = multilabel_corpus()
    names = sorted(TOPICS)
    Y = np.array([[c in ls for c in names] for ls in labels], dtype=int)
    Y[:, 2] = 0  # a category without texts: a constant model, never predicted
    lams = np.array([0.01, 0.001, 0.01])
    clf = TextClassifier(lam=lams, tol=1e-6).fit(texts, Y)
    X = clf.vectorizer_.transform(texts)
    for k, lam in enumerate(lams[:2]):
        ref = DualGaussSeidelClassifier(lam=lam, tol=1e-6, random_state=0, **BIAS).fit(X, Y)
        np.testing.assert_allclose(clf.coef_[k], ref.coef_[k], atol=1e-6)
    assert not clf.coef_[2].any() and clf.predict(texts)[:, 2].sum() == 0

@pytest.mark.parametrize("task", ["multiclass", "binary", "multilabel"])
@pytest.mark.parametrize("class_weight", [None, "balanced", "dict"])
def test_class_weight_is_the_linear_models_on_the_same_matrix(task, class_weight):
    """TextClassifier(class_weight=...) fits what DualGaussSeidelClassifier(class_weight=...)
    fits on its matrix, a dict naming the classes as the user does (translated to the
    indices the problems see); with the naive Bayes scaling, each problem is that of a
    binary model on its scaled matrix whose positives weigh the class's weight."""
    from textwin.feature_selection import nb_ratios, scale_columns
    from textwin.tasks import problem_positives

    rng = np.random.default_rng(0)
    words = ["grain", "wheat", "corn", "bank", "rate", "loan", "oil", "crude", "ship"]
    texts = [" ".join(rng.choice(words, 5)) for _ in range(90)]
    if task == "multilabel":
        y = [["a"] + (["b"] if i % 3 == 0 else []) + (["c"] if i % 7 == 0 else [])
             for i in range(90)]
        classes = ["a", "b", "c"]
    else:
        classes = ["a", "b", "c"] if task == "multiclass" else ["a", "b"]
        y = np.array([classes[0]] * 60 + [classes[1]] * 20 + [classes[-1]] * 10)
    weight = ({c: w for c, w in zip(classes, (1.0, 3.0, 5.0))} if class_weight == "dict"
              else class_weight)
    clf = TextClassifier(class_weight=weight, tol=1e-9).fit(texts, y)
    X = clf.vectorizer_.transform(texts)
    target = (np.array([[c in labels for c in classes] for labels in y], dtype=int)
              if task == "multilabel" else y)
    by_index = {0: 1.0, 1: 3.0, 2: 5.0}  # an indicator's columns are named by index
    ref = DualGaussSeidelClassifier(
        lam=1 / 90,
        class_weight=by_index if task == "multilabel" and class_weight == "dict" else weight,
        tol=1e-9, random_state=0, **BIAS).fit(X, target)
    np.testing.assert_allclose(clf.coef_, ref.coef_, atol=1e-6)
    if class_weight != "dict" or task == "binary":
        return
    nb = TextClassifier(class_weight=weight, nb_scaling=True, tol=1e-9).fit(texts, y)
    Y = target if task == "multilabel" else (y[:, None] == np.array(classes)).astype(int)
    for k, positives in enumerate(problem_positives(Y, task).T):
        if positives.all():  # a category of every text: a constant model
            continue
        r = nb_ratios(X, positives)
        one = DualGaussSeidelClassifier(lam=1 / 90, class_weight={1: weight[classes[k]]},
                                        tol=1e-9, random_state=0, **BIAS)
        one.fit(scale_columns(X, r), positives.astype(int))
        np.testing.assert_allclose(nb.coef_[k], one.coef_[0] * r, atol=1e-6)


def test_text_classifier_keeps_its_fits_weights_without_a_second_copy(monkeypatch):
    # the refit of --auto on many classes and character n-grams held the fit's K x d
    # weights twice (Reuters 90 titles: 391 MiB against 322): the model's coef_ is the one
    # fit's own array when one fit solves every problem, and a copy per group otherwise
    from textwin.linear import DualGaussSeidelClassifier

    fitted = []
    original = DualGaussSeidelClassifier.fit

    def fit(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        fitted.append(self.coef_)
        return out

    monkeypatch.setattr(DualGaussSeidelClassifier, "fit", fit)
    texts, y = corpus(n_per_class=10, classes=("grain", "money", "oil"))
    clf = TextClassifier().fit(texts, y)
    assert len(fitted) == 1 and clf.coef_ is fitted[0] and clf.coef_.shape[0] == 3
    fitted.clear()
    scaled = TextClassifier(nb_scaling=True).fit(texts, y)  # one fit per class, scaled back
    assert len(fitted) == 3 and all(scaled.coef_ is not w for w in fitted)
    assert scaled.coef_.shape == clf.coef_.shape


def test_scores_of_wide_weights_are_the_products_bit_for_bit():
    """Weights too wide for one block (2^18 features: two classes a block) are multiplied
    a block of classes at a time, each score the same bits as ``X @ coef.T``."""
    import scipy.sparse as sp

    from textwin.persistence import times_transposed

    rng = np.random.default_rng(0)
    X = sp.random(40, 2**18, density=2e-4, format="csr", random_state=0)
    coef = rng.standard_normal((5, 2**18))
    np.testing.assert_array_equal(times_transposed(X, coef), np.asarray(X @ coef.T))


# ---------------------------------------------------------------------------
# Thresholds tuned and probabilities calibrated by the estimator itself
# ---------------------------------------------------------------------------

def _task_data(task):
    if task == "multilabel":
        return multilabel_corpus()
    return corpus(classes=("grain", "money", "oil")[:3 if task == "multiclass" else 2],
                  noise=0.6)


@pytest.mark.parametrize("task,objective", [("multilabel", "f1"), ("multilabel", "breakeven"),
                                            ("binary", "accuracy"), ("binary", "f1"),
                                            ("multiclass", "f1"), ("multiclass", "accuracy")])
def test_thresholds_by_name_are_task_thresholds_of_a_text_classifier_per_fold(task, objective):
    # each fold a whole TextClassifier fitted on the fold's texts (its own vocabulary, idf,
    # lam = 1/n of them), scored on the held-out ones: the estimator's thresholds are the
    # objective's on those scores, on the folds of task_thresholds
    from textwin.model_selection import task_thresholds
    from textwin.tasks import encode_labels

    texts, y = _task_data(task)
    clf = TextClassifier(stem=False, thresholds=objective, threshold_folds=4).fit(texts, y)
    Y, _, found = encode_labels(y, None)
    target = Y[:, 1:] if task == "binary" else Y  # two classes: the positive's problem
    reference = TextClassifier(stem=False, task="multilabel" if task == "binary" else found)
    expected, _ = task_thresholds(reference, texts, target, task, objective, 4)
    assert clf.task_ == task
    np.testing.assert_allclose(clf.thresholds_, expected, rtol=1e-9, atol=1e-12)
    assert np.any(clf.thresholds_ != 0)
    # the model predicts with them, and its model file keeps them
    untuned = TextClassifier(stem=False, thresholds=clf.thresholds_).fit(texts, y)
    np.testing.assert_array_equal(clf.predict(texts), untuned.predict(texts))


def test_a_lam_given_is_the_final_models_c_in_the_folds():
    # lam = 1/n given is lam=None's model; in a fold of m texts both are lam = 1/m (the
    # final model's C = 1), so the calibration and the thresholds are the same
    texts, y = corpus(noise=0.6)
    given = TextClassifier(lam=1 / len(texts), probability=True, thresholds="f1").fit(texts, y)
    default = TextClassifier(probability=True, thresholds="f1").fit(texts, y)
    np.testing.assert_allclose(given.thresholds_, default.thresholds_, rtol=1e-6)
    np.testing.assert_allclose(given.predict_proba(texts), default.predict_proba(texts),
                               rtol=1e-6)
    # a classifier's lam too: the command's road (the registry's method at lam = 1/n)
    classifier = DualGaussSeidelClassifier(lam=1 / len(texts), random_state=0, **BIAS)
    theirs = TextClassifier(classifier=classifier, probability=True,
                            thresholds="f1").fit(texts, y)
    np.testing.assert_allclose(theirs.thresholds_, default.thresholds_, rtol=1e-6)
    np.testing.assert_allclose(theirs.predict_proba(texts), default.predict_proba(texts),
                               rtol=1e-6)


def test_tuned_thresholds_and_calibration_travel_in_the_model_file(tmp_path):
    texts, y = corpus(noise=0.6)
    clf = TextClassifier(thresholds="accuracy", probability=True).fit(texts, y)
    path = tmp_path / "model.npz"
    clf.save(path)
    back, model = TextClassifier.load(path), load_model(path)
    np.testing.assert_array_equal(model.thresholds, clf.thresholds_)
    assert model.calibration.to_json() == clf.calibration_.to_json()
    np.testing.assert_array_equal(back.predict(texts), clf.predict(texts))
    np.testing.assert_array_equal(model.predict(texts), clf.predict(texts))
    np.testing.assert_allclose(back.predict_proba(texts), clf.predict_proba(texts), atol=1e-12)


def test_a_classifier_that_tunes_its_own_thresholds_keeps_them():
    from textwin.model_selection import DualGaussSeidelClassifierCV

    texts, labels = multilabel_corpus()
    clf = TextClassifier(classifier=DualGaussSeidelClassifierCV(thresholds="f1", cv=3)).fit(
        texts, labels)
    np.testing.assert_array_equal(clf.thresholds_, clf.classifier_.thresholds_)
    assert np.any(clf.thresholds_ != 0)


def test_a_thresholds_objective_the_task_cannot_tune_is_refused():
    texts, y = corpus()
    with pytest.raises(ValueError, match="thresholds='breakeven' is not an objective of a "
                                         "multiclass task: give one of 'f1', 'accuracy'"):
        TextClassifier(thresholds="breakeven").fit(texts, y)
    with pytest.raises(ValueError, match="threshold_folds=1"):
        TextClassifier(thresholds="f1", threshold_folds=1).fit(texts, y)


@pytest.mark.parametrize("params, message", [
    (dict(thresholds=[0.1, 0.2]), r"thresholds=\[0.1, 0.2\]: give one number or one per "
                                   r"class \(3 here\), not 2"),
    (dict(thresholds=[[0.1] * 3]), r"one per class \(3 here\), not an array of shape \(1, 3\)"),
    (dict(thresholds=[0.1, np.nan, 0.0]), "give numbers, not NaN"),
    (dict(thresholds=["high"] * 3), r"give one number or one per class \(3 here\)$"),
    (dict(lam=[0.1, 0.2]), r"lam=\[0.1, 0.2\]: give one number, not 2"),
])
def test_thresholds_and_lam_of_the_wrong_length_are_refused_in_the_estimators_words(
        params, message):
    # not numpy's "operands could not be broadcast together"
    texts, y = corpus(classes=("grain", "money", "oil"))
    with pytest.raises(ValueError, match=message):
        TextClassifier(**params).fit(texts, y)


def test_a_threshold_per_class_and_inf_are_taken_as_given():
    texts, y = corpus(classes=("grain", "money", "oil"))
    clf = TextClassifier(thresholds=[0.0, 0.5, np.inf]).fit(texts, y)
    assert clf.thresholds_.tolist() == [0.0, 0.5, np.inf]
    assert "oil" not in set(clf.predict(texts))  # +inf: the class is never given
    with pytest.raises(ValueError, match=r"give one number \(the positive class's\), not 2"):
        TextClassifier(thresholds=[0.1, 0.2]).fit(*corpus(classes=("grain", "money")))


def test_score_takes_label_lists_as_fit_does():
    # fit took label lists, score raised scikit-learn's "legacy multi-label data
    # representation" error on them
    from sklearn.metrics import accuracy_score
    from sklearn.preprocessing import MultiLabelBinarizer

    from textwin import TextClassifierCV

    texts, labels = multilabel_corpus(n=160)
    train, test = slice(0, 120), slice(120, None)
    clf = TextClassifier().fit(texts[train], labels[train])
    truth = [list(labs) for labs in labels[test]]
    right = [i for i, row in enumerate(clf.predict(texts[test]))
             if sorted(np.asarray(clf.classes_)[row == 1]) == sorted(truth[i])]
    assert len(right) > len(truth) / 2
    truth[right[0]] = [*truth[right[0]], "unseen"]  # a category the model never saw: a miss
    truth[right[1]] = [c for c in clf.classes_ if c not in truth[right[1]]][:1]  # a miss
    names = [*clf.classes_, "unseen"]
    expected = accuracy_score(MultiLabelBinarizer(classes=names).fit_transform(truth),
                              np.pad(clf.predict(texts[test]), ((0, 0), (0, 1))))
    assert clf.score(texts[test], truth) == pytest.approx(expected, abs=0)
    assert expected == (len(right) - 2) / len(truth)
    search = TextClassifierCV(n_jobs=1).fit(texts[train], labels[train])
    assert search.score(texts[test], truth) == pytest.approx(accuracy_score(
        MultiLabelBinarizer(classes=names).fit_transform(truth),
        np.pad(search.predict(texts[test]), ((0, 0), (0, 1)))), abs=0)
    # one label per text given as lists: the accuracy of the classes
    texts, y = corpus()
    one = TextClassifier().fit(texts, y)
    assert one.score(texts, [[label] for label in y]) == one.score(texts, y) > 0.5
