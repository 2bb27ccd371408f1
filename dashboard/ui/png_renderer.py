"""One Chromium kept open per process for PNG export: after the first PNG, each is a render in its tab.

NOTE: kaleido's one-shot call starts and stops a Chromium for every PNG. Measured on the 2-core
machine (four small figures, one after another): 1.8-2.0 s each that way; with the browser kept
open, 1.7 s for the first and 0.16-0.18 s for each after. Renders take turns (one lock): kaleido's
own kept-open server mixes up the answers of two threads asking at once, and Streamlit serves each
browser session from a thread of its own.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import subprocess
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import kaleido

RENDER_TIMEOUT_S = 90  # kaleido's own per-figure limit
ATTEMPTS = 3  # NOTE: a new browser for a render that failed for one of the browser's passing faults
CLOSE_TIMEOUT_S = 10
ENDED_WAIT_S = 2  # NOTE: after a failed render, how long an ending browser has to be seen gone
log = logging.getLogger(__name__)


class PngRenderer:
    """A kaleido Chromium on an event loop of its own, started on the first render and replaced after a failure."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido: kaleido.Kaleido | None = None

    def render(self, figure: dict[str, Any], opts: dict[str, Any]) -> bytes:
        """PNG bytes of a plotly figure dict. A render that failed because the browser ended since the
        last one (killed, crashed) or because kaleido's page was not ready is tried again in a new
        browser, up to ATTEMPTS in all; any failure closes the browser, so the next call starts anew."""
        with self._lock:
            for attempt in range(1, ATTEMPTS + 1):
                try:
                    return self._render(figure, opts)
                except BaseException as exc:  # NOTE: an interrupt mid-render leaves no half-used browser
                    worth_again = isinstance(exc, Exception) and (
                        self._browser_ended() or _page_was_not_ready(exc)
                    )
                    self._close()
                    if attempt == ATTEMPTS or not worth_again:
                        raise
            raise AssertionError("unreachable: the last attempt returns or raises")

    def browser_pid(self) -> int | None:
        """The kept Chromium's process id, None before the first render or after a failure."""
        with self._lock:
            process = self._process()
            return None if process is None else process.pid

    def close(self) -> None:
        """Close the browser and its loop (at exit, or to start over)."""
        with self._lock:
            self._close()

    def _render(self, figure: dict[str, Any], opts: dict[str, Any]) -> bytes:
        if self._kaleido is None:
            self._open()
        return self._run(self._kaleido.calc_fig(figure, opts=opts), RENDER_TIMEOUT_S)

    def _process(self) -> subprocess.Popen | None:
        return getattr(self._kaleido, "subprocess", None)

    def _browser_ended(self) -> bool:
        process = self._process()
        try:
            return process is not None and process.wait(timeout=ENDED_WAIT_S) is not None
        except subprocess.TimeoutExpired:
            return False

    def _open(self) -> None:
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, name="kvscope-png", daemon=True).start()
        self._kaleido = self._run(_opened_kaleido(), RENDER_TIMEOUT_S)

    def _run(self, coroutine, timeout_s: float):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout_s)

    def _close(self) -> None:
        browser, loop = self._kaleido, self._loop
        self._kaleido = self._loop = None
        if browser is not None:
            try:
                asyncio.run_coroutine_threadsafe(browser.close(), loop).result(CLOSE_TIMEOUT_S)
            except Exception as exc:  # noqa: BLE001 NOTE: a browser that died or hangs; choreographer ends it with us
                log.debug("closing the PNG export browser: %s", exc)
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)


def _page_was_not_ready(exc: Exception) -> bool:
    """True when kaleido called its page's script before the page had loaded it.

    NOTE: kaleido 1.5's tab navigation can take the blank page's script context (or its load
    event) for its own page's when Chromium is slow to commit, as on a busy machine; the figure
    is fine, and a new browser renders it. Any other failure is reported at once.
    """
    return "kaleido_scopes is not defined" in str(exc)


async def _opened_kaleido() -> kaleido.Kaleido:
    import kaleido  # NOTE: 0.09 s of import (choreographer) that a page which exports nothing never pays

    browser = kaleido.Kaleido(n=1, timeout=RENDER_TIMEOUT_S)
    await browser.open()
    return browser


RENDERER = PngRenderer()
atexit.register(RENDERER.close)
