"""Model files: exact round trips, and a clear refusal of anything else."""
import io
import json
import os
import pickle
import re
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.pipeline import Pipeline

from textwin.feature_selection import InformationGain
from textwin.linear import DualSVM, RegularizedWinnow
from textwin.persistence import (
    FORMAT_VERSION,
    ModelFormatError,
    TextModel,
    load_model,
    save_model,
)
from textwin.text import TextVectorizer

WORDS = ("wheat corn grain harvest tonnes oil crude barrel opec price shares merger "
         "acquire stake company bank rate interest dollar yen ship port tanker").split()


def _corpus(n=120, seed=0):
    """Texts whose labels depend on the words they contain (three categories)."""
    rng = np.random.default_rng(seed)
    docs, Y = [], np.zeros((n, 3), dtype=np.uint8)
    for i in range(n):
        words = list(rng.choice(WORDS, size=rng.integers(3, 9)))
        docs.append(" ".join(words).title() + ".")
        Y[i, 0] = any(w in ("wheat", "corn", "grain") for w in words)
        Y[i, 1] = any(w in ("oil", "crude", "opec") for w in words)
        Y[i, 2] = any(w in ("shares", "merger", "acquire") for w in words)
    return docs, Y


def _pipeline(estimator, weighting="binary", k=12):
    return Pipeline([("vec", TextVectorizer(weighting=weighting)),
                     ("ig", InformationGain(k=k)), ("clf", estimator)])


@pytest.fixture
def fitted():
    docs, Y = _corpus()
    pipe = _pipeline(DualSVM(lam=1e-2, fit_intercept=True, random_state=0)).fit(docs, Y)
    return pipe, docs, Y


def test_round_trip_scores_raw_text_identically(tmp_path, fitted):
    pipe, docs, _ = fitted
    path = tmp_path / "m.npz"
    save_model(path, pipe, target_names=["grain", "crude", "acq"])
    model = load_model(path)
    new_docs = ["Crude oil prices rose, OPEC said", "", "The bank will acquire a stake",
                "wheat Wheat WHEAT harvests"]
    for texts in (docs, new_docs):
        np.testing.assert_array_equal(model.decision_function(texts),
                                      pipe.decision_function(texts))
    np.testing.assert_array_equal(model.predict(docs), pipe.predict(docs))
    assert model.target_names == ["grain", "crude", "acq"]
    # the stored weights are the estimator's, column for column
    np.testing.assert_array_equal(model.coef, pipe[-1].coef_)
    np.testing.assert_array_equal(model.selected, pipe[1].get_support(indices=True))


def test_metadata_records_versions_settings_and_convergence(tmp_path, fitted):
    pipe, _, _ = fitted
    path = tmp_path / "m.npz"
    save_model(path, pipe, metadata={"corpus": "toy"})
    model = load_model(path)
    meta = model.metadata
    assert meta["format_version"] == FORMAT_VERSION
    assert meta["textwin_version"]
    assert meta["params"]["lam"] == 1e-2 and meta["params"]["fit_intercept"] is True
    assert meta["selector_params"]["k"] == 12
    assert meta["corpus"] == "toy"
    np.testing.assert_allclose(meta["duality_gap"], pipe[-1].duality_gap_)
    assert model.preprocessing["weighting"] == "binary"
    # every member is a plain array: readable without pickle
    with np.load(path, allow_pickle=False) as npz:
        for name in npz.files:
            assert npz[name].dtype.kind in "fiuU"


def test_tfidf_model_keeps_its_idf(tmp_path):
    docs, Y = _corpus(seed=1)
    pipe = _pipeline(DualSVM(lam=1e-2, random_state=0), weighting="tfidf").fit(docs, Y[:, 1])
    save_model(tmp_path / "t.npz", pipe)
    model = load_model(tmp_path / "t.npz")
    np.testing.assert_array_equal(model.idf, pipe[0].idf_)
    np.testing.assert_allclose(model.decision_function(docs),
                               pipe.decision_function(docs), rtol=0, atol=1e-12)


