"""The serving operations, independent of transport: gRPC messages in and out, and TF Serving's REST API
(path parsing, JSON bodies, error bodies and HTTP status codes)."""

from __future__ import annotations

import json
import re
import time
import urllib.parse

from google.protobuf import json_format

from tensorlet._src.serving import protos, tensors
from tensorlet._src.serving.batching import Arrivals
from tensorlet._src.serving.errors import CODE_NAMES, INVALID_ARGUMENT, OK, ServingError, from_exception, invalid
from tensorlet._src.serving.rest_predict import RestPredict, error_json

_PREDICT_RE = re.compile(r"/v1/models/([^/:]+)(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?:(classify|regress|predict)",
                         re.IGNORECASE)
_STATUS_RE = re.compile(r"/v1/models(?:/([^/:]+))?(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?(?:/(metadata))?",
                        re.IGNORECASE)
SIGNATURE_DEF = "signature_def"
_STATE_NAMES = {0: "UNKNOWN", 10: "START", 20: "LOADING", 30: "AVAILABLE", 40: "UNLOADING", 50: "END"}


def _spec_version(spec):
    which = spec.WhichOneof("version_choice")
    if which == "version":
        return spec.version.value, None
    if which == "version_label":
        return None, spec.version_label
    return None, None


def _examples(inp) -> list:
    kind = inp.WhichOneof("kind")
    if kind == "example_list":
        return [e.SerializeToString() for e in inp.example_list.examples]
    if kind == "example_list_with_context":
        ctx = inp.example_list_with_context.context
        out = []
        for e in inp.example_list_with_context.examples:
            merged = protos.Example()
            merged.CopyFrom(ctx)
            merged.MergeFrom(e)
            out.append(merged.SerializeToString())
        return out
    raise invalid("Input is empty")


