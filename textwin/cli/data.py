"""`textwin data`: where the Reuters-21578 corpus is; fetch and verify it."""
from __future__ import annotations

import warnings

from ..datasets import get_data_home
from .common import (
    EXIT_NO_DATA,
    EXIT_OK,
    CLIError,
    damaged_corpus,
    first_line,
    logger,
    missing_data,
    out,
    print_json,
    reading_reuters,
)
from .options import HelpFormatter, common_options


def add_parser(sub):
    """The `data` subcommand's options."""
    p = sub.add_parser(
        "data", formatter_class=HelpFormatter,
        help="where the corpus is; fetch and verify it",
        description="Report the data home and whether the 22 Reuters-21578 SGML files are "
                    "there; --fetch downloads them, --verify parses them and checks the "
                    "ModApte counts (9,603 training and 3,299 test documents, 118 categories).",
        epilog="""examples:
  textwin data
  textwin data --verify
  textwin data --data-home /srv/corpora --fetch

offline: put reuters21578.tar.gz (from the UCI KDD archive), unopened, into the data
home, or extract its 22 reut2-*.sgm files into <data home>/reuters21578/, then run
`textwin data --verify` (it unpacks the archive and checks every file's SHA-256).
""")
    p.add_argument("--fetch", action="store_true", help="download the corpus if it is missing")
    p.add_argument("--verify", action="store_true",
                   help="parse the corpus and check the ModApte counts")
    common_options(p)
    p.set_defaults(func=cmd_data)


def cmd_data(args):
    try:
        home = get_data_home(args.data_home)
    except NotADirectoryError as exc:
        raise missing_data(exc, args.data_home) from None
    folder = home / "reuters21578"
    report = {"data_home": str(home), "corpus_dir": str(folder), "sgm_files": _count_sgm(folder)}
    if (args.fetch or args.verify) and report["sgm_files"] < 22:
        _fetch(args, home)
        report["sgm_files"] = _count_sgm(folder)
    report["present"] = report["sgm_files"] == 22
    if report["present"] and (args.verify or args.fetch):
        report.update(_verify(args))
    if args.json:
        print_json(report)
    else:
        _print_report(report)
    if not report["present"]:
        raise CLIError(f"the corpus is missing from {folder}: run `textwin data --fetch`, or copy "
                       "the 22 reut2-*.sgm files there, or give --data-home", EXIT_NO_DATA)
    if report.get("verified") is False:
        raise CLIError("the corpus does not match the published Reuters-21578 ModApte split: "
                       "replace the files (`textwin data --fetch` into an empty data home)",
                       EXIT_NO_DATA)
    return EXIT_OK


def _count_sgm(folder):
    return len(list(folder.glob("reut2-*.sgm"))) if folder.is_dir() else 0


def _fetch(args, home):
    """Unpack an archive placed by hand; with --fetch, also download."""
    from ..datasets import ReutersFormatError, fetch_reuters21578

    if args.fetch:
        logger.info("fetching Reuters-21578 into %s", home)
    try:
        fetch_reuters21578(data_home=args.data_home, subset="all",
                           download_if_missing=args.fetch)
    except ReutersFormatError as exc:
        raise damaged_corpus(exc, args.data_home) from None
    except OSError as exc:
        raise CLIError(
            f"{first_line(exc)}; download reuters21578.tar.gz by hand (see "
            f"`textwin data --help`) and put it in {home}", EXIT_NO_DATA) from None


def _verify(args):
    """The ModApte counts against the published ones, and whether the checksums match."""
    from ..datasets import load_reuters_vectorized

    # Loading checks every file's SHA-256 against the published release (a
    # mismatch is a warning) and parses the split; the result is cached.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with reading_reuters(args.data_home):
            data = load_reuters_vectorized(data_home=args.data_home, download_if_missing=False)
    problems = [str(w.message) for w in caught if "differ" in str(w.message)]
    counts = {"train": int(data.X_train.shape[0]), "test": int(data.X_test.shape[0]),
              "categories": len(data.target_names)}
    expected = {"train": 9603, "test": 3299, "categories": 118}
    for msg in problems:
        logger.warning("%s", msg)
    return {"counts": counts, "expected": expected, "checksums_ok": not problems,
            "verified": counts == expected and not problems}


def _print_report(report):
    out(f"data home:  {report['data_home']}")
    out(f"corpus:     {report['corpus_dir']} "
        f"({report['sgm_files']} of 22 reut2-*.sgm files)")
    if "counts" in report:
        c, e = report["counts"], report["expected"]
        out(f"ModApte:    {c['train']} training / {c['test']} test documents, "
            f"{c['categories']} categories (expected {e['train']} / {e['test']}, "
            f"{e['categories']})")
        out("checksums:  " + ("match the published release" if report["checksums_ok"]
                              else "DIFFER from the published release"))
        out("verified:   " + ("yes" if report["verified"] else "NO"))
