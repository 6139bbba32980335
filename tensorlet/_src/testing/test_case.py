"""``tf.test.TestCase``: ``unittest.TestCase`` with TF's assertions on tensors and nested structures.

``assertAllClose`` and friends accept tensors, NumPy arrays, Python numbers, lists, RaggedTensors and nested
dicts/tuples/lists of them (compared leaf by leaf, with the path of a mismatch in the message, as TF does);
``evaluate`` turns tensors (and nested structures of them) into NumPy values.  ``setUp`` seeds the global
random state as TF does (``tf.random.set_seed(87654321)``, NumPy and ``random`` too).
"""

from __future__ import annotations

import collections.abc
import contextlib
import os
import random
import re
import tempfile
import unittest

import numpy as np

from tensorlet._src.framework import dtypes as _dt
from tensorlet._src.framework import errors as _errors
from tensorlet._src.framework.api_export import tf_export
from tensorlet._src.framework.tensor import Tensor
from tensorlet._src.ops import random_gen
from tensorlet._src.util import nest

__all__ = ["TestCase"]


def _to_numpy(x):
    if isinstance(x, Tensor):
        return x.numpy()
    if hasattr(x, "to_list") and hasattr(x, "flat_values"):  # RaggedTensor
        return x
    if hasattr(x, "numpy") and callable(x.numpy) and not isinstance(x, np.ndarray):
        return x.numpy()
    return x


def _is_ragged(x) -> bool:
    return hasattr(x, "flat_values") and hasattr(x, "nested_row_splits")


class _SessionLike:
    """What ``self.session()`` / ``self.cached_session()`` yield in TF 2: ``run`` evaluates eagerly."""

    def __init__(self, case):
        self._case = case

    def run(self, fetches, feed_dict=None):
        if feed_dict:
            raise ValueError("feed_dict needs a TF1 graph (tf.compat.v1.Session); eager tensors have values")
        return self._case.evaluate(fetches)


