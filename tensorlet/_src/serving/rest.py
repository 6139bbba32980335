"""The REST API as an ASGI application (served by uvicorn): TF Serving's ``/v1/models/...`` routes and the
Prometheus endpoint. A predict with a small body is parsed and answered on the event loop; its model call goes to
the batcher, or runs inline when the signature's calls are short, or on the thread pool of
``--rest_api_num_threads`` workers (where every other request runs). A request that takes longer than
``--rest_api_timeout_in_ms`` gets DEADLINE_EXCEEDED (504)."""

from __future__ import annotations

import asyncio
import json
import re
import time

from tensorlet._src.serving.errors import DEADLINE_EXCEEDED, HTTP_STATUS, ServingError
from tensorlet._src.serving.rest_predict import RestPredict

_API_RE = re.compile(r"/v1/.*", re.IGNORECASE | re.DOTALL)
_JSON = [(b"content-type", b"application/json")]
MAX_BODY_BYTES = 1 << 30
# a predict body up to this size is parsed on the event loop (larger ones on a worker thread, like other requests)
INLINE_BODY_BYTES = 1 << 18


class RestApp:
    def __init__(self, service, executor, timeout_s=None, metrics=None, metrics_path=None,
                 max_body_bytes=MAX_BODY_BYTES, server_timing=False):
        self.service = service
        self.server_timing = server_timing  # add a Server-Timing header (the app's time on the request)
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
        t0 = time.perf_counter()
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
        route = self.service.rest_predict_route(method, path) if len(body) <= INLINE_BODY_BYTES else None
        call_s = None
        if route is not None:
            status, text, call_s = await self._predict(route, body)
        else:
            loop = asyncio.get_running_loop()
            fut = loop.run_in_executor(self.executor, self.service.rest, method, path, body)
            try:
                status, text, _, _ = await asyncio.wait_for(asyncio.shield(fut), self.timeout_s)
            except asyncio.TimeoutError:
                status, text = HTTP_STATUS[4], json.dumps({"error": "Deadline Exceeded"})
        headers = _JSON
        if self.server_timing:  # the app's time on the request, and the model call's share of it
            timing = b"app;dur=%.3f" % ((time.perf_counter() - t0) * 1e3)
            if call_s is not None:
                timing += b", call;dur=%.3f" % (call_s * 1e3)
            headers = _JSON + [(b"server-timing", timing)]
        await _reply(send, status, text.encode(), headers)

    async def _predict(self, route, body):
        """A predict on the event loop: parsing, checks and the response here; the model call through the batcher
        (nothing waits in a thread), inline when it is known to be short, else on the worker threads. Returns
        (status, body, seconds in the model call or waiting for its batch)."""
        req = RestPredict(self.service, *route)
        waiting = call = None
        t_call = None
        try:
            if req.ticket is not None and req.ticket.batching():
                # let the requests that arrived with this one count themselves in first, so its batch waits for them
                await asyncio.sleep(0)
            req.start(body)
            cheap = req.sig.short(req.arrays)
            t_call = time.perf_counter()
            if req.batcher is not None:
                task = req.batcher.run_alone(req.arrays, req.ticket) if cheap else None
                if task is not None:  # a lone request, and a short call: its batch of one runs here
                    if task.error is not None:
                        raise task.error
                    out = task.result
                else:
                    waiting = req.batcher.submit_async(req.arrays, asyncio.get_running_loop(), req.ticket)
                    req.ticket = None
            elif cheap:
                out = req.call()
            else:
                call = waiting = self.executor.submit(req.call)
            if waiting is not None:
                out = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(waiting)), self.timeout_s)
                waiting = None
            t_call = time.perf_counter() - t_call
            return 200, req.text(out), t_call
        except asyncio.TimeoutError:
            return (*req.error(ServingError(DEADLINE_EXCEEDED, "Deadline Exceeded")), None)
        except Exception as e:
            return (*req.error(e), None)
        finally:
            if call is not None and waiting is not None:
                # timed out (or cancelled) while a worker thread runs the call: the servable stays counted in
                # until the call ends (a callback on that thread; at once if it has ended)
                call.add_done_callback(lambda f: req.close())
            else:
                # a batch that is still queued or running needs no count: unloading closes the batcher, which
                # runs what it holds first (its answer to this request is dropped)
                if waiting is not None:
                    waiting.cancel()
                req.close()

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
