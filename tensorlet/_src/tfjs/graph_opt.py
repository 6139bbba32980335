"""The graph rewrites tfjs-converter applies before writing a Graph model, on a frozen ``GraphDef``.

tensorflowjs_converter runs grappler (pruning, constant folding, arithmetic, dependency), folds batch norms,
turns ``AddV2(contraction, 1-D const)`` into ``BiasAdd`` (normalize_bias_add.py), reruns grappler's remapper,
which fuses ``Conv2D``/``MatMul`` + ``BiasAdd`` [+ activation] into ``_FusedConv2D``/``_FusedMatMul``, and fuses
``DepthwiseConv2dNative`` the same way into ``FusedDepthwiseConv2dNative`` itself (fuse_depthwise_conv2d.py).
Constant folding, Identity removal and dropping ``x + 0`` / ``x * 1`` happen while freezing (graph_model.py);
this module does the rest:

* ``fold_batch_norms``: an inference ``FusedBatchNorm[V3]`` after a convolution is folded into its filter and a
  ``BiasAdd``;
* ``mul_conv_push_down``: a constant per-channel ``Mul`` after a ``Conv2D`` with a constant filter is folded
  into the filter (a batch norm after a bias-free convolution);
* ``swap_max_of_monotonic``: ``MaxPool(Relu(x))`` becomes ``Relu(MaxPool(x))`` where the remapper will not
  fuse the Relu (grappler's arithmetic optimizer);
* ``normalize_bias_add``: ``Add``/``AddV2`` of a ``Conv2D``/``DepthwiseConv2dNative``/``MatMul`` output (its
  only use) and a 1-D ``Const`` becomes ``BiasAdd`` (tfjs-converter does not check the second operand; a
  non-vector one would make an invalid ``BiasAdd``, so it is left as it is here);
* ``fuse_contractions``: contraction + ``BiasAdd`` [+ ``Relu``/``Relu6``/``Elu``/``LeakyRelu``/``Sigmoid``;
  depthwise: ``Relu``/``Relu6``/``Elu``] becomes one fused node named after the last node it replaces, with the
  attrs the remapper writes (``fused_ops``, ``num_args``, ``epsilon``, ``leakyrelu_alpha``, ``TArgs``, ...); an
  intermediate value used elsewhere stops the fusion, as in grappler.  ``Tanh`` is left unfused on purpose:
  TF's oneDNN builds fuse it too, but TF.js has no fused tanh (``Unknown fused activation tanh``);
* ``prune``: nodes the outputs do not need are dropped;
* ``Conv2D``/``MatMul`` (fused or not) get ``device: /device:CPU:0``, as the converter sets it.
"""

from __future__ import annotations

import numpy as np

from tensorlet._src.saved_model import protos as P

CPU = "/device:CPU:0"
_CONTRACTIONS = {"Conv2D": "_FusedConv2D", "MatMul": "_FusedMatMul",
                 "DepthwiseConv2dNative": "FusedDepthwiseConv2dNative"}
_ACTIVATIONS = {"_FusedConv2D": ("Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid"),
                "_FusedMatMul": ("Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid"),
                "FusedDepthwiseConv2dNative": ("Relu", "Relu6", "Elu")}
# attrs each fused op keeps from its contraction
_KEEP = {"_FusedConv2D": ("T", "data_format", "dilations", "explicit_paddings", "padding", "strides",
                          "use_cudnn_on_gpu"),
         "_FusedMatMul": ("T", "transpose_a", "transpose_b"),
         "FusedDepthwiseConv2dNative": ("T", "data_format", "dilations", "explicit_paddings", "padding", "strides")}


def const_node(name, value):
    from tensorlet._src.saved_model.tf_ops import dtype_enum, shape_proto

    nd = P.NodeDef(name=name, op="Const")
    enum = dtype_enum(value.dtype)
    nd.attr["value"].tensor.dtype = enum
    shape_proto(list(value.shape), nd.attr["value"].tensor.tensor_shape)
    nd.attr["dtype"].type = enum
    return nd


def _src(ref):
    return ref.split(":")[0].lstrip("^")


def _consumers(nodes, outputs):
    count = {}
    for n in nodes:
        for r in n.input:
            count[r] = count.get(r, 0) + 1
    for r in outputs:
        count[r] = count.get(r, 0) + 1
    return count


_BATCH_NORMS = ("FusedBatchNorm", "FusedBatchNormV3")


