#!/bin/sh
# SPDX-License-Identifier: MIT
# scenicctl(8) against scenic_scu.ko in the guest (docs/scu.md 7): steer add / del of a rule on
# slot 1, seen in the slot's sysfs `steering` and `status --json`; refusals keep their exit codes.
. "$(dirname "$0")/lib.sh"
SC=/usr/bin/scenicctl
STEER=/sys/class/scenic_scu/scenic0!scu1/steering
n=0
rc=0
t() { # t DESCRIPTION CONDITION...
	d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; rc=1; fi
}
dmesg -c >/dev/null
if [ ! -x "$SC" ]; then
	echo "ok 1 - scenicctl # SKIP not in the guest (make runtime image)"
	echo "1..1"
	exit 0
fi
i=0
while [ ! -e /dev/scenic0/scu1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
out=$($SC steer add 1 --dir rx --ip-proto 17 --dst-port 5000 --priority 4 2>&1)
st=$?
id=${out##*rule }
echo "# $out"
t "steer add 1 --dir rx --ip-proto 17 --dst-port 5000: exit $st" [ $st -eq 0 ]
line=$(cat "$STEER")
echo "# steering: $line"
t "sysfs steering shows the rule" [ "$line" = "$id dir rx priority 4 ip-proto 17/0xff dst-port 5000/0xffff" ]
used=$($SC --json status 1 | tr -d ' \n' | grep -o '"steer_rules":{[^}]*}')
echo "# $used"
t "status --json: one rule of 64" [ "$used" = '"steer_rules":{"max":64,"used":1}' ]
$SC steer add 1 --dst-port 53 >/dev/null 2>&1
st=$?
t "a port without --ip-proto is refused (exit $st)" [ $st -eq 1 ]
$SC steer del 1 "$id"
st=$?
t "steer del 1 $id: exit $st" [ $st -eq 0 ]
t "sysfs steering is empty again" [ -z "$(cat "$STEER")" ]
$SC steer del 1 "$id" 2>/dev/null
st=$?
t "steer del of the same rule again: exit $st (ENOENT)" [ $st -eq 1 ]
bad=$(kernel_log_bad)
t "kernel log has no oops, WARN, BUG or lockdep report after scenicctl" [ -z "$bad" ]
echo "1..$n"
exit $rc
