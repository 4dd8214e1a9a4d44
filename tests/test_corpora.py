"""Readers of users' own corpora: JSON Lines, a folder per category, svmlight."""
import json
import os

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
    ('{"text": "x", "labels": {"a": 1}}', r'c.jsonl:2: "labels" must be a category name or a list'),
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
    path = _write_jsonl(tmp_path / "l.jsonl", [  # a list is no split (and not hashable)
        {"text": "a", "labels": ["x"], "split": ["train"]},
        {"text": "b", "labels": ["x"], "split": {"name": "test"}}])
    with pytest.raises(CorpusError, match=r"""split must be "train" or "test", found \[\['train'\], """):
        read_jsonl(path)
    path = _write_jsonl(tmp_path / "n.jsonl", [{"text": "a", "labels": []}, {"text": "b"}])
    with pytest.raises(CorpusError, match=r'n.jsonl:2: no "labels" field.*--allow-unlabeled'):
        read_jsonl(path)
    with pytest.raises(CorpusError, match="no document has a label"):
        read_jsonl(path, allow_unlabeled=True)
    for key in ("labels", "label"):  # present but null: it said there was no field
        path = _write_jsonl(tmp_path / "z.jsonl", [{"text": "a", "labels": ["x"]},
                                                   {"text": "b", key: None}])
        with pytest.raises(CorpusError, match=f'z.jsonl:2: "{key}" is null.*--allow-unl'):
            read_jsonl(path)


def test_jsonl_single_label_field_is_a_single_label_corpus(tmp_path):
    # as Hugging Face datasets and pandas' to_json(orient="records", lines=True) write it
    path = _write_jsonl(tmp_path / "c.jsonl", [
        {"text": f"doc {i}", "label": ["neg", "pos", 2][i % 3]} for i in range(9)])
    c = read_jsonl(path)
    assert c.target_names == ["2", "neg", "pos"] and c.task == "multiclass"
    docs = dict(zip(c.train + c.test, list(c.Y_train) + list(c.Y_test)))
    np.testing.assert_array_equal(docs["doc 1"], [0, 0, 1])
    np.testing.assert_array_equal(docs["doc 2"], [1, 0, 0])
    both = _write_jsonl(tmp_path / "b.jsonl", [{"text": "a", "label": "x", "labels": ["y"]}])
    with pytest.raises(CorpusError, match=r'b.jsonl:1: both "labels" and "label"'):
        read_jsonl(both)


def test_jsonl_unlabelled_needs_the_option(tmp_path):
    path = _write_jsonl(tmp_path / "u.jsonl", [
        {"text": f"doc {i}", "labels": ["x"] if i % 2 else []} for i in range(6)]
        + [{"text": "no labels field"}, {"text": "   "}])
    with pytest.raises(CorpusError, match=r"u.jsonl:7: no \"labels\""):
        read_jsonl(path)
    with pytest.warns(UserWarning, match=r"skipped 1 row: 1 row with an empty text"):
        c = read_jsonl(path, allow_unlabeled=True, test_size=0.25)
    assert len(c.train) + len(c.test) == 7  # an empty text is skipped, as in CSV
    assert c.report["unlabeled"] == 4 and c.report["skipped"] == {"empty_text": [f"{path}:8"]}


@pytest.mark.parametrize("labels, message", [
    ([True], r'c.jsonl:3: "labels" must be a category name or a list of them .*not \[true\]'),
    (True, r'c.jsonl:3: "labels" must be .*not true'),
    ([""], r"c.jsonl: document 3 has an empty category name"),
    (["  "], r"c.jsonl: document 3 has an empty category name"),
    (["-"], r"c.jsonl: document 3 has the category '-', the mark of no category"),
])
def test_labels_that_are_not_labels_are_refused(tmp_path, labels, message):
    path = _write_jsonl(tmp_path / "c.jsonl", [
        {"text": "a", "labels": ["x"]}, {"text": "b", "labels": ["y"]},
        {"text": "c", "labels": labels}, {"text": "d", "labels": ["x"]}])
    with pytest.raises(CorpusError, match=message):
        read_jsonl(path)


def test_white_space_around_a_label_is_dropped_and_said(tmp_path):
    path = _write_jsonl(tmp_path / "c.jsonl", [
        {"text": f"t{i}", "labels": [["food", "food ", " sport"][i % 3]]} for i in range(9)])
    with pytest.warns(UserWarning, match=r"c.jsonl: 2 category names with white space around, "
                                         r"read without it: 'food ' as 'food', ' sport' as"):
        c = read_jsonl(path)
    assert c.target_names == ["food", "sport"]  # not a second food
    assert c.report["categories"]["food"]["train"] + c.report["categories"]["food"]["test"] == 6


def test_a_category_folder_named_like_no_category_is_refused(tmp_path):
    for cat in ("a", "-"):
        (tmp_path / cat).mkdir()
        for i in range(3):
            (tmp_path / cat / f"{i}.txt").write_text(f"{cat} text {i}")
    with pytest.raises(CorpusError, match=r"document -/0.txt has the category '-'"):
        read_folder(tmp_path)