def fold_batch_norms(nodes, consts, outputs):
    """An inference ``FusedBatchNorm[V3]`` after ``Conv2D``/``DepthwiseConv2dNative`` (optionally through a
    constant bias add) is folded into the filter (``<conv>_weights``) and a ``BiasAdd`` named as the batch norm
    with offset ``<conv>_bn_offset``: tfjs-converter's fold_batch_norms."""
    by_name = {n.name: n for n in nodes}
    uses = _consumers(nodes, outputs)
    out, drop = [], set()
    for n in nodes:
        if n.op not in _BATCH_NORMS or n.attr["is_training"].b or n.attr["data_format"].s not in (b"NHWC", b""):
            out.append(n)
            continue
        if any(uses.get(f"{n.name}:{k}", 0) for k in range(1, 6)) or len(n.input) < 5 or \
                any(_src(r) not in consts for r in n.input[1:5]):
            out.append(n)
            continue
        conv, add, bias = by_name.get(n.input[0]), None, None
        if conv is not None and conv.op in ("BiasAdd", "Add", "AddV2") and uses.get(conv.name, 0) == 1:
            add = conv
            for a, b in ((0, 1), (1, 0)):
                cand = by_name.get(add.input[a])
                if cand is not None and cand.op in ("Conv2D", "DepthwiseConv2dNative") and \
                        _src(add.input[b]) in consts:
                    conv, bias = cand, consts[_src(add.input[b])]
                    break
            else:
                conv = None
        if conv is None or conv.op not in ("Conv2D", "DepthwiseConv2dNative") or uses.get(conv.name, 0) != 1 \
                or conv.input[1] not in consts:
            out.append(n)
            continue
        w = consts[conv.input[1]]
        channels = w.shape[3] if conv.op == "Conv2D" else w.shape[2] * w.shape[3]
        gamma, beta, mean, var = (consts[_src(r)].astype(np.float64) for r in n.input[1:5])
        if any(v.shape != (channels,) for v in (gamma, beta, mean, var)) or \
                (bias is not None and bias.size not in (1, channels)):
            out.append(n)
            continue
        if bias is not None:
            mean = mean - bias.reshape(-1).astype(np.float64)
        scale = gamma / np.sqrt(var + n.attr["epsilon"].f)
        offset = beta - mean * scale
        wname, oname = f"{conv.name}_weights", f"{conv.name}_bn_offset"
        consts[wname] = (w * scale.reshape(w.shape[2:]) if conv.op == "DepthwiseConv2dNative" else w * scale) \
            .astype(w.dtype)
        consts[oname] = offset.astype(w.dtype)
        conv.input[1] = wname
        ba = P.NodeDef(name=n.name, op="BiasAdd")
        ba.input.extend([conv.name, oname])
        ba.attr["T"].CopyFrom(conv.attr["T"])
        ba.attr["data_format"].s = b"NHWC"
        out.extend([const_node(wname, consts[wname]), const_node(oname, consts[oname]), ba])
        if add is not None:
            drop.add(add.name)
    return [n for n in out if n.name not in drop]


def mul_conv_push_down(nodes, consts):
    """``Mul(Conv2D(x, W), c)`` with constant ``W`` and a scalar or per-output-channel constant ``c`` becomes
    ``Conv2D(x, W * c)``, named as the ``Mul`` (grappler's MulConvPushDown: this is how an inference batch norm
    after a bias-free convolution folds into it); the new filter is ``<conv>/merged_input``."""
    by_name = {n.name: n for n in nodes}
    uses = _consumers(nodes, ())
    out, drop = [], set()
    for n in nodes:
        if n.op == "Mul" and len(n.input) == 2:
            for k in (0, 1):
                conv, c = by_name.get(n.input[k]), _src(n.input[1 - k])
                if conv is None or conv.op != "Conv2D" or uses.get(conv.name, 0) != 1 or c not in consts \
                        or conv.input[1] not in consts or conv.attr["data_format"].s != b"NHWC":
                    continue
                w, v = consts[conv.input[1]], consts[c]
                if v.dtype != w.dtype or not (v.size == 1 or (v.ndim <= w.ndim and v.shape[-1] == w.shape[-1]
                                                              and all(d == 1 for d in v.shape[:-1]))):
                    continue
                merged = f"{conv.name}/merged_input"
                consts[merged] = (w * v.reshape(-1)).astype(w.dtype)
                out.append(const_node(merged, consts[merged]))
                new = P.NodeDef()
                new.CopyFrom(conv)
                new.name = n.name
                new.input[1] = merged
                n = new
                drop.add(conv.name)
                break
        out.append(n)
    return [n for n in out if n.name not in drop or n.op != "Conv2D"]


_NON_DECREASING = {"Acosh", "Asinh", "Atan", "Atanh", "Ceil", "Elu", "Erf", "Exp", "Expm1", "Floor", "Log", "Log1p",
                   "Relu", "Relu6", "Rint", "Selu", "Sigmoid", "Sign", "Sinh", "Softplus", "Softsign", "Sqrt",
                   "Tanh"}


