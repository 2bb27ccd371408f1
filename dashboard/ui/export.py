"""Export a chart with its caption: PNG through kaleido and the system Chromium, or one self-contained HTML file.

The caption (inputs, time window, data source, kvscope version) is drawn inside the figure, under
the plot, so a pasted PNG carries it; the HTML file also repeats it as text. Screen and export
share the kvscope template (ui/theme.py).
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import shutil
import textwrap
from importlib.metadata import PackageNotFoundError, version

import plotly.graph_objects as go

from dashboard.ui.png_renderer import RENDERER
from dashboard.ui.theme import register_template

# NOTE: Debian's headless shell first: the same Blink without the desktop browser around it, so a
# PNG costs less (first export 1.3 s against 1.8 s here); the full Chromium when it is all there is.
CHROMIUM_CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser")
CAPTION_FONT_PX = 11
CAPTION_LINE_PX = 15
CAPTION_WRAP_CHARS = 140
EXPORT_WIDTH_PX, EXPORT_HEIGHT_PX = 1100, 560
PNG_MEMORY = 8  # rendered PNGs kept (a few hundred kB each)


def kvscope_version() -> str:
    """The installed kvscope version ('unknown' when run from a bare checkout)."""
    try:
        return version("kvscope")
    except PackageNotFoundError:
        return "unknown"


def caption_text(inputs: str, window: str, source: str) -> str:
    """The standard caption: what was asked, over which time window, from which data, by which kvscope."""
    return f"{inputs} · window: {window} · data: {source} · kvscope {kvscope_version()}"


def caption_lines(caption: str, width: int = CAPTION_WRAP_CHARS) -> list[str]:
    """The caption in lines of at most width characters, broken after its ' · ' and '; ' separators
    where it can be (a break between words had split '6.00 h' over two lines), between words only
    inside a part longer than a line."""
    lines: list[str] = []
    for part in re.split(r"(?<=[;·]) ", caption):
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += " " + part
        else:
            lines += textwrap.wrap(part, width) or [""]
    return lines or [""]


def captioned(fig: go.Figure, caption: str) -> go.Figure:
    """A copy of fig in the kvscope template with caption wrapped under the plot area."""
    out = go.Figure(fig)
    out.update_layout(template=register_template())
    lines = caption_lines(caption)
    caption_px = CAPTION_LINE_PX * len(lines) + 12
    # NOTE: the axis titles, then the legend, then the caption, from the plot down; the legend is
    # pinned just above the caption (container coordinates of the fixed export height).
    bottom = 110 + caption_px
    out.update_layout(
        margin={"b": bottom},
        height=EXPORT_HEIGHT_PX,
        legend={
            "orientation": "h",
            "yref": "container",
            "y": caption_px / EXPORT_HEIGHT_PX,
            "yanchor": "bottom",
            "x": 0,
            "xanchor": "left",
        },
    )
    out.add_annotation(
        text="<br>".join(html.escape(line) for line in lines),
        xref="paper",
        yref="paper",
        x=0,
        y=0,
        yshift=-(bottom - 6),
        xanchor="left",
        yanchor="bottom",
        showarrow=False,
        align="left",
        font={"size": CAPTION_FONT_PX, "color": "#374151"},
    )
    return out


def system_chromium() -> str | None:
    """The system browser PNG export drives: Debian's chromium-headless-shell, else its chromium."""
    return next(filter(None, map(shutil.which, CHROMIUM_CANDIDATES)), None)


def _use_system_chromium() -> None:
    # NOTE: kaleido 1.x drives Chrome through choreographer, which takes BROWSER_PATH before its own search.
    if not os.environ.get("BROWSER_PATH") and (chromium := system_chromium()):
        os.environ["BROWSER_PATH"] = chromium


def export_png(
    fig: go.Figure,
    caption: str,
    width: int = EXPORT_WIDTH_PX,
    height: int = EXPORT_HEIGHT_PX,
    scale: float = 2.0,
) -> bytes:
    """PNG bytes of fig with its caption (kaleido + Chromium); RuntimeError with the cause if no browser runs.

    The same figure, caption and size again come from memory (rendered_png).
    """
    _use_system_chromium()
    return rendered_png(captioned(fig, caption).to_json(), width, height, scale)


# NOTE: a page reruns on every widget change, and while its "Prepare PNG" toggle is on each rerun
# asks for the PNG again. The last few are kept; a new one is rendered by the process's kept Chromium.
@functools.lru_cache(maxsize=PNG_MEMORY)
def rendered_png(figure_json: str, width: int, height: int, scale: float) -> bytes:
    """PNG bytes of a figure given as plotly JSON, rendered by kaleido (at most PNG_MEMORY kept)."""
    figure = json.loads(figure_json)  # NOTE: the JSON of a Figure already: no second validation
    opts = {"format": "png", "width": width, "height": height, "scale": scale}
    try:
        return RENDERER.render(figure, opts)
    except Exception as exc:  # kaleido raises several types when Chromium is missing or crashes
        raise RuntimeError(
            f"PNG export failed (kaleido with {os.environ.get('BROWSER_PATH', 'no browser')}): "
            f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        ) from exc


def export_html(fig: go.Figure, caption: str) -> str:
    """One self-contained HTML file (plotly.js inlined) showing fig with its caption."""
    body = captioned(fig, caption).to_html(
        full_html=False, include_plotlyjs=True, default_width="100%", default_height=f"{EXPORT_HEIGHT_PX}px"
    )
    title = html.escape(fig.layout.title.text or "kvscope chart")
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{title}</title></head>\n"
        f"<body style='font-family: sans-serif'>\n<figure>{body}\n"
        f"<figcaption>{html.escape(caption)}</figcaption></figure>\n</body></html>\n"
    )


def export_picker(figures: dict[str, go.Figure], caption: str, key: str) -> None:
    """A toggle that, once on, offers any chart the page drew as a captioned PNG or HTML file.

    NOTE: off by default: the HTML (plotly.js inlined, ~4 MB) would otherwise be built and sent
    to the browser on every render.
    """
    import streamlit as st  # NOTE: here, so `kvscope plan --png` never imports streamlit

    if not figures or not st.toggle("Export a chart (captioned PNG or HTML)", key=f"{key}_on"):
        return
    title = st.selectbox("Chart to export", list(figures), key=f"{key}_chart")
    slug = "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())[:60]
    export_buttons(figures[title], caption, key=key, filename=f"kvscope-{slug}")


def export_buttons(fig: go.Figure, caption: str, key: str, filename: str = "kvscope-chart") -> None:
    """Two Streamlit download buttons (PNG, HTML) for fig with caption; key prefixes their widget keys."""
    import streamlit as st  # NOTE: here, so `kvscope plan --png` never imports streamlit

    left, right = st.columns(2)
    left.download_button(
        "Download HTML",
        export_html(fig, caption),
        file_name=f"{filename}.html",
        mime="text/html",
        key=f"{key}_html",
    )
    if right.toggle(
        "Prepare PNG", key=f"{key}_png_ready", help="renders through headless Chromium (a second or two)"
    ):
        try:
            right.download_button(
                "Download PNG",
                export_png(fig, caption),
                file_name=f"{filename}.png",
                mime="image/png",
                key=f"{key}_png",
            )
        except RuntimeError as exc:
            right.error(str(exc))
