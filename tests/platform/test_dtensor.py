"""DTensor against real TF (tests/goldens/dtensor.json, cases dtensor_cases.py), plus checkpoints and datasets."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tensorlet as tf  # noqa: E402
import value_cases  # noqa: E402
from dtensor_cases import CASES, _mesh  # noqa: E402

GOLDEN = value_cases.load("dtensor.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tf(name):
    value_cases.compare(value_cases.run(tf, CASES[name]), GOLDEN[name], name)


def test_name_based_save_restore_round_trip(tmp_path):
    d = tf.experimental.dtensor
    m = _mesh(tf)
    lay = d.Layout.batch_sharded(m, "x", rank=2)
    v = d.DVariable(d.pack([tf.constant([[1.0, 2.0]]), tf.constant([[3.0, 4.0]])], lay))
    prefix = str(tmp_path / "ckpt")
    d.name_based_save(m, prefix, {"v": v})
    v.assign(tf.zeros([2, 2]))
    out = d.name_based_restore(m, prefix, {"v": v})
    np.testing.assert_array_equal(v.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert d.fetch_layout(out["v"]) == lay
    assert tf.train.load_checkpoint(prefix).get_tensor("v").tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_dataset_batches_are_laid_out():
    d = tf.experimental.dtensor
    m = _mesh(tf)
    lay = d.Layout.batch_sharded(m, "x", rank=2)
    ds = tf.data.Dataset.from_tensor_slices(np.arange(8.0, dtype=np.float32).reshape(4, 2))
    got = [[c.numpy().tolist() for c in d.unpack(e)] for e in d.DTensorDataset(ds, mesh=m, layouts=lay,
                                                                               global_batch_size=2)]
    assert got == [[[[0.0, 1.0]], [[2.0, 3.0]]], [[[4.0, 5.0]], [[6.0, 7.0]]]]