def swap_max_of_monotonic(nodes, outputs):
    """``MaxPool(f(x))`` / ``Max(f(x))`` with a non-decreasing elementwise ``f`` used only there becomes
    ``f(MaxPool(x))`` (grappler's arithmetic optimizer: ``f`` then runs on fewer values), except a Relu/Relu6 right
    after a ``BiasAdd`` or batch norm, which the remapper will fuse instead."""
    by_name = {n.name: n for n in nodes}
    uses = _consumers(nodes, outputs)
    moved = {}
    for m in nodes:
        if m.op not in ("MaxPool", "Max") or not m.input:
            continue
        f = by_name.get(m.input[0])
        if f is None or f.op not in _NON_DECREASING or uses.get(f.name, 0) != 1 or len(f.input) != 1:
            continue
        before = by_name.get(_src(f.input[0]))
        if f.op in ("Relu", "Relu6") and before is not None and \
                before.op in ("BiasAdd", "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
            continue
        m.input[0] = f.input[0]
        f.input[0] = m.name
        for n in nodes:
            if n is not f:
                for i, r in enumerate(n.input):
                    if r == m.name:
                        n.input[i] = f.name
        moved[m.name] = f
    if not moved:
        return nodes
    out = []
    for n in nodes:
        if n.name in {f.name for f in moved.values()}:
            continue
        out.append(n)
        if n.name in moved:
            out.append(moved[n.name])
    return out


def normalize_bias_add(nodes, consts):
    """Returns the node list; a ``[1, ..., 1, C]`` bias is squeezed to 1-D first (a new ``<const>/Squeeze``
    constant, as grappler's arithmetic optimizer leaves it)."""
    by_name = {n.name: n for n in nodes}
    uses = _consumers(nodes, ())
    out = []
    for n in nodes:
        out.append(n)
        if n.op not in ("Add", "AddV2") or len(n.input) != 2:
            continue
        a, b = by_name.get(_src(n.input[0])), _src(n.input[1])
        if a is None or a.op not in _CONTRACTIONS or ":" in n.input[0] or b not in consts or \
                uses.get(a.name, 0) != 1:
            continue
        v = consts[b]
        if v.ndim > 1 and all(d == 1 for d in v.shape[:-1]):
            sq = f"{b}/Squeeze"
            if sq not in consts:
                consts[sq] = v.reshape(v.shape[-1:])
                out.insert(next(i for i, m in enumerate(out) if m.name == b) + 1, const_node(sq, consts[sq]))
            n.input[1] = b = sq
            v = consts[sq]
        if v.ndim != 1:
            continue
        t = n.attr["T"]
        n.op = "BiasAdd"
        n.ClearField("attr")
        n.attr["T"].CopyFrom(t)
        n.attr["data_format"].s = b"NHWC"
    return out


def fuse_contractions(nodes, outputs):
    """Returns the new node list (fused nodes take the place of the last node they replace)."""
    uses = _consumers(nodes, outputs)
    consumer_of = {}
    for n in nodes:
        for r in n.input:
            consumer_of.setdefault(r, []).append(n)
    drop, replace = set(), {}
    for c in nodes:
        fused_op = _CONTRACTIONS.get(c.op)
        if fused_op is None or uses.get(c.name, 0) != 1:
            continue
        (b,) = consumer_of.get(c.name, [None])
        if b is None or b.op != "BiasAdd" or b.input[0] != c.name:
            continue
        act = None
        users = consumer_of.get(b.name, [])
        if uses.get(b.name, 0) == 1 and len(users) == 1 and users[0].op in _ACTIVATIONS[fused_op] \
                and users[0].input[0] == b.name:
            act = users[0]
        last = act or b
        f = P.NodeDef(name=last.name, op=fused_op)
        f.input.extend([c.input[0], c.input[1], b.input[1]])
        for k in _KEEP[fused_op]:
            if k in c.attr:
                f.attr[k].CopyFrom(c.attr[k])
        f.attr["fused_ops"].list.s.extend([b"BiasAdd"] + ([act.op.encode()] if act is not None else []))
        f.attr["num_args"].i = 1
        if fused_op != "FusedDepthwiseConv2dNative":
            f.attr["epsilon"].f = 0.0
            f.attr["leakyrelu_alpha"].f = act.attr["alpha"].f if act is not None and act.op == "LeakyRelu" \
                else 0.2
            f.device = CPU
        if fused_op == "_FusedConv2D":
            f.attr["TArgs"].list.type.append(c.attr["T"].type)
            f.attr["filter_format"].s = b"HWIO"
            f.attr["num_host_args"].i = 0
            if "use_cudnn_on_gpu" not in f.attr:
                f.attr["use_cudnn_on_gpu"].b = True
        drop.update({c.name, b.name} - {last.name})
        replace[last.name] = f
    out = [replace.get(n.name, n) for n in nodes if n.name not in drop]
    for n in out:
        if n.op in ("Conv2D", "MatMul"):
            n.device = CPU
    return out


def prune(nodes, outputs, keep=()):
    by_name = {n.name: n for n in nodes}
    need, stack = set(), [_src(r) for r in outputs] + list(keep)
    while stack:
        name = stack.pop()
        if name in need or name not in by_name:
            continue
        need.add(name)
        stack.extend(_src(r) for r in by_name[name].input)
    return [n for n in nodes if n.name in need]
