"""Reuters-21578 loader: published ModApte counts, parsing, errors, download, cache."""
import io
import shutil
import tarfile
import urllib.error
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from textwin.datasets import (
    REUTERS_TOP10,
    ReutersFormatError,
    fetch_reuters21578,
    get_cache_dir,
    get_data_home,
    load_reuters_vectorized,
)
from textwin.datasets import _base, _reuters
from textwin.datasets._reuters import SGML_FILES
from textwin.datasets._sgml_parser import parse_sgml, parse_sgml_file
from textwin.text import TextVectorizer

# Published ModApte counts (train, test) of the ten largest categories.
TOP10_COUNTS = {
    "earn": (2877, 1087), "acq": (1650, 719), "money-fx": (538, 179),
    "grain": (433, 149), "crude": (389, 189), "trade": (369, 117),
    "interest": (347, 131), "ship": (197, 89), "wheat": (212, 71), "corn": (181, 56),
}


@pytest.fixture(scope="module")
def modapte(reuters_data_home):
    train = fetch_reuters21578(data_home=reuters_data_home, subset="train")
    test = fetch_reuters21578(data_home=reuters_data_home, subset="test")
    return train, test


# ---------------------------------------------------------------------------
# The published counts
# ---------------------------------------------------------------------------

@pytest.mark.corpus
def test_modapte_split_sizes_and_categories(modapte):
    train, test = modapte
    assert len(train.data) == 9603 and train.target.shape == (9603, 118)
    assert len(test.data) == 3299 and test.target.shape == (3299, 118)
    assert train.target_names == test.target_names == sorted(train.target_names)
    assert train.target.dtype == np.uint8 and set(np.unique(train.target)) == {0, 1}
    # Every one of the 118 columns occurs somewhere in train + test.
    assert ((train.target.sum(0) + test.target.sum(0)) > 0).all()
    assert len(set(train.ids) | set(test.ids)) == 9603 + 3299
    # Stories without a topic stay in (README VIII.B): rows of zeros.
    assert (train.target.sum(1) == 0).any() and (test.target.sum(1) == 0).any()


@pytest.mark.corpus
def test_ten_largest_categories_have_the_published_counts(modapte):
    train, test = modapte
    for name, (n_train, n_test) in TOP10_COUNTS.items():
        j = train.target_names.index(name)
        assert (train.target[:, j].sum(), test.target[:, j].sum()) == (n_train, n_test), name
    # ... and they are the ten largest by training count.
    largest = np.argsort(-train.target.sum(0, dtype=np.int64), kind="stable")[:10]
    assert {train.target_names[j] for j in largest} == set(REUTERS_TOP10)


@pytest.mark.corpus
def test_apte90_and_top10(reuters_data_home, modapte):
    train, test = modapte
    apte = fetch_reuters21578(data_home=reuters_data_home, subset="test", categories="apte90")
    assert len(apte.target_names) == 90
    assert apte.target.shape == (3299, 90)  # no test story is dropped
    both = [c for j, c in enumerate(train.target_names)
            if train.target[:, j].any() and test.target[:, j].any()]
    assert apte.target_names == both
    top = fetch_reuters21578(data_home=reuters_data_home, categories="top10")
    assert top.target_names == sorted(REUTERS_TOP10) and top.target.shape == (9603, 10)
    assert REUTERS_TOP10[:3] == ["earn", "acq", "money-fx"]
    j = top.target_names.index("wheat")
    assert top.target[:, j].sum() == 212


@pytest.mark.corpus
def test_text_title_body_entities_and_topics(reuters_data_home, modapte):
    train, _ = modapte
    i = list(train.ids).index(1)
    assert train.data[i].startswith("BAHIA COCOA REVIEW\nShowers continued throughout")
    assert train.titles[i] == "BAHIA COCOA REVIEW"
    # <D> inside <PLACES> (el-salvador, usa, uruguay) is not a topic.
    assert [train.target_names[j] for j in np.flatnonzero(train.target[i])] == ["cocoa"]
    assert "usa" not in train.target_names
    everything = "".join(train.data)
    assert "&#" not in everything and "&lt;" not in everything
    assert not any(chr(c) in everything for c in (1, 2, 3, 5, 22, 30, 31, 127))
    assert "<" in everything  # from &lt;, unescaped
    # reut2-017.sgm is latin-1, not UTF-8: the 0xFC byte is a u-umlaut.
    docs = parse_sgml_file(reuters_data_home / "reuters21578" / "reut2-017.sgm")
    assert any("\xfc" in d.title + d.body for d in docs)


