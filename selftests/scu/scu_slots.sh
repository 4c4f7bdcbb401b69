#!/bin/sh
# SPDX-License-Identifier: MIT
# The SCU slot char devices of scenic_scu.ko (docs/scu.md 4): scu_test (selftests/scu/scu_test.c)
# against /dev/scenic0 with the images selftests/scu/mkimages.py wrote on the host, then the
# kernel log must be clean (refused images log only with dev_dbg).
IMAGES=/usr/share/scenic/scu-test
dmesg -c >/dev/null
n=0
i=0
while [ ! -e /dev/scenic0/scu1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
timeout 120 /usr/bin/scu_test /dev/scenic0 "$IMAGES" >/tmp/scu_test.tap 2>/tmp/scu_test.err
rc=$?
grep -v '^1\.\.' /tmp/scu_test.tap
sed 's/^/# /' /tmp/scu_test.err
n=$(grep -c '^ok\|^not ok' /tmp/scu_test.tap)
bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|hung_task|lockdep|circular locking' | head -n 5)
if [ -z "$bad" ]; then
	echo "ok $((n + 1)) - kernel log has no oops, WARN, BUG or lockdep report after scu_test"
else
	echo "not ok $((n + 1)) - kernel log has no oops, WARN, BUG or lockdep report after scu_test"
	echo "$bad" | sed 's/^/# /'
	rc=1
fi
echo "1..$((n + 1))"
exit $rc
