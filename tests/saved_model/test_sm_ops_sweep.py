"""Every op case of tests/ops, traced by tf.function, survives the graph's JSON round trip (attrs of every kind:
slices, dtypes, shapes, arrays, nested graphs) and computes the same values on the loaded graph."""

import importlib.util
import json
import os

import numpy as np

import tensorlet as tf
from tensorlet._src.graph.executor import Plan
from tensorlet._src.graph.function import set_retracing_policy
from tensorlet._src.saved_model.graph_io import GraphReader, GraphWriter

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


def _roundtrip(graph):
    constants, variables = {}, []

    def external(a):
        constants[f"c{len(constants)}"] = a
        return f"c{len(constants) - 1}"

    def var_index(v):
        variables.append(v)
        return len(variables) - 1

    w = GraphWriter(var_index, external)
    gi = w.add(graph)
    table = json.loads(json.dumps(w.graphs, allow_nan=False))
    return GraphReader(table, variables, lambda k, where: constants[k]).graph(gi)


def test_every_op_case_round_trips():
    import opcheck

    set_retracing_policy("ignore")
    checked, failures = 0, []
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
                got = Plan(_roundtrip(cf.graph)).run(feeds)
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
    assert not failures, "\n".join(failures[:20])
