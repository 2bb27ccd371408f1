"""kvscope's entry points take Arrow off mimalloc's huge pages (dashboard/core/arrow_memory.py),
unless the user chose Arrow's pool in the environment."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dashboard.core.arrow_memory import POOL_ENV_VAR

# NOTE: the pool a `kvscope` process allocates with after its command ran
AFTER_A_COMMAND = (
    "import pyarrow as pa; from dashboard.cli import main; "
    "code = main(['rules']); print(code, pa.default_memory_pool().backend_name)"
)


def pool_after_a_command(env_pool: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != POOL_ENV_VAR}
    if env_pool:
        env[POOL_ENV_VAR] = env_pool
    out = subprocess.run(
        [sys.executable, "-c", AFTER_A_COMMAND], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[-2] == "0", out
    return out[-1]


def test_a_kvscope_command_allocates_arrow_memory_with_jemalloc_not_mimalloc():
    import pyarrow as pa

    expected = "jemalloc" if "jemalloc" in pa.supported_memory_backends() else "system"
    assert pool_after_a_command(None) == expected


@pytest.mark.parametrize("chosen", ["mimalloc", "system"])
def test_a_pool_the_user_chose_in_the_environment_is_kept(chosen):
    assert pool_after_a_command(chosen) == chosen
