"""The parser of Reuters-21578's SGML files.

The SGML files are neither XML nor valid UTF-8 (``reut2-017.sgm`` holds the
byte 0xFC), so they are decoded as latin-1 and parsed with regular expressions
that check the structure as they go: a truncated or malformed file is an
error naming the file and the line, never a silently smaller corpus.
"""
import html
import re
from collections import namedtuple
from pathlib import Path

__all__ = ["ReutersDocument", "ReutersFormatError", "parse_sgml", "parse_sgml_file"]


class ReutersFormatError(ValueError):
    """An SGML file of the collection is malformed; the message names file and line."""


#: One parsed story. ``topics_attr`` and ``lewissplit`` are the attributes of
#: the ``<REUTERS>`` tag, ``topics`` the ``<D>`` entries of ``<TOPICS>``.
ReutersDocument = namedtuple(
    "ReutersDocument", ["newid", "lewissplit", "topics_attr", "topics", "title", "body"]
)

# A <REUTERS ...> or </REUTERS> tag; group 3 is empty when the tag has no '>'.
_REUTERS_TAG = re.compile(r"<(/?)REUTERS\b([^<>]*)(>?)")
_DOCTYPE = re.compile(r"\s*(<!DOCTYPE[^<>]*>)?\s*")
_ATTR = re.compile(r'\s*([A-Za-z]+)="([^"<>]*)"')
_TOPIC_LIST = re.compile(r"(?:<D>[^<>]*</D>)*")
_D = re.compile(r"<D>([^<>]*)</D>")
_TEXT_OPEN = re.compile(r'<TEXT(?:\s+TYPE="([A-Z]+)")?\s*>')
_TAG = re.compile(r"<[^<>]*>")
# Numeric references to control codes (0-31 and 127-159: &#2; &#3; &#5; ...
# &#127;) are SGML-era transmission codes, not text.
_CONTROL_ENTITY = re.compile(r"&#0*(?:[0-9]|[12][0-9]|3[01]|12[7-9]|1[3-5][0-9]);")

_TOPICS_VALUES = ("YES", "NO", "BYPASS")
_SPLIT_VALUES = ("TRAIN", "TEST", "NOT-USED")
_TEXT_TYPES = (None, "NORM", "BRIEF", "UNPROC")


def _strip_control_entities(text):
    """Drop the references to control codes.

    Done once per file, before the markup is read: removing them cannot
    create or hide a tag, and no line break goes, so line numbers in error
    messages stay right. Other references (``&lt;``, ``&amp;``, ``&#252;``)
    are unescaped per field by :func:`_clean`, after the markup is read.
    """
    return _CONTROL_ENTITY.sub("", text)


def _clean(text):
    """Unescape ``&lt;``, ``&amp;``, ``&#252;`` ... in one field."""
    return html.unescape(text) if "&" in text else text


def _line(text, pos):
    return text.count("\n", 0, pos) + 1


def _error(filename, text, pos, message):
    return ReutersFormatError(f"{filename}, line {_line(text, pos)}: {message}")


def _parse_attributes(attrs, filename, text, pos):
    found = dict(_ATTR.findall(attrs))
    if _ATTR.sub("", attrs).strip():
        raise _error(filename, text, pos, f"malformed attributes in <REUTERS{attrs}>")
    for name, allowed in (("TOPICS", _TOPICS_VALUES), ("LEWISSPLIT", _SPLIT_VALUES)):
        if name not in found:
            raise _error(filename, text, pos, f"<REUTERS> tag without the {name} attribute")
        if found[name] not in allowed:
            raise _error(
                filename, text, pos,
                f'{name}="{found[name]}" is not one of {", ".join(allowed)}',
            )
    if "NEWID" not in found:
        raise _error(filename, text, pos, "<REUTERS> tag without the NEWID attribute")
    if not found["NEWID"].isdigit():
        raise _error(filename, text, pos, f'NEWID="{found["NEWID"]}" is not a number')
    return found


def _element(content, tag, newid, where):
    """The text inside the one ``<tag>...</tag>`` of ``content``, or None if absent.

    ``str.find`` rather than a regex (the stories are long and this runs
    ~100,000 times). The tag must occur at most once and be closed, so that a
    missing or doubled tag cannot make the parser skip text silently.
    """
    opening, closing = f"<{tag}>", f"</{tag}>"
    start = content.find(opening)
    end = content.find(closing, max(start, 0))
    if start < 0 and end < 0:
        return None
    if (
        start < 0
        or end < 0
        or content.find(opening, start + 1) >= 0
        or content.find(closing, end + 1) >= 0
        or content.find(closing, 0, start) >= 0
    ):
        raise where(
            max(start, 0),
            f"story NEWID={newid} has {content.count(opening)} {opening} and "
            f"{content.count(closing)} {closing} tags; at most one of each, in "
            "this order, is expected",
        )
    return content[start + len(opening):end]


