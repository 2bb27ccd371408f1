#!/usr/bin/env bash
# Refresh README's screenshots from the real app: the browser tests take them on the embedded
# sample, and the plan picture is `kvscope plan`'s own captioned export.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pytest -q -p no:cacheprovider tests/ui/test_overview_browser.py tests/ui/test_whatif_browser.py \
    tests/ui/test_shared_links_browser.py tests/ui/test_traces_browser.py
mkdir -p docs/screenshots
for name in overview whatif planner-shared traces; do
    cp "test-artifacts/$name.png" "docs/screenshots/$name.png"
done
.venv/bin/python -m dashboard plan --target hit=0.8 --png docs/screenshots/plan.png >/dev/null
echo "docs/screenshots refreshed"
