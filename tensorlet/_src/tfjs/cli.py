"""``tensorlet export tfjs``: ``tensorflowjs_converter``'s main options.

    tensorlet export tfjs --input_format keras model.keras web_model/ [--quantize_uint8 [PATTERNS]]
    tensorlet export tfjs --input_format tf_saved_model [--output_format tfjs_graph_model] saved_model/ web_model/
        [--signature_name serving_default] [--saved_model_tags serve] [--quantize_float16 [PATTERNS]]
        [--weight_shard_size_bytes N]

Keras models become Layers models, TF-format SavedModels Graph models; a Keras model can also be written as a
Graph model (``--output_format tfjs_graph_model``), as tensorflowjs_converter allows.
"""

from __future__ import annotations

import argparse
import sys

from tensorlet._src.tfjs.layers_format import DEFAULT_SHARD, save_keras_model


def add_parser(sub):
    e = sub.add_parser("export", help="export a model for another runtime (tfjs: TensorFlow.js)")
    esub = e.add_subparsers(dest="export_target", required=True)
    t = esub.add_parser("tfjs", help="Keras model -> TF.js Layers model, TF SavedModel -> TF.js Graph model "
                                     "(model.json + shards)")
    t.add_argument("input_path")
    t.add_argument("output_path")
    t.add_argument("--input_format", default="keras", choices=["keras", "keras_saved_model", "tf_saved_model",
                                                               "keras_keras", "tfjs_layers_model"])
    t.add_argument("--output_format", default=None,
                   choices=["tfjs_layers_model", "tfjs_graph_model", "keras"],
                   help="default: tfjs_layers_model for Keras input, tfjs_graph_model for tf_saved_model")
    for bits in ("float16", "uint8", "uint16"):
        t.add_argument(f"--quantize_{bits}", nargs="?", const="*", default=None, metavar="PATTERNS",
                       help=f"store float32 weights as {bits} (all, or comma-separated weight-name wildcards)")
    t.add_argument("--weight_shard_size_bytes", type=int, default=DEFAULT_SHARD)
    t.add_argument("--signature_name", default=None, help="SavedModel signature to convert (serving_default)")
    t.add_argument("--saved_model_tags", default="serve", help="comma-separated MetaGraphDef tags (serve)")
    t.add_argument("--metadata", default=None, metavar="KEY:FILE.json,...",
                   help="user-defined metadata: JSON files stored under userDefinedMetadata[KEY]")
    t.add_argument("--use_structured_outputs_names", action="store_true",
                   help="graph models: record the signature's output keys (structuredOutputKeys)")
    return e


def _fail(msg) -> int:
    print(f"tensorlet export tfjs: {msg}", file=sys.stderr)
    return 2


def _metadata(spec):
    import json

    out = {}
    for item in (spec or "").split(","):
        if not item:
            continue
        key, sep, path = item.partition(":")
        if not sep or not key or not path:
            raise ValueError(f"--metadata entries are KEY:FILE.json; got {item!r}")
        with open(path, encoding="utf-8") as f:
            out[key] = json.load(f)
    return out


def main(args) -> int:
    keras_in = args.input_format in ("keras", "keras_keras")
    out_format = args.output_format or ("tfjs_graph_model" if args.input_format == "tf_saved_model"
                                        else "tfjs_layers_model")
    if args.input_format == "tf_saved_model" and out_format != "tfjs_graph_model":
        return _fail(f"--input_format=tf_saved_model converts to tfjs_graph_model only; got "
                     f"--output_format={out_format}.")
    if not keras_in and args.input_format != "tf_saved_model":
        return _fail(f"--input_format={args.input_format} is not supported; save the model with "
                     "model.save('model.keras') (--input_format keras) or model.export('dir') "
                     "(--input_format tf_saved_model).")
    if keras_in and out_format not in ("tfjs_layers_model", "tfjs_graph_model"):
        return _fail(f"--output_format={out_format} is not supported for Keras input (use tfjs_layers_model or "
                     "tfjs_graph_model).")
    qmap = {}
    for bits in ("float16", "uint8", "uint16"):
        v = getattr(args, f"quantize_{bits}")
        if v is not None:
            qmap[bits] = True if v == "*" else [p for p in v.split(",") if p]
    if len(qmap) > 1 and any(v is True for v in qmap.values()):
        return _fail("only one of --quantize_float16/uint8/uint16 may apply to all weights.")
    try:
        metadata = _metadata(args.metadata)
    except (OSError, ValueError) as e:
        return _fail(str(e))
    common = {"quantization_dtype_map": qmap, "weight_shard_size_bytes": args.weight_shard_size_bytes,
              "metadata": metadata or None}
    try:
        if args.input_format == "tf_saved_model":
            from tensorlet._src.tfjs.graph_model import convert_tf_saved_model

            path = convert_tf_saved_model(args.input_path, args.output_path,
                                          signature_def=args.signature_name or "serving_default",
                                          saved_model_tags=args.saved_model_tags,
                                          use_structured_outputs_names=args.use_structured_outputs_names, **common)
        else:
            from tensorlet._src.keras.saving.saving_api import load_model

            model = load_model(args.input_path)
            if out_format == "tfjs_graph_model":
                from tensorlet._src.tfjs.graph_model import convert_keras_model_to_graph_model

                path = convert_keras_model_to_graph_model(model, args.output_path, **common)
            else:
                path = save_keras_model(model, args.output_path, **common)
    except (OSError, ValueError) as e:
        return _fail(str(e))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    ap = argparse.ArgumentParser(prog="tensorlet export")
    add_parser(ap.add_subparsers(dest="cmd"))
    sys.exit(main(ap.parse_args()))
