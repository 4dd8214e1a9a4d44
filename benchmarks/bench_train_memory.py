"""Peak memory of ``textwin train --corpus ... --ngrams 2 -o MODEL`` against scikit-learn's
bigram pipeline on the same texts.

Both sides run in a child process of their own, one after the other, ``--repeats``
times; the peak resident set of each is that child's ``ru_maxrss`` (``os.wait4``):
the interpreter, the libraries, the texts, the matrices, the fit, the test scores
and (textwin) the model file written.

* textwin: the command itself, ``python -m textwin.cli train --corpus TRAIN.jsonl
  --test-corpus TEST.jsonl --ngrams N -o MODEL.npz -q`` (this tree's textwin);
* scikit-learn: ``TfidfVectorizer(ngram_range=(1, N), sublinear_tf=True)`` fitted on
  the training texts, the test texts transformed, ``LinearSVC()`` fitted
  (``OneVsRestClassifier`` for multi-label) and the test texts scored; nothing
  saved.

Then one more child each reports where the peak is: the resident set and its peak
so far (``VmRSS`` / ``VmHWM``) after each step. For textwin those steps are the
command's own calls (the corpus read, the training texts' vectorizing in
``TextClassifier.fit`` (``text.fit_transform``), the estimator's ``fit``,
``TextVectorizer.transform`` of the test texts, ``save_model``), timed by wrapping them;
the figures are those of the plain command within a MiB or two.

The corpus is a folder of ``train.jsonl`` and ``test.jsonl`` (``--corpus``,
default ``$TEXTWIN_DATA_HOME/corpora/agnews-small``).

Run from the repository root:

    python benchmarks/bench_train_memory.py [--corpus DIR] [--ngrams 2] [--repeats 3] \
        [--json out.json]
"""
import argparse
import functools
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (add_common_args, emit_json, load_average, print_machine,  # noqa: E402
                     smoke_jsonl)
from bench_corpora import read_jsonl  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1024  # ru_maxrss and /proc/self/status are in KiB


def _status():
    """(VmRSS, VmHWM) of this process in MiB."""
    fields = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / MIB
    return fields["VmRSS"], fields["VmHWM"]


def _step(steps, name):
    rss, hwm = _status()
    steps.append({"step": name, "rss_mib": round(rss, 1), "peak_mib": round(hwm, 1)})


