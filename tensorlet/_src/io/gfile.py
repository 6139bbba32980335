"""``tf.io.gfile``: TF's file API on the local file system.

``GFile`` behaves as TF's: text mode reads/writes ``str``, binary mode ``bytes``; a file opened for
writing exists (empty) from the start and ``flush()`` makes the data visible.  Errors are TF's classes with
TF's wording (``NotFoundError: /x; No such file or directory``).  Only local paths (and ``file://``) are
supported; other schemes raise ``UnimplementedError``.
"""

from __future__ import annotations

import glob as _glob
import os
import shutil

from tensorlet._src.framework import errors
from tensorlet._src.io.files import file_error
from tensorlet._src.ops.registry import tf_export

__all__ = ["GFile", "exists", "glob", "isdir", "listdir", "makedirs", "mkdir", "remove", "rename", "rmtree", "stat",
           "walk", "copy", "join", "get_registered_schemes"]


def _path(p) -> str:
    if hasattr(p, "numpy"):
        p = p.numpy()
    if isinstance(p, bytes):
        p = p.decode()
    p = os.fspath(p)
    if p.startswith("file://"):
        return p[len("file://"):]
    if "://" in p:
        scheme = p.split("://", 1)[0]
        raise errors.UnimplementedError(None, None, f"File system scheme '{scheme}' not implemented (file: '{p}')")
    return p


@tf_export("io.gfile.GFile")
class GFile:
    """A file object with TF's API: ``read(n=-1)``, ``readline``, ``readlines``, ``write``, ``seek``, ``tell``,
    ``size``, ``flush``, ``close``, iteration and ``with``.

    >>> with tf.io.gfile.GFile("/tmp/notes.txt", "w") as f:
    ...     f.write("hello")
    """

    def __init__(self, name, mode="r"):
        self.__name = _path(name)
        if mode not in ("r", "w", "a", "r+", "w+", "a+", "rb", "wb", "ab", "rb+", "wb+", "ab+", "r+b", "w+b", "a+b"):
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self.__mode = mode
        self._binary = "b" in mode
        self._f = None
        if "r" in mode and "+" not in mode:
            self._open()  # reading a missing file fails at once (TF fails on first read; both raise NotFoundError)
        elif "w" in mode or "a" in mode:
            self._open()

    name = property(lambda self: self.__name)
    mode = property(lambda self: self.__mode)

    def _open(self):
        if self._f is None:
            m = self.__mode.replace("b", "")
            try:
                self._f = open(self.__name, m + "b")  # noqa: SIM115 - closed by close()
            except OSError as e:
                raise file_error(self.__name, e) from None
        return self._f

    def _readable(self):
        if "r" not in self.__mode and "+" not in self.__mode:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        return self._open()

    def _writable(self):
        if "r" in self.__mode and "+" not in self.__mode:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        return self._open()

    def _out(self, data: bytes):
        return data if self._binary else data.decode()

    def size(self) -> int:
        """The file's size in bytes."""
        return stat(self.__name).length

    def read(self, n=-1):
        """Up to ``n`` bytes (characters in text mode), or the rest of the file."""
        f = self._readable()
        return self._out(f.read() if n is None or n < 0 else f.read(n))

    def readline(self):
        return self._out(self._readable().readline())

    def readlines(self):
        return [self._out(line) for line in self._readable().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content):
        """Write ``str`` (encoded as UTF-8) or ``bytes``."""
        f = self._writable()
        if isinstance(file_content, str):
            file_content = file_content.encode()
        elif hasattr(file_content, "numpy"):
            file_content = file_content.numpy()
        f.write(file_content)

    def seek(self, offset=None, whence=0, position=None):
        if position is not None:
            offset = position
        self._open().seek(offset, whence)

    def tell(self) -> int:
        return self._open().tell()

    def flush(self):
        if self._f is not None:
            self._f.flush()

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def seekable(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


@tf_export("io.gfile.exists")
def exists(path) -> bool:
    """Whether a file or directory exists."""
    return os.path.exists(_path(path))


@tf_export("io.gfile.isdir")
def isdir(path) -> bool:
    return os.path.isdir(_path(path))


@tf_export("io.gfile.glob")
def glob(pattern) -> list:
    """Paths matching a pattern (or any of a list of patterns), sorted."""
    pats = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
    return sorted({m for p in pats for m in _glob.glob(_path(p))})


@tf_export("io.gfile.listdir")
def listdir(path) -> list:
    """Names of a directory's entries (not full paths)."""
    p = _path(path)
    if not os.path.isdir(p):
        raise errors.NotFoundError(None, None, f"Could not find directory {p}")
    return sorted(os.listdir(p))


@tf_export("io.gfile.makedirs")
def makedirs(path):
    """Create a directory and its parents (no error when it exists)."""
    p = _path(path)
    try:
        os.makedirs(p, exist_ok=True)
    except OSError as e:
        raise file_error(p, e) from None


@tf_export("io.gfile.mkdir")
def mkdir(path):
    """Create one directory (its parent must exist; no error when it exists, as in TF)."""
    p = _path(path)
    try:
        os.mkdir(p)
    except FileExistsError:
        if not os.path.isdir(p):
            raise errors.FailedPreconditionError(None, None, f"{p}; Not a directory") from None
    except OSError as e:
        raise file_error(p, e) from None


@tf_export("io.gfile.remove")
def remove(path):
    """Delete a file."""
    p = _path(path)
    try:
        os.remove(p)
    except OSError as e:
        raise file_error(p, e) from None


@tf_export("io.gfile.rmtree")
def rmtree(path):
    """Delete a directory and everything in it."""
    p = _path(path)
    if not os.path.exists(p):
        raise errors.NotFoundError(None, None, f"{p} not found")
    shutil.rmtree(p)


@tf_export("io.gfile.rename")
def rename(src, dst, overwrite=False):
    """Rename (move) a file; an existing ``dst`` needs ``overwrite=True``."""
    s, d = _path(src), _path(dst)
    if not overwrite and os.path.exists(d):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.replace(s, d)
    except OSError as e:
        raise file_error(s, e) from None


@tf_export("io.gfile.copy")
def copy(src, dst, overwrite=False):
    """Copy a file; an existing ``dst`` needs ``overwrite=True``."""
    s, d = _path(src), _path(dst)
    if not overwrite and os.path.exists(d):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        shutil.copyfile(s, d)
    except OSError as e:
        raise file_error(s, e) from None


class FileStatistics:
    """``tf.io.gfile.stat``'s result: ``length``, ``mtime_nsec``, ``is_directory``."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory

    def __repr__(self):
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


@tf_export("io.gfile.stat")
def stat(path) -> FileStatistics:
    p = _path(path)
    try:
        st = os.stat(p)
    except OSError as e:
        raise file_error(p, e) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(p))


@tf_export("io.gfile.walk")
def walk(top, topdown=True, onerror=None):
    """``(dirname, subdirs, files)`` for each directory under ``top``, like ``os.walk`` (names sorted)."""
    top = _path(top)
    if not os.path.isdir(top):
        return
    for dirpath, dirnames, filenames in os.walk(top, topdown=topdown, onerror=onerror):
        dirnames.sort()
        yield dirpath, list(dirnames), sorted(filenames)


@tf_export("io.gfile.join")
def join(path, *paths) -> str:
    """Join path components (``join("a", "b") == "a/b"``; an absolute component restarts the path)."""
    return os.path.join(os.fspath(path), *[os.fspath(p) for p in paths])


@tf_export("io.gfile.get_registered_schemes")
def get_registered_schemes() -> list:
    return ["file", ""]