def test_folder_multilabel_only_for_same_name_and_identical_bytes(tmp_path):
    root = tmp_path / "news"
    for cat, files in {"grain": ["1.txt", "2.txt", "3.txt"], "wheat": ["2.txt"],
                       "crude": ["4.txt", "5.txt", "6.txt", "7.txt"]}.items():
        (root / cat).mkdir(parents=True)
        for f in files:
            (root / cat / f).write_text(f"story {f}", encoding="utf-8")
    (root / "crude" / "8.txt").write_bytes("caf\xe9 latin-1".encode("latin-1"))
    (root / "crude" / "1.txt").write_text("another story under a taken name")
    (root / "crude" / "9.txt").write_text("story 3.txt")  # grain/3.txt's bytes, another name
    c = read_folder(root, test_size=0.25, random_state=0)
    assert c.target_names == ["crude", "grain", "wheat"]
    docs = dict(zip(c.ids_train + c.ids_test, c.train + c.test))
    Y = dict(zip(c.ids_train + c.ids_test, list(c.Y_train) + list(c.Y_test)))
    assert len(docs) == 10  # 11 files, two of them one name and the same bytes
    np.testing.assert_array_equal(Y["grain/2.txt"], [0, 1, 1])  # in grain and wheat
    np.testing.assert_array_equal(Y["grain/1.txt"], [0, 1, 0])  # same name, other text:
    np.testing.assert_array_equal(Y["crude/1.txt"], [1, 0, 0])  # two documents
    assert docs["crude/8.txt"] == "caf\xe9 latin-1"
    assert c.report["merged"] == {"files": 2, "documents": 1}
    assert c.task == "multilabel"  # grain/2.txt is in wheat too
    np.testing.assert_array_equal(Y["crude/9.txt"], [1, 0, 0])  # a duplicate: its own
    assert docs["crude/9.txt"] == docs["grain/3.txt"]
    assert c.report["categories"]["crude"]["train"] + c.report["categories"]["crude"]["test"] == 7


def test_folder_with_colliding_names_reads_every_file(tmp_path):
    # as in a corpus whose files are numbered from 1 in every class folder
    counts = {"train": {"alt": 7, "comp": 5, "sci": 6}, "test": {"alt": 3, "comp": 4, "sci": 2}}
    for split, per_cat in counts.items():
        for cat, n in per_cat.items():
            d = tmp_path / split / cat
            d.mkdir(parents=True)
            for i in range(1, n + 1):
                (d / str(i)).write_text(f"{cat} message {i} of {split}")
    c = load_corpus(tmp_path)
    assert (len(c.train), len(c.test)) == (18, 9)
    assert (c.Y_train.sum(axis=1) == 1).all() and (c.Y_test.sum(axis=1) == 1).all()
    for split, Y in (("train", c.Y_train), ("test", c.Y_test)):
        assert dict(zip(c.target_names, Y.sum(axis=0).tolist())) == counts[split]
        assert {k: v[split] for k, v in c.report["categories"].items()} == counts[split]
    assert c.report["documents"] == {"train": 18, "test": 9}
    assert c.report["skipped"] == {} and "merged" not in c.report
    assert c.task == "multiclass"


