"""CSV, TSV, fastText and Parquet corpora, read by `textwin train`, `eval` and `predict`
in processes of their own, as users run them."""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest


from _textwin_process import COMMAND as _TEXTWIN, CWD as _CWD, ENV as _ENV
_AGNEWS = Path(os.environ.get("TEXTWIN_DATA_HOME", Path(__file__).resolve().parents[2] / "shared")
               ) / "corpora" / "agnews-small" / "train.jsonl"


def textwin_run(*argv, check=True):
    proc = subprocess.run([*_TEXTWIN, *map(str, argv)], env=_ENV, cwd=_CWD, capture_output=True,
                          text=True, timeout=600)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def _documents():
    """240 texts of AG News on one line each (commas, quotes and all), their class and,
    for a long text, a second label: a multi-label corpus."""
    if not _AGNEWS.exists():
        pytest.skip(f"{_AGNEWS} not found")
    docs = []
    with open(_AGNEWS, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            text = " ".join(rec["text"].split())
            labels = rec["labels"] + (["long"] if len(text) > 240 else [])
            docs.append((text, labels))
            if len(docs) == 240:
                break
    assert any('"' in t for t, _ in docs) and any("," in t for t, _ in docs)
    return docs


def write_corpus(folder, layout, docs):
    """The same documents in ``layout``; the file's path."""
    if layout == "jsonl":
        path = folder / "corpus.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for text, labels in docs:
                fh.write(json.dumps({"text": text, "labels": labels}) + "\n")
    elif layout in ("csv", "tsv"):
        path = folder / f"corpus.{layout}"
        with open(path, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter="," if layout == "csv" else "\t")
            writer.writerow(["text", "labels"])
            writer.writerows([text, ",".join(labels)] for text, labels in docs)
    elif layout == "fasttext":
        path = folder / "corpus.train"  # fastText's tutorials' name: no suffix of a layout
        with open(path, "w", encoding="utf-8") as fh:
            for text, labels in docs:
                fh.write(" ".join(f"__label__{lab}" for lab in labels) + " " + text + "\n")
    else:
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        path = folder / "corpus.parquet"
        pq.write_table(pa.table({"text": [t for t, _ in docs], "labels": [lab for _, lab in docs]}),
                       path, row_group_size=100)  # several row groups
    return path


def _model_arrays(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files if k != "__metadata__"}


@pytest.fixture(scope="module")
def json_lines_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("jsonl")
    path = write_corpus(folder, "jsonl", _documents())
    report = json.loads(textwin_run("train", "--corpus", path, "--output", folder / "m.npz",
                                    "--json", "-q").stdout)
    return folder / "m.npz", report


FIGURES = ("task", "n_train", "n_test", "n_features", "micro_f1", "macro_f1", "categories")


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["csv", "tsv", "fasttext", "parquet"])
def test_a_format_gives_the_model_and_figures_of_json_lines(tmp_path, layout, json_lines_run):
    # `train --corpus train.csv` read it as svmlight: "label 'label' is not a number"
    path = write_corpus(tmp_path, layout, _documents())
    proc = textwin_run("train", "--corpus", path, "--output", tmp_path / "m.npz", "--json")
    assert "warning" not in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    model, expected = json_lines_run
    assert report["task"] == "multilabel" and "long" in report["corpus_report"]["categories"]
    for key in FIGURES:
        assert report[key] == expected[key], key
    assert report["corpus_report"] == expected["corpus_report"]
    ours, theirs = _model_arrays(tmp_path / "m.npz"), _model_arrays(model)
    assert ours.keys() == theirs.keys()
    for key in ours:
        assert np.array_equal(ours[key], theirs[key]), key
    # the model scores the file's documents as it scores the JSON Lines ones
    scored = [json.loads(line) for line in
              textwin_run("predict", model, path, "--jsonl").stdout.splitlines()]
    jsonl = tmp_path / "same.jsonl"
    write_corpus(tmp_path, "jsonl", _documents()).rename(jsonl)
    expected_scores = [json.loads(line) for line in
                       textwin_run("predict", model, jsonl, "--jsonl").stdout.splitlines()]
    assert [d["scores"] for d in scored] == [d["scores"] for d in expected_scores]
    assert len(scored) == 240


@pytest.mark.slow
def test_eval_reads_a_csv_corpus_as_its_json_lines(tmp_path):
    docs = _documents()
    figures = {}
    for layout in ("jsonl", "csv"):
        path = write_corpus(tmp_path, layout, docs)
        out = json.loads(textwin_run("eval", "--corpus", path, "--methods", "svm,mls",
                                     "--json", "-q").stdout)
        figures[layout] = {k: v for k, v in out.items() if k not in ("corpus", "seconds")}
        for row in out.get("methods", []):
            row.pop("seconds", None)
    assert json.dumps(figures["csv"], sort_keys=True, default=str) == json.dumps(
        figures["jsonl"], sort_keys=True, default=str)


