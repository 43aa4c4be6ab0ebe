"""Writing a file so that a failure never leaves it half-written: a temporary file, then a rename.

Every file the project writes (`roofline measure --out`, numbers-diff records, caches) goes through
here. The bytes go to a temporary file in the target's own folder (same filesystem), are flushed
to disk, and the temporary file is renamed over the target: a reader sees the old file or the new
one, never a truncated mix, even when the disk fills or the process is killed mid-write.

>>> import tempfile, pathlib
>>> folder = tempfile.TemporaryDirectory()
>>> p = pathlib.Path(folder.name) / "x.json"
>>> atomic_write_text(p, "{}\\n") == p and p.read_text()
'{}\\n'
>>> folder.cleanup()
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from roofline.readfile import kind_of


def write_target(path: Path | str) -> Path:
    """The file a write to `path` replaces: a symbolic link's target, followed to its end.

    Renaming over a link would replace the link itself, and renaming over a device node or a FIFO
    would turn /dev/null into a regular file: a target that exists and is not a regular file is
    refused with an OSError whose strerror says what it is.
    """
    real = Path(os.path.realpath(path))  # a dangling link's target is created where it points
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real
    if not stat.S_ISREG(mode):
        kind = kind_of(mode)
        raise OSError(errno.EISDIR if kind == "folder" else errno.EEXIST,
                      f"is a {kind}, not a regular file; nothing is written over it")
    return real


def atomic_write_bytes(path: Path | str, data: bytes) -> Path:
    """Write `data` to `path` through a temporary sibling and a rename; on any error `path` is unchanged.

    A link is followed and its target written; a target that is not a regular file is refused.
    """
    path = write_target(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: Path | str, text: str, encoding: str = "utf-8") -> Path:
    """`atomic_write_bytes` for text."""
    return atomic_write_bytes(path, text.encode(encoding))
