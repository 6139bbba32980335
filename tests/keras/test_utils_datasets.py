"""keras.utils dataset builders and image helpers against Keras 3 on TF (tests/goldens/keras_utils.json, recorded
over the same tiny tree by tools/record_tf_goldens/keras_utils.py)."""

import json
import os
import sys

import numpy as np
import pytest

import tensorlet as tf
from tensorlet import keras

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_utils_cases as U  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "..", "goldens", "keras_utils.json")) as f:
    GOLD = json.load(f)


@pytest.fixture(scope="module")
def got(tmp_path_factory):
    return U.run(keras, str(tmp_path_factory.mktemp("tree")))


def _close(a, b, key, atol=1e-3):
    if isinstance(b, list) and b and isinstance(b[0], str):
        assert a == b, key
    else:
        np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), atol=atol,
                                   err_msg=key)


@pytest.mark.parametrize("key", sorted(GOLD))
def test_matches_keras(got, key):
    want, mine = GOLD[key], got[key]
    assert sorted(mine) == sorted(want), key
    for field in want:
        if field in ("class_names",) or field.endswith("files"):
            assert mine[field] == want[field], (key, field)
            continue
        assert len(mine[field]) == len(want[field]), (key, field, "number of batches")
        for i, (bm, bw) in enumerate(zip(mine[field], want[field])):
            assert len(bm) == len(bw), (key, field, i)
            for j, (vm, vw) in enumerate(zip(bm, bw)):
                # JPEG decoders (libjpeg-turbo in TF, Pillow here) differ by a few grey levels; PNG/BMP/text/labels
                # and the file order are exact
                _close(vm, vw, f"{key}.{field}[{i}][{j}]", atol=4.01 if key.startswith("img") else 1e-3)


@pytest.mark.slow
def test_dataset_feeds_fit(tmp_path):
    img, _, _ = U.make_tree(str(tmp_path))
    ds = keras.utils.image_dataset_from_directory(img, image_size=(8, 8), batch_size=4, seed=1, verbose=False)
    model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Rescaling(1 / 255.0), keras.layers.Flatten(),
                              keras.layers.Dense(3)])
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    hist = model.fit(ds, epochs=1, verbose=0)
    assert np.isfinite(hist.history["loss"][0])


def test_errors(tmp_path):
    img, _, _ = U.make_tree(str(tmp_path))
    with pytest.raises(ValueError, match="must provide a `seed`"):
        keras.utils.image_dataset_from_directory(img, validation_split=0.2, subset="training", verbose=False)
    with pytest.raises(ValueError, match="existing directory"):
        keras.utils.image_dataset_from_directory(str(tmp_path / "nope"), verbose=False)
    with pytest.raises(ValueError, match="exactly 2 class_names"):
        keras.utils.image_dataset_from_directory(img, label_mode="binary", verbose=False)
    with pytest.raises(ValueError, match="color_mode"):
        keras.utils.image_dataset_from_directory(img, color_mode="cmyk", verbose=False)


def test_image_helpers_round_trip(tmp_path):
    a = (np.arange(4 * 6 * 3).reshape(4, 6, 3) * 5 % 256).astype("float32")
    path = str(tmp_path / "x.png")
    keras.utils.save_img(path, a, scale=False)
    img = keras.utils.load_img(path)
    assert img.size == (6, 4)
    np.testing.assert_array_equal(keras.utils.img_to_array(img), a)
    small = keras.utils.load_img(path, target_size=(2, 3), color_mode="grayscale")
    assert keras.utils.img_to_array(small).shape == (2, 3, 1)
    cf = keras.utils.img_to_array(img, data_format="channels_first")
    assert cf.shape == (3, 4, 6)
    assert keras.utils.array_to_img(a).mode == "RGB"


def test_split_dataset_and_plot_model_errors():
    left, right = keras.utils.split_dataset((np.arange(10), np.arange(10) * 2), left_size=0.8)
    assert len(list(left)) == 8 and len(list(right)) == 2
    x, y = next(iter(right))
    assert int(y) == 2 * int(x)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    try:
        import pydot  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pydot"):
            keras.utils.plot_model(model)


@pytest.mark.parametrize("interpolation", ["bilinear", "nearest", "bicubic", "area"])
def test_image_dataset_same_size_equals_decode_and_resize(tmp_path, interpolation):
    # the loader skips resizing images already at image_size for these interpolations: the result must equal
    # decode_image + keras.ops.image.resize (which TF also makes exact at the same size)
    from PIL import Image

    rng = np.random.RandomState(0)
    for i, shape in enumerate([(4, 6, 3), (4, 6, 3), (5, 7, 3), (4, 6, 3), (6, 4, 3), (4, 6, 3)]):
        os.makedirs(tmp_path / f"c{i % 2}", exist_ok=True)
        Image.fromarray(rng.randint(0, 256, shape).astype(np.uint8)).save(str(tmp_path / f"c{i % 2}" / f"{i}.png"))
    ds = keras.utils.image_dataset_from_directory(str(tmp_path), image_size=(4, 6), batch_size=5, seed=3,
                                                  interpolation=interpolation, crop_to_aspect_ratio=True,
                                                  verbose=False)
    got = np.concatenate([x.numpy() for x, _ in ds])
    want = []
    for p in ds.file_paths:
        with open(p, "rb") as f:
            img = tf.io.decode_image(f.read(), channels=3, expand_animations=False)
        y = keras.ops.image.resize(img, (4, 6), interpolation=interpolation, crop_to_aspect_ratio=True)
        want.append(np.asarray(y, np.float32))
    np.testing.assert_array_equal(got, np.stack(want))
