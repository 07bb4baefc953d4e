# gamerules: `make run` starts the service, `make test` runs the suite; both install what is missing first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
INSTALLED := $(VENV)/.installed
GEN_DIR := service/gen
GENERATED := $(GEN_DIR)/.generated
NATIVE := $(patsubst service/native/%.c,$(GEN_DIR)/%.so,$(wildcard service/native/*.c))
PROTOS := $(wildcard proto/gamerules/v1/*.proto)
# The venv's site-packages (evaluated by the shell inside recipes, once the venv exists).
PURELIB = $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

GRPC_PORT ?= 50051
HTTP_PORT ?= 8080

.PHONY: install proto run test lint format typecheck bench lock clean examples train-reversi

install: $(INSTALLED) $(GENERATED) $(NATIVE)

# The virtual environment with every pinned package, and a .pth so `service` and the generated
# `gamerules.v1` packages import from this checkout; the client library and its `gamerules` command, editable.
$(INSTALLED): requirements.lock pyproject.toml clients/python/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e clients/python
	echo "$(CURDIR)" > $(PURELIB)/gamerules-checkout.pth
	echo "$(CURDIR)/$(GEN_DIR)" >> $(PURELIB)/gamerules-checkout.pth
	touch $@

# Generated code is never edited or committed: this rule is its only source.
$(GENERATED): $(INSTALLED) $(PROTOS)
	rm -rf $(GEN_DIR) && mkdir -p $(GEN_DIR)
	$(PY) -m grpc_tools.protoc -Iproto -I$(PURELIB) \
		--python_out=$(GEN_DIR) --pyi_out=$(GEN_DIR) --grpc_python_out=$(GEN_DIR) \
		--include_imports --include_source_info --descriptor_set_out=$(GEN_DIR)/gamerules.binpb $(PROTOS)
	touch $@

# The native kernels (service/native/*.c), loaded by service/native/__init__.py with ctypes: built code,
# so they live with the generated code (and after it: that rule empties the directory). Without a C compiler
# the engines search in Python, more slowly. No fused multiply-add (-ffp-contract=off): a kernel's values
# must be the same doubles as its Python twin's on every machine.
$(GEN_DIR)/%.so: service/native/%.c $(GENERATED)
	$(CC) -O2 -ffp-contract=off -shared -fPIC -o $@ $< -lm || echo "no C compiler: $* runs in Python"

proto: $(INSTALLED)
	rm -f $(GENERATED) && $(MAKE) --no-print-directory $(GENERATED) $(NATIVE)

run: install
	$(PY) -m service.run --grpc-port $(GRPC_PORT) --http-port $(HTTP_PORT)

test: install lint
	$(PY) -m pytest -q -p no:cacheprovider

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy service
	$(BIN)/mypy clients/python/gamerules_client
	mkdir -p build && $(PY) -m grpc_tools.protoc -Iproto -I$(PURELIB) \
		--include_imports --include_source_info --descriptor_set_out=build/image.binpb $(PROTOS)
	$(BIN)/buf lint build/image.binpb --config proto/buf.yaml --path gamerules/v1 --error-format=text

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	$(PY) -m bench

# Fit Reversi's pattern weights (service/learn/reversi.py) into the package's data file, the one the service
# loads: CONFIG=small takes minutes, CONFIG=full (the default) a few hours on 2 cores. Seeded: a configuration
# reproduces its file bit for bit.
CONFIG ?= full
train-reversi: install
	$(PY) -m service.learn.reversi --config $(CONFIG)

# Record the OpenAPI document's examples again (service/api/examples.json) from real answers.
examples: install
	$(PY) -m service.api.record_examples

# Re-pin requirements.lock from pyproject.toml's ranges (needs the package registry).
lock:
	rm -rf .lockvenv && $(PYTHON) -m venv .lockvenv && .lockvenv/bin/pip install --quiet '.[dev]' \
		&& (head -n 2 requirements.lock; .lockvenv/bin/pip freeze --exclude gamerules) > requirements.lock.new \
		&& mv requirements.lock.new requirements.lock && rm -rf .lockvenv

clean:
	rm -rf $(VENV) $(GEN_DIR) .pytest_cache .ruff_cache .mypy_cache