def test_folder_skips_hidden_empty_and_binary_files_and_says_so(tmp_path):
    for cat in ("a", "b"):
        (tmp_path / cat).mkdir()
        for i in range(4):
            (tmp_path / cat / f"{i}.txt").write_text(f"{cat} text {i}")
    (tmp_path / "a" / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (tmp_path / "a" / ".git").mkdir()
    (tmp_path / "a" / ".git" / "HEAD").write_text("ref: refs/heads/main")
    (tmp_path / "a" / "blank.txt").write_text("  \n\t\n")
    (tmp_path / "b" / "zero.txt").write_bytes(b"")
    (tmp_path / "b" / "image.png").write_bytes(bytes(range(256)) * 4)  # has NUL
    (tmp_path / "b" / "noise.bin").write_bytes(bytes(range(1, 32)) * 20 + b"some text")
    (tmp_path / "README").write_text("about this corpus")
    (tmp_path / "b" / "latin1.txt").write_bytes("na\xefve r\xe9sum\xe9 text".encode("latin-1"))
    with pytest.warns(UserWarning) as caught:
        c = read_folder(tmp_path)
    assert len(caught) == 1  # one warning for everything skipped
    message = str(caught[0].message)
    assert "skipped 5 files" in message and "2 binary" in message and "2 empty" in message
    assert "1 not inside a category folder (README)" in message
    assert len(c.train) + len(c.test) == 9  # 8 texts + the latin-1 one
    sk = c.report["skipped"]
    assert sorted(sk["binary"]) == ["b/image.png", "b/noise.bin"]
    assert sorted(sk["empty"]) == ["a/blank.txt", "b/zero.txt"]
    assert sorted(sk["hidden"]) == ["a/.DS_Store", "a/.git/"]
    assert sk["outside"] == ["README"]
    assert any("skipped 2 binary" in line for line in c.describe())


@pytest.mark.parametrize("raw, binary", [
    (b"plain text\n", False),
    ("caf\xe9 cr\xe8me".encode("latin-1"), False),        # latin-1 letters
    ("\u65e5\u672c\u8a9e\u306e\u6587\u7ae0".encode("utf-8"), False),  # UTF-8, all >= 0x80
    (b"\x1b[1mbold\x1b[0m\x0c", False),                   # ESC and form feed are text
    (b"text\x00more", True),                               # NUL
    (bytes(range(128, 256)) * 10, True),                   # not UTF-8, all high bytes
    (b"\x01\x02\x03\x04 ab", True),                       # controls
])
def test_looks_binary(raw, binary):
    from textwin.corpora import looks_binary

    assert looks_binary(raw) is binary


def test_a_long_utf8_text_cut_inside_a_character_is_text():
    # Cyrillic: two bytes a letter, every one >= 0x80; the 8 KiB sample ends inside one
    from textwin.corpora import looks_binary

    raw = ("a" + "\u0436" * 5000).encode("utf-8")  # the sample's last byte starts a letter
    assert raw[8191] >= 0xC0 and not looks_binary(raw)
    assert looks_binary(b"\xd0" * 9000)  # lead bytes alone: not UTF-8, not text


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
    with pytest.raises(CorpusError, match="bad.svm:2: feature index 'x' is not an integer"):
        load_corpus(tmp_path / "bad.svm")
    (tmp_path / "t.jsonl").write_text('{"text": "a", "labels": ["1"]}\n')
    with pytest.raises(CorpusError, match=r"t.jsonl holds texts but .*all.svm holds feature "
                                          r"vectors \(svmlight\): give a test set of the same"):
        load_corpus(tmp_path / "all.svm", test_path=tmp_path / "t.jsonl")


def test_missing_corpus(tmp_path):
    with pytest.raises(CorpusError, match="corpus not found"):
        load_corpus(tmp_path / "nope.jsonl")


@pytest.mark.parametrize("line, message", [
    ("1 2147483648:1", r"x.svm:3: feature index 2147483648 is 2\^31 or more"),
    ("1 99999999999999999999:1", r"x.svm:3: feature index 99999999999999999999 is 2\^31"),
    ("a 1:1", r"x.svm:3: label 'a' is not a number"),
    ("nan 1:1", r"x.svm:3: label 'nan' is not a category \(a finite number\)"),
    ("1,inf 1:1", r"x.svm:3: label 'inf' is not a category"),
    ("1 1:x", r"x.svm:3: value 'x' of feature 1 is not a number"),
    ("1 0:1", r"x.svm:3: feature index 0 is below 1"),
    ("1 3:1 2:1", r"x.svm:3: feature index 2 after 3"),
    ("1 2:nan", r"x.svm:3: feature 2 has the value nan"),
    ("1 2:1 junk", r"x.svm:3: 'junk' is not index:value"),
])
def test_svmlight_errors_name_the_line(tmp_path, line, message):
    path = tmp_path / "x.svm"
    path.write_text(f"1 1:1\n# a comment line\n{line}\n2 2:1\n")
    with pytest.raises(CorpusError, match=message) as err:
        load_corpus(path)
    assert "\n" not in str(err.value)


def test_svmlight_feature_space_beyond_memory_is_refused(tmp_path, monkeypatch):
    from textwin.datasets import _svmlight as corpora

    path = tmp_path / "wide.svm"
    path.write_text("1 1:1 5:1\n2 2:1\n1,2 3:1 2000000000:0.5\n2 4:1\n")
    monkeypatch.setattr(corpora, "available_memory", lambda: 2**30)
    with pytest.raises(CorpusError, match=r"wide.svm:3: feature index 2000000000 .*about "
                                          r"74.5 GiB \(2 categories x 2,000,000,000 features"):
        load_corpus(path)
    # Training holds about two float64 vectors of weights per category and one more
    # (measured: a binary problem over 10^8 features peaked at 2.9 x 8 x 10^8 bytes,
    # five categories at 9.7 x): 32 GiB holds the weights (29.8 GiB), not the training,
    # which the kernel ended by killing the process.
    monkeypatch.setattr(corpora, "available_memory", lambda: 32 * 2**30)
    with pytest.raises(CorpusError, match=r"74.5 GiB .* the memory available \(32.0 GiB\)"):
        load_corpus(path)
    monkeypatch.setattr(corpora, "available_memory", lambda: 2**40)
    with pytest.warns(UserWarning, match=r"wide.svm:3: .*74.5 GiB .* only 6 features are used"):
        c = load_corpus(path)  # sparse: read when the training fits, with a warning
    assert c.train.shape[1] == 2_000_000_000


def test_svmlight_feature_space_mostly_unused_gets_a_warning(tmp_path, recwarn):
    # one index of 10^8 in a 300-line file: training took 4.8 GB and 43 s, silently
    rng = np.random.default_rng(0)
    lines = [f"{i % 3} " + " ".join(f"{j}:1" for j in sorted(rng.choice(50, 5, replace=False)
                                                            + 1)) for i in range(300)]
    lines[122] += " 100000000:1"
    (tmp_path / "far.svm").write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning) as caught:
        c = load_corpus(tmp_path / "far.svm")
    assert [str(w.message) for w in caught] == [
        f"{tmp_path / 'far.svm'}:123: feature index 100000000 makes a feature space whose "
        "training needs about 5.2 GiB (3 categories x 100,000,000 features, float64 "
        "weights), though only 51 features are used: renumber the features from 1 without "
        "gaps to save that memory and time"]
    assert c.train.shape[1] == 100_000_000
    lines[122] = "1 1:1"
    (tmp_path / "near.svm").write_text("\n".join(lines) + "\n")
    load_corpus(tmp_path / "near.svm")
    assert not recwarn.list  # 50 features, all used: nothing to say
    (tmp_path / "test.svm").write_text("1 1:1\n2 2:1\n0 3:1 100000000:1\n")
    with pytest.warns(UserWarning, match=r"test.svm:3: feature index 100000000 makes"):
        load_corpus(tmp_path / "near.svm", test_path=tmp_path / "test.svm")  # the test file's


