# bpf_ksym: build, boot and test a 7.3 kernel whose BPF ksym registry is Rust.
#
#   make run                 build, boot, show BPF programs in /proc/kallsyms and perf frames
#   make test                build, boot, run every suite; last line "N passed, N failed"
#   make test-all            make test for the Rust and the C registry (what CI runs)
#   make shell               boot the same kernel to a guest shell
#   make bench-kallsyms      time full /proc/kallsyms reads, Rust against C
#   make bench-query         KALLSYMS_QUERY against parsing /proc/kallsyms
#   make build               install, fetch, patch, configure, build (no boot)
#   BPF_KSYM=c               use the original C registry (CONFIG_BPF_KSYM_RUST=n)
#
# Every stage prints what it does and how long it took; see README.md.

BPF_KSYM ?= rust
export BPF_KSYM
S := scripts

.PHONY: all deps source tree config kernel initramfs build run test test-all shell clean \
	bench-kallsyms bench-query

all: test

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
initramfs: tree
	@bash -c '. $(S)/lib.sh; timed initramfs bash $(S)/initramfs.sh'
build: kernel initramfs

run: build
	@bash -c '. $(S)/lib.sh; timed boot bash $(S)/boot.sh run'
	@sed -n '/== loading two BPF/,/=== DEMO END/p' build/guest-$(BPF_KSYM)-run.log | tr -d '\r'
	@python3 $(S)/results.py build/guest-$(BPF_KSYM)-run.log | tail -n 1

test: build
	@bash -c '. $(S)/lib.sh; timed boot bash $(S)/boot.sh test'
	@python3 $(S)/results.py --variant $(BPF_KSYM) build/guest-$(BPF_KSYM)-test.log

test-all:
	@$(MAKE) --no-print-directory build BPF_KSYM=rust
	@$(MAKE) --no-print-directory build BPF_KSYM=c
	@bash -c '. $(S)/lib.sh; BPF_KSYM=rust timed boot bash $(S)/boot.sh test'
	@bash -c '. $(S)/lib.sh; BPF_KSYM=c timed boot bash $(S)/boot.sh test'
	@bash -c '. $(S)/lib.sh; BPF_KSYM=rust timed boot bash $(S)/boot.sh run'
	@python3 $(S)/results.py --variant rust build/guest-rust-test.log \
		--variant c build/guest-c-test.log --variant rust build/guest-rust-run.log

# Full reads of /proc/kallsyms with 1,000 and 10,000 programs, Rust against C
# (BENCH_N, BENCH_RUNS, BENCH_MODES override); writes build/bench/kallsyms.json.
bench-kallsyms:
	@$(MAKE) --no-print-directory build BPF_KSYM=rust
	@$(MAKE) --no-print-directory build BPF_KSYM=c
	@python3 $(S)/bench-kallsyms.py

# KALLSYMS_QUERY against parsing the text, as symbolizers do; writes build/bench/query.json.
bench-query: build
	@python3 $(S)/bench-query.py

shell: build
	@bash $(S)/boot.sh shell

clean:
	rm -rf build
