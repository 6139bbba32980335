"""``keras.utils.FeatureSpace``: declarative preprocessing of structured (tabular) data, as Keras 3 does it.

Each named feature gets a preprocessing layer (Normalization, Rescaling, Discretization, StringLookup,
IntegerLookup, Hashing, or one given by the user); crosses hash pairs of features with HashedCrossing; one-hot
features go through a CategoryEncoding; the results come back concatenated (in sorted feature-name order, then the
crosses) or as a dict.

>>> fs = tf.keras.utils.FeatureSpace({"a": "float_rescaled", "b": "float"})
>>> fs({"a": [1.0, 2.0], "b": [3.0, 4.0]}).numpy().tolist()
[[1.0, 3.0], [2.0, 4.0]]
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.data.dataset_ops import DatasetV2 as Dataset
from tensorlet._src.framework.tensor import convert_to_tensor
from tensorlet._src.keras import backend
from tensorlet._src.keras.engine.base_layer import Layer
from tensorlet._src.keras.engine.input_layer import Input
from tensorlet._src.keras.layers.merging import Concatenate
from tensorlet._src.keras.layers.preprocessing import CategoryEncoding, Normalization, Rescaling
from tensorlet._src.keras.layers.preprocessing_lookup import (Discretization, HashedCrossing, Hashing,
                                                              IntegerLookup, StringLookup)
from tensorlet._src.keras.layers.preprocessing_text import TextVectorization
from tensorlet._src.keras.ops.numpy_array import expand_dims, reshape, squeeze
from tensorlet._src.keras.saving import serialization as _ser
from tensorlet._src.ops.registry import tf_export

# The module Keras 3 writes for the two helper objects in a saved FeatureSpace's config.
PARTS_MODULE = "keras.src.layers.preprocessing.feature_space"


def _serialize_part(obj):
    return {"module": PARTS_MODULE, "class_name": type(obj).__name__, "config": obj.get_config(),
            "registered_name": type(obj).__name__}


def _deserialize_part(config, cls):
    """A ``Feature``/``Cross`` from its serialized dict (only those two classes: nothing else is looked up)."""
    if not isinstance(config, dict) or config.get("class_name") != cls.__name__ or \
            not isinstance(config.get("config"), dict):
        raise ValueError(f"Expected a serialized `{cls.__name__}` (a dict with class_name '{cls.__name__}'). "
                         f"Received: {str(config)[:300]}")
    return cls.from_config(config["config"])


class Cross:
    """A feature cross: the named features hashed together into ``crossing_dim`` bins."""

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in {"int", "one_hot"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of {'int', 'one_hot'}. "
                             f"Received: output_mode={output_mode}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self):
        return "_X_".join(self.feature_names)

    def get_config(self):
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Feature:
    """A feature: its input ``dtype``, the ``preprocessor`` layer, and how its output is encoded
    (``"int"``, ``"one_hot"`` or ``"float"``)."""

    def __init__(self, dtype, preprocessor, output_mode):
        if output_mode not in {"int", "one_hot", "float"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of {'int', 'one_hot', "
                             f"'float'}}. Received: output_mode={output_mode}")
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = _ser.deserialize_keras_object(preprocessor)
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self):
        return {"dtype": self.dtype, "preprocessor": _ser.serialize_keras_object(self.preprocessor),
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _Identity(Layer):
    """The preprocessor of a ``"float"`` feature: passes its input through."""

    def call(self, x):
        return x


@tf_export("keras.utils.FeatureSpace")
class FeatureSpace(Layer):
    """One-stop preprocessing and encoding of structured data (Keras 3's ``keras.utils.FeatureSpace``).

    ``features`` maps each feature name to a type name (``"float"``, ``"float_normalized"``,
    ``"float_rescaled"``, ``"float_discretized"``, ``"integer_categorical"``, ``"string_categorical"``,
    ``"integer_hashed"``, ``"string_hashed"``) or to a ``FeatureSpace.<type>(...)``/``FeatureSpace.feature(...)``
    spec; ``crosses`` lists feature-name tuples (or ``FeatureSpace.cross(...)``); ``output_mode`` is ``"concat"``
    (one float vector) or ``"dict"``.  Call ``adapt(dataset)`` before use when a preprocessor learns from data.
    """

    # --- feature specs ------------------------------------------------------------------------------------------
    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        name = name or backend.auto_name("float")
        return Feature("float32", _Identity(dtype="float32", name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        name = name or backend.auto_name("float_rescaled")
        return Feature("float32", Rescaling(scale=scale, offset=offset, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_normalized(cls, name=None):
        name = name or backend.auto_name("float_normalized")
        return Feature("float32", Normalization(axis=-1, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot", name=None):
        name = name or backend.auto_name("float_discretized")
        layer = Discretization(num_bins=num_bins, bin_boundaries=bin_boundaries, name=f"{name}_preprocessor")
        return Feature("float32", layer, output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None):
        name = name or backend.auto_name("integer_categorical")
        layer = IntegerLookup(name=f"{name}_preprocessor", max_tokens=max_tokens, num_oov_indices=num_oov_indices)
        return Feature("int32", layer, output_mode)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None):
        name = name or backend.auto_name("string_categorical")
        layer = StringLookup(name=f"{name}_preprocessor", max_tokens=max_tokens, num_oov_indices=num_oov_indices)
        return Feature("string", layer, output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or backend.auto_name("string_hashed")
        return Feature("string", Hashing(name=f"{name}_preprocessor", num_bins=num_bins), output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or backend.auto_name("integer_hashed")
        return Feature("int32", Hashing(name=f"{name}_preprocessor", num_bins=num_bins), output_mode)

    # --- construction -------------------------------------------------------------------------------------------
    def __init__(self, features, output_mode="concat", crosses=None, crossing_dim=32, hashing_dim=32,
                 num_discretization_bins=32, name=None):
        super().__init__(name=name)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.features = {key: self._standardize_feature(key, value) for key, value in features.items()}
        self.crosses = []
        for cross in crosses or ():
            if isinstance(cross, dict):
                cross = _deserialize_part(cross, Cross)
            if not isinstance(cross, Cross):
                if not crossing_dim:
                    raise ValueError("When specifying `crosses`, the argument `crossing_dim` (dimensionality of the "
                                     "crossing space) should be specified as well.")
                if any(key not in features for key in cross):
                    raise ValueError("All features referenced in the `crosses` argument should be present in the "
                                     f"`features` dict. Received unknown features: {cross}")
                cross = Cross(cross, crossing_dim=crossing_dim)
            self.crosses.append(cross)
        self.crosses_by_name = {cross.name: cross for cross in self.crosses}
        if output_mode not in {"dict", "concat"}:
            raise ValueError("Invalid value for argument `output_mode`. Expected one of {'dict', 'concat'}. "
                             f"Received: output_mode={output_mode}")
        self.output_mode = output_mode
        self.inputs = {key: Input(shape=(1,), dtype=spec.dtype, name=key) for key, spec in self.features.items()}
        self.preprocessors = {key: spec.preprocessor for key, spec in self.features.items()}
        self.encoded_features = None
        self.crossers = {cross.name: HashedCrossing(cross.crossing_dim, name=cross.name) for cross in self.crosses}
        self.one_hot_encoders = {}
        self._is_adapted = False
        self.concat = None
        self._preprocessed_features_names = None
        self._crossed_features_names = None
        self._sublayers_built = False

    def _standardize_feature(self, name, feature):
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return _deserialize_part(feature, Feature)
        makers = {"float": lambda: self.float(name=name),
                  "float_normalized": lambda: self.float_normalized(name=name),
                  "float_rescaled": lambda: self.float_rescaled(name=name),
                  "float_discretized": lambda: self.float_discretized(name=name,
                                                                      num_bins=self.num_discretization_bins),
                  "integer_categorical": lambda: self.integer_categorical(name=name),
                  "string_categorical": lambda: self.string_categorical(name=name),
                  "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
                  "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name)}
        if not isinstance(feature, str) or feature not in makers:
            raise ValueError(f"Invalid feature type: {feature}")
        return makers[feature]()

    # --- adapt --------------------------------------------------------------------------------------------------
    def _list_adaptable_preprocessors(self):
        names = []
        for name in self.features:
            layer = self.preprocessors[name]
            if isinstance(layer, Normalization) and layer.input_mean is not None:
                continue  # preset mean/variance
            if isinstance(layer, TextVectorization) and getattr(layer, "_has_input_vocabulary", False):
                continue
            if hasattr(layer, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset):
        """Adapts every preprocessor that learns from data (vocabularies, means, bin boundaries) on ``dataset``: a
        ``tf.data.Dataset`` of feature dicts (batched or not) or a dict of arrays."""
        if not isinstance(dataset, Dataset):
            if not isinstance(dataset, dict):
                raise ValueError("`adapt()` can only be called on a tf.data.Dataset or a dict of arrays/lists. "
                                 f"Received instead: {dataset} (of type {type(dataset)})")
            dataset = Dataset.from_tensor_slices(dataset)
        for name in self._list_adaptable_preprocessors():
            feature_ds = dataset.map(lambda x, name=name: x[name])
            rank = len(feature_ds.element_spec.shape)
            if rank == 0:  # unbatched scalars
                feature_ds = feature_ds.batch(32)
            if rank in (0, 1):  # one column per example, so preprocessors reduce over axis -1
                feature_ds = feature_ds.map(lambda x: expand_dims(x, -1))
            self.preprocessors[name].adapt(feature_ds)
        self._is_adapted = True
        self.get_encoded_features()  # finishes building: the encoders and the concatenation
        self.built = True
        self._sublayers_built = True

    def _check_if_adapted(self):
        if not self._is_adapted:
            if self._list_adaptable_preprocessors():
                raise ValueError("You need to call `.adapt(dataset)` on the FeatureSpace before you can start "
                                 "using it.")
            self._is_adapted = True

    def _check_if_built(self):
        if not self._sublayers_built:
            self._check_if_adapted()
            self.get_encoded_features()
            self._sublayers_built = True

    # --- symbolic use -------------------------------------------------------------------------------------------
    def get_inputs(self):
        """The ``keras.Input`` of each feature (shape ``(None, 1)``), for a model taking raw features."""
        self._check_if_built()
        return self.inputs

    def get_encoded_features(self):
        """The encoded features as Keras tensors (a tensor in ``"concat"`` mode, else a dict), to build a model on."""
        self._check_if_adapted()
        if self.encoded_features is None:
            preprocessed = self._preprocess_features(self.inputs)
            self.encoded_features = self._merge_features(preprocessed, self._cross_features(preprocessed))
        return self.encoded_features

    # --- the pipeline -------------------------------------------------------------------------------------------
    def _preprocess_features(self, features):
        return {name: self.preprocessors[name](features[name]) for name in features}

    def _cross_features(self, features):
        return {cross.name: self.crossers[cross.name]([features[n] for n in cross.feature_names])
                for cross in self.crosses}

    def _merge_features(self, preprocessed, crossed):
        if not self._preprocessed_features_names:
            self._preprocessed_features_names = sorted(preprocessed)
            self._crossed_features_names = sorted(crossed)
        names = self._preprocessed_features_names + self._crossed_features_names
        values = [preprocessed[n] for n in self._preprocessed_features_names] + \
            [crossed[n] for n in self._crossed_features_names]
        if self._sublayers_built:
            out = {}
            for name, value in zip(names, values):
                encoder = self.one_hot_encoders.get(name)
                out[name] = encoder(value) if encoder is not None else value
            return out if self.output_mode == "dict" else self.concat([out[n] for n in names])
        specs = [self.features[n] for n in self._preprocessed_features_names] + \
            [self.crosses_by_name[n] for n in self._crossed_features_names]
        out = {}
        for name, value, spec in zip(names, values, specs):
            dtype = backend.standardize_dtype(value.dtype)
            if spec.output_mode == "one_hot":
                if not dtype.startswith("int"):
                    raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. Thus its preprocessor should "
                                     f"return an integer dtype. Instead it returns a {dtype} dtype.")
                cardinality = self._cardinality(name)
                encoder = CategoryEncoding(num_tokens=cardinality, output_mode="multi_hot")
                self.one_hot_encoders[name] = encoder
                value = encoder(value)
            if self.output_mode == "concat":
                dtype = backend.standardize_dtype(value.dtype)
                if dtype.startswith("int") or dtype == "string":
                    raise ValueError(f"Cannot concatenate features because feature '{name}' has not been encoded "
                                     f"(it has dtype {dtype}). Consider using `output_mode='dict'`.")
            out[name] = value
        if self.output_mode == "dict":
            return out
        self.concat = Concatenate(axis=-1)
        return self.concat([out[n] for n in names])

    def _cardinality(self, name):
        layer = self.preprocessors.get(name) or self.crossers.get(name)
        if isinstance(layer, (IntegerLookup, StringLookup)):
            return layer.vocabulary_size()
        if isinstance(layer, CategoryEncoding):
            return layer.num_tokens
        if isinstance(layer, Discretization):
            return layer.num_bins if layer.num_bins is not None else len(layer.bin_boundaries) + 1
        if isinstance(layer, (HashedCrossing, Hashing)):
            return layer.num_bins
        raise ValueError(f"Feature '{name}' has `output_mode='one_hot'`. However it isn't a standard feature and "
                         "the dimensionality of its output space is not known, thus it cannot be one-hot encoded. "
                         "Try using `output_mode='int'`.")

    @staticmethod
    def _convert_input(x):
        if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, np.ndarray):
            return x  # a tensor (eager, graph, sparse or ragged)
        return convert_to_tensor(x)

    def __call__(self, data):
        self._check_if_built()
        if not isinstance(data, dict):
            raise ValueError(f"A FeatureSpace can only be called with a dict. Received: data={data} (of type "
                             f"{type(data)}")
        data = {key: self._convert_input(value) for key, value in data.items()}
        rebatched = False
        for name, x in data.items():
            if len(x.shape) == 0:
                data[name] = reshape(x, (1, 1))
                rebatched = True
            elif len(x.shape) == 1:
                data[name] = expand_dims(x, -1)
        preprocessed = {k: self._convert_input(v) for k, v in self._preprocess_features(data).items()}
        crossed = {k: self._convert_input(v) for k, v in self._cross_features(preprocessed).items()}
        merged = self._merge_features(preprocessed, crossed)
        if rebatched:
            if self.output_mode == "concat":
                if merged.shape[0] != 1:
                    raise ValueError(f"Expected rebatched data to have batch size 1. Received: shape={merged.shape}")
                merged = squeeze(merged, axis=0)
            else:
                merged = {k: squeeze(v, axis=0) if len(v.shape) == 2 and v.shape[0] == 1 else v
                          for k, v in merged.items()}
        return merged

    # --- saving -------------------------------------------------------------------------------------------------
    def get_config(self):
        return {"features": {k: _serialize_part(v) for k, v in self.features.items()},
                "output_mode": self.output_mode, "crosses": [_serialize_part(c) for c in self.crosses],
                "crossing_dim": self.crossing_dim, "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_build_config(self):
        return {name: spec.preprocessor.get_build_config() for name, spec in self.features.items()}

    def build_from_config(self, config):
        for name, build in config.items():
            layer = self.features[name].preprocessor
            if not layer.built and build:
                layer.build_from_config(build)
        self._is_adapted = True

    def save(self, filepath):
        """Saves the FeatureSpace to a ``.keras`` file (reload it with ``keras.models.load_model``)."""
        from tensorlet._src.keras.saving.saving_api import save_model

        save_model(self, filepath)

    def save_own_variables(self, store):
        return

    def load_own_variables(self, store):
        return
