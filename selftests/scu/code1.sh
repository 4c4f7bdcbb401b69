#!/bin/sh
# SPDX-License-Identifier: MIT
# The paper's Code 1 (docs/scu.md 7) in the guest: selftests/scu/code1.py with the image's
# python3 and the `scenic` module (tools/vm/mkimage puts them in when `make runtime` built them),
# against /dev/scenic0 and the passthrough image; then the kernel log must be clean.
PY=/usr/bin/python3
CODE1=/usr/share/scenic/scu-test/code1.py
dmesg -c >/dev/null
if [ ! -x "$PY" ] || [ ! -e /usr/share/scenic/scu/passthrough.scuimg ]; then
	echo "ok 1 - code1 # SKIP no python3 or no passthrough image in the guest (make runtime image)"
	echo "1..1"
	exit 0
fi
i=0
while [ ! -e /dev/scenic0/scu2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
timeout 100 "$PY" "$CODE1" >/tmp/code1.tap 2>/tmp/code1.err
rc=$?
grep -v '^1\.\.' /tmp/code1.tap
sed 's/^/# /' /tmp/code1.err
n=$(grep -c '^ok\|^not ok' /tmp/code1.tap)
[ "$n" -gt 0 ] || { echo "not ok 1 - code1.py printed no result (exit $rc)"; n=1; rc=1; }
bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|hung_task|lockdep|circular locking' | head -n 5)
if [ -z "$bad" ]; then
	echo "ok $((n + 1)) - kernel log has no oops, WARN, BUG or lockdep report after code1.py"
else
	echo "not ok $((n + 1)) - kernel log has no oops, WARN, BUG or lockdep report after code1.py"
	echo "$bad" | sed 's/^/# /'
	rc=1
fi
echo "1..$((n + 1))"
exit $rc
