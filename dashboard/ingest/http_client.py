"""kvscope's one HTTP client: the user's TLS and auth settings, bodies read under a deadline and a
size limit, and error texts that never hold a secret.

Every message this module builds names the source and its URL with any `user:pass@` removed,
and goes through redact(): a server that echoes the Authorization header back in its error body
cannot make a token appear in a message, a log line or the sidebar.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

READ_BYTES = 1 << 20  # one read1() call: returns as soon as any bytes arrive, at most this many
MAX_DETAIL_CHARS = 200
_USERINFO = re.compile(r"(?<=://)[^/?#@\s]+@")
# NOTE: credentials kvscope does not know (a proxy's, a decoded one) still have recognisable forms.
_AUTH_VALUE = re.compile(r"(?i)\b(bearer\s+|basic\s+|token\s*[:=]\s*)[A-Za-z0-9._~+/\-]{8,}=*")
_AUTH_HEADER = re.compile(r"""(?i)(authorization"?\s*[:=]\s*\[?\s*"?)([^"\s,;}\]]+(?:[ \t]+[^"\s,;}\]]+)?)""")
_REASONS = (
    ("certificate verify failed", "TLS certificate verify failed"),
    ("Connection refused", "connection refused"),
    ("Connection reset", "connection reset"),
    ("RemoteDisconnected", "connection closed without an answer"),
    ("Name or service not known", "unknown host"),
    ("timed out", "timed out"),
    ("SSLError", "TLS handshake failed"),
)


@dataclass(frozen=True)
class HttpSettings:
    """Auth and TLS for one source; secrets stay out of repr."""

    token: str | None = field(default=None, repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_bundle: str | None = None
    verify_tls: bool = True

    @property
    def verify(self) -> bool | str:
        """What requests' `verify` gets: False when the user turned checks off, else their CA or True."""
        return False if not self.verify_tls else (self.ca_bundle or True)

    def secrets(self) -> tuple[str, ...]:
        """Every credential these settings hold, and the header forms they travel in."""
        found = [s for s in (self.token, self.password) if s]
        if self.username and self.password:
            found += [self.username, _basic(self.username, self.password)]
        return tuple(found)


@dataclass(frozen=True)
class Answer:
    """One HTTP answer, its body read in full (under the limit)."""

    status: int
    body: bytes
    content_type: str


def redact_url(url: str) -> str:
    """The URL with any `user:pass@` replaced by `***@`."""
    return _USERINFO.sub("***@", url)


def url_secrets(url: str) -> tuple[str, ...]:
    """The user name and password a URL carries (decoded and as written), and their header form."""
    parts = urlsplit(url)
    if not parts.username and not parts.password:
        return ()
    user, password = parts.username or "", parts.password or ""
    found = [user, password, unquote(user), unquote(password), _basic(unquote(user), unquote(password))]
    return tuple(s for s in found if s)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """text without URL userinfo, Authorization values, bearer/basic credentials or any listed secret."""
    text = _AUTH_VALUE.sub(_hide_credential, _USERINFO.sub("***@", text))
    text = _AUTH_HEADER.sub(lambda m: m[1] + "***", text)
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


class _Session(requests.Session):
    """A session whose own `verify` wins over REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE.

    NOTE: requests replaces a request's verify=None/True with those variables and only then falls
    back to the session's, so a session's CA bundle (or verify=False) would silently lose to the
    environment. Proxies and the rest of the environment still apply.
    """

    def merge_environment_settings(self, url, proxies, stream, verify, cert):  # noqa: ANN001, ANN201
        settings = super().merge_environment_settings(url, proxies, stream, verify, cert)
        if self.verify is not True:
            settings["verify"] = self.verify
        return settings


