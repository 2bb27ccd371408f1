"""HTTP /metrics endpoints for a simulated cluster: one server per port, text rendered per scrape."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _handler(render: Callable[[], str]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            if self.path.split("?")[0] != "/metrics":
                self.send_error(404, "only /metrics is served")
                return
            body = render().encode()
            self.send_response(200)
            self.send_header("Content-Type", CONTENT_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return  # NOTE: Prometheus scrapes every few seconds; access logs would drown stderr

    return Handler


def serve(host: str, port: int, render: Callable[[], str]) -> ThreadingHTTPServer:
    """Start a /metrics server on host:port in a daemon thread; call .shutdown() to stop it."""
    try:
        server = ThreadingHTTPServer((host, port), _handler(render))
    except OSError as exc:
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    threading.Thread(target=server.serve_forever, args=(0.1,), name=f"metrics-{port}", daemon=True).start()
    return server