def test_missing_test_corpus_is_named(tmp_path):
    (tmp_path / "train.svm").write_text(SVM_TRAIN)
    with pytest.raises(CorpusError, match="test corpus not found: .*nope.svm"):
        load_corpus(tmp_path / "train.svm", test_path=tmp_path / "nope.svm")


def test_jsonl_with_a_byte_order_mark_is_read(tmp_path):
    # Windows editors save UTF-8 with a BOM; json.loads refused the first line.
    path = tmp_path / "bom.jsonl"
    lines = [json.dumps({"text": f"doc {i}", "labels": ["a" if i % 2 else "b"]})
             for i in range(8)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    c = load_corpus(path)
    assert sorted(c.train + c.test) == sorted(f"doc {i}" for i in range(8))


def test_json_array_gets_a_hint_to_convert_it(tmp_path):
    from textwin.datasets import read_inputs

    path = tmp_path / "corpus.json"
    path.write_text(json.dumps([{"text": "a", "labels": ["x"]}, {"text": "b", "labels": []}],
                               indent=2))
    with pytest.raises(CorpusError, match=r"corpus.json holds a JSON array; textwin reads "
                                          r"JSON Lines.*jq -c"):
        load_corpus(path)
    path.write_text(json.dumps([{"text": "a"}, {"text": "b"}]))  # on one line, to score
    with pytest.raises(CorpusError, match=r"corpus.json holds a JSON array; .*jq -c"):
        read_inputs([path], "text")  # it said the line needs a "text" string


@pytest.mark.parametrize("name, first", [
    ("docs.dat", "text,label\n"),  # a CSV file by another name
    ("docs.txt", "sport\tgoal match\n"),
    ("docs", "sport goal match __label__sport\n"),  # fastText's labels come first
])
def test_text_file_read_as_svmlight_says_which_layouts_hold_text(tmp_path, name, first):
    path = tmp_path / name
    path.write_text(first + "1 1:1\n")
    with pytest.raises(CorpusError) as err:
        load_corpus(path)
    message = str(err.value)
    assert f"{name}:1:" in message and "was read as svmlight" in message
    assert "JSON Lines" in message and "a folder per category" in message
    assert "a CSV file (.csv" in message and "lines that start with __label__" in message
    assert "\n" not in message


def test_repeated_texts_are_reported(tmp_path):
    # Two copies of a text with different labels, or one in each split, are two
    # documents (as scikit-learn reads them); the report says so, as a user wants to
    # know of contradicting labels and of a test document seen in training.
    rows = [("goal match", "sport", "train"), ("goal match", "politics", "train"),
            ("vote law", "politics", "train"), ("vote law", "politics", "test"),
            ("atom cell", "science", "train"), ("atom cell", "science", "train"),
            ("energy lab", "science", "test"), ("party vote", "politics", "test"),
            ("team score", "sport", "test")]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"text": t, "labels": [c], "split": s}) + "\n"
                            for t, c, s in rows))
    c = load_corpus(path)
    assert len(c.train) + len(c.test) == 9  # every line is read
    assert c.report["repeated"] == {"documents": 6, "texts": 3, "different_labels": 1,
                                    "in_both_splits": 1}
    line = next(ln for ln in c.describe() if "repeat another" in ln)
    assert line == ("  6 documents repeat another's text (3 texts: 1 with different labels, "
                    "1 in both the training and the test split)")
    unique = tmp_path / "u.jsonl"
    unique.write_text("".join(json.dumps({"text": t, "labels": [c]}) + "\n"
                              for t, c in (("a b", "x"), ("c d", "y"), ("e f", "x"), ("g", "y"))))
    assert "repeated" not in load_corpus(unique).report


def test_the_layout_table_recognises_paths_and_names_every_layout_in_the_help(tmp_path):
    from textwin.datasets import LAYOUTS, describe_layouts, layout_of

    (tmp_path / "a.JSONL").write_text("")
    (tmp_path / "b.svm").write_text("")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder.jsonl").mkdir()  # a folder, whatever its name
    assert layout_of(tmp_path / "a.JSONL").name == "JSON Lines"
    assert layout_of(tmp_path / "b.svm").name == "svmlight"
    assert layout_of(tmp_path / "folder").folder and layout_of(tmp_path / "folder.jsonl").folder
    assert not LAYOUTS[-1].suffixes and not LAYOUTS[-1].folder  # the catch-all comes last
    assert describe_layouts() == ", ".join(layout.help for layout in LAYOUTS if layout.reader)
    assert "svmlight" in describe_layouts() and "text file" not in describe_layouts()
    for layout in LAYOUTS:  # every reader the table names exists
        for name in filter(None, (layout.reader, layout.inputs)):
            module, function = name.split(":")
            assert callable(getattr(__import__(f"textwin.datasets.{module}",
                                               fromlist=[function]), function))


