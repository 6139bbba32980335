"""Record Keras 3 (TF backend) results of tests/keras/user_program_cases.py into
tests/goldens/keras_user_programs.json.

    /work/tfvenv/bin/python tools/record_tf_goldens/keras_user_programs.py
"""

import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras

    assert keras.backend.backend() == "tensorflow", keras.backend.backend()
    spec = importlib.util.spec_from_file_location(
        "user_program_cases", os.path.join(ROOT, "tests", "keras", "user_program_cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path = os.path.join(ROOT, "tests", "goldens", "keras_user_programs.json")
    with open(path + ".tmp", "w") as f:
        json.dump(mod.run(keras), f, indent=0, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