def _parse_document(content, offset, attrs, filename, text):
    """Parse the inside of one ``<REUTERS>`` element (``content`` starts at ``offset``)."""
    newid = attrs["NEWID"]

    def where(pos, message):
        return _error(filename, text, offset + pos, message)

    start = content.find("<TEXT")
    end = content.find("</TEXT>", max(start, 0))
    if start < 0 or end < 0 or content.find("<TEXT", start + 1) >= 0 or content.find("</TEXT>", end + 1) >= 0:
        raise where(
            max(start, 0),
            f"story NEWID={newid} needs exactly one <TEXT>...</TEXT> element",
        )

    # The header (before <TEXT>) holds <TOPICS>; <D> counts as a topic only
    # there, never inside <PLACES>, <ORGS>, ...
    inner = _element(content[:start], "TOPICS", newid, where)
    if inner is None:
        raise where(0, f"story NEWID={newid} has no <TOPICS> element before <TEXT>")
    if not _TOPIC_LIST.fullmatch(inner):
        raise where(
            content.find("<TOPICS>"),
            f"story NEWID={newid}: <TOPICS> must hold only <D>...</D> entries, "
            f"found {inner[:60]!r}",
        )
    topics = tuple(_D.findall(inner)) if inner else ()

    gt = content.find(">", start)
    match = _TEXT_OPEN.fullmatch(content, start, gt + 1)
    if match is None or match.group(1) not in _TEXT_TYPES:
        raise where(start, f"story NEWID={newid}: malformed tag {content[start:gt + 1]!r}")
    kind, inside = match.group(1), content[gt + 1:end]

    def inner_where(pos, message):
        return where(gt + 1 + pos, message)

    title = _element(inside, "TITLE", newid, inner_where)
    body = _element(inside, "BODY", newid, inner_where)
    if kind == "UNPROC":
        # Unprocessed stories (tables, mostly) have no TITLE/BODY markup.
        title, body = "", _TAG.sub(" ", inside)
    elif kind == "BRIEF":
        # A title and the placeholder "Blah blah blah."
        body = ""
    return ReutersDocument(
        newid=int(newid),
        lewissplit=attrs["LEWISSPLIT"],
        topics_attr=attrs["TOPICS"],
        topics=topics,
        title=_clean(title or "").strip(),
        body=_clean(body or "").strip(),
    )


def _check_between(text, start, end, filename):
    """Only white space may separate two ``<REUTERS>`` elements."""
    gap = text[start:end]
    if gap.strip():
        where = start + len(gap) - len(gap.lstrip())
        raise _error(filename, text, where, "unexpected text outside a <REUTERS> element")


def parse_sgml(text, filename="<string>"):
    """Parse the text of one Reuters-21578 SGML file.

    Parameters
    ----------
    text : str
        The file's content, decoded (latin-1).
    filename : str
        Used in error messages.

    Returns
    -------
    documents : list of ReutersDocument
        In file order.

    Raises
    ------
    ReutersFormatError
        On anything but a sequence of well-formed ``<REUTERS>`` elements
        (optionally after a ``<!DOCTYPE>``): text between elements, an element
        never closed (a truncated file), a missing attribute or tag. The
        message names the file and the line.
    """
    docs = []
    text = _strip_control_entities(text)
    pos = _DOCTYPE.match(text).end()
    open_tag = None  # the match of the <REUTERS> tag of the element being read
    for tag in _REUTERS_TAG.finditer(text):
        closing, attrs, gt = tag.group(1), tag.group(2), tag.group(3)
        if not gt:
            raise _error(filename, text, tag.start(), "unterminated <REUTERS tag (file truncated?)")
        if not closing:
            if open_tag is not None:
                raise _error(
                    filename, text, open_tag.start(),
                    "this <REUTERS> element is not closed before the next one "
                    f"(line {_line(text, tag.start())})",
                )
            _check_between(text, pos, tag.start(), filename)
            open_tag = tag
        else:
            if open_tag is None:
                raise _error(filename, text, tag.start(), "</REUTERS> without a matching <REUTERS>")
            if attrs.strip():
                raise _error(filename, text, tag.start(), "malformed </REUTERS> tag")
            attributes = _parse_attributes(open_tag.group(2), filename, text, open_tag.start())
            docs.append(
                _parse_document(
                    text[open_tag.end():tag.start()], open_tag.end(), attributes, filename, text
                )
            )
            open_tag = None
            pos = tag.end()
    if open_tag is not None:
        raise _error(
            filename, text, open_tag.start(),
            "this <REUTERS> element is never closed (file truncated?)",
        )
    _check_between(text, pos, len(text), filename)
    if not docs:
        raise ReutersFormatError(f"{filename}: no <REUTERS> element at all")
    return docs


def parse_sgml_file(path):
    """Parse one SGML file of the collection (see :func:`parse_sgml`)."""
    path = Path(path)
    return parse_sgml(path.read_bytes().decode("latin-1"), path.name)
