"""``tf.mlir.experimental``: MLIR of tensorlet's functions, and MLIR pass pipelines.

TF emits its TF dialect; tensorlet compiles through XLA, so the MLIR here is the StableHLO module a function's
graph lowers to (what XLA compiles).  Pass pipelines run on jaxlib's MLIR (its registered passes: ``canonicalize``,
``cse``, the StableHLO passes, ...); TF's own pipelines (``tf-standard-pipeline``) are TF-dialect passes and are
skipped when the module has no TF dialect ops, which is always the case here.
"""

from __future__ import annotations

import io
import os

import numpy as np

from tensorlet._src.framework.api_export import tf_export

__all__ = ["convert_function", "convert_saved_model", "convert_saved_model_v1", "run_pass_pipeline",
           "write_bytecode"]

_TF_PIPELINES = ("tf-standard-pipeline", "")


def _lower(concrete_function, show_debug_info):
    from tensorlet._src.graph.jaxrt import jax
    from tensorlet._src.graph.lowering import Compiled

    graph = concrete_function.graph
    inputs = list(graph.inputs[:len(graph.inputs) - len(graph.captures)])
    for ph in inputs:
        if not ph.shape.is_fully_defined():
            raise ValueError(f"convert_function needs fully defined input shapes (XLA programs are static); "
                             f"{ph.spec!r} has unknown dimensions")
    comp = Compiled(graph)
    structs = [jax.ShapeDtypeStruct(tuple(ph.shape.as_list()), ph.dtype._np) for ph in inputs]
    lowered = comp.jitted.lower([np.asarray(v._v) for v in comp.written], [np.asarray(v._v) for v in comp._others],
                                structs, comp.big)
    return lowered.as_text(debug_info=bool(show_debug_info))


@tf_export("mlir.experimental.convert_function")
def convert_function(concrete_function, pass_pipeline="tf-standard-pipeline", show_debug_info=False):
    """The StableHLO MLIR module of ``concrete_function`` (after ``pass_pipeline``)."""
    text = _lower(concrete_function, show_debug_info)
    return run_pass_pipeline(text, pass_pipeline, show_debug_info)


def _saved_model_functions(saved_model_path, exported_names):
    from tensorlet._src.saved_model.load import load

    obj = load(os.fspath(saved_model_path))
    sigs = getattr(obj, "signatures", {}) or {}
    names = [n for n in (exported_names.split(",") if isinstance(exported_names, str) else exported_names or [])
             if n]
    chosen = names or sorted(sigs)
    out = []
    for n in chosen:
        if n not in sigs:
            raise ValueError(f"{n!r} is not an exported signature of {saved_model_path}; it has {sorted(sigs)}")
        out.append(sigs[n])
    return out


@tf_export("mlir.experimental.convert_saved_model")
def convert_saved_model(saved_model_path, exported_names, show_debug_info=False):
    """The MLIR modules of a SavedModel's exported signatures (comma-separated names; all when empty)."""
    return "\n".join(_lower(f, show_debug_info) for f in _saved_model_functions(saved_model_path, exported_names))


@tf_export("mlir.experimental.convert_saved_model_v1")
def convert_saved_model_v1(saved_model_path, exported_names, tags, lift_variables=True,
                           include_variables_in_initializers=False, upgrade_legacy=True, show_debug_info=False):
    """As ``convert_saved_model`` (tensorlet's SavedModels have one MetaGraph, so ``tags`` select nothing)."""
    return convert_saved_model(saved_model_path, exported_names, show_debug_info)


def _parse(ir, mlir_txt):
    try:
        return ir.Module.parse(mlir_txt)
    except Exception as e:  # noqa: BLE001  (jaxlib's MLIRError: TF reports a parse failure as UnknownError)
        from tensorlet._src.framework import errors

        raise errors.UnknownError(None, None, f"Failed to parse MLIR: {e}") from None


def _context():
    from tensorlet._src.graph.jaxrt import jax  # noqa: F401  (loads jaxlib's MLIR)
    from jax._src.interpreters import mlir

    return mlir.make_ir_context()


@tf_export("mlir.experimental.run_pass_pipeline")
def run_pass_pipeline(mlir_txt, pass_pipeline, show_debug_info=False):
    """Parse ``mlir_txt``, run the textual ``pass_pipeline`` (e.g. ``'canonicalize,cse'``), print the module."""
    from jax._src.lib.mlir import ir, passmanager

    with _context():
        module = _parse(ir, mlir_txt)
        pipeline = (pass_pipeline or "").strip()
        if pipeline not in _TF_PIPELINES:
            if not pipeline.startswith("builtin.module("):
                pipeline = f"builtin.module({pipeline})"
            passmanager.PassManager.parse(pipeline).run(module.operation)
        return module.operation.get_asm(enable_debug_info=bool(show_debug_info))


@tf_export("mlir.experimental.write_bytecode")
def write_bytecode(filename, mlir_txt):
    """Write ``mlir_txt`` as MLIR bytecode to ``filename`` (atomically)."""
    from jax._src.lib.mlir import ir

    with _context():
        module = _parse(ir, mlir_txt)
        buf = io.BytesIO()
        module.operation.write_bytecode(buf)
    tmp = os.fspath(filename) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, os.fspath(filename))
