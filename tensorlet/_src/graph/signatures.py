"""TF's printed signatures of traced functions: ``ConcreteFunction.pretty_printed_signature()`` and
``Function.pretty_printed_concrete_signatures()`` (TF's ``FunctionType`` text: input parameters with their kinds
and trace types, the output type, the captures), plus ``output_dtypes``/``output_shapes``."""

from __future__ import annotations

import inspect
import re

from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.framework.variables import Variable

_DEFAULT_NAME = re.compile(r"^arg\d+$")


def _spec_text(t, name=None):
    from tensorlet._src.framework.tensor_spec import TensorSpec

    return repr(TensorSpec(t.shape, t.dtype, name=name))


def _container_text(x, item):
    """TF's text of a list/tuple/dict of trace types (``List[...]``, ``Tuple[...]``, ``Dict[[k, v], ...]``)."""
    if isinstance(x, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {item(v)}]" for k, v in x.items()) + "]"
    kind = "List" if isinstance(x, list) else "Tuple"
    return f"{kind}[{', '.join(item(v) for v in x)}]"


def _is_container(x):
    return isinstance(x, dict) or (isinstance(x, (list, tuple)) and not hasattr(x, "_fields"))


def _input_text(x):
    from tensorlet._src.graph.var_args import ArgVariable

    if isinstance(x, ArgVariable):
        return x.spec_text()
    if isinstance(x, Tensor) and hasattr(x, "node"):
        name = x.node.name
        return _spec_text(x, None if _DEFAULT_NAME.match(name or "") else name)
    if getattr(getattr(x, "_type_spec", None), "_to_components", None) is not None:
        return repr(x._type_spec)
    if _is_container(x):
        return _container_text(x, _input_text)
    return f"Literal[{x!r}]"


def _output_text(x):
    if isinstance(x, Variable):
        x = x.value()
    if isinstance(x, Tensor):
        return _spec_text(x)
    if hasattr(x, "_type_spec"):
        return repr(x._type_spec)
    if _is_container(x):
        return _container_text(x, _output_text)
    return f"Literal[{x!r}]"


def _parameters(cf):
    fn = cf._function
    sig = getattr(fn, "_signature", None) if fn is not None else None
    args, kwargs = cf._structured_inputs
    out = []
    params = list(sig.parameters.values()) if sig is not None else []
    var = next((p for p in params if p.kind is inspect.Parameter.VAR_POSITIONAL), None)
    positional = params[:params.index(var)] if var is not None else params
    for i, a in enumerate(args):
        p = positional[i] if i < len(positional) else None
        # TF: with *args the positional parameters are positional-only and the extras are args_0, args_1, ...
        name = p.name if p is not None else (f"{var.name}_{i - len(positional)}" if var is not None else f"arg{i}")
        kind = "POSITIONAL_ONLY" if p is None or var is not None else p.kind.name
        out.append((name, kind, a))
    rest = [p for p in params[min(len(args), len(positional)):] if p.kind is not inspect.Parameter.VAR_POSITIONAL]
    bound = {n for n, _, _ in out}
    for p in rest:
        if p.name in kwargs:
            out.append((p.name, p.kind.name, kwargs[p.name]))
        elif p.default is not inspect.Parameter.empty and p.name not in bound:
            out.append((p.name, p.kind.name, p.default))
    for k, v in kwargs.items():
        if k not in {n for n, _, _ in out}:
            out.append((k, "KEYWORD_ONLY", v))
    return out


def pretty_printed_signature(cf, verbose=True) -> str:
    params = _parameters(cf)
    outputs = _output_text(cf.structured_outputs)
    if not verbose:
        items = [f"{n}: {_input_text(v)}" for n, _, v in params]
        n_pos = sum(1 for _, k, _ in params if k == "POSITIONAL_ONLY")
        if n_pos:  # inspect's marker after positional-only parameters
            items.insert(n_pos, "/")
        return f"({', '.join(items)}) -> {outputs}"
    lines = ["Input Parameters:"]
    lines += [f"  {n} ({k}): {_input_text(v)}" for n, k, v in params]
    lines += ["Output Type:", f"  {outputs}", "Captures:"]
    from tensorlet._src.graph.var_args import ArgVariable

    caps = [v for v in cf.graph.variables if not isinstance(v, ArgVariable)]
    if caps:
        lines += [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)" for v in caps]
    else:
        lines.append("  None")
    return "\n".join(lines)


def _map_outputs(x, fn):
    if isinstance(x, Variable):
        x = x.value()
    if isinstance(x, Tensor):
        return fn(x)
    if isinstance(x, dict):
        return {k: _map_outputs(v, fn) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        vals = [_map_outputs(v, fn) for v in x]
        return type(x)(*vals) if hasattr(x, "_fields") else type(x)(vals)
    return None


def output_dtypes(cf):
    return _map_outputs(cf.structured_outputs, lambda t: t.dtype)


def output_shapes(cf):
    return _map_outputs(cf.structured_outputs, lambda t: t.shape)