def _one_line_error(proc, *parts):
    assert proc.returncode != 0 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("textwin: error: "), proc.stderr
    for part in parts:
        assert part in lines[0], (part, lines[0])


BAD = [
    ("bad.csv", b"text,labels\nthe team won,sport\nthe vote,politics,extra\n",
     ["bad.csv:3: 3 fields, the header has 2", "double quotes"]),
    ("bad.csv", b"words,labels\nthe team won,sport\n",
     ["bad.csv:1: no text column", "'words', 'labels'", "--text-column"]),
    ("bad.csv", b"text,topic_id\nthe team won,sport\n", ["no label column", "--label-column"]),
    ("bad.csv", b"text,labels\nthe team won,sport\n\"a\nb\",\nc,d\n",
     ["bad.csv:3: no labels (an empty label cell)", "--allow-unlabeled"]),
    ("bad.tsv", b"text\tlabel\nthe team won\tsport\ncaf\xe9 au lait\tfood\n",
     ["bad.tsv:3: not UTF-8 (byte 0xe9 at column 4)", "iconv"]),
    ("bad.txt", b"__label__sport the team won\nthe vote was lost\n",
     ["bad.txt:2: no __label__ word", "--allow-unlabeled"]),
    ("semi.csv", b"text;label\nthe team won;sport\n",
     ["semi.csv:1: the header 'text;label' is separated by ';'", "CSV UTF-8"]),
    ("bad.csv", b"text,labels\n\"never closed,sport\nthe vote,politics\n",
     ["bad.csv:2: 1 field, the header has 2", "double quotes"]),
]


@pytest.mark.parametrize("name, content, parts", BAD, ids=[p[0] for _, _, p in BAD])
def test_a_bad_row_is_a_one_line_error_naming_its_line(tmp_path, name, content, parts):
    (tmp_path / name).write_bytes(content)
    _one_line_error(textwin_run("train", "--corpus", tmp_path / name, check=False), *parts)


def test_rows_with_an_empty_text_are_skipped_and_named(tmp_path):
    path = tmp_path / "c.csv"
    rows = ["text,label"] + [f"the team won match {i},sport" for i in range(6)] + [
        f"the vote in parliament {i},politics" for i in range(6)] + [" ,sport", ",politics"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    proc = textwin_run("train", "--corpus", path, "--json")
    report = json.loads(proc.stdout)["corpus_report"]
    assert report["skipped"] == {"empty_text": [f"{path}:14", f"{path}:15"]}
    assert report["documents"]["train"] + report["documents"]["test"] == 12
    assert "skipped 2 rows: 2 rows with an empty text" in proc.stderr


def test_empty_texts_are_skipped_alike_in_json_lines_and_csv(tmp_path):
    # JSON Lines kept a line of an empty text (or failed on pandas' null) as a document,
    # where CSV skips the row: the same corpus gave two models
    docs = [(f"the team won match {i}", "sport") for i in range(8)] + [
        (f"the vote in parliament {i}", "politics") for i in range(8)]
    docs[3], docs[12] = ("  ", "sport"), (None, "politics")
    jsonl, table = tmp_path / "c.jsonl", tmp_path / "c.csv"
    jsonl.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n" for t, lab in docs),
                     encoding="utf-8")
    table.write_text("text,label\n" + "".join(f"{t or ''},{lab}\n" for t, lab in docs),
                     encoding="utf-8")

    def run(*argv):  # in the corpus's folder, as a user runs it
        return subprocess.run([*_TEXTWIN, *argv], env=_ENV, cwd=tmp_path, capture_output=True,
                              text=True, timeout=600, check=False)

    reports, models = [], []
    for path in (jsonl, table):
        proc = run("train", "--corpus", path.name, "--json", "--output", f"{path.name}.npz")
        assert proc.returncode == 0, proc.stderr
        assert "skipped 2 rows: 2 rows with an empty text" in proc.stderr, proc.stderr
        reports.append(json.loads(proc.stdout)["corpus_report"])
        models.append(_model_arrays(tmp_path / f"{path.name}.npz"))
    assert reports[0]["skipped"] == {"empty_text": [f"{jsonl.name}:4", f"{jsonl.name}:13"]}
    assert reports[1]["skipped"] == {"empty_text": [f"{table.name}:5", f"{table.name}:14"]}
    assert reports[0]["documents"] == reports[1]["documents"] == {"train": 10, "test": 4}
    assert models[0].keys() == models[1].keys()
    for key in models[0]:
        assert np.array_equal(models[0][key], models[1][key]), key
    jsonl.write_text('{"text": " ", "label": "a"}\n{"text": null, "label": "b"}\n',
                     encoding="utf-8")
    _one_line_error(run("train", "--corpus", jsonl.name),
                    f"{jsonl.name}: no documents found (skipped 2 rows with an empty text",
                    f"{jsonl.name}:1, {jsonl.name}:2", "give a corpus")


