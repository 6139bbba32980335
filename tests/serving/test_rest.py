"""TF Serving's REST API against a running ``tensorlet serve`` (subprocess, loopback, http.client)."""

import base64
import json
import socket

import numpy as np
import pytest

import serving_util as su

X = [[1.0, 2.0, -1.0, 0.5], [0.0, -3.0, 2.0, 1.0]]


def test_status_lists_versions_as_tf_serving(server):
    status, body = server.get("/v1/models/mlp")
    assert status == 200
    assert body == {"model_version_status": [
        {"version": "2", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}},
        {"version": "1", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}]}
    status, body = server.get("/v1/models/mlp/versions/1")
    assert status == 200 and [v["version"] for v in body["model_version_status"]] == ["1"]
    status, body = server.get("/v1/models/mlp/labels/canary")
    assert status == 200 and [v["version"] for v in body["model_version_status"]] == ["2"]


def test_failed_version_reported_and_previous_serves(server):
    status, body = server.get("/v1/models/half")
    states = {v["version"]: v for v in body["model_version_status"]}
    assert states["1"]["state"] == "AVAILABLE"
    assert states["2"]["state"] == "END" and states["2"]["status"]["error_code"] != "OK"
    assert states["2"]["status"]["error_message"]
    status, body = server.post("/v1/models/half:predict", {"instances": X})
    assert status == 200
    np.testing.assert_allclose(body["predictions"], su.mlp_reference(np.array(X, np.float32), 5), rtol=1e-5)


def test_predict_row_and_columnar(server):
    ref = su.mlp_reference(np.array(X, np.float32), 2)  # latest version
    status, body = server.post("/v1/models/mlp:predict", {"instances": X})
    assert status == 200 and list(body) == ["predictions"]
    np.testing.assert_allclose(body["predictions"], ref, rtol=1e-5)
    status, body = server.post("/v1/models/mlp:predict", {"inputs": {"x": X}})
    assert status == 200 and list(body) == ["outputs"]
    np.testing.assert_allclose(body["outputs"], ref, rtol=1e-5)
    status, body = server.post("/v1/models/mlp:predict", {"inputs": X})  # a single input may be unnamed
    np.testing.assert_allclose(body["outputs"], ref, rtol=1e-5)
    status, body = server.post("/v1/models/mlp:predict", {"instances": [{"x": X[0]}, {"x": X[1]}]})
    np.testing.assert_allclose(body["predictions"], ref, rtol=1e-5)


def test_versions_labels_and_signature_name(server):
    x = np.array(X, np.float32)
    for path, seed in (("/v1/models/mlp/versions/1:predict", 1), ("/v1/models/mlp/labels/stable:predict", 1),
                       ("/v1/models/mlp/labels/canary:predict", 2), ("/v1/models/MLP/versions/2:PREDICT", None)):
        status, body = server.post(path, {"instances": X})
        if seed is None:  # the path regex is case-insensitive but names are not
            assert status in (400, 404), body
            continue
        assert status == 200, body
        np.testing.assert_allclose(body["predictions"], su.mlp_reference(x, seed), rtol=1e-5)
    status, body = server.post("/v1/models/mlp:predict", {"signature_name": "double", "instances": X})
    np.testing.assert_allclose(body["predictions"], 2 * x)


def test_multi_input_output_and_bytes(server):
    status, body = server.post("/v1/models/multi:predict",
                               {"instances": [{"a": [1.0, 2.0], "b": 3}, {"a": [0.5, 0.0], "b": -1}]})
    assert status == 200, body
    # several outputs: one object per row; string outputs named *_bytes come back base64-encoded
    assert body["predictions"] == [{"sum": [4.0, 5.0], "label_bytes": {"b64": base64.b64encode(b"3").decode()}},
                                   {"sum": [-0.5, -1.0], "label_bytes": {"b64": base64.b64encode(b"-1").decode()}}]
    status, body = server.post("/v1/models/multi:predict", {"inputs": {"a": [[1.0, 2.0]], "b": [7]}})
    assert body == {"outputs": {"sum": [[8.0, 9.0]], "label_bytes": [{"b64": base64.b64encode(b"7").decode()}]}}


