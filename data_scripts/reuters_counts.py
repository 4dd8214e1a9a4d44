"""Print the Reuters-21578 ModApte counts: split sizes, categories, per-category sizes.

Checks them against the published numbers (README section VIII.B; the paper's
ten categories) and exits 1 if any differs, so it can guard a new copy of the
corpus. Also reports what the raw data holds that a user should know: stories
without topic (kept), stories with an empty text, the vocabulary size.

Run: ``python data_scripts/reuters_counts.py [--data-home DIR] [--all]``
(``--all`` lists every category, not only the ten largest).
"""
import argparse
import sys

import numpy as np

from textwin.datasets import REUTERS_TOP10, fetch_reuters21578, load_reuters_vectorized

PUBLISHED = {
    "train": 9603, "test": 3299, "categories": 118, "apte90": 90,
    "earn": (2877, 1087), "acq": (1650, 719), "money-fx": (538, 179),
    "grain": (433, 149), "crude": (389, 189), "trade": (369, 117),
    "interest": (347, 131), "ship": (197, 89), "wheat": (212, 71), "corn": (181, 56),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default=None, help="folder holding reuters21578/")
    parser.add_argument("--all", action="store_true", help="list every category")
    args = parser.parse_args(argv)

    train = fetch_reuters21578(data_home=args.data_home, subset="train", download_if_missing=False)
    test = fetch_reuters21578(data_home=args.data_home, subset="test", download_if_missing=False)
    apte = fetch_reuters21578(data_home=args.data_home, subset="test", categories="apte90",
                              download_if_missing=False)
    vec = load_reuters_vectorized(data_home=args.data_home, download_if_missing=False)
    n_train = train.target.sum(0, dtype=np.int64)
    n_test = test.target.sum(0, dtype=np.int64)

    found = {"train": len(train.data), "test": len(test.data),
             "categories": len(train.target_names), "apte90": len(apte.target_names)}
    for name in REUTERS_TOP10:
        j = train.target_names.index(name)
        found[name] = (int(n_train[j]), int(n_test[j]))

    def row(label, value, key=None):
        ok = "" if key is None else ("  ok" if found[key] == PUBLISHED[key] else
                                     f"  DIFFERS (published {PUBLISHED[key]})")
        print(f"{label:<44}{value!s:>16}{ok}")

    print("Reuters-21578, ModApte split (LEWISSPLIT=TRAIN/TEST, TOPICS=YES)")
    row("training stories", found["train"], "train")
    row("test stories", found["test"], "test")
    row("categories occurring (train + test)", found["categories"], "categories")
    row("categories with >= 1 train and >= 1 test", found["apte90"], "apte90")
    row("training stories without topic (kept)", int((train.target.sum(1) == 0).sum()))
    row("test stories without topic (kept)", int((test.target.sum(1) == 0).sum()))
    row("training stories with no word", int((np.diff(vec.X_train.indptr) == 0).sum()))
    row("test stories with no word", int((np.diff(vec.X_test.indptr) == 0).sum()))
    row("stemmed vocabulary (training set)", len(vec.feature_names))
    row("mean distinct stems per training story", round(vec.X_train.nnz / vec.X_train.shape[0], 1))
    print()
    print(f"{'category':<20}{'train':>8}{'test':>8}")
    names = train.target_names if args.all else REUTERS_TOP10
    order = sorted(names, key=lambda c: -n_train[train.target_names.index(c)])
    for name in order:
        j = train.target_names.index(name)
        mark = ""
        if name in PUBLISHED:
            mark = "  ok" if found[name] == PUBLISHED[name] else f"  DIFFERS (published {PUBLISHED[name]})"
        print(f"{name:<20}{n_train[j]:>8}{n_test[j]:>8}{mark}")
    return 0 if all(found[k] == PUBLISHED[k] for k in found) else 1


if __name__ == "__main__":
    sys.exit(main())