def test_reading_the_layout_table_imports_neither_scipy_nor_sklearn():
    import subprocess
    import sys

    code = ("import sys, textwin.datasets as d; d.describe_layouts(); "
            "print(sorted(m for m in ('scipy', 'sklearn', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_separate_test_set_in_any_text_layout(tmp_path):
    # train.jsonl + test.jsonl, train/ + test/ folders, or one of each: --test-corpus
    # took svmlight only
    train = _write_jsonl(tmp_path / "train.jsonl", [
        {"text": f"goal {i}", "labels": ["sport"]} for i in range(3)] + [
        {"text": f"vote {i}", "labels": ["politics"]} for i in range(3)])
    test = _write_jsonl(tmp_path / "test.jsonl", [
        {"text": "goal match", "labels": ["sport"]}, {"text": "a law", "labels": ["law"]}])
    c = load_corpus(train, test_path=test)
    assert c.train == [f"goal {i}" for i in range(3)] + [f"vote {i}" for i in range(3)]
    assert c.test == ["goal match", "a law"] and c.ids_test == ["1", "2"]
    assert c.target_names == ["law", "politics", "sport"]
    np.testing.assert_array_equal(c.Y_test, [[0, 0, 1], [1, 0, 0]])
    assert c.report["split"] == "split given by test.jsonl"
    for split, n in (("tr", 2), ("te", 1)):
        for cat in ("sport", "politics"):
            (tmp_path / split / cat).mkdir(parents=True)
            for i in range(n):
                (tmp_path / split / cat / f"{i}.txt").write_text(f"{cat} {split} {i}")
    c = load_corpus(tmp_path / "tr", test_path=tmp_path / "te")
    assert (len(c.train), len(c.test)) == (4, 2) and c.ids_test == ["politics/0.txt",
                                                                    "sport/0.txt"]
    c = load_corpus(train, test_path=tmp_path / "te")  # JSON Lines, then a folder
    assert len(c.train) == 6 and c.test == ["politics te 0", "sport te 0"]


def test_a_separate_test_set_and_a_split_of_its_own_are_refused(tmp_path):
    split = _write_jsonl(tmp_path / "s.jsonl", [
        {"text": "a", "labels": ["x"], "split": "train"}, {"text": "b", "labels": ["y"],
                                                           "split": "test"}])
    plain = _write_jsonl(tmp_path / "p.jsonl", [{"text": "c", "labels": ["x"]}])
    for train, test in ((split, plain), (plain, split)):
        with pytest.raises(CorpusError, match=r"s.jsonl gives its own split .* drop one"):
            load_corpus(train, test_path=test)


def test_a_linked_folder_in_a_category_folder_is_read(tmp_path):
    from textwin.datasets import read_inputs

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for i in range(2):
        (elsewhere / f"{i}.txt").write_text(f"linked text {i}")
    root = tmp_path / "corpus"
    for cat in ("a", "b"):
        (root / cat).mkdir(parents=True)
        for i in range(3):
            (root / cat / f"{i}.txt").write_text(f"{cat} text {i}")
    (root / "a" / "more").symlink_to(elsewhere)  # os.walk lists it and does not enter it
    (root / "b" / "loop").symlink_to(root / "b")  # a link to its own folder: read once
    c = read_folder(root)
    docs = dict(zip(c.ids_train + c.ids_test, c.train + c.test))
    assert docs["a/more/1.txt"] == "linked text 1" and len(docs) == 8
    ids, texts, _ = read_inputs([root / "a"], "text")
    assert sorted(texts) == sorted([f"a text {i}" for i in range(3)]
                                   + [f"linked text {i}" for i in range(2)])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_in_a_folder_is_not_read(tmp_path):
    # reading it waited for a writer forever: training and predict hung
    from textwin.datasets import read_inputs

    for cat in ("a", "b"):
        (tmp_path / cat).mkdir()
        for i in range(3):
            (tmp_path / cat / f"{i}.txt").write_text(f"{cat} text {i}")
    os.mkfifo(tmp_path / "a" / "pipe")
    with pytest.warns(UserWarning, match=r"skipped 1 file: 1 not a regular file .*a/pipe"):
        c = read_folder(tmp_path)
    assert len(c.train) + len(c.test) == 6 and c.report["skipped"] == {"special": ["a/pipe"]}
    ids, texts, skipped = read_inputs([tmp_path / "a"], "text")  # skipped, as in training
    assert len(ids) == 3 and skipped["special"] == [str(tmp_path / "a" / "pipe")]


def _peak_bytes(read):
    import tracemalloc

    tracemalloc.start()
    try:
        found = read()
        return found, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_large_binary_file_in_a_folder_is_not_read_whole(tmp_path):
    # a 200 MB video in a category folder was read whole before it was skipped as binary
    from textwin.datasets import read_inputs

    for cat in ("a", "b"):
        (tmp_path / cat).mkdir()
        for i in range(3):
            (tmp_path / cat / f"{i}.txt").write_text(f"{cat} text {i}")
    with open(tmp_path / "a" / "video.mp4", "wb") as fh:
        fh.write(b"\x00\x00\x00\x18ftypmp42")
        fh.truncate(200 << 20)  # sparse: no disk used
    # a long text whose first 8 KiB end inside a letter is still text
    (tmp_path / "b" / "long.txt").write_text("a" + "\u0436" * 5000, encoding="utf-8")
    with pytest.warns(UserWarning, match=r"1 binary .*a/video.mp4"):
        c, peak = _peak_bytes(lambda: read_folder(tmp_path))
    assert peak < 16 << 20 and c.report["skipped"] == {"binary": ["a/video.mp4"]}
    assert "b/long.txt" in c.ids_train + c.ids_test
    (ids, _, skipped), peak = _peak_bytes(lambda: read_inputs([tmp_path / "a"], "text"))
    assert peak < 16 << 20 and len(ids) == 3
    assert skipped["binary"] == [str(tmp_path / "a" / "video.mp4")]


def _unreadable_category(tmp_path, monkeypatch):
    """A corpus whose category folder tech/ cannot be listed (chmod 000; the tests
    run as root, to whom chmod means nothing, so os.scandir refuses it here)."""
    import os

    for cat in ("sport", "tech", "food"):
        (tmp_path / cat).mkdir()
        for i in range(4):
            (tmp_path / cat / f"{i}.txt").write_text(f"{cat} text {i}")
    scandir = os.scandir

    def refuse(path="."):
        if os.fspath(path) == os.fspath(tmp_path / "tech"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    return tmp_path


def test_an_unreadable_category_folder_is_reported_with_the_reason(tmp_path, monkeypatch):
    root = _unreadable_category(tmp_path, monkeypatch)
    with pytest.warns(UserWarning) as caught:
        c = read_folder(root)
    assert len(caught) == 1
    assert str(caught[0].message) == (
        f"{root}: skipped 1 folder: 1 unreadable folder (its files not read) "
        "(tech/: Permission denied)")
    assert c.target_names == ["food", "sport"]  # tech's files could not be read
    assert c.report["skipped"] == {"unreadable_folder": ["tech/: Permission denied"]}
    assert any("skipped 1 unreadable folder" in line for line in c.describe())


@pytest.mark.skipif(not hasattr(__import__("os"), "geteuid") or __import__("os").geteuid() == 0,
                    reason="root reads a folder under chmod 000")
def test_a_category_folder_under_chmod_000_is_reported(tmp_path):
    for cat in ("sport", "tech", "food"):
        (tmp_path / cat).mkdir()
        for i in range(4):
            (tmp_path / cat / f"{i}.txt").write_text(f"{cat} text {i}")
    (tmp_path / "tech").chmod(0)
    try:
        with pytest.warns(UserWarning, match=r"1 unreadable folder .*tech/: Permission denied"):
            read_folder(tmp_path)
    finally:
        (tmp_path / "tech").chmod(0o755)


def _records(n=8):
    return [{"text": f"caf\u00e9 doc {i}", "labels": ["a" if i % 2 else "b"]} for i in range(n)]


def test_jsonl_in_utf16_with_its_byte_order_mark_is_read(tmp_path):
    # Windows' "Unicode"; it was refused with a hint to convert from latin-1
    path = tmp_path / "u16.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _records()),
                    encoding="utf-16")
    c = load_corpus(path)
    assert sorted(c.train + c.test) == sorted(r["text"] for r in _records())
    path.write_bytes(path.read_bytes()[2:])  # the same without its byte order mark
    with pytest.raises(CorpusError, match=r"u16.jsonl:1: NUL bytes, as UTF-16 without a byte "
                                          r"order mark .*iconv -f utf-16le -t utf-8"):
        load_corpus(path)


def test_gzipped_jsonl_is_read_as_json_lines(tmp_path):
    import gzip

    path = tmp_path / "c.jsonl.gz"  # it was read as svmlight
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in _records()))
    c = load_corpus(path)
    assert sorted(c.train + c.test) == sorted(r["text"] for r in _records())
    path.write_bytes(path.read_bytes()[:-12])  # cut short
    with pytest.raises(CorpusError, match=r"c.jsonl.gz: not a complete gzip file"):
        load_corpus(path)