class Service:
    def __init__(self, manager, metrics=None, reload_config=None):
        self.manager = manager
        self.metrics = metrics
        self.reload_config = reload_config  # ModelServerConfig -> None (raises ServingError)
        self._arrivals = {}  # model name -> Arrivals (requests on their way to a batch queue)
        self.unrouted = Arrivals()  # requests received whose model is not known yet (see ``Arrivals``)

    def _acquire(self, spec):
        if not spec.name:
            raise invalid("Missing ModelSpec")
        version, label = _spec_version(spec)
        return self.manager.acquire(spec.name, version, label)

    def _fill_spec(self, out, servable, signame):
        out.name = servable.name
        out.version.value = servable.version
        out.signature_name = signame or "serving_default"

    def _timed(self, model, api, entry, fn):
        t0 = time.perf_counter()
        status = "OK"
        try:
            return fn()
        except ServingError as e:
            status = CODE_NAMES.get(e.code, "UNKNOWN")
            raise
        except Exception as e:
            err = from_exception(e)
            status = CODE_NAMES.get(err.code, "UNKNOWN")
            raise err from None
        finally:
            if self.metrics is not None:
                self.metrics.request(model, api, entry, status, time.perf_counter() - t0)

    # --- gRPC: PredictionService -----------------------------------------------------------------------------------
    def predict(self, req, entry="GRPC", unrouted=None):
        """``unrouted``: the request's ticket in ``unrouted`` (a gRPC call counted in when it arrived), if any."""
        return self._timed(req.model_spec.name, "predict", entry, lambda: self._predict(req, unrouted))

    def _predict(self, req, unrouted=None):
        ticket = self.arrival(req.model_spec.name)  # counted in for its model before it leaves the unrouted count
        if unrouted is not None:
            unrouted.leave()
        try:
            return self._predict_ticket(req, ticket)
        finally:
            if ticket is not None:
                ticket.leave()

    def _predict_ticket(self, req, ticket):
        with self._acquire(req.model_spec) as servable:
            inputs = {k: tensors.to_numpy(v) for k, v in req.inputs.items()}
            t0 = time.perf_counter()
            out = servable.predict(req.model_spec.signature_name, inputs, list(req.output_filter), ticket=ticket)
            if self.metrics is not None:
                self.metrics.runtime(servable.name, "predict", time.perf_counter() - t0)
            return self.predict_response(servable, req, out)

    def predict_response(self, servable, req, out):
        resp = protos.PredictResponse()
        self._fill_spec(resp.model_spec, servable, req.model_spec.signature_name)
        for k, v in out.items():
            tensors.to_proto(v, resp.outputs[k])
        return resp

    def classify(self, req, entry="GRPC"):
        def run():
            with self._acquire(req.model_spec) as servable:
                rows = servable.classify(req.model_spec.signature_name, _examples(req.input))
                resp = protos.ClassificationResponse()
                self._fill_spec(resp.model_spec, servable, req.model_spec.signature_name)
                _classifications(resp.result, rows)
                return resp

        return self._timed(req.model_spec.name, "classify", entry, run)

    def regress(self, req, entry="GRPC"):
        def run():
            with self._acquire(req.model_spec) as servable:
                values = servable.regress(req.model_spec.signature_name, _examples(req.input))
                resp = protos.RegressionResponse()
                self._fill_spec(resp.model_spec, servable, req.model_spec.signature_name)
                for v in values:
                    resp.result.regressions.add().value = v
                return resp

        return self._timed(req.model_spec.name, "regress", entry, run)

    def multi_inference(self, req, entry="GRPC"):
        name = req.tasks[0].model_spec.name if req.tasks else ""

        def run():
            if not req.tasks:
                raise invalid("MultiInferenceRequest must have at least one task")
            seen = set()
            for t in req.tasks:
                if not t.model_spec.name:
                    raise invalid("Found ModelSpec with an empty model name.")
                if t.model_spec.name != name:
                    raise invalid("All ModelSpecs in a MultiInferenceRequest must access the same model name.")
                sig = t.model_spec.signature_name or "serving_default"
                if sig in seen:
                    raise invalid(f"Duplicate evaluation of signature: {sig}")
                seen.add(sig)
            examples = _examples(req.input)
            resp = protos.MultiInferenceResponse()
            with self._acquire(req.tasks[0].model_spec) as servable:
                for t in req.tasks:
                    res = resp.results.add()
                    self._fill_spec(res.model_spec, servable, t.model_spec.signature_name)
                    if t.method_name == "tensorflow/serving/classify":
                        _classifications(res.classification_result,
                                         servable.classify(t.model_spec.signature_name, examples))
                    elif t.method_name == "tensorflow/serving/regress":
                        for v in servable.regress(t.model_spec.signature_name, examples):
                            res.regression_result.regressions.add().value = v
                    else:
                        raise invalid(f"Unsupported signature method_name: {t.method_name}")
            return resp

        return self._timed(name, "multi_inference", entry, run)

    def get_model_metadata(self, req, entry="GRPC"):
        def run():
            if not req.metadata_field:
                raise invalid("GetModelMetadataRequest must specify at least one metadata_field")
            for f in req.metadata_field:
                if f != SIGNATURE_DEF:
                    raise invalid(f"Metadata field {f} is not supported")
            with self._acquire(req.model_spec) as servable:
                resp = protos.GetModelMetadataResponse()
                resp.model_spec.name = servable.name
                resp.model_spec.version.value = servable.version
                any_ = resp.metadata[SIGNATURE_DEF]
                any_.type_url = "type.googleapis.com/tensorflow.serving.SignatureDefMap"
                any_.value = servable.signature_def_map().SerializeToString()
                return resp

        return self._timed(req.model_spec.name, "metadata", entry, run)

    # --- gRPC: ModelService ----------------------------------------------------------------------------------------
    def get_model_status(self, req):
        spec = req.model_spec
        if not spec.name:
            raise invalid("Missing ModelSpec")
        version, label = _spec_version(spec)
        if label is not None:
            version = self.manager.resolve_label(spec.name, label)
        resp = protos.GetModelStatusResponse()
        for v, state, code, message in self.manager.status(spec.name, version):
            s = resp.model_version_status.add()
            s.version, s.state = v, state
            s.status.error_code, s.status.error_message = code, message
        return resp

    def handle_reload_config(self, req):
        resp = protos.ReloadConfigResponse()
        try:
            if self.reload_config is None:
                raise ServingError(12, "reloading the config is not supported")
            self.reload_config(req.config)
        except ServingError as e:
            resp.status.error_code, resp.status.error_message = e.code, e.message
        except Exception as e:
            err = from_exception(e)
            resp.status.error_code, resp.status.error_message = err.code, err.message
        else:
            resp.status.error_code = OK
        return resp

    # --- REST ------------------------------------------------------------------------------------------------------
    def rest(self, method: str, path: str, body: bytes):
        """(HTTP status, JSON text, model name, API) for one REST request."""
        model, api = "", ""
        try:
            if method == "POST":
                m = _PREDICT_RE.fullmatch(path)
                if m is None:
                    raise invalid(f"Malformed request: {method} {path}")
                name, version, label, api = m.groups()
                name = urllib.parse.unquote(name)
                label = urllib.parse.unquote(label) if label else None
                version = int(version) if version else None
                model = name
                if version is not None and label is not None:
                    raise invalid(f"Both model version ({version}) and model version label ({label}) cannot be "
                                  f"supplied.")
                fn = {"predict": self._rest_predict, "classify": self._rest_classify,
                      "regress": self._rest_regress}.get(api)
                if fn is None:  # the route matches case-insensitively, the method names do not
                    raise invalid(f"Malformed request: {method} {path}")
                text = self._timed(name, api, "REST", lambda: fn(name, version, label, body))
                return 200, text, model, api
            if method == "GET":
                m = _STATUS_RE.fullmatch(path)
                if m is None:
                    raise invalid(f"Malformed request: {method} {path}")
                name, version, label, sub = m.groups()
                if not name:
                    raise invalid("Missing model name in request.")
                name = urllib.parse.unquote(name)
                label = urllib.parse.unquote(label) if label else None
                version = int(version) if version else None
                model = name
                if sub:
                    return 200, self._rest_metadata(name, version, label), model, "metadata"
                if label is not None:
                    version = self.manager.resolve_label(name, label)
                spec = protos.GetModelStatusRequest()
                spec.model_spec.name = name
                if version is not None:
                    spec.model_spec.version.value = version
                resp = self.get_model_status(spec)
                text = json_format.MessageToJson(resp, indent=1, always_print_fields_with_no_presence=True)
                return 200, text, model, "status"
            raise invalid(f"Malformed request: {method} {path}")
        except ServingError as e:
            return e.http_status, error_json(e.message), model, api
        except Exception as e:  # never let a bug take the connection down without an answer
            err = from_exception(e)
            return err.http_status, error_json(err.message), model, api

    def _rest_predict(self, name, version, label, body):
        req = RestPredict(self, name, version, label, timed=False)
        try:
            req.start(body)
            return req.text(req.call())
        finally:
            req.close()

    # --- REST predict in stages, for the REST app's event loop --------------------------------------------------
    def rest_predict_route(self, method: str, path: str):
        """(model name, version, label) of a ``POST ...:predict`` path, else None (``rest`` answers it)."""
        if method != "POST":
            return None
        m = _PREDICT_RE.fullmatch(path)
        if m is None or m.group(4) != "predict" or (m.group(2) and m.group(3)):
            return None
        name, version, label, _ = m.groups()
        return (urllib.parse.unquote(name), int(version) if version else None,
                urllib.parse.unquote(label) if label else None)

    def arrival(self, name):
        """A ticket in the model's ``Arrivals`` (see ``batching``), or None for a model not configured."""
        if self.manager.models.get(name) is None:
            return None
        a = self._arrivals.get(name)
        if a is None:
            a = self.arrivals(name)
        return a.enter()

    def arrivals(self, name) -> Arrivals:
        return self._arrivals.setdefault(name, Arrivals(self.unrouted))

    def _rest_examples(self, body):
        doc = tensors.parse_json(body)
        signame = tensors.signature_name(doc)
        context = None
        if "context" in doc:
            context = _example_from_json(doc["context"])
        if "examples" not in doc:
            raise invalid(f"JSON Value: {tensors._debug(doc)} When method is classify, key 'examples' is expected and "
                          f"was not found")
        ex = doc["examples"]
        if not isinstance(ex, list):
            raise invalid(f"JSON Value: {tensors._debug(doc)} Expecting 'examples' value to be an list/array")
        if not ex:
            raise invalid(f"JSON Value: {tensors._debug(doc)} 'examples' value is an empty array")
        out = []
        for v in ex:
            e = _example_from_json(v)
            if context is not None:
                merged = protos.Example()
                merged.CopyFrom(context)
                merged.MergeFrom(e)
                e = merged
            out.append(e.SerializeToString())
        return signame, out

    def _rest_classify(self, name, version, label, body):
        signame, examples = self._rest_examples(body)
        with self.manager.acquire(name, version, label) as servable:
            rows = servable.classify(signame, examples)
        return _json_obj("results", "[" + ", ".join(
            "[" + ", ".join(f"[{json.dumps(lab)}, {tensors._float_token(s, _f32)}]" for lab, s in row) + "]"
            for row in rows) + "]")

    def _rest_regress(self, name, version, label, body):
        signame, examples = self._rest_examples(body)
        with self.manager.acquire(name, version, label) as servable:
            values = servable.regress(signame, examples)
        return _json_obj("results", "[" + ", ".join(tensors._float_token(v, _f32) for v in values) + "]")

    def _rest_metadata(self, name, version, label):
        req = protos.GetModelMetadataRequest()
        req.metadata_field.append(SIGNATURE_DEF)
        req.model_spec.name = name
        if version is not None:
            req.model_spec.version.value = version
        if label is not None:
            req.model_spec.version_label = label
        resp = self.get_model_metadata(req, entry="REST")
        sdm = protos.SignatureDefMap.FromString(resp.metadata[SIGNATURE_DEF].value)
        opts = dict(indent=1, always_print_fields_with_no_presence=True, preserving_proto_field_name=True)
        spec = json_format.MessageToJson(resp.model_spec, **opts)
        sigs = json_format.MessageToJson(sdm, **opts)
        return f'{{\n"model_spec":{spec},\n"metadata": {{"signature_def": {sigs}}}\n}}\n'


