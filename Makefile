# SPDX-License-Identifier: GPL-2.0
# bpf_ksym: build, boot and test a 7.3 kernel whose BPF ksym registry is Rust.
#
#   make help                this text (plain `make` prints it too; make all is make test)
#   make doctor              what this machine has and lacks, and what make run would
#                            install; installs nothing, needs no root, takes seconds
#   make run                 build, boot, show BPF programs in /proc/kallsyms and perf frames
#   make test                build, boot, run every suite; last line "N passed, N failed[, N skipped]"
#   make test-all            make test for the Rust and the C registry, and the demo on
#                            the Rust one (CI, .ci/run, runs make lint, test-all and
#                            test-debug)
#                            (these, shell and bench also with ARCH=arm64)
#   make test-debug          the suites on a lockdep/KASAN/kmemleak kernel, a longer
#                            stress run and 1M KALLSYMS_QUERY fuzz inputs
#   make results             count the guest logs of test-all and test-debug again
#   make test-faults         the debug kernel with fault injection: queries, readers,
#                            loads and attaches with each fault point failed in turn
#   make test-kcsan          the suites and a 60 s stress on a KCSAN kernel (data races)
#   make test-upstream       upstream's test_progs on the tests that reach the registry
#   make test-upstream-all   all of upstream's test_progs (long; not compared)
#   make fuzz                fuzz KALLSYMS_QUERY on the normal kernel (FUZZ_INPUTS)
#   make soak                churn, readers and batch queries for SOAK_S seconds on the
#                            normal kernel, checked every minute (symbols left behind,
#                            generation, memory)
#   make stress              the stress test STRESS_RUNS times back to back in one boot
#   make repro-text-patch    reproduce a QEMU 7.2 TCG fault (not this work's): a kprobe
#                            toggled on a function the other vCPU runs oopses the guest
#   make shell               boot the same kernel to a guest shell
#   make bench               the Rust registry against mainline C, every figure
#   make bench-query         KALLSYMS_QUERY against parsing /proc/kallsyms
#   make build               install, fetch, patch, configure, build (no boot)
#   make deps, source, tree, config, kernel, initramfs
#                            one stage of make build (and the stages it needs)
#   make configs             build vmlinux in every config matrix entry (CONFIGS=...;
#                            the list: ORDER in scripts/configs.sh), arm64, arm64-lto,
#                            arm, riscv64 and loongarch64 entries included
#   make lint                shellcheck, rustfmt, checkpatch on the series, ksym-query's
#                            fmt/clippy/tests, blazesym's tests with tools/blazesym's
#                            patches, htmldocs of our pages, the uapi header's kernel-doc
#                            against the code, the paths documents name, the Kconfig
#                            wiring, the documents' figures, the example programs, the
#                            scripts' unit tests (each: scripts/lint.sh's header)
#   make series              the work as git format-patch series in build/series/
#   make series-check        git am it on pristine 7.3, build and checkpatch every patch
#   make refresh-patch P=<patch>
#                            rewrite patches/<patch> from its files edited in build/src
#   make clean               remove the build output: build/ (or BPF_KSYM_BUILD)
#   make distclean           make clean, and the downloads, pristine tree and ccache
#                            (BPF_KSYM_CACHE)
#
# Variables (make VAR=value, or the environment):
#   BPF_KSYM=c               use the original C registry (CONFIG_BPF_KSYM_RUST=n); default
#                            rust. Which target runs on which: docs/testing.md (Registries)
#   ARCH=arm64               cross-build with LLVM and boot under qemu-system-aarch64 (TCG);
#                            default x86_64. Outputs are named rust-arm64, c-arm64, ...
#   EXTRA_CONFIG=cfi         kCFI kernel (config/cfi.config); also debug, faults, fineibt,
#                            kcsan, upstream (a file of config/)
#   CONFIGS="ours cfi ..."   the entries of make configs to build (default: all)
#   GUEST_TIMEOUT=600        seconds a boot may take (fuzz, soak, test-debug, test-faults,
#                            test-kcsan and test-upstream set theirs)
#   GUEST_MEM=2G             the guest's memory
#   GUEST_CMDLINE="..."      more kernel command line for the guest
#   GUEST_ACCEL=tcg          TCG even where KVM works (benchmark boots always use TCG)
#   TCG_THREAD=single        all vCPUs on one host thread under TCG (default: one each)
#   QEMU=<path>              another qemu-system-x86_64 than the one on PATH
#   QEMU_EXTRA="..."         more QEMU options (make bench's icount mode: -icount shift=0 -smp 1)
#   V=1                      stream the build's (kbuild's V=1) and the guest's output, not
#                            a progress line every 30 s
#   HEARTBEAT=30             seconds between those lines
#   FUZZ_INPUTS=1000000      KALLSYMS_QUERY fuzz inputs of make fuzz and make test-debug
#   FUZZ_SEED=1              the fuzzer's seed
#   SOAK_S=3600              seconds make soak runs (whole minutes: a checkpoint each)
#   SOAK_GROWTH_KB=4096      how far make soak lets each memory figure grow (kB)
#   STRESS_RUNS=20           runs of make stress
#   BENCH_N=1,100,...        numbers of BPF symbols make bench measures at
#   BENCH_RUNS=3             make bench's boots per kernel and mode
#   BENCH_MODES=icount,tcg   make bench's modes
#   BENCH_MERGE=1            make bench keeps the last run's records of the modes not run
#   NO_BUILD=1               make series-check: checkpatch only, no builds
#   P=<patch>                make refresh-patch: the file in patches/
#   BPF_KSYM_BUILD=<dir>     build output (default build/; CI: ~/.cache/bpf_ksym/ci-build)
#   BPF_KSYM_CACHE=<dir>     downloads, pristine tree, ccache (default ~/.cache/bpf_ksym,
#                            or $XDG_CACHE_HOME/bpf_ksym)
#   CCACHE_DIR=<dir>         ccache's cache (default $BPF_KSYM_CACHE/ccache)
#   CCACHE_MAXSIZE=10G       ccache's size limit
#   LLVM_VER=22              clang/lld version (must match rustc's LLVM)
#   KVER=7.3                 kernel version fetched (the patches are 7.3's)
#   JOBS=2                   cargo's -j for tools/blazesym (initramfs, lint)
#   REPATCH=1                make lint: apply tools/blazesym's patches again
#   BPF_KSYM_SEED=0          build the C registry's kernel from nothing, not from the
#                            Rust kernel's objects
#   BPF_KSYM_DISCARD_EDITS=1 let a build put the patched content back over files edited
#                            in build/src (without it, the build stops and lists them)
#   KVM_PROBE_S=20           seconds the KVM probe waits for the kernel's first line
#
# Every stage prints what it does and how long it took; see README.md.

