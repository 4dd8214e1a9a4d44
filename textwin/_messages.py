"""One-line messages of library errors, for the command line and the reproduction."""


def first_line(exc):
    """The first line of a library error, without the API-only advice."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()] or [type(exc).__name__]
    text = lines[0]
    if text.endswith(":") and len(lines) > 1:  # "could not download ...:" then the reason
        text = f"{text} {lines[1]}"
    return text.replace(" and download_if_missing=False", "").rstrip(".")
