"""``tensorlet serve`` on SavedModels written by real TensorFlow the ways TF Serving users write them (Keras
``export()``, ``tf.saved_model.save`` of modules with several signatures, lookup tables / TextVectorization, a TF1
``saved_model.Builder`` classify/regress model, warmup files), checked against the outputs real TF computed
(tests/goldens/tf_serving/values.json, recorded by tools/record_tf_goldens/tf_serving_models.py)."""

import base64
import json
import os
import shutil

import grpc
import numpy as np
import pytest

import serving_util as su
from tensorlet._src.serving import protos, tensors
from tensorlet._src.serving.grpc_api import stub

GOLDENS = os.path.join(su.ROOT, "tests", "goldens", "tf_serving")
with open(os.path.join(GOLDENS, "values.json")) as _f:
    REC = json.load(_f)
MODELS = sorted(REC["signatures"])
CASES = {(c["model"], c["signature"]): c for c in REC["cases"]}


def decode(t):
    if t["dtype"] == "string":
        a = np.empty(len(t["values"]), object)
        a[:] = [base64.b64decode(v) for v in t["values"]]
        return a.reshape(t["shape"])
    if t["dtype"] == "bfloat16":
        return np.asarray(t["values"], np.float32).reshape(t["shape"])
    return np.asarray(t["values"], np.dtype(t["dtype"].replace("half", "float16"))).reshape(t["shape"])


def case_inputs(model, sig):
    c = CASES[(model, sig)]
    return {k: decode(v) for k, v in c["inputs"].items()}, {k: decode(v) for k, v in c["outputs"].items()}


def assert_same(got, want, what):
    got = np.asarray(got)
    if want.dtype == object:
        assert [x if isinstance(x, bytes) else x.encode() for x in got.reshape(-1).tolist()] == \
            want.reshape(-1).tolist(), what
        assert got.shape == want.shape, what
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-2 if want.dtype in (
            np.float16,) or "bf" in what else 1e-5, atol=1e-6, err_msg=what)
        assert got.shape == want.shape, what


def json_inputs(inputs):
    out = {}
    for k, v in inputs.items():
        if v.dtype == object:
            out[k] = [{"b64": base64.b64encode(x).decode()} for x in v.reshape(-1)] if any(
                not x.isascii() or b"\0" in x for x in v.reshape(-1)) else [x.decode() for x in v.reshape(-1)]
            out[k] = np.asarray(out[k], object).reshape(v.shape).tolist()
        else:
            out[k] = v.tolist()
    return out


@pytest.fixture(scope="module")
def tf_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("tfs")
    models = []
    for name in MODELS:
        shutil.copytree(os.path.join(GOLDENS, name), root / name)
        models.append((name, str(root / name), "", {}))
    su.write_config(str(root / "models.config"), models)
    with su.Server(f"--model_config_file={root / 'models.config'}", wait_for=MODELS) as s:
        yield s


# --- in process: the loader gives TF's numbers ---------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(CASES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_loaded_signature_matches_tf(key):
    import tensorlet as tf

    model, sig = key
    loaded = tf.saved_model.load(os.path.join(GOLDENS, model, "1"))
    assert sorted(loaded.signatures) == REC["signatures"][model]
    inputs, want = case_inputs(model, sig)
    if "bf" in inputs:
        inputs["bf"] = tf.cast(inputs["bf"], tf.bfloat16)
    out = loaded.signatures[sig](**inputs)
    assert sorted(out) == sorted(want)
    for k in want:
        assert_same(out[k].numpy(), want[k], f"{model}/{sig}/{k}")


def test_v1_classify_regress_signatures_in_process():
    import tensorlet as tf

    loaded = tf.saved_model.load(os.path.join(GOLDENS, "v1cls", "1"))
    sigs = loaded.signatures
    assert sigs["serving_default"].method_name == "tensorflow/serving/classify"
    assert sigs["regress"].method_name == "tensorflow/serving/regress"
    ser = np.array([_example(x) for x in REC["v1cls"]["examples"]], object)
    out = sigs["serving_default"](inputs=ser)
    for k, v in REC["v1cls"]["classify"].items():
        assert_same(out[k].numpy(), decode(v), k)
    assert_same(sigs["regress"](inputs=ser)["outputs"].numpy(), decode(REC["v1cls"]["regress"]), "regress")


def _example(values):
    ex = protos.Example()
    ex.features.feature["x"].float_list.value.extend(values)
    return ex.SerializeToString()


