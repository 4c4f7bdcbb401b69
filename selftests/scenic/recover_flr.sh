#!/bin/sh
# SPDX-License-Identifier: MIT
# Function-level reset under RDMA and Ethernet traffic: node 1 writes 1 to the PCI function's
# sysfs reset; the driver recovers by itself (docs/admin-queue.md 8): users get
# IB_EVENT_DEVICE_FATAL, a new ib_device registers, eth stays bound, perftest and ping pass.
REC_NAME=flr
REC_PORT0=18620
. "$(dirname "$0")/recover_lib.sh"

fault() {
	_r0=$(rec_count 'reset done')
	tap_result "echo 1 > /sys/bus/pci/devices/$BDF/reset" "write failed" \
		sh -c "echo 1 > /sys/bus/pci/devices/$BDF/reset"
	_more() { [ "$(rec_count 'reset done')" -gt "$_r0" ]; }
	tap_result "dmesg: reset done" "no new 'reset done' line" wait_for 300 _more
}

if [ "$NODE" = 1 ]; then tap_plan 14; else tap_plan 4; fi
rec_setup
rec_run drv_flr fault
tap_done
