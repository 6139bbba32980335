"""Every op case of tests/ops, traced by tf.function, is either written as TF FunctionDefs that pass TF's OpDef
checks and read back to the same values, or refused with an error naming an op TF has no kernel for."""

import importlib.util
import itertools
import os

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src.graph.executor import Plan
from tensorlet._src.graph.function import set_retracing_policy
import sm_tf_checks as chk

from tensorlet._src.saved_model import protos as P
from tensorlet._src.saved_model.codec import Unsupported
from tensorlet._src.saved_model.tf_export import Exporter
from tensorlet._src.saved_model.tf_load import Interpreter

OPS_DIR = os.path.join(os.path.dirname(__file__), "..", "ops")


def _cases():
    for name in sorted(os.listdir(OPS_DIR)):
        if not name.startswith("test_") or name == "test_registry.py":
            continue
        spec = importlib.util.spec_from_file_location(f"_sm_sweep_{name[:-3]}", os.path.join(OPS_DIR, name))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for case in getattr(mod, "CASES", []):
            if case.graph and case.as_tensors:
                yield name, case


def _roundtrip(cf):
    """cf -> FunctionDefs (serialized and parsed again) -> a graph traced by interpreting them."""
    variables = list(cf.graph.variables)
    ex = Exporter(lambda v: None, itertools.count(1))
    name = ex.function(cf)
    lib = {}
    for fd in ex.library:
        chk.check_function(fd)
        lib[fd.signature.name] = P.FunctionDef.FromString(fd.SerializeToString())
    interp = Interpreter(lib)
    specs = [tf.TensorSpec(t.shape, t.dtype) for t in cf.graph.inputs]
    fn = tf.function(lambda *xs: interp.run(name, list(xs) + variables), input_signature=specs, autograph=False)
    return fn.get_concrete_function().graph


@pytest.mark.slow
def test_every_op_case_round_trips():
    import opcheck

    set_retracing_policy("ignore")
    checked, refused, failures = 0, set(), []
    try:
        for fname, case in _cases():
            rng = np.random.default_rng(0)
            shapes, dtype = case.shapes[0], case.dtypes[0]
            try:
                arrays = case.gen(rng, shapes, dtype) if case.gen else [opcheck.make(rng, s, dtype, case.domain)
                                                                        for s in shapes]
                args = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in arrays]
                cf = tf.function(case.fn, autograph=False).get_concrete_function(*args)
                feeds = [a._v for a in args if isinstance(a, tf.Tensor)]
                want = Plan(cf.graph).run(feeds)
            except Exception:  # noqa: BLE001 - cases that do not trace are covered by the graph tests
                continue
            checked += 1
            try:
                try:
                    g = _roundtrip(cf)
                except Unsupported as e:  # refused with the node and its op named: "node X (Op)..."
                    assert "node " in str(e) and f"({cf.graph.nodes[-1].op.name})" or "(" in str(e), e
                    refused.add(str(e).split(" (")[1].split(")")[0])
                    continue
                got = Plan(g).run(feeds)
                if fname == "test_random.py":
                    continue  # stateful random ops draw new numbers on every run
                for a, b in zip(want, got):
                    a, b = np.asarray(a), np.asarray(b)
                    assert a.dtype == b.dtype and a.shape == b.shape
                    if a.dtype != object:
                        np.testing.assert_array_equal(a, b)
                    else:
                        assert a.tolist() == b.tolist()
            except Exception as e:  # noqa: BLE001
                failures.append(f"{fname}:{case.label()}: {type(e).__name__}: {str(e)[:200]}")
    finally:
        set_retracing_policy("warn")
    assert checked > 500
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:30])
