# tierbench — `make run` runs the workflow on the default host profile; `make test` tests.
#   make run  [HOST=name|path] [CONFIG=workflows/config/paper.yaml] [CORES=all] [SOURCES=dir] [SMK_ARGS=...]
#                   SOURCES: pinned upstream archives for offline builds (default: ../shared/upstream
#                   beside the checkout, when there is one; else GitHub)
#                   First prints the estimate (cli plan: points and time per family), then
#                   [progress] lines: points done / total and the time left
#   make test       ruff + snakemake --lint, then tests/suite.py: C tests (sanitizers) + pytest (incl.
#                   dry runs, tiny real runs, SIGINT, and the two-node QEMU guest: its tests beside
#                   the host's); TIERBENCH_TEST_SERIAL=1: one pytest session
#   make test-vm    only the guest's own tests (test_qemu_guest, test_qemu_topologies, test_damon);
#                   make test runs every vm-marked test
#   make build      all C binaries into build/bin/
#   make setup      system packages + Python environment only
#   make setup-cachebench   the Debian packages CacheLib's build needs (apps family, cachelib)
#   make lint       ruff + snakemake --lint
#   make bench      benchmarks (bench/bench_*.py; BENCH=name for one): rates and ratios, no verdicts
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

HOST ?= auto
# empty: snakemake's own choice, as without --configfile: quick.yaml, or a guest host's config
# (hosts/qemu-numa.yaml's runner: workflows/config/qemu.yaml); a file is merged over quick.yaml
CONFIG ?=
CONFIG_ARG = $(if $(CONFIG),--configfile '$(CONFIG)')
CORES ?= all
SMK_ARGS ?=
SOURCES ?= $(firstword $(wildcard $(CURDIR)/../shared/upstream))
SOURCES_ARG = $(if $(SOURCES),sources='$(SOURCES)')
# Snakemake arguments that rerun jobs whose outputs are current: the estimate then counts every point
FORCE_ARGS := -F --forceall -R --forcerun
PLAN_ALL = $(if $(filter $(FORCE_ARGS) --forcerun=%,$(SMK_ARGS)),--all-points)
BUILD := $(CURDIR)/build
PYTHON := $$(cat build/python)
# C components, in dependency order (libcolloid before what links it).
C_DIRS := lib colloid colloid/sim colloid/tierd workloads/memchar workloads/gups antagonists
C_PRESENT = $(foreach d,$(C_DIRS),$(if $(wildcard $(d)/Makefile),$(d)))
# each component's objects compiled JOBS at a time (its tests still run one by one)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

.PHONY: help bench run test build setup setup-cachebench lint report clean distclean c-test py-test test-vm

help:
	@sed -n '1,15p' Makefile | sed 's/^# \{0,1\}//'

setup:
	@python3 -m workflows.harness.bootstrap

setup-cachebench:
	@python3 -m workflows.harness.bootstrap --cachebench

# The project's Python modules are compiled here too: where PYTHONDONTWRITEBYTECODE is set (this
# project's development VM, many containers) Python never writes their bytecode itself, so each of
# a run's ~120 Python jobs would compile them again (0.24 s per figure job).
PY_DIRS := analysis families workflows systems workloads hosts bench antagonists

# The C components compile while the Python environment installs (they need the system packages,
# not Python). A fresh clone's `make build` took 26 s here; 3.7 s where an earlier clone left its
# caches (ccache's objects, the kept uv and bytecode: workflows/harness/bootstrap.py).
build:
	@python3 -m workflows.harness.bootstrap --system
	@python3 -m workflows.harness.bootstrap --python & py=$$!; \
	for d in $(C_PRESENT); do \
		echo "[build] $$d"; \
		$(MAKE) -j$(JOBS) --no-print-directory -C $$d BUILD=$(BUILD) || { wait $$py; exit 1; }; \
	done; \
	wait $$py
	@$(PYTHON) -m compileall -q -j 0 $(wildcard $(PY_DIRS)) > /dev/null

run: build
	@host=$$($(PYTHON) -m workflows.harness.cli name --host '$(HOST)' $(CONFIG_ARG)) && \
	echo "[run] host profile '$(HOST)' -> results/$$host/ (config $(or $(CONFIG),quick.yaml or a guest host's own))" && \
	$(PYTHON) -m workflows.harness.cli repair --host '$(HOST)' $(CONFIG_ARG) && \
	{ $(PYTHON) -m workflows.harness.cli plan --host '$(HOST)' $(CONFIG_ARG) --cores '$(CORES)' --project none $(PLAN_ALL) \
		--save "results/$$host/.estimate.json" || rm -f "results/$$host/.estimate.json"; } && \
	$(PYTHON) -m snakemake --cores $(CORES) --rerun-incomplete $(CONFIG_ARG) --config host='$(HOST)' $(SOURCES_ARG) $(SMK_ARGS) \
		--report "results/$$host/report.html" --report-after-run 2>&1 \
		| $(PYTHON) -m workflows.harness.estimate follow "results/$$host/.estimate.json" && \
	echo "[run] done: results/$$host/report.html, figures in results/$$host/figures/"

report: setup
	@host=$$($(PYTHON) -m workflows.harness.cli name --host '$(HOST)' $(CONFIG_ARG)) && \
	$(PYTHON) -m snakemake --cores 1 $(CONFIG_ARG) --config host='$(HOST)' --report "results/$$host/report.html"

c-test: build
	@for d in $(C_PRESENT); do \
		echo "[test] $$d"; \
		$(MAKE) -j$(JOBS) --no-print-directory -C $$d BUILD=$(BUILD) test || exit 1; \
	done

lint: setup
	$(PYTHON) -m ruff check analysis workflows families systems workloads antagonists tests hosts bench
	$(PYTHON) -m snakemake --lint --cores 1

py-test: build
	$(PYTHON) -m pytest tests

bench: build
	$(PYTHON) -m bench $(BENCH)

test-vm: build
	$(PYTHON) -m pytest -m vm tests/test_qemu_guest.py tests/test_qemu_topologies.py tests/test_damon.py

# (pytest's test_lint_clean skips the snakemake --lint that `make lint` has just run; tests/suite.py
# runs make c-test beside the builds several tests share, then the guest's pytest session beside the host's)
test: build lint
	TIERBENCH_LINTED=1 $(PYTHON) tests/suite.py

clean:
	rm -rf build/bin build/lib build/obj

distclean: clean
	rm -rf build .venv .snakemake
