"""keras.utils.FeatureSpace (and keras.utils.Config) programs, run on Keras 3 by
tools/record_tf_goldens/keras_feature_space.py (into tests/goldens/keras_feature_space.json) and on tensorlet by
tests/keras/test_feature_space.py.

``run(keras, tf, tmpdir)`` takes the Keras module and the TensorFlow-like module (for ``tf.data``)."""

import json
import os

import numpy as np

RAW = {"f": np.array([0.0, 0.1, 0.2, 0.3, 1.5], "float32"),
       "s": np.array(["zero", "one", "two", "one", "x"]),
       "i": np.array([0, 1, 2, 3, 3], "int64")}
MIXED = {"fl": np.array([1.0, -2.0, 3.5, 0.25], "float32"), "fr": np.array([1.0, 2.0, 3.0, 4.0], "float32"),
         "fd": np.array([0.0, 0.4, 0.6, 1.0], "float32"), "ih": np.array([3, 7, 3, 11], "int64"),
         "sh": np.array(["a", "b", "c", "a"]), "sc": np.array(["u", "v", "u", "w"]),
         "ic": np.array([5, 5, 6, 7], "int64")}


def _np(x):
    a = np.asarray(x)
    if a.dtype.kind in "SUO":
        return [v.decode() if isinstance(v, bytes) else str(v) for v in a.reshape(-1).tolist()]
    if a.dtype.kind == "f":
        return np.round(a.astype("float64"), 5).tolist()
    return a.tolist()


def _out(x):
    if isinstance(x, dict):
        return {k: {"shape": list(np.asarray(v).shape), "value": _np(v)} for k, v in sorted(x.items())}
    return {"shape": list(np.asarray(x).shape), "value": _np(x)}


def _error(fn):
    try:
        fn()
    except Exception as e:  # the error class and the start of its message are the recorded outcome
        return [type(e).__name__, str(e)[:60]]
    return "no error"


