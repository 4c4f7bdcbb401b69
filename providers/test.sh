#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Provider unit tests. Prints TAP and a final "N passed, N failed[, N skipped]" line; exits 1
# on a failure.
#
#   providers/test.sh
#
# 1. tests/abi_layout.c: compile-time layout rules of uapi/rdma/scenic-abi.h (-Wpadded -Werror)
#    and the sizes of the data-path formats in uapi/scenic_rdma.h.
# 2. tests/scenicdv_checks.c: the scenicdv argument checks (providers/scenic/dv.c, the code the
#    library runs) against fake attributes: device, QP type, comp_mask, reserved, inlen, SCU range,
#    SCENIC_DEFAULT_SCU parsing; the man pages render with pandoc.
# 3. tests/ring_test.c: the data path's ring logic (providers/scenic/ring.c, the code the library
#    runs): WQE building, argument and queue-full errors, counter-to-WC, CQE phase, CQE-to-WC.
#    tests/cq_poll_test.c: poll_cq (providers/scenic/cq.c; SRQ slots: srq.c) on a fake CQ ring and fake status
#    pages (tests/cq_fixture.h) with 1 and 500 QPs on one CQ: every WC checked, QPN lookup,
#    short wc arrays, error/flush CQEs after counter completions, attach refusals.
# 4. The library: `make -C providers` builds it warning-free (which also checks the compat
#    headers' layout asserts); it exports scenicdv_create_qp_ex@@SCENIC_1.0 and nothing else,
#    imports verbs_register_driver_34@IBVERBS_PRIVATE_34, scenic.driver names it, and
#    tests/dlopen_test.c dlopens it into a process using Debian's libibverbs (all symbols
#    resolve, the constructor binds verbs_register_driver_34 there).
#
# Headers and library: Debian's libibverbs-dev.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
out=$top/build/provider/tests
cc=${CC:-cc}
cflags=(-std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter)

pass=0
fail=0
skipped=0
n=0
ok() {
	n=$((n + 1))
	pass=$((pass + 1))
	echo "ok $n - $*"
}
notok() {
	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n - $*"
}
skip() {
	n=$((n + 1))
	skipped=$((skipped + 1))
	echo "ok $n - $* # SKIP"
}

# run_tap PREFIX PROG: run a test program that prints its own TAP stream and renumber its results
# into ours. The program must exit 0, end normally (no signal) and print a plan "1..N" that
# matches the number of results it printed; anything else is a failure of its own, so a crash or
# an early exit cannot hide the checks that never ran.
run_tap() {
	local prefix=$1 prog=$2 log rc=0 plan="" seen=0 line
	log=$out/$(basename "$prog").out
	"$prog" >"$log" 2>&1 || rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) seen=$((seen + 1)); ok "$prefix: ${line#ok * - }" ;;
		"not ok "*) seen=$((seen + 1)); notok "$prefix: ${line#not ok * - }" ;;
		1..*) plan=${line#1..} ;;
		"#"*) echo "$line" ;;
		esac
	done <"$log"
	if [ "$rc" -ge 128 ]; then
		notok "$prefix: $(basename "$prog") killed by signal $((rc - 128)) after $seen results"
	elif [ "$rc" -ne 0 ]; then
		notok "$prefix: $(basename "$prog") exited $rc"
	elif [ -z "$plan" ]; then
		notok "$prefix: $(basename "$prog") printed no plan (1..N) after $seen results"
	elif [ "$plan" != "$seen" ]; then
		notok "$prefix: $(basename "$prog") planned $plan results, printed $seen"
	else
		ok "$prefix: $(basename "$prog") ran all $plan planned checks and exited 0"
	fi
}

echo "TAP version 13"
mkdir -p "$out"

inc=()
if [ ! -f /usr/include/infiniband/verbs.h ]; then
	echo "Bail out! no infiniband/verbs.h: install libibverbs-dev"
	echo "0 passed, 1 failed"
	exit 1
fi

# 1. ABI layout
if $cc "${cflags[@]}" -Wpadded -I"$top/uapi" -I"$here/scenic" -o "$out/abi_layout" "$here/tests/abi_layout.c" \
	>"$out/abi_layout.log" 2>&1; then
	ok "ABI layout: scenic-abi.h 8-byte structs, comp_mask first, no implicit padding; WQE/CQE sizes"
else
	sed 's/^/# /' "$out/abi_layout.log"
	notok "uapi/rdma/scenic-abi.h layout"
fi

# 2. scenicdv checks (a TAP stream of its own, renumbered into ours)
if $cc "${cflags[@]}" "${inc[@]}" -I"$here/scenic" -o "$out/scenicdv_checks" \
	"$here/tests/scenicdv_checks.c" "$here/scenic/dv.c" >"$out/scenicdv_checks.log" 2>&1; then
	run_tap scenicdv "$out/scenicdv_checks"
else
	sed 's/^/# /' "$out/scenicdv_checks.log"
	notok "scenicdv checks build"
fi

