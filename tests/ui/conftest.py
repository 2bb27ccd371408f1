"""The UI tests share the live stack in tests/live_stack.py."""

from tests.live_stack import exporters, live_stack  # noqa: F401 (pytest fixtures)
