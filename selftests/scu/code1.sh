#!/bin/sh
# SPDX-License-Identifier: MIT
# The paper's Code 1 (docs/scu.md 7) in the guest: selftests/scu/code1.py with the image's
# python3 and the `scenic` module (tools/vm/mkimage puts them in when `make runtime` built them),
# against /dev/scenic0 and the passthrough image; then the kernel log must be clean.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
CODE1=$SCU_DIR/code1.py
dmesg -c >/dev/null
if [ ! -x "$PY" ] || [ ! -e /usr/share/scenic/scu/passthrough.scuimg ]; then
	echo "ok 1 - code1 # SKIP no python3 or no passthrough image in the guest (make runtime image)"
	echo "1..1"
	exit 0
fi
i=0
while [ ! -e /dev/scenic0/scu2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
run_tap code1.py 100 "$PY" "$CODE1"