@pytest.mark.corpus
def test_subset_all_and_return_X_y(reuters_data_home, modapte):
    train, test = modapte
    data, target = fetch_reuters21578(
        data_home=reuters_data_home, subset="all", categories=["corn", "wheat"], return_X_y=True
    )
    assert len(data) == 9603 + 3299
    assert data[:3] == train.data[:3]
    cols = [train.target_names.index("corn"), train.target_names.index("wheat")]
    np.testing.assert_array_equal(target, np.vstack([train.target[:, cols], test.target[:, cols]]))


@pytest.mark.corpus
def test_unknown_category_and_subset(reuters_data_home):
    with pytest.raises(ValueError, match="unknown Reuters-21578 category 'mony-fx'.*money-fx"):
        fetch_reuters21578(data_home=reuters_data_home, categories=["earn", "mony-fx"])
    with pytest.raises(ValueError, match="closest names: earn"):
        fetch_reuters21578(data_home=reuters_data_home, categories=["earnings"])
    with pytest.raises(ValueError, match=r"pass \['earn'\]"):
        fetch_reuters21578(data_home=reuters_data_home, categories="earn")
    with pytest.raises(ValueError, match=r"must be names \(str\), got \[3\]"):
        fetch_reuters21578(data_home=reuters_data_home, categories=[3])
    with pytest.raises(ValueError, match=r"categories=5 is not understood"):  # a TypeError
        fetch_reuters21578(data_home=reuters_data_home, categories=5)
    names = fetch_reuters21578(data_home=reuters_data_home, categories=np.array(["wheat", "corn"]))
    assert names.target_names == ["corn", "wheat"] and type(names.target_names[0]) is str
    with pytest.raises(ValueError, match="empty list"):
        fetch_reuters21578(data_home=reuters_data_home, categories=[])
    with pytest.raises(ValueError, match="subset='dev'"):
        fetch_reuters21578(data_home=reuters_data_home, subset="dev")


# ---------------------------------------------------------------------------
# The vectorized corpus and its cache
# ---------------------------------------------------------------------------

@pytest.mark.corpus
def test_vectorized_matches_fetch_and_textvectorizer(reuters_data_home, modapte):
    train, test = modapte
    b = load_reuters_vectorized(data_home=reuters_data_home)
    for X, n in ((b.X_train, 9603), (b.X_test, 3299)):
        assert sp.isspmatrix_csr(X) and X.dtype == np.float64 and X.shape[0] == n
        assert X.shape[1] == len(b.feature_names)
        assert np.all(X.data == 1.0)
    np.testing.assert_array_equal(b.Y_train, train.target)
    np.testing.assert_array_equal(b.Y_test, test.target)
    np.testing.assert_array_equal(b.ids_train, train.ids)
    assert b.target_names == train.target_names
    assert list(b.feature_names) == sorted(b.feature_names)
    # The cached matrices are what the vectorizer gives on the fetched texts.
    vec = TextVectorizer(weighting="binary", stemmer="nltk")
    X_train = vec.fit_transform(train.data)
    assert vec.get_feature_names_out().tolist() == list(b.feature_names)
    assert (X_train != b.X_train).nnz == 0
    assert (vec.transform(test.data) != b.X_test).nnz == 0


@pytest.mark.corpus
def test_vectorized_weightings_and_categories(reuters_data_home):
    counts = load_reuters_vectorized(data_home=reuters_data_home, weighting="count")
    assert counts.X_train.data.min() >= 1 and counts.X_train.data.max() > 1
    tfidf = load_reuters_vectorized(
        data_home=reuters_data_home, weighting="tfidf", categories="top10"
    )
    norms = np.sqrt(np.asarray(tfidf.X_train.multiply(tfidf.X_train).sum(1)).ravel())
    empty = np.diff(tfidf.X_train.indptr) == 0
    np.testing.assert_allclose(norms[~empty], 1.0)
    assert tfidf.target_names == sorted(REUTERS_TOP10)
    assert [int(tfidf.Y_train[:, tfidf.target_names.index(c)].sum()) for c in REUTERS_TOP10] == [
        TOP10_COUNTS[c][0] for c in REUTERS_TOP10
    ]
    apte = load_reuters_vectorized(data_home=reuters_data_home, categories="apte90")
    assert apte.Y_test.shape == (3299, 90)
    with pytest.raises(ValueError, match="weighting='bm25'"):
        load_reuters_vectorized(data_home=reuters_data_home, weighting="bm25")


