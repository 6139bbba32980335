"""The ``.keras`` archive: a zip of ``metadata.json``, ``config.json`` and ``model.weights.h5`` (Keras 3's format).

Reading fails closed: the archive is read into memory (nothing is extracted to disk), members are limited in
number and declared size (zip bombs), names must be plain relative names (no ``..``, absolute paths or duplicates),
encrypted or oddly compressed members, missing ``config.json``/``model.weights.h5`` and unexpected members are
refused with a ``ValueError``.
"""

from __future__ import annotations

import datetime
import io
import json
import zipfile

CONFIG = "config.json"
METADATA = "metadata.json"
WEIGHTS = "model.weights.h5"
ASSETS = "assets/"

MAX_MEMBERS = 10_000
MAX_TOTAL_BYTES = 1 << 36  # 64 GiB uncompressed in all
MAX_JSON_BYTES = 1 << 28  # 256 MiB for config.json / metadata.json
MAX_EXPANSION = 200  # DEFLATE cannot exceed ~1032:1; real members are stored (1:1)
BOMB_FLOOR = 1 << 24  # ratios are only checked above 16 MiB


def _check_name(name):
    if not name or "\\" in name or name.startswith("/") or "\x00" in name or ":" in name.split("/")[0]:
        raise ValueError(f"Invalid .keras archive: member name {name!r} is not a plain relative path")
    parts = name.split("/")
    if any(p in ("..", ".") for p in parts) or any(p == "" for p in parts[:-1]):
        raise ValueError(f"Invalid .keras archive: member name {name!r} is not a plain relative path")


MAX_ASSET_BYTES = 1 << 30  # one asset file (a vocabulary) at most 1 GiB


def read_archive(source, what="the .keras file"):
    """``(config_bytes, metadata_bytes or None, weights_bytes)`` of a ``.keras`` archive (path or file object)."""
    return read_archive_with_assets(source, what)[:3]


def read_archive_with_assets(source, what="the .keras file"):
    """``read_archive`` plus ``{path under assets/: bytes}`` of the archive's asset files (Keras writes the
    vocabularies of its lookup layers there, e.g. ``layers/string_lookup/vocabulary.txt``)."""
    try:
        zf = zipfile.ZipFile(source, "r")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, NotImplementedError) as e:
        raise ValueError(f"Invalid .keras archive ({what}): {e}") from e
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ValueError(f"Invalid .keras archive: {len(infos)} members (limit {MAX_MEMBERS})")
        names = set()
        total = 0
        for info in infos:
            _check_name(info.filename)
            if info.filename in names:
                raise ValueError(f"Invalid .keras archive: duplicate member {info.filename!r}")
            names.add(info.filename)
            if info.flag_bits & 0x1:
                raise ValueError(f"Invalid .keras archive: member {info.filename!r} is encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise ValueError(f"Invalid .keras archive: member {info.filename!r} uses an unsupported compression "
                                 f"method ({info.compress_type})")
            total += info.file_size
            if total > MAX_TOTAL_BYTES:
                raise ValueError(f"Not allowed: the .keras archive declares more than {MAX_TOTAL_BYTES} bytes "
                                 "uncompressed; refusing to load a potential decompression bomb")
            if info.file_size > BOMB_FLOOR and info.file_size > MAX_EXPANSION * max(info.compress_size, 1):
                raise ValueError(f"Not allowed: member {info.filename!r} declares {info.file_size} bytes but only "
                                 f"{info.compress_size} are stored; refusing to load a potential decompression bomb")
            if info.filename not in (CONFIG, METADATA, WEIGHTS) and not info.filename.startswith(ASSETS):
                raise ValueError(f"Invalid .keras archive: unexpected member {info.filename!r} (expected "
                                 f"{CONFIG}, {METADATA}, {WEIGHTS} and {ASSETS}...)")
        for required in (CONFIG, WEIGHTS):
            if required not in names:
                raise ValueError(f"Invalid .keras archive: missing {required!r}. A .keras file holds "
                                 f"{CONFIG}, {METADATA} and {WEIGHTS}.")
        config = _read(zf, CONFIG, MAX_JSON_BYTES)
        metadata = _read(zf, METADATA, MAX_JSON_BYTES) if METADATA in names else None
        weights = _read(zf, WEIGHTS, MAX_TOTAL_BYTES)
        assets = {n[len(ASSETS):]: _read(zf, n, MAX_ASSET_BYTES) for n in sorted(names)
                  if n.startswith(ASSETS) and not n.endswith("/")}
    return config, metadata, weights, assets


def _read(zf, name, limit):
    info = zf.getinfo(name)
    if info.file_size > limit:
        raise ValueError(f"Not allowed: member {name!r} declares {info.file_size} bytes (limit {limit})")
    try:
        with zf.open(info, "r") as f:
            data = f.read(info.file_size + 1)  # a member never yields more than it declares (CRC-checked)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError) as e:
        raise ValueError(f"Invalid .keras archive: cannot read {name!r}: {e}") from e
    if len(data) > limit:
        raise ValueError(f"Not allowed: member {name!r} is larger than {limit} bytes")
    return data


def parse_json(data, name):
    """The JSON object in ``data`` (bytes), or a ``ValueError``."""
    try:
        text = data.decode("utf-8")
        obj = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"Invalid {name}: not a JSON document ({type(e).__name__}: {str(e)[:200]})") from e
    except ValueError as e:  # e.g. integers with too many digits
        raise ValueError(f"Invalid {name}: {str(e)[:200]}") from e
    if not isinstance(obj, dict):
        raise ValueError(f"Invalid {name}: expected a JSON object, got {type(obj).__name__}")
    return obj


def metadata_json():
    from tensorlet._src.keras.saving.saving_api import KERAS_VERSION

    return json.dumps({"keras_version": KERAS_VERSION,
                       "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")})


def write_archive(fileobj, config_json, weights_bytes):
    """Writes the three members (stored, like Keras) into ``fileobj``."""
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, data in ((METADATA, metadata_json().encode()), (CONFIG, config_json.encode()),
                           (WEIGHTS, weights_bytes)):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0) if name != WEIGHTS else
                                   datetime.datetime.now().timetuple()[:6])
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)


def weights_bytes(model):
    """The ``model.weights.h5`` member as bytes."""
    from tensorlet._src.keras.saving import weights_h5

    buf = io.BytesIO()
    with weights_h5.h5py().File(buf, "w") as f:
        weights_h5.save_weights_to_h5(model, f)
    return buf.getvalue()