@pytest.mark.parametrize("command", ["train", "eval"])
def test_a_test_set_of_none_of_the_training_categories_is_refused(tmp_path, command):
    # it trained, gave the test set's categories constant models and reported accuracy 0.0
    train, test = tmp_path / "train.jsonl", tmp_path / "test.csv"
    train.write_text("".join(json.dumps({"text": f"{w} match {i}", "label": lab}) + "\n"
                             for i in range(10) for w, lab in (("team", "sport"),
                                                                ("vote", "politics"))),
                     encoding="utf-8")
    test.write_text("text,label\nthe team won,yes\nthe vote,no\n", encoding="utf-8")
    proc = subprocess.run([*_TEXTWIN, command, "--corpus", train.name, "--test-corpus",
                           test.name], env=_ENV, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, check=False)
    _one_line_error(proc, "train.jsonl (split given by test.csv): none of the test set's "
                    "categories (no, yes) is one of the training set's (politics, sport)",
                    "give the test set of this corpus")
    test.write_text("text,label\nthe team won,sport\nthe vote,elections\n", encoding="utf-8")
    proc = subprocess.run([*_TEXTWIN, command, "--corpus", train.name, "--test-corpus",
                           test.name], env=_ENV, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr  # one category shared: a category only in test
    for split, names in (("train", ("sport", "politics")), ("test", ("weather",))):
        for name in names:
            (tmp_path / "folders" / split / name).mkdir(parents=True)
            for i in range(3):
                (tmp_path / "folders" / split / name / f"{i}.txt").write_text(f"{name} {i}")
    proc = subprocess.run([*_TEXTWIN, command, "--corpus", "folders"], env=_ENV, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False)
    _one_line_error(proc, "folders (split given): none of the test set's categories (weather) "
                    "is one of the training set's (politics, sport)")


def test_a_model_file_given_as_the_corpus_is_named_a_binary_file(tmp_path):
    # read as svmlight, it was "m.npz:1: label 'PK\\x03\\x04-\\x00...' is not a number"
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"text": f"{w} match {i}", "label": lab}) + "\n"
                              for i in range(10) for w, lab in (("team", "sport"),
                                                                 ("vote", "politics"))),
                      encoding="utf-8")

    def run(*argv):
        return subprocess.run([*_TEXTWIN, *argv], env=_ENV, cwd=tmp_path, capture_output=True,
                              text=True, timeout=600, check=False)

    assert run("train", "--corpus", "c.jsonl", "-o", "m.npz", "-q").returncode == 0
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(range(256)))
    for argv, name, zipped in ((["--corpus", "m.npz"], "m.npz", True),
                               (["--corpus", "c.jsonl", "--test-corpus", "m.npz"], "m.npz", True),
                               (["--corpus", "photo.jpg"], "photo.jpg", False)):
        proc = run("train", *argv)
        _one_line_error(proc, f"{name} is a binary file", "not a corpus; give texts (JSON Lines,",
                        "or an svmlight file")
        assert ("a zip archive, as a model file is" in proc.stderr) == zipped
        assert "\\x00" not in proc.stderr


def test_a_csv_without_a_header_quotes_its_first_row_cut_short(tmp_path):
    # the first row of a headerless file, a whole text, was quoted whole as a column name
    text = "the team won the match " * 40
    (tmp_path / "c.csv").write_text(f"{text},sport\nthe vote,politics\n", encoding="utf-8")
    proc = subprocess.run([*_TEXTWIN, "train", "--corpus", "c.csv"], env=_ENV, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=False)
    _one_line_error(proc, "c.csv:1: no text column: the header names "
                    f"{text[:40]!r}..., 'sport'; name it with --text-column",
                    "the first row is the header")
    assert len(proc.stderr) < 400


