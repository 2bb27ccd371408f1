"""Which allocator Arrow uses in a kvscope process: jemalloc where pyarrow has it, else the system's.

NOTE: pyarrow's default pool is mimalloc, which marks its 1 GiB arenas for transparent huge pages
and hands freed pages back to the kernel soon after, so each refill has the kernel zero whole 2 MB
pages. Measured on the 2-core machine (README, "The `kvscope` command"): reading a 240k-row Parquet
trace took 282 ms with mimalloc and 142 ms with jemalloc, and the window-cache tests spent a fifth
of their CPU in the kernel zeroing pages (16.0 → 12.6 CPU-s with jemalloc).
"""

from __future__ import annotations

import os

POOL_ENV_VAR = "ARROW_DEFAULT_MEMORY_POOL"  # Arrow's own setting; a user who sets it is obeyed


def use_lean_pool() -> str:
    """Make jemalloc (or the system allocator) Arrow's default pool, unless the user chose one; its name."""
    import pyarrow as pa

    if not os.environ.get(POOL_ENV_VAR):
        has_jemalloc = "jemalloc" in pa.supported_memory_backends()
        pa.set_memory_pool(pa.jemalloc_memory_pool() if has_jemalloc else pa.system_memory_pool())
    return pa.default_memory_pool().backend_name
