"""``tensorlet saved_model show``: TF's ``saved_model_cli show`` (same text layout), for any SavedModel.

    tensorlet saved_model show --dir DIR                      # tag-sets
    tensorlet saved_model show --dir DIR --tag_set serve      # signature keys
    tensorlet saved_model show --dir DIR --tag_set serve --signature_def serving_default
    tensorlet saved_model show --dir DIR --all                # everything, with the concrete functions

Signatures are read from ``saved_model.pb``; ``--all`` also loads the object graph to list the concrete
functions (no function is run).
Tensor names follow TF's conventions (``<signature>_<input>:0``, ``StatefulPartitionedCall:N``).
"""

from __future__ import annotations

import argparse
import sys

_INIT_OP = "__saved_model_init_op"


def _shape_text(shape) -> str:
    if shape is None:
        return "unknown_rank"
    return "(" + ", ".join("-1" if d is None else str(d) for d in shape) + ")"


class _PbModel:
    """The signature facts of a SavedModel in TF's format, from its ``saved_model.pb`` (nothing is run)."""

    def __init__(self, export_dir):
        from tensorlet._src.saved_model.protos import types_pb2
        from tensorlet._src.saved_model.tf_load import read_pb

        mg = read_pb(export_dir).meta_graphs[0]
        self.tags = list(mg.meta_info_def.tags)
        self.signatures = {}

        def info(kind, key, ti):
            shape = None if ti.tensor_shape.unknown_rank else [None if d.size == -1 else d.size
                                                               for d in ti.tensor_shape.dim]
            dt = types_pb2.DataType.Name(ti.dtype) if ti.dtype in types_pb2.DataType.values() else "DT_INVALID"
            return key, dt, shape, ti.name

        for name in sorted(mg.signature_def):
            if name == _INIT_OP:
                continue
            sd = mg.signature_def[name]
            self.signatures[name] = ([info("inputs", k, sd.inputs[k]) for k in sorted(sd.inputs)],
                                     [info("outputs", k, sd.outputs[k]) for k in sorted(sd.outputs)],
                                     sd.method_name)
        self._ops = {n.op for n in mg.graph_def.node}
        for f in mg.graph_def.library.function:
            self._ops.update(n.op for n in f.node_def)

    def ops(self):
        return set(self._ops)


def _model(export_dir):
    return _PbModel(export_dir)


def _print_signature(ins, outs, indent, method="tensorflow/serving/predict"):
    pad = " " * indent
    print(f"{pad}The given SavedModel SignatureDef contains the following input(s):")
    for key, dtype, shape, name in ins:
        _print_tensor(pad + "  ", "inputs", key, dtype, _shape_text(shape), name)
    print(f"{pad}The given SavedModel SignatureDef contains the following output(s):")
    for key, dtype, shape, name in outs:
        _print_tensor(pad + "  ", "outputs", key, dtype, _shape_text(shape), name)
    print(f"{pad}Method name is: {method}")


def _print_tensor(pad, kind, key, dtype, shape, name):
    print(f"{pad}{kind}['{key}'] tensor_info:")
    print(f"{pad}    dtype: {dtype}")
    print(f"{pad}    shape: {shape}")
    print(f"{pad}    name: {name}")


def _print_init_op_fixed(indent):
    pad = " " * indent
    print(f"{pad}The given SavedModel SignatureDef contains the following input(s):")
    print(f"{pad}The given SavedModel SignatureDef contains the following output(s):")
    print(f"{pad}  outputs['{_INIT_OP}'] tensor_info:")
    print(f"{pad}      dtype: DT_INVALID")
    print(f"{pad}      shape: unknown_rank")
    print(f"{pad}      name: NoOp")
    print(f"{pad}Method name is: ")


def _arg_lines(element, index, label="Argument"):
    lines = [f"        {label} #{index}"]
    if isinstance(element, str):
        lines.append(f"          {element}")
    elif hasattr(element, "shape") and hasattr(element, "dtype") and type(element).__name__ == "TensorSpec":
        lines.append(f"          {element.name}: {element!r}")
    elif isinstance(element, dict):
        items = ", ".join(f"'{k}': {_quoted(v)}" for k, v in element.items())
        lines += [f"          DType: {type(element).__name__}", f"          Value: {{{items}}}"]
    elif isinstance(element, (list, tuple)):
        lines += [f"          DType: {type(element).__name__}",
                  f"          Value: [{', '.join(_quoted(v) for v in element)}]"]
    else:
        lines += [f"          DType: {type(element).__name__}", f"          Value: {element}"]
    return lines


def _quoted(v):
    return f"'{v}'" if isinstance(v, str) else str(v)


