"""Check ``tensorlet serve`` with TF Serving's official client stubs (``tensorflow-serving-api``).

The official ``*_pb2`` modules import TensorFlow's generated protos, so this runs under a Python that has
``tensorflow`` and ``tensorflow-serving-api`` (not in CI). It writes a SavedModel with real TensorFlow, starts
``tensorlet serve`` with tensorlet's Python on loopback, and talks to it with the official gRPC stubs:
Predict (outputs compared with TF's own call of the model), GetModelMetadata (SignatureDefMap unpacked with
TF's messages), GetModelStatus, HandleReloadConfigRequest, and the error codes of bad requests.

    /work/tfvenv/bin/python tools/serving_official_client.py --tensorlet-python /work/venv/bin/python
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tensorlet-python", default=os.path.join(os.path.dirname(ROOT), "venv", "bin", "python"))
    args = ap.parse_args()

    import grpc
    import numpy as np
    import tensorflow as tf
    from tensorflow_serving.apis import (get_model_metadata_pb2, get_model_status_pb2, model_management_pb2,
                                         model_service_pb2_grpc, predict_pb2, prediction_service_pb2_grpc)

    tmp = tempfile.mkdtemp(prefix="tfs_official_")

    class Net(tf.Module):
        def __init__(self):
            self.w = tf.Variable(np.random.default_rng(0).normal(size=(4, 3)).astype("float32"))

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
        def serve(self, x):
            return {"probs": tf.nn.softmax(tf.matmul(x, self.w)), "top": tf.argmax(x, axis=1)}

    net = Net()
    tf.saved_model.save(net, os.path.join(tmp, "net", "1"), signatures={"serving_default": net.serve})
    cfg = os.path.join(tmp, "models.config")
    with open(cfg, "w") as f:
        f.write(f'model_config_list {{ config {{ name: "net" base_path: "{tmp}/net" model_platform: "tensorflow" }} }}')
    grpc_port, rest_port = _port(), _port()
    env = dict(os.environ, PYTHONPATH=ROOT)
    log = open(os.path.join(tmp, "server.log"), "wb")
    proc = subprocess.Popen([args.tensorlet_python, "-m", "tensorlet", "serve", "--host=127.0.0.1",
                             f"--port={grpc_port}", f"--rest_api_port={rest_port}", f"--model_config_file={cfg}"],
                            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    checks = []

    def check(name, ok, detail=""):
        checks.append((name, bool(ok)))
        print(f"{'PASS' if ok else 'FAIL'} {name} {detail}")

    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
        grpc.channel_ready_future(channel).result(timeout=120)
        ps = prediction_service_pb2_grpc.PredictionServiceStub(channel)
        ms = model_service_pb2_grpc.ModelServiceStub(channel)
        x = np.random.default_rng(1).normal(size=(5, 4)).astype("float32")
        req = predict_pb2.PredictRequest()
        req.model_spec.name = "net"
        req.inputs["x"].CopyFrom(tf.make_tensor_proto(x))
        for _ in range(600):  # the gRPC port opens before the model is loaded
            try:
                resp = ps.Predict(req, timeout=30)
                break
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.NOT_FOUND:
                    raise
                time.sleep(0.1)
        want = net.serve(tf.constant(x))
        check("Predict probs == TF", np.allclose(tf.make_ndarray(resp.outputs["probs"]), want["probs"].numpy(),
                                                 rtol=1e-5))
        check("Predict top == TF (int64)", (tf.make_ndarray(resp.outputs["top"]) == want["top"].numpy()).all())
        check("Predict model_spec", resp.model_spec.name == "net" and resp.model_spec.version.value == 1,
              str(resp.model_spec).replace("\n", " "))

        mreq = get_model_metadata_pb2.GetModelMetadataRequest()
        mreq.model_spec.name = "net"
        mreq.metadata_field.append("signature_def")
        mresp = ps.GetModelMetadata(mreq, timeout=30)
        sdm = get_model_metadata_pb2.SignatureDefMap()
        check("GetModelMetadata Any unpacks to TF's SignatureDefMap", mresp.metadata["signature_def"].Unpack(sdm))
        sd = sdm.signature_def["serving_default"]
        check("SignatureDef inputs/outputs", set(sd.inputs) == {"x"} and set(sd.outputs) == {"probs", "top"}
              and sd.inputs["x"].dtype == tf.float32.as_datatype_enum
              and [d.size for d in sd.inputs["x"].tensor_shape.dim] == [-1, 4])

        sreq = get_model_status_pb2.GetModelStatusRequest()
        sreq.model_spec.name = "net"
        sresp = ms.GetModelStatus(sreq, timeout=30)
        check("GetModelStatus AVAILABLE", [(s.version, s.state) for s in sresp.model_version_status] ==
              [(1, get_model_status_pb2.ModelVersionStatus.AVAILABLE)], str(sresp).replace("\n", " "))

        rreq = model_management_pb2.ReloadConfigRequest()
        c = rreq.config.model_config_list.config.add()
        c.name, c.base_path, c.model_platform = "net2", f"{tmp}/net", "tensorflow"
        c.model_version_policy.specific.versions.append(1)
        c.version_labels["stable"] = 1
        rresp = ms.HandleReloadConfigRequest(rreq, timeout=120)
        check("HandleReloadConfigRequest OK", rresp.status.error_code == 0, rresp.status.error_message)
        req.model_spec.name, req.model_spec.version_label = "net2", "stable"
        resp = ps.Predict(req, timeout=30)
        check("Predict by label after reload", resp.model_spec.name == "net2"
              and np.allclose(tf.make_ndarray(resp.outputs["probs"]), want["probs"].numpy(), rtol=1e-5))

        req.model_spec.name = "net"  # no longer in the config
        req.model_spec.ClearField("version_label")
        try:
            ps.Predict(req, timeout=30)
            check("unknown model -> NOT_FOUND", False)
        except grpc.RpcError as e:
            check("unknown model -> NOT_FOUND", e.code() == grpc.StatusCode.NOT_FOUND, e.details())
        req.model_spec.name = "net2"
        req.inputs["x"].CopyFrom(tf.make_tensor_proto(x.astype("float64")))
        try:
            ps.Predict(req, timeout=30)
            check("wrong dtype -> INVALID_ARGUMENT", False)
        except grpc.RpcError as e:
            check("wrong dtype -> INVALID_ARGUMENT", e.code() == grpc.StatusCode.INVALID_ARGUMENT, e.details())
    finally:
        proc.terminate()
        rc = proc.wait(60)
        check("SIGTERM -> clean exit", rc == 0, f"rc={rc}")
        log.close()
    failed = [n for n, ok in checks if not ok]
    print(f"{len(checks) - len(failed)} passed, {len(failed)} failed")
    if failed:
        with open(os.path.join(tmp, "server.log"), errors="replace") as f:
            print(f.read()[-4000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
