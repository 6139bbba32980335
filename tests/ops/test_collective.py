"""Collectives with one replica (eager, NumPy executor, XLA) are the identity; with several they run inside a
MirroredStrategy's SPMD program (tests/distribute/test_mirrored.py checks their values across replicas)."""

import numpy as np
import pytest
from opcheck import Case, Err, compiled_tests, op_tests

import tensorlet as tf
from tensorlet._src.ops import collective_ops as C

CASES = [
    Case(lambda x: C.all_reduce(x, "sum", 1, "replica"), lambda x: x, [((2, 3),), ((),)], ("float32", "int32"),
         ops=("CollectiveReduceV2",), id="all_reduce_sum"),
    Case(lambda x: C.all_reduce(x, "mean", 1, "replica"), lambda x: x, [((4,),)], ("float64",),
         ops=("CollectiveReduceV2",), id="all_reduce_mean"),
    Case(lambda x: C.all_gather(x, 1, "replica"), lambda x: x, [((3, 2),)], ("float32", "float64"),
         ops=("CollectiveGatherV2",), id="all_gather"),
    Case(lambda x: x + tf.cast(C.replica_id(1, "replica"), x.dtype), lambda x: x, [((2,),)], ("float32",),
         ops=("ReplicaId",), id="replica_id"),
]

ERRORS = [
    Err(lambda: C.all_reduce(tf.constant(1.0), "sum", 2, "replica"), tf.errors.InternalError,
        "CollectiveReduceV2 over 2 replicas"),
    Err(lambda: C.all_reduce(tf.constant(1.0), "prod", 1, "replica"), ValueError, "reduction must be one of"),
]

test_values, test_lowering, test_errors = op_tests(CASES, ERRORS)
test_compiled = compiled_tests(CASES)


def test_gradient_of_all_reduce_is_all_reduce():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(C.all_reduce(x, "sum", 1, "replica") * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])


@pytest.mark.parametrize("n", [1])
def test_gather_shape_rule_multiplies_rows(n):
    @tf.function
    def f(x):
        g = C.all_gather(x, 3, "replica")
        assert g.shape.as_list() == [6, 2]
        return x

    f.get_concrete_function(tf.TensorSpec([2, 2], tf.float32))
