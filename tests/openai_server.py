"""A scripted OpenAI-compatible server on 127.0.0.1 for the LLM Interpreter's tests.

It implements ``POST /v1/chat/completions`` the way OpenAI-compatible servers
do (the real ``openai`` client talks to it over HTTP), and answers each
request with the next step of a script:

* ``reply(content)``: a completion whose message content is ``content``
  (a dict is sent as its JSON);
* ``status(code, retry_after=None)``: an error response (429, 500, 503, ...);
* ``slow(seconds, content)``: the completion, after ``seconds`` (past the
  client's timeout, the client gives up first).

Hostile behaviours, for the Interpreter's robustness (it must never abort a run):

* ``raw(body, content_type)``: a 200 whose body is exactly ``body`` (truncated
  JSON, a wrong envelope such as ``{"choices": "abc"}``, brackets nested
  100,000 deep...);
* ``html(body)``: a 200 with an HTML page, as a proxy's error page is;
* ``trickle(seconds_per_byte, content)``: the completion, one byte at a time, so
  that every read succeeds and only a total deadline can stop the request;
* ``gzipped(content)``: the completion, sent gzip-compressed;
* ``gzip_bomb(inflated)``: a completion sent with ``Content-Encoding: gzip``,
  a thousandth of its size on the wire, inflating to ``inflated`` bytes.

Every request body is kept in ``requests`` for the test to inspect.  The
server runs in a daemon thread and stops when the fixture closes it.
"""

from __future__ import annotations

import functools
import gzip
import json
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    status: int = 200
    content: Any = None
    delay: float = 0.0
    retry_after: str | None = None
    body: bytes | None = None
    content_type: str = "application/json"
    trickle: float = 0.0
    encoding: str | None = None


def reply(content: Any) -> Step:
    return Step(content=content)


def status(code: int, retry_after: str | None = None) -> Step:
    return Step(status=code, retry_after=retry_after)


def slow(seconds: float, content: Any) -> Step:
    return Step(content=content, delay=seconds)


def raw(body: str | bytes, content_type: str = "application/json") -> Step:
    return Step(body=body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body,
                content_type=content_type)


def html(body: str = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>") -> Step:
    return raw(body, "text/html")


def trickle(seconds_per_byte: float, content: Any) -> Step:
    return Step(content=content, trickle=seconds_per_byte)


def gzipped(content: Any) -> Step:
    """The completion, sent gzip-compressed (``Content-Encoding: gzip``), as servers may."""
    return Step(content=content, encoding="gzip")


@functools.cache
def gzip_bomb(inflated: int = 200 << 20) -> Step:
    """A well-formed completion whose content is ``inflated`` bytes of "a", gzip-compressed a MiB at a time
    (the whole is never held here; made once per size, as it takes a second)."""
    head = (b'{"id": "chatcmpl-bomb", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop", '
            b'"message": {"role": "assistant", "content": "')
    tail = b'"}}]}'
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"a" * (1 << 20)
    parts = [z.compress(head)]
    parts += [z.compress(block) for _ in range((inflated - len(head) - len(tail)) // len(block))]
    parts += [z.compress(tail), z.flush()]
    return Step(body=b"".join(parts), encoding="gzip")


class ScriptedServer:
    def __init__(self) -> None:
        self.script: deque[Step] = deque()
        self.requests: list[dict] = []
        self.closed = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with server._lock:
                    server.requests.append(body)
                    step = server.script.popleft() if server.script else Step(
                        status=500, content="script exhausted")
                if step.delay and server.closed.wait(step.delay):  # close() ends a delay at once
                    return
                if step.status != 200:
                    headers = {"Retry-After": step.retry_after} if step.retry_after else {}
                    self._send(step.status, {"error": {"message": f"scripted {step.status}",
                                                       "type": "scripted", "code": step.status}}, headers)
                    return
                if step.body is not None:
                    self._send_bytes(200, step.body, step.content_type,
                                     {"Content-Encoding": step.encoding} if step.encoding else None)
                    return
                content = step.content if isinstance(step.content, str) else json.dumps(step.content)
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion",
                    "created": int(time.time()), "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 100 + len(server.requests), "completion_tokens": 20,
                              "total_tokens": 120 + len(server.requests)},
                }, trickle=step.trickle, encoding=step.encoding)

            def _send(self, code: int, payload: dict, headers: dict[str, str] | None = None,
                      trickle: float = 0.0, encoding: str | None = None) -> None:
                data = json.dumps(payload).encode()
                if encoding == "gzip":
                    data = gzip.compress(data)
                    headers = {**(headers or {}), "Content-Encoding": "gzip"}
                self._send_bytes(code, data, "application/json", headers, trickle)

            def _send_bytes(self, code: int, data: bytes, content_type: str,
                            headers: dict[str, str] | None = None, trickle: float = 0.0) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    if not trickle:
                        self.wfile.write(data)
                        return
                    self.wfile.flush()
                    for i in range(len(data)):  # bounded: one byte per step, until the client leaves
                        if server.closed.wait(trickle):
                            return
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def push(self, *steps: Step) -> None:
        with self._lock:
            self.script.extend(steps)

    def close(self) -> None:
        self.closed.set()
        self.httpd.shutdown()
        self.httpd.server_close()
