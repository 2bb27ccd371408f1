"""PNG export keeps one Chromium per process (dashboard/ui/png_renderer.py): real kaleido, the system Chromium."""

from __future__ import annotations

import os
import signal
from concurrent.futures import ThreadPoolExecutor

import plotly.graph_objects as go
import pytest

from dashboard.ui.export import export_png, rendered_png, system_chromium
from dashboard.ui.png_renderer import RENDERER

pytestmark = pytest.mark.usefixtures("system_chromium")  # skipped without one, failed in CI


def chart(title: str) -> go.Figure:
    return go.Figure(go.Bar(x=["gpu", "cpu", "disk"], y=[3, 2, 1]), layout={"title": title})


def fresh_png(title: str) -> bytes:
    """A PNG rendered now, not one export's memory kept."""
    rendered_png.cache_clear()
    return export_png(chart(title), f"caption of {title}")


def test_one_chromium_renders_every_png_of_a_process():
    fresh_png("first")
    pid = RENDERER.browser_pid()
    assert pid is not None
    fresh_png("second")
    fresh_png("third")
    assert RENDERER.browser_pid() == pid


def test_a_browser_that_ended_is_replaced_by_the_next_export():
    before = fresh_png("before")
    os.kill(RENDERER.browser_pid(), signal.SIGKILL)
    killed = RENDERER.browser_pid()
    after = fresh_png("before")
    assert after == before
    assert RENDERER.browser_pid() not in (None, killed)


def test_exports_asked_at_once_from_two_threads_each_get_their_own_picture():
    # NOTE: Streamlit serves each browser session from its own thread
    titles = ("left", "right")
    alone = {title: fresh_png(title) for title in titles}
    rendered_png.cache_clear()
    with ThreadPoolExecutor(2) as pool:
        at_once = list(pool.map(lambda t: export_png(chart(t), f"caption of {t}"), titles))
    assert at_once == [alone[t] for t in titles]
    assert alone["left"] != alone["right"]


@pytest.mark.parametrize(
    "installed, chosen",
    [
        (("chromium", "chromium-headless-shell"), "chromium-headless-shell"),
        (("chromium",), "chromium"),
        (("chromium-browser",), "chromium-browser"),
        ((), None),
    ],
)
def test_export_drives_the_headless_shell_when_it_is_installed(tmp_path, monkeypatch, installed, chosen):
    for name in installed:
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert system_chromium() == (str(tmp_path / chosen) if chosen else None)
