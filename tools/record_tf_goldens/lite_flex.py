"""Records what TF's TFLiteConverter writes for Select TF ops (tests/goldens/lite_flex.json): two small functions
converted with ``supported_ops=[TFLITE_BUILTINS, SELECT_TF_OPS]``; per model the operator codes and, per operator,
its code, which inputs are constants (and their values), and for Flex ops the custom_options bytes and the
NodeDef they hold (as TF's JSON mapping).  Also an op TF refuses even as a Flex op (not in its allowlist).

    /path/to/tf/python tools/record_tf_goldens/lite_flex.py tests/goldens/lite_flex.json
"""

import json
import sys

import numpy as np
import tensorflow as tf
from flatbuffers import flexbuffers
from google.protobuf.json_format import MessageToDict
from tensorflow.core.framework import node_def_pb2
from tensorflow.lite.python import schema_py_generated as schema


def erf_cumprod(x):
    return tf.math.cumprod(tf.math.erf(x) * 2.0, axis=1) + 1.0


def det_sinh(x):
    return tf.linalg.det(tf.reshape(x, [-1, 2, 2])) + tf.reduce_sum(tf.math.sinh(x), axis=1)


def erfc(x):
    return tf.math.erfc(x)


def convert(fn):
    f = tf.function(fn, input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
    c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS]
    return c.convert()


def describe(data):
    m = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))
    codes = [{"builtin_code": int(o.builtinCode), "deprecated_builtin_code": int(o.deprecatedBuiltinCode),
              "custom_code": o.customCode.decode() if o.customCode else None, "version": int(o.version)}
             for o in m.operatorCodes]
    sg = m.subgraphs[0]
    ops = []
    for op in sg.operators:
        ins = []
        for i in op.inputs:
            t = sg.tensors[i]
            buf = m.buffers[t.buffer].data
            if buf is not None and len(buf):
                dt = {0: np.float32, 2: np.int32}[t.type]
                ins.append({"const": np.frombuffer(bytes(buf), dt).tolist(), "type": int(t.type)})
            else:
                ins.append({"const": None, "type": int(t.type)})
        d = {"opcode_index": int(op.opcodeIndex), "inputs": ins, "n_outputs": len(op.outputs),
             "custom_options_format": int(op.customOptionsFormat)}
        if op.customOptions is not None:
            blob = bytes(bytearray(op.customOptions))
            name, nd = flexbuffers.Loads(blob)
            nd = nd.encode("latin-1") if isinstance(nd, str) else bytes(nd)
            d["custom_options_hex"] = blob.hex()
            d["flex_op"] = name
            d["node_def"] = MessageToDict(node_def_pb2.NodeDef.FromString(nd))
        ops.append(d)
    return {"operator_codes": codes, "operators": ops}


def main(out):
    rec = {"tensorflow": tf.__version__, "models": {}}
    for fn in (erf_cumprod, det_sinh):
        rec["models"][fn.__name__] = describe(convert(fn))
    try:
        convert(erfc)
        rec["erfc_refused"] = None
    except Exception as e:  # noqa: BLE001 - ConverterError
        rec["erfc_refused"] = "'tf.Erfc' op is neither a custom op nor a flex op" in str(e)
    with open(out, "w") as f:
        json.dump(rec, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
