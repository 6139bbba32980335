"""TF Serving's gRPC API against a running ``tensorlet serve`` with grpcio clients over our protos.

(The official ``tensorflow-serving-api`` stubs import TensorFlow's generated modules, so CI cannot use them;
``tools/serving_official_client.py`` runs them against this server where TensorFlow is installed.)
"""

import grpc
import numpy as np
import pytest

import serving_util as su
from tensorlet._src.serving import protos, tensors
from tensorlet._src.serving.grpc_api import stub

X = np.array([[1.0, 2.0, -1.0, 0.5], [0.0, -3.0, 2.0, 1.0]], np.float32)


@pytest.fixture(scope="module")
def stubs(server):
    ch = server.channel()
    yield stub(ch, "PredictionService"), stub(ch, "ModelService")
    ch.close()


def _predict_request(name, inputs, version=None, label=None, signature=""):
    req = protos.PredictRequest()
    req.model_spec.name = name
    req.model_spec.signature_name = signature
    if version is not None:
        req.model_spec.version.value = version
    if label is not None:
        req.model_spec.version_label = label
    for k, v in inputs.items():
        tensors.to_proto(v, req.inputs[k])
    return req


def test_predict(stubs):
    ps, _ = stubs
    resp = ps.Predict(_predict_request("mlp", {"x": X}, version=1), timeout=30)
    assert resp.model_spec.name == "mlp" and resp.model_spec.version.value == 1
    assert resp.model_spec.signature_name == "serving_default"
    np.testing.assert_allclose(tensors.to_numpy(resp.outputs["y"]), su.mlp_reference(X, 1), rtol=1e-5)
    # typed value fields (what older clients send) are read too
    req = protos.PredictRequest()
    req.model_spec.name, req.model_spec.version_label = "mlp", "canary"
    t = req.inputs["x"]
    t.dtype = protos.DataType.values_by_name["DT_FLOAT"].number
    t.tensor_shape.dim.add().size, t.tensor_shape.dim.add().size = 2, 4
    t.float_val.extend(X.reshape(-1).tolist())
    resp = ps.Predict(req, timeout=30)
    assert resp.model_spec.version.value == 2
    np.testing.assert_allclose(tensors.to_numpy(resp.outputs["y"]), su.mlp_reference(X, 2), rtol=1e-5)


def test_predict_output_filter_and_multi(stubs):
    ps, _ = stubs
    req = _predict_request("multi", {"a": np.array([[1.0, 2.0]], np.float32), "b": np.array([4], np.int64)})
    req.output_filter.append("sum")
    resp = ps.Predict(req, timeout=30)
    assert list(resp.outputs) == ["sum"]
    np.testing.assert_allclose(tensors.to_numpy(resp.outputs["sum"]), [[5.0, 6.0]])


@pytest.mark.parametrize("req,code,message", [
    (_predict_request("nope", {"x": X}), grpc.StatusCode.NOT_FOUND, "Servable not found for request: Latest(nope)"),
    (_predict_request("mlp", {"x": X}, version=5), grpc.StatusCode.NOT_FOUND, "Specific(mlp, 5)"),
    (_predict_request("mlp", {"x": X}, label="zzz"), grpc.StatusCode.INVALID_ARGUMENT,
     "Unrecognized servable version label: zzz"),
    (_predict_request("mlp", {"x": X}, signature="nope"), grpc.StatusCode.FAILED_PRECONDITION,
     'Serving signature key "nope" not found.'),
    (_predict_request("mlp", {"x": X.astype(np.float64)}), grpc.StatusCode.INVALID_ARGUMENT,
     "Expects arg[0] to be float but double is provided"),
    (_predict_request("mlp", {"z": X}), grpc.StatusCode.INVALID_ARGUMENT, "input tensor alias not found in signature"),
    (_predict_request("mlp", {"x": X, "z": X}), grpc.StatusCode.INVALID_ARGUMENT,
     "input size does not match signature: 2!=1"),
    (_predict_request("mlp", {"x": X[:, :3]}), grpc.StatusCode.INVALID_ARGUMENT, "expects [?,4]"),
    (_predict_request("raiser", {"x": np.array([-1.0], np.float32)}), grpc.StatusCode.INVALID_ARGUMENT,
     "x must be non-negative"),
])
def test_predict_errors(stubs, req, code, message):
    ps, _ = stubs
    with pytest.raises(grpc.RpcError) as e:
        ps.Predict(req, timeout=30)
    assert e.value.code() == code and message in e.value.details(), e.value.details()


