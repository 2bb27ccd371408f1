"""The Overview's "what explains the hit rate" queries on the recorded real vLLM 0.32 scrapes."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from dashboard.store.queries import run_query
from tests.ingest import test_real_vllm_direct as direct
from tests.ingest.real_vllm import SCRAPE_FILES
from tests.ingest.test_real_vllm_direct import whole_run

scraped = direct.scraped  # the five real scrapes through the direct-scrape collector (a fixture)


def file_value(path, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(path.read_text()):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise AssertionError(f"{name}{labels} not in {path.name}")


def test_prompt_tokens_by_source_hold_the_readmes_32832_cache_hit_tokens(scraped):
    store, scrapes = scraped
    rows = run_query(store, "overview_prompt_sources", **whole_run(scrapes))
    by = rows.set_index(["kind", "source"])["tokens"]
    assert by["source", "local_cache_hit"] == 32_832
    assert by["tier", "device"] == 32_832
    assert by["source", "external_kv_transfer"] == 0
    computed = file_value(SCRAPE_FILES[-1], "vllm:prompt_tokens_by_source_total", source="local_compute")
    computed -= file_value(SCRAPE_FILES[0], "vllm:prompt_tokens_by_source_total", source="local_compute")
    assert by["source", "local_compute"] == computed


def test_waiting_by_reason_reads_the_last_scrapes_gauges(scraped):
    store, scrapes = scraped
    rows = run_query(store, "overview_waiting", **whole_run(scrapes)).set_index("series")["value"]
    for reason in ("capacity", "deferred"):
        expected = file_value(SCRAPE_FILES[-1], "vllm:num_requests_waiting_by_reason", reason=reason)
        assert rows[f"waiting: {reason}"] == expected
    assert rows["preemptions"] == 0  # the CPU run never preempted: exported, at 0