def test_damaged_gzipped_jsonl_is_one_error(tmp_path):
    import gzip
    import random

    from textwin.datasets import read_inputs

    rng = random.Random(0)
    lines = "".join(json.dumps({"text": " ".join(f"w{rng.randrange(10**6)}" for _ in range(50)),
                                "labels": ["a"]}) + "\n" for _ in range(500))
    raw = bytearray(gzip.compress(lines.encode()))
    for k in range(200, 400):  # damaged inside the deflate stream: zlib.error, not EOFError
        raw[k] ^= 0x55
    path = tmp_path / "c.jsonl.gz"
    path.write_bytes(bytes(raw))
    with pytest.raises(CorpusError, match=r"c.jsonl.gz: not a complete gzip file"):
        load_corpus(path)
    with pytest.raises(CorpusError, match=r"c.jsonl.gz: not a complete gzip file"):
        read_inputs([path], "text")


def test_utf16_files_in_a_folder_are_text(tmp_path):
    for cat in ("a", "b"):
        (tmp_path / cat).mkdir()
        for i in range(3):
            (tmp_path / cat / f"{i}.txt").write_text(f"{cat} na\u00efve text {i}",
                                                     encoding="utf-16")
    (tmp_path / "a" / "bom8.txt").write_text("a with a UTF-8 mark", encoding="utf-8-sig")
    c = read_folder(tmp_path)  # they were skipped as binary
    docs = dict(zip(c.ids_train + c.ids_test, c.train + c.test))
    assert docs["b/2.txt"] == "b na\u00efve text 2" and docs["a/bom8.txt"] == "a with a UTF-8 mark"
    assert c.report["skipped"] == {}


