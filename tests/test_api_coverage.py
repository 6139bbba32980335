"""How much of TF 2.21's public API tensorlet has.

The names come from real TensorFlow (tools/record_tf_goldens/tf_api_names.py -> tests/goldens/tf_api_names.txt:
every name under ``tf.*`` except ``tf.raw_ops``, ``tf.compat`` and ``tf.keras``).  A name counts when ``tf.<name>``
resolves in tensorlet and is not a stub: names that resolve to api_missing's NotImplementedInTensorlet (an
AttributeError) are missing, and so is a function whose whole body is one ``raise``.

``python tests/test_api_coverage.py [module]`` prints the figure per module and the missing names.
"""

from __future__ import annotations

import ast
import collections
import importlib
import inspect
import os
import sys
import textwrap
import types

NAMES = os.path.join(os.path.dirname(__file__), "goldens", "tf_api_names.txt")
# The figure reached so far; the test fails if coverage drops below it (raise it as names are added).
FLOOR = 1731  # 1,736 of 1,781 names (97.5%) on 2026-12-02, minus 5 (was 872 = 49.0% before issue 15)


def tf_names() -> list[str]:
    with open(NAMES) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def _is_stub(obj) -> bool:
    """A function whose body (after its docstring) is a single ``raise``."""
    fn = obj if isinstance(obj, types.FunctionType) else None
    if fn is None:
        return False
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(src)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return False
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(getattr(s, "value", None),
                                                                              ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def resolve(name: str):
    """(found, value) for ``tf.<name>`` in tensorlet."""
    obj = importlib.import_module("tensorlet")
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return False, None
        except Exception:  # noqa: BLE001  (a lazy module that fails to import does not count)
            return False, None
    return not _is_stub(obj), obj


def coverage():
    have, missing = [], []
    for n in tf_names():
        (have if resolve(n)[0] else missing).append(n)
    return have, missing


def test_api_coverage_figure():
    have, missing = coverage()
    total = len(have) + len(missing)
    pct = 100.0 * len(have) / total
    print(f"\ntensorlet has {len(have)} of {total} TF public names ({pct:.1f}%)")
    assert total > 1500, "tests/goldens/tf_api_names.txt looks truncated"
    assert len(have) >= FLOOR, f"API coverage dropped: {len(have)} names < {FLOOR} reached before; missing now: " \
        f"{[n for n in missing][:40]}"


def test_stub_detection():
    def stub(x):
        """doc"""
        raise NotImplementedError("no")

    def real(x):
        if x:
            raise ValueError("x")
        return x

    assert _is_stub(stub) and not _is_stub(real)
    assert resolve("no_such_name_in_tf") == (False, None)
    assert resolve("math.add")[0]


def main(argv):
    have, missing = coverage()
    by = collections.defaultdict(lambda: [0, 0])
    for n in have:
        by[n.rsplit(".", 1)[0] if "." in n else ""][0] += 1
    for n in missing:
        by[n.rsplit(".", 1)[0] if "." in n else ""][1] += 1
    total = len(have) + len(missing)
    print(f"{len(have)} of {total} ({100.0 * len(have) / total:.1f}%)")
    for mod, (h, m) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        if m:
            print(f"  tf.{mod or '<top>'}: {h}/{h + m}, missing {m}")
    want = argv[1] if len(argv) > 1 else None
    if want is not None:
        for n in missing:
            if (n.rsplit(".", 1)[0] if "." in n else "") == want.removeprefix("tf.").replace("<top>", ""):
                print("   ", n)


if __name__ == "__main__":
    main(sys.argv)
