"""The REST API as an ASGI application (served by uvicorn): TF Serving's ``/v1/models/...`` routes and the
Prometheus endpoint. Model calls run on a thread pool of ``--rest_api_num_threads`` workers; a request that
takes longer than ``--rest_api_timeout_in_ms`` gets DEADLINE_EXCEEDED (504)."""

from __future__ import annotations

import asyncio
import json
import re

from tensorlet._src.serving.errors import HTTP_STATUS

_API_RE = re.compile(r"/v1/.*", re.IGNORECASE | re.DOTALL)
_JSON = [(b"content-type", b"application/json")]
MAX_BODY_BYTES = 1 << 30


class RestApp:
    def __init__(self, service, executor, timeout_s=None, metrics=None, metrics_path=None,
                 max_body_bytes=MAX_BODY_BYTES):
        self.service = service
        self.executor = executor
        self.timeout_s = timeout_s if timeout_s and timeout_s > 0 else None
        self.metrics = metrics
        self.metrics_path = metrics_path
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                if msg["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif msg["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"]
        if self.metrics_path is not None and path == self.metrics_path:
            text = self.metrics.render() if method == "GET" else ""
            status = 200 if method == "GET" else 405
            return await _reply(send, status, text.encode(), [(b"content-type", b"text/plain; version=0.0.4")])
        if not _API_RE.fullmatch(path):
            return await _reply(send, 404, b"<HTML><HEAD>\n<TITLE>404 Not Found</TITLE>\n</HEAD><BODY>\n<H1>Not "
                                           b"Found</H1>\n</BODY></HTML>\n", [(b"content-type", b"text/html")])
        body = await self._body(scope, receive)
        if body is None:
            return  # the client went away, or the body was refused (answered already)
        if isinstance(body, tuple):
            return await _reply(send, *body)
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(self.executor, self.service.rest, method, path, body)
        try:
            status, text, _, _ = await asyncio.wait_for(asyncio.shield(fut), self.timeout_s)
        except asyncio.TimeoutError:
            status, text = HTTP_STATUS[4], json.dumps({"error": "Deadline Exceeded"})
        await _reply(send, status, text.encode(), _JSON)

    async def _body(self, scope, receive):
        declared = None
        for k, v in scope.get("headers", ()):
            if k == b"content-length":
                try:
                    declared = int(v)
                except ValueError:
                    return 400, _err("Malformed Content-Length header"), _JSON
        limit = self.max_body_bytes
        if declared is not None and declared > limit:
            return 413, _err(f"Request body of {declared} bytes is larger than the limit of {limit} bytes"), _JSON
        chunks, size = [], 0
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return None
            part = msg.get("body", b"")
            size += len(part)
            if size > limit:
                return 413, _err(f"Request body is larger than the limit of {limit} bytes"), _JSON
            chunks.append(part)
            if not msg.get("more_body", False):
                return b"".join(chunks)


def _err(message):
    return json.dumps({"error": message}).encode()


async def _reply(send, status, body, headers):
    try:
        await send({"type": "http.response.start", "status": status,
                    "headers": headers + [(b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
    except Exception:  # the client disconnected; nothing to answer
        pass
