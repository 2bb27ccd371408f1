"""Per-query limits of PromQL servers, recognised in the `error` text of their answers.

A server that refuses a query for its size says which limit in its error answer. Every limit here
counts something that a shorter time span lowers (samples, points, chunks, query length, run
time), so the puller's answer to all of them is the same: ask for less time at once (paging.py).
"""

from __future__ import annotations

import re

# NOTE: each text as the server's own source words it, matched anywhere in the error: query
# frontends and proxies put their own context in front ("expanding series: …").
LIMIT_TEXTS = (
    # Prometheus, and Thanos Query (same engine): --query.max-samples, --query.timeout, and the
    # 11,000 points of a range query (kvscope's instant queries never meet it; a proxy might).
    r"query processing would load too many samples into memory",
    r"query timed out in",
    r"exceed(?:s|ed) maximum resolution of [\d,]+ points",
    # Mimir, Cortex, Thanos and Loki query frontends: max query length (of queries and of label
    # lookups), then Mimir's and Cortex's per-query chunk, chunk-byte, series and memory limits.
    r"query time range exceeds the limit",
    r"the query exceeded the (?:maximum|aggregated)",
    r"the estimated number of chunks for the query exceeded",
    r"the query hit the (?:max number of|aggregated)",
    # Thanos Store's request limits, Mimir's and Cortex's store-gateway.
    r"exceeded (?:series|chunks?|samples?|bytes) limit",
    # VictoriaMetrics names the flag: "cannot select more than -search.maxSamplesPerQuery=…".
    r"-search\.max(?:SamplesPerQuery|SamplesPerSeries|PointsPerTimeseries|QueryDuration"
    r"|ExportDuration|UniqueTimeseries|MemoryPerQuery)\b",
)
_LIMIT = re.compile("|".join(f"(?:{text})" for text in LIMIT_TEXTS), re.IGNORECASE)


class QueryLimitError(ConnectionError):
    """The server refused a query for its size; `limit` quotes the clause that names the limit."""

    def __init__(self, where: str, status: int, limit: str):
        super().__init__(f"{where} answered HTTP {status}: {limit}")
        self.where, self.status, self.limit = where, status, limit


def limit_clause(error: str) -> str | None:
    """The clause of a server's error text that names a per-query limit; None when none does.

    The clause starts after the last `: ` before the limit's words that does not introduce a
    number, so a VictoriaMetrics error (`error when exporting data for query=… on the time range
    …: cannot select more than -search.maxSamplesPerQuery=…`) is quoted from `cannot select`,
    without the query it echoes, and `…end=2: 101; cannot exceed …` keeps what the 101 counts.
    """
    found = _LIMIT.search(error)
    if found is None:
        return None
    colon = error.rfind(": ", 0, found.start())
    while colon >= 0 and error[colon + 2 : colon + 3].isdigit():
        colon = error.rfind(": ", 0, colon)
    return error[colon + 2 if colon >= 0 else 0 :]