S := scripts
BPF_KSYM ?= rust
export BPF_KSYM
# Where the kernel trees, their objects, the initramfs and the guest logs go;
# scripts/lib.sh takes it from here (.ci/run keeps it outside the checkout).
BPF_KSYM_BUILD ?= $(CURDIR)/build
BUILD := $(abspath $(BPF_KSYM_BUILD))
ifeq ($(BUILD),)
$(error BPF_KSYM_BUILD is empty: unset it for build/ in the checkout)
endif
export BPF_KSYM_BUILD := $(BUILD)
# The kernel's flavour (rust, c, rust-debug, rust-arm64, ...), as scripts/lib.sh defines it:
# its build directory is $(BUILD)/kernel-$(FLAVOR), its guest logs
# $(BUILD)/guest-$(FLAVOR)-<mode>.log (scripts/boot.sh).
flavour_of = $(shell ARCH=$(ARCH) BPF_KSYM=$(1) EXTRA_CONFIG=$(2) bash -c '. $(S)/lib.sh; echo $$FLAVOR')
FLAVOR := $(call flavour_of,$(BPF_KSYM),$(EXTRA_CONFIG))
ifeq ($(FLAVOR),)
$(error scripts/lib.sh refused BPF_KSYM=$(BPF_KSYM) EXTRA_CONFIG=$(EXTRA_CONFIG): see above)
endif
# Targets built for x86-64 alone refuse another ARCH before they build anything.
X86_ONLY := test-upstream test-upstream-all bench-query series-check configs test-faults \
	test-kcsan