def test_threshold_of_winnow_survives(tmp_path):
    """theta lives in intercept_: the saved scores are the estimator's, sign included."""
    docs, Y = _corpus(seed=2)
    pipe = _pipeline(RegularizedWinnow(theta=0.3, max_epochs=20)).fit(docs, Y)
    save_model(tmp_path / "w.npz", pipe)
    model = load_model(tmp_path / "w.npz")
    np.testing.assert_array_equal(model.decision_function(docs), pipe.decision_function(docs))


def test_numeric_model_without_vocabulary(tmp_path):
    rng = np.random.default_rng(0)
    X = sp.random(60, 30, density=0.2, format="csr", random_state=0)
    y = (X[:, :3].sum(axis=1).A1 > 0).astype(int)
    est = DualSVM(lam=1e-2, random_state=0).fit(X, y)
    save_model(tmp_path / "n.npz", est)
    model = load_model(tmp_path / "n.npz")
    assert model.vocabulary is None
    Xt = sp.random(10, 30, density=0.2, format="csr", random_state=rng.integers(1 << 30))
    np.testing.assert_array_equal(model.decision_function(Xt), est.decision_function(Xt))
    np.testing.assert_array_equal(model.predict(Xt), est.predict(Xt))
    with pytest.raises(ValueError, match="numeric features"):
        model.decision_function(["some text"])
    with pytest.raises(ValueError, match="features"):
        model.decision_function(sp.csr_matrix((2, 31)))


# -- refusing bad files --------------------------------------------------------

@pytest.fixture
def good_file(tmp_path, fitted):
    path = tmp_path / "good.npz"
    save_model(path, fitted[0])
    return path


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        load_model(tmp_path / "nope.npz")


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.02])
def test_truncated_file(tmp_path, good_file, keep):
    raw = good_file.read_bytes()
    bad = tmp_path / "trunc.npz"
    bad.write_bytes(raw[: int(len(raw) * keep)])
    with pytest.raises(ModelFormatError, match="not a usable textwin model"):
        load_model(bad)


def test_corrupted_bytes(tmp_path, good_file):
    raw = bytearray(good_file.read_bytes())
    middle = len(raw) // 2
    raw[middle:middle + 64] = bytes(64)
    bad = tmp_path / "corrupt.npz"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ModelFormatError):
        load_model(bad)


def test_random_bytes_and_empty_file(tmp_path):
    (tmp_path / "r.npz").write_bytes(np.random.default_rng(0).bytes(4000))
    (tmp_path / "e.npz").write_bytes(b"")
    for name in ("r.npz", "e.npz"):
        with pytest.raises(ModelFormatError):
            load_model(tmp_path / name)


