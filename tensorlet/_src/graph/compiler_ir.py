"""``Function.experimental_get_compiler_ir``: the XLA program of a ``jit_compile=True`` function.

TF returns the HLO its XLA bridge builds; tensorlet compiles through jax, so this is the HLO jax lowers the
function's graph to (``jax.jit(...).lower(...)``) and, for the ``optimized_*`` stages, the module XLA's
optimizer produced (``.compile()``), in the same forms as TF: text for ``hlo`` / ``optimized_hlo``, a
serialized ``HloModuleProto`` (bytes) for the ``*_serialized`` stages, Graphviz dot for ``optimized_hlo_dot``.
"""

from __future__ import annotations

import numpy as np

_STAGES = ("hlo", "hlo_serialized", "optimized_hlo", "optimized_hlo_serialized", "optimized_hlo_dot")
_BYTES = ("hlo_serialized", "optimized_hlo_serialized", "optimized_hlo_proto_serialized")


def _is_spec(x):
    return type(x).__name__ == "TensorSpec"


def get_compiler_ir(function, args, kwargs):
    """What ``Function.experimental_get_compiler_ir(*args, **kwargs)`` returns: ``ir(stage="hlo")``."""
    from tensorlet._src.util import nest

    if function._jit_compile is not True:
        raise ValueError("Compiler IR can only be returned for functions marked with 'jit_compile=True'")
    flat = nest.flatten((args, kwargs))
    specs = [_is_spec(x) for x in flat]
    if any(specs) and not all(specs):
        raise ValueError("experimental_get_compiler_ir supports either (1) all inputs are TensorSpec  or (2) all "
                         "inputs are tf.Tensor/python variables")
    cf = function.get_concrete_function(*args, **kwargs)
    inputs = [ph for ph in cf.graph.inputs[:len(cf.graph.inputs) - len(cf.graph.captures)]]
    for ph in inputs:
        if not ph.shape.is_fully_defined():
            raise ValueError(f"experimental_get_compiler_ir needs fully defined input shapes; {ph.spec!r} has "
                             "unknown dimensions")
    cache = {}

    def lowered():
        if "lowered" not in cache:
            from tensorlet._src.graph.jaxrt import jax
            from tensorlet._src.graph.lowering import Compiled

            comp = Compiled(cf.graph)
            arg_structs = [jax.ShapeDtypeStruct(tuple(ph.shape.as_list()), ph.dtype._np) for ph in inputs]
            cache["lowered"] = comp.jitted.lower([np.asarray(v._v) for v in comp.written],
                                                 [np.asarray(v._v) for v in comp._others], arg_structs, comp.big)
        return cache["lowered"]

    def optimized_module():
        if "module" not in cache:
            cache["module"] = lowered().compile().runtime_executable().hlo_modules()[0]
        return cache["module"]

    def compiler_ir(stage="hlo", device_name=None, platform_name=None):
        if device_name is not None and platform_name is not None:
            raise ValueError("device_name and platform_name cannot be provided at the same time.")
        if stage not in _STAGES and stage != "optimized_hlo_proto_serialized":
            raise ValueError(f"Invalid stage selected: '{stage}'. Valid values are: "
                             + ", ".join(f"'{s}'" for s in _STAGES))
        if stage == "hlo":
            return lowered().as_text(dialect="hlo")
        if stage == "hlo_serialized":
            return lowered().compiler_ir("hlo").as_serialized_hlo_module_proto()
        if stage == "optimized_hlo":
            return optimized_module().to_string()
        if stage == "optimized_hlo_dot":
            from jax._src.lib import xla_client

            return xla_client.XlaComputation(optimized_module().as_serialized_hlo_module_proto()).as_hlo_dot_graph()
        return optimized_module().as_serialized_hlo_module_proto()

    return compiler_ir
