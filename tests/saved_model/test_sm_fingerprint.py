"""``fingerprint.pb`` with TF's hashes: FarmHash Fingerprint64 (pure Python, checked against pyfarmhash) and the five
FingerprintDef fields, checked against the fingerprint.pb files real TF 2.21 wrote for the TF SavedModels in
tests/goldens/tf_saved_model (recorded by tools/record_tf_goldens/tf_saved_models.py)."""

import os
import random

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.saved_model import fingerprint as F
from tensorlet._src.saved_model import protos as P

GOLD = os.path.join(os.path.dirname(__file__), "..", "goldens", "tf_saved_model")
FIELDS = ("saved_model_checksum", "graph_def_program_hash", "signature_def_hash", "saved_object_graph_hash",
          "checkpoint_hash")


def test_fingerprint64_known_values():
    # FarmHash Fingerprint64 (farmhashna::Hash64): the empty string hashes to the constant k2; the others were
    # computed by pyfarmhash (the C implementation) and cover each length branch (0-16, 17-32, 33-64, > 64)
    assert F._fingerprint64_py(b"") == 0x9AE16A3B2F90404F
    assert F._fingerprint64_py(b"a") == 12917804110809363939
    assert F._fingerprint64_py(b"hello world") == 6381520714923946011
    assert F._fingerprint64_py(bytes(range(100))) == 4395248839964844437
    assert F._fingerprint64_py(bytes(range(256)) * 5) == 15978535254624089305


def test_fingerprint64_matches_pyfarmhash_at_every_length():
    farmhash = pytest.importorskip("farmhash")
    rng = random.Random(0)
    for n in [*range(0, 200), 511, 512, 513, 4099]:
        data = bytes(rng.getrandbits(8) for _ in range(n))
        assert F._fingerprint64_py(data) == farmhash.fingerprint64(data), n


@pytest.mark.parametrize("name", sorted(d for d in os.listdir(GOLD) if os.path.isfile(os.path.join(GOLD, d,
                                                                                                   "fingerprint.pb"))))
def test_hashes_equal_those_tensorflow_wrote(name):
    d = os.path.join(GOLD, name)
    with open(os.path.join(d, "fingerprint.pb"), "rb") as f:
        want = P.FingerprintDef.FromString(f.read())
    with open(os.path.join(d, "saved_model.pb"), "rb") as f:
        sm = P.SavedModel.FromString(f.read())
    with open(os.path.join(d, "variables", "variables.index"), "rb") as f:
        index = f.read()
    got = F.fingerprint_def(sm, index, want.uuid)
    assert [getattr(got, k) for k in FIELDS] == [getattr(want, k) for k in FIELDS]
    assert got.version.producer == want.version.producer == 4


def test_saved_fingerprint_is_recomputed_from_the_files(tmp_path):
    # what TF's CreateFingerprintDef computes from the directory (checked by hand with real TF 2.21: equal)
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def __call__(self, x):
            return tf.nn.relu(tf.matmul(x, self.w))

    d = str(tmp_path / "m")
    tf.saved_model.save(M(), d)
    with open(os.path.join(d, "fingerprint.pb"), "rb") as f:
        written = P.FingerprintDef.FromString(f.read())
    with open(os.path.join(d, "saved_model.pb"), "rb") as f:
        sm = P.SavedModel.FromString(f.read())
    with open(os.path.join(d, "variables", "variables.index"), "rb") as f:
        index = f.read()
    again = F.fingerprint_def(sm, index, written.uuid)
    assert again == written
    assert written.checkpoint_hash == F.fingerprint64(index) != 0
    fp = tf.saved_model.experimental.read_fingerprint(d)
    assert fp.singleprint() == "/".join(str(getattr(written, k)) for k in FIELDS[1:])
    # FunctionDef.arg_attr is keyed by integers: hashed with the keys sorted, as C++ protobuf writes them
    fn = P.FunctionDef()
    fn.arg_attr[1].attr["a"].s = b"x"
    fn.arg_attr[0].attr["a"].s = b"y"
    assert F._ser(fn).index(b"\x08\x00") < F._ser(fn).index(b"\x08\x01")
