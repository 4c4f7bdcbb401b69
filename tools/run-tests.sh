#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The project's test command (`make check`): every lane in turn, then one summary line
# "N passed, N failed" counting unit tests, build checks and VM selftests together.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0
log_dir=build/test-logs
mkdir -p "$log_dir"

# count NAME CMD...: run a lane that is one check; pass or fail.
count() {
	local name=$1; shift
	echo "=== $name: $*"
	local t0=$SECONDS
	if "$@" >"$log_dir/$name.log" 2>&1; then
		echo "ok - $name"; passed=$((passed + 1))
	else
		tail -n 40 "$log_dir/$name.log"
		echo "not ok - $name (log: $log_dir/$name.log)"; failed=$((failed + 1))
	fi
	echo "--- $name: $((SECONDS - t0)) s"
}

# tally NAME CMD...: run a lane that prints "N passed, N failed[, N skipped]" and add its counts.
tally() {
	local name=$1; shift
	echo "=== $name: $*"
	local out="$log_dir/$name.log" rc line p f s t0=$SECONDS
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	echo "--- $name: $((SECONDS - t0)) s"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	if [ -z "$line" ]; then
		echo "not ok - $name printed no summary (exit $rc)"; failed=$((failed + 1)); return
	fi
	p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	s=$(grep -oE '[0-9]+ skipped' <<<"$line" | cut -d' ' -f1)
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited $rc"; failed=$((failed + 1))
	fi
}

# ctest's own summary, turned into the common form. $1: the build (default build/cmake); tests
# of targets that build did not make (the ASan build makes only the model's) are left out.
unit_tests() {
	local dir=${1:-build/cmake} out="$log_dir/ctest-$(basename "${1:-build/cmake}").out"
	ctest --test-dir "$dir" --output-on-failure -j2 -E '_NOT_BUILT$' >"$out" 2>&1
	local rc=$?
	cat "$out"
	local total fail
	total=$(grep -oE 'tests failed out of [0-9]+' "$out" | grep -oE '[0-9]+$')
	fail=$(grep -oE '[0-9]+ tests failed out of' "$out" | grep -oE '^[0-9]+')
	[ -n "$total" ] || { echo "0 passed, 1 failed"; return 1; }
	echo "$((total - fail)) passed, $fail failed"
	return $rc
}

start=$(date +%s)
count regmap-fresh python3 tools/regmap/gen_regmap.py tools/regmap/scenic-regs.toml . --check
count regmap-gen python3 tools/regmap/test_gen_regmap.py
count suite-parser python3 selftests/rdma/test_pyverbs_suite.py  # the rdma-suite lane's parser
count spdx tools/check-spdx
# verilator --lint-only -Wall of every RTL block and SCU, each parameter set, and the illegal
# parameter sets refused at elaboration (hw-rtl/lint.sh; ~2 minutes)
count rtl-lint hw-rtl/lint.sh
tally unit unit_tests
# The same unit tests under ASan + UBSan + _GLIBCXX_ASSERTIONS (any report fails the test), and
# 60 s of the model's fuzzer (any crash, leak or invariant violation fails): docs/fuzzing.md.
tally unit-asan unit_tests build/cmake-asan
count fuzz-60s tools/fuzz/run-fuzz --time 60
[ -x kmod/build-check.sh ] && count kmod-w1-builds kmod/build-check.sh
[ -x kmod/checkpatch.sh ] && count kmod-checkpatch kmod/checkpatch.sh
tally provider providers/test.sh
# .deb (lintian: no error) and .rpm packages, then the scenic-dkms .deb built by DKMS against
# the 6.1 and 6.12 headers in a private DKMS tree (packaging/README.md)
count packages packaging/build-packages.sh
tally dkms packaging/dkms-check.sh
count qemu-smoke qemu-device/tests/qemu-smoke.sh
tally vm-selftests selftests/run-vm-tests
# A few boots again on the QEMU whose device model has ASan + UBSan (`make qemu-asan`): the
# hostile guest programs, hand-made and spoofed RoCE frames, bad Ethernet frames; any sanitizer
# report in QEMU fails (docs/fuzzing.md)
tally vm-asan selftests/run-vm-tests --qemu build/qemu/qemu-system-x86_64-asan \
	--boot rdma --boot rdma-events --boot rdma-conform-interop --boot eth \
	--only hostile --only mmio_hostile --only unload_traffic --only event_overflow --only raw \
	--only ping --only badframes
# The kernel matrix and the packages in use: guests on bookworm-backports' 6.12 whose scenic
# software comes only from the .debs above (DKMS builds the modules in the image): probe, FLR,
# Ethernet, RDMA, perftest against rxe, conformance (packaging/README.md)
tally deb-vm-6.12 packaging/deb-vm-test.sh --kver 6.12

echo "=== test time: $(( $(date +%s) - start )) s"
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary+=", $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
