"""``keras.utils.get_file``: download a file into Keras's cache (``~/.keras/datasets`` by default, or
``$KERAS_HOME``), check its hash, optionally extract it -- with Keras 3's paths, so existing caches are reused."""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile

from tensorlet._src.keras.utils.io_utils import print_msg
from tensorlet._src.ops.registry import tf_export


class DownloadError(Exception):
    """A download failed (no network, HTTP error); Keras raises a plain ``Exception`` here, so this subclasses it."""


def keras_home():
    """Keras's home directory: ``$KERAS_HOME`` or ``~/.keras`` (``/tmp/.keras`` when that is not writable)."""
    if "KERAS_HOME" in os.environ:
        return os.environ["KERAS_HOME"]
    base = os.path.expanduser("~")
    if not os.access(base, os.W_OK):
        base = "/tmp"
    return os.path.join(base, ".keras")


def _urlretrieve(url, filename, reporthook=None):
    """The one place that touches the network (tests replace it)."""
    return urllib.request.urlretrieve(url, filename, reporthook)


def resolve_hasher(algorithm, file_hash=None):
    if algorithm == "sha256":
        return hashlib.sha256()
    if algorithm == "auto" and file_hash is not None and len(file_hash) == 64:
        return hashlib.sha256()
    return hashlib.md5()


def hash_file(fpath, algorithm="sha256", chunk_size=65535):
    hasher = resolve_hasher(algorithm) if isinstance(algorithm, str) else algorithm
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
    return str(hash_file(fpath, resolve_hasher(algorithm, file_hash), chunk_size)) == str(file_hash)


def _inside(base_dir, name):
    base = os.path.realpath(base_dir)
    path = os.path.realpath(os.path.join(base, name))
    try:
        return os.path.commonpath([path, base]) == base
    except ValueError:
        return False


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extracts a tar or zip archive into ``path``, skipping members that would land outside it."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    for kind in formats:
        if kind == "tar" and tarfile.is_tarfile(file_path):
            with tarfile.open(file_path) as archive:
                members = []
                for m in archive.getmembers():
                    if (m.issym() or m.islnk()) and not _inside(path, os.path.join(os.path.dirname(m.name),
                                                                                   m.linkname)):
                        warnings.warn(f"Skipping invalid path during archive extraction: '{m.name}'.", stacklevel=2)
                    elif not _inside(path, m.name):
                        warnings.warn(f"Skipping invalid path during archive extraction: '{m.name}'.", stacklevel=2)
                    else:
                        members.append(m)
                try:
                    archive.extractall(path, members=members, filter="data")
                except TypeError:  # Python without extraction filters
                    archive.extractall(path, members=members)
            return True
        if kind == "zip" and zipfile.is_zipfile(file_path):
            with zipfile.ZipFile(file_path) as archive:
                members = [m for m in archive.infolist() if _inside(path, m.filename)]
                archive.extractall(path, members=members)
            return True
        if kind not in ("tar", "zip"):
            raise NotImplementedError(kind)
    return False


@tf_export("keras.utils.get_file")
def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None, force_download=False):
    """Downloads ``origin`` to ``<cache_dir>/<cache_subdir>/<fname>`` unless a file with the right hash is there.

    Returns the local path (the extraction directory with ``extract=True``).  Without network and without a
    cached copy it raises, naming the URL and the path where the file is expected.

    >>> path = tf.keras.utils.get_file("mnist.npz", origin="https://storage.googleapis.com/tensorflow/"
    ...                                "tf-keras-datasets/mnist.npz")  # doctest: +SKIP
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if cache_dir is None:
        cache_dir = keras_home()
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    datadir_base = os.path.expanduser(cache_dir)
    if not os.access(datadir_base, os.W_OK) and not os.access(os.path.dirname(datadir_base) or ".", os.W_OK):
        datadir_base = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(), ".keras")
    datadir = os.path.join(datadir_base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)

    provided_fname = fname
    fname = os.fspath(fname) if isinstance(fname, os.PathLike) else fname
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'.Please specify the "
                             "`fname` argument.")
    elif os.sep in fname:
        raise ValueError("Paths are no longer accepted as the `fname` argument. To specify the file's parent "
                         f"directory, use the `cache_dir` argument. Received: fname={fname}")

    if extract or untar:
        if provided_fname and "." in fname:
            download_target = os.path.join(datadir, fname)
            fname = fname[: fname.find(".")]
            extraction_dir = os.path.join(datadir, f"{fname}_extracted")
        else:
            extraction_dir = os.path.join(datadir, fname)
            download_target = os.path.join(datadir, f"{fname}_archive")
    else:
        download_target = os.path.join(datadir, fname)

    if force_download:
        download = True
    elif os.path.exists(download_target):
        download = False
        if file_hash is not None and not validate_file(download_target, file_hash, algorithm=hash_algorithm):
            print_msg(f"A local file was found, but it seems to be incomplete or outdated because the "
                      f"{hash_algorithm} file hash does not match the original value of {file_hash} so we will "
                      "re-download the data.")
            download = True
    else:
        download = True

    if download:
        _download(origin, download_target)
        if os.path.exists(download_target) and file_hash is not None:
            if not validate_file(download_target, file_hash, algorithm=hash_algorithm):
                raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} file hash does not "
                                 f"match the provided value of {file_hash}.")

    if extract or untar:
        if untar:
            archive_format = "tar"
        if not extract_archive(download_target, extraction_dir, archive_format):
            warnings.warn("Could not extract archive.", stacklevel=2)
        return extraction_dir
    return download_target


def _download(origin, target):
    from tensorlet._src.keras.utils.progbar import Progbar

    print_msg(f"Downloading data from {origin}")
    state = {"bar": None, "finished": False}

    def hook(block_num, block_size, total_size):
        total = None if total_size == -1 else total_size
        if state["bar"] is None:
            state["bar"] = Progbar(total)
        current = block_num * block_size
        if total is None or current < total:
            state["bar"].update(current)
        elif not state["finished"]:
            state["bar"].update(state["bar"].target)
            state["finished"] = True

    tmp = f"{target}.part"
    try:
        try:
            _urlretrieve(origin, tmp, hook)
        except urllib.error.HTTPError as e:
            raise DownloadError(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from e
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise DownloadError(f"URL fetch failure on {origin}: {getattr(e, 'errno', None)} -- {reason}. "
                            f"Without network access, put the file at {target} (Keras's cache) and run again.") from e
        os.replace(tmp, target)
    except (Exception, KeyboardInterrupt):
        for p in (tmp, target):
            if os.path.exists(p) and os.path.isfile(p):
                os.remove(p)
        raise


def copy(src, dst):
    shutil.copyfile(src, dst)
