"""Reading a file a user names, without hanging on it: regular files only, never past a size limit.

Every file the package reads on a user's behalf (spec TOML, config.json, measurement JSON, the site's
glossary entries) comes through `read_capped`. A size check that trusts `stat` is not enough: a
character device (/dev/zero, /dev/urandom) reports 0 bytes and never ends, and opening a FIFO blocks
until a writer comes. So the file is opened without blocking, refused unless it is a regular file,
and read at most `limit_bytes + 1` bytes whatever `stat` said.

>>> import tempfile, pathlib
>>> folder = tempfile.TemporaryDirectory()
>>> p = pathlib.Path(folder.name) / "x.json"
>>> _ = p.write_text("{}")
>>> read_capped(p, 10, "config file")
b'{}'
>>> folder.cleanup()
>>> read_capped("/dev/zero", 10, "config file")
Traceback (most recent call last):
roofline.readfile.UnreadableFile: is a character device, not a regular file: not a config file
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

_KINDS = ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISFIFO, "FIFO (named pipe)"),
          (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "folder"))


def kind_of(mode: int) -> str:
    """What a file whose `st_mode` is `mode` is, in words: 'FIFO (named pipe)', 'folder', 'regular file'.

    >>> kind_of(stat.S_IFIFO), kind_of(stat.S_IFREG)
    ('FIFO (named pipe)', 'regular file')
    """
    if stat.S_ISREG(mode):
        return "regular file"
    return next((name for test, name in _KINDS if test(mode)), "special file")


class UnreadableFile(Exception):
    """Why a file cannot be read, as the end of a sentence the caller starts with the file's name."""

    def __init__(self, reason: str, missing: bool = False):
        super().__init__(reason)
        self.missing = missing


class RepeatedKey(ValueError):
    """A JSON object that gives one key twice (json keeps the last in silence)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """json's object_pairs_hook that refuses a key given twice: which value was meant is unknown.

    >>> import json
    >>> json.loads('{"a": 1, "a": 2}', object_pairs_hook=unique_keys)
    Traceback (most recent call last):
    roofline.readfile.RepeatedKey: a
    """
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise RepeatedKey(key)
        out[key] = value
    return out


#: Line breaks become a space in a one-line field; other controls and bidirectional overrides go.
_BREAKS = re.compile("[\n\r\v\f\x85\u2028\u2029]+")
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_int(digits: str) -> int | float:
    """json's parse_int: past 4,300 digits Python refuses to convert (a traceback), and the browser
    reads such a number as Infinity; so does this, and the field's own check refuses it.

    >>> json_int("12"), json_int("9" * 5000)
    (12, inf)
    """
    return int(digits) if len(digits) <= 4000 else float("inf")


def one_line(text: str) -> str:
    r"""A one-line field (a name, a label) as every output may show it: line breaks flattened to a
    space, control characters and bidirectional overrides dropped. A line break in a name would
    forge a line of the CLI's output; U+202E would show a name reversed in every table.

    >>> one_line("H100\nroofline: error: forged\x1b[2J \u202eevil")
    'H100 roofline: error: forged[2J evil'
    """
    return _INVISIBLE.sub("", _BREAKS.sub(" ", text))


def surrogate_problem(text: str) -> str | None:
    """Why `text` is not text (a lone surrogate, which no file encoding can hold), or None.

    >>> surrogate_problem("x" + chr(0xD800))
    'holds a lone surrogate (U+D800), which is not text'
    """
    found = _SURROGATE.search(text)
    return None if found is None else f"holds a lone surrogate (U+{ord(found.group()):04X}), which is not text"


def size_words(limit_bytes: int) -> str:
    """A byte limit as an error message says it: '10 MB'.

    >>> size_words(10 * 1024 * 1024), size_words(64 * 1024 * 1024)
    ('10 MB', '64 MB')
    """
    return f"{limit_bytes / (1 << 20):.0f} MB"


def read_capped(path: str | os.PathLike, limit_bytes: int, what: str) -> bytes:
    """The bytes of the regular file `path`, or UnreadableFile saying why not (`what` names the file's role)."""
    try:
        fd = os.open(Path(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise UnreadableFile(f"{what} not found", missing=True) from None
    except IsADirectoryError:
        raise UnreadableFile(f"is a folder, not a {what}") from None
    except OSError as err:
        if err.errno == errno.ENXIO:  # a FIFO with no writer, or a socket: opening it cannot succeed
            raise UnreadableFile(f"is not a regular file: not a {what}") from None
        raise UnreadableFile(f"cannot be read ({err.strerror or err})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = kind_of(mode)
            if kind == "folder":
                raise UnreadableFile(f"is a folder, not a {what}")
            raise UnreadableFile(f"is a {kind}, not a regular file: not a {what}")
        size = os.fstat(fd).st_size
        if size > limit_bytes:  # refused before reading; the loop below still stops at the limit
            raise UnreadableFile(f"{size / 1e6:.0f} MB is too large for a {what} (at most {size_words(limit_bytes)})")
        chunks, total = [], 0
        while total <= limit_bytes:  # never trust st_size: read no more than the limit allows
            chunk = os.read(fd, min(1 << 20, limit_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit_bytes:
            raise UnreadableFile(f"more than {size_words(limit_bytes)} is too large for a {what} "
                                 f"(at most {size_words(limit_bytes)})")
        return b"".join(chunks)
    except BlockingIOError:
        raise UnreadableFile(f"cannot be read without waiting: not a {what}") from None
    except OSError as err:
        raise UnreadableFile(f"cannot be read ({err.strerror or err})") from None
    finally:
        os.close(fd)
