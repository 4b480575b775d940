# xiw: software iWARP RNIC. See README.md.
#
#   make setup        install what the project needs (Debian bookworm, root)
#   make              build kmod/xiw.ko, the xiwperf module and the C++ parts
#   make check        setup, build, lint, KUnit (UML), GoogleTest (also under
#                     ASan/UBSan), VM tests
#   make demo         boot the VM and show xiw devices at work
#   make bench        xiw vs siw vs rxe vs TCP, report and plots in bench/results/
#   make bench-smoke  a few cells of it, to prove the tooling (part of make check)
#   make interop      what make check leaves out of the scenarios across two
#                     guests (the other directions, devices and addresses)
#   make fuzz         the hostile peer's full run (10^6 FPDUs; FUZZ_SEED=N replays)
#   make vm-shell     a shell in the VM with xiw installed
#   make lint         checkpatch --strict and sparse on kmod/ and the xiwperf
#                     module, clang-tidy on the C++ (make tidy)
#   make check-install install from the packages and make install in a VM
#   make check-debug  the VM scenarios and the hostile peer on the debug kernel
#                     (KASAN, lockdep, atomic-sleep, kmemleak...; built and
#                     cached by make debug-kernel on first use: see
#                     Documentation/testing.md)
#   make debug-kernel build (once per config and source version) the debug kernel
#   make debug-kmod   the test modules built against it, in build/debug/tree/
#   make install      xiw.ko into /lib/modules/$KVER/updates, libxiw, xiwctl,
#                     the libibverbs provider (PREFIX, default /usr/local;
#                     DESTDIR); make uninstall takes it all away again
#   make install-xiwperf  the optional xiwperf tool and its module
#   make dkms-install the module's sources in /usr/src/xiw-VERSION for DKMS
#   make deb          Debian packages (xiw-dkms, libxiw0, libxiw-dev, xiw-tools,
#                     ibverbs-provider-xiw) in build/deb/

SHELL := /bin/bash

KVER ?= $(shell ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' | sort -V | tail -n1)
KDIR ?= /usr/src/linux-headers-$(KVER)
BUILD ?= $(CURDIR)/build
CMAKE_BUILD := $(BUILD)/cmake
PYTHON ?= /usr/bin/python3
PYTEST_ARGS ?=
XIWPERF_KMOD := $(CURDIR)/tools/xiwperf/kmod
XIWTARGET_KMOD := $(CURDIR)/tests/reliability/target

.PHONY: all kmod xiwperf-kmod xiwtarget-kmod siw userspace setup check lint sparse checkpatch tidy kunit unit unit-sanitized \
	integration interop demo bench bench-smoke fuzz vm-shell clean debug-kernel debug-kmod check-debug \
	install install-kmod install-user install-xiwperf uninstall dkms-install deb check-install

all: kmod xiwperf-kmod xiwtarget-kmod userspace

# W=1 must be warning-free: compiler and kernel-doc warnings fail the build.
# $(call build-module,NAME,DIR): build the module in DIR that way.
define build-module
	@mkdir -p $(BUILD)
	@test -d "$(KDIR)" || { echo "no kernel headers at '$(KDIR)': run 'make setup'"; exit 1; }
	+@$(MAKE) -C $(KDIR) M=$(2) W=1 modules 2>&1 | tee $(BUILD)/$(1).log; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
		if grep -E 'warning:|error:' $(BUILD)/$(1).log; then echo "$(1): warnings above"; exit 1; fi
	@rm -f $(BUILD)/$(1).log
endef

kmod:
	$(call build-module,kmod,$(CURDIR)/kmod)

# The xiwperf test module, held to the same standard as kmod/.
xiwperf-kmod:
	$(call build-module,xiwperf-kmod,$(XIWPERF_KMOD))

# The hostile-peer tests' target module, held to the same standard.
xiwtarget-kmod:
	$(call build-module,xiwtarget-kmod,$(XIWTARGET_KMOD))

# Stock siw.ko, built out of tree into $XIW_CACHE for the VM tests.
siw:
	@scripts/build-siw.sh

userspace:
	@cmake -S . -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_INSTALL_PREFIX=$(PREFIX) -DXIW_WERROR=ON >/dev/null
	@cmake --build $(CMAKE_BUILD) -j $$(nproc)

# Installing. PREFIX is the userspace parts' (fixed when they are built:
# the provider's driver file names its path); the module goes where
# modprobe looks first, /lib/modules/$KVER/updates/. With DESTDIR (a
# staging root, as packaging uses) depmod and ldconfig are left to
# whoever installs from there. What was installed is listed in
# build/install-manifest.txt, which make uninstall reads.
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell cat $(CURDIR)/VERSION)
USER_COMPONENTS := lib dev tools provider
MANIFEST := $(BUILD)/install-manifest.txt

