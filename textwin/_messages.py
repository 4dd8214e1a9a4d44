"""One-line messages of library errors and warnings, for the command line and the
reproduction."""


def first_line(exc):
    """The first line of a library error, without the API-only advice."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()] or [type(exc).__name__]
    text = lines[0]
    if text.endswith(":") and len(lines) > 1:  # "could not download ...:" then the reason
        text = f"{text} {lines[1]}"
    return text.replace(" and download_if_missing=False", "").rstrip(".")


def first_names(names, shown=10):
    """``names`` joined by commas, the first ``shown`` of them and how many more: a
    corpus of hundreds of rare categories keeps its warnings to a line."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more (--json names them)" if more > 0
                                       else "")
