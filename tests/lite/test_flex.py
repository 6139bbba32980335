"""Select TF ops: Flex custom operators as TF's converter writes them (tests/goldens/lite_flex.json, recorded by
tools/record_tf_goldens/lite_flex.py), LiteRT's refusal without the Flex delegate, the reference engine running
them on tensorlet's kernels."""

import json
import os

import numpy as np
import pytest
from google.protobuf.json_format import MessageToDict

import tensorlet as tf
from tensorlet._src.lite import flex, schema
from tensorlet._src.lite.interpreter import Interpreter, litert_available
from tensorlet._src.saved_model import protos as P

GOLD = json.load(open(os.path.join(os.path.dirname(__file__), "..", "goldens", "lite_flex.json")))
SPEC = [tf.TensorSpec([None, 4], tf.float32)]


def erf_cumprod(x):
    return tf.math.cumprod(tf.math.erf(x) * 2.0, axis=1) + 1.0


def det_sinh(x):
    return tf.linalg.det(tf.reshape(x, [-1, 2, 2])) + tf.reduce_sum(tf.math.sinh(x), axis=1)


def convert(fn, select=True):
    f = tf.function(fn, input_signature=SPEC)
    c = tf.lite.TFLiteConverter.from_concrete_functions([f.get_concrete_function()], f)
    if select:
        c.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS]
    return c.convert(), f


def run(content, x, engine="auto"):
    it = Interpreter(model_content=content, experimental_engine=engine)
    it.resize_tensor_input(it.get_input_details()[0]["index"], list(x.shape))
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it, it.get_tensor(it.get_output_details()[0]["index"])


@pytest.mark.parametrize("fn", [erf_cumprod, det_sinh])
def test_flex_ops_written_as_tf_writes_them(fn):
    gold = GOLD["models"][fn.__name__]
    content, f = convert(fn)
    m = schema.read_model(content)
    codes = [{"builtin_code": c["builtin_code"], "deprecated_builtin_code": c["deprecated_builtin_code"],
              "custom_code": c.get("custom_code"), "version": c["version"]} for c in m["operator_codes"]]
    assert codes == gold["operator_codes"]
    sg = m["subgraphs"][0]
    assert len(sg["operators"]) == len(gold["operators"])
    for op, g in zip(sg["operators"], gold["operators"]):
        assert op["opcode_index"] == g["opcode_index"]
        assert len(op["outputs"]) == g["n_outputs"] and op.get("custom_options_format", 0) == \
            g["custom_options_format"]
        ins = []
        for i in op["inputs"]:
            t = sg["tensors"][i]
            data = m["buffers"][t["buffer"]].get("data")
            const = np.frombuffer(bytes(data), {0: "<f4", 2: "<i4"}[t["type"]]).tolist() if data else None
            ins.append({"const": const, "type": t["type"]})
        assert ins == g["inputs"]
        if "flex_op" not in g:
            assert op.get("custom_options") is None
            continue
        name, nd = flex.read_flexbuffer_strings(bytes(op["custom_options"]))
        assert name.decode() == g["flex_op"]
        ours = MessageToDict(P.NodeDef.FromString(nd))
        theirs = dict(g["node_def"])
        assert ours.pop("experimentalDebugInfo")["originalNodeNames"][0].startswith(g["flex_op"])
        theirs.pop("experimentalDebugInfo")
        assert ours == theirs
        # the FlexBuffer layout is TF's byte for byte: re-encoding TF's own strings gives TF's bytes
        tf_blob = bytes.fromhex(g["custom_options_hex"])
        assert flex.flexbuffer_strings(flex.read_flexbuffer_strings(tf_blob)) == tf_blob
    x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    it, y = run(content, x)
    assert it.engine == "reference"  # LiteRT's package has no Flex delegate
    np.testing.assert_allclose(y, f(tf.constant(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_flexbuffer_writer_widths_match_the_reference_reader():
    from flatbuffers import flexbuffers

    for sizes in ([3, 23], [300, 7], [70000, 5], [0, 0]):
        items = [bytes([65 + k % 26]) * n for k, n in enumerate(sizes)]
        blob = flex.flexbuffer_strings(items)
        assert flexbuffers.Loads(blob) == [s.decode() for s in items]
        assert flex.read_flexbuffer_strings(blob) == items
    tf_blob = bytes.fromhex(GOLD["models"]["erf_cumprod"]["operators"][0]["custom_options_hex"])
    for bad in (tf_blob[:-3] + b"\xff" + tf_blob[-2:], tf_blob[-5:], tf_blob[:-1] + b"\x03", b"\x01"):
        with pytest.raises(tf.errors.DataLossError, match="Flex op custom_options"):
            flex.read_flexbuffer_strings(bad)


@pytest.mark.skipif(not litert_available(), reason="LiteRT (ai-edge-litert) is not installed")
def test_litert_refuses_flex_ops_clearly():
    content, _ = convert(det_sinh)
    it = Interpreter(model_content=content, experimental_engine="litert")
    with pytest.raises(RuntimeError, match=r"Select TF ops \(FlexMatrixDeterminant, FlexSinh\).*LiteRT said: "
                                           r"Select TensorFlow op\(s\), included in the given model"):
        it.allocate_tensors()


def test_without_select_tf_ops_the_op_is_refused():
    with pytest.raises(tf.lite.ConverterError, match="'tf.Erf' op is neither a custom op nor a flex op"):
        convert(erf_cumprod, select=False)