install: install-kmod install-user

install-kmod: kmod
	install -D -m 0644 kmod/xiw.ko $(DESTDIR)/lib/modules/$(KVER)/updates/xiw.ko
	@echo /lib/modules/$(KVER)/updates/xiw.ko >>$(MANIFEST)
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

install-user: userspace
	@for c in $(USER_COMPONENTS); do \
		DESTDIR=$(DESTDIR) cmake --install $(CMAKE_BUILD) --component $$c || exit 1; \
		sed -e "s|^$(DESTDIR)||" -e '$$a\' $(CMAKE_BUILD)/install_manifest_$$c.txt >>$(MANIFEST); \
	done
	@if [ -z "$(DESTDIR)" ]; then ldconfig; fi

install-xiwperf: xiwperf-kmod userspace
	install -D -m 0644 $(XIWPERF_KMOD)/xiwperf.ko \
		$(DESTDIR)/lib/modules/$(KVER)/updates/xiwperf.ko
	@echo /lib/modules/$(KVER)/updates/xiwperf.ko >>$(MANIFEST)
	@DESTDIR=$(DESTDIR) cmake --install $(CMAKE_BUILD) --component xiwperf
	@sed -e "s|^$(DESTDIR)||" -e '$$a\' $(CMAKE_BUILD)/install_manifest_xiwperf.txt >>$(MANIFEST)
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

uninstall:
	@test -f $(MANIFEST) || { echo "uninstall: no $(MANIFEST): nothing installed from this tree"; exit 1; }
	@sort -u $(MANIFEST) | while read -r f; do rm -fv "$(DESTDIR)$$f"; done
	@# The directories made for xiw alone (include/xiw and its uapi/,
	@# lib/cmake/xiw, lib/libibverbs), if empty now; the deepest first.
	@sort -u $(MANIFEST) | sed -n 's|/[^/]*$$||p' | grep -E '/(xiw(/uapi)?|libibverbs)$$' | sort -ru | \
		while read -r d; do rmdir -v --ignore-fail-on-non-empty "$(DESTDIR)$$d"; done
	@rm -f $(MANIFEST)
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); ldconfig; fi

# Debian packages in build/deb/ (Documentation/admin.md): the tree's
# files (what git tracks or would, nothing built) staged in
# build/deb/xiw-VERSION with packaging/debian/ as its debian/ and a
# changelog entry for VERSION, then dpkg-buildpackage and lintian.
deb:
	@rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/xiw-$(VERSION)
	@git ls-files -z -co --exclude-standard | grep -zv '^packaging/' | \
		tar --null -T - -cf - | tar -xf - -C $(BUILD)/deb/xiw-$(VERSION)
	@cp -r packaging/debian $(BUILD)/deb/xiw-$(VERSION)/debian
	@printf 'xiw (%s) unstable; urgency=medium\n\n  * Built from the xiw source tree, commit %s.\n\n -- %s  %s\n' \
		"$(VERSION)" "$$(git rev-parse --short HEAD)" \
		"$$(sed -n 's/^Maintainer: //p' packaging/debian/control)" "$$(date -R)" \
		>$(BUILD)/deb/xiw-$(VERSION)/debian/changelog
	@cd $(BUILD)/deb/xiw-$(VERSION) && dpkg-buildpackage -us -uc -b -j$$(nproc) >../build.log 2>&1 || \
		{ tail -40 ../build.log; exit 1; }
	@cd $(BUILD)/deb && lintian --fail-on error,warning *.changes
	@ls $(BUILD)/deb/*.deb

# The module's sources as DKMS wants them, in /usr/src/xiw-VERSION; then
# "dkms install xiw/VERSION" builds and installs for a kernel
# (Documentation/admin.md). Only what the module build reads goes there.
DKMS_SRC = $(DESTDIR)/usr/src/xiw-$(VERSION)
dkms-install:
	install -d $(DKMS_SRC)/kmod $(DKMS_SRC)/include/xiw $(DKMS_SRC)/uapi
	install -m 0644 VERSION $(DKMS_SRC)/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms/dkms.conf.in >$(DKMS_SRC)/dkms.conf
	install -m 0644 kmod/Kbuild $$(ls kmod/*.[ch] | grep -v -e '_kunit\.[ch]$$' -e '\.mod\.c$$') \
		$(DKMS_SRC)/kmod/
	install -m 0644 include/xiw/*.h include/xiw/compat.mk $(DKMS_SRC)/include/xiw/
	install -m 0644 uapi/*.h $(DKMS_SRC)/uapi/

setup:
	@scripts/setup.sh

# third_party/ is left out of every checker: it is upstream code kept
# byte-for-byte (third_party/*/README.md says how that is verified).
lint: checkpatch sparse tidy