# --- over REST and gRPC ----------------------------------------------------------------------------------------
# (half/bfloat16 have their own test; ctl/fmt counts its calls: test_stateful_signature_counts_calls)
REST_CASES = [k for k in sorted(CASES) if k not in (("multi", "half"), ("ctl", "fmt"))]


@pytest.mark.parametrize("key", REST_CASES, ids=lambda k: f"{k[0]}-{k[1]}")
def test_rest_columnar_matches_tf(tf_server, key):
    model, sig = key
    inputs, want = case_inputs(model, sig)
    status, body = tf_server.post(f"/v1/models/{model}:predict", {"signature_name": sig,
                                                                   "inputs": json_inputs(inputs)})
    assert status == 200, body
    out = body["outputs"] if len(want) > 1 else {next(iter(want)): body["outputs"]}
    for k, w in want.items():
        got = out[k]
        if w.dtype == object:
            flat = np.asarray(got, object).reshape(-1).tolist()
            got = np.asarray([base64.b64decode(x["b64"]) if isinstance(x, dict) else x.encode("latin-1")
                              if k == "echo_bytes" else x.encode() for x in flat], object).reshape(np.shape(got))
            if k == "echo_bytes":  # a "*_bytes" output comes back base64-encoded
                assert all(isinstance(x, dict) for x in flat)
        assert_same(got, w, f"{model}/{sig}/{k}")


def test_rest_row_format(tf_server):
    inputs, want = case_inputs("kfunc", "serving_default")
    rows = [{k: v[i].tolist() for k, v in inputs.items()} for i in range(2)]
    status, body = tf_server.post("/v1/models/kfunc:predict", {"instances": rows})
    assert status == 200, body
    assert_same(np.asarray(body["predictions"]), want["output_0"], "kfunc rows")
    inputs, want = case_inputs("multi", "mixed")
    rows = [{"ids": int(i), "words": w.decode()} for i, w in zip(inputs["ids"], inputs["words"])]
    status, body = tf_server.post("/v1/models/multi:predict", {"signature_name": "mixed", "instances": rows})
    assert status == 200, body
    assert [r["ids2"] for r in body["predictions"]] == want["ids2"].tolist()  # int64 past 2**53 kept exact
    # a scalar output cannot be split into rows: TF Serving's error
    status, body = tf_server.post("/v1/models/multi:predict", {"signature_name": "scalar",
                                                               "instances": [[1.0, 2.0, 3.0]]})
    assert status == 400 and body["error"] == "Tensor name: output_0 has no shape information ", body


def test_rest_half_and_bfloat16_as_json_numbers(tf_server):
    inputs, want = case_inputs("multi", "half")
    status, body = tf_server.post("/v1/models/multi:predict", {"signature_name": "half", "inputs": {
        "h": inputs["h"].astype(np.float32).tolist(), "bf": inputs["bf"].tolist()}})
    assert status == 200, body
    for k, w in want.items():
        assert_same(np.asarray(body["outputs"][k]), w, f"half/{k}")


@pytest.fixture(scope="module")
def grpc_stub(tf_server):
    ch = tf_server.channel()
    yield stub(ch, "PredictionService")
    ch.close()