def _f32(x):
    import numpy as np

    return np.float32(x)


def _json_obj(key, value_text):
    return "{\n    " + json.dumps(key) + ": " + value_text + "\n}"


def _classifications(result, rows):
    for row in rows:
        c = result.classifications.add()
        for label, score in row:
            k = c.classes.add()
            k.label, k.score = label, score


def _feature_kind_error(name, feature):
    kind = {"bytes_list": "bytes", "float_list": "float", "int64_list": "int64"}.get(feature.WhichOneof("kind"),
                                                                                    "UNKNOWN")
    return invalid(f"Unexpected element type in feature: {name} expecting type: {kind}")


def _add_feature_value(val, name, feature):
    kind = feature.WhichOneof("kind")

    def need(k):
        if kind not in (None, k):
            raise _feature_kind_error(name, feature)

    if val is None or isinstance(val, list) or (isinstance(val, dict) and not tensors.is_b64(val)):
        raise invalid(f"Feature: {name} has element with unexpected JSON type: {tensors._type_string(val)}")
    if isinstance(val, bool):
        need("int64_list")
        feature.int64_list.value.append(int(val))
    elif isinstance(val, dict):
        need("bytes_list")
        feature.bytes_list.value.append(tensors._b64(val))
    elif isinstance(val, str):
        need("bytes_list")
        feature.bytes_list.value.append(val.encode())
    elif isinstance(val, float):
        need("float_list")
        feature.float_list.value.append(val)
    else:
        need("int64_list")
        if val >= 1 << 63:
            raise invalid(f"Feature: {name} has uint64_t element. Only int64_t is supported.")
        if val < -(1 << 63):
            raise invalid(f"Feature: {name} has element with unexpected JSON type: Number")
        feature.int64_list.value.append(val)


def _example_from_json(val):
    if not isinstance(val, dict):
        raise invalid(f"Example must be JSON object but got JSON {tensors._type_string(val)}")
    ex = protos.Example()
    for name, content in val.items():
        feature = ex.features.feature[name]
        for v in content if isinstance(content, list) else [content]:
            _add_feature_value(v, name, feature)
    return ex


__all__ = ["Service", "INVALID_ARGUMENT", "_STATE_NAMES"]
