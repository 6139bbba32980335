"""TF.js Graph-model export checked two ways: its structure against what tensorflowjs_converter writes for the same
models (tests/goldens/tfjs_graph.json, recorded by tools/record_tf_goldens/tfjs_graph.py: node names abstracted
away, ops/devices/attrs/inputs compared exactly), and its predictions in real TF.js (@tensorflow/tfjs under Node,
tf.loadGraphModel through a file IOHandler: tests/tfjs/predict_graph.js) against tensorlet's and TF's."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import tensorlet as tf
from tensorlet._src import cli
from tfjs_graph_cases import NAMES, build, fused_bn, randomize, structure

keras = tf.keras
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDENS = os.path.join(HERE, "..", "goldens")
TF_SM = os.path.join(GOLDENS, "tf_saved_model")
NODE = shutil.which("node")
TFJS = os.path.join(HERE, "node_modules", "@tensorflow", "tfjs")
GOLD = json.load(open(os.path.join(GOLDENS, "tfjs_graph.json")))["models"]
TF_VALUES = json.load(open(os.path.join(TF_SM, "values.json")))
needs_tfjs = pytest.mark.skipif(
    NODE is None or not os.path.isdir(TFJS),
    reason="needs node and @tensorflow/tfjs (run `npm ci` in tests/tfjs)" if NODE else "node is not installed")
convert = tf.tfjs.converters.convert_tf_saved_model


def tfjs_run(tmp_path, jobs):
    """[(model_dir, x)] -> TF.js results (dicts with the output array as "y")."""
    specs = []
    for k, (d, x) in enumerate(jobs):
        inp = str(tmp_path / f"x{k}.bin")
        np.ascontiguousarray(x, "<f4").tofile(inp)
        specs.append({"dir": str(d), "input": inp, "shape": list(x.shape)})
    job_file = tmp_path / "jobs.json"
    job_file.write_text(json.dumps(specs))
    r = subprocess.run([NODE, os.path.join(HERE, "predict_graph.js"), str(job_file)], capture_output=True,
                       text=True, cwd=HERE, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    for o in out:
        assert "error" not in o, o["error"]
        o["y"] = np.asarray(o["values"], np.float32).reshape(o["shape"])
    return out


def check_like_converter(doc, gold, same_keys):
    assert doc["format"] == gold["format"] == "graph-model"
    assert sorted(doc) == gold["keys"]
    assert structure(doc) == gold["structure"]
    assert [[w["shape"], w["dtype"]] for g in doc["weightsManifest"] for w in g["weights"]] == gold["weights"]
    assert doc["modelTopology"]["versions"] == gold["versions"] and doc["modelTopology"]["library"] == gold["library"]
    sig = {side: {k: [v["dtype"], v["tensorShape"]] for k, v in doc["signature"][side].items()}
           for side in ("inputs", "outputs")}
    if same_keys:
        assert sig == gold["signature"]
    else:
        assert [sorted(v.values(), key=str) for v in sig.values()] == \
            [sorted(v.values(), key=str) for v in gold["signature"].values()]
    assert sorted(v["name"] for v in doc["signature"]["outputs"].values()) == gold["output_names"]
    consts = [n["name"] for n in doc["modelTopology"]["node"] if n["op"] == "Const"]
    assert [w["name"] for g in doc["weightsManifest"] for w in g["weights"]] == consts
    assert all("tensorContent" not in n["attr"]["value"]["tensor"] for n in doc["modelTopology"]["node"]
               if n["op"] == "Const")


@needs_tfjs
def test_graph_models_match_converter_and_predict_in_tfjs(tmp_path):
    jobs, refs = [], []
    for name in NAMES:
        model = randomize(build(tf, name))
        sm, web = tmp_path / f"{name}_sm", tmp_path / f"{name}_web"
        model.export(str(sm), verbose=False)
        path = convert(str(sm), str(web))
        doc = json.load(open(path))
        check_like_converter(doc, GOLD[name], same_keys=False)
        x = np.random.default_rng(1).random((3,) + tuple(model.inputs[0].shape[1:]), dtype=np.float32)
        jobs.append((web, x))
        refs.append(model.predict(x, verbose=0))
    for name, o, ref in zip(("mlp", "cnn", "bn", "nobias"), tfjs_run(tmp_path, jobs), refs):
        assert o["outputs"] == ["Identity"]
        np.testing.assert_allclose(o["y"], ref, atol=1e-5, err_msg=name)


@needs_tfjs
def test_fused_batch_norm_folds_into_the_convolution(tmp_path):
    m = fused_bn(tf)
    sm = str(tmp_path / "sm")
    tf.saved_model.save(m, sm, signatures=m.__call__.get_concrete_function())
    doc = json.load(open(convert(sm, str(tmp_path / "web"))))
    check_like_converter(doc, GOLD["fused_bn"], same_keys=True)
    x = np.random.default_rng(8).normal(size=(2, 6, 6, 2)).astype(np.float32)
    (o,) = tfjs_run(tmp_path, [(tmp_path / "web", x)])
    np.testing.assert_allclose(o["y"], m(tf.constant(x))["y"].numpy(), atol=1e-5)


@needs_tfjs
def test_tf_written_saved_models_convert_like_tensorflowjs(tmp_path):
    """SavedModels written by real TF (zero biases: the adds disappear, as grappler drops them); TF.js gives TF's
    own serving_default outputs."""
    jobs, refs = [], []
    for name in ("mlp", "cnn", "mlp_saved"):
        web = tmp_path / name
        doc = json.load(open(convert(os.path.join(TF_SM, name), str(web))))
        check_like_converter(doc, GOLD[f"tf_{name}"], same_keys=True)
        assert doc["generatedBy"] == "2.21.0"
        v = TF_VALUES[name]
        jobs.append((web, np.asarray(v["x"]["values"], np.float32).reshape(v["x"]["shape"])))
        (out,) = v["serving_default"].values()
        refs.append(np.asarray(out["values"], np.float32).reshape(out["shape"]))
    for o, ref in zip(tfjs_run(tmp_path, jobs), refs):
        np.testing.assert_allclose(o["y"], ref, atol=1e-5)


@needs_tfjs
def test_cli_quantized_sharded_and_python_entry_points(tmp_path):
    model = randomize(build(tf, "cnn"))
    sm = str(tmp_path / "sm")
    model.export(sm, verbose=False)
    u8, f16 = tmp_path / "u8", tmp_path / "f16"
    assert cli.main(["export", "tfjs", "--input_format=tf_saved_model", "--output_format=tfjs_graph_model",
                     "--signature_name", "serving_default", "--saved_model_tags", "serve", "--quantize_uint8",
                     "--weight_shard_size_bytes", "4096", sm, str(u8)]) == 0
    group = json.load(open(u8 / "model.json"))["weightsManifest"][0]
    sizes = [os.path.getsize(u8 / p) for p in group["paths"]]
    assert len(sizes) > 1 and all(s == 4096 for s in sizes[:-1]) and 0 < sizes[-1] <= 4096
    q = [w.get("quantization", {}).get("dtype") for w in group["weights"]]
    assert q == ["uint8" if w["dtype"] == "float32" else None for w in group["weights"]]
    assert sum(sizes) < 0.3 * sum(4 * int(np.prod(w["shape"])) for w in group["weights"])
    assert cli.main(["export", "tfjs", "--input_format", "tf_saved_model", "--quantize_float16", "*kernel*",
                     "--use_structured_outputs_names", sm, str(f16)]) == 0
    doc = json.load(open(f16 / "model.json"))
    assert doc["userDefinedMetadata"] == {"structuredOutputKeys": ["output_0"]}
    f16_names = {w["name"] for w in doc["weightsManifest"][0]["weights"] if "quantization" in w}
    assert f16_names and all("kernel" in n for n in f16_names)
    # a Keras model and a concrete function, written straight from Python
    mlp = randomize(build(tf, "mlp"))
    kdir, fdir = tmp_path / "keras", tmp_path / "fn"
    tf.tfjs.converters.convert_keras_model_to_graph_model(mlp, str(kdir), metadata={"task": {"classes": 3}})
    w = tf.Variable(np.random.default_rng(5).normal(size=(4, 2)).astype(np.float32))
    b = tf.Variable([0.5, -0.25])

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def f(x):
        return tf.nn.sigmoid(tf.matmul(x, w) + b)

    tf.tfjs.converters.convert_concrete_function(f.get_concrete_function(), str(fdir))
    fdoc = json.load(open(fdir / "model.json"))
    assert [n["op"] for n in fdoc["modelTopology"]["node"]] == ["Const", "Const", "Placeholder", "_FusedMatMul",
                                                                "Identity"]
    x28 = np.random.default_rng(2).random((2, 28, 28, 1), dtype=np.float32)
    x4 = np.random.default_rng(3).random((5, 4), dtype=np.float32)
    o_u8, o_f16, o_k, o_f = tfjs_run(tmp_path, [(u8, x28), (f16, x28), (kdir, x4), (fdir, x4)])
    ref = model.predict(x28, verbose=0)
    np.testing.assert_allclose(o_u8["y"], ref, atol=0.03)
    np.testing.assert_allclose(o_f16["y"], ref, atol=2e-3)
    np.testing.assert_allclose(o_k["y"], mlp.predict(x4, verbose=0), atol=1e-5)
    assert o_k["metadata"] == {"task": {"classes": 3}}
    np.testing.assert_allclose(o_f["y"], f(tf.constant(x4)).numpy(), atol=1e-5)


def test_bad_inputs_are_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match=r"Signature 'nope' does not exist.*serving_default"):
        convert(os.path.join(TF_SM, "mlp"), str(tmp_path / "a"), signature_def="nope")
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        convert(str(tmp_path / "missing"), str(tmp_path / "b"))
    with pytest.raises(ValueError, match="weight_shard_size_bytes"):
        convert(os.path.join(TF_SM, "mlp"), str(tmp_path / "c"), weight_shard_size_bytes=0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def branchy(x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)

    with pytest.raises(ValueError, match="without control flow.*If"):
        tf.tfjs.converters.convert_concrete_function(branchy.get_concrete_function(), str(tmp_path / "d"))
    assert cli.main(["export", "tfjs", "--input_format", "tf_saved_model", "--output_format", "tfjs_layers_model",
                     os.path.join(TF_SM, "mlp"), str(tmp_path / "e")]) == 2
    assert cli.main(["export", "tfjs", "--input_format", "tf_saved_model", "--signature_name", "nope",
                     os.path.join(TF_SM, "mlp"), str(tmp_path / "f")]) == 2


def test_signature_name_picks_another_signature(tmp_path):
    out = tmp_path / "bump"
    assert cli.main(["export", "tfjs", "--input_format=tf_saved_model", "--signature_name=bump",
                     os.path.join(TF_SM, "module"), str(out)]) == 0
    doc = json.load(open(out / "model.json"))
    assert list(doc["signature"]["inputs"]) == ["d"] and doc["signature"]["inputs"]["d"]["name"] == "d:0"
    # bump(d) = (steps + d) * 2 with steps saved as 0: the add of a zero constant is dropped, as grappler drops it
    assert [n["op"] for n in doc["modelTopology"]["node"]] == ["Const", "Placeholder", "Mul", "Identity"]