@pytest.mark.parametrize("key", sorted(CASES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_grpc_predict_matches_tf(grpc_stub, key):
    model, sig = key
    inputs, want = case_inputs(model, sig)
    req = protos.PredictRequest()
    req.model_spec.name, req.model_spec.signature_name = model, sig
    for k, v in inputs.items():
        if k == "bf":
            import ml_dtypes

            v = v.astype(ml_dtypes.bfloat16)
        tensors.to_proto(v, req.inputs[k])
    resp = grpc_stub.Predict(req, timeout=60)
    assert sorted(resp.outputs) == sorted(want)
    for k, w in want.items():
        got = tensors.to_numpy(resp.outputs[k])
        dtype = CASES[key]["outputs"][k]["dtype"]
        enum = protos.DataType.values_by_number[resp.outputs[k].dtype].name
        assert enum == "DT_" + {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}.get(dtype, dtype.upper()), k
        assert_same(got if dtype != "bfloat16" else got.astype(np.float32), w, f"{model}/{sig}/{k}")


def test_rest_classify_regress_v1_model(tf_server):
    ex = [{"x": x} for x in REC["v1cls"]["examples"]]
    want = {k: decode(v) for k, v in REC["v1cls"]["classify"].items()}
    status, body = tf_server.post("/v1/models/v1cls:classify", {"examples": ex})
    assert status == 200, body
    for i, row in enumerate(body["results"]):
        assert [c[0] for c in row] == [x.decode() for x in want["classes"][i]]
        np.testing.assert_allclose([c[1] for c in row], want["scores"][i], rtol=1e-5)
    status, body = tf_server.post("/v1/models/v1cls:classify", {"signature_name": "classify_scores", "examples": ex})
    assert status == 200, body
    assert all(c[0] == "" for row in body["results"] for c in row)
    np.testing.assert_allclose([[c[1] for c in r] for r in body["results"]],
                               decode(REC["v1cls"]["classify_scores"]), rtol=1e-5)
    status, body = tf_server.post("/v1/models/v1cls:regress", {"signature_name": "regress", "examples": ex})
    assert status == 200, body
    np.testing.assert_allclose(body["results"], decode(REC["v1cls"]["regress"]).reshape(-1), rtol=1e-5)
    # context features are merged into each example
    status, body = tf_server.post("/v1/models/v1cls:regress", {"signature_name": "regress", "context": {
        "x": [1.0, 1.0]}, "examples": [{}, {}]})
    assert status == 200 and body["results"] == [3.0, 3.0], body
    status, body = tf_server.post("/v1/models/v1cls:regress", {"examples": ex})
    assert status == 400 and body["error"] == ("Expected regression signature method_name to be "
                                               "tensorflow/serving/regress. Was: tensorflow/serving/classify"), body


def test_grpc_classify_regress_v1_model(grpc_stub):
    want = {k: decode(v) for k, v in REC["v1cls"]["classify"].items()}
    req = protos.ClassificationRequest()
    req.model_spec.name = "v1cls"
    for x in REC["v1cls"]["examples"]:
        req.input.example_list.examples.add().ParseFromString(_example(x))
    resp = grpc_stub.Classify(req, timeout=30)
    assert resp.model_spec.signature_name == "serving_default"
    for i, c in enumerate(resp.result.classifications):
        assert [k.label for k in c.classes] == [x.decode() for x in want["classes"][i]]
        np.testing.assert_allclose([k.score for k in c.classes], want["scores"][i], rtol=1e-5)
    req = protos.RegressionRequest()
    req.model_spec.name, req.model_spec.signature_name = "v1cls", "regress"
    for x in REC["v1cls"]["examples"]:
        req.input.example_list.examples.add().ParseFromString(_example(x))
    resp = grpc_stub.Regress(req, timeout=30)
    np.testing.assert_allclose([r.value for r in resp.result.regressions],
                               decode(REC["v1cls"]["regress"]).reshape(-1), rtol=1e-5)
    req.model_spec.signature_name = "predict"
    with pytest.raises(grpc.RpcError) as e:
        grpc_stub.Regress(req, timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_metadata_is_the_savedmodels_signature_defs(tf_server):
    status, body = tf_server.get("/v1/models/v1cls/metadata")
    assert status == 200, body
    sd = body["metadata"]["signature_def"]["signature_def"]
    assert sorted(sd) == REC["signatures"]["v1cls"]
    assert sd["serving_default"]["method_name"] == "tensorflow/serving/classify"
    assert sd["serving_default"]["inputs"]["inputs"]["name"] == "tf_example:0"  # the graph's own tensor names
    assert sd["serving_default"]["outputs"]["scores"]["name"] == "Softmax:0"
    status, body = tf_server.get("/v1/models/multi/metadata")
    sd = body["metadata"]["signature_def"]["signature_def"]
    assert "__saved_model_init_op" in sd  # TF 2 SavedModels list their init op, as TF Serving shows
    assert sd["scalar"]["outputs"]["output_0"]["tensor_shape"] == {"dim": [], "unknown_rank": False}
    assert sd["varlen"]["inputs"]["seq"]["tensor_shape"]["dim"] == [{"size": "-1", "name": ""}] * 2


def test_warmup_files_replayed(tf_server):
    log = tf_server.log()
    assert "warm/1/assets.extra/tf_serving_warmup_requests. Number of warmup records read: 3." in log
    assert "v1cls/1/assets.extra/tf_serving_warmup_requests. Number of warmup records read: 2." in log


def test_stateful_signature_counts_calls(grpc_stub):
    inputs, _ = case_inputs("ctl", "fmt")
    req = protos.PredictRequest()
    req.model_spec.name, req.model_spec.signature_name = "ctl", "fmt"
    for k, v in inputs.items():
        tensors.to_proto(v, req.inputs[k])
    a = tensors.to_numpy(grpc_stub.Predict(req, timeout=30).outputs["count"])
    b = tensors.to_numpy(grpc_stub.Predict(req, timeout=30).outputs["count"])
    assert (b == a + 1).all()
