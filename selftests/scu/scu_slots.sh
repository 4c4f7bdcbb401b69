#!/bin/sh
# SPDX-License-Identifier: MIT
# The SCU slot char devices of scenic_scu.ko (docs/scu.md 4): scu_test (selftests/scu/scu_test.c)
# against /dev/scenic0 with the images selftests/scu/mkimages.py wrote (scu-images/), then the
# kernel log must be clean (refused images log only with dev_dbg).
. "$(dirname "$0")/lib.sh"
dmesg -c >/dev/null
i=0
while [ ! -e /dev/scenic0/scu1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
run_tap scu_test 120 "$SCU_TEST" /dev/scenic0 "$SCU_IMAGES"
