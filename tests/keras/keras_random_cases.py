"""Seeded keras.random calls shared by tools/record_tf_goldens/keras_random.py and test_ops_random_config.py."""

import numpy as np

# name -> (function, kwargs); every call gets seed=... added
CASES = {
    "normal": ("normal", {"shape": (2, 3), "mean": 1.0, "stddev": 2.0}),
    "uniform": ("uniform", {"shape": (5,), "minval": -1.0, "maxval": 3.0}),
    "uniform_f64": ("uniform", {"shape": (3,), "dtype": "float64"}),
    "truncated_normal": ("truncated_normal", {"shape": (4,)}),
    "randint": ("randint", {"shape": (6,), "minval": 0, "maxval": 10}),
    "randint_i8": ("randint", {"shape": (4,), "minval": -5, "maxval": 5, "dtype": "int8"}),
    "dropout": ("dropout", {"inputs": np.ones((2, 4), "float32"), "rate": 0.5}),
    "shuffle": ("shuffle", {"x": np.arange(8, dtype="int32")}),
    "categorical": ("categorical", {"logits": np.log(np.array([[0.1, 0.6, 0.3]], "float32")), "num_samples": 6}),
    "gamma": ("gamma", {"shape": (3,), "alpha": 2.0}),
    "binomial": ("binomial", {"shape": (4,), "counts": 10.0, "probabilities": 0.3}),
    "beta": ("beta", {"shape": (3,), "alpha": 2.0, "beta": 3.0}),
}
