# make run  : set everything up and start the gRPC server (Ctrl-C stops it): what serving needs, nothing more
# make test : set everything up with the test extras and run the test suite
# make bench: with the bench extras, the engine and search speed report of every game (JSON; atoll bench speed)
# make buf  : install buf (a third-party gRPC client, npm package @bufbuild/buf) into .tools/, for docs/api.md
# Each target creates .venv and (re)builds when a .pyx/.pxd/.pxi/.proto/setup.py/pyproject.toml is newer than the
# stamp; an extra's packages (pyproject.toml's optional-dependencies) are installed without building again.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD_DEPS := "setuptools>=69" wheel "Cython>=3.1,<3.4" grpcio-tools==1.85.1 mypy-protobuf==5.1.0
SOURCES := $(shell find engine_ext search server proto -name '*.pyx' -o -name '*.pxd' -o -name '*.pxi' -o -name '*.proto') \
           setup.py pyproject.toml

.PHONY: run demo test bench lint clean buf

# The packages of one optional extra, read from pyproject.toml (installed as requirements: no rebuild).
EXTRA = $(PY) -c "import sys, tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies'][sys.argv[1]], sep='\n')"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(BUILD_DEPS)

# setuptools warns on every editable install of a flat layout (package folders at the top): a known, harmless case.
$(VENV)/.stamp-install: $(PY) $(SOURCES)
	PYTHONWARNINGS="ignore:Editable installation" $(PY) -m pip install --quiet --no-build-isolation -e .
	touch $@

$(VENV)/.stamp-%: $(VENV)/.stamp-install pyproject.toml
	$(EXTRA) $* > $(VENV)/requirements-$*.txt
	$(PY) -m pip install --quiet -r $(VENV)/requirements-$*.txt
	touch $@

run: $(VENV)/.stamp-install
	$(VENV)/bin/atoll serve

demo: $(VENV)/.stamp-install
	$(VENV)/bin/atoll demo

BUF := .tools/node_modules/.bin/buf

# buf (a third-party gRPC client, for the end-to-end tests) ships as a binary inside an npm package.
$(BUF):
	npm install --silent --no-audit --no-fund --prefix .tools @bufbuild/buf@1.75.0

buf: $(BUF)

test: $(VENV)/.stamp-test $(BUF)
	$(PY) -m pytest

bench: $(VENV)/.stamp-bench
	$(VENV)/bin/atoll bench speed

lint: $(VENV)/.stamp-test
	PATH=$(VENV)/bin:$$PATH; ruff check . && ruff format --check . && cython-lint --max-line-length 120 engine_ext search

clean:
	rm -rf $(VENV) build *.egg-info atoll/v1 engine_ext/*.c engine_ext/*.so search/*.c search/*.so
