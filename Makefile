# kvscope: `make run` opens the dashboard on the sample data; `make test` is the CI gate.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
DB ?= data/kvscope.duckdb
PORT ?= 8501

.PHONY: install run test lint bench demo sample clean

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

run: install
	$(PY) -m dashboard load-sample --db $(DB) --if-empty
	KVSCOPE_DB=$(DB) $(VENV)/bin/streamlit run dashboard/app.py --server.port $(PORT)

lint: install
	$(VENV)/bin/ruff check dashboard tests bench
	$(VENV)/bin/ruff format --check dashboard tests bench scripts

test: lint
	$(PY) -m pytest

bench: install
	$(PY) -m bench.run

demo: install
	bash scripts/demo.sh

sample: install
	$(PY) -m dashboard sample --out sample_data

clean:
	rm -rf $(VENV) data .pytest_cache
