"""Records which ``tf.compat.v1`` names are the same objects as TF 2 names (run with the TF venv).

Writes tensorlet/_src/compat/_v1_names.py: ``SAME`` maps each v1 path to the TF 2 path of the identical object
(``"log": "math.log"``); ``OWN`` lists the v1 paths whose object TF 2 does not expose (v1-only behaviour).

    /work/tfenv/bin/python tools/record_tf_goldens/compat_v1_names.py
"""

import os
import pprint
import types

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = ("compat", "keras", "raw_ops", "estimator", "contrib")


def names(mod):
    try:
        return sorted(n for n in dir(mod) if not n.startswith("_"))
    except Exception:  # a lazily loaded module that fails to load
        return []


def walk(mod, prefix, seen, visit, depth=0):
    for n in names(mod):
        try:
            obj = getattr(mod, n)
        except Exception:
            continue
        path = prefix + n
        if isinstance(obj, types.ModuleType):
            if depth == 0 and n in SKIP or id(obj) in seen or depth > 3:
                continue
            if not getattr(obj, "__name__", "").startswith("tensorflow._api."):
                continue  # an implementation module re-exported by accident (absl flags' helpers, inspect, ...)
            seen.add(id(obj))
            walk(obj, path + ".", seen, visit, depth + 1)
        else:
            visit(path, obj)


def lookup(path):
    o = tf
    for part in path.split("."):
        o = getattr(o, part, None)
        if o is None:
            return None
    return o


def signature(f):
    import inspect

    try:
        params = [(p.name, p.kind, repr(p.default)) for p in inspect.signature(f).parameters.values()]
    except (TypeError, ValueError):
        return None
    # (*args, **kwargs) says nothing: a wrapper or a class built by a metaclass
    return params if any(k not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
                         for _, k, _ in params) else None


def main():
    v2 = {}

    def index(path, obj):
        if isinstance(obj, (int, float, str, bool)) and not isinstance(obj, bool) or obj is None:
            return
        old = v2.get(id(obj))
        if old is None or (path.count("."), len(path)) < (old.count("."), len(old)):
            v2[id(obj)] = path

    walk(tf, "", {id(tf)}, index)
    same, own = {}, []

    def visit(path, obj):
        target = v2.get(id(obj))
        if target is None:
            # a v1 wrapper of a TF 2 function with the very same parameters (deprecation wrappers) counts as the same
            o = lookup(path)
            if o is not None and callable(o) and callable(obj) and signature(o) == signature(obj) is not None:
                same[path] = path
            else:
                own.append(path)
            return
        # prefer the same path when TF 2 has the object there too
        try:
            o = tf
            for part in path.split("."):
                o = getattr(o, part)
            if o is obj:
                target = path
        except AttributeError:
            pass
        same[path] = target

    v1 = tf.compat.v1
    walk(v1, "", {id(v1), id(tf.compat), id(tf)}, visit)
    out = os.path.join(ROOT, "tensorlet", "_src", "compat", "_v1_names.py")
    with open(out, "w") as f:
        f.write('"""tf.compat.v1 names recorded from TensorFlow 2.21 (tools/record_tf_goldens/compat_v1_names.py).\n\n'
                'SAME: v1 path -> TF 2 path of the identical object.  OWN: v1 paths whose object TF 2 lacks.\n"""\n'
                "# ruff: noqa: E501\n\n")
        f.write("SAME = " + pprint.pformat(same, width=120, compact=True) + "\n\n")
        f.write("OWN = " + pprint.pformat(sorted(own), width=120, compact=True) + "\n")
    print(len(same), "same,", len(own), "own ->", out)


if __name__ == "__main__":
    main()
