"""Record seeded ``keras.random`` draws from Keras 3 on TensorFlow into tests/goldens/keras_random.json
(tests/keras/test_ops_random_config.py checks tensorlet draws the same numbers; the cases are in
tests/keras/keras_random_cases.py).

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_random.py
"""

import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "keras_random.json")



def load_cases():
    import importlib.util

    path = os.path.join(ROOT, "tests", "keras", "keras_random_cases.py")
    spec = importlib.util.spec_from_file_location("keras_random_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CASES


def enc(x):
    a = np.asarray(x)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "values": a.astype(np.float64).tolist()}


def main():
    data = {}
    for name, (fn, kw) in load_cases().items():
        data[name] = enc(getattr(keras.random, fn)(**kw, seed=42))
    g = keras.random.SeedGenerator(7)
    data["seed_generator_normal"] = [enc(keras.random.normal((3,), seed=g)) for _ in range(3)]
    data["seed_generator_state"] = np.asarray(g.state.value).tolist()
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f)
        f.write("\n")
    os.replace(tmp, OUT)
    print(f"wrote {len(data)} entries to {OUT}")


if __name__ == "__main__":
    main()
