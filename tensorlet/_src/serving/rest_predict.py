"""A REST predict in stages (see ``RestPredict``), shared by ``Service.rest`` and the REST app's event loop."""

from __future__ import annotations

import json
import time

from tensorlet._src.serving import numeric_json, tensors
from tensorlet._src.serving.errors import CODE_NAMES, ServingError, from_exception


class RestPredict:
    """One REST predict in stages, so the REST app can run the cheap ones on its event loop: ``start`` (parse the
    body, find the servable, check the inputs), the model call (``call`` here, or ``batcher.submit_async``),
    ``text`` (the response body); ``error`` is the answer to a failure of any stage and ``close`` (always) ends
    the request: metrics, the servable's in-flight count, the arrival ticket."""

    __slots__ = ("service", "name", "version", "label", "timed", "t0", "ticket", "servable", "sig", "arrays", "fmt",
                 "batcher", "status", "t_call")

    def __init__(self, service, name, version, label, timed=True):
        self.service, self.name, self.version, self.label = service, name, version, label
        self.timed = timed  # record request metrics here (False: ``Service._timed`` does)
        self.t0 = time.perf_counter()
        self.ticket = service.arrival(name) if timed else None
        self.servable = self.sig = self.arrays = self.fmt = self.batcher = None
        self.status = "OK"
        self.t_call = 0.0

    def start(self, body):
        fast = numeric_json.fast_numeric_body(body)
        doc = None if fast is not None else tensors.parse_json(body)
        signame = "" if doc is None else tensors.signature_name(doc)
        self.servable = servable = self.service.manager.acquire(self.name, self.version, self.label)
        sig = servable.signature(signame, rest=True)
        inputs = None
        if fast is not None:
            if len(sig.inputs) == 1:
                (key, spec), = sig.inputs.items()
                arr = numeric_json.fast_numeric_array(fast[1], fast[2], spec.dtype)
                if arr is not None:
                    inputs, self.fmt = {key: arr}, ("row" if fast[0] == "instances" else "columnar")
            if inputs is None:
                doc = tensors.parse_json(body)
        if inputs is None:
            inputs, self.fmt = tensors.predict_inputs(doc, sig.input_dtypes, signame)
        self.sig, self.arrays, _ = servable.check_predict(signame, inputs, (), rest=True)
        self.batcher = servable.batchers.get(sig.name)
        self.t_call = time.perf_counter()

    def call(self):
        """The model call on this thread (through the batcher when there is one)."""
        return self.servable.run(self.sig, self.arrays, self.ticket)

    def text(self, out) -> str:
        m = self.service.metrics
        if m is not None:
            m.runtime(self.name, "predict", time.perf_counter() - self.t_call)
        return tensors.predict_response(out, self.fmt)

    def error(self, e):
        """(HTTP status, JSON error body) for an exception of any stage."""
        err = e if isinstance(e, ServingError) else from_exception(e)
        self.status = CODE_NAMES.get(err.code, "UNKNOWN")
        if not self.timed:
            raise err from None
        return err.http_status, error_json(err.message)

    def close(self):
        if self.ticket is not None:
            self.ticket.leave()
            self.ticket = None
        if self.servable is not None:
            self.servable.release()
            self.servable = None
        m = self.service.metrics
        if self.timed and m is not None:
            m.request(self.name, "predict", "REST", self.status, time.perf_counter() - self.t0)
            self.timed = False


def error_json(message: str) -> str:
    return "{\n    \"error\": " + json.dumps(message, ensure_ascii=False) + "\n}"
