"""One loaded model version: its signatures (input/output specs), request checks and calls.

A servable wraps what ``tensorlet.saved_model.load`` returns; it relies only on the public shape of that
object (``.signatures``: name -> function called with keyword tensors, returning a dict of tensors, with
``structured_input_signature`` and ``structured_outputs``), so it serves any SavedModel the loader reads.
"""

from __future__ import annotations

import logging
import os
import threading
import time

import numpy as np

from tensorlet._src.serving import tensors
from tensorlet._src.serving.errors import INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, ServingError, invalid

DEFAULT_SIGNATURE = "serving_default"
PREDICT, CLASSIFY, REGRESS = "tensorflow/serving/predict", "tensorflow/serving/classify", "tensorflow/serving/regress"
WARMUP_FILE = os.path.join("assets.extra", "tf_serving_warmup_requests")
# a model call known to take less than this runs on the thread (or event loop) that has the request: a hop to a
# worker thread and back costs more than it saves
INLINE_CALL_SECONDS = 0.001
MAX_WARMUP_RECORDS = 1000


class Spec:
    """A tensor of a signature: DataType enum and shape (None for unknown dims; shape None for unknown rank)."""

    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name, spec):
        self.name = name
        self.dtype = tensors.enum_of(spec.dtype)
        dims = getattr(spec.shape, "dims", None)
        if dims is None and getattr(spec.shape, "rank", 0) is None:
            self.shape = None
        else:
            self.shape = tuple(None if d is None else int(getattr(d, "value", d)) for d in spec.shape)

    def compatible(self, shape) -> bool:
        if self.shape is None:
            return True
        return len(shape) == len(self.shape) and all(a is None or a == b for a, b in zip(self.shape, shape))

    def shape_text(self):
        return "<unknown>" if self.shape is None else "[" + ",".join("?" if d is None else str(d)
                                                                     for d in self.shape) + "]"


class Signature:
    def __init__(self, name, fn):
        self.name = name
        self.fn = fn
        args, kwargs = fn.structured_input_signature
        if args:
            raise ValueError(f"signature {name!r} takes positional inputs; serving signatures are keyword-only")
        self.inputs = {k: Spec(k, s) for k, s in kwargs.items()}
        outs = fn.structured_outputs
        if not isinstance(outs, dict):
            raise ValueError(f"signature {name!r} does not return a dict of tensors")
        self.outputs = {k: Spec(k, s) for k, s in outs.items()}
        self.method_name = getattr(fn, "method_name", None) or PREDICT
        self.lock = threading.Lock()
        self.cost = None  # a running average of the call's seconds (None: not measured yet) ...
        self.cost_rows = 1.0  # ... and of the batch rows of those calls

    def short(self, arrays=None) -> bool:
        """Whether a call (on ``arrays``) is expected to be short enough to run inline (``INLINE_CALL_SECONDS``):
        the running average, scaled up for a request with more rows than the calls measured."""
        if self.cost is None:
            return False
        scale = max(1.0, _rows(arrays) / self.cost_rows) if arrays else 1.0
        return self.cost * scale < INLINE_CALL_SECONDS

    @property
    def input_dtypes(self):
        return {k: s.dtype for k, s in self.inputs.items()}

    def check_inputs(self, inputs: dict) -> dict:
        """TF Serving's request checks (names, count, dtypes) plus shape compatibility; returns arrays in order."""
        req, sig = set(inputs), set(self.inputs)
        if len(req) != len(sig):
            extra, missing = sorted(req - sig), sorted(sig - req)
            raise invalid(f"input size does not match signature: {len(req)}!={len(sig)} len({{{','.join(sorted(req))}"
                          f"}}) != len({{{','.join(sorted(sig))}}}). Sent extra: {{{','.join(extra)}}}. Missing but "
                          f"required: {{{','.join(missing)}}}.")
        for k in sorted(req - sig):
            raise invalid(f"input tensor alias not found in signature: {k}. Inputs expected to be in the set "
                          f"{{{','.join(sorted(sig))}}}.")
        out = {}
        for i, k in enumerate(sorted(sig)):
            spec, arr = self.inputs[k], inputs[k]
            got = tensors.enum_of(arr.dtype)
            if got != spec.dtype:
                raise invalid(f"Expects arg[{i}] to be {tensors.dtype_name(spec.dtype)} but "
                              f"{tensors.dtype_name(got)} is provided")
            if not spec.compatible(arr.shape):
                raise invalid(f"The shape of input '{k}' is [{','.join(str(d) for d in arr.shape)}] but the signature "
                              f"'{self.name}' expects {spec.shape_text()}")
            out[k] = arr
        return out

    def call(self, inputs: dict) -> dict:
        """Run the function on checked NumPy inputs; returns NumPy outputs."""
        t0 = time.perf_counter()
        try:
            result = self.fn(**inputs)
            out = {k: np.asarray(v.numpy() if hasattr(v, "numpy") else v) for k, v in result.items()}
            dt = time.perf_counter() - t0
            if self.cost is None:
                self.cost, self.cost_rows = dt, float(_rows(inputs))
            else:  # a sample is clipped at twice the average: one call descheduled on a busy machine barely moves it
                self.cost = 0.8 * self.cost + 0.2 * min(dt, 2 * self.cost)
                self.cost_rows = 0.8 * self.cost_rows + 0.2 * _rows(inputs)
            return out
        except ServingError:
            raise
        except Exception as e:  # the model's own failure: report it, keep serving
            from tensorlet._src.serving.errors import from_exception

            raise from_exception(e) from None


