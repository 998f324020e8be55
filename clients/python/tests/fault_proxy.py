"""An HTTP proxy in front of the real service that records requests and can lose answers on the way back.

A lost answer is the case retries are about: the request reached the service and was carried out, and the
client saw the connection close instead of the answer.
"""

from __future__ import annotations

import http.client
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional
from urllib.parse import urlsplit


@dataclass(frozen=True)
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-case names."""
    body: bytes


class FaultProxy:
    def __init__(self, upstream: str, port: int = 0) -> None:
        target = urlsplit(upstream)
        self.upstream_host = target.hostname or "127.0.0.1"
        self.upstream_port = target.port or 80
        self.requests: list[SeenRequest] = []
        self.answers_to_lose = 0
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {name: value for name, value in self.headers.items()}
                seen = SeenRequest(self.command, self.path, {name.lower(): value for name, value in headers.items()}, body)
                with proxy._lock:
                    proxy.requests.append(seen)
                upstream = http.client.HTTPConnection(proxy.upstream_host, proxy.upstream_port, timeout=30)
                try:
                    upstream.request(self.command, self.path, body=body or None, headers=headers)
                    answer = upstream.getresponse()
                    payload = answer.read()
                finally:
                    upstream.close()
                with proxy._lock:
                    lose = proxy.answers_to_lose > 0
                    if lose:
                        proxy.answers_to_lose -= 1
                if lose:
                    # The service has carried the request out; the client only sees the connection close.
                    self.close_connection = True
                    return
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length", "keep-alive"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread: Optional[threading.Thread] = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> "FaultProxy":
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def lose_next_answers(self, count: int = 1) -> None:
        with self._lock:
            self.answers_to_lose = count

    def requests_to(self, path_fragment: str) -> list[SeenRequest]:
        with self._lock:
            return [request for request in self.requests if path_fragment in request.path]
