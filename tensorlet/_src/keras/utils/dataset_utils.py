"""``keras.utils`` dataset builders: ``image_dataset_from_directory``, ``text_dataset_from_directory``,
``audio_dataset_from_directory``, ``timeseries_dataset_from_array`` and ``split_dataset``.

Directory indexing follows Keras 3: class sub-directories in sorted order, files walked in sorted order, the file
list shuffled with ``np.random.RandomState(seed)`` (then the batches with ``Dataset.shuffle(seed=seed)``, whose
order equals TF's), the validation split taken from the end of the (shuffled) list.

>>> ds = timeseries_dataset_from_array(np.arange(10), None, sequence_length=3, batch_size=4)
>>> next(iter(ds)).numpy().tolist()
[[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]
"""

from __future__ import annotations

import io
import os
import wave

import numpy as np

from tensorlet._src.data.dataset_ops import Dataset
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.io.files import read_file
from tensorlet._src.io.image_codecs import decode_image_array
from tensorlet._src.keras.backend import standardize_data_format
from tensorlet._src.keras.layers.preprocessing_lookup import host_map
from tensorlet._src.keras.ops._dtypes import cast
from tensorlet._src.keras.ops.image import resize
from tensorlet._src.ops.array_select import one_hot
from tensorlet._src.ops.registry import tf_export
from tensorlet._src.ops.strings_ops import substr

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
# interpolations whose resize to the image's own size returns its pixels exactly (in TF and here; checked by
# tests/keras/test_utils_datasets.py), with any crop/pad to the same aspect ratio a no-op
_EXACT_AT_SAME_SIZE = ("bilinear", "nearest", "bicubic", "area")


def _walk(directory, formats, follow_links):
    out = []
    for root, dirs, files in os.walk(directory, followlinks=follow_links):
        dirs.sort()
        for f in sorted(files):
            if f.lower().endswith(formats):
                out.append(os.path.join(root, f))
    return out


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None, follow_links=False,
                    verbose=True):
    """``(file_paths, labels, class_names)`` for a directory tree, as Keras indexes it."""
    if not os.path.isdir(directory):
        raise ValueError(f"The `directory` argument should be an existing directory. Received: "
                         f"directory={directory}")
    if labels == "inferred":
        subdirs = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        if class_names is not None:
            if sorted(class_names) != sorted(subdirs) and not set(class_names) <= set(subdirs):
                raise ValueError("The `class_names` passed did not match the names of the subdirectories of the "
                                 f"target directory. Expected: {subdirs} (or a subset of it), but received: "
                                 f"class_names={class_names}")
            subdirs = list(class_names)
        class_names = subdirs
        paths, labs = [], []
        for i, name in enumerate(subdirs):
            files = _walk(os.path.join(directory, name), formats, follow_links)
            paths += files
            labs += [i] * len(files)
        labels_out = np.asarray(labs, np.int32)
    else:
        paths = _walk(directory, formats, follow_links)
        if labels is None:
            labels_out = None
        else:
            if len(labels) != len(paths):
                raise ValueError("Expected the lengths of `labels` to match the number of files in the target "
                                 f"directory. len(labels) is {len(labels)} while we found {len(paths)} files in "
                                 f"directory {directory}.")
            labels_out = np.asarray(labels)
        class_names = class_names
    if verbose:
        if labels_out is None:
            print(f"Found {len(paths)} files.")
        else:
            print(f"Found {len(paths)} files belonging to {len(class_names) if class_names else 0} classes.")
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        rng = np.random.RandomState(seed)
        rng.shuffle(paths)
        if labels_out is not None:
            rng = np.random.RandomState(seed)
            rng.shuffle(labels_out)
    return paths, labels_out, class_names


