"""Shared pieces of ``keras.applications``: ``preprocess_input`` (caffe / tf / torch), ``decode_predictions`` from a
local ImageNet class index, input-shape validation, and the common model skeleton (weights argument, input,
classifier top or pooling, weight loading from a local file).  No network: ``weights="imagenet"`` uses a weights
file already in Keras's cache (``$KERAS_HOME/models``) or raises."""

import json
import os
import warnings

import numpy as np

from tensorlet._src.keras import activations
from tensorlet._src.keras import backend
from tensorlet._src.keras.applications import _layers as layers
from tensorlet._src.keras.engine.input_layer import Input, InputLayer
from tensorlet._src.keras.engine.training import Model
from tensorlet._src.keras.ops.core import convert_to_numpy, convert_to_tensor
from tensorlet._src.keras.ops.numpy_array import reshape, stack
from tensorlet._src.keras.utils.file_utils import keras_home
from tensorlet._src.ops.registry import tf_export

CLASS_INDEX = None
CLASS_INDEX_FILE = "imagenet_class_index.json"
_CAFFE_MEAN = (103.939, 116.779, 123.68)
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)


def _data_format(data_format):
    if data_format is None:
        return backend.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Expected data_format to be one of `channels_first` or `channels_last`. "
                         f"Received: data_format={data_format}")
    return data_format


@tf_export("keras.applications.imagenet_utils.preprocess_input")
def preprocess_input(x, data_format=None, mode="caffe"):
    """Scales a batch of images (values 0..255) as an ImageNet model expects.

    ``mode="caffe"``: RGB to BGR, then subtract the ImageNet channel means; ``"tf"``: scale to [-1, 1];
    ``"torch"``: scale to [0, 1], then normalize with the ImageNet mean and std.  NumPy float inputs are
    modified in place (as Keras does); tensors give new tensors.
    """
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError(f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}")
    data_format = _data_format(data_format)
    if isinstance(x, np.ndarray):
        return _preprocess_numpy(x, data_format, mode)
    return _preprocess_tensor(x, data_format, mode)


def _channel_index(ndim, data_format, c):
    if data_format == "channels_last":
        return (Ellipsis, c)
    return (c,) if ndim == 3 else (slice(None), c)


def _preprocess_numpy(x, data_format, mode):
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        axis = -1 if data_format == "channels_last" else (0 if x.ndim == 3 else 1)
        x = np.flip(x, axis=axis)
        mean, std = _CAFFE_MEAN, None
    for c in range(3):
        idx = _channel_index(x.ndim, data_format, c)
        x[idx] -= mean[c]
        if std is not None:
            x[idx] /= std[c]
    return x


def _preprocess_tensor(x, data_format, mode):
    ndim = len(x.shape)
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        axis = -1 if data_format == "channels_last" else (0 if ndim == 3 else 1)
        x = stack([x[_channel_index(ndim, data_format, c)] for c in (2, 1, 0)], axis=axis)
        mean, std = _CAFFE_MEAN, None
    if data_format == "channels_last":
        bshape = (1,) * (ndim - 1) + (3,)
    else:
        bshape = (3, 1, 1) if ndim == 3 else (1, 3) + (1,) * (ndim - 2)
    x = x + reshape(convert_to_tensor(-np.array(mean), dtype=x.dtype), bshape)
    if std is not None:
        x = x / reshape(convert_to_tensor(np.array(std), dtype=x.dtype), bshape)
    return x


def _load_class_index(class_index):
    global CLASS_INDEX
    if isinstance(class_index, dict):
        return class_index
    if class_index is None:
        if CLASS_INDEX is not None:
            return CLASS_INDEX
        path = os.path.join(keras_home(), "models", CLASS_INDEX_FILE)
        if not os.path.exists(path):
            raise ValueError(
                f"`decode_predictions` needs the ImageNet class index, and there is no network to download it: "
                f"put `{CLASS_INDEX_FILE}` at {path} or pass `class_index=<path to the JSON file>`.")
    else:
        path = os.fspath(class_index)
    with open(path) as f:
        index = json.load(f)
    if not isinstance(index, dict) or not all(isinstance(v, (list, tuple)) and len(v) == 2 for v in index.values()):
        raise ValueError(f"{path} is not an ImageNet class index ({{\"0\": [wnid, name], ...}}).")
    if class_index is None:
        CLASS_INDEX = index
    return index


