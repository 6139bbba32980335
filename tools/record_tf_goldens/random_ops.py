"""Record tf.random outputs from real TensorFlow into tests/goldens/random.json.

tensorlet's Philox streams follow TF's layout (seed scrambling, block order, mantissa bits,
Box-Muller, the truncated-normal groups, Generator state and the stateful ops' seed pairs),
so these values pin that layout: uniform, integer, normal and truncated normal outputs of
the stateless ops, of ``tf.random.Generator`` and of ``tf.random.set_seed`` + seeded ops.
Run with a Python that has TensorFlow:

    /work/tfenv/bin/python tools/record_tf_goldens/random_ops.py
"""

import json
import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "goldens", "random.json")


def _values(t):
    a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
    if a.dtype.kind in "iub":
        return {"dtype": a.dtype.name, "shape": list(a.shape), "values": [int(v) for v in a.reshape(-1)]}
    digits = 17 if a.dtype == np.float64 else 9
    return {"dtype": t.dtype.name if hasattr(t, "dtype") else a.dtype.name, "shape": list(a.shape),
            "values": [float(f"{v:.{digits}g}") for v in a.astype(np.float64).reshape(-1)]}


def main():
    out = {}
    r = tf.random
    for seed_name, seed in (("s12", [1, 2]), ("sbig", tf.constant([2 ** 40 + 7, -3], tf.int64)),
                            ("s79_i32", tf.constant([7, 9], tf.int32))):
        out[f"uniform_f32_{seed_name}"] = _values(r.stateless_uniform([7], seed))
        out[f"normal_f32_{seed_name}"] = _values(r.stateless_normal([7], seed))
    s = [1, 2]
    key, counter = tf.raw_ops.StatelessRandomGetKeyCounter(seed=s)
    out["key_s12"], out["counter_s12"] = _values(key), _values(counter)
    out["uniform_f64"] = _values(r.stateless_uniform([5], s, dtype=tf.float64))
    out["uniform_f16"] = _values(r.stateless_uniform([6], s, dtype=tf.float16))
    out["uniform_bf16"] = _values(r.stateless_uniform([6], s, dtype=tf.bfloat16))
    out["normal_bf16"] = _values(r.stateless_normal([6], s, dtype=tf.bfloat16))
    out["uniform_range_f32"] = _values(r.stateless_uniform([2, 3], s, minval=-2.0, maxval=5.0))
    out["uniform_i32"] = _values(r.stateless_uniform([7], s, minval=-3, maxval=10, dtype=tf.int32))
    out["uniform_i64"] = _values(r.stateless_uniform([5], s, minval=-5, maxval=2 ** 40, dtype=tf.int64))
    out["full_i32"] = _values(r.stateless_uniform([5], s, minval=None, maxval=None, dtype=tf.int32))
    out["full_i64"] = _values(r.stateless_uniform([3], s, minval=None, maxval=None, dtype=tf.int64))
    out["full_u32"] = _values(r.stateless_uniform([3], s, minval=None, maxval=None, dtype=tf.uint32))
    out["full_u64"] = _values(r.stateless_uniform([3], s, minval=None, maxval=None, dtype=tf.uint64))
    out["normal_f64"] = _values(r.stateless_normal([5], s, dtype=tf.float64))
    out["normal_f16"] = _values(r.stateless_normal([6], s, dtype=tf.float16))
    out["normal_scaled"] = _values(r.stateless_normal([2, 2], s, mean=3.0, stddev=0.5))
    out["truncated_f32"] = _values(r.stateless_truncated_normal([2, 5], s))
    out["truncated_f64"] = _values(r.stateless_truncated_normal([6], s, dtype=tf.float64))
    out["split3"] = _values(r.split(s, 3))
    out["split_i64"] = _values(r.split(tf.constant(s, tf.int64)))
    out["fold_in7"] = _values(r.fold_in(s, 7))

    g = r.Generator.from_seed(1)
    out["gen_uniform4"] = _values(g.uniform([4]))
    out["gen_normal3"] = _values(g.normal([3]))
    out["gen_state_after"] = _values(g.state)
    g = r.Generator.from_seed(1)
    out["gen_int32"] = _values(g.uniform([4], maxval=10, dtype=tf.int32))
    out["gen_int64"] = _values(g.uniform([2], minval=-5, maxval=2 ** 40, dtype=tf.int64))
    out["gen_f64"] = _values(r.Generator.from_seed(1).uniform([3], dtype=tf.float64))
    out["gen_truncated8"] = _values(r.Generator.from_seed(1).truncated_normal([8]))
    out["gen_full_int64"] = _values(r.Generator.from_seed(12345).uniform_full_int([2], dtype=tf.int64))
    g = r.Generator.from_seed(1)
    out["gen_make_seeds2"] = _values(g.make_seeds(2))
    g = r.Generator.from_seed(1)
    out["gen_split_keys"] = [int(x.state.numpy()[2]) for x in g.split(2)]
    out["gen_split_parent_state"] = _values(g.state)
    out["gen_after_split_normal"] = _values(r.Generator.from_key_counter(out["gen_split_keys"][0], [0, 0],
                                                                          "philox").normal([3]))

    r.set_seed(5)
    out["setseed5_opseed1_a"] = _values(r.uniform([4], seed=1))
    out["setseed5_opseed1_b"] = _values(r.uniform([4], seed=1))
    out["setseed5_normal_opseed1"] = _values(r.normal([3], seed=1))
    r.set_seed(5)
    out["setseed5_noop_a"] = _values(r.uniform([4]))
    out["setseed5_noop_b"] = _values(r.normal([3]))
    out["setseed5_noop_c"] = _values(r.uniform([3], maxval=100, dtype=tf.int32))
    r.set_seed(None)
    out["opseed_only_7"] = _values(r.uniform([3], seed=7))
    r.set_seed(0)
    out["setseed0_opseed0"] = _values(r.uniform([2], seed=0))
    with open(OUT, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
