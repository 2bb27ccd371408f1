"""Where to pull metrics from and how to authenticate; secrets never appear in any repr or log."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dashboard.ingest.http_client import HttpSettings, redact_url

SECRETS_FILE = Path(".streamlit") / "secrets.toml"
ENV_PREFIX = "KVSCOPE_PROMETHEUS_"
SCRAPE_ENV_PREFIX = "KVSCOPE_SCRAPE_"


@dataclass(frozen=True)
class PrometheusConfig:
    """A PromQL-compatible HTTP API (Prometheus, Thanos Query, Mimir, VictoriaMetrics)."""

    url: str
    token: str | None = field(default=None, repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_bundle: str | None = None
    verify_tls: bool = True
    timeout_s: float = 30.0
    matchers: tuple[str, ...] = ()  # extra label matchers, e.g. 'namespace="llm-d"'

    def __repr__(self) -> str:
        auth = "bearer token" if self.token else ("basic auth" if self.username else "no auth")
        return f"PrometheusConfig(url={redact_url(self.url)!r}, {auth}, verify_tls={self.verify_tls})"

    __str__ = __repr__

    def http_settings(self) -> HttpSettings:
        """The auth and TLS settings the HTTP client needs."""
        return HttpSettings(self.token, self.username, self.password, self.ca_bundle, self.verify_tls)


@dataclass(frozen=True)
class ScrapeConfig:
    """Direct /metrics scraping: auth and TLS shared by every target, a deadline per scrape round
    and a size limit per page. Basic auth comes from a target's own `user:pass@` URL."""

    http: HttpSettings = HttpSettings()
    deadline_s: float = 10.0
    max_page_bytes: int = 64 << 20  # NOTE: a vLLM page is ~100 kB; this bounds a broken one's memory

    def __repr__(self) -> str:
        auth = "bearer token" if self.http.token else "no token"
        return f"ScrapeConfig({auth}, verify_tls={self.http.verify_tls}, deadline_s={self.deadline_s:g})"


def load_scrape_config(
    token_file: str | None = None,
    ca_bundle: str | None = None,
    verify_tls: bool | None = None,
    env: Mapping[str, str] | None = None,
) -> ScrapeConfig:
    """Flags override $KVSCOPE_SCRAPE_TOKEN_FILE, _CA_BUNDLE and _INSECURE_SKIP_VERIFY (the
    Prometheus credentials are never sent to pods)."""
    env = os.environ if env is None else env
    token_file = token_file or env.get(SCRAPE_ENV_PREFIX + "TOKEN_FILE")
    skip = env.get(SCRAPE_ENV_PREFIX + "INSECURE_SKIP_VERIFY", "") in ("1", "true")
    http = HttpSettings(
        token=_read_token(token_file) if token_file else None,
        ca_bundle=_ca_bundle(ca_bundle or env.get(SCRAPE_ENV_PREFIX + "CA_BUNDLE")),
        verify_tls=bool(verify_tls) if verify_tls is not None else not skip,
    )
    return ScrapeConfig(http=http)


def load_config(
    url: str | None = None,
    token_file: str | None = None,
    ca_bundle: str | None = None,
    verify_tls: bool | None = None,
    matchers: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
    secrets_path: Path = SECRETS_FILE,
) -> PrometheusConfig:
    """Flags override environment variables, which override .streamlit/secrets.toml [prometheus]."""
    env = os.environ if env is None else env
    secrets = _secrets(secrets_path)

    def pick(flag: str | None, key: str) -> str | None:
        return flag or env.get(ENV_PREFIX + key.upper()) or secrets.get(key)

    token = _read_token(token_file) if token_file else pick(None, "token")
    chosen_url = pick(url, "url")
    if not chosen_url:
        raise ValueError(f"no Prometheus URL: pass --prometheus URL or set {ENV_PREFIX}URL")
    if not chosen_url.startswith(("http://", "https://")):
        raise ValueError(
            f"Prometheus URL must start with http:// or https://, got {redact_url(chosen_url)!r}"
        )
    skip = env.get(ENV_PREFIX + "INSECURE_SKIP_VERIFY", "") in ("1", "true") or secrets.get(
        "insecure_skip_verify"
    )
    return PrometheusConfig(
        url=chosen_url.rstrip("/"),
        token=token,
        username=pick(None, "username"),
        password=pick(None, "password"),
        ca_bundle=_ca_bundle(pick(ca_bundle, "ca_bundle")),
        verify_tls=bool(verify_tls) if verify_tls is not None else not skip,
        matchers=tuple(matchers),
    )


def _ca_bundle(path: str | None) -> str | None:
    """The CA bundle path, checked now (requests would only say so mid-pull, as an OSError)."""
    if path and not Path(path).is_file():
        raise ValueError(f"CA bundle {path}: no such file")
    return path


def _read_token(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError as exc:
        raise ValueError(f"cannot read token file {path}: {exc.strerror}") from None


def _secrets(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        return dict(tomllib.loads(path.read_text()).get("prometheus", {}))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None
