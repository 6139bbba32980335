"""Record keras.applications structure and behaviour from Keras 3 on TensorFlow into
tests/goldens/keras_applications.json (per model: parameter counts, layer count, a hash of the ordered
(layer name, class, weight names/shapes) list, first/last rows; predictions under deterministic weights;
preprocess_input and decode_predictions outputs), plus one small ``.weights.h5`` file (MobileNet alpha=0.25,
no top) written by Keras itself, with its predictions.

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_applications.py [MODEL_KEY ...]
"""

import importlib.util
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras.src.applications import imagenet_utils  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_applications.json")
WEIGHTS = os.path.join(ROOT, "tests", "goldens", "keras_applications_mobilenet025.weights.h5")


def load_cases():
    path = os.path.join(ROOT, "tests", "keras", "applications", "app_cases.py")
    spec = importlib.util.spec_from_file_location("app_cases", path)
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    return cases


def save(data):
    """Merge into what is on disk (several recorders may run at once, each over its own models)."""
    if os.path.exists(OUT):
        with open(OUT) as f:
            old = json.load(f)
        for k in ("models", "predict"):
            data[k] = {**old.get(k, {}), **data.get(k, {})}
    tmp = f"{OUT}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, OUT)


def main():
    cases = load_cases()
    only = set(sys.argv[1:])
    skip_done = "--missing" in only
    data = {"models": {}, "predict": {}}
    if os.path.exists(OUT):
        with open(OUT) as f:
            data = json.load(f)
    predict = dict(cases.PREDICT)
    order = [k for k in sys.argv[1:] if not k.startswith("--")]
    models = sorted(cases.MODELS, key=lambda m: order.index(m[0]) if m[0] in order else len(order))
    for key, attr, kwargs in models:
        if (only - {"--missing"}) and key not in only:
            continue
        if skip_done and key in data["models"]:
            continue
        keras.utils.clear_session()
        model = getattr(keras.applications, attr)(weights=None, **kwargs)
        data["models"][key] = cases.summarize(model)
        print(key, data["models"][key]["total_params"], flush=True)
        if key in predict:
            cases.set_deterministic_weights(model)
            x = cases.fixed_input(predict[key])
            y = model.predict(x, verbose=0)
            data["predict"][key] = np.asarray(y, "float64").round(7).tolist()
            if key == "MobileNet_a025_notop":
                keras.utils.set_random_seed(3)
                model2 = getattr(keras.applications, attr)(weights=None, **kwargs)
                model2.save_weights(WEIGHTS)
                data["predict"]["file:" + key] = np.asarray(model2.predict(x, verbose=0), "float64").round(7).tolist()
        save(data)
    pre = {}
    imgs = cases.preprocess_cases()
    for fam in cases.PREPROCESS_FAMILIES:
        mod = getattr(keras.applications, fam)
        for name in ("img4", "img3", "uint8"):
            pre[f"{fam}:{name}:np"] = np.asarray(mod.preprocess_input(np.copy(imgs[name])), "float64").tolist()
        t = keras.ops.convert_to_tensor(imgs["img4"])
        pre[f"{fam}:img4:tensor"] = np.asarray(keras.ops.convert_to_numpy(mod.preprocess_input(t)),
                                               "float64").tolist()
    for mode in ("caffe", "tf", "torch"):
        for name in ("img4_cf", "img3_cf"):
            for kind in ("np", "tensor"):
                x = np.copy(imgs[name]) if kind == "np" else keras.ops.convert_to_tensor(imgs[name])
                y = imagenet_utils.preprocess_input(x, data_format="channels_first", mode=mode)
                pre[f"{mode}:{name}:{kind}"] = np.asarray(keras.ops.convert_to_numpy(y), "float64").tolist()
    data["preprocess"] = pre
    imagenet_utils.CLASS_INDEX = cases.class_index()
    preds = cases.decode_preds()
    data["decode"] = {str(top): [[list(map(str, r[:2])) + [float(r[2])] for r in row]
                                 for row in keras.applications.imagenet_utils.decode_predictions(preds, top=top)]
                      for top in (1, 3, 5)}
    save(data)
    print(f"wrote {OUT}: {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