def run(keras, tf, tmpdir):
    FS = keras.utils.FeatureSpace
    data = {}
    keras.utils.clear_session()
    ds = tf.data.Dataset.from_tensor_slices(RAW)
    fs = FS(features={"f": "float_normalized", "s": "string_categorical", "i": "integer_categorical"},
            crosses=[("s", "i")], crossing_dim=8, output_mode="concat")
    data["unadapted"] = _error(lambda: fs(RAW))
    fs.adapt(ds)
    data["concat"] = _out(fs(RAW))
    data["concat_vocab"] = {"s": _np(fs.preprocessors["s"].get_vocabulary()),
                            "i": _np(fs.preprocessors["i"].get_vocabulary())}
    data["concat_single"] = _out(fs({"f": 0.2, "s": "two", "i": 2}))
    data["concat_map"] = [_out(b) for b in ds.batch(2).map(fs)]
    data["concat_map_labeled"] = [_out(x) for x, _ in
                                  tf.data.Dataset.from_tensor_slices((RAW, RAW["i"])).batch(3)
                                  .map(lambda x, y: (fs(x), y))]
    enc = fs.get_encoded_features()
    data["encoded"] = {"shape": [None if d is None else int(d) for d in enc.shape], "dtype": str(enc.dtype)}
    inputs = fs.get_inputs()
    data["inputs"] = {k: [str(v.dtype), [None if d is None else int(d) for d in v.shape]]
                      for k, v in sorted(inputs.items())}
    head = keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros", name="head")
    out = head(enc)
    training_model = keras.Model(enc, out)  # trained on ds.map(feature_space)
    inference_model = keras.Model(inputs, out)  # raw features in
    data["model_params"] = [int(training_model.count_params()), int(inference_model.count_params())]
    data["model_predict"] = _np(training_model.predict(ds.batch(5).map(fs), verbose=0))
    columns = {k: tf.constant(v[:, None]) for k, v in RAW.items()}
    data["inference_predict"] = _np(inference_model.predict(columns, verbose=0))
    data["crossers"] = sorted(fs.crossers)
    # Save / reload (each library reads its own file).
    path = os.path.join(tmpdir, "fs.keras")
    fs.save(path)
    again = keras.models.load_model(path)
    data["reloaded_type"] = type(again).__name__
    data["reloaded"] = _out(again(RAW))
    data["reloaded_single"] = _out(again({"f": 1.5, "s": "x", "i": 3}))
    # Every feature type, dict output, int crosses; adapt on a dict of arrays.
    keras.utils.clear_session()
    fs2 = FS(features={"fl": "float", "fr": FS.float_rescaled(scale=2.0, offset=1.0),
                       "fd": FS.float_discretized(num_bins=4), "ih": FS.integer_hashed(8),
                       "sh": FS.string_hashed(8, output_mode="int"),
                       "sc": FS.string_categorical(max_tokens=3, output_mode="int"),
                       "ic": FS.integer_categorical(num_oov_indices=2)},
             crosses=[FS.cross(("sc", "ic"), crossing_dim=16, output_mode="int"), ("sh", "ih")],
             output_mode="dict", hashing_dim=8)
    fs2.adapt(MIXED)
    data["dict"] = _out(fs2(MIXED))
    data["dict_single"] = _out(fs2({k: v[1] for k, v in MIXED.items()}))
    data["dict_bins"] = _np(fs2.preprocessors["fd"].bin_boundaries)
    data["dict_names"] = sorted(fs2.preprocessors)
    data["dict_preprocessor_names"] = sorted(p.name for p in fs2.preprocessors.values())
    enc2 = fs2.get_encoded_features()
    data["dict_encoded"] = {k: [str(v.dtype), [None if d is None else int(d) for d in v.shape]]
                            for k, v in sorted(enc2.items())}
    path2 = os.path.join(tmpdir, "fs2.keras")
    fs2.save(path2)
    data["dict_reloaded"] = _out(keras.models.load_model(path2)(MIXED))
    # Discretization can adapt, so preset boundaries still need adapt(); float/rescaled features do not.
    fs3 = FS(features={"a": FS.float_discretized(num_bins=None, bin_boundaries=[0.0, 1.0]), "b": "float"},
             output_mode="concat")
    data["preset_bins_unadapted"] = _error(lambda: fs3({"a": [1.0], "b": [2.0]}))
    fs3 = FS(features={"a": FS.float_rescaled(scale=0.5), "b": "float"}, output_mode="concat")
    data["no_adapt"] = _out(fs3({"a": np.array([-1.0, 0.5, 2.0], "float32"),
                                 "b": np.array([1.0, 2.0, 3.0], "float32")}))
    # Errors.
    data["err_mode"] = _error(lambda: FS(features={"a": "float"}, output_mode="list"))
    data["err_empty"] = _error(lambda: FS(features={}))
    data["err_cross"] = _error(lambda: FS(features={"a": "float"}, crosses=[("a", "b")]))
    data["err_type"] = _error(lambda: FS(features={"a": "floaty"}))
    data["err_feature_mode"] = _error(lambda: FS.integer_categorical(output_mode="multi"))
    data["err_cross_mode"] = _error(lambda: FS.cross(("a", "b"), 4, output_mode="float"))
    data["err_call"] = _error(lambda: fs3([1.0]))
    data["err_adapt"] = _error(lambda: fs.adapt([1.0, 2.0]))
    fs4 = FS(features={"s": FS.string_categorical(output_mode="int")}, output_mode="concat")
    data["err_concat_int"] = _error(lambda: fs4.adapt(tf.data.Dataset.from_tensor_slices({"s": RAW["s"]})))
    fs5 = FS(features={"x": FS.float(), "y": "float"}, crosses=[("x", "y")], output_mode="dict")
    data["err_one_hot_float"] = _error(lambda: fs5({"x": [1.0], "y": [2.0]}))
    cfg = fs2.get_config()
    data["config_keys"] = sorted(cfg)
    data["config_scalars"] = [cfg["output_mode"], cfg["crossing_dim"], cfg["hashing_dim"],
                              cfg["num_discretization_bins"]]
    data["config_feature"] = {k: v for k, v in cfg["features"]["sc"].items() if k != "config"}
    data["config_feature_inner"] = {k: v for k, v in cfg["features"]["sc"]["config"].items() if k != "preprocessor"}
    data["config_cross"] = json.loads(json.dumps(cfg["crosses"]))
    data["utils_config"] = run_config(keras)
    return data


def run_config(keras):
    """keras.utils.Config: attribute/item access, sorted iteration, typo hints, freezing."""
    C = keras.utils.Config
    out = {}
    c = C(learning_rate=0.1, momentum=0.9)
    c.use_ema = True
    c["seed"] = 123
    out["basic"] = [c.seed, c["learning_rate"], c.use_ema, len(c), list(c), sorted(c.keys()), "seed" in c, "x" in c]
    out["repr"] = repr(c)
    out["json"] = c.to_json()
    out["get"] = [c.get("seed"), c.get("nope"), c.get("nope", 5)]
    d = c.as_dict()
    d["z"] = 1
    out["as_dict_copy"] = "z" in c
    out["typo"] = _error(lambda: c.learning_rat)
    out["unknown"] = _error(lambda: c.zzz)
    out["pop"] = c.pop("use_ema")
    c.update(a=1)
    out["after"] = list(c)
    c.freeze()
    out["frozen"] = c.frozen
    errs = []
    for fn in (lambda: setattr(c, "foo", 1), lambda: c.__setitem__("b", 2), lambda: c.pop("a"),
               lambda: c.update(b=1), lambda: c.__delitem__("a")):
        errs.append(_error(fn))
    out["frozen_errors"] = errs
    c.unfreeze()
    c.foo = 2
    del c["a"]
    out["unfrozen"] = [c.frozen, c.foo, list(c)]
    out["items"] = [list(kv) for kv in C(b=1, a=2).items()]
    out["hasattr"] = [hasattr(c, "foo"), hasattr(c, "bar")]
    return out
