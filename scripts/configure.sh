#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure $KOUT: tinyconfig + $BASE_CONFIG (+ the variant's switch),
# then check that every option we asked for survived olddefconfig.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frags=("${BASE_CONFIG[@]}")
# A fragment that starts from another flavour's says so on a line "# extends: <name>"
# (config/faults.config: the debug kernel's options, and its own).
base=
if [ -n "${EXTRA_CONFIG:-}" ]; then
	extra=$ROOT/config/$EXTRA_CONFIG.config
	[ -f "$extra" ] || die "no config/$EXTRA_CONFIG.config: EXTRA_CONFIG names a file of config/"
	base=$(sed -n 's/^# extends: *\([a-z0-9_-]*\)$/\1/p' "$extra" | head -1)
	[ -n "$base" ] && frags+=("$ROOT/config/$base.config")
	frags+=("$extra")
fi
# The kernel test_progs wants (make test-upstream): the BPF selftests' own
# fragments as BPF CI merges them, ours on top. Theirs are not checked below:
# they name options for other setups (a dropped one is counted, not fatal).
theirs=()
if [ "${EXTRA_CONFIG:-}" = upstream ]; then
	b=$BUILD/src/tools/testing/selftests/bpf
	theirs=("$b/config" "$b/config.vm" "$b/config.${TRIPLE%%-*}")
fi
variant=$(mktemp)
trap 'rm -f "$variant"' EXIT
if [ "$BPF_KSYM" = rust ]; then
	printf 'CONFIG_BPF_KSYM_RUST=y\nCONFIG_BPF_KSYM_KUNIT_TEST=y\nCONFIG_KALLSYMS_ITER_KUNIT_TEST=y\nCONFIG_KALLSYMS_ITER_C_REFERENCE=y\n' >"$variant"
else
	printf '# CONFIG_BPF_KSYM_RUST is not set\n' >"$variant"
fi
frags+=("$variant")

# An option whose dependencies are missing is dropped silently: say which. Run
# on every build, not only after a reconfigure: a patch to a Kconfig file or a
# new compiler can make kbuild's syncconfig drop an option of an unchanged config.
check_options() {
	local missing=0 line opt want have
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) opt=${line%%=*} ;;
		'# CONFIG_'*' is not set') opt=${line#\# }; opt=${opt%% *}; line="$opt=n" ;;
		*) continue ;;
		esac
		want=${line#*=}
		have=$(grep -E "^$opt=" "$KOUT/.config" | cut -d= -f2- || true)
		[ -n "$have" ] || have=n
		if [ "$have" != "$want" ]; then
			echo "error: $opt=$want was asked for but olddefconfig left $opt=$have" >&2
			echo "       (a dependency is missing: see 'make menuconfig' in $KOUT, search $opt)" >&2
			missing=1
		fi
	done < <(cat "${frags[@]}")
	[ $missing = 0 ] || die "kernel config lost options; fix config/*.config"
}

stamp=$(cat "${theirs[@]}" "${frags[@]}" | sha256sum | cut -c1-16)
if [ -f "$KOUT/.config" ] && [ "$(cat "$KOUT/.bpf_ksym_config" 2>/dev/null)" = "$stamp" ]; then
	kmake syncconfig >/dev/null
	check_options
	note "config: $KOUT/.config (unchanged)"
	exit 0
fi

# A kernel built from nothing takes many minutes (docs/testing.md, Times). The C registry's kernel
# differs from the Rust registry's in a few options, and kbuild recompiles only what depends
# on a changed option or command line: so its first build starts from a copy of a built
# Rust kernel's objects (BPF_KSYM_SEED=0: from nothing). Other flavours change options
# (debug, kCFI) that recompile nearly everything, and start from nothing.
# A fragment that extends another starts, for the same reason, from that flavour's objects.
seed=
if [ "$BPF_KSYM" = c ] && [ -z "${EXTRA_CONFIG:-}" ]; then
	seed=$BUILD/kernel-rust${FLAVOR#c}
elif [ -n "$base" ]; then
	seed=$BUILD/kernel-${FLAVOR%-"$EXTRA_CONFIG"}-$base
fi
if [ -n "$seed" ] && [ ! -f "$KOUT/.config" ] && [ -f "$seed/vmlinux" ] &&
	[ "${BPF_KSYM_SEED:-1}" = 1 ]; then
	step "seeding $KOUT with the objects of $seed ($(du -sh "$seed" | cut -f1))"
	rm -rf "$KOUT"
	cp -a "$seed" "$KOUT"
	rm -f "$KOUT/.bpf_ksym_config" "$KOUT/build.log"
fi

step "configuring $BPF_KSYM kernel in $KOUT"
mkdir -p "$KOUT"
# A reconfigure that fails or is stopped must not leave the old stamp.
rm -f "$KOUT/.bpf_ksym_config"
kmake tinyconfig >/dev/null
KCONFIG_CONFIG="$KOUT/.config" "$BUILD/src/scripts/kconfig/merge_config.sh" -m -O "$KOUT" \
	"$KOUT/.config" "${theirs[@]}" "${frags[@]}" >/dev/null
kmake olddefconfig >/dev/null
if [ ${#theirs[@]} -gt 0 ]; then
	cat "${theirs[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=[ym]' | cut -d= -f1 |
		while read -r opt; do grep -qE "^$opt=[ym]" "$KOUT/.config" || echo "$opt"; done \
		>"$KOUT/upstream-config-unset.txt"
	note "$(wc -l <"$KOUT/upstream-config-unset.txt") option(s) of the BPF selftests' fragments" \
		"are not set here: $KOUT/upstream-config-unset.txt"
fi

check_options
echo "$stamp" >"$KOUT/.bpf_ksym_config"
note "config: $KOUT/.config"
