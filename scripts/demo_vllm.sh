#!/usr/bin/env bash
# make demo-vllm: the real vLLM CPU server (tests/data/real-vllm/recipe) over the tiny local model,
# a steady load of shared prefixes and multi-turn chats, and the app scraping its /metrics into
# data/demo-vllm.duckdb. Ctrl-C stops all.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
VLLM_VENV=${VLLM_VENV:-$HOME/.cache/kvscope/vllm-venv}
MODEL_DIR=${MODEL_DIR:-$HOME/.cache/kvscope/tiny-qwen2}
VLLM_PORT=${VLLM_PORT:-18100}
APP_PORT=${APP_PORT:-8503}
DB=${DB:-data/demo-vllm.duckdb}
recipe=tests/data/real-vllm/recipe
work=$(mktemp -d)
pids=()
cleanup() {
  kill -- -"${pids[0]}" 2>/dev/null || true  # serve.sh runs in its own session: its engine workers too
  kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"
}
trap cleanup EXIT INT TERM
test -f "$MODEL_DIR/config.json" || "$VLLM_VENV/bin/python" "$recipe/make_tiny_model.py" "$MODEL_DIR"
setsid bash "$recipe/serve.sh" "$VLLM_VENV" "$MODEL_DIR" "$VLLM_PORT" >"$work/vllm.log" 2>&1 &
pids+=($!)
echo "kvscope demo-vllm: starting vLLM on :$VLLM_PORT (log $work/vllm.log) …"
until curl -sf "http://127.0.0.1:$VLLM_PORT/health" >/dev/null; do
  kill -0 "${pids[0]}" 2>/dev/null || { tail -20 "$work/vllm.log"; exit 1; }
  sleep 1
done
# A load that never ends: the test's bounded load, again and again with new seeds.
"$PY" -c "
import itertools, sys
from tests.vllm.real_server import VllmServer, drive_load
server = VllmServer(None, None, None, None, port=int(sys.argv[1]))
for seed in itertools.count():
    drive_load(server, num_completions=12, num_sessions=2, turns=4, seed=seed)
" "$VLLM_PORT" &
pids+=($!)
mkdir -p "$(dirname "$DB")"
rm -f "$DB"
echo "kvscope demo-vllm: app on http://127.0.0.1:$APP_PORT, scraping the real server every 5 s"
KVSCOPE_DB="$DB" KVSCOPE_SCRAPE="vllm-0=http://127.0.0.1:$VLLM_PORT/metrics" KVSCOPE_COLLECT_INTERVAL=5s \
    KVSCOPE_COLLECT_SINCE=10m .venv/bin/streamlit run dashboard/app.py --server.port "$APP_PORT" &
pids+=($!)
wait