@tf_export("keras.applications.imagenet_utils.decode_predictions")
def decode_predictions(preds, top=5, class_index=None):
    """Turns a ``(samples, 1000)`` batch of ImageNet scores into lists of ``(wnid, name, score)``, best first.

    The class index is read from ``class_index`` (a path to Keras's ``imagenet_class_index.json`` or the loaded
    dict) or, by default, from Keras's cache ``$KERAS_HOME/models/imagenet_class_index.json``.
    """
    preds = convert_to_numpy(preds)
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
                         f"(samples, 1000)). Received array with shape: {preds.shape}")
    index = _load_class_index(class_index)
    results = []
    for pred in preds:
        top_indices = pred.argsort()[-top:][::-1]
        row = [tuple(index[str(i)]) + (pred[i],) for i in top_indices]
        row.sort(key=lambda r: r[2], reverse=True)
        results.append(row)
    return results


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten, weights=None):
    """Validates (or defaults) a model's ``input_shape`` as Keras does."""
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was passed an "
                          f"input_shape with {channels} input channels.", stacklevel=3)
        default_shape = ((channels, default_size, default_size) if channels_first
                         else (default_size, default_size, channels))
    else:
        default_shape = (3, default_size, default_size) if channels_first else (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, `input_shape` "
                             f"should be {default_shape}.  Received: input_shape={input_shape}")
        return default_shape
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if channels_first else input_shape[-1]
        spatial = input_shape[1:] if channels_first else input_shape[:2]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received `input_shape={input_shape}`")
        if any(d is not None and d < min_size for d in spatial):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                             f"input_shape={input_shape}")
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. "
                         f"Received: input_shape={input_shape}")
    return input_shape


def correct_pad(inputs, kernel_size):
    """Zero padding that makes a strided 'valid' convolution line up as Keras's models expect."""
    axis = 2 if backend.image_data_format() == "channels_first" else 1
    size = inputs.shape[axis:axis + 2]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    half = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((half[0] - adjust[0], half[0]), (half[1] - adjust[1], half[1]))


def validate_activation(classifier_activation, weights):
    if weights is None:
        return
    act = activations.get(classifier_activation)
    if act not in {activations.get("softmax"), activations.get(None)}:
        raise ValueError("Only `None` and `softmax` activations are allowed for the `classifier_activation` "
                         "argument when using pretrained weights, with `include_top=True`; Received: "
                         f"classifier_activation={classifier_activation}")


def bn_axis():
    return 3 if backend.image_data_format() == "channels_last" else 1


def channel_axis():
    """The channel axis as the MobileNet/Xception builders spell it (-1, not 3, in their BatchNormalization)."""
    return 1 if backend.image_data_format() == "channels_first" else -1


def rows_cols(shape, batch_dim=False):
    """``(rows, cols)`` of an image shape, with or without its batch dimension."""
    off = 1 if batch_dim else 0
    if channel_axis() == 1:
        return shape[off + 1], shape[off + 2]
    return shape[off], shape[off + 1]


def square_rows(input_shape, input_tensor, sizes, default=224):
    """The MobileNets' default size: the input's rows when square and one of ``sizes`` (read from ``input_shape``,
    else from a Keras ``input_tensor``), else ``default``."""
    if input_shape is not None:
        rows, cols = rows_cols(input_shape)
    elif input_tensor is not None and backend.is_keras_tensor(input_tensor):
        rows, cols = rows_cols(input_tensor.shape, batch_dim=True)
    else:
        return default
    return rows if rows == cols and rows in sizes else default


def pretrained_rows(input_shape, sizes, stacklevel=3):
    """The size of the pretrained file a MobileNet loads: its rows when square and one of ``sizes``, else 224
    with Keras's warning."""
    rows, cols = rows_cols(input_shape)
    if rows == cols and rows in sizes:
        return rows
    warnings.warn(f"`input_shape` is undefined or non-square, or `rows` is not in {list(sizes)}. Weights for input "
                  "shape (224, 224) will be loaded as the default.", stacklevel=stacklevel)
    return 224


def tf_kernels_files(stem):
    """Keras's ``(with_top, no_top)`` pretrained file names ``<stem>_weights_tf_dim_ordering_tf_kernels[_notop].h5``."""
    return (f"{stem}_weights_tf_dim_ordering_tf_kernels.h5", f"{stem}_weights_tf_dim_ordering_tf_kernels_notop.h5")


def prepare_input(input_shape, input_tensor, weights, include_top, classes, file_names, default_size,
                  min_size=32):
    """What every builder runs first: the weights/classes checks, Keras's input-shape resolution, the input tensor.

    Returns ``(input_shape, img_input)``.
    """
    check_weights(weights, include_top, classes, file_names)
    input_shape = obtain_input_shape(input_shape, default_size=default_size, min_size=min_size,
                                     data_format=backend.image_data_format(), require_flatten=include_top,
                                     weights=weights)
    return input_shape, make_input(input_shape, input_tensor)


