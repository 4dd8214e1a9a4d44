"""Readers of users' own corpora: JSON Lines, a folder per category, svmlight."""
import json

import numpy as np
import pytest

from textwin.corpora import CorpusError, load_corpus, read_folder, read_jsonl, read_svmlight


def _write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_jsonl_with_split_and_multilabel(tmp_path):
    path = _write_jsonl(tmp_path / "c.jsonl", [
        {"text": "wheat harvest", "labels": ["grain", "wheat"], "split": "train"},
        {"text": "oil price", "labels": ["crude"], "split": "train"},
        {"text": "nothing here", "labels": [], "split": "train"},
        {"text": "corn and wheat", "labels": ["grain"], "split": "test", "id": "t1"},
        {"text": "opec", "labels": "crude", "split": "test"},
    ])
    c = load_corpus(path)
    assert c.is_text and c.target_names == ["crude", "grain", "wheat"]
    assert c.train == ["wheat harvest", "oil price", "nothing here"]
    assert c.test == ["corn and wheat", "opec"]
    np.testing.assert_array_equal(c.Y_train, [[0, 1, 1], [1, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(c.Y_test, [[0, 1, 0], [1, 0, 0]])
    assert c.ids_test == ["t1", "5"]
    assert c.Y_train.dtype == np.uint8


def test_jsonl_random_split_is_seeded(tmp_path):
    path = _write_jsonl(tmp_path / "c.jsonl", [
        {"text": f"doc {i}", "labels": ["a"] if i % 3 else ["b"]} for i in range(40)])
    a = read_jsonl(path, test_size=0.25, random_state=1)
    b = read_jsonl(path, test_size=0.25, random_state=1)
    c = read_jsonl(path, test_size=0.25, random_state=2)
    assert len(a.test) == 10 and len(a.train) == 30
    assert a.test == b.test and a.test != c.test
    assert sorted(a.train + a.test) == sorted(f"doc {i}" for i in range(40))


@pytest.mark.parametrize("line, message", [
    ("{not json", r"c.jsonl:2: not valid JSON"),
    ('{"labels": ["a"]}', r'c.jsonl:2: each line needs a "text"'),
    ('{"text": "x", "labels": {"a": 1}}', r'"labels" must be a list'),
    ('{"text": "x", "labels": ["a"], "split": "dev"}', "some lines have a \"split\""),
])
def test_jsonl_errors_name_the_line(tmp_path, line, message):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "ok", "labels": ["a"]}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=message):
        read_jsonl(path)


def test_jsonl_bad_split_value_and_no_labels(tmp_path):
    path = _write_jsonl(tmp_path / "c.jsonl", [
        {"text": "a", "labels": ["x"], "split": "train"},
        {"text": "b", "labels": ["x"], "split": "dev"}])
    with pytest.raises(CorpusError, match='split must be "train" or "test"'):
        read_jsonl(path)
    path = _write_jsonl(tmp_path / "n.jsonl", [{"text": "a"}, {"text": "b"}])
    with pytest.raises(CorpusError, match="no document has a label"):
        read_jsonl(path)


def test_folder_per_category_multilabel_by_file_name(tmp_path):
    root = tmp_path / "news"
    for cat, files in {"grain": ["1.txt", "2.txt", "3.txt"], "wheat": ["2.txt"],
                       "crude": ["4.txt", "5.txt", "6.txt", "7.txt"]}.items():
        (root / cat).mkdir(parents=True)
        for f in files:
            (root / cat / f).write_text(f"story {f}", encoding="utf-8")
    (root / "crude" / "8.txt").write_bytes("caf\xe9 latin-1".encode("latin-1"))
    c = read_folder(root, test_size=0.25, random_state=0)
    assert c.target_names == ["crude", "grain", "wheat"]
    docs = dict(zip(c.ids_train + c.ids_test, c.train + c.test))
    Y = dict(zip(c.ids_train + c.ids_test, list(c.Y_train) + list(c.Y_test)))
    assert len(docs) == 8
    np.testing.assert_array_equal(Y["2.txt"], [0, 1, 1])  # in grain and wheat
    assert docs["8.txt"] == "caf\xe9 latin-1"
    assert len(c.test) == 2


def test_folder_with_train_and_test(tmp_path):
    for split, n in (("train", 3), ("test", 2)):
        for cat in ("a", "b"):
            d = tmp_path / split / cat
            d.mkdir(parents=True)
            for i in range(n):
                (d / f"{cat}{i}").write_text(f"{cat} text {i}")
    c = load_corpus(tmp_path)
    assert len(c.train) == 6 and len(c.test) == 4
    assert all(i.startswith("test/") for i in c.ids_test)


def test_empty_folder(tmp_path):
    with pytest.raises(CorpusError, match="no documents found"):
        load_corpus(tmp_path)


SVM_TRAIN = """\
1 1:1 3:1
2 2:1 4:0.5
1,2 1:1 2:1
2
1 3:1 5:1
"""


def test_svmlight_train_and_test(tmp_path):
    (tmp_path / "train.svm").write_text(SVM_TRAIN)
    (tmp_path / "test.svm").write_text("3 1:1\n1 3:1 6:1\n")
    c = load_corpus(tmp_path / "train.svm", test_path=tmp_path / "test.svm")
    assert c.kind == "vectors" and c.target_names == ["1", "2", "3"]
    assert c.train.shape == (5, 6) and c.test.shape == (2, 6)  # widths aligned
    np.testing.assert_array_equal(c.Y_train, [[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 1, 0],
                                              [1, 0, 0]])
    assert c.train[3].nnz == 0  # a label-only line is an empty document
    assert c.train[1, 3] == 0.5  # 1-based indices


def test_svmlight_held_out_split_and_errors(tmp_path):
    (tmp_path / "all.svm").write_text(SVM_TRAIN * 4)
    c = read_svmlight(tmp_path / "all.svm", test_size=0.25, random_state=3)
    assert c.train.shape[0] == 15 and c.test.shape[0] == 5
    (tmp_path / "bad.svm").write_text("1 1:1\n1 x:y\n")
    with pytest.raises(CorpusError, match="not a valid svmlight file"):
        load_corpus(tmp_path / "bad.svm")
    with pytest.raises(CorpusError, match="only for svmlight"):
        load_corpus(tmp_path, test_path=tmp_path / "all.svm")


def test_missing_corpus(tmp_path):
    with pytest.raises(CorpusError, match="corpus not found"):
        load_corpus(tmp_path / "nope.jsonl")