def _serialized(feats):
    from tensorlet._src.serving import protos

    out = []
    for f in feats:
        ex = protos.Example()
        if f is not None:
            ex.features.feature["f"].float_list.value.extend(f)
        out.append(ex.SerializeToString())
    return out


def test_classify_and_regress(server):
    feats = [[1.0, 2.0], [0.5, -1.0, 3.0]]
    status, body = server.post("/v1/models/cls:classify", {"examples": [{"f": f} for f in feats]})
    assert status == 200, body
    scores = su.softmax(su.example_features(_serialized(feats)) @ su.CLASS_W)
    assert [[c[0] for c in row] for row in body["results"]] == [["a", "b", "c"]] * 2
    np.testing.assert_allclose([[c[1] for c in row] for row in body["results"]], scores, rtol=1e-5)
    status, body = server.post("/v1/models/cls:regress", {"signature_name": "regress",
                                                          "examples": [{"f": f} for f in feats]})
    assert status == 200, body
    np.testing.assert_allclose(body["results"], su.example_features(_serialized(feats))[:, 0], rtol=1e-6)
    # context features are merged into every example
    status, body = server.post("/v1/models/cls:regress", {"signature_name": "regress", "context": {"f": [1.0, 1.0]},
                                                          "examples": [{}, {}]})
    np.testing.assert_allclose(body["results"], su.example_features(_serialized([[1.0, 1.0]] * 2))[:, 0])


def test_b64_string_inputs(server):
    from tensorlet._src.serving import protos

    ex = protos.Example()
    ex.features.feature["f"].float_list.value.extend([1.0, 2.0])
    b64 = {"b64": base64.b64encode(ex.SerializeToString()).decode()}
    status, body = server.post("/v1/models/cls:predict", {"signature_name": "regress", "instances": [b64, b64]})
    assert status == 200, body
    expect = su.example_features([ex.SerializeToString()] * 2)[:, 0]
    np.testing.assert_allclose(body["predictions"], expect)


def test_metadata_is_signature_defs(server):
    status, body = server.get("/v1/models/mlp/versions/1/metadata")
    assert status == 200
    assert body["model_spec"] == {"name": "mlp", "signature_name": "", "version": "1"}
    sigs = body["metadata"]["signature_def"]["signature_def"]
    assert set(sigs) == {"serving_default", "double", "__saved_model_init_op"}  # the file's own SignatureDefs
    sd = sigs["serving_default"]
    assert sd["method_name"] == "tensorflow/serving/predict"
    assert sd["inputs"]["x"]["dtype"] == "DT_FLOAT"
    assert [d["size"] for d in sd["inputs"]["x"]["tensor_shape"]["dim"]] == ["-1", "4"]
    assert [d["size"] for d in sd["outputs"]["y"]["tensor_shape"]["dim"]] == ["-1", "3"]


