"""The gRPC API with grpcio: ``tensorflow.serving.PredictionService`` and ``ModelService``, registered as
generic handlers over the messages of ``serving/protos`` (wire-compatible with TF Serving's own stubs).
``stub(channel, service)`` is the client side, used by tests and the benchmark."""

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
_UNLIMITED = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]


def _handler(grpc, service, attr, server_timing=False):
    fn = getattr(service, attr)

    def call(request, context):
        try:
            if server_timing:  # the handler's time as trailing metadata (decoding and encoding excluded)
                t0 = time.perf_counter()
                resp = fn(request)
                context.set_trailing_metadata((("server-timing", f"app;dur={(time.perf_counter() - t0) * 1e3:.3f}"),))
                return resp
            return fn(request)
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
                         options=_UNLIMITED)
    by_service = {}
    for (svc, method), (req_cls, resp_cls) in protos.METHODS.items():
        by_service.setdefault(svc, {})[method] = grpc.unary_unary_rpc_method_handler(
            _handler(grpc, service, _CALLS[(svc, method)], server_timing), request_deserializer=req_cls.FromString,
            response_serializer=resp_cls.SerializeToString)
    for svc, handlers in by_service.items():
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(f"tensorflow.serving.{svc}",
                                                                              handlers),))
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"could not bind the gRPC port {host}:{port}")
    return server, bound


class stub:  # noqa: N801 - reads like the generated ``*Stub`` classes
    """A client for "PredictionService" or "ModelService": ``stub(channel, "PredictionService").Predict(req)``."""

    def __init__(self, channel, service: str):
        for (svc, method), (req_cls, resp_cls) in protos.METHODS.items():
            if svc == service:
                setattr(self, method, channel.unary_unary(f"/tensorflow.serving.{svc}/{method}",
                                                          request_serializer=req_cls.SerializeToString,
                                                          response_deserializer=resp_cls.FromString))
