"""textwin/datasets/_training_set.py: a labelled corpus resolved once for a fit (the
categories asked for, the task, a two-class corpus's positive class, the constant models
and why, how texts become rows, a corpus of feature values' --features K). The commands
that read corpora through it are tested as users run them in tests/test_cli_corpus.py."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from textwin.corpora import CorpusError, CustomCorpus, corpus_from_labels
from textwin.datasets import TextRows, TrainingSet, UnknownCategoryError, resolve_categories
from textwin.experiments import UnknownCategoryError as ExperimentsUnknownCategoryError
from textwin.experiments import resolve_categories as experiments_resolve_categories
from textwin.feature_selection import top_columns
from textwin.text import UNSPACED_CHARS

GERMAN = ["Ich sage es dir: der Hund und die Katze sind nicht auf dem Dach, das ist ein "
          "Bericht des Tages mit einer Frage zu den Kindern.",
          "Wir haben es nicht gewusst, aber die Leute in der Stadt sind mit dem Zug zu "
          "ihren Eltern gefahren, und das war auch gut so."] * 4
CHINESE = ["今天天气很好我们去公园散步", "股票市场下跌投资者担心经济衰退",
           "银行利率上升经济增长放缓", "阳光明媚适合出门旅行"] * 3


def _corpus(texts, labels, n_test=2, source="toy"):
    return corpus_from_labels(texts[n_test:], labels[n_test:], texts[:n_test], labels[:n_test],
                              source=source)


def test_the_categories_keep_their_import_path_and_name_the_closest():
    assert experiments_resolve_categories is resolve_categories
    assert ExperimentsUnknownCategoryError is UnknownCategoryError
    names = ["acq", "corn", "money-fx", "sports, games"]
    assert resolve_categories("acq, corn", names) == ["acq", "corn"]
    assert resolve_categories("sports, games", names) == ["sports, games"]  # one name
    assert resolve_categories(["corn"], names) == ["corn"]
    assert resolve_categories("all", names) == names
    with pytest.raises(UnknownCategoryError, match=r"unknown category 'aqc' \(closest: acq\)"):
        resolve_categories("aqc", names)
    with pytest.raises(UnknownCategoryError, match="'acq' is listed more than once"):
        resolve_categories("acq,acq", names)


def test_a_two_class_corpus_puts_the_positive_label_last():
    texts = [f"text {i} {'bad' if i % 2 else 'good'}" for i in range(12)]
    labels = [["offense" if i % 2 else "other"] for i in range(12)]
    corpus = _corpus(texts, labels)
    assert corpus.target_names == ["offense", "other"]  # the label order: other is last
    plain = TrainingSet.of(corpus)
    assert plain.task == "binary" and plain.problem_names == ["other"]
    ts = TrainingSet.of(corpus, positive_label="offense")
    assert ts.categories == ["other", "offense"] and ts.problem_names == ["offense"]
    # the columns move with their names: offense's column is the odd texts'
    assert ts.Y_train[:, 1].tolist() == [i % 2 for i in range(2, 12)]
    assert ts.Y_test[:, 1].tolist() == [0, 1]
    same = TrainingSet.of(corpus, positive_label="other")
    assert same.categories == ["offense", "other"]
    with pytest.raises(CorpusError, match=r"--positive-label 'offence' is not a class of toy: "
                                          "give offense or other"):
        TrainingSet.of(corpus, positive_label="offence")


def test_the_positive_label_is_for_two_classes_and_the_task_is_read_once():
    texts = [f"text {i}" for i in range(12)]
    corpus = _corpus(texts, [[c] for c in "abc" * 4])
    assert TrainingSet.of(corpus).task == "multiclass"
    with pytest.raises(CorpusError, match=r"is for a two-class corpus; toy is multiclass "
                                          r"\(3 categories\)"):
        TrainingSet.of(corpus, positive_label="a")
    both = _corpus(texts, [["a", "b"]] + [["a"]] * 11)
    assert TrainingSet.of(both).task == "multilabel"
    with pytest.raises(CorpusError, match=r"toy: a multi-class task needs exactly one label "
                                          r".*\(--task multilabel\)"):
        TrainingSet.of(both, task="multiclass")


def test_constant_categories_carry_their_reason_and_named_ones_are_errors():
    texts = [f"text {i}" for i in range(10)]
    labels = [["rare"], ["rare"]] + [["common", "x" if i % 2 else "y"] for i in range(8)]
    corpus = _corpus(texts, labels)  # rare only in the test part, common in every training text
    ts = TrainingSet.of(corpus)
    assert ts.constant == {"common": "in every training document",
                           "rare": "no training document"}
    with pytest.warns(UserWarning, match=r"2 categories of toy cannot be learned and get a "
                                         r"constant model: rare \(no training document\), "
                                         r"common \(in every training document\)"):
        assert ts.check_trainable() == ts.constant
    assert not TrainingSet.of(corpus, "all").named  # every category: kept, not refused
    named = TrainingSet.of(corpus, "rare,x")
    assert named.constant == {"rare": "no training document"}
    with pytest.raises(CorpusError, match="category 'rare' has no training document in toy; "
                                          "a classifier needs positive examples"):
        named.check_trainable()
    with pytest.raises(CorpusError, match="every training document of the set is in "
                                          "category 'common'; a classifier needs negative"):
        TrainingSet.of(corpus, "common").check_trainable("the set")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TrainingSet.of(corpus, "x,y").check_trainable() == {}


def test_no_learnable_category_at_all_is_an_error_even_for_all():
    corpus = _corpus([f"t {i}" for i in range(6)], [["only"]] * 6)
    with pytest.raises(CorpusError, match="every training document of toy is in category "
                                          "'only'"):
        TrainingSet.of(corpus).check_trainable()


def test_the_language_is_read_from_the_texts_once():
    corpus = _corpus(GERMAN, [["a"], ["b"]] * 4)
    rows = TrainingSet.of(corpus).rows
    assert (rows.language, rows.language_from, rows.stem) == ("german", "texts", True)
    assert rows.params() == {"weighting": "tfidf", "stem": True, "ngrams": 1,
                             "language": "german", "min_df": 1, "chars": None}
    given = TextRows.of(GERMAN, language="english")
    assert (given.language, given.language_from) == ("english", "given")
    words = TextRows.of(GERMAN, stem=False, language="german")  # no stemming: no language
    assert (words.language, words.stem) == ("english", False)
    titles = TextRows.of(["GRAIN PRICES UP", "COCOA REVIEW"])
    assert (titles.language, titles.language_from) == ("english", "default")


def test_an_unspaced_script_is_read_as_character_ngrams():
    corpus = _corpus(CHINESE, [["weather"], ["finance"], ["finance"], ["weather"]] * 3)
    rows = TrainingSet.of(corpus).rows
    assert rows.script and rows.chars == UNSPACED_CHARS and rows.ngrams == 0
    assert rows.params()["chars"] == UNSPACED_CHARS
    with_words = TextRows.of(CHINESE, ngrams=2)
    assert with_words.chars == UNSPACED_CHARS and with_words.ngrams == 2
    given = TextRows.of(CHINESE, chars=(2, 4))
    assert (given.chars, given.script, given.ngrams) == ((2, 4), None, 1)
    spaced = TextRows.of(GERMAN)
    assert (spaced.chars, spaced.script) == (None, None)


def test_feature_values_keep_the_columns_of_highest_information_gain():
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.random((40, 12)) < 0.3, dtype=np.float64)
    y = np.asarray(X[:, 5].toarray().ravel() > 0, dtype=np.uint8)  # column 5 tells the class
    Y = np.column_stack([1 - y, y])
    corpus = CustomCorpus(X[:30], X[30:], Y[:30], Y[30:], ["no", "yes"], "vectors", "toy.svm")
    ts = TrainingSet.of(corpus, features=3)
    assert ts.rows is None and not ts.is_text
    assert ts.support.tolist() == top_columns(X[:30], Y[:30], 3).tolist()
    assert 5 in ts.support.tolist()
    assert (ts.train != X[:30][:, ts.support]).nnz == 0 and ts.test.shape == (10, 3)
    every = TrainingSet.of(corpus, features=12)
    assert every.support is None and every.train.shape == (30, 12)
