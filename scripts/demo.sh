#!/usr/bin/env bash
# make demo: a live simulated cluster (kvscope serve-sim) scraped by a real Prometheus, pulled into
# data/demo.duckdb by the app's own collector thread (the file's single writer). Ctrl-C stops all.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
PODS=${PODS:-8}
SIM_PORT=${SIM_PORT:-18000}
PROM_PORT=${PROM_PORT:-19090}
APP_PORT=${APP_PORT:-8502}
SPEED=${SPEED:-10}
DB=${DB:-data/demo.duckdb}
command -v prometheus >/dev/null || { echo "demo needs Prometheus: apt-get install prometheus" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT INT TERM
mkdir -p "$(dirname "$DB")"
rm -f "$DB"
"$PY" -m dashboard serve-sim --pods "$PODS" --port "$SIM_PORT" --speed "$SPEED" \
    --prometheus-config "$work/prometheus.yml" --scrape-interval 5s &
pids+=($!)
sleep 3
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$PROM_PORT" >"$work/prometheus.log" 2>&1 &
pids+=($!)
sleep 3
echo "kvscope demo: app on http://127.0.0.1:$APP_PORT (Prometheus on :$PROM_PORT, simulated pods from :$SIM_PORT)"
KVSCOPE_DB="$DB" KVSCOPE_PROMETHEUS_URL="http://127.0.0.1:$PROM_PORT" KVSCOPE_COLLECT_INTERVAL=5s \
    KVSCOPE_COLLECT_SINCE=10m .venv/bin/streamlit run dashboard/app.py --server.port "$APP_PORT" &
pids+=($!)
wait
