"""textwin/cli/report.py: what `train` and `eval` print beside their tables (the task and
the example order in words, the constant models' note, --lam auto's line, its plot). The
commands run as users run them are in tests/test_cli*.py."""
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest

from textwin._io import is_textwin_figure
from textwin.cli.common import CLIError
from textwin.cli.corpus import TrainingData
from textwin.cli.report import (
    check_outputs,
    constant_note,
    cv_line,
    order_text,
    plot_cv,
    positive_label,
    task_text,
    try_plot,
)
from textwin.datasets import TrainingSet


def _data(task, categories, Y_test, constant=None):
    return TrainingData.of(TrainingSet("test", categories, task, None, None, None,
                                       np.asarray(Y_test), constant=constant or {}),
                           vocabulary={})


def test_order_text_says_the_seed_of_a_shuffle():
    assert order_text({"shuffle": True, "random_state": 0}) == \
        "a random example order each epoch (seed 0)"
    assert order_text({"shuffle": False}) == "examples in data order"
    assert order_text({}) == "the method's own example order"


def test_a_two_class_corpus_names_its_positive_class():
    d = _data("binary", ["no", "yes"], np.zeros((1, 2)))
    assert task_text(d).endswith("; positive class: yes")
    assert positive_label(d) == {"positive_label": "yes"}
    assert positive_label(_data("multiclass", ["a", "b", "c"], np.zeros((1, 3)))) == {}


def test_constant_note_counts_the_test_positives_a_constant_model_misses():
    Y_test = [[1, 0], [1, 1], [0, 1]]
    one = _data("multilabel", ["a", "b"], Y_test, {"b": "no training document"})
    assert constant_note(one) == ("b: a constant model (no training document) ranks nothing: "
                                  "no break-even point; micro-BEP and macro-BEP count its 2 "
                                  "test positives as missed")
    both = _data("multilabel", ["a", "b"], Y_test,
                 {"a": "no training document", "b": "in every training document"})
    assert constant_note(both).startswith("2 categories have a constant model")
    assert "their 4 test positives" in constant_note(both)
    assert constant_note(_data("multilabel", ["a", "b"], Y_test)) is None


CV = {"lam": {"all": 0.01}, "shared": True, "folds": 5, "lams": [1.0, 0.1, 0.01],
      "scoring": "accuracy", "cv_score": 0.9123, "curves": {"all": [0.5, 0.8, 0.9123]}}


def test_cv_line_is_one_line_with_the_grid_and_the_choice():
    assert cv_line(CV, "svm") == ("svm: lambda by 5-fold cross-validation on the training set "
                                  "over 3 values from 1 to 0.01 (accuracy 91.23): all 0.01")
    per_class = {**CV, "shared": False, "lam": {"acq": 0.1, "earn": 0.01}}
    assert cv_line(per_class).endswith("acq 0.1, earn 0.01")


def test_check_outputs_refuses_before_any_training(tmp_path):
    base = dict(output=None, force=False)
    with pytest.raises(CLIError, match="give a .png, .pdf or .svg file"):
        check_outputs(Namespace(plot=tmp_path / "cv.txt", **base))
    with pytest.raises(CLIError, match="the plot would replace the model"):
        check_outputs(Namespace(plot=tmp_path / "m.png", output=tmp_path / "m.png", force=False))
    notes = tmp_path / "notes.npz"
    notes.write_bytes(b"a user's file, not a model")
    with pytest.raises(CLIError, match="cannot write the model to"):
        check_outputs(Namespace(plot=None, output=notes, force=False))
    assert notes.read_bytes() == b"a user's file, not a model"
    check_outputs(Namespace(plot=None, output=notes, force=True))  # --force: replaced later
    check_outputs(Namespace(plot=None, **base))  # nothing to write: nothing checked


def test_plot_cv_writes_a_figure_textwin_recognises(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "cv.png"
    plot_cv({"svm": CV}, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and is_textwin_figure(path)
    failed = try_plot({"svm": CV}, Path(path / "cv.png"))  # under a file: no folder
    assert isinstance(failed, CLIError) and "cannot write the plot" in str(failed)
