"""keras.applications against Keras 3 (tools/record_tf_goldens/keras_applications.py): structure (layer names,
classes, weight names and shapes, parameter counts), predictions under the same weights, a weights file written
by Keras itself, preprocess_input and decode_predictions."""

import importlib.util
import json
import os

import numpy as np
import pytest

import tensorlet as tf

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDENS = os.path.join(HERE, "..", "..", "goldens")
_spec = importlib.util.spec_from_file_location("app_cases", os.path.join(HERE, "app_cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
GOLDEN = json.load(open(os.path.join(GOLDENS, "keras_applications.json")))
WEIGHTS = os.path.join(GOLDENS, "keras_applications_mobilenet025.weights.h5")
apps = tf.keras.applications

FAST = {"MobileNet_a025_notop", "MobileNetV2_a035_avg", "VGG16_notop_max"}
# One or two per family by default; every recorded model with TENSORLET_APPS_ALL=1 (the deep variants take minutes).
DEFAULT = FAST | {"ResNet50", "ResNet50V2", "MobileNetV2", "MobileNetV3Small", "MobileNetV3Small_min", "DenseNet121",
                  "EfficientNetB0", "EfficientNetV2B0", "InceptionV3", "Xception", "ConvNeXtTiny",
                  "NASNetMobile"}
ALL = os.environ.get("TENSORLET_APPS_ALL") == "1"
SPECS = {key: (attr, kwargs) for key, attr, kwargs in cases.MODELS}


def _available(key):
    return key in GOLDEN["models"] and hasattr(apps, SPECS[key][0])


def _build(key):
    tf.keras.backend.clear_session()
    attr, kwargs = SPECS[key]
    return getattr(apps, attr)(weights=None, **kwargs)


def _params(keys):
    return [pytest.param(k, marks=() if k in FAST else pytest.mark.slow) for k in keys]


STRUCT_KEYS = [k for k, _, _ in cases.MODELS if _available(k) and (ALL or k in DEFAULT)]
PRED_KEYS = [k for k, _ in cases.PREDICT if _available(k) and k in GOLDEN["predict"]]


@pytest.mark.parametrize("key", _params(STRUCT_KEYS))
def test_structure_matches_keras(key):
    got = json.loads(json.dumps(cases.summarize(_build(key))))
    exp = GOLDEN["models"][key]
    assert got["first"] == exp["first"], key
    assert got["last"] == exp["last"], key
    for field in ("total_params", "trainable_params", "layers", "output_shape", "hash"):
        assert got[field] == exp[field], (key, field, got[field], exp[field])


@pytest.mark.parametrize("key", _params(PRED_KEYS))
def test_predictions_match_keras(key):
    model = _build(key)
    cases.set_deterministic_weights(model)
    shape = dict(cases.PREDICT)[key]
    y = model.predict(cases.fixed_input(shape), verbose=0)
    np.testing.assert_allclose(np.asarray(y), np.array(GOLDEN["predict"][key]), atol=1e-4, rtol=1e-4)


@pytest.mark.skipif(not os.path.exists(WEIGHTS) or "file:MobileNet_a025_notop" not in GOLDEN["predict"],
                    reason="no Keras-written weights file recorded")
def test_loads_weights_file_written_by_keras():
    tf.keras.backend.clear_session()
    model = apps.MobileNet(weights=WEIGHTS, **SPECS["MobileNet_a025_notop"][1])
    y = model.predict(cases.fixed_input(dict(cases.PREDICT)["MobileNet_a025_notop"]), verbose=0)
    np.testing.assert_allclose(np.asarray(y), np.array(GOLDEN["predict"]["file:MobileNet_a025_notop"]),
                               atol=1e-4, rtol=1e-4)


def test_argument_validation():
    with pytest.raises(ValueError, match="`weights` argument should be either"):
        apps.ResNet50(weights="/no/such/file.h5")
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        apps.ResNet50(weights="imagenet", classes=10)
    with pytest.raises(ValueError, match="no network"):
        apps.ResNet50(weights="imagenet")
    with pytest.raises(ValueError, match="at least 32x32"):
        apps.ResNet50(weights=None, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="three integers"):
        apps.VGG16(weights=None, include_top=False, input_shape=(64, 64))
    with pytest.raises(ValueError, match="static `input_shape`"):
        apps.MobileNet(weights=None, input_shape=(None, None, 3))


def test_input_tensor_and_include_top_false():
    tf.keras.backend.clear_session()
    inp = tf.keras.Input((32, 32, 3))
    x = tf.keras.layers.Rescaling(1 / 255.0)(inp)
    model = apps.MobileNet(weights=None, alpha=0.25, include_top=False, pooling="max", input_tensor=x)
    assert model.inputs[0] is inp
    assert tuple(model.output.shape) == (None, 256)
    assert type(model.layers[1]).__name__ == "Rescaling"
    out = model.predict(np.zeros((1, 32, 32, 3), "float32"), verbose=0)
    assert out.shape == (1, 256)


def _pre_modules():
    return [f for f in cases.PREPROCESS_FAMILIES if hasattr(apps, f)]


@pytest.mark.parametrize("family", _pre_modules())
def test_family_preprocess_input(family):
    imgs = cases.preprocess_cases()
    mod = getattr(apps, family)
    for name in ("img4", "img3", "uint8"):
        got = mod.preprocess_input(np.copy(imgs[name]))
        np.testing.assert_allclose(got, GOLDEN["preprocess"][f"{family}:{name}:np"], rtol=1e-6, atol=1e-5)
    got = mod.preprocess_input(tf.constant(imgs["img4"]))
    np.testing.assert_allclose(np.asarray(got), GOLDEN["preprocess"][f"{family}:img4:tensor"], rtol=1e-6,
                               atol=1e-5)


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
def test_imagenet_utils_channels_first(mode):
    imgs = cases.preprocess_cases()
    for name in ("img4_cf", "img3_cf"):
        for kind in ("np", "tensor"):
            x = np.copy(imgs[name]) if kind == "np" else tf.constant(imgs[name])
            got = apps.imagenet_utils.preprocess_input(x, data_format="channels_first", mode=mode)
            np.testing.assert_allclose(np.asarray(got), GOLDEN["preprocess"][f"{mode}:{name}:{kind}"], rtol=1e-6,
                                       atol=1e-5)
    with pytest.raises(ValueError, match="Expected mode"):
        apps.imagenet_utils.preprocess_input(np.zeros((1, 2, 2, 3)), mode="bgr")
    with pytest.raises(ValueError, match="data_format"):
        apps.imagenet_utils.preprocess_input(np.zeros((1, 2, 2, 3)), data_format="nhwc")


def test_preprocess_input_numpy_in_place_like_keras():
    x = np.full((1, 2, 2, 3), 255.0, "float32")
    y = apps.mobilenet_v2.preprocess_input(x)
    assert y is x and np.allclose(x, 1.0)


def test_decode_predictions_local_class_index(tmp_path, monkeypatch):
    path = tmp_path / "imagenet_class_index.json"
    path.write_text(json.dumps(cases.class_index()))
    preds = cases.decode_preds()
    for top in (1, 3, 5):
        got = apps.imagenet_utils.decode_predictions(preds, top=top, class_index=str(path))
        got = [[[r[0], r[1], float(r[2])] for r in row] for row in got]
        assert [[r[:2] for r in row] for row in got] == [[r[:2] for r in row] for row in GOLDEN["decode"][str(top)]]
        np.testing.assert_allclose([[r[2] for r in row] for row in got],
                                   [[r[2] for r in row] for row in GOLDEN["decode"][str(top)]], rtol=1e-6)
    # Default location: Keras's cache ($KERAS_HOME/models/imagenet_class_index.json), nothing downloaded.
    monkeypatch.setattr(apps.imagenet_utils, "CLASS_INDEX", None, raising=False)
    from tensorlet._src.keras.applications import imagenet_utils as iu

    monkeypatch.setattr(iu, "CLASS_INDEX", None)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "empty"))
    with pytest.raises(ValueError, match="no network"):
        apps.resnet50.decode_predictions(preds)
    (tmp_path / "empty" / "models").mkdir(parents=True)
    (tmp_path / "empty" / "models" / "imagenet_class_index.json").write_text(path.read_text())
    assert apps.resnet50.decode_predictions(preds, top=1)[0][0][:2] == tuple(GOLDEN["decode"]["1"][0][0][:2])
    with pytest.raises(ValueError, match=r"shape \(samples, 1000\)"):
        apps.resnet50.decode_predictions(np.zeros((2, 10)))
