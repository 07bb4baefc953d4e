# gamerules: `make run` starts the service, `make test` runs the suite; both install what is missing first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
INSTALLED := $(VENV)/.installed
GEN_DIR := service/gen
GENERATED := $(GEN_DIR)/.generated
ENGINE := $(GEN_DIR)/gamerules_native.so
ENGINE_SOURCES := $(wildcard service/native/search/*.c)
PROTOS := $(wildcard proto/gamerules/v1/*.proto)
# Wheels of everything `pip install .` and `pip install clients/python` need, build requirements included, at the
# versions requirements.lock pins: the install tests build and install both packages from it, offline.
WHEELHOUSE := build/wheelhouse
WHEELS := $(WHEELHOUSE)/.complete
# Python versions besides the venv's whose wheels `make check-pythons` resolves for every pinned package.
CHECK_PYTHONS ?= 3.12 3.13
# The venv's site-packages (evaluated by the shell inside recipes, once the venv exists).
PURELIB = $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# make run's ports: GRPC_PORT=... on the command line, else the service's variables, else their defaults;
# METRICS_PORT (the server's metrics) unset: GAMERULES_METRICS_PORT, else 9464 or, if that is taken, a free port.
GRPC_PORT ?= $(or $(GAMERULES_GRPC_PORT),50051)
HTTP_PORT ?= $(or $(GAMERULES_HTTP_PORT),8080)
METRICS_PORT ?=

# A protoc image of the contract and its imports (buf reads it, so it resolves google/api without a network).
CONTRACT_IMAGE = $(PY) -m grpc_tools.protoc -Iproto -I$(PURELIB) --include_imports
# The released contracts, one image per release; `make lint` checks the protos against the newest
# (docs/compatibility.md says what counts as breaking).
RELEASED = $$(ls proto/releases/gamerules-v1-*.binpb | sort -V | tail -n 1)
VERSION ?= $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' pyproject.toml)

# Other languages: the Debian packages behind buf.gen.yaml's plugins (protoc for java and php; the Go, Java
# and PHP gRPC plugins) and the Go example (the toolchain and the Go packages it builds against).
STUB_PACKAGES := protobuf-compiler protoc-gen-go protoc-gen-go-grpc protobuf-compiler-grpc \
	protobuf-compiler-grpc-java-plugin golang-go golang-google-grpc-dev golang-google-protobuf-dev \
	golang-google-genproto-dev golang-github-golang-protobuf-1-5-dev
NODE_EXAMPLE := clients/examples/node
GO_EXAMPLE := build/gamerules-example-go
# The Go example builds GOPATH-style and offline against Debian's Go packages (/usr/share/gocode); the
# generated package's import path (go_package gamerules/gen/go/...) resolves through a link to this checkout.
GO_ENV := GO111MODULE=off GOFLAGS= GOPATH=$(CURDIR)/build/gopath:/usr/share/gocode GOCACHE=$(CURDIR)/build/gocache

# Each part of the install and of the checks says what it does, and once done how long it took, so a slow
# fresh clone shows where its time went.
BEGAN = build/.began-$(subst /,_,$@)
STEP = @mkdir -p build && echo "make: $(1) ..." && date +%s > $(BEGAN)
STEPPED = @echo "make: $(1): $$(( $$(date +%s) - $$(cat $(BEGAN)) )) s" && rm -f $(BEGAN)

.PHONY: install outside browser proto run test test-examples lint format typecheck bench lock check-pythons clean \
	examples release-contract tools stubs client-examples node-example go-example train-reversi train-strands \
	fit-probcut fit-winchance fit-ladder

install: outside $(INSTALLED) $(GENERATED) $(ENGINE) $(WHEELS) browser

# Said before anything is installed: what this make installs outside the folder. That is only Debian packages,
# with apt-get and only as root (as CI runs): chromium for the browser tests, and the examples' STUB_PACKAGES
# when a goal builds the examples. The venv, the wheels, the generated code, the engine, the examples' Node
# packages and Go build all go inside it (pip and npm keep their own download caches).
EXAMPLE_GOALS := test-examples client-examples node-example go-example stubs tools
outside:
	@need=$$( { command -v chromium && command -v chromedriver; } >/dev/null || echo chromium chromium-driver; \
		$(if $(filter $(EXAMPLE_GOALS),$(MAKECMDGOALS)),for package in $(STUB_PACKAGES); do \
		dpkg -s $$package >/dev/null 2>&1 || echo $$package; done) ); need=$$(echo $$need); \
	if [ -z "$$need" ]; then \
		echo "make: outside this folder it installs nothing (the Debian packages it uses are there)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "make: outside this folder it installs, as root with apt-get, the Debian packages $$need"; \
	else echo "make: outside this folder it installs nothing (not root with apt-get; missing here: $$need)"; fi; \
	echo "make: all else goes inside it (.venv, build/, service/gen/; pip and npm keep their download caches)"

# The playground's browser tests drive Debian's chromium through chromium-driver. Installed where the session
# may (root with apt-get, as CI runs); elsewhere those tests skip and say why.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "make: chromium for the browser tests ..."; began=$$(date +%s); \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver \
		&& echo "make: chromium: $$(( $$(date +%s) - began )) s"; \
	else echo "chromium and chromium-driver are missing and this is not root: the browser tests will skip"; fi

# The virtual environment with every pinned package, and a .pth so `service` and the generated
# `gamerules.v1` packages import from this checkout; the client library and its `gamerules` command, editable
# (built from the wheelhouse: its build requirements are pinned too).
$(INSTALLED): requirements.lock pyproject.toml clients/python/pyproject.toml $(WHEELS)
	$(call STEP,the virtual environment and the pinned packages)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-index --find-links $(WHEELHOUSE) \
		-e clients/python
	echo "$(CURDIR)" > $(PURELIB)/gamerules-checkout.pth
	echo "$(CURDIR)/$(GEN_DIR)" >> $(PURELIB)/gamerules-checkout.pth
	touch $@
	$(call STEPPED,the virtual environment and the pinned packages)

# Both packages' runtime and build requirements, resolved against requirements.lock (so at its pins), as wheels.
$(WHEELS): requirements.lock pyproject.toml clients/python/pyproject.toml
	$(call STEP,the wheelhouse (every pinned wheel for the offline install tests))
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	rm -rf $(WHEELHOUSE) && $(PY) -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
		-d $(WHEELHOUSE) -c requirements.lock $$($(PY) -c 'import tomllib; \
		t = [tomllib.load(open(f, "rb")) for f in ("pyproject.toml", "clients/python/pyproject.toml")]; \
		print(" ".join(sorted({r for d in t for r in d["project"]["dependencies"] + d["build-system"]["requires"]})))')
	touch $@
	$(call STEPPED,the wheelhouse)

# Generated code is never edited or committed: this rule is its only source (the same generator builds the
# wheels' copies, see setup.py).
$(GENERATED): $(INSTALLED) $(PROTOS) clients/python/build_protos.py
	$(call STEP,the generated gamerules.v1 code)
	rm -rf $(GEN_DIR) && mkdir -p $(GEN_DIR)
	$(PY) clients/python/build_protos.py $(GEN_DIR) --descriptor-set
	touch $@
	$(call STEPPED,the generated gamerules.v1 code)

# The native search engine (service/native/search/: the search core and its game kernels), one library
# loaded by service/native/engine.py with ctypes (which releases the GIL while a search runs): built code, so it
# lives with the generated code (and after it: that rule empties the directory). Without a C compiler the levels
# search in Python, more slowly. No fused multiply-add (-ffp-contract=off): a kernel's values must be the same
# doubles as its Python twin's on every machine.
$(ENGINE): $(ENGINE_SOURCES) $(wildcard service/native/search/*.h) $(GENERATED)
	$(call STEP,the native search engine)
	$(CC) -O2 -ffp-contract=off -shared -fPIC -o $@ $(ENGINE_SOURCES) -lm || echo "no C compiler: the search runs in Python"
	$(call STEPPED,the native search engine)

proto: $(INSTALLED)
	rm -f $(GENERATED) && $(MAKE) --no-print-directory $(GENERATED) $(ENGINE)

run: install
	$(PY) -m service.run --grpc-port $(GRPC_PORT) --http-port $(HTTP_PORT) $(if $(METRICS_PORT),--metrics-port $(METRICS_PORT))

# The tests run on TEST_WORKERS processes (pytest-xdist): by default one more than the CPUs this process may
# use, since many tests spend their time waiting on the servers, gateways and commands they start;
# TEST_WORKERS=0 runs them all in pytest's own process, any number that many. Each worker starts
# with a share of the tests and takes from another's when it runs out (--dist worksteal), so a long test near
# the end does not leave a CPU idle; grouping them by file would run the REST fuzz test's cases, which share one
# test id, as one. The examples in other languages need toolchains that make test does not install: their
# tests skip there, and `make test-examples` (CI runs it too) runs them. The tests start many servers, gateways and
# commands, each importing the service: with bytecode caching off (a shell's PYTHONDONTWRITEBYTECODE) each
# of them, and each worker's collection, compiled it all again.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(getattr(os, "sched_getaffinity", lambda _: range(os.cpu_count() or 1))(0)) + 1)')
test: install lint
	$(call STEP,the tests (pytest prints its own time; pytest -m slow runs the long ones))
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) $(if $(filter 0,$(TEST_WORKERS)),,--dist worksteal)
	$(call STEPPED,the tests)

# The Node and Go examples built (their Debian packages installed as root) and their tests run, where an
# example not built fails instead of skipping.
test-examples: install client-examples
	$(call STEP,the tests of the examples in other languages)
	GAMERULES_REQUIRE_EXAMPLES=1 $(PY) -m pytest -q -p no:cacheprovider -n 0 tests/clients/test_other_languages.py
	$(call STEPPED,the tests of the examples in other languages)

lint: install
	$(call STEP,lint (ruff and mypy and buf))
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict service
	$(BIN)/mypy bench
	$(BIN)/mypy clients/python/gamerules_client
	mkdir -p build && $(PY) -m grpc_tools.protoc -Iproto -I$(PURELIB) \
		--include_imports --include_source_info --descriptor_set_out=build/image.binpb $(PROTOS)
	$(BIN)/buf lint build/image.binpb --config proto/buf.yaml --path gamerules/v1 --error-format=text
	$(BIN)/buf breaking build/image.binpb --against "$(RELEASED)" --config proto/buf.yaml --path gamerules/v1 \
		--error-format=text
	! command -v gofmt >/dev/null || test -z "$$(gofmt -l clients/examples/go | tee /dev/stderr)"
	$(call STEPPED,lint)

# Records the contract as released (after `make lint` has checked it against the previous release): every
# later change is checked against this image. VERSION defaults to pyproject.toml's.
release-contract: lint
	test ! -e proto/releases/gamerules-v1-$(VERSION).binpb || { echo "contract $(VERSION) is already released"; exit 1; }
	$(CONTRACT_IMAGE) --descriptor_set_out=proto/releases/gamerules-v1-$(VERSION).binpb $(PROTOS)

# The Debian packages of STUB_PACKAGES, installed when missing (as root, as CI runs; others are told which).
tools:
	@missing=$$(for package in $(STUB_PACKAGES); do dpkg -s $$package >/dev/null 2>&1 || echo $$package; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "make: the Debian packages of the examples ($$missing) ..." >&2; began=$$(date +%s); \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing \
		&& echo "make: the Debian packages: $$(( $$(date +%s) - began )) s" >&2; \
	else echo "these Debian packages are missing (make tools installs them as root):" $$missing; exit 1; fi

# The Node example's packages, exactly as its lock file pins them.
$(NODE_EXAMPLE)/node_modules/.package-lock.json: $(NODE_EXAMPLE)/package-lock.json
	$(call STEP,the Node example's packages)
	cd $(NODE_EXAMPLE) && npm ci --no-audit --no-fund
	touch $@
	$(call STEPPED,the Node example's packages)

# Go, Java, TypeScript and PHP stubs by buf.gen.yaml (into gen/, the TypeScript into the Node example), and
# the Node example's REST types from the OpenAPI document the gateway serves (made from the protos and the
# service's registry). Generated, never committed.
STUBS := gen/.generated
SERVICE_SOURCES := $(shell find service -name '*.py' -not -path 'service/gen/*')
stubs: $(STUBS)
$(STUBS): $(GENERATED) $(PROTOS) buf.gen.yaml $(SERVICE_SOURCES) service/api/rest/examples.json $(NODE_EXAMPLE)/node_modules/.package-lock.json | tools
	$(call STEP,the other languages' stubs)
	mkdir -p build && $(CONTRACT_IMAGE) --include_source_info --descriptor_set_out=build/stubs.binpb $(PROTOS)
	$(BIN)/buf generate build/stubs.binpb --template buf.gen.yaml --path gamerules/v1
	$(PY) -c 'from service.api.rest.openapi import openapi_json; print(openapi_json())' > $(NODE_EXAMPLE)/src/gen/openapi.json
	cd $(NODE_EXAMPLE) && node_modules/.bin/openapi-typescript src/gen/openapi.json -o src/gen/openapi.ts
	touch $@
	$(call STEPPED,the other languages' stubs)

node-example: $(NODE_EXAMPLE)/dist/main.js
$(NODE_EXAMPLE)/dist/main.js: $(STUBS) $(wildcard $(NODE_EXAMPLE)/src/*.ts) $(NODE_EXAMPLE)/tsconfig.json
	$(call STEP,the Node example)
	rm -rf $(NODE_EXAMPLE)/dist && cd $(NODE_EXAMPLE) && node_modules/.bin/tsc -p tsconfig.json
	$(call STEPPED,the Node example)

go-example: $(GO_EXAMPLE)
$(GO_EXAMPLE): $(STUBS) $(wildcard clients/examples/go/*.go)
	$(call STEP,the Go example)
	mkdir -p build/gopath/src && ln -sfn $(CURDIR) build/gopath/src/gamerules
	cd clients/examples/go && $(GO_ENV) go build -o $(CURDIR)/$@ .
	$(call STEPPED,the Go example)

# The client examples in other languages, built where their tools are (tests/clients/test_other_languages.py
# runs them against a real server). Why they were not built goes to build/examples.skip: their tests say it when
# they skip (make test) or fail (make test-examples).
client-examples: install
	@mkdir -p build && rm -f build/examples.skip; \
	missing=$$(for tool in node npm; do command -v $$tool >/dev/null || printf '%s ' $$tool; done); \
	if [ -n "$$missing" ]; then \
		echo "the examples were not built: no $$missing(Node 20 with npm)" > build/examples.skip; \
	elif ! tools=$$($(MAKE) --no-print-directory tools); then \
		echo "the examples were not built: $$(echo "$$tools" | tail -n 1)" > build/examples.skip; \
	else { [ -z "$$tools" ] || echo "$$tools"; } && $(MAKE) --no-print-directory node-example go-example || exit 1; fi; \
	! test -e build/examples.skip || cat build/examples.skip

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	$(PY) -m bench

# Fit Reversi's pattern weights (service/learn/reversi.py) into the package's data file, the one the service
# loads: CONFIG=small takes minutes, CONFIG=large (the default and the shipped file) the better part of an hour
# (the training prints what each part took); WORKERS processes label the positions (one per core by default: the same file).
# Labels come from the native search engine. Seeded: a configuration reproduces its file bit for bit. The labels
# are kept in build/ as they are made: run again after a stop, it labels only the stages it had not (the same file).
CONFIG ?= large
WORKERS ?= $(shell nproc 2>/dev/null || echo 1)
train-reversi: install
	$(PY) -m service.learn.reversi --config $(CONFIG) --workers $(WORKERS) --labels build/reversi-$(CONFIG).labels.npz

# Fit Reversi's multi-ProbCut model (service/learn/probcut.py) into the package's data file, the one expert
# loads: self-play positions searched 11 plies deep by the native engine, a few minutes on two cores. Seeded.
fit-probcut: install
	$(PY) -m service.learn.probcut --workers $(WORKERS)

# Fit Strands' learned evaluation (service/learn/strands.py) into the package's data file, the one the levels
# load: 800 self-play games of hard at 2,000 iterations a move, a quarter held out; about 4 minutes on two cores.
# Seeded per game: the same file whatever WORKERS.
train-strands: install
	$(PY) -m service.learn.strands --workers $(WORKERS)

# Fit each game's win-chance model (service/learn/winchance.py) into service/levels/data/winchance/, the files
# the levels load: self-play of every level against every level, labelled by the strongest level's analysis,
# a quarter of the games held out. One process, about half an hour of CPU for the five games. Seeded.
fit-winchance: install
	$(PY) -m service.learn.winchance --scale-check 12

# Measure every game's rated ladder (service/learn/ladder.py) into service/levels/data/ladder/: paired games of
# each step of the ladder, the ratings' fit and the review's calibration; an hour or two on two cores,
# most of it Strands' strongest level (the run prints its time). `python -m bench.ladder` prints the targets.
fit-ladder: install
	$(PY) -m service.learn.ladder

# Record the OpenAPI document's examples again (service/api/rest/examples.json) from real answers.
examples: install
	$(PY) -m service.api.rest.record_examples

# Re-pin requirements.lock from pyproject.toml's ranges (needs the package registry).
lock:
	rm -rf .lockvenv && $(PYTHON) -m venv .lockvenv && .lockvenv/bin/pip install --quiet '.[dev]' \
		&& (head -n 2 requirements.lock; .lockvenv/bin/pip freeze --exclude gamerules) > requirements.lock.new \
		&& mv requirements.lock.new requirements.lock && rm -rf .lockvenv

# Every package requirements.lock pins has a wheel for each Python of CHECK_PYTHONS (needs the package registry;
# pip resolves each pin's files without installing anything).
check-pythons: $(INSTALLED)
	for version in $(CHECK_PYTHONS); do \
		rm -rf build/check-$$version && $(PY) -m pip download --quiet --disable-pip-version-check \
			--only-binary=:all: --python-version $$version --no-deps -r requirements.lock -d build/check-$$version \
			&& echo "python $$version: every pinned package has a wheel" || exit 1; \
	done

clean:
	rm -rf $(VENV) $(GEN_DIR) .pytest_cache .ruff_cache .mypy_cache build gen \
		clients/python/build *.egg-info clients/python/*.egg-info \
		$(NODE_EXAMPLE)/node_modules $(NODE_EXAMPLE)/dist $(NODE_EXAMPLE)/src/gen
