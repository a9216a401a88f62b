# Brute: top-level entry points. See README.md.
#
#   make check                  every test layer; last line "check: N passed, N failed"
#   make KERNEL=/path/bzImage check   boot a given kernel instead of building one
#   make shell-fast | shell-system    boot a guest with a shell on this terminal
#   make demo                   a fork brute-force attack on a network service, Brute off vs on
#   make bench                  Brute's fork/exec overhead and brute-reportd's throughput
#
# Variables (also read from the environment): KERNEL, BRUTE_CACHE, BRUTE_CMDLINE (extra
# kernel arguments), BRUTE_TESTS (run only these guest scripts, e.g. 00-rig),
# BRUTE_RIG_INJECT (fail|hang|timeout|panic: rig self-tests), BRUTE_LAYERS
# (rig,daemon,audit,fast,system), DESTDIR, PREFIX (passed to the daemon's install when set).

SHELL := /bin/bash
PYTHON ?= python3
DESTDIR ?=
RULESDIR ?= /etc/audit/rules.d
CACHE := $(or $(BRUTE_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/brute)

export KERNEL BRUTE_CACHE BRUTE_CMDLINE BRUTE_TESTS BRUTE_RIG_INJECT BRUTE_LAYERS

.PHONY: help deps kernel selftests initramfs rootfs check check-fast check-system \
	shell-fast shell-system bench install clean

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' Makefile

# Debian packages; a no-op (one dpkg-query) when they are all installed.
deps:
	@scripts/deps.sh

# Prints the bzImage path.
kernel: deps
	@if [ -n "$(KERNEL)" ]; then echo "$(KERNEL)"; else scripts/kernel.sh; fi

selftests: deps
	@scripts/selftests.sh

initramfs: deps
	@scripts/initramfs.sh

rootfs: deps
	@scripts/rootfs.sh

check: deps
	@$(PYTHON) tests/rig/check.py

# One guest alone (BRUTE_TESTS=NAME[,NAME] to run some of its scripts).
check-fast: deps
	@$(PYTHON) tests/rig/guest.py fast

check-system: deps
	@$(PYTHON) tests/rig/guest.py system

# Benchmarks, not tests: figures measured side by side in one run.
bench: deps
	@KERNEL="$$($(MAKE) -s kernel | tail -n 1)" $(PYTHON) tests/bench/bench.py
	@$(MAKE) -s -C daemon bench

shell-fast: deps
	@$(PYTHON) tests/rig/guest.py fast --shell

shell-system: deps
	@$(PYTHON) tests/rig/guest.py system --shell

# The attack Brute exists for, off vs on, in the system guest (tests/demo/, README.md);
# builds the kernel and the Debian image like check-system when they are missing.
demo: deps
	@$(PYTHON) tests/demo/run-demo.py

# The daemon's own install brings its binary, units, plugin and configuration.
install: deps
	@if [ -f daemon/Makefile ]; then \
		$(MAKE) -C daemon install DESTDIR="$(DESTDIR)" $(if $(PREFIX),PREFIX="$(PREFIX)"); fi
	@for f in rules/*.rules; do [ -e "$$f" ] || continue; \
		install -D -m 640 "$$f" "$(DESTDIR)$(RULESDIR)/$${f##*/}"; done

# Removes the rig's outputs (guest images, selftest and helper programs, runs); the kernel
# tree in the same cache belongs to scripts/kernel.sh and stays.
clean:
	@if [ -f daemon/Makefile ]; then $(MAKE) -C daemon clean; fi
	rm -rf "$(CACHE)/rig"
