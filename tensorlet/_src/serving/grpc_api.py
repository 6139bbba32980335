"""The gRPC API with grpcio: ``tensorflow.serving.PredictionService`` and ``ModelService``, served by one generic
handler over the messages of ``serving/protos`` (wire-compatible with TF Serving's own stubs) on grpcio's
thread-per-request server. ``stub(channel, service)`` is the client side, used by tests and the benchmark."""

from __future__ import annotations

import time
from concurrent import futures

from tensorlet._src.serving import protos
from tensorlet._src.serving.errors import INTERNAL, ServingError, from_exception

_CALLS = {
    ("PredictionService", "Classify"): "classify",
    ("PredictionService", "Regress"): "regress",
    ("PredictionService", "Predict"): "predict",
    ("PredictionService", "MultiInference"): "multi_inference",
    ("PredictionService", "GetModelMetadata"): "get_model_metadata",
    ("ModelService", "GetModelStatus"): "get_model_status",
    ("ModelService", "HandleReloadConfigRequest"): "handle_reload_config",
}
# no message size limits (TF Serving sets none); a port in use is an error, not shared (grpc defaults to SO_REUSEPORT)
_OPTIONS = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1), ("grpc.so_reuseport", 0)]


def _handler(grpc, service, attr, server_timing=False):
    fn = getattr(service, attr)

    def call(request, context, **kw):
        try:
            if server_timing:  # the handler's time as trailing metadata (decoding and encoding excluded)
                t0 = time.perf_counter()
                resp = fn(request, **kw)
                context.set_trailing_metadata((("server-timing", f"app;dur={(time.perf_counter() - t0) * 1e3:.3f}"),))
                return resp
            return fn(request, **kw)
        except ServingError as e:
            context.abort(grpc.StatusCode(_status(grpc, e.code)), e.message)
        except Exception as e:  # an unexpected failure still answers, and the server stays up
            err = from_exception(e)
            context.abort(grpc.StatusCode(_status(grpc, err.code or INTERNAL)), err.message)

    return call


def _status(grpc, code):
    for sc in grpc.StatusCode:
        if sc.value[0] == code:
            return sc.value
    return grpc.StatusCode.UNKNOWN.value


def make_server(service, port: int, host: str = "0.0.0.0", max_workers: int = 16, server_timing=False):
    import grpc

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="grpc"),
                         options=_OPTIONS)
    # every worker thread busy with a predict: no other call can reach a batch before one ends (see ``Arrivals``)
    service.unrouted.capacity = max_workers
    server.add_generic_rpc_handlers((_Routes(grpc, service, server_timing),))
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"could not bind the gRPC port {host}:{port}")
    return server, bound


class _Routes:
    """grpc asks for a call's handler when it arrives, before its message is read: a predict is counted in
    ``Service.unrouted`` from then on, so an open batch waits for it, and its handler counts as a busy worker
    thread (``Arrivals.started``/``finished``: with every thread busy, no other call can arrive)."""

    def __init__(self, grpc, service, server_timing):
        self.grpc, self.serving = grpc, service
        self.handlers = {}
        for (svc, method), (req_cls, resp_cls) in protos.METHODS.items():
            self.handlers[f"/tensorflow.serving.{svc}/{method}"] = grpc.unary_unary_rpc_method_handler(
                _handler(grpc, service, _CALLS[(svc, method)], server_timing), request_deserializer=req_cls.FromString,
                response_serializer=resp_cls.SerializeToString)
        self.predict_method = "/tensorflow.serving.PredictionService/Predict"
        self.predict = self.handlers[self.predict_method]

    def service(self, details):
        unrouted = self.serving.unrouted
        if details.method == self.predict_method:
            h = self.predict
            ticket = unrouted.enter()

            def predict(req, ctx):
                unrouted.started()
                try:
                    return h.unary_unary(req, ctx, unrouted=ticket)
                finally:
                    unrouted.finished()

            return self.grpc.unary_unary_rpc_method_handler(predict, request_deserializer=h.request_deserializer,
                                                            response_serializer=h.response_serializer)
        return self.handlers.get(details.method)


class stub:  # noqa: N801 - reads like the generated ``*Stub`` classes
    """A client for "PredictionService" or "ModelService": ``stub(channel, "PredictionService").Predict(req)``."""

    def __init__(self, channel, service: str):
        for (svc, method), (req_cls, resp_cls) in protos.METHODS.items():
            if svc == service:
                setattr(self, method, channel.unary_unary(f"/tensorflow.serving.{svc}/{method}",
                                                          request_serializer=req_cls.SerializeToString,
                                                          response_deserializer=resp_cls.FromString))
