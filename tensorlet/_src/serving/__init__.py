"""Model serving: ``tensorlet serve`` speaks TF Serving's REST and gRPC APIs.

Modules: ``protos`` (TF Serving's messages), ``tensors`` (wire formats), ``servable`` (one loaded version),
``manager`` (versions, hot reload, status), ``batching``, ``metrics``, ``service`` (the operations and the REST
API), ``rest`` (ASGI app), ``grpc_api`` (grpcio services), ``server`` (flags and lifecycle). Nothing here is
imported by ``import tensorlet``; uvicorn and grpcio come with the ``serving`` extra.
"""
