"""One Plotly template for screen and PNG export, and stable colours per pod and tier."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

TEMPLATE_NAME = "kvscope"
PALETTE = (
    "#2563eb",
    "#dc2626",
    "#16a34a",
    "#d97706",
    "#7c3aed",
    "#0891b2",
    "#db2777",
    "#65a30d",
    "#475569",
    "#ea580c",
    "#0d9488",
    "#9333ea",
)
TIER_COLORS = {"gpu": "#2563eb", "offload": "#d97706", "cpu": "#d97706", "disk": "#475569"}
CLUSTER_COLOR = "#111827"
OTHERS_COLOR = "#cbd5e1"
QUANTILE_COLORS = {0.5: "#16a34a", 0.9: "#d97706", 0.99: "#dc2626"}

# NOTE: the mode bar's camera button downloads exactly what is on screen, at 2× scale.
PLOTLY_CONFIG = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2, "filename": "kvscope-chart"},
}


def register_template() -> str:
    """Register the kvscope template (idempotent) and return its name."""
    if TEMPLATE_NAME not in pio.templates:
        pio.templates[TEMPLATE_NAME] = go.layout.Template(
            layout=go.Layout(
                font={
                    "family": "Inter, Segoe UI, Helvetica, Arial, sans-serif",
                    "size": 13,
                    "color": "#1f2937",
                },
                # NOTE: the title sits below the mode bar's strip (top 30 px), so the bar never covers it
                title={
                    "font": {"size": 15},
                    "x": 0.01,
                    "xanchor": "left",
                    "yref": "container",
                    "y": 1,
                    "yanchor": "top",
                    "pad": {"t": 32},
                    "subtitle": {"font": {"size": 12, "color": "#6b7280"}},
                },
                paper_bgcolor="white",
                plot_bgcolor="white",
                colorway=list(PALETTE),
                margin={"l": 60, "r": 20, "t": 95, "b": 110},
                xaxis={"gridcolor": "#e5e7eb", "linecolor": "#9ca3af", "zeroline": False, "automargin": True},
                yaxis={
                    "gridcolor": "#e5e7eb",
                    "linecolor": "#9ca3af",
                    "zeroline": False,
                    "automargin": True,
                    "title": {"standoff": 8},
                },
                # NOTE: the legend sits at the container's bottom, below the x-axis title, never on it
                legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
                hovermode="x unified",
            )
        )
    return TEMPLATE_NAME


def titled(title: str) -> dict:
    """A layout title from 'main — detail': the detail as the subtitle, so a half-width chart's title
    stays short enough to show whole."""
    main, _, detail = title.partition(" — ")
    return {"text": main, "subtitle": {"text": detail}}


def pod_color(pod: str, all_pods: list[str]) -> str:
    """The same colour for a pod on every chart."""
    if pod == "*":
        return CLUSTER_COLOR
    index = all_pods.index(pod) if pod in all_pods else sum(map(ord, pod))  # stable across runs
    return PALETTE[index % len(PALETTE)]