@tf_export("test.TestCase")
class TestCase(unittest.TestCase):
    """Base class for tests, with TF's array and structure assertions."""

    def __init__(self, methodName="runTest"):
        super().__init__(methodName)
        self._tempdir = None

    def setUp(self):
        super().setUp()
        random.seed(random_gen.DEFAULT_GRAPH_SEED)
        np.random.seed(random_gen.DEFAULT_GRAPH_SEED)
        random_gen.set_seed(random_gen.DEFAULT_GRAPH_SEED)

    def tearDown(self):
        super().tearDown()

    # --- values ---
    def evaluate(self, tensors):
        """NumPy values of ``tensors`` (any nested structure; RaggedTensors become ragged NumPy values)."""
        def ev(x):
            if _is_ragged(x):
                return x.numpy() if hasattr(x, "numpy") else x.to_list()
            return _to_numpy(x)

        return nest.map_structure(ev, tensors)

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        yield _SessionLike(self)

    cached_session = session

    def get_temp_dir(self):
        """A temporary directory for this test (removed with the process's temp files)."""
        if self._tempdir is None:
            self._tempdir = tempfile.mkdtemp(prefix=f"{type(self).__name__}_")
        return self._tempdir

    def create_tempdir(self, name=None):
        path = tempfile.mkdtemp(dir=self.get_temp_dir()) if name is None else os.path.join(self.get_temp_dir(), name)
        os.makedirs(path, exist_ok=True)
        return _TempPath(path)

    def create_tempfile(self, file_path=None, content=None, mode="w"):
        path = os.path.join(self.get_temp_dir(), file_path) if file_path else tempfile.mkstemp(
            dir=self.get_temp_dir())[1]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as f:
            if content is not None:
                f.write(content)
        return _TempPath(path)

    # --- array assertions ---
    def _arr(self, a):
        a = _to_numpy(a)
        if _is_ragged(a):
            raise TypeError("compare RaggedTensors with assertAllEqual/assertAllClose on the structures")
        return np.asarray(a)

    def _close_one(self, a, b, rtol, atol, path, msg):
        a, b = self._arr(a), self._arr(b)
        where = f" at path {path}" if path else ""
        if a.shape != b.shape:
            raise self.failureException(self._msg(
                f"Shape mismatch{where}: expected {a.shape}, got {b.shape} with contents {b}.", msg))
        if a.dtype.kind in "OSU" or b.dtype.kind in "OSU":
            if not np.array_equal(a, b):
                raise self.failureException(self._msg(f"Not equal{where}:\n{a}\nvs.\n{b}", msg))
            return
        try:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=self._msg(f"Mismatched value: a is different from b.{where}", msg))
        except AssertionError as e:
            raise self.failureException(str(e)) from None

    @staticmethod
    def _msg(text, msg):
        return f"{text} {msg}" if msg else text

    def _walk(self, a, b, fn, path=""):
        a, b = _to_numpy(a), _to_numpy(b)
        if _is_ragged(a) or _is_ragged(b):
            a = a.to_list() if _is_ragged(a) else a
            b = b.to_list() if _is_ragged(b) else b
            return self._walk_lists(a, b, fn, path)
        if isinstance(a, collections.abc.Mapping) or isinstance(b, collections.abc.Mapping):
            if not (isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping)):
                raise self.failureException(f"Can't compare dict to non-dict, a{path} is {a!r}. b{path} is {b!r}.")
            if set(a) != set(b):
                raise self.failureException(f"mismatched keys: a{path} has keys {sorted(a, key=str)}, but b{path} "
                                            f"has keys {sorted(b, key=str)}")
            for k in a:
                self._walk(a[k], b[k], fn, f"{path}[{k!r}]")
            return
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and not (_array_like(a) and
                                                                                 _array_like(b)):
            if len(a) != len(b):
                raise self.failureException(f"Mismatched length: a{path} has {len(a)} items, but b{path} has "
                                            f"{len(b)} items")
            for i, (x, y) in enumerate(zip(a, b)):
                self._walk(x, y, fn, f"{path}[{i}]")
            return
        fn(a, b, path)

    def _walk_lists(self, a, b, fn, path):
        if isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                raise self.failureException(f"Mismatched length: a{path} has {len(a)} items, but b{path} has "
                                            f"{len(b)} items")
            for i, (x, y) in enumerate(zip(a, b)):
                self._walk_lists(x, y, fn, f"{path}[{i}]")
            return
        fn(a, b, path)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Leaves of ``a`` and ``b`` are elementwise within ``atol + rtol * |b|``."""
        self._walk(a, b, lambda x, y, p: self._close_one(x, y, rtol, atol, p, msg))

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """``assertAllClose`` with tolerances widened for float32 / float16 / bfloat16 inputs."""
        a_np, b_np = self._arr(a), self._arr(b)
        dts = {str(a_np.dtype), str(b_np.dtype)}
        if dts & {"float32", "complex64"}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if "float16" in dts:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if "bfloat16" in dts:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a_np.astype(np.float64) if a_np.dtype.kind == "V" or "bfloat16" in dts else a_np,
                            b_np.astype(np.float64) if b_np.dtype.kind == "V" or "bfloat16" in dts else b_np,
                            rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        raise self.failureException(self._msg("The two values are close at all elements.", msg))

    def _equal_one(self, a, b, path, msg):
        a, b = self._arr(a), self._arr(b)
        where = f" at path {path}" if path else ""
        same_shape = a.shape == b.shape
        if not same_shape:
            if a.size == b.size == 1 or b.ndim == 0 or a.ndim == 0:
                pass  # TF broadcasts scalars here
            else:
                raise self.failureException(self._msg(
                    f"Shape mismatch{where}: expected {a.shape}, got {b.shape} with contents {b}.", msg))
        if not np.array_equal(np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)),
                              np.broadcast_to(b, np.broadcast_shapes(a.shape, b.shape))):
            diff = np.logical_not(np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)) == b)
            idx = np.argwhere(diff)[:10].tolist() if diff.ndim else []
            raise self.failureException(self._msg(
                f"\nNot equal to tolerance{where}: not all elements equal.\nnot equal where = {idx}\n"
                f"x: {a!r}\ny: {b!r}", msg))

    def assertAllEqual(self, a, b, msg=None):
        """Leaves of ``a`` and ``b`` have the same shape and equal elements."""
        self._walk(a, b, lambda x, y, p: self._equal_one(x, y, p, msg))

    def assertNotAllEqual(self, a, b, msg=None):
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise self.failureException(self._msg("The two values are equal at all elements.", msg))

    def _all(self, a, pred, what, msg):
        a = self._arr(a)
        if not np.all(pred(a)):
            raise self.failureException(self._msg(f"{a} is not {what}", msg))

    def assertAllGreater(self, a, comparison_target):
        self._all(a, lambda v: v > comparison_target, f"greater than {comparison_target}", None)

    def assertAllGreaterEqual(self, a, comparison_target):
        self._all(a, lambda v: v >= comparison_target, f"greater than or equal to {comparison_target}", None)

    def assertAllLess(self, a, comparison_target):
        self._all(a, lambda v: v < comparison_target, f"less than {comparison_target}", None)

    def assertAllLessEqual(self, a, comparison_target):
        self._all(a, lambda v: v <= comparison_target, f"less than or equal to {comparison_target}", None)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False, open_upper_bound=False):
        t = self._arr(target)
        if t.dtype.kind not in "iufb":
            raise AssertionError(f"The value of {t} does not have an ordered numeric type, instead it has type: "
                                 f"{t.dtype}")
        lo = t > lower_bound if open_lower_bound else t >= lower_bound
        hi = t < upper_bound if open_upper_bound else t <= upper_bound
        bad = np.argwhere(~(lo & hi))
        if bad.size:
            lb = "(" if open_lower_bound else "["
            ub = ")" if open_upper_bound else "]"
            raise self.failureException(f"{len(bad)} (out of {t.size}) element(s) in the target array fall outside "
                                        f"the range {lb}{lower_bound}, {upper_bound}{ub}: indices {bad.tolist()}")

    def assertAllInSet(self, target, expected_set):
        t = self._arr(target)
        diff = set(np.unique(t).tolist()) - set(np.asarray(list(expected_set)).tolist())
        if diff:
            raise self.failureException(f"{len(diff)} unique element(s) are not in the set {expected_set}: "
                                        f"{sorted(diff)}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):
        a, b = self._arr(ndarray1), self._arr(ndarray2)
        self.assertTrue(np.linalg.norm(a - b) <= err, msg=msg)

    def assertNear(self, f1, f2, err, msg=None):
        ok = f1 == f2 or abs(f1 - f2) <= err
        self.assertTrue(ok, f"{f1!r} != {f2!r} +/- {err!r}" + (f" ({msg})" if msg else ""))

    def assertDTypeEqual(self, target, expected_dtype):
        t = self._arr(target)
        want = np.dtype(_dt.as_dtype(expected_dtype).as_numpy_dtype)
        self.assertEqual(t.dtype, want)

    def assertShapeEqual(self, input_a, input_b, msg=None):
        a = self._arr(input_a)
        shape_b = tuple(input_b.shape.as_list()) if isinstance(input_b, Tensor) else tuple(np.shape(input_b))
        self.assertEqual(a.shape, shape_b, msg=msg)

    def assertDeviceEqual(self, device1, device2, msg=None):
        def canon(d):
            d = (d or "").replace("/device:", "/").upper()
            return re.sub(r"^/JOB:LOCALHOST/REPLICA:0/TASK:0", "", d)

        self.assertEqual(canon(device1), canon(device2), msg=msg or f"Devices {device1} and {device2} are not equal.")

    # --- errors ---
    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                text = getattr(e, "message", None) or str(e)
                return re.search(expected_err_re_or_predicate, text) is not None
        try:
            yield
        except exception_type as e:
            if not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e
        else:
            raise AssertionError(f"{exception_type.__name__} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        return self.assertRaisesWithPredicateMatch(_errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=_errors.InvalidArgumentError):
        return self.assertRaisesWithPredicateMatch(
            exception_type, r"Incompatible shapes|Dimensions must be equal|required broadcastable shapes|"
                            r"are incompatible|Shapes .* and .* are incompatible")

    # --- absl's extra assertions that TF tests use ---
    def assertLen(self, container, expected_len, msg=None):
        if len(container) != expected_len:
            raise self.failureException(self._msg(f"{container!r} has length of {len(container)}, expected "
                                                  f"{expected_len}.", msg))

    def assertEmpty(self, container, msg=None):
        if len(container):
            raise self.failureException(self._msg(f"{container!r} has length of {len(container)}.", msg))

    def assertNotEmpty(self, container, msg=None):
        if not len(container):
            raise self.failureException(self._msg(f"{container!r} has length of 0.", msg))

    def assertStartsWith(self, actual, expected_start, msg=None):
        if not actual.startswith(expected_start):
            raise self.failureException(self._msg(f"{actual!r} does not start with {expected_start!r}", msg))

    def assertEndsWith(self, actual, expected_end, msg=None):
        if not actual.endswith(expected_end):
            raise self.failureException(self._msg(f"{actual!r} does not end with {expected_end!r}", msg))

    def assertBetween(self, value, minv, maxv, msg=None):
        if not minv <= value <= maxv:
            raise self.failureException(self._msg(f"{value!r} is not between {minv!r} and {maxv!r}", msg))

    def assertSameElements(self, expected_seq, actual_seq, msg=None):
        if set(expected_seq) != set(actual_seq):
            raise self.failureException(self._msg(f"{expected_seq!r} and {actual_seq!r} differ", msg))

    def assertContainsSubset(self, expected_subset, actual_set, msg=None):
        missing = set(expected_subset) - set(actual_set)
        if missing:
            raise self.failureException(self._msg(f"Missing elements {missing!r}", msg))

    def assertSameStructure(self, a, b, aname="a", bname="b", msg=None):
        try:
            nest.assert_same_structure(a, b)
        except (ValueError, TypeError) as e:
            raise self.failureException(self._msg(f"{aname} and {bname} differ: {e}", msg)) from None


class _TempPath(str):
    @property
    def full_path(self):
        return str(self)


def _array_like(seq) -> bool:
    """A list/tuple that NumPy turns into a plain array (TF compares those as arrays, else leaf by leaf)."""
    try:
        arr = np.asarray([_to_numpy(x) for x in seq] if not isinstance(seq, np.ndarray) else seq)
    except (ValueError, TypeError):
        return False
    return arr.dtype != object
