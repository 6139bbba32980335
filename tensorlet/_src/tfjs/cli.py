"""``tensorlet export tfjs``: ``tensorflowjs_converter``'s main options for Keras models.

    tensorlet export tfjs --input_format keras model.keras web_model/ [--quantize_uint8 [PATTERNS]]
"""

from __future__ import annotations

import argparse
import sys

from tensorlet._src.tfjs.layers_format import DEFAULT_SHARD, save_keras_model


def add_parser(sub):
    e = sub.add_parser("export", help="export a model for another runtime (tfjs: TensorFlow.js Layers format)")
    esub = e.add_subparsers(dest="export_target", required=True)
    t = esub.add_parser("tfjs", help="Keras model (.keras/.h5) -> TF.js Layers model (model.json + shards)")
    t.add_argument("input_path")
    t.add_argument("output_path")
    t.add_argument("--input_format", default="keras", choices=["keras", "keras_saved_model", "tf_saved_model",
                                                               "keras_keras", "tfjs_layers_model"])
    t.add_argument("--output_format", default="tfjs_layers_model",
                   choices=["tfjs_layers_model", "tfjs_graph_model", "keras"])
    for bits in ("float16", "uint8", "uint16"):
        t.add_argument(f"--quantize_{bits}", nargs="?", const="*", default=None, metavar="PATTERNS",
                       help=f"store float32 weights as {bits} (all, or comma-separated weight-name wildcards)")
    t.add_argument("--weight_shard_size_bytes", type=int, default=DEFAULT_SHARD)
    t.add_argument("--signature_name", default=None)
    t.add_argument("--saved_model_tags", default="serve")
    return e


def main(args) -> int:
    if args.output_format != "tfjs_layers_model":
        print(f"tensorlet export tfjs: --output_format={args.output_format} is not supported yet (only "
              "tfjs_layers_model, from a Keras model).", file=sys.stderr)
        return 2
    if args.input_format not in ("keras", "keras_keras"):
        print(f"tensorlet export tfjs: --input_format={args.input_format} is not supported yet; save the model "
              "with model.save('model.keras') and use --input_format keras.", file=sys.stderr)
        return 2
    from tensorlet._src.keras.saving.saving_api import load_model

    model = load_model(args.input_path)
    qmap = {}
    for bits in ("float16", "uint8", "uint16"):
        v = getattr(args, f"quantize_{bits}")
        if v is not None:
            qmap[bits] = True if v == "*" else [p for p in v.split(",") if p]
    if len(qmap) > 1 and any(v is True for v in qmap.values()):
        print("tensorlet export tfjs: only one of --quantize_float16/uint8/uint16 may apply to all weights.",
              file=sys.stderr)
        return 2
    path = save_keras_model(model, args.output_path, quantization_dtype_map=qmap,
                            weight_shard_size_bytes=args.weight_shard_size_bytes)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    ap = argparse.ArgumentParser(prog="tensorlet export")
    add_parser(ap.add_subparsers(dest="cmd"))
    sys.exit(main(ap.parse_args()))
