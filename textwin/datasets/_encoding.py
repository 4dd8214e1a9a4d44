"""Bytes as text: which files are text, and how they are decoded."""
import codecs
import gzip
import zlib
from pathlib import Path

__all__ = ["DamagedGzip", "DocumentTooLarge", "MAX_DOCUMENT_BYTES", "binary_at_start", "decode_text",
           "in_units", "looks_binary", "read_document", "text_file_inputs", "utf16"]


#: The most bytes of one document (a file, gunzipped, or a JSON Lines line): no text is
#: this long, and a small gzip file can inflate to more than the machine's memory.
MAX_DOCUMENT_BYTES = 1 << 30


def in_units(n_bytes):
    """``n_bytes`` as people read it: "1 GiB", "64 MiB"."""
    return f"{n_bytes / (1 << 30):g} GiB" if n_bytes >= 1 << 30 else f"{n_bytes / (1 << 20):g} MiB"


class DocumentTooLarge(OSError):
    """A document of more than :data:`MAX_DOCUMENT_BYTES`, read no further."""


class DamagedGzip(OSError):
    """A ``.gz`` file that gunzip fails on: cut short, corrupt, or not gzip-compressed
    (an ``OSError`` without errno; a permission or I/O error is another one)."""


def read_document(path):
    """The bytes of a document file, gunzipped if its name ends in ``.gz``; a damaged
    gzip file is a :class:`DamagedGzip`, one of more than :data:`MAX_DOCUMENT_BYTES` a
    :class:`DocumentTooLarge` (both ``OSError``, as a file without permission is)."""
    path = Path(path)
    gzipped = path.name.lower().endswith(".gz")
    try:
        with (gzip.open if gzipped else open)(path, "rb") as fh:
            raw = _read_at_most(fh, MAX_DOCUMENT_BYTES)  # a gzip bomb stops there
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise DamagedGzip(f"{path}: not a complete gzip file ({exc})") from None
    if raw is None:
        raise DocumentTooLarge(f"{path}: more than {in_units(MAX_DOCUMENT_BYTES)} of text"
                               + (" once gunzipped" if gzipped else "")
                               + "; split it into documents, one per file")
    return raw


def _read_at_most(fh, limit):
    """All of ``fh`` if it holds at most ``limit`` bytes, else None; read in pieces, so
    that neither a long stream nor the limit is ever held (or allocated) whole."""
    pieces, size = [], 0
    while piece := fh.read(1 << 20):
        size += len(piece)
        if size > limit:
            return None
        pieces.append(piece)
    return b"".join(pieces)


def utf16(raw):
    """``raw`` as text if it is UTF-16 with its byte order mark, else ``None``."""
    if not raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None
    try:
        return raw.decode("utf-16")
    except UnicodeDecodeError:
        return None


def decode_text(raw):
    """Bytes of a document as text: UTF-16 with its byte order mark, UTF-8 (a byte
    order mark dropped), else latin-1 (which decodes any bytes)."""
    text = utf16(raw)
    if text is not None:
        return text
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


# Bytes that never occur in text: the C0 controls but tab, LF, VT, FF, CR, and
# ESC (terminal colours), plus DEL.
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\x0b\x0c\r\x1b") + b"\x7f"
_SAMPLE = 8192
_NON_TEXT_SHARE = 0.30


def looks_binary(raw):
    """Whether ``raw`` is a binary file, not text.

    Binary: a NUL byte anywhere, or, in the first 8 KiB, more than 30 % of
    non-text bytes: control characters (other than tab, newlines, form feed,
    ESC) and, when that sample is not UTF-8, bytes >= 0x80. A latin-1 letter
    here and there keeps a document text; an image, an archive or a PDF's
    compressed stream does not. UTF-16 with its byte order mark (Windows'
    "Unicode") is text.
    """
    text = utf16(raw)
    if text is not None:  # the same test on the characters
        sample = text[:_SAMPLE].encode("latin-1", "replace")
        return len(sample) - len(sample.translate(None, _CONTROL)) > _NON_TEXT_SHARE * len(sample)
    if b"\x00" in raw:
        return True
    sample = raw[:_SAMPLE]
    if not sample:
        return False
    bad = len(sample) - len(sample.translate(None, _CONTROL))
    if not _is_utf8(sample, cut=len(raw) > _SAMPLE):
        bad += sum(sample.count(bytes([b])) for b in range(128, 256))
    return bad > _NON_TEXT_SHARE * len(sample)


def binary_at_start(path):
    """Whether :func:`looks_binary` would call the file at ``path`` binary, told by its
    first bytes alone, so that a large image or archive in a folder is never read whole.
    ``False`` when only the whole file can tell: gzip'd, UTF-16, or text at the start."""
    if Path(path).name.lower().endswith(".gz"):
        return False
    with open(path, "rb") as fh:
        head = fh.read(_SAMPLE + 1)  # one byte more: looks_binary knows the sample is cut
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    return looks_binary(head)


def _is_utf8(sample, cut):
    try:
        sample.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        # a multi-byte character cut by the sample's end is not an error
        return cut and exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data"


def text_file_inputs(path, *, n_features=None, skipped):
    """A file to score as one document: one part ``([path], [text])``; a binary file
    is skipped. Read once, so a pipe such as bash's ``<(...)`` works."""
    raw = read_document(path)
    if looks_binary(raw):
        skipped.setdefault("binary", []).append(str(path))
        return
    yield [str(path)], [decode_text(raw)]

