"""Shared helpers of the performance benchmarks (bench_scale, bench_memory,
bench_parallel, bench_reproduction, bench_epoch_cost).

Nothing here is timed itself: it gives the scripts one way to

* describe the machine (cores, CPU model, load average) next to every figure,
  since the numbers only mean something for the machine and load they were
  taken on;
* time a callable (median of ``repeats`` runs, callables interleaved so that
  textwin and its peer share the machine's noise);
* build synthetic text-like sparse corpora (Zipf word frequencies);
* estimate the memory bandwidth with numpy (copy and sum of a large array);
* print results and, with ``--json``, write them as one JSON document.

Run the scripts from the repository root (``python benchmarks/<name>.py``):
they import this module from their own folder.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

try:  # an installed textwin, or the repository's in-place build (run from anywhere)
    import textwin  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

__all__ = [
    "machine_info", "print_machine", "load_average", "interleaved_times", "median_time",
    "zipf_corpus", "rcv1_like_corpus", "memory_bandwidth", "as_kernel_csr", "reuters_binary_ig",
    "reuters_tfidf", "corpus_or_exit", "require_corpus", "JsonPath", "emit_json",
    "add_common_args", "add_smoke_arg", "smoke_jsonl", "head_lines", "smoke_cut", "skip_missing_peer", "kernel_fit",
    "status_kib", "reset_peak_rss",
]


# ---------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------

def _cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average():
    """The 1-, 5- and 15-minute load averages (None where unavailable)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def machine_info():
    """Cores, CPU model, load, Python and library versions, as a dict."""
    import scipy
    import sklearn

    try:
        import textwin
        from textwin._kernels._dual_gs import simd_path
        tw_version = getattr(textwin, "__version__", "?")
        simd = simd_path()
    except ImportError:  # the scripts check this themselves
        tw_version = simd = None
    return {
        "cpu_model": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "load_average": load_average(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "textwin": tw_version,
        "kernel_simd": simd,
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def print_machine(info=None, file=None):
    info = info or machine_info()
    file = file or sys.stdout
    load = info["load_average"]
    print(f"machine: {info['cpu_model']}, {info['logical_cores']} logical cores "
          f"({info['usable_cores']} usable), load average {load} at {info['utc']}", file=file)
    print(f"python {info['python']}, numpy {info['numpy']}, scipy {info['scipy']}, "
          f"scikit-learn {info['scikit-learn']}, textwin {info['textwin']} "
          f"(kernel loops: {info.get('kernel_simd')})", file=file)
    return info


def status_kib(field, pid="self"):
    """A ``/proc/PID/status`` field in KiB (Linux): VmRSS, VmHWM (peak RSS), ..."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(field)


def reset_peak_rss():
    """Reset VmHWM to the current RSS (Linux); False where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------

def interleaved_times(fns, repeats=3, timer=time.perf_counter):
    """Run the callables in turn, ``repeats`` rounds, so that they share the noise.

    Returns, per callable, a dict ``{"median", "min", "times", "result"}``
    (seconds; ``result`` is the last run's return value). ``timer`` is the
    clock: wall time by default; ``time.thread_time`` counts only the CPU
    time of the calling thread, which other processes on a busy machine do
    not inflate (only for work done in that thread).
    """
    times = [[] for _ in fns]
    outs = [None] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            t0 = timer()
            outs[k] = fn()
            times[k].append(timer() - t0)
    return [{"median": statistics.median(t), "min": min(t), "times": t, "result": o}
            for t, o in zip(times, outs)]


def median_time(fn, repeats=3):
    """``interleaved_times([fn], repeats)[0]``."""
    return interleaved_times([fn], repeats)[0]


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------

def as_kernel_csr(X):
    """X as the kernel wants it: CSR, float64, int32 indices, sorted, no duplicates."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sum_duplicates()
    X.sort_indices()
    X.indices = X.indices.astype(np.int32, copy=False)
    X.indptr = X.indptr.astype(np.int32, copy=False)
    return X


def zipf_corpus(n, d, mean_nnz=80, exponent=1.1, seed=0, positive_rate=0.3):
    """A synthetic text-like corpus: Zipf word frequencies, tf-idf-like values.

    Each of the ``n`` documents draws ``Poisson(mean_nnz) + 1`` words from a
    Zipf law over ``d`` words (``p_j ~ 1 / j^exponent``); the value is
    ``1 + ln(count)`` and rows are scaled to unit Euclidean length (as the
    tf-idf pipeline does). Labels: the sign of a sparse random linear score
    plus noise, with about ``positive_rate`` positives (text categories are
    unbalanced). Returns ``(X, y)``, X canonical CSR float64 / int32, y in
    {-1, +1}.
    """
    rng = np.random.default_rng(seed)
    lengths = rng.poisson(mean_nnz, size=n) + 1
    p = 1.0 / np.arange(1, d + 1) ** exponent
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    cols = np.searchsorted(cdf, rng.random(int(lengths.sum())), side="right")
    np.minimum(cols, d - 1, out=cols)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    X = sp.csr_matrix((np.ones(cols.size), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    X.data = 1.0 + np.log(X.data)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.diags(1.0 / np.maximum(norms, 1e-12)) @ X
    X = as_kernel_csr(X)
    w_true = rng.normal(size=d) * (rng.random(d) < 0.05)
    score = X @ w_true
    score = score + 0.3 * score.std() * rng.normal(size=n)
    y = np.where(score > np.quantile(score, 1.0 - positive_rate), 1.0, -1.0)
    return X, y


def rcv1_like_corpus(n=800_000, d=47_000, mean_nnz=75, n_categories=103, top_rate=0.30,
                     bottom_rate=1e-4, exponent=1.1, seed=0, chunk=100_000):
    """An RCV1-shaped multi-label corpus: ``n`` documents, ``d`` words, ``n_categories`` topics.

    Documents as in :func:`zipf_corpus` (Zipf words, ``1 + ln(count)``, rows of
    unit length), with the number of words drawn per document set so that a
    row holds ``mean_nnz`` distinct words on average (RCV1: 804,414
    documents, 47,236 stemmed words, about 75 per document, 103 topics).
    Word ranks are drawn by inverting the Zipf law's continuous distribution
    function (closed form: 800,000 documents in seconds, not minutes).
    Topic ``k``'s frequency falls geometrically from ``top_rate`` (the first)
    to ``bottom_rate`` (the last), as RCV1's run from about 30 % to 0.01 %.
    A document is in topic ``k`` when its score on the topic's 40 key words
    (random mid-frequency words with random positive weights) plus Gaussian
    noise is among the top ``rate_k`` of all documents' scores: learnable,
    not separable. Returns ``(X, Y, rates)``: X canonical CSR float64 /
    int32, Y a CSC 0/1 indicator matrix (n, n_categories), rates the target
    frequencies.
    """
    rng = np.random.default_rng(seed)
    a = 1.0 - exponent  # rank r in [1, d + 1) with density ~ r^-exponent: F(r) = (r^a - 1) / top
    top = (d + 1.0) ** a - 1.0
    edges = np.arange(1, d + 2, dtype=np.float64)
    p = np.diff((edges ** a - 1.0) / top)  # P(word j)
    lo, hi = float(mean_nnz), 50.0 * mean_nnz  # words drawn per document: mean_nnz distinct
    for _ in range(60):  # Poisson thinning: P(word j in a document) = 1 - exp(-L p_j)
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.sum(-np.expm1(-mid * p)) < mean_nnz else (lo, mid)
    blocks = []
    for start in range(0, n, chunk):  # in chunks: COO triplets for 800,000 rows are GiBs
        rows_here = min(chunk, n - start)
        lengths = rng.poisson(hi, size=rows_here)
        u = rng.random(int(lengths.sum()))
        cols = ((1.0 + u * top) ** (1.0 / a)).astype(np.int32) - 1
        np.clip(cols, 0, d - 1, out=cols)
        rows = np.repeat(np.arange(rows_here, dtype=np.int32), lengths)
        B = sp.csr_matrix((np.ones(cols.size), (rows, cols)), shape=(rows_here, d))
        B.sum_duplicates()
        B.data = 1.0 + np.log(B.data)
        norms = np.sqrt(np.asarray(B.multiply(B).sum(axis=1)).ravel())
        blocks.append(as_kernel_csr(sp.diags(1.0 / np.maximum(norms, 1e-12)) @ B))
    X = as_kernel_csr(sp.vstack(blocks, format="csr"))
    del blocks

    rates = top_rate * (bottom_rate / top_rate) ** np.linspace(0.0, 1.0, n_categories)
    key_words = 40
    band = np.arange(20, min(d, 5000))  # mid-frequency words: not "the", not hapaxes
    W = sp.lil_matrix((d, n_categories))
    for k in range(n_categories):
        W[rng.choice(band, key_words, replace=False), k] = (rng.random(key_words) + 0.5)[:, None]
    S = (X @ W.tocsc()).tocsc()
    columns = []
    for k in range(n_categories):
        s = S[:, [k]].toarray().ravel()
        s += 0.5 * s.std() * rng.standard_normal(n)
        m = max(1, int(round(rates[k] * n)))
        columns.append(s >= np.partition(s, n - m)[n - m])  # the top m scores
    Y = sp.csc_matrix(np.column_stack(columns), dtype=np.int8)
    return X, Y, rates


_CORPUS_HINT = ("(set TEXTWIN_DATA_HOME to the folder holding reuters21578/, or run "
                "`textwin data --fetch`)")


def corpus_or_exit(load, *args, **kwargs):
    """``load(*args, **kwargs)``; a missing or damaged corpus ends the script in one line.

    A benchmark never downloads the corpus (callers pass ``download_if_missing=False``).
    """
    from textwin.datasets import ReutersFormatError

    try:
        return load(*args, **kwargs)
    except (OSError, ReutersFormatError) as exc:
        first = str(exc).strip().splitlines()[0]
        raise SystemExit(f"error: Reuters-21578 is needed: {first} {_CORPUS_HINT}")


def require_corpus(data_home=None):
    """End the script in one line unless the 22 SGML files are in the data home
    (for scripts that time the parsing itself, and so must not parse to check)."""
    from textwin.datasets import get_data_home
    from textwin.datasets._reuters import CORPUS_DIR, SGML_FILES

    folder = get_data_home(data_home) / CORPUS_DIR
    missing = [f for f in SGML_FILES if not (folder / f).is_file()]
    if missing:
        raise SystemExit(f"error: Reuters-21578 is needed: {len(missing)} of the 22 SGML files "
                         f"are missing from {folder} {_CORPUS_HINT}")


def reuters_binary_ig(n_features=1000, data_home=None):
    """The paper's features: ModApte training, binary, the 1,000 IG words, top ten.

    Returns ``(X_train, Y_train (n x 10, {0, 1}), categories, data)`` with
    ``data`` the :class:`textwin.experiments.ProtocolData`.
    """
    from textwin.experiments import load_protocol_data

    data = corpus_or_exit(load_protocol_data, "top10", data_home=data_home,
                          n_features=n_features, download_if_missing=False)
    return as_kernel_csr(data.X_train), np.asarray(data.Y_train), data.categories, data


def reuters_tfidf(data_home=None):
    """ModApte training on every stemmed word, tf-idf (rows unit length), top ten."""
    from textwin.datasets import load_reuters_vectorized

    data = corpus_or_exit(load_reuters_vectorized, data_home=data_home, weighting="tfidf",
                          categories="top10", download_if_missing=False)
    Y = data.Y_train
    Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)
    return as_kernel_csr(data.X_train), Y, list(data.target_names)


# ---------------------------------------------------------------------------
# The kernel, called directly (no estimator overhead)
# ---------------------------------------------------------------------------

def kernel_fit(X, y, *, loss="hinge", regularizer="square", lam=1e-3, tol=1e-3,
               max_epochs=1000, seed=0, kernel=None, **kwargs):
    """One binary problem through ``dual_gauss_seidel`` (uniform prior for the
    entropies); ``kernel``: another build's module (default textwin's)."""
    if kernel is None:
        from textwin._kernels import _dual_gs as kernel
    dual_gauss_seidel = kernel.dual_gauss_seidel

    n, d = X.shape
    mu = None
    if regularizer != "square":
        mu = np.full(d, 1.0 / (2 * d if "balanced" in regularizer else d))
    alpha = np.zeros(n)
    return dual_gauss_seidel(X.data, X.indices, X.indptr, y, np.ones(n), np.ones(n), alpha, d,
                             loss=loss, regularizer=regularizer, lam=lam, mu=mu, tol=tol,
                             max_epochs=max_epochs, seed=seed, **kwargs)


# ---------------------------------------------------------------------------
# The machine's memory bandwidth
# ---------------------------------------------------------------------------

def memory_bandwidth(n_bytes=256 * 2 ** 20, repeats=5):
    """Sustained bandwidth of one thread, measured with numpy on a large array.

    Two numbers, each the best of ``repeats`` runs on a float64 array of
    ``n_bytes`` (far beyond the caches):

    * ``copy``: ``np.copyto(b, a)`` moves ``2 * n_bytes`` (read a, write b;
      the write-allocate read of b is not counted, as STREAM does not);
    * ``sum``: ``a.sum()`` reads ``n_bytes``.

    Returns GB/s (1e9 bytes per second) for both.
    """
    a = np.ones(n_bytes // 8)
    b = np.empty_like(a)
    np.copyto(b, a)  # touch every page first
    copy, read = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(b, a)
        copy.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        a.sum()
        read.append(time.perf_counter() - t0)
    return {"array_bytes": n_bytes, "copy_GBps": 2 * n_bytes / min(copy) / 1e9,
            "sum_GBps": n_bytes / min(read) / 1e9}


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

SMOKE_HELP = ("tiny sizes and one repeat, through the same code: checks in seconds that the "
              "script still runs (its figures mean nothing)")


def add_smoke_arg(parser):
    parser.add_argument("--smoke", action="store_true", help=SMOKE_HELP)
    return parser


def smoke_jsonl(folder, dest, n_train=300, n_test=100):
    """A corpus folder cut to the first lines of its train.jsonl and test.jsonl, written
    under ``dest`` (a folder of the same name): what ``--smoke`` runs on."""
    out = os.path.join(dest, os.path.basename(os.path.normpath(folder)))
    os.makedirs(out, exist_ok=True)
    for part, n in (("train", n_train), ("test", n_test)):
        head_lines(os.path.join(folder, f"{part}.jsonl"), os.path.join(out, f"{part}.jsonl"), n)
    return out


def head_lines(path, dest, n):
    """The first ``n`` lines of the file ``path`` written to ``dest``; returns ``dest``."""
    with open(path, encoding="utf-8") as src, open(dest + ".part", "w", encoding="utf-8") as dst:
        for _, line in zip(range(n), src):
            dst.write(line)
    os.replace(dest + ".part", dest)
    return dest


def smoke_cut(n_train, n_test, train, test):
    """The first rows of each of ``train`` and ``test`` (tuples of lists, arrays or sparse
    matrices of one length): the data ``--smoke`` runs on."""
    return tuple(p[:n_train] for p in train), tuple(p[:n_test] for p in test)


def skip_missing_peer(name, install):
    """One line saying that an optional peer is not installed and its rows are skipped."""
    print(f"skipped: {name} is not installed ({install})", file=sys.stderr)


def add_common_args(parser, repeats=3):
    add_smoke_arg(parser)
    parser.add_argument("--repeats", type=int, default=repeats,
                        help=f"runs per measurement; the median is reported (default {repeats})")
    parser.add_argument("--json", metavar="PATH", default=None, action=JsonPath,
                        help="also write the results as JSON to PATH ('-': the JSON alone "
                             "on stdout, the tables on stderr)")
    return parser


def _plain(obj):
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj


# With ``--json -`` the JSON document is all that goes to stdout: the tables go
# to stderr (set when the option is parsed), the document to the real stdout.
_JSON_STDOUT = []


class JsonPath(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):
        if value == "-" and not _JSON_STDOUT:
            _JSON_STDOUT.append(sys.stdout)
            sys.stdout = sys.stderr
        setattr(namespace, self.dest, value)


def emit_json(path, payload):
    """Write ``payload`` as JSON to ``path`` ('-' is stdout; None does nothing)."""
    if path is None:
        return
    text = json.dumps(_plain(payload), indent=2) + "\n"
    if path == "-":
        (_JSON_STDOUT[0] if _JSON_STDOUT else sys.stdout).write(text)
        return
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)
