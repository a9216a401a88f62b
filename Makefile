# Brute: top-level entry points. See README.md.
#
#   make check                  every test layer; last line "check: N passed, N failed"
#   make check-debug            the fast guest on the KASAN+kmemleak+UBSAN and KCSAN kernels,
#                               with a long stress storm and fault injection (not in check)
#   make check-kselftest        the kernel's own selftests (exec, pidfd, seccomp, ..., net) in
#                               the fast guest without and with Brute: fails on a difference
#   make KERNEL=/path/bzImage check   boot a given kernel instead of building one
#   make shell-fast | shell-system    boot a guest with a shell on this terminal
#   make demo                   a fork brute-force attack on a network service, Brute off vs on,
#                               and its timeline plot
#   make bench                  Brute's fork/exec/TCP overhead, a service's availability under
#                               attack (prod kernel), Debian's real services under attack
#                               (tests/bench/services.py) and brute-reportd's throughput;
#                               plots of the availability runs and the cost in docs/img
#   make install | uninstall    the daemon, its units and configuration, the audit rules
#                               (never apt-get; an edited file under /etc is never replaced)
#   make dist                   brute-VERSION.tar.gz of the tree (VERSION: scripts/version.sh)
#   make deb                    the brute-reportd Debian package (scripts/pkg.sh)
#   make kernel-deb             a Debian kernel package of 6.12 with Brute (scripts/kernel-deb.sh;
#                               Debian's config + ours: hours on 2 cores)
#   make kernel-deb-boot        boot that package's kernel in the fast guest and run its tests
#   make check-bpf              Brute's BPF flavour (bpf/) on Debian's unmodified stock 6.12 kernel
#                               in the fast guest, and the loader's host tests (not in check yet)
#
# Variables (also read from the environment): KERNEL, BENCH_KERNEL (make bench's kernel),
# BRUTE_CACHE, BRUTE_CMDLINE (extra kernel arguments), BRUTE_TESTS (run only these guest
# scripts, e.g. 00-rig), BRUTE_RIG_INJECT (fail|hang|timeout|panic: rig self-tests),
# BRUTE_LAYERS (rig,daemon,tools,host,audit,fast,bench,system), DESTDIR, PREFIX (passed to
# the daemon's install when set), PURGE=yes (make uninstall also removes edited configuration).

