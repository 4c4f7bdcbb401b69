#!/bin/sh
# SPDX-License-Identifier: MIT
# PD binding of an SCU slot (docs/scu.md 4.5): scu_pd_test (selftests/scu/scu_pd_test.c) binds
# slot 3, holding xor.scu, to a PD with scenicdv_bind_scu_pd and drives the kind's memory-port
# CSRs: an MR of the bound PD is read and written, another PD's MR and the same MR after the
# owner fd closed are refused and counted; then the kernel log must be clean.
. "$(dirname "$0")/lib.sh"
IMG=$SCU_IMAGES/xor.scu
dmesg -c >/dev/null
i=0
while { [ ! -e /dev/scenic0/scu3 ] || [ ! -e /sys/class/infiniband/scenic_0 ]; } && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
run_tap scu_pd_test 120 "$SCU_DIR/scu_pd_test" /dev/scenic0 "$IMG"
