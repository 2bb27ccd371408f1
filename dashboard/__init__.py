"""kvscope: prefix-cache observability and what-if lab for llm-d / vLLM clusters."""

import os

__version__ = "0.1.0"

# NOTE: numpy asks the kernel for transparent huge pages for every array over 4 MB, and where the
# kernel compacts memory on demand for such a request (THP defrag "madvise", its default) the first
# touch of a large array stalls: reading a trace of 10^8 block accesses took 3.9-5.4 s (2.5-3.7 s of
# it in the kernel) with them and 1.75 s without, at the same user time. Set here, before any of
# kvscope's modules imports numpy; a value the user set wins, and child processes inherit it.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
