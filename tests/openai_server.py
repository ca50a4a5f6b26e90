"""A scripted OpenAI-compatible server on 127.0.0.1 for the LLM Interpreter's tests.

It implements ``POST /v1/chat/completions`` the way OpenAI-compatible servers
do (the real ``openai`` client talks to it over HTTP), and answers each
request with the next step of a script:

* ``reply(content)``: a completion whose message content is ``content``
  (a dict is sent as its JSON);
* ``status(code, retry_after=None)``: an error response (429, 500, 503, ...);
* ``slow(seconds, content)``: the completion, after ``seconds`` (past the
  client's timeout, the client gives up first).

Every request body is kept in ``requests`` for the test to inspect.  The
server runs in a daemon thread and stops when the fixture closes it.
"""

from __future__ import annotations

import json
import threading
import time
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


def reply(content: Any) -> Step:
    return Step(content=content)


def status(code: int, retry_after: str | None = None) -> Step:
    return Step(status=code, retry_after=retry_after)


def slow(seconds: float, content: Any) -> Step:
    return Step(content=content, delay=seconds)


class ScriptedServer:
    def __init__(self) -> None:
        self.script: deque[Step] = deque()
        self.requests: list[dict] = []
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
                if step.delay:
                    time.sleep(step.delay)
                if step.status != 200:
                    headers = {"Retry-After": step.retry_after} if step.retry_after else {}
                    self._send(step.status, {"error": {"message": f"scripted {step.status}",
                                                       "type": "scripted", "code": step.status}}, headers)
                    return
                content = step.content if isinstance(step.content, str) else json.dumps(step.content)
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion",
                    "created": int(time.time()), "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 100 + len(server.requests), "completion_tokens": 20,
                              "total_tokens": 120 + len(server.requests)},
                })

            def _send(self, code: int, payload: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def push(self, *steps: Step) -> None:
        with self._lock:
            self.script.extend(steps)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
