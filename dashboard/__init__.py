"""kvscope: prefix-cache observability and what-if lab for llm-d / vLLM clusters."""

import os

__version__ = "0.1.0"

# NOTE: numpy asks the kernel for transparent huge pages for every array over 4 MB, and where the
# kernel compacts memory on demand for such a request (THP defrag "madvise", its default) the first
# touch of a large array stalls: replaying a trace of 10^8 block accesses through 8 pods took 16-18 s
# with them and 2.3 s without, reading it 3.9-6.0 s against 1.4-1.8 s (docs/scale.md). Set here,
# before any of kvscope's modules imports numpy; a value the user set wins, and children inherit it.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
