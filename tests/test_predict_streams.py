"""`textwin predict` writes each result as its document is read, in a process of its own."""
import json
import os
import queue
import random
import subprocess
import threading

import pytest


# the textwin under test, on the path of the processes these tests start
from _textwin_process import COMMAND as _TEXTWIN, CWD as _CWD, ENV as _ENV
WORDS = {"sport": "match goal team score league", "politics": "vote party minister law",
         "science": "atom cell energy theory lab"}


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A three-class model trained by the command line."""
    folder = tmp_path_factory.mktemp("stream")
    rng = random.Random(0)
    with open(folder / "corpus.jsonl", "w") as fh:
        for cat, words in WORDS.items():
            for i in range(20):
                words_ = words.split()
                rng.shuffle(words_)
                fh.write(json.dumps({"text": " ".join(words_) + f" w{i}", "labels": [cat]}) + "\n")
    proc = subprocess.run([*_TEXTWIN, "train", "--corpus", str(folder / "corpus.jsonl"),
                           "--output", str(folder / "model.npz"), "-q"],
                          env=_ENV, cwd=_CWD, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return folder / "model.npz"


def _lines_of(stream):
    """A queue receiving the lines of ``stream`` as a thread reads them."""
    lines = queue.Queue()

    def read():
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


@pytest.mark.parametrize("output", [[], ["--jsonl"], ["--json"]])
def test_each_line_is_answered_before_the_next_comes(model, output):
    # predict read stdin to its end before it scored anything: a process feeding it
    # line by line got nothing back until it closed the pipe
    proc = subprocess.Popen([*_TEXTWIN, "predict", str(model), *output], env=_ENV, cwd=_CWD,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = _lines_of(proc.stdout)
        answers = []
        for text in ("the team scored a late goal", "the minister lost the vote"):
            proc.stdin.write(text + "\n")
            proc.stdin.flush()
            got = []
            while not any(('"id"' in line or "line" in line) for line in got):
                line = lines.get(timeout=120)  # queue.Empty: no answer while stdin is open
                assert line is not None, proc.stderr.read()
                got.append(line)
            answers.append("".join(got))
        assert proc.poll() is None  # stdin is still open: the answers came before its end
        proc.stdin.close()
        rest = []
        while (line := lines.get(timeout=120)) is not None:
            rest.append(line)
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
    if output == ["--jsonl"]:
        first, second = (json.loads(a) for a in answers)
        assert first["labels"] == ["sport"] and first["id"] == "line 1"
        assert second["labels"] == ["politics"] and second["id"] == "line 2"
    elif output == ["--json"]:  # one array, valid once the input ends
        parsed = json.loads("".join(answers + rest))
        assert [d["labels"] for d in parsed] == [["sport"], ["politics"]]
    else:
        assert answers[0].splitlines()[-1].startswith("sport\t")
        assert answers[1].startswith("politics\t")


def _peak_rss_kib(argv, stdin_path, stdout_path):
    """The peak resident memory (KiB) of ``argv`` reading ``stdin_path``."""
    with open(stdin_path, "rb") as fin, open(stdout_path, "wb") as fout:
        proc = subprocess.Popen(argv, env=_ENV, cwd=_CWD, stdin=fin, stdout=fout,
                                stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        assert proc.returncode == 0, proc.stderr.read()
        proc.stderr.close()
    return usage.ru_maxrss


def _write_lines(path, n, seed=1):
    rng = random.Random(seed)
    vocab = " ".join(WORDS.values()).split() + ["the", "a", "of", "and", "in"]
    with open(path, "w") as fh:
        for _ in range(n):
            fh.write(" ".join(rng.choice(vocab) for _ in range(16)) + "\n")


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "wait4"), reason="needs os.wait4 for a child's peak memory")
@pytest.mark.parametrize("output", [[], ["--json"]])
def test_scoring_a_large_stdin_holds_bounded_memory(model, tmp_path, output):
    # the whole input, its matrix and every result were held: 200,000 lines of stdin
    # took 306 MB against 126 MB for 10,000
    _write_lines(tmp_path / "small.txt", 10_000)
    _write_lines(tmp_path / "large.txt", 200_000)
    argv = [*_TEXTWIN, "predict", str(model), *output]
    small = _peak_rss_kib(argv, tmp_path / "small.txt", tmp_path / "small.out")
    large = _peak_rss_kib(argv, tmp_path / "large.txt", tmp_path / "large.out")
    assert large < small + 40 * 1024, (small, large)
    with open(tmp_path / "large.out") as fh:  # every line answered, in order
        if output == ["--json"]:
            results = json.load(fh)
            assert len(results) == 200_000 and results[-1]["id"] == "line 200000"
        elif output == ["--jsonl"]:
            last = None
            for n, line in enumerate(fh, 1):
                last = line
            assert n == 200_000 and json.loads(last)["id"] == "line 200000"
        else:
            n = sum(1 for _ in fh)
            assert n == 200_001  # and the header