def test_foreign_npz_and_npy(tmp_path):
    np.savez(tmp_path / "other.npz", coef=np.ones((1, 3)), intercept=np.zeros(1))
    with pytest.raises(ModelFormatError, match="another program"):
        load_model(tmp_path / "other.npz")
    np.save(tmp_path / "arr.npy", np.ones(3))
    with pytest.raises(ModelFormatError, match="npy"):
        load_model(tmp_path / "arr.npy")


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickle_is_never_executed(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.npz"
    path.write_bytes(pickle.dumps(_Evil(str(marker))))
    with pytest.raises(ModelFormatError):
        load_model(path)
    # an object array smuggled into an otherwise valid-looking archive
    meta = json.dumps({"format": "textwin-model", "format_version": FORMAT_VERSION,
                       "target_names": ["a"]}).encode()
    np.savez(path, coef=np.array([[_Evil(str(marker))]], dtype=object),
             intercept=np.zeros(1), __metadata__=np.frombuffer(meta, dtype=np.uint8))
    with pytest.raises(ModelFormatError):
        load_model(path)
    assert not marker.exists()


def _rewrite(src, dst, *, meta_update=None, drop=(), replace=None):
    with np.load(src, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files if k not in drop}
    meta = json.loads(arrays["__metadata__"].tobytes())
    meta.update(meta_update or {})
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    arrays.update(replace or {})
    np.savez(dst, **arrays)
    return dst


def test_unknown_major_version_is_refused(tmp_path, good_file):
    bad = _rewrite(good_file, tmp_path / "v3.npz", meta_update={"format_version": "3.0"})
    with pytest.raises(ModelFormatError, match="format '3.0'.*reads formats 1.x and 2.x: "
                                               "upgrade textwin"):
        load_model(bad)
    newer_minor = _rewrite(good_file, tmp_path / "v1x.npz",
                           meta_update={"format_version": "1.7"})
    assert load_model(newer_minor).coef.shape[0] == 3


@pytest.mark.parametrize("change", [
    dict(drop=("coef",)),
    dict(replace={"selected": np.arange(5)}),
    dict(replace={"intercept": np.zeros(7)}),
    dict(replace={"coef": np.full((3, 12), np.nan)}),
    dict(replace={"vocabulary": np.arange(4)}),
    dict(replace={"__metadata__": np.frombuffer(b"{not json", dtype=np.uint8)}),
    dict(meta_update={"format": "something-else"}),
    dict(meta_update={"task": "regression"}),
    dict(meta_update={"task": "multiclass", "classes": ["a", "b"]}),  # 3 problems
    dict(meta_update={"classes": "abc"}),
])
def test_inconsistent_contents_are_refused(tmp_path, good_file, change):
    bad = _rewrite(good_file, tmp_path / "bad.npz", **change)
    with pytest.raises(ModelFormatError):
        load_model(bad)


def test_a_format_1_0_file_is_read_as_multilabel(tmp_path, good_file):
    old = _rewrite(good_file, tmp_path / "v10.npz", meta_update={"format_version": "1.0"})
    meta = json.loads(np.load(old)["__metadata__"].tobytes())
    meta.pop("task"), meta.pop("classes")
    old = _rewrite(good_file, old, replace={"__metadata__": np.frombuffer(
        json.dumps(meta).encode(), dtype=np.uint8)})
    model = load_model(old)
    assert model.task == "multilabel" and model.predict(["wheat"]).shape == (1, 3)


@pytest.mark.parametrize("labels", [np.array(["crude", "grain", "ship"]), np.array([7, 3, 5])])
def test_a_multiclass_model_predicts_what_the_estimator_did(tmp_path, labels):
    # saved as a one-vs-rest score matrix, a multi-class model used to predict
    # a 0/1 indicator at score > 0: rows with no class or several, 8 of 200
    # disagreeing with the estimator (an argmax)
    docs, Y = _corpus(n=200, seed=3)
    y = labels[np.argmax(Y + 0.1 * np.random.default_rng(0).random(Y.shape), axis=1)]
    pipe = _pipeline(DualSVM(lam=1e-2, fit_intercept=True, random_state=0)).fit(docs, y)
    save_model(tmp_path / "mc.npz", pipe)
    model = load_model(tmp_path / "mc.npz")
    assert model.task == "multiclass"
    np.testing.assert_array_equal(model.predict(docs), pipe.predict(docs))
    assert model.predict(docs).dtype.kind == labels.dtype.kind
    np.testing.assert_array_equal(model.decision_function(docs), pipe.decision_function(docs))
    # binary: one score per document, the estimator's two labels
    yb = np.where(Y[:, 1] > 0, "oil", "other")
    pipe = _pipeline(DualSVM(lam=1e-2, random_state=0)).fit(docs, yb)
    save_model(tmp_path / "b.npz", pipe)
    model = load_model(tmp_path / "b.npz")
    assert model.task == "binary" and model.classes == ["oil", "other"]
    np.testing.assert_array_equal(model.predict(docs), pipe.predict(docs))
    assert model.decision_function(docs).shape == (200,)


def test_failed_save_leaves_the_old_file(tmp_path, good_file, monkeypatch):
    before = good_file.read_bytes()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np.lib.format, "write_array_header_1_0", boom)  # the first entry
    with pytest.raises(OSError, match="disk full"):
        save_model(good_file, TextModel(np.ones((1, 2)), [0.0], ["a"]))
    assert good_file.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["good.npz"]


def test_save_refuses_unfitted_or_unknown_steps(tmp_path):
    with pytest.raises(ValueError, match="coef_"):
        save_model(tmp_path / "x.npz", DualSVM())
    from sklearn.preprocessing import StandardScaler

    docs, Y = _corpus()
    pipe = Pipeline([("vec", TextVectorizer()), ("sc", StandardScaler(with_mean=False)),
                     ("clf", DualSVM(lam=1e-2))]).fit(docs, Y[:, 0])
    with pytest.raises(ValueError, match="StandardScaler"):
        save_model(tmp_path / "x.npz", pipe)
    assert not (tmp_path / "x.npz").exists()


