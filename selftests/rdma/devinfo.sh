#!/bin/sh
# SPDX-License-Identifier: MIT
# The RDMA device as a user sees it: ibv_devinfo -v, rdma link, RoCE v2 GIDs from the netdev.
. "$(dirname "$0")/lib.sh"

tap_plan 7
addr_setup
if ! wait_rdma; then
	tap_diag "devices: $(ls /sys/class/infiniband 2>&1); $(dmesg | grep -i scenic | tail -n 5)"
fi
info=$($IBV_DEVINFO -v -d "${DEV:-scenic_0}" 2>&1)
tap_result "ibv_devinfo -v shows $DEV with transport InfiniBand, link layer Ethernet" \
	"$(echo "$info" | head -n 3)" \
	sh -c 'echo "$1" | grep -q "hca_id:.*$2" && echo "$1" | grep -q "link_layer:.*Ethernet"' - "$info" "$DEV"
tap_result "port 1 is PORT_ACTIVE" "$(echo "$info" | grep state)" \
	sh -c 'echo "$1" | grep -q "state:.*PORT_ACTIVE"' - "$info"
tap_result "a RoCE v2 GID holds $ADDR4 (index $GIDX)" "$(echo "$info" | grep GID | head)" \
	sh -c 'echo "$1" | grep -qF "::ffff:$2, RoCE v2"' - "$info" "$ADDR4"
link=$($RDMA link show 2>&1)
tap_result "rdma link: $DEV/1 ACTIVE on $IFACE" "$link" \
	sh -c 'echo "$1" | grep -q "$2/1 state ACTIVE.*netdev $3"' - "$link" "$DEV" "$IFACE"
caps=$(echo "$info" | grep -E "max_qp:|atomic_cap|vendor_id")
tap_result "max_qp, atomic capability and vendor id reported" "$caps" \
	sh -c 'echo "$1" | grep -q "atomic_cap:.*ATOMIC_HCA" && echo "$1" | grep -q "vendor_id:.*0x10ee"' - "$caps"
# issue 18 item 4: 28 SQ SGEs (ibv_devinfo's max_sge is the smaller of send and receive)
sge=$(echo "$info" | grep -E "max_sge:|max_sge_rd:")
tap_result "max_sge 28, max_sge_rd 28" "$sge" \
	sh -c 'echo "$1" | grep -Eq "max_sge:[[:space:]]+28\$" && echo "$1" | grep -Eq "max_sge_rd:[[:space:]]+28\$"' - "$sge"
st=$($RDMA statistic show link "${DEV:-scenic_0}/1" 2>&1)
tap_result "rdma statistic: admin queue and event queue counters, commands ran, none timed out" \
	"$(echo "$st" | tr -s ' ' '\n' | grep -A1 -E '^(admin_|aeq_|ceq_)' | tr '\n' ' ')" \
	sh -c 'for k in admin_cmds admin_cmd_errors admin_cmd_timeouts admin_in_flight aeq_events aeq_overflows ceq_overflows; do
		echo "$1" | grep -Eq " $k [0-9]+( |\$)" || exit 1; done
		echo "$1" | grep -Eq " admin_cmds [1-9][0-9]*( |\$)" &&
		echo "$1" | grep -Eq " admin_cmd_timeouts 0( |\$)"' - "$(echo "$st" | tr -s ' \n' ' ')"
tap_diag "$(echo "$info" | grep -E 'fw_ver|max_qp:|max_cq:|max_mr:|max_qp_wr|active_mtu' | tr -s ' \t' ' ' | tr '\n' ';')"
tap_done