def test_svmlight_with_a_byte_order_mark_reads_its_first_label(tmp_path):
    path = tmp_path / "bom.svm"
    path.write_bytes(b"\xef\xbb\xbf" + SVM_TRAIN.encode())
    c = read_svmlight(path, test_size=0.4, random_state=0)
    Y = np.vstack([c.Y_train, c.Y_test])
    assert c.target_names == ["1", "2"] and Y.sum(axis=0).tolist() == [3, 3]
    path.write_bytes(b"\xef\xbb\xbf1 1:1\n1 x:y\n")
    with pytest.raises(CorpusError, match="bom.svm:2: feature index 'x'"):
        read_svmlight(path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_compressed_svmlight_errors_name_the_line(tmp_path, suffix):
    import bz2
    import gzip

    from textwin.datasets import read_svmlight_file

    compress = {".gz": gzip.compress, ".bz2": bz2.compress}[suffix]
    path = tmp_path / f"x.svm{suffix}"
    path.write_bytes(compress(b"1 1:1\n2 2:1\n1 1:1 junk\n"))
    with pytest.raises(CorpusError, match=rf"x.svm{suffix}:3: 'junk' is not index:value"):
        load_corpus(path)  # it named line 1, the compressed bytes, as a label
    path.write_bytes(compress(b"1 1:1\n2 2:1\n1 1:1 9:1\n"))
    with pytest.raises(CorpusError, match=rf"x.svm{suffix}:3: feature index 9 is beyond"):
        read_svmlight_file(path, n_features=2)
    raw = bytearray(compress(b"".join(b"%d 1:1 %d:2\n" % (i % 2, i + 2) for i in range(3000))))
    raw[300:400] = bytes(b ^ 0x55 for b in raw[300:400])  # damaged inside the stream
    path.write_bytes(bytes(raw))
    with pytest.raises(CorpusError, match=rf"x.svm{suffix}: not a complete {suffix[1:]} file"):
        load_corpus(path)  # a zlib.error traceback


def _damaged_gzip_files(folder):
    """Two .gz files that gunzip fails on: one cut short, one not gzip-compressed."""
    import gzip

    (folder / "cut.txt.gz").write_bytes(gzip.compress(b"a long text " * 50)[:-20])
    (folder / "plain.txt.gz").write_text("plain text, named .gz")


def test_gzipped_files_in_a_folder_are_gunzipped(tmp_path, monkeypatch):
    # a damaged .gz is skipped as such: it was "unreadable (permission or I/O error)",
    # sending the user to chmod; a file without permission still is unreadable
    import gzip

    for cat in ("a", "b"):
        (tmp_path / cat).mkdir()
        for i in range(3):
            (tmp_path / cat / f"{i}.txt.gz").write_bytes(gzip.compress(f"{cat} text {i}".encode()))
    _damaged_gzip_files(tmp_path / "a")
    (tmp_path / "b" / "locked.txt").write_text("b text")
    _refuse_to_open(monkeypatch, tmp_path / "b" / "locked.txt")
    with pytest.warns(UserWarning) as caught:
        c = read_folder(tmp_path)  # they were skipped as binary
    assert str(caught[0].message) == (
        f"{tmp_path}: skipped 3 files: "
        "2 damaged gzip (truncated, corrupt, or not gzip-compressed) "
        "(a/cut.txt.gz, a/plain.txt.gz); 1 unreadable (permission or I/O error) (b/locked.txt)")
    assert c.report["skipped"] == {"damaged_gzip": ["a/cut.txt.gz", "a/plain.txt.gz"],
                                   "unreadable": ["b/locked.txt"]}
    assert any("skipped 2 damaged gzip (truncated," in line for line in c.describe())
    docs = dict(zip(c.ids_train + c.ids_test, c.train + c.test))
    assert docs == {f"{cat}/{i}.txt.gz": f"{cat} text {i}" for cat in "ab" for i in range(3)}


def _refuse_to_open(monkeypatch, victim):
    """Opening ``victim`` fails as under chmod 000 (the tests run as root)."""
    import builtins

    real_open = builtins.open

    def guarded_open(file, *args, **kwargs):
        if str(file) == str(victim):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)


@pytest.fixture
def one_mib_documents(monkeypatch):
    """The readers' cap on one document lowered from 1 GiB to 1 MiB."""
    from textwin.datasets import _encoding

    monkeypatch.setattr(_encoding, "MAX_DOCUMENT_BYTES", 1 << 20)