SHELL := /bin/bash
PYTHON ?= python3
DESTDIR ?=
RULESDIR ?= /etc/audit/rules.d
PURGE ?=
CACHE := $(or $(BRUTE_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/brute)

export KERNEL BENCH_KERNEL BRUTE_CACHE BRUTE_CMDLINE BRUTE_TESTS BRUTE_RIG_INJECT BRUTE_LAYERS BRUTE_HOST_TESTS

.PHONY: help deps kernel selftests initramfs rootfs check check-fast check-system \
	check-debug check-kselftest check-bpf shell-fast shell-system bench install uninstall dist deb kernel-deb kernel-deb-boot clean

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

# The sanitizer kernels (scripts/kernel.sh --flavour kasan|kcsan, built and cached like the
# test kernel): selftests, a 180 s storm, fault injection, kmemleak (tests/debug/).
check-debug: deps
	@$(PYTHON) tests/debug/check-debug.py $(FLAVOURS)

# The kernel's own selftests, built static from the test kernel's tree (scripts/kselftests.sh),
# run as root and as a user in the fast guest booted with lsm=capability and with Brute;
# any difference in a program's or a case's result fails (tests/kselftest/, README.md).
check-kselftest: deps
	@$(PYTHON) tests/kselftest/check-kselftest.py

# Brute's BPF flavour (bpf/, docs/bpf-flavour.md): Debian's stock linux-image-6.12 (downloaded,
# cached in $(CACHE)/stock), the BPF object and brute-bpf-loaded built against its BTF, the
# loader's host tests, then the fast guest on that kernel (scripts/check-bpf.sh).
check-bpf: deps
	@scripts/check-bpf.sh

# One guest alone (BRUTE_TESTS=NAME[,NAME] to run some of its scripts).
check-fast: deps
	@$(PYTHON) tests/rig/guest.py fast

check-system: deps
	@$(PYTHON) tests/rig/guest.py system

# Benchmarks, not tests: figures measured side by side in one run. The kernel is the
# production flavour (tests/bench/bench.py builds it with scripts/kernel.sh --flavour prod),
# or BENCH_KERNEL; never KERNEL, make check's test kernel (lockdep, no Landlock or Yama).
bench: deps
	@$(PYTHON) tests/bench/bench.py
	@$(PYTHON) tests/bench/services.py
	@$(MAKE) -s -C daemon bench

shell-fast: deps
	@$(PYTHON) tests/rig/guest.py fast --shell

shell-system: deps
	@$(PYTHON) tests/rig/guest.py system --shell

# The attack Brute exists for, off vs on, in the system guest (tests/demo/, README.md);
# builds the kernel and the Debian image like check-system when they are missing.
demo: deps
	@$(PYTHON) tests/demo/run-demo.py

# The product only: no `deps` (installing Brute never installs build tools or touches other
# packages). The daemon's own install brings its binary, units, man pages, plugin and
# configuration; brutectl's (tools/brutectl, when the tree has it) its binary, man page, the
# unit that loads the trusted peers at boot and their file /etc/brute/trusted-peers.conf;
# the rules go to $(RULESDIR). Files under /etc are configuration: installed
# when absent, an edited one is kept and the new default put beside it as NAME.default
# (scripts/conffile.sh). Installing onto / also reindexes the journal catalog and reloads
# systemd; loading the rules (augenrules --load) and enabling the unit are the operator's.
install:
	@if [ -f daemon/Makefile ]; then \
		$(MAKE) -C daemon install DESTDIR="$(DESTDIR)" $(if $(PREFIX),PREFIX="$(PREFIX)"); fi
	@if [ -f tools/brutectl/Makefile ]; then \
		$(MAKE) -C tools/brutectl install DESTDIR="$(DESTDIR)" $(if $(PREFIX),PREFIX="$(PREFIX)"); fi
	@for f in rules/*.rules; do [ -e "$$f" ] || continue; \
		sh scripts/conffile.sh install "$$f" "$(DESTDIR)$(RULESDIR)/$${f##*/}" 640; done
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		if command -v journalctl >/dev/null; then journalctl --update-catalog || true; fi; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi; \
		echo "next: augenrules --load; systemctl enable --now brute-reportd (README: Deploy on a host)"; fi

# Removes what install put; edited configuration stays unless PURGE=yes.
uninstall:
	@if [ -f daemon/Makefile ]; then \
		$(MAKE) -C daemon uninstall DESTDIR="$(DESTDIR)" $(if $(PREFIX),PREFIX="$(PREFIX)") \
			$(if $(PURGE),PURGE=yes); fi
	@if [ -f tools/brutectl/Makefile ]; then \
		$(MAKE) -C tools/brutectl uninstall DESTDIR="$(DESTDIR)" $(if $(PREFIX),PREFIX="$(PREFIX)") \
			$(if $(PURGE),PURGE=yes); fi
	@for f in rules/*.rules; do [ -e "$$f" ] || continue; \
		sh scripts/conffile.sh remove "$$f" "$(DESTDIR)$(RULESDIR)/$${f##*/}" $(if $(PURGE),purge); done
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		if command -v journalctl >/dev/null; then journalctl --update-catalog || true; fi; \
		if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi; fi

# brute-VERSION.tar.gz in this directory (scripts/dist.sh); reproducible, and buildable from
# itself (it carries VERSION and MANIFEST).
dist:
	@scripts/dist.sh

# Prints the .deb path ($(CACHE)/rig/pkg/).
deb: deps
	@scripts/pkg.sh

# Prints the linux-image .deb path ($(CACHE)/kdeb/).
kernel-deb: deps
	@scripts/kernel-deb.sh

# Boots the package make kernel-deb built (it does not build one: hours on 2 cores).
kernel-deb-boot: deps
	@scripts/kernel-deb-boot.sh

# Removes the rig's outputs (guest images, selftest and helper programs, runs); the kernel
# tree in the same cache belongs to scripts/kernel.sh and stays.
clean:
	@if [ -f daemon/Makefile ]; then $(MAKE) -C daemon clean; fi
	@$(MAKE) -C tools/brutectl clean
	@$(MAKE) -C bpf clean
	rm -rf "$(CACHE)/rig"