def _functions_text(export_dir):
    """The 'Concrete Functions:' section: the root's tf.functions and their traced argument structures."""
    from tensorlet._src.graph.ir import GraphTensor
    from tensorlet._src.saved_model.load import RestoredFunction, load
    from tensorlet._src.saved_model.signatures import _DEFAULT_PH
    from tensorlet._src.util import nest

    root = load(export_dir)
    lines = ["", "Concrete Functions:"]
    names = sorted(k for k, v in vars(root).items() if isinstance(v, RestoredFunction))
    for k in names:
        fn = vars(root)[k]
        params = [p[0] for p in (fn._params or [])]
        lines.append(f"  Function Name: '{k}'")
        for i, (cf, canon) in enumerate(zip(fn.concrete_functions, fn._canon), 1):
            args, kwargs = cf._structured_inputs
            if isinstance(canon, dict):  # TF lists the arguments with defaults applied
                pos = {p[0] for p in fn._params if p[1] in ("positional_only", "positional_or_keyword")}
                args = [v for n, v in canon.items() if n in pos]
                kwargs = {n: v for n, v in canon.items() if n not in pos}
            lines += [f"    Option #{i}", "      Callable with:"]
            for j, a in enumerate(args, 1):
                pname = params[j - 1] if j - 1 < len(params) else f"args_{j - 1}"
                lines += _arg_lines(_as_specs(a, pname, nest, GraphTensor, _DEFAULT_PH), j)
            for j, key in enumerate(kwargs, 1):
                lines += _arg_lines(key, j, "Named Argument")
        lines.append("")
    if lines[-1] == "":
        lines.pop()
    return "\n".join(lines)


def _as_specs(a, pname, nest, GraphTensor, default_ph):
    from tensorlet._src.data.structure import TensorSpec

    def spec(t):
        if not isinstance(t, GraphTensor):
            return t
        name = t.node.name if not default_ph.match(t.node.name) else pname
        return TensorSpec(t.shape, t.dtype, name=name)

    return nest.map_structure(spec, a)


def show(export_dir, tag_set=None, signature_def=None, show_all=False) -> str:
    """The text ``saved_model_cli show`` prints for these options."""
    import contextlib
    import io

    m = _model(export_dir)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        if show_all:
            for tag in [",".join(m.tags)]:
                print(f"\nMetaGraphDef with tag-set: '{tag}' contains the following SignatureDefs:")
                print(f"\nsignature_def['{_INIT_OP}']:")
                _print_init_op_fixed(2)
                for name, (ins, outs, method) in m.signatures.items():
                    print(f"\nsignature_def['{name}']:")
                    _print_signature(ins, outs, 2, method)
            print(f"The MetaGraph with tag set {m.tags!r} contains the following ops: {m.ops()!r}")
            print(_functions_text(export_dir))
        elif tag_set is None:
            print("The given SavedModel contains the following tag-sets:")
            print(", ".join(f"'{t}'" for t in m.tags))
        else:
            _check_tags(m, tag_set)
            if signature_def is None:
                print("The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:")
                for key in sorted([_INIT_OP] + list(m.signatures)):
                    print(f'SignatureDef key: "{key}"')
            elif signature_def == _INIT_OP:
                _print_init_op_fixed(0)
            else:
                if signature_def not in m.signatures:
                    raise ValueError(f"Could not find signature \"{signature_def}\". Please choose from: "
                                     + ", ".join([_INIT_OP] + list(m.signatures)))
                ins, outs, method = m.signatures[signature_def]
                _print_signature(ins, outs, 0, method)
    return buf.getvalue()


def _check_tags(m, tag_set):
    wanted = sorted(t for t in tag_set.split(",") if t)
    if wanted != sorted(m.tags):
        raise RuntimeError(f"MetaGraphDef associated with tag-set {tag_set} could not be found in the SavedModel. "
                           f"Please use one of the following tag-sets: {[','.join(m.tags)]}")


def add_parser(sub):
    """Registers ``saved_model`` on the ``tensorlet`` command's subparsers."""
    p = sub.add_parser("saved_model", help="inspect a tensorlet SavedModel (like TF's saved_model_cli)")
    cmds = p.add_subparsers(dest="saved_model_cmd", required=True)
    s = cmds.add_parser("show", help="show the tag-sets, signatures and functions of a SavedModel")
    s.add_argument("--dir", required=True, help="directory containing the SavedModel to inspect")
    s.add_argument("--all", action="store_true", help="show everything (signatures and concrete functions)")
    s.add_argument("--tag_set", default=None, help="tag-set of the graph to inspect (comma-separated)")
    s.add_argument("--signature_def", default=None, help="key of the SignatureDef to display")
    return p


def main(args) -> int:
    """Runs a parsed ``tensorlet saved_model ...`` command."""
    from tensorlet._src.saved_model.codec import SavedModelError

    try:
        text = show(args.dir, args.tag_set, args.signature_def, args.all)
    except (SavedModelError, ValueError, RuntimeError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


def run(argv=None) -> int:
    """``python -m tensorlet._src.saved_model.cli show --dir DIR ...``."""
    ap = argparse.ArgumentParser(prog="tensorlet")
    add_parser(ap.add_subparsers(dest="cmd", required=True))
    return main(ap.parse_args(["saved_model"] + list(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    sys.exit(run())
