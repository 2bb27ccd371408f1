"""Readiness polls for tests: wait for a condition, never a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(probe: Callable[[], T], what: str, timeout_s: float = 30.0, every_s: float = 0.2) -> T:
    """Call probe until it returns something truthy and return that; fail naming `what` at the deadline."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {timeout_s:g} s waiting for {what}"
        time.sleep(every_s)