def test_save_with_the_arguments_swapped_says_the_path_comes_first(tmp_path):
    # joblib.dump's order (value, filename): the error said "str has no coef_"
    docs, Y = _corpus()
    pipe = Pipeline([("vec", TextVectorizer()), ("clf", DualSVM(lam=1e-2))]).fit(docs, Y[:, 0])
    for path in (str(tmp_path / "x.npz"), tmp_path / "x.npz"):
        with pytest.raises(TypeError, match=r"save_model\(path, model\): the path comes first"):
            save_model(pipe, path)
    assert not (tmp_path / "x.npz").exists()


def test_zip_member_checksum_error_is_clear(tmp_path, good_file):
    """A flipped byte inside a compressed member fails the zip CRC: still our error."""
    with zipfile.ZipFile(good_file) as zf:
        info = zf.getinfo("coef.npy")
    raw = bytearray(good_file.read_bytes())
    head = info.header_offset  # local header: name and extra lengths at bytes 26-29
    name_len, extra_len = (int.from_bytes(raw[head + k:head + k + 2], "little") for k in (26, 28))
    offset = head + 30 + name_len + extra_len + info.compress_size // 2
    raw[offset] ^= 0xFF
    bad = tmp_path / "crc.npz"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ModelFormatError):
        load_model(bad)


def test_an_unknown_preprocessing_option_asks_for_an_upgrade(tmp_path, good_file):
    """A newer minor format may add vectorizer options: refused on loading, not with a
    TypeError from TextVectorizer(**preprocessing) at the first prediction."""
    preprocessing = load_model(good_file).preprocessing
    newer = _rewrite(good_file, tmp_path / "v12.npz", meta_update={
        "format_version": "1.2", "preprocessing": {**preprocessing, "stop_words": "english"}})
    with pytest.raises(ModelFormatError, match="'stop_words'.*upgrade textwin"):
        load_model(newer)
    with pytest.raises(ModelFormatError, match="'stop_words'.*upgrade textwin"):
        TextModel(np.ones((1, 2)), [0.0], ["a"], vocabulary=["a", "b"],
                  preprocessing={**preprocessing, "stop_words": "english"})
    # a numeric model has no vectorizer to rebuild: its preprocessing is not used
    TextModel(np.ones((1, 2)), [0.0], ["a"], preprocessing={"stop_words": "english"})


@pytest.mark.parametrize("change, fragment", [
    ({"weighting": 5}, "weighting=5"),
    ({"weighting": "bm25"}, "weighting='bm25'"),
    ({"lowercase": "yes"}, "lowercase='yes' is not true or false"),
    ({"stem": "no"}, "stem='no' is not true or false"),  # would have stemmed
    ({"min_df": "2"}, "min_df"),
    ({"token_pattern": 5}, "token_pattern=5"),
    ({"token_pattern": "("}, "not a valid regular expression"),
    ({"ngram_range": [1, 9]}, "ngram_range=[1, 9]: need 1 <= min_n <= max_n"),
    ({"weighting": "tfidf"}, "tf-idf weighting without the idf array"),
])
def test_bad_preprocessing_values_are_refused_on_loading(tmp_path, good_file, change,
                                                         fragment):
    preprocessing = load_model(good_file).preprocessing
    bad = _rewrite(good_file, tmp_path / "bad.npz",
                   meta_update={"preprocessing": {**preprocessing, **change}})
    with pytest.raises(ModelFormatError, match=re.escape(fragment)):
        load_model(bad)


def test_preprocessing_that_is_not_an_object_is_refused(tmp_path, good_file):
    bad = _rewrite(good_file, tmp_path / "bad.npz", meta_update={"preprocessing": "binary"})
    with pytest.raises(ModelFormatError, match="preprocessing is not a JSON object"):
        load_model(bad)


# -- bounded reading: the arrays' declared sizes are checked before any is read -----------