def test_named_columns_a_separator_and_lists_in_cells(tmp_path):
    path = tmp_path / "reviews.csv"
    with open(path, "w", encoding="utf-8-sig", newline="") as fh:  # a BOM, as Excel writes
        w = csv.writer(fh)
        w.writerow(["id", "Review", "Topics", "labels"])
        for i in range(8):
            w.writerow([f"r{i}", f"the team won the match {i},\nsaid \"the coach\"",
                        "sport|news", "ignored"])
            w.writerow([f"v{i}", f"the vote in parliament {i}", "['politics']", "ignored"])
    proc = textwin_run("train", "--corpus", path, "--text-column", "Review", "--label-column",
                       "Topics", "--label-separator", "|", "--json", "-q")
    report = json.loads(proc.stdout)["corpus_report"]
    assert sorted(report["categories"]) == ["news", "politics", "sport"]
    assert {k: v["train"] + v["test"] for k, v in report["categories"].items()} == {
        "news": 8, "politics": 8, "sport": 8}
    # --label-column names the column: without it, "labels" is the label column
    proc = textwin_run("train", "--corpus", path, "--text-column", "Review", "--json", "-q",
                       check=False)
    _one_line_error(proc, "every training document", "'ignored'")


def test_options_of_a_table_on_another_layout_are_refused(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps({"text": f"t {i}", "labels": [str(i % 2)]})
                              for i in range(8)) + "\n")
    _one_line_error(textwin_run("train", "--corpus", path, "--text-column", "body", check=False),
                    "read as JSON Lines",
                    "--text-column applies to CSV, TSV and Parquet files only")


def test_predict_refuses_the_options_of_a_table_on_another_layout(tmp_path, json_lines_run):
    # before, predict scored these files as if --text-column had not been given
    model, _ = json_lines_run
    (tmp_path / "new.jsonl").write_text(json.dumps({"body": "the game"}) + "\n")
    (tmp_path / "new.txt").write_text("the championship game\n")
    for name, layout in (("new.jsonl", "JSON Lines"), ("new.txt", "text file")):
        _one_line_error(textwin_run("predict", model, tmp_path / name, "--text-column", "body",
                                    check=False),
                        f"{name} is read as {layout}",
                        "--text-column applies to CSV, TSV and Parquet files (or folders of "
                        "them) only")


def test_an_svmlight_file_is_never_taken_for_a_fasttext_or_text_file(tmp_path):
    lines = "1 1:0.5 3:1\n2 2:1\n1 1:1 2:0.5\n2 2:1 3:0.5\n" * 3
    for name in ("data.txt", "data", "data.train"):
        (tmp_path / name).write_text(lines)
        out = json.loads(textwin_run("train", "--corpus", tmp_path / name, "--json", "-q",
                                     "--category", "1").stdout)
        assert out["n_features"] == 3, name  # numbers: svmlight vectors
    (tmp_path / "ft.txt").write_text("__label__1 one two\n__label__2 three\n" * 6,
                                     encoding="utf-8-sig")  # a byte order mark first
    out = json.loads(textwin_run("train", "--corpus", tmp_path / "ft.txt", "--json", "-q").stdout)
    assert out["corpus_report"]["documents"] == {"train": 9, "test": 3}


def test_predict_reads_a_table_and_a_fasttext_file(tmp_path, json_lines_run):
    model, _ = json_lines_run
    (tmp_path / "new.tsv").write_text("id\tsentence\nn1\tthe championship game\nn2\t\n")
    (tmp_path / "new.txt").write_text("__label__x the championship game\n\n__label__y \n")
    out = [json.loads(line) for line in textwin_run(
        "predict", model, tmp_path / "new.tsv", tmp_path / "new.txt", "--jsonl").stdout.splitlines()]
    assert [d["id"] for d in out] == ["n1", "n2", f"{tmp_path / 'new.txt'}:1",
                                      f"{tmp_path / 'new.txt'}:3"]
    assert out[0]["scores"] == out[2]["scores"]  # the labels are stripped
    assert out[1]["scores"] == out[3]["scores"]  # an empty text scores the bias
    # a fastText test file piped in: its labels' names are words of the model
    piped = subprocess.run([*_TEXTWIN, "predict", str(model), "--jsonl"], env=_ENV, cwd=_CWD,
                           text=True,
                           input="__label__Business __label__World the championship game\n"
                                 "business world the championship game\n",
                           capture_output=True, timeout=300)
    first, second = (json.loads(line) for line in piped.stdout.splitlines())
    assert first["scores"] == out[0]["scores"] != second["scores"]
    (tmp_path / "bare.csv").write_text("words\nthe game\n")
    _one_line_error(textwin_run("predict", model, tmp_path / "bare.csv", check=False),
                    "bare.csv:1: no text column", "--text-column")
    out = textwin_run("predict", model, tmp_path / "bare.csv", "--text-column", "words").stdout
    assert out.splitlines()[1].endswith(f"{tmp_path / 'bare.csv'}:2")