# ring logic (its own TAP stream, renumbered into ours)
if $cc "${cflags[@]}" -I"$top/uapi" -I"$here/scenic" -o "$out/ring_test" \
	"$here/tests/ring_test.c" "$here/scenic/ring.c" >"$out/ring_test.log" 2>&1; then
	run_tap ring "$out/ring_test"
else
	sed 's/^/# /' "$out/ring_test.log"
	notok "ring tests build"
fi

# poll_cq (cq.c) on a fake CQ ring and status pages, 1 and 500 QPs per CQ (its own TAP stream)
if $cc "${cflags[@]}" -D_GNU_SOURCE -I"$here/compat" -I"$top/uapi" -I"$here/scenic" \
	-o "$out/cq_poll_test" "$here/tests/cq_poll_test.c" "$here"/scenic/{cq,cq_resize,ring,srq}.c \
	-libverbs -pthread >"$out/cq_poll_test.log" 2>&1; then
	run_tap cq "$out/cq_poll_test"
else
	sed 's/^/# /' "$out/cq_poll_test.log"
	notok "poll_cq tests build"
fi

# opening a device (scenic.c) against fakes of libibverbs' calls (its own TAP stream)
if $cc "${cflags[@]}" -D_GNU_SOURCE -I"$here/compat" -I"$top/uapi" -I"$here/scenic" \
	-o "$out/open_test" "$here/tests/open_test.c" "$here"/scenic/{scenic,verbs,cq,cq_resize,qp,srq,wr,ring,dv}.c \
	-libverbs -pthread >"$out/open_test.log" 2>&1; then
	run_tap open "$out/open_test"
else
	sed 's/^/# /' "$out/open_test.log"
	notok "open tests build"
fi

# man pages render (rdma-core turns them into man pages with pandoc when it builds them)
for md in "$here"/scenic/man/*.md; do
	name=$(basename "$md")
	if ! command -v pandoc >/dev/null; then
		skip "man page $name renders (no pandoc)"
	elif pandoc -s -t man "$md" -o "$out/${name%.md}" 2>"$out/$name.log" && [ ! -s "$out/$name.log" ] &&
		grep -q '^\.SH NAME' "$out/${name%.md}"; then
		ok "man page $name renders"
	else
		sed 's/^/# /' "$out/$name.log"
		notok "man page $name renders"
	fi
done

# 4. the library
lib=$top/build/provider/libscenic-rdmav34.so
if nice -n 10 make -C "$here" >"$out/build.log" 2>&1; then
	ok "provider builds with -Wall -Wextra -Werror (compat layout asserts hold)"
else
	sed 's/^/# /' "$out/build.log" | tail -n 30
	notok "provider builds with -Wall -Wextra -Werror (compat layout asserts hold)"
fi
if [ -f "$lib" ]; then
	syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBW]/ {print $3}' |
		grep -v '^SCENIC_1\.[01]$' | sort)
	want="scenicdv_bind_scu_pd@@SCENIC_1.1 scenicdv_create_qp_ex@@SCENIC_1.0"
	if [ "$syms" = "$(printf '%s\n' $want | sort)" ]; then
		ok "library exports only $want"
	else
		notok "library exports only $want # got: ${syms//$'\n'/ }"
	fi
	if nm -D --undefined-only "$lib" | grep -q 'verbs_register_driver_34@IBVERBS_PRIVATE_34'; then
		ok "library registers through verbs_register_driver_34@IBVERBS_PRIVATE_34"
	else
		notok "library registers through verbs_register_driver_34@IBVERBS_PRIVATE_34"
	fi
	if [ "$(cat "$top/build/provider/scenic.driver" 2>/dev/null)" = "driver scenic" ]; then
		ok "scenic.driver is 'driver scenic'"
	else
		notok "scenic.driver is 'driver scenic'"
	fi
	if $cc "${cflags[@]}" -o "$out/dlopen_test" "$here/tests/dlopen_test.c" -libverbs \
		>"$out/dlopen_test.log" 2>&1 &&
		LD_DEBUG=bindings "$out/dlopen_test" "$lib" >"$out/dlopen_test.out" 2>&1 &&
		grep -q "^loaded" "$out/dlopen_test.out" &&
		grep -Eq "binding file $lib .* to .*libibverbs\.so\.1 .*verbs_register_driver_34' \[IBVERBS_PRIVATE_34\]" \
			"$out/dlopen_test.out"; then
		ok "dlopen into Debian's libibverbs: symbols resolve, constructor registers the driver"
	else
		grep -v "binding file" "$out/dlopen_test.out" "$out/dlopen_test.log" 2>/dev/null | sed 's/^/# /' | tail -n 10
		notok "dlopen into Debian's libibverbs: symbols resolve, constructor registers the driver"
	fi
else
	notok "library checks: $lib not built"
fi

echo "1..$n"
summary="$pass passed, $fail failed"
[ "$skipped" -eq 0 ] || summary+=", $skipped skipped"
echo "$summary"
[ "$fail" = 0 ]