def classifier(x, classes, classifier_activation, weights, **dense_kwargs):
    """The ``predictions`` Dense layer that ends a top (activation checked against pretrained weights)."""
    validate_activation(classifier_activation, weights)
    return layers.Dense(classes, activation=classifier_activation, name="predictions", **dense_kwargs)(x)


def pooled_top(x, classes, classifier_activation, weights, dropout_rate=0.0, **dense_kwargs):
    """The common top: ``avg_pool`` (GlobalAveragePooling2D), an optional ``top_dropout``, then ``predictions``."""
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    if dropout_rate > 0:
        x = layers.Dropout(dropout_rate, name="top_dropout")(x)
    return classifier(x, classes, classifier_activation, weights, **dense_kwargs)


def flatten_top(x, classes, classifier_activation, weights, hidden=(4096, 4096)):
    """VGG's top: ``flatten``, the ReLU ``fc1``, ``fc2``..., then ``predictions``."""
    x = layers.Flatten(name="flatten")(x)
    for i, units in enumerate(hidden, start=1):
        x = layers.Dense(units, activation="relu", name=f"fc{i}")(x)
    return classifier(x, classes, classifier_activation, weights)


def check_weights(weights, include_top, classes, file_names=None, imagenet_classes=1000):
    """The checks every application runs on ``weights``/``classes`` before building (``file_names``: Keras's
    pretrained file names ``(with_top, no_top)``, looked up in the local cache only)."""
    if not (weights in {"imagenet", None} or (isinstance(weights, (str, os.PathLike)) and os.path.exists(weights))):
        raise ValueError("The `weights` argument should be either `None` (random initialization), 'imagenet' "
                         "(pre-training on ImageNet), or the path to the weights file to be loaded.  Received: "
                         f"weights={weights}")
    if weights == "imagenet" and include_top and classes != imagenet_classes:
        raise ValueError(f"If using `weights='imagenet'` with `include_top=True`, `classes` should be "
                         f"{imagenet_classes}.  Received classes={classes}")
    if weights == "imagenet" and file_names is not False:  # False: the caller checks once it knows the file
        if file_names is None:
            raise ValueError("No pretrained 'imagenet' weights file is known for this model; pass "
                             "`weights=<local path to a Keras .weights.h5/.h5 file>`.")
        imagenet_weights_path(file_names[0] if include_top else file_names[1])


def imagenet_weights_path(file_name):
    """The cached pretrained weights file, or a clear error: nothing is downloaded."""
    path = os.path.join(keras_home(), "models", file_name)
    if os.path.exists(path):
        return path
    raise ValueError(f"weights='imagenet' needs `{file_name}`, and there is no network to download it. Put the "
                     f"file at {path}, or pass `weights=<local path to a Keras .weights.h5/.h5 file>`.")


def make_input(input_shape, input_tensor):
    if input_tensor is None:
        return Input(shape=input_shape)
    if not backend.is_keras_tensor(input_tensor):
        return Input(tensor=input_tensor, shape=input_shape)
    return input_tensor


def source_inputs(tensor):
    """The model inputs a Keras tensor was computed from (Keras's ``get_source_inputs``)."""
    out, seen, stack_ = [], set(), [tensor]
    while stack_:
        t = stack_.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        hist = getattr(t, "_keras_history", None)
        if hist is None or isinstance(hist[0], InputLayer):
            out.append(t)
            continue
        node = hist[0]._inbound_nodes[hist[1]]
        stack_.extend(reversed(node.input_tensors))
    return out if len(out) != 1 else out[0]


def finish(img_input, input_tensor, x, name, weights, file_names=None, include_top=True, *, top=None,
           pooling=None, classes=1000, classifier_activation="softmax", pool_names=("avg_pool", "max_pool")):
    """Adds the top (``top(x)`` when ``include_top``, else the optional pooling), builds the Model, loads weights.

    ``file_names`` is ``(with_top, no_top)``: Keras's pretrained file names, looked up in the local cache only.
    """
    if include_top:
        x = top(x) if top is not None else pooled_top(x, classes, classifier_activation, weights)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D(name=pool_names[0])(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D(name=pool_names[1])(x)
    inputs = source_inputs(input_tensor) if input_tensor is not None else img_input
    model = Model(inputs, x, name=name)
    if weights == "imagenet":
        model.load_weights(imagenet_weights_path(file_names[0] if include_top else file_names[1]))
    elif weights is not None:
        model.load_weights(weights)
    return model
