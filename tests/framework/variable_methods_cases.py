"""Variable slicing/scatter programs run by real TF (tools/record_tf_goldens/variable_methods.py ->
tests/goldens/variable_methods.json) and by tensorlet (tests/framework/test_variable_methods.py)."""

import numpy as np
def _run(tf):
    out = {}
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    v[1].assign(10.0)
    out["slice1"] = v.numpy().tolist()
    v[1:3].assign([7.0, 8.0])
    out["slice2"] = v.numpy().tolist()
    v[::2].assign([2.0, 9.0])
    out["slice3"] = v.numpy().tolist()
    v[2:].assign(v[2:] - 1.0)
    out["slice4"] = v.numpy().tolist()
    m = tf.Variable(np.arange(6.0).reshape(2, 3))
    m[0, 1].assign(-1.0)
    m[:, 2].assign([9.0, 9.0])
    out["m"] = m.numpy().tolist()
    v.scatter_nd_update([[0], [3]], [5.0, 6.0])
    out["snu"] = v.numpy().tolist()
    v.scatter_nd_add([[0]], [1.0])
    v.scatter_nd_sub([[3]], [2.0])
    out["sna"] = v.numpy().tolist()
    v.scatter_update(tf.IndexedSlices(tf.constant([0.5, 0.25]), tf.constant([1, 2])))
    out["su"] = v.numpy().tolist()
    v.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([1])))
    out["sa"] = v.numpy().tolist()
    v.scatter_mul(tf.IndexedSlices(tf.constant([3.0]), tf.constant([0])))
    out["smul"] = v.numpy().tolist()
    v.scatter_max(tf.IndexedSlices(tf.constant([100.0]), tf.constant([2])))
    out["smax"] = v.numpy().tolist()
    out["sr"] = v.sparse_read([3, 0]).numpy().tolist()
    out["gnd"] = m.gather_nd([[1, 2], [0, 0]]).numpy().tolist()
    w = tf.Variable(tf.zeros([2]), shape=tf.TensorShape(None))
    out["unk_shape"] = str(w.shape)
    w.assign(tf.ones([3, 2]))
    out["reshaped"] = (w.numpy().tolist(), str(w.shape))
    return out


def _module_order(tf):
    class Inner(tf.Module):
        def __init__(self):
            super().__init__(name="inner")
            self.w = tf.Variable(1.0, name="w")
            self.b = tf.Variable(2.0, name="b", trainable=False)

    class Outer(tf.Module):
        def __init__(self):
            super().__init__(name="outer")
            self.z = tf.Variable(3.0, name="z")
            self.inner = Inner()
            self.layers = [Inner(), tf.Variable(4.0, name="listed")]
            self.a = tf.Variable(5.0, name="a")

    m = Outer()
    return {"variables": [v.name for v in m.variables],
            "trainable": [v.name for v in m.trainable_variables],
            "submodules": [s.name for s in m.submodules]}


def _tracing_counts(tf):
    @tf.function
    def f(x):
        return x

    f(1)
    f(1.0)
    f(2)
    f(2.0)
    f(True)  # equal to 1: TF reuses that trace
    f(tf.constant(1.0))
    f(tf.constant(2.0))
    return f.experimental_get_tracing_count()


CASES = {"variable_methods": _run, "module_order": _module_order, "tracing_counts": _tracing_counts}
