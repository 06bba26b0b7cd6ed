# make demo : create .venv, build the Cython kernels (editable install), run the demo job on built-in data.
# make test : same setup, then the full test suite (unit, property, pgmpy-equality and doctests).
# make docs : same setup, then the documentation site into docs/_build/html (offline; warnings are errors).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.pgmpy_ext_installed
SOURCES := setup.py pyproject.toml $(wildcard cython_core/*.pyx cython_core/*.pxd cython_core/*.pxi)

.PHONY: demo test bench lint clean build gallery docs

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(VENV)/bin/python $(SOURCES)
	$(PY) -m pip install --quiet "setuptools>=64" wheel "cython>=3.0,<4" "numpy>=2.0"
	$(PY) -m pip install --quiet --no-build-isolation -e ".[test,bench,dask,popgen-sim,plot,docs]"
	touch $(STAMP)

build: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/pgmpy-ext demo --output-dir demo_output

test: $(STAMP)
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(PY) -m pytest -q

gallery: $(STAMP)
	$(VENV)/bin/pgmpy-ext gallery --output-dir docs/gallery --markdown docs/gallery.md

docs: $(STAMP)
	$(PY) tools/api_reference.py --check
	$(PY) tools/check_internal_ids.py --check --show
	$(PY) -m sphinx -W --keep-going -q -b html docs/site docs/_build/html
	@echo "The site is in docs/_build/html/index.html"

bench: $(STAMP)
	$(PY) benchmarks/foundation.py

lint: $(STAMP)
	$(PY) -m pip install --quiet ruff cython-lint pycodestyle
	$(VENV)/bin/ruff check pgmpy_ext tests benchmarks
	PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/cython-lint --max-line-length 120 cython_core

clean:
	rm -rf build docs/_build docs/site/generated docs/site/_generated_pages *.egg-info cython_core/*.c pgmpy_ext/_core/*.so $(STAMP)