class HttpClient:
    """One source's session (auth, TLS, retries) and the secrets to keep out of its messages."""

    def __init__(self, settings: HttpSettings, *, retry: Retry | None = None):
        self.session = _Session()
        self.session.verify = settings.verify
        if settings.token:
            self.session.headers["Authorization"] = f"Bearer {settings.token}"
        if settings.username:
            self.session.auth = (settings.username, settings.password or "")
        if retry is not None:
            adapter = HTTPAdapter(max_retries=retry)
            self.session.mount("http://", adapter)
            self.session.mount("https://", adapter)
        if not settings.verify_tls:
            # NOTE: the user turned checks off and kvscope warns once; urllib3 would warn per request.
            urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
        self.secrets = settings.secrets()

    def redact(self, text: str, url: str = "") -> str:
        """text with this client's secrets (and url's userinfo) removed."""
        return redact(text, self.secrets + url_secrets(url))

    def get(
        self,
        url: str,
        *,
        what: str,
        params: dict | None = None,
        timeout_s: float,
        deadline_s: float,
        max_bytes: int,
        started: float | None = None,
    ) -> Answer:
        """GET url; ConnectionError naming `what` and the redacted URL when no full answer arrives
        within deadline_s of `started` (time.monotonic(), default now) or the body passes
        max_bytes. Any HTTP status is returned, not raised."""
        where = f"{what} at {redact_url(url)}"
        deadline = (time.monotonic() if started is None else started) + deadline_s
        wait_s = max(min(timeout_s, deadline - time.monotonic()), 0.001)
        try:
            response = self.session.get(
                url, params=params, headers=request_headers(url), stream=True, timeout=(wait_s, wait_s)
            )
        except requests.Timeout:
            raise ConnectionError(f"{where} gave no answer within {min(timeout_s, deadline_s):g} s") from None
        except requests.RequestException as exc:
            raise ConnectionError(f"{where} is unreachable: {self._reason(exc, url)}") from None
        with response:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise ConnectionError(
                    f"{where} sent {_mb(int(declared))}, over the {_mb(max_bytes)} limit; refused"
                )
            body = self._read_body(response, where, url, deadline, deadline_s, max_bytes)
        return Answer(response.status_code, body, response.headers.get("Content-Type", ""))

    def _read_body(
        self,
        response: requests.Response,
        where: str,
        url: str,
        deadline: float,
        deadline_s: float,
        max_bytes: int,
    ) -> bytes:
        """The decoded body, read in pieces as they arrive, so a trickle is cut at the deadline and
        memory stays under max_bytes whatever the server sends."""
        parts: list[bytes] = []
        size = 0
        while True:
            if time.monotonic() > deadline:
                raise ConnectionError(f"{where} sent no complete answer within {deadline_s:g} s")
            try:
                piece = response.raw.read1(READ_BYTES, decode_content=True)
            except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
                raise ConnectionError(f"{where} broke off its answer: {self._reason(exc, url)}") from None
            if not piece:
                return b"".join(parts)
            size += len(piece)
            if size > max_bytes:
                raise ConnectionError(f"{where} sent more than the {_mb(max_bytes)} limit; refused")
            parts.append(piece)

    def api_error(self, answer: Answer, url: str, max_chars: int | None = MAX_DETAIL_CHARS) -> str:
        """The `error` field of a JSON error body (Prometheus's API shape), redacted, one line and
        at most max_chars long (None: whole); '' for any other body, which is never quoted (it may
        echo anything back)."""
        try:
            parsed = json.loads(answer.body)
        except ValueError:
            return ""
        text = str(parsed.get("error") or "") if isinstance(parsed, dict) else ""
        return " ".join(self.redact(text, url).split())[:max_chars]

    def close(self) -> None:
        """Release the session's connections."""
        self.session.close()

    def _reason(self, exc: BaseException, url: str) -> str:
        """A short, secret-free reason for a transport failure."""
        text = f"{type(exc).__name__} {exc}"
        for needle, reason in _REASONS:
            if needle in text:
                return reason
        return self.redact(type(exc).__name__, url)


def request_headers(url: str) -> dict[str, str]:
    """Headers a GET of url adds to its session's: a server on this host is asked not to compress.

    NOTE: compressing costs the server far more than sending: a 6 h pull from a Prometheus on this
    host took 0.37 s with gzip (Prometheus spent 0.37 of its 0.44 CPU-s compressing, the collector
    0.04 inflating) and 0.21 s without (bench_ingest, 2026-12-07). Over a network the bytes saved
    are worth it, so any other host keeps requests' default (gzip, deflate).
    """
    return {"Accept-Encoding": "identity"} if is_loopback(url) else {}


def is_loopback(url: str) -> bool:
    """Whether url's host is this machine: localhost, 127.0.0.0/8 or ::1."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _hide_credential(m: re.Match) -> str:
    """`Bearer X` / `token=X` → `Bearer ***`; `Basic X` only when X decodes to `user:pass` (so
    "basic authentication" is left as it is)."""
    if m[1].lower().startswith("basic"):
        try:
            if b":" not in base64.b64decode(m[0][len(m[1]) :], validate=True):
                return m[0]
        except ValueError:
            return m[0]
    return m[1] + "***"


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


def _mb(num_bytes: int) -> str:
    return f"{num_bytes / 1e6:,.0f} MB" if num_bytes >= 1e6 else f"{num_bytes:,} bytes"
