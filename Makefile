# kvscope: `make run` opens the dashboard on the sample data; `make test` is the CI gate.
VENV ?= .venv
PY := $(VENV)/bin/python
HASH := $(shell sha1sum pyproject.toml | cut -c1-12)
STAMP := $(VENV)/.installed-$(HASH)
RAY_STAMP := $(VENV)/.installed-ray-$(HASH)
DB ?= data/kvscope.duckdb
PORT ?= 8501

.PHONY: install run test test-vllm lint bench demo demo-vllm sample screenshots clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	rm -f $(VENV)/.installed-* && touch $@

# The ray extra (the Ray sweep executor's test and bench) on top, for `make test` and `make bench`
# only, so `make run` stays quick; a changed pyproject.toml renames both stamps and removes this one.
$(RAY_STAMP): $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test,ray]'
	touch $@

# Compiles the numba kernels once ahead of use (progress on stderr; instant when already compiled),
# and kvscope's own modules to bytecode: an environment that sets PYTHONDONTWRITEBYTECODE (this one
# does) otherwise has every `kvscope` process compile them from source again (~0.08 s each).
install: $(STAMP)
	$(PY) -m compileall -q dashboard tests bench
	$(PY) -m dashboard warmup

run: install
	$(PY) -m dashboard load-sample --db $(DB) --if-empty
	KVSCOPE_DB=$(DB) $(VENV)/bin/streamlit run dashboard/app.py --server.port $(PORT)

lint: install
	$(VENV)/bin/ruff check dashboard tests bench
	$(VENV)/bin/ruff format --check dashboard tests bench scripts

# NOTE: one worker more than cores (at most 4), to fill the tests' waits on servers and browsers;
# each test module on one worker so its fixtures (a VictoriaMetrics, a Ray head) start once, the
# browser tests one after another, the slowest modules first, those that mostly wait on servers one at
# a time (tests/conftest.py, tests/scheduling.py);
# the live Prometheus stack and the app on the sample are shared by all (tests/shared_process.py).
# PYTHONDONTWRITEBYTECODE is cleared so pytest keeps the test modules it rewrote for its asserts:
# otherwise every worker rewrites all of them again on every run (~1.1 s of CPU each).
test: lint $(RAY_STAMP)
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n auto --maxprocesses 4 --dist loadscope

# The real vLLM CPU server in the loop: its venv lives outside the repo and is kept between runs.
VLLM_VENV ?= $(HOME)/.cache/kvscope/vllm-venv

test-vllm: install
	bash scripts/vllm_venv.sh $(VLLM_VENV) >/dev/null
	KVSCOPE_VLLM_VENV=$(VLLM_VENV) $(PY) -m pytest -m vllm tests/vllm

demo-vllm: install
	bash scripts/vllm_venv.sh $(VLLM_VENV) >/dev/null
	VLLM_VENV=$(VLLM_VENV) bash scripts/demo_vllm.sh

bench: $(RAY_STAMP)
	$(PY) -m bench.run

demo: install
	bash scripts/demo.sh

screenshots: install
	bash scripts/screenshots.sh

sample: install
	$(PY) -m dashboard sample --out sample_data

clean:
	rm -rf $(VENV) data .pytest_cache