def _with_coef_entry(src, dst, shape, data, name="coef", descr="<f8"):
    """``src`` with its ``name``.npy replaced by a header declaring ``shape`` followed by
    ``data`` (bytes, or a number of zero bytes written in chunks, deflated)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": descr, "fortran_order": False,
                                                  "shape": shape})
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename != name + ".npy":
                new.writestr(info.filename, old.read(info.filename))
        with new.open(name + ".npy", "w", force_zip64=True) as fh:
            fh.write(header.getvalue())
            if isinstance(data, bytes):
                fh.write(data)
            else:
                chunk = bytes(1 << 20)
                for start in range(0, data, len(chunk)):
                    fh.write(chunk[: min(len(chunk), data - start)])
    return dst


def _peak_bytes_of(call):
    tracemalloc.start()
    try:
        call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_header_declaring_more_than_its_entry_holds_is_refused_unread(tmp_path, good_file):
    # a damaged coef.npy header declaring (3, 250,000,000): numpy allocated its 6 GB
    # before finding the data short
    with zipfile.ZipFile(good_file) as zf:
        raw = zf.read("coef.npy")
    data = raw[len(raw) - 3 * 12 * 8:]
    bad = _with_coef_entry(good_file, tmp_path / "bad.npz", (3, 250_000_000), data)

    def load():
        with pytest.raises(ModelFormatError, match=r"coef array's header declares shape "
                                                    r"\(3, 250000000\) \(6.0 GB\), but its "
                                                    r"archive entry holds 288 bytes"):
            load_model(bad)
    assert _peak_bytes_of(load) < 16 << 20


def test_a_header_declaring_a_near_size_names_both_in_bytes(tmp_path, good_file):
    # "declares (6.0 GB), but its archive entry holds 6.0 GB" named no mismatch at all
    bad = _with_coef_entry(good_file, tmp_path / "near2.npz", (3, 4000), 3 * 4000 * 8 + 8)
    with pytest.raises(ModelFormatError, match=r"\(96,000 bytes\), but its archive entry "
                                               r"holds 96,008 bytes"):
        load_model(bad)


def test_arrays_of_another_shape_than_the_model_are_refused_before_inflating(tmp_path,
                                                                              good_file):
    # a consistent archive whose coef inflates to 48 MB of zeros from a 50 kB entry,
    # where the 3 categories and the 12 selected features make (3, 12)
    bad = _with_coef_entry(good_file, tmp_path / "bomb.npz", (3, 2_000_000), 48_000_000)
    assert bad.stat().st_size < 200_000

    def load():
        with pytest.raises(ModelFormatError, match=r"coef array's header declares shape "
                                                    r"\(3, 2000000\), where the categories "
                                                    r"and the other arrays make it \(3, 12\)"):
            load_model(bad)
    assert _peak_bytes_of(load) < 16 << 20


def test_a_metadata_header_declaring_gigabytes_is_refused_unread(tmp_path, good_file):
    from textwin.persistence import is_model_file

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False,
                                                  "shape": (6_000_000_000,)})
    bad = tmp_path / "meta.npz"
    with zipfile.ZipFile(good_file) as old, zipfile.ZipFile(bad, "w") as new:
        for info in old.infolist():
            data = old.read(info.filename)
            if info.filename == "__metadata__.npy":
                data = header.getvalue() + data[len(header.getvalue()):]
            new.writestr(info.filename, data)

    def look():
        assert not is_model_file(bad)
        with pytest.raises(ModelFormatError, match=r"metadata array's header declares shape "
                                                    r"\(6000000000,\) \(6.0 GB\)"):
            load_model(bad)
    assert _peak_bytes_of(look) < 16 << 20
    assert is_model_file(good_file)


def test_is_model_file_needs_the_format_name(tmp_path, good_file):
    # -o replaces a file only if it is a model: an .npz of ours in all but the name of
    # its format (a user's numpy archive holding JSON metadata) is not one
    from textwin.persistence import is_model_file

    with zipfile.ZipFile(good_file) as zf:
        meta = json.loads(np.load(zf.open("__metadata__.npy")).tobytes().decode("utf-8"))
    for name, value in (("other.npz", {**meta, "format": "other-tool"}),
                        ("none.npz", {k: v for k, v in meta.items() if k != "format"}),
                        ("list.npz", [meta])):
        path = tmp_path / name
        np.savez(path, __metadata__=np.frombuffer(json.dumps(value).encode(), dtype=np.uint8))
        assert not is_model_file(path), name
    np.savez(tmp_path / "ours.npz",
             __metadata__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    assert is_model_file(tmp_path / "ours.npz") and is_model_file(good_file)


def test_a_model_larger_than_the_memory_free_is_refused(good_file, monkeypatch):
    import textwin.persistence as persistence

    monkeypatch.setattr(persistence, "available_memory", lambda: 100)
    with pytest.raises(ModelFormatError, match=r"its arrays declare \d.* kB, more than the "
                                               r"100 bytes of memory free"):
        load_model(good_file)


def test_a_named_pipe_a_device_or_a_folder_is_said_to_be_one(tmp_path, capsys):
    from test_cli import assert_one_line_error, run

    os.mkfifo(tmp_path / "pipe.npz")
    for path, what in ((tmp_path / "pipe.npz", "is a named pipe (FIFO), not a model file"),
                       (Path("/dev/zero"), "is a character device, not a model file"),
                       (tmp_path, "is a folder, not a model file")):
        with pytest.raises(ModelFormatError, match=re.escape(what)):
            load_model(path)
    code, out, err = run(capsys, "predict", tmp_path / "pipe.npz", tmp_path / "doc.txt")
    assert code != 0 and out == ""
    assert_one_line_error(err, "pipe.npz is a named pipe (FIFO)")


def test_only_textwins_vectorizer_can_be_saved(tmp_path):
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs, Y = _corpus()
    pipe = Pipeline([("vec", TfidfVectorizer()), ("clf", DualSVM(lam=1e-2))]).fit(docs, Y[:, 0])
    with pytest.raises(ValueError, match=r"only textwin's vectorizer \(textwin.text."
                                         r"TextVectorizer\), not sklearn.feature_extraction."
                                         r"text.TfidfVectorizer: .*joblib.dump"):
        save_model(tmp_path / "x.npz", pipe)
    assert not (tmp_path / "x.npz").exists()


# -- the vocabulary: UTF-8 bytes and offsets (format 2), a string array (format 1) ------

ACCENTED = ("Straße Müller café naïve résumé Zürich 東京 überall façade São Paulo "
            "wheat oil shares").split()


@pytest.fixture
def accented():
    """A tf-idf pipeline (no selection) over words of 1 to 3 UTF-8 bytes a character,
    and its model file."""
    rng = np.random.default_rng(4)
    docs = [" ".join(rng.choice(ACCENTED, size=6)) for _ in range(80)]
    y = np.array(["oil" if "oil" in d or "Straße" in d else "other" for d in docs])
    pipe = Pipeline([("vec", TextVectorizer(weighting="tfidf", ngram_range=(1, 2))),
                     ("clf", DualSVM(lam=1e-2, random_state=0))]).fit(docs, y)
    return pipe, docs


def _save(tmp_path, pipe, name="m.npz"):
    save_model(tmp_path / name, pipe)
    return tmp_path / name


def test_the_terms_are_stored_as_utf8_bytes_and_offsets(tmp_path, accented):
    pipe, docs = accented
    path = _save(tmp_path, pipe)
    terms = pipe[0].get_feature_names_out().tolist()
    assert any(t != t.encode("ascii", "ignore").decode() for t in terms)
    with np.load(path, allow_pickle=False) as npz:
        assert "vocabulary" not in npz.files
        utf8, offsets = npz["terms_utf8"], npz["term_offsets"]
    assert utf8.dtype == np.uint8 and utf8.tobytes() == "".join(terms).encode("utf-8")
    assert [utf8[a:b].tobytes().decode() for a, b in zip(offsets, offsets[1:])] == terms
    model = load_model(path)
    assert model.vocabulary.tolist() == terms and model.vocabulary.size == len(terms)
    assert model.vocabulary[-1] == terms[-1] and model.vocabulary[3] == terms[3]
    assert model.vocabulary[2:5] == terms[2:5] and list(model.vocabulary) == terms
    assert np.asarray(model.vocabulary).tolist() == terms
    np.testing.assert_array_equal(model.predict(docs), pipe.predict(docs))
    np.testing.assert_array_equal(model.decision_function(docs), pipe.decision_function(docs))


def _as_format_1(src, dst):
    """``src`` as textwin wrote model files before format 2: the terms one numpy string
    array, ``vocabulary`` (fixed width: ``<U`` and the longest term's length)."""
    with np.load(src, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    utf8, offsets = arrays.pop("terms_utf8"), arrays.pop("term_offsets")
    arrays["vocabulary"] = np.array([utf8[a:b].tobytes().decode()
                                     for a, b in zip(offsets, offsets[1:])])
    meta = json.loads(arrays["__metadata__"].tobytes())
    meta["format_version"] = "1.1"
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez_compressed(dst, **arrays)
    return dst


def test_a_format_1_file_with_a_string_vocabulary_still_loads(tmp_path, accented):
    pipe, docs = accented
    old = _as_format_1(_save(tmp_path, pipe), tmp_path / "old.npz")
    with np.load(old) as npz:
        assert npz["vocabulary"].dtype.kind == "U" and "terms_utf8" not in npz.files
    model = load_model(old)
    assert model.metadata["format_version"] == "1.1"
    assert model.vocabulary.tolist() == pipe[0].get_feature_names_out().tolist()
    np.testing.assert_array_equal(model.decision_function(docs), pipe.decision_function(docs))
    # saved again, it is a format 2 file
    again = model.vocabulary.tolist()
    save_model(tmp_path / "new.npz", model)
    with np.load(tmp_path / "new.npz") as npz:
        assert "vocabulary" not in npz.files
    assert load_model(tmp_path / "new.npz").vocabulary.tolist() == again


def test_a_long_term_costs_its_own_bytes_not_a_fixed_width_for_every_term(tmp_path):
    # a string array gives each of the 50,000 terms the width of the longest
    # (400 characters): 80 MB built on saving and read on loading
    terms = [f"t{j}" for j in range(49_999)] + ["x" * 400]
    vec = TextVectorizer().fit(["a b"])
    vec.vocabulary_ = dict(zip(terms, range(len(terms))))
    model = TextModel(np.ones((1, len(terms))), [0.0], ["a"], vocabulary=vec.vocabulary_,
                      preprocessing=vec.preprocessing_params())
    path = tmp_path / "long.npz"
    assert _peak_bytes_of(lambda: save_model(path, model)) < 8 << 20
    loaded = []
    assert _peak_bytes_of(lambda: loaded.append(load_model(path))) < 24 << 20
    assert loaded[0].vocabulary.tolist() == terms
    assert loaded[0].vectorizer().vocabulary_ == vec.vocabulary_


def test_saving_copies_no_whole_array(tmp_path):
    # numpy's savez_compressed copied each array twice before compressing it (up to
    # 16 MiB each): 32 MB for these weights, the peak of textwin train
    coef = np.ones((2, 1_000_000))
    model = TextModel(coef, [0.0, 1.0], ["a", "b"])
    path = tmp_path / "wide.npz"
    assert _peak_bytes_of(lambda: save_model(path, model)) < 4 << 20
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.coef, coef)
    with np.load(path, allow_pickle=False) as npz:  # what numpy itself reads
        np.testing.assert_array_equal(npz["coef"], coef)
        assert npz["intercept"].tolist() == [0.0, 1.0]


def _with_terms(src, dst, utf8, offsets, **extra):
    with np.load(src, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays.update(terms_utf8=utf8, term_offsets=offsets, **extra)
    arrays = {k: v for k, v in arrays.items() if v is not None}
    np.savez(dst, **arrays)
    return dst


@pytest.mark.parametrize("damage, message", [
    (lambda u, o: (u, o[::-1].copy()), r"term offsets run from \d+ to 0"),
    (lambda u, o: (u, np.concatenate([[0], o[2:2 + 1], o[1:2], o[3:]])),
     r"term offsets decrease at term 1"),
    (lambda u, o: (u[:-1], o), r"run from 0 to \d+; they must run from 0 to the \d+ bytes"),
    (lambda u, o: (u, o.astype(np.float64)), r"term_offsets is not an array of integers"),
    (lambda u, o: (u.astype(np.int16), o), r"terms_utf8 is not an array of bytes"),
    (lambda u, o: (u, o[:-1]), r"coef array's header declares shape \(1, \d+\)"),
    (lambda u, o: (u, o.reshape(1, -1)), r"term_offsets array's header declares shape \(1, "),
    (lambda u, o: (u, None), r"terms_utf8 array is there without term_offsets"),
], ids=["reversed", "decreasing", "short bytes", "float offsets", "int16 bytes",
        "a term less", "2-d offsets", "no offsets"])
def test_damaged_terms_are_refused_clearly(tmp_path, accented, damage, message):
    path = _save(tmp_path, accented[0])
    with np.load(path) as npz:
        utf8, offsets = damage(npz["terms_utf8"], npz["term_offsets"])
    bad = _with_terms(path, tmp_path / "bad.npz", utf8, offsets)
    with pytest.raises(ModelFormatError, match="not a usable textwin model file .*" + message):
        load_model(bad)


def test_offsets_inside_a_character_or_repeating_a_term_are_refused(tmp_path, accented):
    path = _save(tmp_path, accented[0])
    with np.load(path) as npz:
        utf8, offsets = npz["terms_utf8"], npz["term_offsets"]
    terms = [utf8[a:b].tobytes() for a, b in zip(offsets, offsets[1:])]
    j = next(j for j, t in enumerate(terms) if len(t.decode()) < len(t))  # a 2+ byte char
    start = int(offsets[j]) + next(k for k, c in enumerate(terms[j]) if c >= 0x80) + 1
    inside = offsets.copy()
    inside[j + 1] = start  # term j ends after the first byte of its character
    cut = _with_terms(path, tmp_path / "cut.npz", utf8, inside)
    with pytest.raises(ModelFormatError, match=r"term \d+ \(bytes \d+ to \d+\) is not UTF-8"):
        load_model(cut)
    # the same number of terms, the second a copy of the first: one column would be lost
    twice = [terms[0], terms[0]] + terms[2:]
    lengths = np.cumsum([0] + [len(t) for t in twice])
    dup = _with_terms(path, tmp_path / "dup.npz", np.frombuffer(b"".join(twice), np.uint8),
                      lengths.astype(np.int64))
    with pytest.raises(ModelFormatError, match=r"holds the term .* twice"):
        load_model(dup)


def test_a_file_with_both_vocabularies_is_refused(tmp_path, accented):
    path = _save(tmp_path, accented[0])
    with np.load(path) as npz:
        utf8, offsets = npz["terms_utf8"], npz["term_offsets"]
    both = _with_terms(path, tmp_path / "both.npz", utf8, offsets,
                       vocabulary=np.array(accented[0][0].get_feature_names_out().tolist()))
    with pytest.raises(ModelFormatError, match="two vocabularies"):
        load_model(both)


def test_a_term_offsets_header_declaring_gigabytes_is_refused_unread(tmp_path, accented):
    path = _save(tmp_path, accented[0])
    bad = _with_coef_entry(path, tmp_path / "huge.npz", (750_000_000,), 8 * 10,
                           name="term_offsets", descr="<i8")

    def load():
        with pytest.raises(ModelFormatError, match=r"term_offsets array's header declares "
                                                    r"shape \(750000000,\) \(6.0 GB\)"):
            load_model(bad)
    assert _peak_bytes_of(load) < 16 << 20


def test_a_model_of_an_estimator_fitted_on_a_matrix_keeps_its_weights_and_what_its_columns_are():
    rng = np.random.RandomState(0)
    X = sp.csr_matrix(rng.rand(40, 5))
    y = (X[:, 0].toarray().ravel() > 0.5).astype(int)
    est = DualSVM(lam=0.01, fit_intercept=True, random_state=0).fit(X, y)
    model = TextModel.of_estimator(est, ["yes"], metadata={"corpus": "c"},
                                   check=(X, est.decision_function(X)[:, None]),
                                   vocabulary=list("abcde"), task="binary",
                                   classes=["no", "yes"], thresholds=[0.25])
    np.testing.assert_array_equal(model.coef, est.coef_)
    np.testing.assert_array_equal(model.intercept, est.intercept_)
    assert model.metadata["estimator"].endswith("DualSVM") and model.metadata["corpus"] == "c"
    assert list(model.metadata)[-1] == "corpus"  # the caller's metadata after the estimator's
    assert model.thresholds.tolist() == [0.25] and model.vocabulary.tolist() == list("abcde")
    # scores that the weights do not give (a bias kept outside intercept_): refused
    with pytest.raises(ValueError, match="scores are not coef_ @ x"):
        TextModel.of_estimator(est, ["yes"], check=(X, est.decision_function(X)[:, None] + 1),
                               task="binary", classes=["no", "yes"])