ifneq ($(filter $(X86_ONLY),$(MAKECMDGOALS)),)
ifneq ($(filter-out x86_64 x86,$(or $(ARCH),x86_64)),)
$(error $(filter $(X86_ONLY),$(MAKECMDGOALS)): x86-64 only (make configs builds every \
	architecture's entries itself); run it without ARCH=$(ARCH))
endif
endif
FUZZ_INPUTS ?= 1000000
FUZZ_SEED ?= 1
SOAK_S ?= 3600
SOAK_GROWTH_KB ?= 4096
STRESS_RUNS ?= 20

.PHONY: all help doctor deps source tree config kernel initramfs build run test test-all shell clean \
	distclean test-debug results test-faults test-kcsan test-upstream test-upstream-all fuzz soak stress configs series \
	repro-text-patch series-check refresh-patch lint bench bench-query

# Plain `make` only prints help: building takes a while and installs packages.
# The help is the comment at the top of this file, its one source: a new target
# or variable gets its line there.
.DEFAULT_GOAL := help
help:
	@sed -n -e '/^# SPDX-License-Identifier/d' -e '1,/^[^#]/s/^#\( \|$$\)//p' \
		$(firstword $(MAKEFILE_LIST))

all: test

doctor:
	@bash $(S)/doctor.sh

deps:
	@bash -c '. $(S)/lib.sh; timed install-deps bash $(S)/install-deps.sh'
source: deps
	@bash -c '. $(S)/lib.sh; timed fetch-source bash $(S)/fetch-source.sh'
tree: source
	@bash -c '. $(S)/lib.sh; timed prepare-tree bash $(S)/prepare-tree.sh'
config: tree
	@bash -c '. $(S)/lib.sh; timed configure bash $(S)/configure.sh'
kernel: config
	@bash -c '. $(S)/lib.sh; timed build-kernel bash $(S)/build-kernel.sh'
initramfs: kernel
	@bash -c '. $(S)/lib.sh; timed initramfs bash $(S)/initramfs.sh'
build: kernel initramfs

run: build
	@bash -c '. $(S)/lib.sh; timed boot bash $(S)/boot.sh run'
	@sed -n '/== loading two BPF/,/=== DEMO END/p' $(BUILD)/guest-$(FLAVOR)-run.log | tr -d '\r'
	@r=$$(python3 $(S)/results.py $(BUILD)/guest-$(FLAVOR)-run.log); rc=$$?; \
		echo "$$r" | tail -n 1; exit $$rc

test: build
	@bash -c '. $(S)/lib.sh; timed boot bash $(S)/boot.sh test'
	@python3 $(S)/results.py --variant $(FLAVOR) $(BUILD)/guest-$(FLAVOR)-test.log

# The guest logs of test-all and test-debug, each with the flavour it booted
# (results.py --variant: their expected skips differ); `make results` counts
# them all (what CI prints last). The debug kernel: see test-debug.
DEBUG_REGISTRY := rust
DEBUG_EXTRA := debug
DEBUG := BPF_KSYM=$(DEBUG_REGISTRY) EXTRA_CONFIG=$(DEBUG_EXTRA)
DEBUG_FLAVOR := $(call flavour_of,$(DEBUG_REGISTRY),$(DEBUG_EXTRA))
guest_log = --variant $(1) $(BUILD)/guest-$(1)-$(2).log
RUST_FLAVOR := $(call flavour_of,rust,)
C_FLAVOR := $(call flavour_of,c,)
TEST_ALL_LOGS := $(call guest_log,$(RUST_FLAVOR),test) $(call guest_log,$(C_FLAVOR),test) \
	$(call guest_log,$(RUST_FLAVOR),run)
TEST_DEBUG_LOGS := $(call guest_log,$(DEBUG_FLAVOR),test) $(call guest_log,$(DEBUG_FLAVOR),fuzz)

# Our config alone, whatever EXTRA_CONFIG says (its logs are those above).
test-all:
	@$(MAKE) --no-print-directory build BPF_KSYM=rust EXTRA_CONFIG=
	@$(MAKE) --no-print-directory build BPF_KSYM=c EXTRA_CONFIG=
	@bash -c '. $(S)/lib.sh; BPF_KSYM=rust EXTRA_CONFIG= timed boot bash $(S)/boot.sh test'
	@bash -c '. $(S)/lib.sh; BPF_KSYM=c EXTRA_CONFIG= timed boot bash $(S)/boot.sh test'
	@bash -c '. $(S)/lib.sh; BPF_KSYM=rust EXTRA_CONFIG= timed boot bash $(S)/boot.sh run'
	@python3 $(S)/results.py $(TEST_ALL_LOGS)

# The same suites on the debug kernel (config/debug.config, its own build
# directory), the stress test for 60 s instead of 15, then FUZZ_INPUTS fuzz
# inputs; any splat or kmemleak report fails. Interesting fuzz inputs go to
# $(BUILD)/fuzz/kallsyms_query.corpus.
test-debug:
	@$(MAKE) --no-print-directory build $(DEBUG)
	@bash -c '. $(S)/lib.sh; $(DEBUG) GUEST_TIMEOUT=3000 GUEST_CMDLINE=STRESS_SECONDS=60 \
		timed boot bash $(S)/boot.sh test'
	@bash -c '. $(S)/lib.sh; $(DEBUG) GUEST_TIMEOUT=3000 GUEST_CMDLINE=ksym_fuzz=$(FUZZ_INPUTS),$(FUZZ_SEED) \
		timed boot bash $(S)/boot.sh fuzz'
	@python3 $(S)/results.py --corpus $(BUILD)/fuzz/kallsyms_query.corpus $(TEST_DEBUG_LOGS)

results:
	@python3 $(S)/results.py $(TEST_ALL_LOGS) $(TEST_DEBUG_LOGS)

# The debug kernel with fault injection (config/faults.config, its objects
# seeded from the debug kernel's): KALLSYMS_QUERY, the /proc/kallsyms and
# iter/ksym readers, program loads and trampoline attaches with each fault
# point they reach failed in turn (fault_injection_test); prints the faults
# injected by kind. Not in CI.
FAULTS := BPF_KSYM=rust EXTRA_CONFIG=faults
test-faults:
	@$(MAKE) --no-print-directory build $(FAULTS)
	@bash -c '. $(S)/lib.sh; $(FAULTS) GUEST_TIMEOUT=3600 timed boot bash $(S)/boot.sh faults'
	@python3 $(S)/results.py --variant $(call flavour_of,rust,faults) \
		$(BUILD)/guest-$(call flavour_of,rust,faults)-faults.log

# The suites and the 60 s stress on a KCSAN kernel (config/kcsan.config);
# results.py fails a report in our code, and one in upstream's own code that
# scripts/kcsan_known.txt does not list with its reason. Not in CI.
KCSAN := BPF_KSYM=rust EXTRA_CONFIG=kcsan
test-kcsan:
	@$(MAKE) --no-print-directory build $(KCSAN)
	@bash -c '. $(S)/lib.sh; $(KCSAN) GUEST_TIMEOUT=3600 GUEST_CMDLINE=STRESS_SECONDS=60 \
		timed boot bash $(S)/boot.sh test'
	@python3 $(S)/results.py $(call guest_log,$(call flavour_of,rust,kcsan),test)

# Upstream's test_progs (tools/testing/selftests/bpf) on the tests that reach
# the registry (scripts/upstream/ALLOWLIST minus DENYLIST), on a kernel with
# the BPF selftests' config (EXTRA_CONFIG=upstream). Compares with the other
# registry's run if there is one; writes $(BUILD)/upstream/table.md.
UPSTREAM_LOGS := $(foreach r,rust c,$(call flavour_of,$(r),upstream)=$(BUILD)/guest-$(call flavour_of,$(r),upstream)-upstream.log)
test-upstream:
	@$(MAKE) --no-print-directory kernel EXTRA_CONFIG=upstream
	@bash -c '. $(S)/lib.sh; EXTRA_CONFIG=upstream timed test_progs bash $(S)/upstream.sh'
	@bash -c '. $(S)/lib.sh; EXTRA_CONFIG=upstream GUEST_TIMEOUT=7200 GUEST_MEM=4G \
		timed boot bash $(S)/boot.sh upstream'
	@mkdir -p $(BUILD)/upstream
	@python3 $(S)/upstream.py --table $(BUILD)/upstream/table.md $(UPSTREAM_LOGS)

# Every test_progs test but those of DENYLIST, to see how far the whole suite
# gets under TCG: failures are listed, and fail the target only if the guest
# did not finish or the kernel printed a splat.
test-upstream-all:
	@$(MAKE) --no-print-directory kernel EXTRA_CONFIG=upstream
	@bash -c '. $(S)/lib.sh; EXTRA_CONFIG=upstream timed test_progs bash $(S)/upstream.sh'
	@bash -c '. $(S)/lib.sh; EXTRA_CONFIG=upstream GUEST_TIMEOUT=$${GUEST_TIMEOUT:-10800} GUEST_MEM=4G \
		timed boot bash $(S)/boot.sh upstream-all'
	@python3 $(S)/upstream.py --summary \
		$(call flavour_of,$(BPF_KSYM),upstream)=$(BUILD)/guest-$(call flavour_of,$(BPF_KSYM),upstream)-upstream-all.log

fuzz: build
	@bash -c '. $(S)/lib.sh; GUEST_TIMEOUT=3000 GUEST_CMDLINE=ksym_fuzz=$(FUZZ_INPUTS),$(FUZZ_SEED) \
		timed boot bash $(S)/boot.sh fuzz'
	@python3 $(S)/results.py --corpus $(BUILD)/fuzz/kallsyms_query.corpus \
		--variant $(FLAVOR) $(BUILD)/guest-$(FLAVOR)-fuzz.log

# soak_test for SOAK_S seconds: the stress test's churn and readers plus
# batch queries, and every minute a checkpoint (the start's BPF symbols back,
# the generation moving exactly with them, slab/vmalloc/percpu sampled) and a
# progress line. Not in CI.
soak: build
	@bash -c '. $(S)/lib.sh; GUEST_TIMEOUT=$$(($(SOAK_S) + 900)) \
		GUEST_CMDLINE="ksym_soak=$(SOAK_S) SOAK_GROWTH_KB=$(SOAK_GROWTH_KB)" \
		timed boot bash $(S)/boot.sh soak'
	@python3 $(S)/results.py --variant $(FLAVOR) $(BUILD)/guest-$(FLAVOR)-soak.log

# The stress test (every reader, generation calls included, under churn) STRESS_RUNS
# times back to back in one boot: a run that hangs (the kselftest timeout), fails or
# splats fails it. Not in CI.
stress: build
	@bash -c '. $(S)/lib.sh; GUEST_TIMEOUT=$$(($(STRESS_RUNS) * 180 + 300)) \
		GUEST_CMDLINE="ksym_stress_runs=$(STRESS_RUNS)" timed boot bash $(S)/boot.sh stress'
	@python3 $(S)/results.py --variant $(FLAVOR) $(BUILD)/guest-$(FLAVOR)-stress.log

# A kprobe on vfs_read toggled 400 times while the other vCPU reads: under QEMU 7.2's
# multi-threaded TCG the guest oopses within seconds, this tree's kernel and the
# pristine one alike; with TCG_THREAD=single, or a newer QEMU (QEMU=), it survives
# (Documentation/bpf/bpf_ksym.rst, Known issues). Fails if the guest does not survive.
# Not in CI.
repro-text-patch: build
	@bash -c '. $(S)/lib.sh; GUEST_TIMEOUT=900 GUEST_ACCEL=tcg timed boot bash $(S)/boot.sh text-patch'
	@log=$(BUILD)/guest-$(FLAVOR)-text-patch.log; \
	if grep -q 'text patch repro: the guest survived' $$log && ! grep -q -E 'BUG:|Oops' $$log; then \
		grep 'text patch repro:' $$log; \
	else \
		grep -m3 -E 'BUG:|Oops|RIP:|TIMEOUT' $$log; \
		echo "repro-text-patch: the guest did not survive (log: $$log)"; exit 1; \
	fi

# Rust against C: in-kernel lookups and add/del, full /proc/kallsyms reads,
# KALLSYMS_QUERY, program load+unload, at N = 1 .. 30,000 BPF symbols, in
# icount and tcg modes (BENCH_N, BENCH_RUNS, BENCH_MODES override). Prints the
# table; writes build/bench/bench.{json,txt,svg}. The kernels are those of
# test-all, so after it only the boots remain.
bench:
	@$(MAKE) --no-print-directory build BPF_KSYM=rust
	@$(MAKE) --no-print-directory build BPF_KSYM=c
	@python3 $(S)/bench.py

# KALLSYMS_QUERY against parsing the text, as symbolizers do; writes build/bench/query.json.
# It builds and boots the Rust registry's kernel of our config alone, whatever BPF_KSYM
# and EXTRA_CONFIG say (scripts/bench-query.py boots it so).
bench-query:
	@$(MAKE) --no-print-directory build BPF_KSYM=rust EXTRA_CONFIG=
	@python3 $(S)/bench-query.py

lint: series tree
	@bash -c '. $(S)/lib.sh; timed lint bash $(S)/lint.sh'
series: source
	@bash -c '. $(S)/lib.sh; timed series bash $(S)/series.sh'
series-check: series tree
	@bash -c '. $(S)/lib.sh; timed series-check bash $(S)/series-check.sh'
# patches/$(P) again from the prepared tree (no `tree` first: it would undo the edits).
refresh-patch:
	@bash -c '. $(S)/lib.sh; timed refresh-patch bash $(S)/refresh-patch.sh "$$0"' '$(P)'

# One line per entry of the config matrix (ORDER in scripts/configs.sh: ours and one
# change each, other architectures included); each must link, and the options the
# entry needs must survive olddefconfig.
configs: tree
	@bash -c '. $(S)/lib.sh; timed configs bash $(S)/configs.sh'

shell: build
	@bash $(S)/boot.sh shell

# Never the checkout, $HOME or /, whatever BPF_KSYM_BUILD or BPF_KSYM_CACHE say.
comma := ,
remove = case "$(1)" in ""|/|"$$HOME"|"$(CURDIR)") echo "error: not removing '$(1)'" >&2; exit 1 ;; esac; \
	echo "removing $(2): $(1)"; rm -rf "$(1)"
clean:
	@$(call remove,$(BUILD),the build output)
distclean: clean
	@cache=$$(bash -c '. $(S)/lib.sh; echo "$$CACHE"') || exit 1; \
		$(call remove,$$cache,the downloads$(comma) the pristine tree and ccache)