@pytest.mark.corpus
def test_second_call_neither_parses_nor_stems(reuters_data_home, monkeypatch):
    first = load_reuters_vectorized(data_home=reuters_data_home)  # builds the cache if needed

    def forbidden(*args, **kwargs):
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(_reuters, "_parse_corpus", forbidden)
    monkeypatch.setattr(_reuters, "_build_counts", forbidden)
    monkeypatch.setattr("textwin.text.PorterStemmer.stem", forbidden)
    monkeypatch.setattr("textwin.text.PorterStemmer.stem_many", forbidden)
    second = load_reuters_vectorized(data_home=reuters_data_home)
    assert (first.X_train != second.X_train).nnz == 0
    np.testing.assert_array_equal(first.Y_test, second.Y_test)


@pytest.mark.corpus
def test_corrupted_cache_is_rebuilt_with_a_warning(reuters_data_home, tmp_path, monkeypatch):
    reference = load_reuters_vectorized(data_home=reuters_data_home)
    # Work on a copy of the session cache so the other tests keep theirs.
    for f in get_cache_dir(reuters_data_home).glob("reuters21578_*"):
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.setenv("TEXTWIN_CACHE_DIR", str(tmp_path))
    (npz,) = tmp_path.glob("*.npz")
    npz.write_bytes(npz.read_bytes()[: npz.stat().st_size // 2])  # truncated
    with pytest.warns(UserWarning, match="damaged or stale.*rebuilding"):
        rebuilt = load_reuters_vectorized(data_home=reuters_data_home)
    assert (rebuilt.X_train != reference.X_train).nnz == 0
    # Rebuilt and now consistent: the next call is silent and uses it.
    monkeypatch.setattr(_reuters, "_build_counts", lambda *a: pytest.fail("rebuilt twice"))
    load_reuters_vectorized(data_home=reuters_data_home)


def test_cache_reader_rejects_garbage(tmp_path):
    npz, js = tmp_path / "c.npz", tmp_path / "c.json"
    npz.write_bytes(b"not a zip")
    js.write_text("{not json")
    with pytest.raises(ValueError):
        _reuters._load_counts(npz, js, {})
    js.write_text('{"cache_format": 999}')
    with pytest.raises(ValueError, match="cache_format"):
        _reuters._load_counts(npz, js, {"cache_format": 1})
    js.write_text('{"npz_sha256": "0"}')
    with pytest.raises(ValueError, match="does not match the digest"):
        _reuters._load_counts(npz, js, {})


# ---------------------------------------------------------------------------
# Data home and cache folder
# ---------------------------------------------------------------------------

def test_get_data_home_order(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TEXTWIN_DATA_HOME", raising=False)
    assert get_data_home() == tmp_path / "home" / "textwin_data"
    assert not get_data_home().exists()  # created when a file is written there, not before
    monkeypatch.setenv("TEXTWIN_DATA_HOME", str(tmp_path / "env"))
    assert get_data_home() == tmp_path / "env"
    assert get_data_home(tmp_path / "arg") == tmp_path / "arg"
    assert get_data_home("~/x") == tmp_path / "home" / "x"
    # an empty choice is no choice, on the command line as in the environment (an
    # empty --data-home was the current folder, an empty TEXTWIN_DATA_HOME the default)
    assert get_data_home("") == tmp_path / "env"
    monkeypatch.setenv("TEXTWIN_DATA_HOME", "")
    assert get_data_home("") == get_data_home() == tmp_path / "home" / "textwin_data"


def test_get_cache_dir_order(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("TEXTWIN_CACHE_DIR", str(tmp_path / "env_cache"))
    assert get_cache_dir(tmp_path / "data") == tmp_path / "env_cache"
    monkeypatch.delenv("TEXTWIN_CACHE_DIR")
    assert get_cache_dir(tmp_path / "data") == tmp_path / "data" / "cache"
    # A read-only data home (r-x, as CI's): the user cache folder takes over,
    # even for root, who could write there anyway.
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o555)
    try:
        assert get_cache_dir(readonly) == tmp_path / "home" / ".cache" / "textwin"
        assert not (readonly / "cache").exists()
    finally:
        readonly.chmod(0o755)
    real = _base._writable_dir
    monkeypatch.setattr(
        _base, "_writable_dir", lambda p: None if "data" in p.parts else real(p)
    )
    assert get_cache_dir(tmp_path / "data") == tmp_path / "home" / ".cache" / "textwin"
    monkeypatch.setattr(_base, "_writable_dir", lambda p: None)
    with pytest.raises(OSError, match="TEXTWIN_CACHE_DIR"):
        get_cache_dir(tmp_path / "data")


def test_an_unusable_cache_dir_setting_is_an_error_not_a_fallback(tmp_path, monkeypatch):
    from textwin.datasets import CacheDirError

    (tmp_path / "a_file").write_text("")
    monkeypatch.setenv("TEXTWIN_CACHE_DIR", str(tmp_path / "a_file"))
    with pytest.raises(CacheDirError, match="TEXTWIN_CACHE_DIR=.*a_file is not a writable "
                                            r"folder \(it is a file\)"):
        get_cache_dir(tmp_path / "data")
    assert not (tmp_path / "data" / "cache").exists()  # nothing written into the data home
    readonly = tmp_path / "ro"
    readonly.mkdir()
    readonly.chmod(0o555)
    try:
        monkeypatch.setenv("TEXTWIN_CACHE_DIR", str(readonly / "sub"))
        with pytest.raises(CacheDirError, match="ro/sub is not a writable folder;"):
            get_cache_dir(tmp_path / "data")
    finally:
        readonly.chmod(0o755)


def test_a_data_home_that_is_a_file_says_so(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(NotADirectoryError, match="the data home .*f is a file, not a folder"):
        get_data_home(tmp_path / "f")


# ---------------------------------------------------------------------------
# Parsing: well-formed and malformed SGML
# ---------------------------------------------------------------------------

def _story(newid=1, topics="<D>grain</D><D>corn</D>", text=None, attrs=None):
    attrs = attrs or f'TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="9" NEWID="{newid}"'
    text = text or (
        "<TEXT>&#2;\n<TITLE>CORN &amp; GRAIN &lt;ADM></TITLE>\n"
        "<DATELINE>CHICAGO</DATELINE><BODY>Corn rose.\n Reuter\n&#3;</BODY></TEXT>"
    )
    return (
        f"<REUTERS {attrs}>\n<DATE>26-FEB-1987</DATE>\n<TOPICS>{topics}</TOPICS>\n"
        f"<PLACES><D>usa</D></PLACES>\n<PEOPLE></PEOPLE>\n<ORGS></ORGS>\n"
        f"<EXCHANGES></EXCHANGES>\n<COMPANIES></COMPANIES>\n"
        f"<UNKNOWN>&#5;&#5;&#5;C T</UNKNOWN>\n{text}\n</REUTERS>\n"
    )


HEAD = '<!DOCTYPE lewis SYSTEM "lewis.dtd">\n'


def test_parse_well_formed_stories():
    brief = '<TEXT TYPE="BRIEF">&#2;\n******<TITLE>WHEAT UP</TITLE>Blah blah blah.\n&#3;</TEXT>'
    unproc = '<TEXT TYPE="UNPROC">&#2;\nM-1....736.7 up 2.1\n&#3;</TEXT>'
    docs = parse_sgml(
        HEAD + _story(1) + _story(2, topics="", text=brief) + _story(3, text=unproc), "x.sgm"
    )
    assert [d.newid for d in docs] == [1, 2, 3]
    assert docs[0].topics == ("grain", "corn")  # not "usa" from <PLACES>
    assert docs[0].title == "CORN & GRAIN <ADM>"
    assert docs[0].body == "Corn rose.\n Reuter"  # the &#3; control entity is gone
    assert (docs[1].title, docs[1].body, docs[1].topics) == ("WHEAT UP", "", ())
    assert (docs[2].title, docs[2].body) == ("", "M-1....736.7 up 2.1")
    assert docs[0].lewissplit == "TRAIN" and docs[0].topics_attr == "YES"


@pytest.mark.parametrize(
    "mutate, message, line",
    [
        # truncated: the last story is never closed
        (lambda s: s[: s.rindex("<BODY>")], r"never closed \(file truncated\?\)", 17),
        (lambda s: s.replace("</REUTERS>\n<REUTERS", "<REUTERS", 1), "not closed before the next one", 2),
        (lambda s: s.replace(' NEWID="2"', "", 1), "without the NEWID attribute", 17),
        (lambda s: s.replace('LEWISSPLIT="TRAIN"', 'LEWISSPLIT="DEV"', 1), 'LEWISSPLIT="DEV" is not one of', 2),
        (lambda s: s.replace('TOPICS="YES"', "TOPICS=YES", 1), "malformed attributes", 2),
        (lambda s: s.replace("</REUTERS>\n", "</REUTERS>\nstray text\n", 1), "unexpected text outside", 17),
        (lambda s: s.replace("</TEXT>", "", 1), "exactly one <TEXT>", 11),
        (lambda s: s.replace("<TOPICS><D>grain</D>", "<TOPICS>grain", 1), "must hold only <D>", 4),
        (lambda s: s.replace("<TOPICS>", "", 1), "has 0 <TOPICS> and 1 </TOPICS>", 2),
        (lambda s: s.replace("</BODY>", "", 1), "has 1 <BODY> and 0 </BODY>", 13),
        (lambda s: s.replace("<TEXT>", '<TEXT TYPE="ODD">', 1), "malformed tag", 11),
        (lambda s: s.rstrip("\n")[:-1], r"unterminated <REUTERS tag|never closed", None),
        (lambda s: HEAD, "no <REUTERS> element", None),
    ],
)
def test_malformed_sgml_names_file_and_line(tmp_path, mutate, message, line):
    good = HEAD + _story(1) + _story(2)
    assert len(parse_sgml(good)) == 2
    path = tmp_path / "reut2-007.sgm"
    path.write_bytes(mutate(good).encode("latin-1"))
    with pytest.raises(ReutersFormatError, match=message) as info:
        parse_sgml_file(path)
    assert str(info.value).startswith("reut2-007.sgm")
    if line is not None:
        assert f"reut2-007.sgm, line {line}:" in str(info.value)


# ---------------------------------------------------------------------------
# Finding, unpacking and downloading
# ---------------------------------------------------------------------------

def test_missing_corpus_without_download_says_what_to_do(tmp_path):
    with pytest.raises(OSError) as info:
        fetch_reuters21578(data_home=tmp_path, download_if_missing=False)
    message = str(info.value)
    assert f"not found in {tmp_path}" in message
    assert str(tmp_path / "reuters21578") in message and "reut2-000.sgm" in message
    assert str(tmp_path / "reuters21578.tar.gz") in message
    assert "https://archive.ics.uci.edu/" in message


def test_offline_download_fails_with_manual_steps(tmp_path, monkeypatch):
    def offline(url, timeout=None):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(_base, "_urlopen", offline)
    with pytest.raises(OSError, match="could not download") as info:
        fetch_reuters21578(data_home=tmp_path)
    assert "name resolution" in str(info.value)
    assert str(tmp_path / "reuters21578") in str(info.value)
    assert not list(tmp_path.glob("*.tar.gz"))  # nothing half-written left behind


def _tar_bytes(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as tf:
        for name, payload, kind in members:
            info = tarfile.TarInfo(name)
            if kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            else:
                info.size = len(payload)
            tf.addfile(info, io.BytesIO(payload) if kind == "file" else None)
    return buf.getvalue()


@pytest.mark.parametrize(
    "member, kind",
    [("../reut2-000.sgm", "file"), ("/tmp/reut2-000.sgm", "file"), ("reut2-000.sgm", "symlink")],
)
def test_unsafe_archive_is_refused(tmp_path, member, kind):
    (tmp_path / "reuters21578.tar.gz").write_bytes(_tar_bytes([(member, b"x", kind)]))
    with pytest.raises(OSError, match="refusing to unpack"):
        fetch_reuters21578(data_home=tmp_path, download_if_missing=False)
    assert not (tmp_path / "reuters21578" / "reut2-000.sgm").exists()
    assert not (tmp_path.parent / "reut2-000.sgm").exists()


def test_damaged_archive_says_so(tmp_path):
    (tmp_path / "reuters21578.tar.gz").write_bytes(b"<html>503 Service Unavailable</html>")
    with pytest.raises(OSError, match="damaged or not a tar.gz/zip archive"):
        fetch_reuters21578(data_home=tmp_path, download_if_missing=False)


def test_archive_with_wrong_checksum_is_refused(tmp_path):
    (tmp_path / "reuters21578.tar.gz").write_bytes(
        _tar_bytes([("reut2-000.sgm", b"<REUTERS>tampered</REUTERS>", "file")])
    )
    with pytest.raises(OSError, match="reut2-000.sgm in .* has SHA-256 .* expected"):
        fetch_reuters21578(data_home=tmp_path, download_if_missing=False)
    assert not (tmp_path / "reuters21578" / "reut2-000.sgm").exists()


def test_tampered_download_is_deleted(tmp_path, monkeypatch):
    tampered = _tar_bytes([(f, b"<REUTERS>x</REUTERS>", "file") for f in SGML_FILES])
    monkeypatch.setattr(_base, "_urlopen", lambda url, timeout=None: _Response(tampered))
    with pytest.raises(OSError, match=r"(?s)could not download.*SHA-256.*the download was deleted"):
        fetch_reuters21578(data_home=tmp_path)
    assert not list(tmp_path.glob("*.tar.gz")) and not list(tmp_path.glob("*.zip"))
    assert not (tmp_path / "reuters21578" / "reut2-000.sgm").exists()


@pytest.fixture(scope="module")
def distribution_tar(reuters_data_home):
    """The 22 SGML files packed like the published reuters21578.tar.gz."""
    src = reuters_data_home / "reuters21578"
    return _tar_bytes([(f, (src / f).read_bytes(), "file") for f in SGML_FILES]
                      + [("README.txt", b"readme", "file")])


class _Response(io.BytesIO):
    def __init__(self, payload):
        super().__init__(payload)
        self.headers = {"Content-Length": str(len(payload))}


@pytest.mark.corpus
def test_local_tar_gz_is_unpacked(tmp_path, distribution_tar):
    (tmp_path / "reuters21578.tar.gz").write_bytes(distribution_tar)
    train = fetch_reuters21578(data_home=tmp_path, download_if_missing=False, categories="top10")
    assert len(train.data) == 9603
    assert sorted(p.name for p in (tmp_path / "reuters21578").iterdir()) == list(SGML_FILES)


@pytest.mark.corpus
def test_download_falls_back_to_the_uci_zip(tmp_path, monkeypatch, distribution_tar):
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("reuters21578.tar.gz", distribution_tar)
    served = []

    def fake_urlopen(url, timeout=None):
        served.append(url)
        if url.endswith(".tar.gz"):
            raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)
        return _Response(zbuf.getvalue())

    monkeypatch.setattr(_base, "_urlopen", fake_urlopen)
    test = fetch_reuters21578(data_home=tmp_path, subset="test")
    assert len(test.data) == 3299 and len(served) == 2
    assert (tmp_path / "reuters+21578+text+categorization+collection.zip").is_file()
    # Now local: no second download.
    monkeypatch.setattr(_base, "_urlopen", lambda *a, **k: pytest.fail("downloaded twice"))
    fetch_reuters21578(data_home=tmp_path, subset="test")


@pytest.mark.corpus
def test_download_from_a_file_url(tmp_path, monkeypatch, distribution_tar):
    # The real opener (urllib) on a file:// URL: the whole download path but the network.
    served = tmp_path / "server" / "reuters21578.tar.gz"
    served.parent.mkdir()
    served.write_bytes(distribution_tar)
    remote = _reuters.ARCHIVES[0]._replace(url=served.as_uri())
    monkeypatch.setattr(_reuters, "ARCHIVES", (remote,))
    home = tmp_path / "home"
    train = fetch_reuters21578(data_home=home, categories=["acq"])
    assert len(train.data) == 9603 and int(train.target.sum()) == 1650
    assert (home / "reuters21578.tar.gz").read_bytes() == distribution_tar
    assert not list(home.glob(".*.tmp"))  # atomic writes left no temporary file


@pytest.mark.corpus
def test_truncated_sgml_file_in_corpus_names_it(tmp_path, reuters_data_home):
    corpus = tmp_path / "reuters21578"
    shutil.copytree(reuters_data_home / "reuters21578", corpus,
                    ignore=lambda d, names: [n for n in names if n not in SGML_FILES])
    for f in corpus.iterdir():
        f.chmod(0o644)
    victim = corpus / "reut2-005.sgm"
    payload = victim.read_bytes()
    victim.write_bytes(payload[: len(payload) // 2])
    with pytest.warns(UserWarning, match="reut2-005.sgm"):  # digest differs from the release
        with pytest.raises(ReutersFormatError, match=r"reut2-005.sgm, line \d+: .*never closed"):
            fetch_reuters21578(data_home=tmp_path, download_if_missing=False)
    # cut just after a story: the file still parses, and 353 training stories
    # went missing with nothing but the digest warning
    end = payload.index(b"</REUTERS>", len(payload) // 2) + len(b"</REUTERS>")
    victim.write_bytes(payload[:end] + b"\n")
    with pytest.warns(UserWarning, match="reut2-005.sgm"):
        with pytest.raises(ReutersFormatError, match=r"reut2-005.sgm holds \d+ stories, the "
                                                     r"published file 1000: it is truncated"):
            fetch_reuters21578(data_home=tmp_path, download_if_missing=False)
    victim.unlink()
    with pytest.raises(OSError, match=r"holds only 21 of the 22 SGML files \(reut2-005.sgm "
                                      r"missing\)"):
        fetch_reuters21578(data_home=tmp_path, download_if_missing=False)


# -- clear_data_home --------------------------------------------------------

def _fake_tree(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "reuters21578").mkdir(parents=True)
    (home / "reuters21578" / "reut2-000.sgm").write_text("corpus")
    (home / "cache").mkdir()
    (home / "cache" / "reuters21578_modapte_abc.npz").write_bytes(b"x")
    (home / "cache" / "reuters21578_modapte_abc.json").write_text("{}")
    shared = tmp_path / "shared_cache"
    shared.mkdir()
    (shared / "reuters21578_modapte_def.npz").write_bytes(b"x")
    (shared / "someone_elses.npz").write_bytes(b"x")
    monkeypatch.setenv("TEXTWIN_CACHE_DIR", str(shared))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return home, shared


def test_clear_data_home_removes_the_home_and_only_textwins_caches(tmp_path, monkeypatch):
    from textwin.datasets import clear_data_home

    home, shared = _fake_tree(tmp_path, monkeypatch)
    removed = clear_data_home(home)
    assert not home.exists()
    assert home in removed and shared / "reuters21578_modapte_def.npz" in removed
    # a shared cache folder keeps other programs' files, and itself
    assert sorted(p.name for p in shared.iterdir()) == ["someone_elses.npz"]
    assert clear_data_home(home) == []          # nothing left: no error


def test_clear_data_home_keeps_other_files_and_a_read_only_home(tmp_path, monkeypatch):
    # with TEXTWIN_DATA_HOME at a shared folder (CI's ../shared), deleting the
    # whole folder took everything in it, and root ignores r-x permissions
    from textwin.datasets import clear_data_home

    home, _ = _fake_tree(tmp_path, monkeypatch)
    (home / "notes").mkdir()
    (home / "notes" / "mine.txt").write_text("keep")
    removed = clear_data_home(home)
    assert home / "reuters21578" in removed and home / "cache" in removed
    assert sorted(p.name for p in home.iterdir()) == ["notes"]
    (home / "reuters21578").mkdir()
    home.chmod(0o555)
    try:
        with pytest.raises(PermissionError, match="read-only.*keep_corpus=True"):
            clear_data_home(home)
        assert (home / "reuters21578").is_dir() and (home / "notes" / "mine.txt").exists()
    finally:
        home.chmod(0o755)


def test_clear_data_home_keep_corpus(tmp_path, monkeypatch):
    from textwin.datasets import clear_data_home

    home, shared = _fake_tree(tmp_path, monkeypatch)
    removed = clear_data_home(home, keep_corpus=True)
    assert (home / "reuters21578" / "reut2-000.sgm").read_text() == "corpus"
    assert sorted(p.name for p in removed) == ["reuters21578_modapte_abc.json",
                                               "reuters21578_modapte_abc.npz",
                                               "reuters21578_modapte_def.npz"]
    assert (shared / "someone_elses.npz").exists()
