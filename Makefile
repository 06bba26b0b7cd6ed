# make demo : create .venv, build the Cython kernels (editable install), run the demo job on built-in data.
# make test : same setup, then the full test suite (unit, property, pgmpy-equality and doctests).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.pgmpy_ext_installed
SOURCES := setup.py pyproject.toml $(wildcard cython_core/*.pyx cython_core/*.pxd)

.PHONY: demo test bench lint clean build gallery

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(VENV)/bin/python $(SOURCES)
	$(PY) -m pip install --quiet "setuptools>=64" wheel "cython>=3.0,<4" "numpy>=2.0"
	$(PY) -m pip install --quiet --no-build-isolation -e ".[test,bench,dask,popgen-sim]"
	touch $(STAMP)

build: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/pgmpy-ext demo --output-dir demo_output

test: $(STAMP)
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci} $(PY) -m pytest -q

gallery: $(STAMP)
	$(VENV)/bin/pgmpy-ext gallery --output-dir docs/gallery --markdown docs/gallery.md

bench: $(STAMP)
	$(PY) benchmarks/foundation.py

lint: $(STAMP)
	$(PY) -m pip install --quiet ruff cython-lint pycodestyle
	$(VENV)/bin/ruff check pgmpy_ext tests benchmarks
	PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/cython-lint --max-line-length 120 cython_core

clean:
	rm -rf build *.egg-info cython_core/*.c pgmpy_ext/_core/*.so $(STAMP)