def test_a_gzip_bomb_in_a_folder_is_skipped_unread(tmp_path, one_mib_documents):
    # a small .gz was gunzipped whole into memory, however large it inflates
    import gzip

    from textwin.datasets import read_inputs

    for cat in ("a", "b"):
        (tmp_path / cat).mkdir()
        for i in range(3):
            (tmp_path / cat / f"{i}.txt").write_text(f"{cat} text {i}")
    (tmp_path / "a" / "bomb.txt.gz").write_bytes(gzip.compress(b"word " * (4 << 20)))  # 20 MiB
    (tmp_path / "b" / "fine.txt.gz").write_bytes(gzip.compress(b"word " * 1000))
    with pytest.warns(UserWarning, match=r"1 too large \(more than 1 GiB.*a/bomb.txt.gz"):
        c, peak = _peak_bytes(lambda: read_folder(tmp_path))
    assert peak < 8 << 20 and c.report["skipped"] == {"too_large": ["a/bomb.txt.gz"]}
    assert len(c.train) + len(c.test) == 7
    (ids, _, skipped), peak = _peak_bytes(lambda: read_inputs([tmp_path / "a"], "text"))
    assert peak < 8 << 20 and len(ids) == 3
    assert skipped["too_large"] == [str(tmp_path / "a" / "bomb.txt.gz")]


def test_predict_skips_an_unreadable_file_of_a_folder_and_scores_the_rest(tmp_path, monkeypatch):
    # training skipped it; predict stopped at it, scoring nothing
    from textwin.datasets import read_inputs

    (tmp_path / "a").mkdir()
    for i in range(3):
        (tmp_path / "a" / f"{i}.txt").write_text(f"text {i}")
    _damaged_gzip_files(tmp_path / "a")
    (tmp_path / "a" / "header.txt.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 6)  # cut short
    (tmp_path / "a" / "locked.txt").write_text("text")
    _refuse_to_open(monkeypatch, tmp_path / "a" / "locked.txt")
    ids, texts, skipped = read_inputs([tmp_path / "a"], "text")
    assert len(ids) == 3
    assert skipped["damaged_gzip"] == [str(tmp_path / "a" / name)
                                       for name in ("cut.txt.gz", "header.txt.gz", "plain.txt.gz")]
    assert skipped["unreadable"] == [str(tmp_path / "a" / "locked.txt")]


def test_a_json_lines_file_without_line_breaks_is_not_read_whole(tmp_path, one_mib_documents):
    from textwin.datasets import read_inputs

    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "short", "labels": ["a"]}\n'
                    + '{"text": "' + "word " * (1 << 20) + '", "labels": ["b"]}\n')
    def refused(read):
        with pytest.raises(CorpusError, match=r"c.jsonl:2: a line of more than 1 MiB; JSON "
                                              r"Lines holds one document per line"):
            read()

    for read in (lambda: read_jsonl(path), lambda: read_inputs([path], "text")):
        _, peak = _peak_bytes(lambda: refused(read))
        assert peak < 4 << 20  # the 5 MiB line is never held


def _split_files_folder(root, test_name="test.jsonl"):
    root.mkdir()
    for name, n in (("train.jsonl", 6), (test_name, 4)):
        with open(root / name, "w") as fh:
            for i in range(n):
                fh.write(json.dumps({"text": f"{name} text {i}", "labels": ["ab"[i % 2]]}) + "\n")
    return root


def test_a_folder_of_train_and_test_files_is_their_split(tmp_path):
    # --corpus germeval2018/ (train.jsonl, test.jsonl) was "no documents found"
    root = _split_files_folder(tmp_path / "c")
    (root / "README.md").write_text("terms of use")
    with pytest.warns(UserWarning, match=r"read train.jsonl and test.jsonl .*not read: README.md"):
        c = load_corpus(root)
    assert c.train == [f"train.jsonl text {i}" for i in range(6)]
    assert c.test == [f"test.jsonl text {i}" for i in range(4)]
    with pytest.raises(CorpusError, match=r"holds its own split .* drop one"):
        load_corpus(root, test_path=root / "test.jsonl")


def test_a_folder_of_split_files_without_its_test_file_is_one_line(tmp_path):
    root = _split_files_folder(tmp_path / "c", test_name="valid.jsonl")
    with pytest.raises(CorpusError, match=r"holds train.jsonl and no test.\* file: a folder of "
                                          r"split files holds one train.\* and one test.\*"):
        load_corpus(root)


def test_a_folder_to_score_reads_its_json_lines_files_line_by_line(tmp_path):
    # predict split/ scored test.jsonl as one document, the whole file
    from textwin.datasets import read_inputs

    root = _split_files_folder(tmp_path / "c")
    (root / "note.txt").write_text("a plain text")
    ids, texts, _ = read_inputs([root], "text")
    assert len(ids) == 6 + 4 + 1
    assert texts[0] == "a plain text"  # in the order of the file names
    assert texts[1:5] == [f"test.jsonl text {i}" for i in range(4)]
    assert ids[1] == f"{root / 'test.jsonl'}:1" and ids[-1] == str(root / "train.jsonl") + ":6"
