"""Real HTTP servers on 127.0.0.1 that misbehave on purpose: 500s, garbage, trickles, resets,
huge bodies, echoed credentials, TLS with a private CA. Each path of one server is one behaviour,
and a test may swap a path's behaviour while the server runs."""

from __future__ import annotations

import socket
import ssl
import struct
import subprocess
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

Behaviour = Callable[[BaseHTTPRequestHandler, threading.Event], None]
EXPOSITION = "text/plain; version=0.0.4; charset=utf-8"

# A page with the catalog's names, as a vLLM pod serves it.
GOOD_PAGE = (
    "# TYPE vllm:prefix_cache_queries counter\n"
    'vllm:prefix_cache_queries_total{model_name="m"} 1000\n'
    "# TYPE vllm:prefix_cache_hits counter\n"
    'vllm:prefix_cache_hits_total{model_name="m"} 400\n'
)
# prometheus_client's parser fails on this line with IndexError, not ValueError.
CHOKING_PAGE = '{"a", ="c"} 2\n'


def send(
    body: bytes | str, status: int = 200, content_type: str = EXPOSITION, headers: dict | None = None
) -> Behaviour:
    """Answer with status and body."""
    data = body.encode() if isinstance(body, str) else body

    def behave(h: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        h.send_response(status)
        h.send_header("Content-Type", content_type)
        h.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            h.send_header(key, value)
        h.end_headers()
        h.wfile.write(data)

    return behave


def echo_authorization(status: int = 500, as_json: bool = False) -> Behaviour:
    """An error page that quotes the request's Authorization header back (a careless proxy)."""

    def behave(h: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        sent = h.headers.get("Authorization", "nothing")
        text = f"you sent {sent}"
        if as_json:
            body = '{"status":"error","errorType":"bad_data","error":"' + text + '"}'
            send(body, status, "application/json")(h, stop)
        else:
            send(text + "\n", status, "text/plain")(h, stop)

    return behave


def echo_token_in_page() -> Behaviour:
    """A 200 page whose one broken line quotes the bearer token (a parser error would quote it)."""

    def behave(h: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        token = h.headers.get("Authorization", "").removeprefix("Bearer ")
        send(f'vllm:prefix_cache_hits_total{{token="{token}" 1\n')(h, stop)

    return behave


def require_authorization(expected: str, page: str = GOOD_PAGE) -> Behaviour:
    """The page for requests carrying exactly this Authorization header, else 401."""

    def behave(h: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        if h.headers.get("Authorization") == expected:
            send(page)(h, stop)
        else:
            send("unauthorized\n", 401, "text/plain")(h, stop)

    return behave


def trickle(num_bytes: int = 10_000, every_s: float = 1.0) -> Behaviour:
    """Headers at once, then one byte of the page every every_s (until the client leaves)."""

    def behave(h: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        h.send_response(200)
        h.send_header("Content-Type", EXPOSITION)
        h.send_header("Content-Length", str(num_bytes))
        h.end_headers()
        for _ in range(num_bytes):
            h.wfile.write(b"#")
            h.wfile.flush()
            if stop.wait(every_s):
                return

    return behave


def reset_mid_body() -> Behaviour:
    """Promise 1000 bytes, send 20, then reset the connection (RST, not a clean close)."""

    def behave(h: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        h.send_response(200)
        h.send_header("Content-Type", EXPOSITION)
        h.send_header("Content-Length", "1000")
        h.end_headers()
        h.wfile.write(GOOD_PAGE[:20].encode())
        h.wfile.flush()
        h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.connection.close()

    return behave


def huge(num_bytes: int = 200_000_000, declare_length: bool = False) -> Behaviour:
    """A page of num_bytes of comment lines, sent in 1 MiB writes (never held whole here)."""
    block = (b"# " + b"x" * 1021 + b"\n") * 1024

    def behave(h: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        h.send_response(200)
        h.send_header("Content-Type", EXPOSITION)
        if declare_length:
            h.send_header("Content-Length", str(num_bytes))
        h.end_headers()  # NOTE: HTTP/1.0 without a length: the body ends when the connection closes
        sent = 0
        while sent < num_bytes and not stop.is_set():
            h.wfile.write(block[: num_bytes - sent])
            sent += len(block)

    return behave


class BadServer:
    """A ThreadingHTTPServer on 127.0.0.1 whose paths behave as set; optionally TLS."""

    def __init__(self, routes: dict[str, Behaviour], tls: tuple[Path, Path] | None = None):
        self.routes = dict(routes)
        self.stop_event = threading.Event()
        self.num_requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(tls[0]), str(tls[1]))
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.1,), daemon=True).start()

    def url(self, path: str, userinfo: str = "") -> str:
        return f"{self.scheme}://{userinfo}{'@' if userinfo else ''}127.0.0.1:{self.port}{path}"

    def set(self, path: str, behaviour: Behaviour) -> None:
        self.routes[path] = behaviour

    def stop(self) -> None:
        self.stop_event.set()
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                outer.num_requests += 1
                behaviour = outer.routes.get(self.path.split("?")[0])
                if behaviour is None:
                    send("not found\n", 404, "text/plain")(self, outer.stop_event)
                    return
                try:
                    behaviour(self, outer.stop_event)
                except OSError:
                    return  # the client left (a cut trickle, a refused huge page)

            def log_message(self, *args: object) -> None:
                return

        return Handler


def make_tls_files(folder: Path) -> dict[str, Path]:
    """A private CA and a server certificate for IP 127.0.0.1 signed by it (openssl CLI)."""
    files = {name: folder / name for name in ("ca.pem", "ca.key", "server.pem", "server.key", "server.csr")}
    ext = folder / "server.ext"
    ext.write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
        "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
    )
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run = ["openssl", "req", "-x509", *ec, "-keyout", files["ca.key"], "-out", files["ca.pem"], "-days", "2"]
    _openssl([*run, "-subj", "/CN=kvscope test CA", "-addext", "basicConstraints=critical,CA:TRUE",
              "-addext", "keyUsage=critical,keyCertSign,cRLSign"])  # fmt: skip
    _openssl(["openssl", "req", *ec, "-keyout", files["server.key"], "-out", files["server.csr"],
              "-subj", "/CN=127.0.0.1"])  # fmt: skip
    _openssl(["openssl", "x509", "-req", "-in", files["server.csr"], "-CA", files["ca.pem"], "-CAkey",
              files["ca.key"], "-CAcreateserial", "-out", files["server.pem"], "-days", "2",
              "-extfile", ext])  # fmt: skip
    return files


def _openssl(cmd: list) -> None:
    subprocess.run([str(c) for c in cmd], check=True, capture_output=True, timeout=60)