@pytest.mark.parametrize("path,body,code,message", [
    ("/v1/models/mlp:predict", b"{not json", 400, "JSON Parse error"),
    ("/v1/models/mlp:predict", b"", 400, "JSON Parse error: The document is empty"),
    ("/v1/models/mlp:predict", b"[1, 2]", 400, "Is not object"),
    ("/v1/models/mlp:predict", {"instances": [[1, 2, 3]]}, 400, "expects [?,4]"),
    ("/v1/models/mlp:predict", {"instances": [[1, 2, 3, "x"]]}, 400, "is not of expected type: float"),
    ("/v1/models/mlp:predict", {"instances": [[1, 2, 3, 4], [1, 2]]}, 400, "Failed to process element: 1"),
    ("/v1/models/mlp:predict", {"instances": []}, 400, "No values in 'instances' array"),
    ("/v1/models/mlp:predict", {"instances": X, "inputs": X}, 400, "expecting only one of 'inputs' or 'instances'"),
    ("/v1/models/mlp:predict", {"foo": 1}, 400, "Missing 'inputs' or 'instances' key"),
    ("/v1/models/mlp:predict", {"signature_name": 3, "instances": X}, 400, "'signature_name' key must be a string"),
    ("/v1/models/mlp:predict", {"signature_name": "nope", "instances": X}, 400,
     'Serving signature name: "nope" not found in signature def'),
    ("/v1/models/multi:predict", {"instances": [[1, 2]]}, 400, "instances is a plain list, but expecting list of"),
    ("/v1/models/multi:predict", {"inputs": {"a": [[1.0, 2.0]]}}, 400, "Missing named input: b in 'inputs' object."),
    ("/v1/models/multi:predict", {"inputs": {"a": [[1.0, 2.0]], "b": [1.5]}}, 400, "is not of expected type: int64"),
    ("/v1/models/nope:predict", {"instances": X}, 404, "Servable not found for request: Latest(nope)"),
    ("/v1/models/mlp/versions/9:predict", {"instances": X}, 404, "Servable not found for request: Specific(mlp, 9)"),
    ("/v1/models/mlp/labels/beta:predict", {"instances": X}, 400, "Unrecognized servable version label: beta"),
    ("/v1/models/mlp:explain", {"instances": X}, 400, "Malformed request: POST /v1/models/mlp:explain"),
    ("/v1/models/raiser:predict", {"instances": [-1.0]}, 400, "x must be non-negative"),
    ("/v1/models/mlp:classify", {"examples": [{"f": [1.0]}]}, 400,
     "Expected classification signature method_name to be tensorflow/serving/classify"),
])
def test_errors_are_tf_serving_answers(server, path, body, code, message):
    status, raw = server.request("POST", path, body)
    assert status == code, raw
    err = json.loads(raw)
    assert list(err) == ["error"] and message in err["error"], err


def test_get_errors(server):
    status, body = server.get("/v1/models")
    assert status == 400 and body == {"error": "Missing model name in request."}
    status, body = server.get("/v1/models/nope")
    assert status == 404 and body == {"error": "Could not find any versions of model nope"}
    status, body = server.get("/v1/models/mlp/versions/7")
    assert status == 404 and body == {"error": "Could not find version 7 of model mlp"}


def test_server_survives_abuse(server):
    # a client that disconnects mid-body, one that sends garbage, one that declares a huge body
    for payload in (b"POST /v1/models/mlp:predict HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"inst",
                    b"\x00\x01garbage\r\n\r\n",
                    b"POST /v1/models/mlp:predict HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n"):
        with socket.create_connection((su.HOST, server.rest), timeout=10) as s:
            s.sendall(payload)
    status, body = server.post("/v1/models/raiser:predict", {"instances": [1.0, 2.0]})
    assert status == 200 and body == {"predictions": [2.0, 4.0]}


def test_prometheus_metrics(server):
    server.post("/v1/models/mlp:predict", {"instances": X})
    server.post("/v1/models/nope:predict", {"instances": X})
    status, raw = server.request("GET", "/monitoring/prometheus/metrics")
    text = raw.decode()
    assert status == 200
    assert "# TYPE :tensorflow:serving:request_count counter" in text
    assert ':tensorflow:serving:request_count{model_name="mlp",status="OK"}' in text
    assert ':tensorflow:serving:request_count{model_name="nope",status="NOT_FOUND"} ' in text
    assert ':tensorflow:serving:request_latency_bucket{model_name="mlp",API="predict",entrypoint="REST",le=' in text
    assert ':tensorflow:cc:saved_model:load_attempt_count{model_path=' in text


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_serves_savedmodel_written_by_tensorflow(server, name):
    """Keras 3 ``model.export()`` SavedModels recorded by real TF (tools/record_tf_goldens/tf_saved_models.py)."""
    with open(f"{su.TF_SAVED_MODELS}/values.json") as f:
        rec = json.load(f)[name]
    x = np.array(rec["x"]["values"], np.float32).reshape(rec["x"]["shape"])
    want = rec["serving_default"]["output_0"]
    status, body = server.post(f"/v1/models/tf_{name}:predict", {"instances": x.tolist()})
    assert status == 200, body
    np.testing.assert_allclose(body["predictions"], np.reshape(want["values"], want["shape"]), rtol=1e-5, atol=1e-6)
    status, meta = server.get(f"/v1/models/tf_{name}/metadata")
    sig = meta["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert list(sig["inputs"]) == [{"mlp": "features", "cnn": "keras_tensor_2"}[name]]
