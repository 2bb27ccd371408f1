"""Exports through real kaleido and the system Chromium: a PNG with ink in its caption band, a self-contained HTML."""

from __future__ import annotations

import io

import numpy as np
import plotly.graph_objects as go
import pytest
from PIL import Image

from dashboard.ui.export import caption_lines, caption_text, export_html, export_png, rendered_png

pytestmark = pytest.mark.usefixtures("system_chromium")  # skipped without one, failed in CI


CAPTION = caption_text("plan for token hit ratio ≥ 80%; model llama-3.1-8b", "6.00 h of trace", "sample")


def chart() -> go.Figure:
    fig = go.Figure(go.Scatter(x=[1, 2, 4, 8], y=[40, 60, 75, 85], mode="lines+markers"))
    fig.update_layout(title="token hit ratio versus pods (%)")
    return fig


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=np.int16)


@pytest.fixture(scope="module")
def with_and_without_caption() -> tuple[np.ndarray, np.ndarray]:
    return pixels(export_png(chart(), CAPTION)), pixels(export_png(chart(), ""))


def test_png_export_is_not_blank(with_and_without_caption):
    image, _ = with_and_without_caption
    assert image.shape == (1120, 2200)  # 1100 × 560 at scale 2
    assert (image < 200).mean() > 0.005  # lines, axes and text: real ink on white


def test_png_caption_band_has_ink_only_when_there_is_a_caption(with_and_without_caption):
    image, blank = with_and_without_caption
    band = slice(image.shape[0] - 70, image.shape[0])  # the caption's rows at the bottom
    assert (image[band] < 200).sum() > 500
    assert (blank[band] < 200).sum() == 0
    np.testing.assert_array_equal(image[:600], blank[:600])  # the caption changes nothing above it


def test_the_same_chart_again_comes_from_memory_and_a_changed_one_does_not(with_and_without_caption):
    image, _ = with_and_without_caption
    before = rendered_png.cache_info()
    again = export_png(chart(), CAPTION)  # as a page rerun with "Prepare PNG" on asks again
    after = rendered_png.cache_info()
    assert (after.hits, after.misses) == (before.hits + 1, before.misses)
    np.testing.assert_array_equal(pixels(again), image)
    other = chart().update_layout(title="token hit ratio versus HBM (%)")
    export_png(other, CAPTION)
    assert rendered_png.cache_info().misses == after.misses + 1


def test_the_caption_breaks_after_its_separators_not_inside_a_value():
    caption = caption_text(
        "plan for token hit ratio ≥ 80%; model llama-3.1-8b; CPU tier 50% of host DRAM",
        "6.00 h of trace (32,076 requests)",
        "sample",
    )
    lines = caption_lines(caption, width=90)
    assert lines[0] == "plan for token hit ratio ≥ 80%; model llama-3.1-8b; CPU tier 50% of host DRAM ·"
    assert lines[1].startswith("window: 6.00 h of trace (32,076 requests) · data: sample")
    assert " ".join(lines) == caption and all(len(line) <= 90 for line in lines)
    long_part = "x " * 100  # a part longer than a line still breaks between words
    assert [len(line) for line in caption_lines(long_part, 90)] == [89, 89, 19]


def test_html_export_is_self_contained_and_carries_the_caption():
    page = export_html(chart(), CAPTION)
    assert page.startswith("<!DOCTYPE html>")
    assert "<figcaption>plan for token hit ratio ≥ 80%; model llama-3.1-8b" in page
    assert "kvscope " in page and "6.00 h of trace" in page
    assert 'src="http' not in page and "cdn.plot.ly" not in page.split("<figure>")[0]
    assert len(page) > 1_000_000  # plotly.js itself is inlined: opens offline