def test_parquet_without_pyarrow_says_how_to_install_it(tmp_path):
    (tmp_path / "c.parquet").write_bytes(b"PAR1 not read")
    code = ("import sys; sys.modules['pyarrow'] = None; sys.modules['pyarrow.parquet'] = None\n"
            "from textwin.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "train", "--corpus",
                           str(tmp_path / "c.parquet")], env=_ENV, cwd=_CWD, capture_output=True,
                          text=True, timeout=300)
    _one_line_error(proc, "c.parquet: reading Parquet needs pyarrow", 'pip install ".[parquet]"')


# -- the readers, in this process --------------------------------------------------------

def test_parquet_rows_name_their_number_and_lists_are_labels(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from textwin.datasets import CorpusError, load_corpus

    path = tmp_path / "c.parquet"
    texts = [f"goal team {i}" for i in range(6)] + [f"vote party {i}" for i in range(6)]
    labels = [["sport", "news"]] * 6 + [["politics"]] * 6
    split = ["train", "test"] * 6
    pq.write_table(pa.table({"ID": [f"d{i}" for i in range(12)], "Sentence": texts,
                             "Category": labels, "split": split}), path)
    c = load_corpus(path)
    assert c.target_names == ["news", "politics", "sport"]
    assert c.ids_train[:2] == ["d0", "d2"] and len(c.train) == 6  # "split" fixes the split
    pq.write_table(pa.table({"text": texts[:3], "label": ["sport", None, "sport"]}), path)
    with pytest.raises(CorpusError, match=r"c.parquet: row 2: no labels"):
        load_corpus(path)
    pq.write_table(pa.table({"text": ["a", None, " ", "b"], "label": ["x", "y", "y", "x"]}),
                   path)
    with pytest.warns(UserWarning, match=r"skipped 2 rows: 2 rows with an empty text"):
        with pytest.raises(CorpusError, match="cannot hold out"):  # two documents left
            load_corpus(path)
    path.write_bytes(b"not parquet at all")
    with pytest.raises(CorpusError, match=r"c.parquet: not a Parquet file"):
        load_corpus(path)


def test_a_folder_to_score_reads_its_tables_as_rows(tmp_path):
    from textwin.datasets import read_inputs

    (tmp_path / "new.csv").write_text('text,label\n"one, two",a\nthree,b\n')
    (tmp_path / "note.txt").write_text("a note")
    ids, texts, _ = read_inputs([tmp_path], "text")
    assert ids == [f"{tmp_path / 'new.csv'}:2", f"{tmp_path / 'new.csv'}:3",
                   str(tmp_path / "note.txt")]
    assert texts == ["one, two", "three", "a note"]


def test_a_folder_of_train_and_test_tables_is_their_split(tmp_path):
    from textwin.datasets import load_corpus

    for name, n in (("train", 6), ("test", 2)):
        (tmp_path / f"{name}.tsv").write_text(
            "label\ttext\n" + "".join(f"a\tgoal {i}\nb\tvote {i}\n" for i in range(n)))
    c = load_corpus(tmp_path)
    assert (len(c.train), len(c.test)) == (12, 4) and c.report["split"] == "split given by test.tsv"


@pytest.mark.parametrize("cell, separator, expected", [
    ("sport", ",", ["sport"]), (" sport , news ", ",", ["news", "sport"]),
    ("sport|news", "|", ["news", "sport"]), ("a,b", "", ["a,b"]),
    ('["x", "y"]', ",", ["x", "y"]), ("['x', 3]", ",", ["3", "x"]), ("[]", ",", []),
    ("", ",", None), ("  ", ",", None), ([2, 1], ",", ["1", "2"]), (3.0, ",", ["3"]),
])
def test_a_label_cell(cell, separator, expected):
    from textwin.datasets._table import labels_of

    assert labels_of(cell, separator, "f:2") == expected


@pytest.mark.parametrize("cell, message", [
    ("a,,b", "an empty category name"), ("[a, b]", "neither JSON nor Python"),
    ('{"a": 1}', None), (2.5, "is not a category"), ("[[1]]", "a category name or a number"),
])
def test_a_bad_label_cell(cell, message):
    from textwin.datasets import CorpusError
    from textwin.datasets._table import labels_of

    if message is None:  # not a list: one name, braces and all
        assert labels_of(cell, ",", "f:2") == sorted(['{"a": 1}'])
        return
    with pytest.raises(CorpusError, match=r"^f:2: .*" + message):
        labels_of(cell, ",", "f:2")
