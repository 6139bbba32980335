"""The ``tensorlet`` command: ``tensorlet demo`` (the README's main job), ``tour``, ``run``, ``serve``, ``version``."""

from __future__ import annotations

import argparse
import sys


def demo(args) -> int:
    """The README's main job (tensorlet/_src/demo.py): a Keras CNN learns MNIST offline."""
    from tensorlet._src import demo as _demo

    if args.cmd == "tour":
        return _demo.tour(args.data)
    return _demo.demo(out_dir=args.out, epochs=args.epochs, batch_size=args.batch_size, data=args.data)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="tensorlet", description="tensorlet: TensorFlow's API, eager on NumPy.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("demo", help="train a Keras CNN on the bundled MNIST sample (offline, ~20 s)")
    d.add_argument("--out", help="where the plot and TensorBoard logs go (default ./tensorlet_demo_out)")
    d.add_argument("--epochs", type=int, default=5)
    d.add_argument("--batch-size", type=int, default=32)
    d.add_argument("--data", help="an .npz with MNIST-style 'x' images and 'y' labels to use", default=None)
    t = sub.add_parser("tour", help="a short tour of tensors, dtype rules, errors and gradients")
    t.add_argument("--data", help="an .npz with MNIST-style 'x' images to use", default=None)
    sub.add_parser("version", help="print the version")
    r = sub.add_parser("run", help="run a TensorFlow program on tensorlet: tensorlet run [--v1] SCRIPT [ARGS...]")
    r.add_argument("--v1", action="store_true", help="`import tensorflow` is tf.compat.v1 (TF 1.x scripts)")
    r.add_argument("script")
    r.add_argument("args", nargs=argparse.REMAINDER)
    from tensorlet._src.saved_model import cli as saved_model_cli

    saved_model_cli.add_parser(sub)  # tensorlet saved_model show --dir DIR [--all | --tag_set T --signature_def S]
    from tensorlet._src.serving import server as serving_server

    serving_server.add_arguments(sub.add_parser("serve", help="serve SavedModels over TF Serving's REST and gRPC "
                                                              "APIs (tensorflow_model_server's flags)"))
    from tensorlet._src.tfjs import cli as tfjs_cli

    tfjs_cli.add_parser(sub)  # tensorlet export tfjs [--quantize_uint8] model.keras web_model/
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"] and len(argv) > 1 and argv[1] not in ("-h", "--help"):
        from tensorlet._src.dropin import run_script

        v1 = argv[1] == "--v1"
        rest = argv[2:] if v1 else argv[1:]
        if not rest:
            ap.parse_args(argv)  # prints the usage error
        return run_script(rest[0], rest[1:], v1=v1)
    args = ap.parse_args(argv)
    if args.cmd in ("demo", "tour"):
        return demo(args)
    if args.cmd == "saved_model":
        return saved_model_cli.main(args)
    if args.cmd == "serve":
        return serving_server.main(args)
    if args.cmd == "export":
        return tfjs_cli.main(args)
    import tensorlet

    print(tensorlet.__tensorlet_version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