def _input(feats, context=None):
    inp = protos.Input()
    lst = inp.example_list_with_context if context is not None else inp.example_list
    for f in feats:
        ex = lst.examples.add()
        if f:
            ex.features.feature["f"].float_list.value.extend(f)
    if context is not None:
        lst.context.features.feature["f"].float_list.value.extend(context)
    return inp


def _serialized(inp):
    return [e.SerializeToString() for e in inp.example_list.examples]


def test_classify_regress_multi_inference(stubs):
    ps, _ = stubs
    feats = [[1.0, 2.0], [0.5, -1.0, 4.0]]
    req = protos.ClassificationRequest(input=_input(feats))
    req.model_spec.name = "cls"
    resp = ps.Classify(req, timeout=30)
    assert resp.model_spec.version.value == 3
    scores = su.softmax(su.example_features(_serialized(req.input)) @ su.CLASS_W)
    got = [[(c.label, c.score) for c in cl.classes] for cl in resp.result.classifications]
    assert [[lab for lab, _ in row] for row in got] == [["a", "b", "c"]] * 2
    np.testing.assert_allclose([[s for _, s in row] for row in got], scores, rtol=1e-5)

    # context features go into every example; an example's own feature of the same name wins (as TF Serving)
    req = protos.RegressionRequest(input=_input([[0.0, 1.0, 2.0, 3.0], []], context=[2.0]))
    req.model_spec.name, req.model_spec.signature_name = "cls", "regress"
    expect = su.example_features(_serialized(_input([[0.0, 1.0, 2.0, 3.0], [2.0]])))[:, 0]
    np.testing.assert_allclose([r.value for r in ps.Regress(req, timeout=30).result.regressions], expect)

    req = protos.MultiInferenceRequest(input=_input(feats))
    t = req.tasks.add()
    t.model_spec.name, t.method_name = "cls", "tensorflow/serving/classify"
    t = req.tasks.add()
    t.model_spec.name, t.model_spec.signature_name, t.method_name = "cls", "regress", "tensorflow/serving/regress"
    resp = ps.MultiInference(req, timeout=30)
    assert resp.results[0].WhichOneof("result") == "classification_result"
    np.testing.assert_allclose([r.value for r in resp.results[1].regression_result.regressions],
                               su.example_features(_serialized(req.input))[:, 0])


def test_metadata_and_status(stubs):
    ps, ms = stubs
    req = protos.GetModelMetadataRequest()
    req.model_spec.name = "mlp"
    req.metadata_field.append("signature_def")
    resp = ps.GetModelMetadata(req, timeout=30)
    any_ = resp.metadata["signature_def"]
    assert any_.type_url == "type.googleapis.com/tensorflow.serving.SignatureDefMap"
    sdm = protos.SignatureDefMap.FromString(any_.value)
    # the SavedModel's own SignatureDefs, its init op's entry included (as TF Serving returns them)
    assert set(sdm.signature_def) == {"serving_default", "double", "__saved_model_init_op"}
    assert sdm.signature_def["serving_default"].inputs["x"].dtype == 1

    req = protos.GetModelStatusRequest()
    req.model_spec.name = "half"
    resp = ms.GetModelStatus(req, timeout=30)
    states = {s.version: s for s in resp.model_version_status}
    assert states[1].state == protos.ModelVersionStatus.State.Value("AVAILABLE")
    assert states[2].state == protos.ModelVersionStatus.State.Value("END") and states[2].status.error_code != 0
    req.model_spec.name = "nope"
    with pytest.raises(grpc.RpcError) as e:
        ms.GetModelStatus(req, timeout=30)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_wire_compatible_with_tensorflow_tensor_proto():
    """Our TensorProto bytes parse as TensorFlow's (tensorboard ships a copy of TF's tensor.proto)."""
    from tensorboard.compat.proto import tensor_pb2

    arr = np.arange(6, dtype=np.int64).reshape(2, 3)
    theirs = tensor_pb2.TensorProto.FromString(tensors.to_proto(arr).SerializeToString())
    assert theirs.dtype == 9 and [d.size for d in theirs.tensor_shape.dim] == [2, 3]
    assert np.frombuffer(theirs.tensor_content, np.int64).tolist() == arr.reshape(-1).tolist()
    t = tensor_pb2.TensorProto(dtype=7, string_val=[b"a", b"bc"])
    t.tensor_shape.dim.add().size = 2
    ours = protos.TensorProto.FromString(t.SerializeToString())
    assert tensors.to_numpy(ours).tolist() == [b"a", b"bc"]