def check_validation_split_arg(validation_split, subset, shuffle, seed):
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: {validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError('`subset` must be either "training", "validation" or "both", received: ' + str(subset))
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` argument, "
                         "to make sure that there is no overlap between the training and validation subset.")


def get_training_or_validation_split(samples, labels, validation_split, subset, verbose=True):
    if not validation_split:
        return samples, labels
    num_val = int(validation_split * len(samples))
    if subset == "training":
        if verbose:
            print(f"Using {len(samples) - num_val} files for training.")
        samples = samples[:-num_val] if num_val else samples
        labels = None if labels is None else (labels[:-num_val] if num_val else labels)
    elif subset == "validation":
        if verbose:
            print(f"Using {num_val} files for validation.")
        samples, labels = samples[-num_val:], None if labels is None else labels[-num_val:]
    else:
        raise ValueError(f'`subset` must be either "training" or "validation", received: {subset}')
    return samples, labels


def _labels_dataset(labels, label_mode, num_classes):
    if label_mode == "int":
        return Dataset.from_tensor_slices(convert_to_tensor(np.asarray(labels, np.int32)))
    if label_mode == "binary":
        return Dataset.from_tensor_slices(convert_to_tensor(np.asarray(labels, np.float32).reshape(-1, 1)))
    if label_mode == "categorical":
        return Dataset.from_tensor_slices(one_hot(convert_to_tensor(np.asarray(labels, np.int32)), num_classes))
    raise ValueError(f'`label_mode` argument must be one of "int", "categorical", "binary", or None. Received: '
                     f"label_mode={label_mode}")


def _finish(ds, batch_size, shuffle, seed, load=None):
    if batch_size is not None:
        if shuffle:
            ds = ds.shuffle(buffer_size=batch_size * 8, seed=seed)
        ds = ds.batch(batch_size)
    elif shuffle:
        ds = ds.shuffle(buffer_size=1024, seed=seed)
    if load is not None:  # files are loaded after shuffling and batching: one host call per batch
        ds = ds.map(load)
    return ds.prefetch(-1)


def _check_labels(labels, label_mode, class_names):
    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple, np.ndarray)):
        raise ValueError("`labels` argument should be a list/tuple of integer labels, of the same size as the number "
                         "of files in the target directory. If you wish to infer the labels from the subdirectory "
                         'names in the target directory, pass `labels="inferred"`. If you wish to get a dataset that '
                         f"only contains images (no labels), pass `labels=None`. Received: labels={labels}")
    if class_names and labels != "inferred":
        raise ValueError("You can only pass `class_names` if `labels='inferred'`. "
                         f"Received: labels={labels}, and class_names={class_names}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(f'`label_mode` argument must be one of "int", "categorical", "binary", or None. Received: '
                         f"label_mode={label_mode}")
    return None if labels is None else label_mode


def _build(directory, labels, label_mode, class_names, formats, batch_size, shuffle, seed, validation_split, subset,
           follow_links, verbose, make_ds):
    label_mode = _check_labels(labels, label_mode, class_names)
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labs, class_names = index_directory(directory, labels, formats, class_names=class_names,
                                               shuffle=shuffle, seed=seed, follow_links=follow_links,
                                               verbose=verbose)
    if label_mode == "binary" and len(class_names or []) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 class_names. '
                         f"Received: class_names={class_names}")

    def one(sub):
        p, lab = get_training_or_validation_split(paths, labs, validation_split, sub, verbose)
        if not p:
            raise ValueError(f"No files found in directory {directory}. Allowed formats: {formats}")
        ds = make_ds(p)  # a dataset, or (a dataset of indices into p, the batch loader)
        ds, load = ds if isinstance(ds, tuple) else (ds, None)
        if label_mode is not None:
            ds = Dataset.zip((ds, _labels_dataset(lab, label_mode, len(class_names))))
        # with subset="both" Keras leaves the validation half unshuffled
        ds = _finish(ds, batch_size, shuffle and not (subset == "both" and sub == "validation"), seed,
                     load and (lambda x, *y: (load(x), *y) if y else load(x)))
        ds.class_names = class_names
        ds.file_paths = p
        return ds

    if subset == "both":
        return one("training"), one("validation")
    return one(subset)


@tf_export("keras.utils.image_dataset_from_directory", "keras.preprocessing.image_dataset_from_directory")
def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, color_mode="rgb",
                                 batch_size=32, image_size=(256, 256), shuffle=True, seed=None, validation_split=None,
                                 subset=None, interpolation="bilinear", follow_links=False,
                                 crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, data_format=None,
                                 verbose=True):
    """A ``tf.data.Dataset`` of ``(images, labels)`` batches from ``directory/<class>/*.png|jpg|...``; images are
    float32 ``image_size`` tensors (``dataset.class_names`` lists the classes)."""
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if channels is None:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         f"Received: color_mode={color_mode}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("Only one of `crop_to_aspect_ratio` and `pad_to_aspect_ratio` can be set to `True`.")
    df = standardize_data_format(data_format)
    size = tuple(image_size)

    def decode(path):
        with open(path, "rb") as f:
            return decode_image_array(f.read(), channels, expand_animations=False)

    def load_np(paths, index):
        """float32 images of a batch (or one) of file indices: decoded on the host, resized per group of equal
        shapes."""
        # serially: a thread pool is slower here (small images decode mostly under the GIL, in Pillow's Python)
        imgs = [decode(paths[i]) for i in index.reshape(-1).tolist()]
        out = np.empty((len(imgs),) + size + (channels,), np.float32)
        groups = {}
        for i, a in enumerate(imgs):
            groups.setdefault(a.shape, []).append(i)
        for shp, ix in groups.items():
            if shp[:2] == size and interpolation in _EXACT_AT_SAME_SIZE:  # resizing would return the pixels
                for i in ix:
                    out[i] = imgs[i]
                continue
            y = resize(np.stack([imgs[i] for i in ix]), size, interpolation=interpolation,
                       crop_to_aspect_ratio=crop_to_aspect_ratio, pad_to_aspect_ratio=pad_to_aspect_ratio)
            out[ix] = np.asarray(cast(y, "float32"))
        if df == "channels_first":
            out = out.transpose(0, 3, 1, 2)
        return np.ascontiguousarray(out.reshape(index.shape + out.shape[1:]))

    shape = (channels,) + size if df == "channels_first" else size + (channels,)

    def make(paths):
        # integer elements: the loader traces (one host call per batch) and the shuffle sees what Keras's does
        def load(index):
            return host_map(lambda i: load_np(paths, i), index, "float32", lambda s: s + shape)

        return Dataset.from_tensor_slices(convert_to_tensor(np.arange(len(paths), dtype=np.int64))), load

    return _build(directory, labels, label_mode, class_names, IMAGE_FORMATS, batch_size, shuffle, seed,
                  validation_split, subset, follow_links, verbose, make)


@tf_export("keras.utils.text_dataset_from_directory", "keras.preprocessing.text_dataset_from_directory")
def text_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                max_length=None, shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, verbose=True):
    """A dataset of ``(texts, labels)`` from ``directory/<class>/*.txt`` (strings, truncated to ``max_length``
    bytes when given)."""

    def load(path):
        t = read_file(path)
        return substr(t, 0, max_length) if max_length is not None else t

    def make(paths):
        return Dataset.from_tensor_slices(convert_to_tensor(np.array(paths, dtype=object))).map(load)

    return _build(directory, labels, label_mode, class_names, (".txt",), batch_size, shuffle, seed, validation_split,
                  subset, follow_links, verbose, make)


def read_wav(path):
    """``(float32 samples [frames, channels] in [-1, 1), sample_rate)`` of a PCM WAV file (stdlib ``wave``)."""
    with open(path, "rb") as f:
        data = f.read()
    with wave.open(io.BytesIO(data)) as w:
        n, ch, width, rate = w.getnframes(), w.getnchannels(), w.getsampwidth(), w.getframerate()
        raw = w.readframes(n)
    if width == 1:
        a = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 2:
        a = np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3)
        v = (b[:, 0].astype(np.int32) | (b[:, 1].astype(np.int32) << 8) | (b[:, 2].astype(np.int32) << 16))
        a = ((v ^ 0x800000) - 0x800000).astype(np.float32) / 8388608.0
    elif width == 4:
        a = np.frombuffer(raw, "<i4").astype(np.float32) / 2147483648.0
    else:
        raise ValueError(f"Unsupported WAV sample width {width} in {path}")
    return a.reshape(-1, ch), rate


@tf_export("keras.utils.audio_dataset_from_directory")
def audio_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                 sampling_rate=None, output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None, follow_links=False, verbose=True):
    """A dataset of ``(audio [batch, time, channels], labels)`` from ``directory/<class>/*.wav``; each batch is
    zero-padded to its longest clip (or cut/padded to ``output_sequence_length``)."""
    if ragged:
        raise ValueError("ragged=True needs ragged tensors, which tensorlet does not have yet")
    if sampling_rate is not None:
        raise ValueError("`sampling_rate` resampling is not supported (as in Keras on the TensorFlow backend "
                         "without tensorflow-io); leave it None")

    def make(paths):
        clips = []
        for p in paths:
            a, _ = read_wav(p)
            if output_sequence_length is not None:
                a = a[:output_sequence_length]
                a = np.pad(a, ((0, output_sequence_length - len(a)), (0, 0)))
            clips.append(a)
        return _ClipList(clips)

    label_mode_ = _check_labels(labels, label_mode, class_names)
    check_validation_split_arg(validation_split, subset, shuffle, seed)
    seed_ = np.random.randint(1e6) if seed is None else seed
    paths, labs, names = index_directory(directory, labels, (".wav",), class_names=class_names, shuffle=shuffle,
                                         seed=seed_, follow_links=follow_links, verbose=verbose)

    def one(sub):
        p, lab = get_training_or_validation_split(paths, labs, validation_split, sub, verbose)
        clips = make(p).clips
        order = np.arange(len(p))
        if shuffle and not (subset == "both" and sub == "validation"):
            np.random.RandomState(seed_).shuffle(order)
        batches = []
        bs = batch_size or len(p)
        for i in range(0, len(p), bs):
            idx = order[i:i + bs]
            width = max(len(clips[j]) for j in idx)
            x = np.stack([np.pad(clips[j], ((0, width - len(clips[j])), (0, 0))) for j in idx]).astype(np.float32)
            if label_mode_ is None:
                batches.append(x)
            else:
                y = np.asarray(lab)[idx]
                if label_mode_ == "categorical":
                    y = np.eye(len(names), dtype=np.float32)[y]
                elif label_mode_ == "binary":
                    y = y.astype(np.float32).reshape(-1, 1)
                batches.append((x, y.astype(np.int32) if label_mode_ == "int" else y))
        if label_mode_ is None:
            ds = Dataset.from_generator(lambda: iter(batches), output_signature=_spec(batches[0]))
        else:
            ds = Dataset.from_generator(lambda: iter(batches), output_signature=_spec(batches[0]))
        ds.class_names, ds.file_paths = names, p
        return ds

    if subset == "both":
        return one("training"), one("validation")
    return one(subset)


class _ClipList:
    def __init__(self, clips):
        self.clips = clips


def _spec(example):
    from tensorlet._src.data.structure import TensorSpec

    def one(a):
        shape = [None] + [None if i == 0 and a.ndim == 3 else d for i, d in enumerate(a.shape[1:])]
        return TensorSpec(shape, a.dtype.name)

    return tuple(one(a) for a in example) if isinstance(example, tuple) else one(example)


@tf_export("keras.utils.timeseries_dataset_from_array", "keras.preprocessing.timeseries_dataset_from_array")
def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1,
                                  batch_size=128, shuffle=False, seed=None, start_index=None, end_index=None):
    """Sliding windows over ``data`` (with the target of each window's first step when ``targets`` is given)."""
    if start_index and (start_index < 0 or start_index >= len(data)):
        raise ValueError(f"`start_index` must be 0 <= start_index < len(data). Received: start_index={start_index}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError("`end_index` must be higher than `start_index`. Received: "
                             f"start_index={start_index}, and end_index={end_index} ")
        if end_index >= len(data):
            raise ValueError(f"`end_index` must be lower than the length of the data. Received: "
                             f"end_index={end_index}")
    if sampling_rate <= 0 or sequence_stride <= 0 or sequence_length <= 0:
        raise ValueError("`sampling_rate`, `sequence_stride` and `sequence_length` must be higher than 0.")
    start = start_index or 0
    end = end_index if end_index is not None else len(data)
    data = np.asarray(data)
    num_seqs = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    num_seqs = max(num_seqs, 0)
    starts = np.arange(0, num_seqs, sequence_stride, dtype=np.int64)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(starts)
    idx = (starts[:, None] + np.arange(sequence_length)[None, :] * sampling_rate) + start
    windows = data[idx] if len(idx) else np.zeros((0, sequence_length) + data.shape[1:], data.dtype)
    ds = Dataset.from_tensor_slices(convert_to_tensor(windows))
    if targets is not None:
        t = np.asarray(targets)[starts + start] if len(starts) else np.asarray(targets)[:0]
        ds = Dataset.zip((ds, Dataset.from_tensor_slices(convert_to_tensor(t))))
    if shuffle:
        ds = ds.shuffle(buffer_size=batch_size * 8, seed=seed)
    if batch_size is not None:
        ds = ds.batch(batch_size)
    return ds


@tf_export("keras.utils.split_dataset")
def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """Splits arrays / tuples of arrays / a dataset into two datasets (``left_size``/``right_size`` as fractions
    or counts)."""
    if isinstance(dataset, Dataset):
        items = list(dataset.as_numpy_iterator())
        if items and isinstance(items[0], tuple):
            arrays = tuple(np.stack([it[i] for it in items]) for i in range(len(items[0])))
        else:
            arrays = np.stack(items) if items else np.zeros((0,))
    elif isinstance(dataset, (list, tuple)):
        arrays = tuple(np.asarray(a) for a in dataset)
    else:
        arrays = np.asarray(dataset)
    n = len(arrays[0]) if isinstance(arrays, tuple) else len(arrays)
    if left_size is None and right_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. Received: "
                         "left_size=None and right_size=None")

    def count(v):
        if v is None:
            return None
        if isinstance(v, float):
            if not 0 < v < 1:
                raise ValueError(f"Fractional sizes must be in (0, 1). Received: {v}")
            return int(round(v * n))
        return int(v)

    lft, rgt = count(left_size), count(right_size)
    lft = n - rgt if lft is None else lft
    rgt = n - lft if rgt is None else rgt
    if lft + rgt > n:
        raise ValueError(f"The sum of `left_size` and `right_size` is greater than the total number of samples. "
                         f"Received: left_size + right_size = {lft + rgt}and total_size = {n}")
    order = np.arange(n)
    if shuffle:
        np.random.RandomState(seed if seed is not None else np.random.randint(1e6)).shuffle(order)

    def part(ix):
        if isinstance(arrays, tuple):
            return Dataset.from_tensor_slices(tuple(convert_to_tensor(a[ix]) for a in arrays))
        return Dataset.from_tensor_slices(convert_to_tensor(arrays[ix]))

    return part(order[:lft]), part(order[lft:lft + rgt])