# kmod/trace.h is left out: TRACE_EVENT()'s own layout (open-ended
# TP_STRUCT__entry( lines) is what every kernel trace header has, and what
# checkpatch --strict objects to; sparse and W=1 still see it.
checkpatch:
	@src=$$(scripts/linux-src.sh) && \
		$$src/scripts/checkpatch.pl --strict --no-tree --quiet --show-types \
		-f $$(ls kmod/*.[ch] | grep -v '\.mod\.c$$' | grep -v '^kmod/trace\.h$$') \
		$$(ls tools/xiwperf/kmod/*.[ch] tests/reliability/target/*.[ch] | grep -v '\.mod\.c$$') uapi/xiwperf.h uapi/xiw_abi.h include/xiw/*.h && \
		echo "checkpatch --strict: clean"

sparse:
	@mkdir -p $(BUILD)
	@for m in $(CURDIR)/kmod $(XIWPERF_KMOD) $(XIWTARGET_KMOD); do \
		$(MAKE) -C $(KDIR) M=$$m C=2 W=1 modules || exit 1; \
	done 2>&1 | tee $(BUILD)/sparse.log | grep -v '^make\|^  ' ; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
		if grep -E 'warning:|error:' $(BUILD)/sparse.log >/dev/null; then echo "sparse: warnings above"; exit 1; fi; \
		rm -f $(BUILD)/sparse.log; echo "sparse: clean"

kunit:
	@scripts/kunit.sh

unit: userspace
	@cd $(CMAKE_BUILD) && ctest --output-on-failure

# The GoogleTest suites again, built with ASan and UBSan (Debug, its own
# build tree); a sanitizer's report fails the test that caused it.
SANITIZED_BUILD := $(BUILD)/cmake-sanitized
unit-sanitized:
	@cmake -S . -B $(SANITIZED_BUILD) -DCMAKE_BUILD_TYPE=Debug -DXIW_WERROR=ON \
		-DXIW_SANITIZE=ON >/dev/null
	@cmake --build $(SANITIZED_BUILD) -j $$(nproc) --target xiw_unit_tests \
		xiwperf_unit_tests provider_sq_tests
	@cd $(SANITIZED_BUILD) && ctest --output-on-failure -L gtest

# clang-tidy over userlib/ and tools/ (.clang-tidy has the checks and why).
tidy: userspace
	@scripts/tidy.sh $(CMAKE_BUILD)

# The scenarios in XIW_SHARDS guests at once (scripts/integration.sh).
XIW_SHARDS ?= 2
integration: all
	@PYTHON=$(PYTHON) XIW_SHARDS=$(XIW_SHARDS) scripts/integration.sh $(PYTEST_ARGS)

# What make integration leaves out: the other directions, devices and
# addresses of the scenarios across two guests (tests marked interop).
interop: all
	@PYTHON=$(PYTHON) XIW_SHARDS=$(XIW_SHARDS) XIW_INTEROP=1 \
		scripts/integration.sh -m interop $(PYTEST_ARGS)

# Installing from the packages and from make install into a guest whose
# root has none of xiw (tests/integration/test_install.py): not part of
# make check (DKMS builds the module under TCG); .ci/run runs it.
check-install: all
	@PYTHON=$(PYTHON) XIW_SHARDS=1 XIW_TESTS=tests/integration/test_install.py \
		scripts/integration.sh -v -rfE

# The debug kernel (scripts/debug-kernel.sh): its directory in $XIW_CACHE
# is printed; the first build is long (Documentation/testing.md).
debug-kernel:
	@scripts/debug-kernel.sh

# xiw, xiwperf and xiwtarget built against the debug kernel's tree, aside
# from the production build (build/debug/tree/).
debug-kmod:
	@scripts/debug-kmod.sh

# The VM scenarios on the debug kernel; PYTEST_ARGS and XIW_SHARDS as for
# make integration. RESUME=1: only what the last run of the same sources
# has not passed yet (scripts/check-debug.sh --resume).
check-debug: all
	@PYTHON=$(PYTHON) XIW_SHARDS=$(XIW_SHARDS) scripts/check-debug.sh \
		$(if $(RESUME),--resume) $(PYTEST_ARGS)

# Setup first, in its own make, so that KVER/KDIR see the installed kernel.
check:
	@$(MAKE) --no-print-directory setup
	@$(MAKE) --no-print-directory all
	@scripts/check.sh

demo:
	@$(MAKE) --no-print-directory setup
	@$(MAKE) --no-print-directory all
	@$(PYTHON) scripts/demo.py

# Not part of check: it takes about half an hour and asserts nothing about
# the figures (see bench/README.md).
bench:
	@$(MAKE) --no-print-directory setup
	@$(MAKE) --no-print-directory all
	@$(PYTHON) bench/run.py

bench-smoke: all
	@$(PYTHON) -m pytest -q tests/integration/test_bench.py

# Not part of check (hours under TCG): make check runs a 10^4-FPDU slice of
# the same test with a fixed seed. A finding prints its seed and case.
ifeq ($(origin FUZZ_SEED),undefined)
FUZZ_SEED := $(shell od -An -N4 -tu4 /dev/urandom | tr -d ' ')
endif
FUZZ_CASES ?= 210000
# Cases per mode of the stateful response fuzzing (hostile_peer.py --responses).
FUZZ_RESPONSES_CASES ?= 100000
# Rounds of connection-level abuse (conn_abuse.py), and teardown races
# (conn_abuse.py's, and test_qp_lifecycle.py's drain/ERR/RST race).
FUZZ_ABUSE_ROUNDS ?= 2000
FUZZ_RACES ?= 100
FUZZ_TEARDOWN_ROUNDS ?= 400
fuzz: all
	@echo "make fuzz: seed $(FUZZ_SEED), $(FUZZ_CASES) cases per mode, $(FUZZ_RESPONSES_CASES) per response mode, $(FUZZ_ABUSE_ROUNDS) abuse rounds, $(FUZZ_RACES) + $(FUZZ_TEARDOWN_ROUNDS) teardown races"
	@XIW_FUZZ_SEED=$(FUZZ_SEED) XIW_FUZZ_SLICE=$(FUZZ_CASES) \
		XIW_FUZZ_RESPONSES_SLICE=$(FUZZ_RESPONSES_CASES) \
		XIW_ABUSE_SEED=$(FUZZ_SEED) XIW_ABUSE_ROUNDS=$(FUZZ_ABUSE_ROUNDS) \
		XIW_RACES=$(FUZZ_RACES) XIW_TEARDOWN_ROUNDS=$(FUZZ_TEARDOWN_ROUNDS) \
		$(PYTHON) -m pytest -s tests/integration/test_hostile_peer.py \
		tests/integration/test_hostile_connections.py \
		"tests/integration/test_qp_lifecycle.py::test_teardowns_at_once_put_each_reference_once"

vm-shell: all
	@$(PYTHON) scripts/vm-shell.py

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean
	-$(MAKE) -C $(KDIR) M=$(XIWPERF_KMOD) clean
	-$(MAKE) -C $(KDIR) M=$(XIWTARGET_KMOD) clean
	rm -rf $(BUILD)