def sklearn_child(train, test, ngrams, steps):
    """The peer's pipeline, step by step (what the script of a scikit-learn user does)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import MultiLabelBinarizer
    from sklearn.svm import LinearSVC

    _step(steps, "imports")
    texts, labels = read_jsonl(train)
    test_texts, test_labels = read_jsonl(test)
    _step(steps, "texts read")
    vec = TfidfVectorizer(ngram_range=(1, ngrams), sublinear_tf=True)
    X = vec.fit_transform(texts)
    _step(steps, "fit_transform (train)")
    X_test = vec.transform(test_texts)
    _step(steps, "transform (test)")
    if all(len(y) == 1 for y in labels + test_labels):
        clf = LinearSVC().fit(X, [y[0] for y in labels])
    else:
        binarizer = MultiLabelBinarizer().fit(labels + test_labels)
        clf = OneVsRestClassifier(LinearSVC()).fit(X, binarizer.transform(labels))
    _step(steps, "fit")
    clf.decision_function(X_test)
    _step(steps, "test scores")


def textwin_child(argv, steps):
    """The command, with a step recorded after each of its main calls."""
    import textwin.corpora
    import textwin.persistence
    import textwin.text_classifier
    from textwin.cli import main
    from textwin.linear import DualGaussSeidelClassifier
    from textwin.text import TextVectorizer

    def recorded(owner, name, label):
        call = getattr(owner, name)

        @functools.wraps(call)
        def wrapper(*args, **kwargs):
            result = call(*args, **kwargs)
            _step(steps, label)
            return result
        setattr(owner, name, wrapper)

    _step(steps, "imports")
    recorded(textwin.corpora, "load_corpus", "texts read")
    # TextClassifier.fit vectorizes the training texts through text.fit_transform
    recorded(textwin.text_classifier, "fit_transform", "fit_transform (train)")
    recorded(TextVectorizer, "transform", "transform (test)")
    recorded(DualGaussSeidelClassifier, "fit", "fit")
    recorded(textwin.persistence, "save_model", "model written")
    code = main(argv)
    if code:
        raise SystemExit(code)


def _child_main(argv):
    side, steps = argv[0], []
    if side == "sklearn":
        sklearn_child(argv[1], argv[2], int(argv[3]), steps)
    else:
        textwin_child(argv[1:], steps)
    print(json.dumps(steps))


def _run(cmd, env=None):
    """Run ``cmd``; return (its peak RSS in MiB, its stdout)."""
    with tempfile.TemporaryFile(mode="w+") as out:
        # not the repository: `python -m` puts the folder first on sys.path
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, text=True, env=env,
                                cwd=tempfile.gettempdir())
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise SystemExit(f"{' '.join(cmd)} exited with {proc.returncode}:\n{err[-2000:]}")
        out.seek(0)
        return usage.ru_maxrss / MIB, out.read()


def _commands(args, model):
    train, test = (os.path.join(args.corpus, f"{part}.jsonl") for part in ("train", "test"))
    textwin = ["train", "--corpus", train, "--test-corpus", test, "--ngrams", str(args.ngrams),
               "-o", model, "-q"]
    return {"textwin": textwin, "sklearn": [train, test, str(args.ngrams)]}


def main(argv=None):
    if argv is None and sys.argv[1:2] == ["--child"]:
        return _child_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    home = os.environ.get("TEXTWIN_DATA_HOME", os.path.join(REPO, "..", "shared"))
    ap.add_argument("--corpus", default=os.path.join(home, "corpora", "agnews-small"),
                    help="a folder holding train.jsonl and test.jsonl "
                         "(default $TEXTWIN_DATA_HOME/corpora/agnews-small)")
    ap.add_argument("--ngrams", type=int, default=2, help="word n-grams up to N (default 2)")
    add_common_args(ap)
    args = ap.parse_args(argv)
    args.corpus = os.path.abspath(args.corpus)  # the children run in another folder
    for part in ("train", "test"):
        if not os.path.isfile(os.path.join(args.corpus, f"{part}.jsonl")):
            raise SystemExit(f"error: {args.corpus} holds no {part}.jsonl: give --corpus DIR")
    info = print_machine()
    # this repository's textwin when it is built in place, else the installed one
    built = glob.glob(os.path.join(REPO, "textwin", "_kernels", "_dual_gs.*.so"))
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", "")) \
        if built else None
    me = [sys.executable, os.path.abspath(__file__), "--child"]
    peaks = {"textwin": [], "sklearn": []}
    with tempfile.TemporaryDirectory(prefix="bench_train_memory") as folder:
        if args.smoke:
            args.corpus, args.repeats = smoke_jsonl(args.corpus, folder), 1
        commands = _commands(args, os.path.join(folder, "model.npz"))
        plain = {"textwin": [sys.executable, "-m", "textwin.cli"] + commands["textwin"],
                 "sklearn": me + ["sklearn"] + commands["sklearn"]}
        for _ in range(args.repeats):  # alternating: both share the machine's state
            for side in peaks:
                peaks[side].append(_run(plain[side], env)[0])
        steps = {side: json.loads(_run(me + [side] + commands[side], env)[1].splitlines()[-1])
                 for side in peaks}
    median = {side: statistics.median(p) for side, p in peaks.items()}
    ratio = median["textwin"] / median["sklearn"]
    print(f"corpus: {args.corpus}, word n-grams up to {args.ngrams}; peak RSS "
          f"(ru_maxrss of each child), median of {args.repeats} runs, MiB")
    print(f"  textwin {' '.join(commands['textwin'][:1])} ... --ngrams {args.ngrams} "
          f"-o MODEL.npz      {median['textwin']:7.1f}   runs {peaks['textwin']}")
    print(f"  scikit-learn TfidfVectorizer(ngram_range=(1, {args.ngrams}), sublinear_tf=True)"
          f" + LinearSVC()  {median['sklearn']:7.1f}   runs {peaks['sklearn']}")
    print(f"  ratio textwin / scikit-learn: {ratio:.3f}")
    for side in peaks:
        print(f"\n{side}: after each step, resident set / its peak so far (MiB)")
        for s in steps[side]:
            print(f"  {s['step']:24s} {s['rss_mib']:7.1f} / {s['peak_mib']:7.1f}")
    info["load_average_end"] = load_average()
    print(f"\nload average at the end: {info['load_average_end']}")
    emit_json(args.json, {"benchmark": "train_memory", "machine": info, "corpus": args.corpus,
                          "ngrams": args.ngrams, "peak_rss_mib": peaks,
                          "median_peak_rss_mib": median, "ratio": ratio, "steps": steps})
    return 0


if __name__ == "__main__":
    sys.exit(main())
