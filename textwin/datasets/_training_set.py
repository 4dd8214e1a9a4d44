"""The categories of a labelled corpus asked for by name: one, a comma-separated list,
a list, ``"all"`` or the paper's ``"top10"`` (:func:`resolve_categories`); a name the
corpus does not have is an :class:`UnknownCategoryError` naming the closest ones."""
from __future__ import annotations

import difflib

#: The paper's categories in its table order (earn is in the experiment; its row was
#: lost in the extracted tables, so it has no per-category paper figure): the ten most
#: frequent of ModApte.
TOP10 = ("earn", "acq", "money-fx", "grain", "crude", "trade", "interest", "ship", "wheat",
         "corn")


class UnknownCategoryError(ValueError):
    """A category name that the corpus does not have."""


def closest_names(name, choices, n=5):
    """Up to ``n`` of ``choices`` close to ``name``: by spelling, else those that hold it
    (short names like "gr")."""
    close = difflib.get_close_matches(name, choices, n=n, cutoff=0.5)
    if not close:  # prefix or substring matches for short names like "gr"
        close = [c for c in choices if name.lower() in c.lower()][:n]
    return close


def resolve_categories(categories, available):
    """Turn ``"top10"``, ``"all"``, a comma-separated string or a list into names.

    Raises :class:`UnknownCategoryError` naming the closest valid names.
    """
    available = list(available)
    if categories is None or categories == "top10":
        names = list(TOP10)
    elif categories == "all":
        return available
    elif isinstance(categories, str) and categories.strip() in available:
        names = [categories.strip()]  # one name, commas and all ("sports, games")
    elif isinstance(categories, str):  # a comma inside a name is written "\,"
        names = [c.strip().replace("\0", ",")
                 for c in categories.replace("\\,", "\0").split(",") if c.strip()]
    else:
        names = list(categories)
    if not names:
        raise UnknownCategoryError("no category given")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UnknownCategoryError(f"category {twice[0]!r} is listed more than once")
    known = set(available)
    for name in names:
        if name not in known:
            close = closest_names(name, available)
            hint = (f"closest: {', '.join(close)}" if close
                    else f"{len(available)} categories exist, e.g. {', '.join(available[:5])}")
            raise UnknownCategoryError(f"unknown category {name!r} ({hint})")
    return names
