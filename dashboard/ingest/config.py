"""Where to pull metrics from and how to authenticate; secrets never appear in any repr or log."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

SECRETS_FILE = Path(".streamlit") / "secrets.toml"
ENV_PREFIX = "KVSCOPE_PROMETHEUS_"


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
        return f"PrometheusConfig(url={self.url!r}, {auth}, verify_tls={self.verify_tls})"

    __str__ = __repr__


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
        raise ValueError(f"Prometheus URL must start with http:// or https://, got {chosen_url!r}")
    skip = env.get(ENV_PREFIX + "INSECURE_SKIP_VERIFY", "") in ("1", "true") or secrets.get(
        "insecure_skip_verify"
    )
    return PrometheusConfig(
        url=chosen_url.rstrip("/"),
        token=token,
        username=pick(None, "username"),
        password=pick(None, "password"),
        ca_bundle=pick(ca_bundle, "ca_bundle"),
        verify_tls=bool(verify_tls) if verify_tls is not None else not skip,
        matchers=tuple(matchers),
    )


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
