"""The lines of a text file of many documents (JSON Lines, CSV, TSV, fastText), as text:
UTF-8 or UTF-16 with its byte order mark, maybe gzip'd, every line bounded, every
problem an error naming its line."""
import codecs
import gzip
import io
from pathlib import Path

from . import _encoding  # its MAX_DOCUMENT_BYTES read when used: tests lower it
from ._corpus import CorpusError
from ._encoding import in_units

__all__ = ["text_lines"]


def _decode_line(raw, where, lineno, what):
    if b"\x00" in raw:  # never in text: UTF-16 (or 32) without a byte order mark
        raise CorpusError(
            f"{where}: NUL bytes, as UTF-16 without a byte order mark writes them; {what} "
            "files are UTF-8 (or UTF-16 with its mark): re-save the file as UTF-8 "
            "(e.g. `iconv -f utf-16le -t utf-8`)")
    try:
        # utf-8-sig on the first line: a byte order mark (Windows editors) is not text
        return raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{where}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column "
            f"{exc.start + 1}); {what} files are UTF-8: re-save the file as UTF-8 "
            "(from latin-1, say: `iconv -f latin1 -t utf-8`)") from None


def text_lines(path, what, long_line):
    """``(line number, text)`` of every line of the ``what`` file (``"JSON Lines"``,
    ``"CSV"``) at ``path``, with its line break: UTF-8 (a byte order mark allowed) or
    UTF-16 with its byte order mark (Windows' "Unicode"); a name ending in ``.gz`` is
    read through gzip. A line is read only up to :data:`MAX_DOCUMENT_BYTES` (a file
    without line breaks is not held whole): a longer one is an error naming it, and
    ``long_line`` says what to do."""
    path = Path(path)
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rb") as fh:
        if fh.peek(2)[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            lines = io.TextIOWrapper(fh, encoding="utf-16", newline="")
            try:
                yield from _bounded(lines, path, long_line)
            except UnicodeDecodeError as exc:
                raise CorpusError(f"{path}: not valid UTF-16 ({exc.reason}); re-save the file "
                                  "as UTF-8") from None
            return
        for lineno, raw in _bounded(fh, path, long_line):
            yield lineno, _decode_line(raw, f"{path}:{lineno}", lineno, what)


def _bounded(fh, path, long_line):
    """``(line number, line)`` of ``fh``, each line read only up to
    :data:`MAX_DOCUMENT_BYTES`."""
    lineno = 0
    while line := fh.readline(_encoding.MAX_DOCUMENT_BYTES + 1):
        lineno += 1
        if len(line) > _encoding.MAX_DOCUMENT_BYTES:
            raise CorpusError(
                f"{path}:{lineno}: a line of more than {in_units(_encoding.MAX_DOCUMENT_BYTES)}; "
                + long_line)
        yield lineno, line