class Servable:
    """A loaded version. ``acquire``/``release`` count in-flight requests so unloading waits for them."""

    def __init__(self, name: str, version: int, path: str, loaded):
        self.name, self.version, self.path = name, version, path
        self.loaded = loaded
        self.signatures = {}
        for key in sorted(loaded.signatures):
            self.signatures[key] = Signature(key, loaded.signatures[key])
        self._inflight = 0
        self._cv = threading.Condition()
        self.batchers = {}
        self.batching = None
        self._sigdefs = None

    def acquire(self):
        with self._cv:
            self._inflight += 1
        return self

    def release(self):
        with self._cv:
            self._inflight -= 1
            if self._inflight == 0:
                self._cv.notify_all()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def wait_idle(self, timeout=None) -> bool:
        with self._cv:
            return self._cv.wait_for(lambda: self._inflight == 0, timeout)

    def signature(self, name: str, rest: bool = False) -> Signature:
        key = name or DEFAULT_SIGNATURE
        sig = self.signatures.get(key)
        if sig is None:
            if rest:
                raise invalid(f'Serving signature name: "{key}" not found in signature def')
            raise ServingError(FAILED_PRECONDITION, f'Serving signature key "{key}" not found.')
        return sig

    # --- predict ---------------------------------------------------------------------------------------------------
    def predict(self, signame: str, inputs: dict, output_filter=(), rest=False, ticket=None) -> dict:
        sig, arrays, seen = self.check_predict(signame, inputs, output_filter, rest)
        out = self.run(sig, arrays, ticket)
        return {k: out[k] for k in seen} if seen else out

    def check_predict(self, signame: str, inputs: dict, output_filter=(), rest=False):
        """(signature, checked input arrays, output aliases kept) of a predict request, or its error."""
        sig = self.signature(signame, rest=rest)
        if sig.method_name not in (PREDICT, CLASSIFY, REGRESS):
            raise invalid(f"Expected prediction signature method_name to be one of {{{PREDICT}, {CLASSIFY}, "
                          f"{REGRESS}}}. Was: {sig.method_name}")
        seen = []
        for alias in output_filter:
            if alias not in sig.outputs:
                raise invalid(f"output tensor alias not found in signature: {alias} Outputs expected to be in the set "
                              f"{{{','.join(sorted(sig.outputs))}}}.")
            if alias in seen:
                raise invalid(f"duplicate output tensor alias: {alias}")
            seen.append(alias)
        return sig, sig.check_inputs(inputs), seen

    def run(self, sig: Signature, arrays: dict, ticket=None) -> dict:
        batcher = self.batchers.get(sig.name)
        if batcher is not None:
            return batcher.submit(arrays, ticket)
        if ticket is not None:
            ticket.leave()
        return sig.call(arrays)

    # --- classify / regress ----------------------------------------------------------------------------------------
    def _examples_signature(self, signame, method, what):
        key = signame or DEFAULT_SIGNATURE
        sig = self.signatures.get(key)
        if sig is None:
            raise invalid(f"No signature was found with the name: {key}")
        outs = ("classes", "scores") if method == CLASSIFY else ("outputs",)
        # tensorlet's saver (like TF 2's) records every signature as a predict one; a signature shaped like a
        # classify/regress one (a single string input, the canonical output names) is accepted as one.
        shaped = (len(sig.inputs) == 1 and next(iter(sig.inputs.values())).dtype == 7
                  and set(sig.outputs) & set(outs) and set(sig.outputs) <= set(outs))
        if sig.method_name != method and not (sig.method_name == PREDICT and shaped):
            raise invalid(f"Expected {what} signature method_name to be {method}. Was: {sig.method_name}")
        if len(sig.inputs) != 1:
            raise invalid("Expected one input Tensor.")
        return sig

    def _run_examples(self, sig, serialized, ticket=None):
        (name, spec), = sig.inputs.items()
        arr = np.empty(len(serialized), dtype=object)
        arr[:] = serialized
        return self.run(sig, {name: arr}, ticket)

    def classify(self, signame, serialized) -> list:
        """[[(label, score), ...] per example] from a classify signature's ``classes``/``scores``."""
        sig = self._examples_signature(signame, CLASSIFY, "classification")
        out = self._run_examples(sig, serialized)
        n = len(serialized)
        classes, scores = out.get("classes"), out.get("scores")
        for t, what in ((classes, "classes"), (scores, "scores")):
            if t is not None:
                if t.ndim != 2:
                    raise invalid(f"Expected Tensor shape: [batch_size num_classes] but got {list(t.shape)}")
                if t.shape[0] != n:
                    raise invalid(f"Expected {what} output batch size of {n}. Got: {t.shape[0]}")
        if scores is not None and scores.dtype != np.float32:
            raise invalid(f"Expected scores Tensor of DT_FLOAT. Got: {scores.dtype}")
        if classes is not None and scores is not None and classes.shape[1] != scores.shape[1]:
            raise invalid(f"Tensors class and score should match in dim_size(1). Got {classes.shape[1]} vs. "
                          f"{scores.shape[1]}")
        k = (classes if classes is not None else scores).shape[1]
        result = []
        for i in range(n):
            row = []
            for j in range(k):
                label = classes[i, j] if classes is not None else b""
                label = label.decode("utf-8", "replace") if isinstance(label, bytes) else str(label)
                row.append((label, float(scores[i, j]) if scores is not None else 0.0))
            result.append(row)
        return result

    def regress(self, signame, serialized) -> list:
        sig = self._examples_signature(signame, REGRESS, "regression")
        out = self._run_examples(sig, serialized)
        t = out.get("outputs")
        if t is None:
            raise invalid(f"No regression outputs found in SignatureDef: {sig.name}")
        n = len(serialized)
        if not (t.ndim == 1 or (t.ndim == 2 and t.shape[1] == 1)):
            raise invalid(f"Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but got "
                          f"{list(t.shape)}")
        if t.shape[0] != n:
            raise invalid(f"Input batch size did not match output batch size: {n} vs. {t.shape[0]}")
        if t.dtype != np.float32:
            raise invalid(f"Expected output Tensor of DT_FLOAT.  Got: {t.dtype}")
        return [float(v) for v in t.reshape(-1)]

    # --- metadata --------------------------------------------------------------------------------------------------
    def signature_def_map(self):
        """TF Serving's metadata: the SavedModel's own SignatureDefs (tensor names as written, the
        ``__saved_model_init_op`` entry included), else ones described from the loaded signatures."""
        if self._sigdefs is None:
            self._sigdefs = self._file_signature_defs() or self._described_signature_defs()
        return self._sigdefs

    def _file_signature_defs(self):
        from tensorlet._src.saved_model import tf_load
        from tensorlet._src.serving import protos

        try:
            sm = tf_load.read_pb(self.path)
        except Exception:  # noqa: BLE001 - not a TF-format file (or unreadable now): describe the signatures
            return None
        try:
            mg = tf_load.select_meta_graph(sm, "serve")
        except RuntimeError:  # no MetaGraph tagged "serve" alone: the first, as the loader takes
            mg = sm.meta_graphs[0]
        if not all(k in mg.signature_def for k in self.signatures):
            return None
        m = protos.SignatureDefMap()
        for key, sd in mg.signature_def.items():
            m.signature_def[key].ParseFromString(sd.SerializeToString())
        return m

    def _described_signature_defs(self):
        from tensorlet._src.serving import protos

        m = protos.SignatureDefMap()
        for key, sig in self.signatures.items():
            sd = m.signature_def[key]
            sd.method_name = sig.method_name
            for k, s in sig.inputs.items():
                _tensor_info(sd.inputs[k], s, f"{key}_{k}:0")
            for j, (k, s) in enumerate(sorted(sig.outputs.items())):
                _tensor_info(sd.outputs[k], s, f"StatefulPartitionedCall:{j}")
        return m

    # --- warmup ----------------------------------------------------------------------------------------------------
    def warmup(self, executor) -> int:
        """Replay ``assets.extra/tf_serving_warmup_requests`` (a TFRecord of PredictionLog); returns the count."""
        path = os.path.join(self.path, WARMUP_FILE)
        if not os.path.isfile(path):
            return 0
        from tensorlet._src.io.tfrecord import iter_records
        from tensorlet._src.serving import protos

        count, t0 = 0, time.perf_counter()
        for record in iter_records(path):
            count += 1
            if count > MAX_WARMUP_RECORDS:
                raise ServingError(INVALID_ARGUMENT, f"Number of warmup records exceeds the maximum "
                                                     f"({MAX_WARMUP_RECORDS}) at {path}")
            log = protos.PredictionLog.FromString(record)
            kind = log.WhichOneof("log_type")
            if kind is None:
                raise ServingError(INVALID_ARGUMENT, f"Unsupported log_type for warmup: {log}")
            try:
                executor(self, kind, getattr(log, kind).request)
            except ServingError as e:
                raise ServingError(e.code, f"Warmup request {count} from {path} failed: {e.message}") from None
        logging.getLogger("tensorlet.serving").info(
            "Finished reading warmup data for model at %s. Number of warmup records read: %d. Elapsed time "
            "(microseconds): %d.", path, count, (time.perf_counter() - t0) * 1e6)
        return count

    def precompile(self, sizes=(1,)):
        """Call each signature with zeros at each batch size (twice: the first call runs on the NumPy executor,
        the second queues the XLA compile), then wait for those background compiles, so the version serves
        compiled from its first request."""
        for sig in self.signatures.values():
            specs = list(sig.inputs.values())
            if any(s.shape is None or not s.shape or None in s.shape[1:] or s.dtype == 7 for s in specs):
                continue
            for b in sizes:
                arrays = {s.name: np.zeros((b,) + s.shape[1:], dtype=tensors.np_dtype(s.dtype)) for s in specs}
                if any(a.size > 1 << 22 for a in arrays.values()):
                    continue
                if any(s.shape[0] is not None and s.shape[0] != b for s in specs):
                    continue
                for _ in range(2):
                    try:
                        sig.call(arrays)
                    except ServingError:
                        break
            sig.cost = None  # compiles are not what a request's call costs
        from tensorlet._src.saved_model import bg_compile

        bg_compile.WORKER.idle(600)


def _rows(arrays) -> int:
    for a in arrays.values():
        return max(1, a.shape[0]) if getattr(a, "ndim", 0) else 1
    return 1


def _tensor_info(info, spec, name):
    info.name = name
    info.dtype = spec.dtype
    if spec.shape is None:
        info.tensor_shape.unknown_rank = True
    else:
        for d in spec.shape:
            info.tensor_shape.dim.add().size = -1 if d is None else d


def not_found(request: str) -> ServingError:
    return ServingError(NOT_FOUND, f"Servable not found for request: {request}")
