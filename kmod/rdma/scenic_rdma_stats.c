// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko port counters for `rdma statistic`: the
 * RDMA block's 32-bit wrapping counter registers, folded into 64-bit
 * totals on every read and by a periodic work (so that a wrap is not lost
 * between two reads), followed by the driver's own counters.
 */

#include "scenic_rdma_drv.h"

/* How often the card counters are folded even if nobody reads them. */
#define SCENIC_RDMA_STATS_FOLD_MS	10000

static const u32 scenic_rdma_hw_regs[SCENIC_RDMA_NUM_HW_STATS] = {
	SCENIC_RDMA_TX_PKTS,
	SCENIC_RDMA_RX_PKTS,
	SCENIC_RDMA_RX_DROP_ICRC,
	SCENIC_RDMA_RX_DROP_QP,
	SCENIC_RDMA_RX_DROP_MALFORMED,
	SCENIC_RDMA_RX_DROP_TLB_MISS,
	SCENIC_RDMA_SEQ_NAK_SENT,
	SCENIC_RDMA_SEQ_NAK_RCVD,
	SCENIC_RDMA_RNR_NAK_SENT,
	SCENIC_RDMA_RNR_NAK_RCVD,
	SCENIC_RDMA_RETRANSMITS,
	SCENIC_RDMA_ACK_TIMEOUTS,
	SCENIC_RDMA_DUP_REQUESTS,
	SCENIC_RDMA_REM_ACCESS_ERR,
	SCENIC_RDMA_REM_INV_REQ,
	SCENIC_RDMA_ACKS_SENT,
	SCENIC_RDMA_TLB_HITS,
	SCENIC_RDMA_TLB_MISSES,
	SCENIC_RDMA_TLB_EVICTIONS,
	SCENIC_RDMA_CQE_WRITTEN,
	SCENIC_RDMA_CQ_OVERRUNS,
	SCENIC_RDMA_WIRE_DROPS,
	SCENIC_RDMA_WIRE_DUPS,
	SCENIC_RDMA_WIRE_REORDERS,
	SCENIC_RDMA_WIRE_DELAYS,
	SCENIC_RDMA_WIRE_CORRUPTS,
	SCENIC_RDMA_WIRE_ECN_MARKS,
	SCENIC_RDMA_CNP_SENT,
	SCENIC_RDMA_CNP_RCVD,
	SCENIC_RDMA_ECN_CE_RCVD,
	SCENIC_RDMA_CC_RATE_CUTS,
	SCENIC_RDMA_CEQ_LOST,
	SCENIC_RDMA_RX_DROP_PKEY,
	SCENIC_RDMA_LOOPBACK_FRAMES,
	SCENIC_RDMA_LOOPBACK_DROPS,
	SCENIC_RDMA_RX_DROP_QKEY,
	SCENIC_RDMA_UD_RX_NO_WQE,
	SCENIC_RDMA_UD_RX_TOO_LONG,
	SCENIC_RDMA_UD_TX_OVERSIZE,
	SCENIC_RDMA_UD_TX_PKTS,
	SCENIC_RDMA_UD_RX_PKTS,
	SCENIC_RDMA_SR_HELLO_SENT,
	SCENIC_RDMA_SR_HELLO_ACKED,
	SCENIC_RDMA_SR_HELLO_UNANSWERED,
	SCENIC_RDMA_SR_SACK_SENT,
	SCENIC_RDMA_SR_SACK_RCVD,
	SCENIC_RDMA_SR_OOO_PLACED,
	SCENIC_RDMA_SR_RETRANSMITS,
	SCENIC_RDMA_SR_PROBES,
	SCENIC_RDMA_SR_DROP_ORDER,
	SCENIC_RDMA_SR_DROP_FENCE,
	SCENIC_RDMA_SR_DROP_RESOURCE,
	SCENIC_RDMA_SR_DROP_WINDOW,
	SCENIC_RDMA_SR_DROP_MALFORMED,
	SCENIC_RDMA_SR_DROP_NOT_NEGOTIATED,
	SCENIC_RDMA_SR_DUP_OOO,
	SCENIC_RDMA_SR_FALLBACKS,
};

enum scenic_rdma_sw_stat {
	SCENIC_SW_CMD_ERRORS,
	SCENIC_SW_EVENTS,
	SCENIC_SW_EVENTS_UNKNOWN,
	SCENIC_SW_TLB_FILLS,
	SCENIC_SW_TLB_MISS_NO_MR,
	SCENIC_SW_TLB_MISS_OUTSIDE,
	SCENIC_SW_BAD_REQUESTS,
	SCENIC_SW_GSI_TX,
	SCENIC_SW_GSI_TX_ERRORS,
	SCENIC_SW_GSI_RX,
	SCENIC_SW_GSI_RX_DROPS,
	SCENIC_SW_GSI_LOOPBACK,
	SCENIC_SW_EVENT_RESYNCS,
	SCENIC_SW_MEM_REFUSED,
	SCENIC_SW_CEQ_OVERFLOWS,
	SCENIC_SW_TLB_MISS_DROPPED,
	SCENIC_SW_SRQ_LIMIT_EVENTS,
	/* the core's admin queue and AEQ, for the whole card */
	SCENIC_SW_ADMIN_CMDS,
	SCENIC_SW_ADMIN_CMD_ERRORS,
	SCENIC_SW_ADMIN_CMD_TIMEOUTS,
	SCENIC_SW_ADMIN_IN_FLIGHT,
	SCENIC_SW_AEQ_EVENTS,
	SCENIC_SW_AEQ_OVERFLOWS,
	SCENIC_SW_NUM_STATS
};

/* Card counters first (same order as the registers), then the driver's. */
static const struct rdma_stat_desc scenic_rdma_stat_descs[] = {
	{ .name = "tx_pkts" },
	{ .name = "rx_pkts" },
	{ .name = "rx_drop_icrc" },
	{ .name = "rx_drop_qp" },
	{ .name = "rx_drop_malformed" },
	{ .name = "rx_drop_tlb_miss" },
	{ .name = "seq_naks_sent" },
	{ .name = "seq_naks_rcvd" },
	{ .name = "rnr_naks_sent" },
	{ .name = "rnr_naks_rcvd" },
	{ .name = "retransmits" },
	{ .name = "ack_timeouts" },
	{ .name = "duplicate_requests" },
	{ .name = "rem_access_errs" },
	{ .name = "rem_inv_reqs" },
	{ .name = "acks_sent" },
	{ .name = "tlb_hits" },
	{ .name = "tlb_misses" },
	{ .name = "tlb_evictions" },
	{ .name = "cqes_written" },
	{ .name = "cq_overruns" },
	{ .name = "wire_drops" },
	{ .name = "wire_dups" },
	{ .name = "wire_reorders" },
	{ .name = "wire_delays" },
	{ .name = "wire_corrupts" },
	{ .name = "wire_ecn_marks" },
	{ .name = "cnp_sent" },
	{ .name = "cnp_rcvd" },
	{ .name = "ecn_ce_rcvd" },
	{ .name = "cc_rate_cuts" },
	{ .name = "ceq_lost" },
	{ .name = "rx_drop_pkey" },
	{ .name = "loopback_frames" },
	{ .name = "loopback_drops" },
	{ .name = "rx_drop_qkey" },
	{ .name = "ud_rx_no_wqe" },
	{ .name = "ud_rx_too_long" },
	{ .name = "ud_tx_oversize" },
	{ .name = "ud_tx_pkts" },
	{ .name = "ud_rx_pkts" },
	{ .name = "sr_hello_sent" },
	{ .name = "sr_hello_acked" },
	{ .name = "sr_hello_unanswered" },
	{ .name = "sr_sack_sent" },
	{ .name = "sr_sack_rcvd" },
	{ .name = "sr_ooo_placed" },
	{ .name = "sr_retransmits" },
	{ .name = "sr_probes" },
	{ .name = "sr_drop_order" },
	{ .name = "sr_drop_fence" },
	{ .name = "sr_drop_resource" },
	{ .name = "sr_drop_window" },
	{ .name = "sr_drop_malformed" },
	{ .name = "sr_drop_not_negotiated" },
	{ .name = "sr_dup_ooo" },
	{ .name = "sr_fallbacks" },
	/* driver */
	{ .name = "cmd_errors" },
	{ .name = "events" },
	{ .name = "events_unknown" },
	{ .name = "tlb_fills" },
	{ .name = "tlb_miss_no_mr" },
	{ .name = "tlb_miss_outside_mr" },
	{ .name = "bad_requests" },
	{ .name = "gsi_tx" },
	{ .name = "gsi_tx_errors" },
	{ .name = "gsi_rx" },
	{ .name = "gsi_rx_drops" },
	{ .name = "gsi_loopback" },
	{ .name = "event_resyncs" },
	{ .name = "mem_refused" },
	{ .name = "ceq_overflows" },
	{ .name = "tlb_miss_dropped" },
	{ .name = "srq_limit_events" },
	{ .name = "admin_cmds" },
	{ .name = "admin_cmd_errors" },
	{ .name = "admin_cmd_timeouts" },
	{ .name = "admin_in_flight" },
	{ .name = "aeq_events" },
	{ .name = "aeq_overflows" },
};

static_assert(ARRAY_SIZE(scenic_rdma_stat_descs) ==
	      SCENIC_RDMA_NUM_HW_STATS + SCENIC_SW_NUM_STATS);

/* Adds what each card counter moved since the last fold. */
static void scenic_rdma_stats_fold(struct scenic_rdma_dev *sdev)
{
	unsigned int i;
	u32 now;

	spin_lock(&sdev->hw_stats_lock);
	if (!scenic_rdma_dead(sdev)) {
		for (i = 0; i < SCENIC_RDMA_NUM_HW_STATS; i++) {
			now = scenic_rdma_rd(sdev, scenic_rdma_hw_regs[i]);
			if (now == ~0U)	/* device gone: keep the totals */
				break;
			sdev->hw_total[i] += (u32)(now - sdev->hw_last[i]);
			sdev->hw_last[i] = now;
		}
	}
	spin_unlock(&sdev->hw_stats_lock);
}

static void scenic_rdma_stats_work(struct work_struct *work)
{
	struct scenic_rdma_dev *sdev =
		container_of(to_delayed_work(work), struct scenic_rdma_dev,
			     stats_work);

	scenic_rdma_stats_fold(sdev);
	schedule_delayed_work(&sdev->stats_work,
			      msecs_to_jiffies(SCENIC_RDMA_STATS_FOLD_MS));
}

/* The counters keep their values from before the driver bound. */
void scenic_rdma_stats_init(struct scenic_rdma_dev *sdev)
{
	unsigned int i;

	spin_lock_init(&sdev->hw_stats_lock);
	for (i = 0; i < SCENIC_RDMA_NUM_HW_STATS; i++)
		sdev->hw_last[i] = scenic_rdma_rd(sdev, scenic_rdma_hw_regs[i]);
	INIT_DELAYED_WORK(&sdev->stats_work, scenic_rdma_stats_work);
	schedule_delayed_work(&sdev->stats_work,
			      msecs_to_jiffies(SCENIC_RDMA_STATS_FOLD_MS));
}

void scenic_rdma_stats_fini(struct scenic_rdma_dev *sdev)
{
	cancel_delayed_work_sync(&sdev->stats_work);
}

struct rdma_hw_stats *scenic_rdma_alloc_hw_port_stats(struct ib_device *ibdev,
						      u32 port)
{
	return rdma_alloc_hw_stats_struct(scenic_rdma_stat_descs,
					  ARRAY_SIZE(scenic_rdma_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int scenic_rdma_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibdev);
	struct scenic_rdma_sw_stats *sw = &sdev->sw;
	struct scenic_admin_totals at;
	u64 *v = stats->value;
	unsigned int i;

	scenic_rdma_stats_fold(sdev);
	spin_lock(&sdev->hw_stats_lock);
	for (i = 0; i < SCENIC_RDMA_NUM_HW_STATS; i++)
		v[i] = sdev->hw_total[i];
	spin_unlock(&sdev->hw_stats_lock);

	v += SCENIC_RDMA_NUM_HW_STATS;
	v[SCENIC_SW_CMD_ERRORS] = atomic64_read(&sw->cmd_errors);
	v[SCENIC_SW_EVENTS] = atomic64_read(&sw->events);
	v[SCENIC_SW_EVENTS_UNKNOWN] = atomic64_read(&sw->events_unknown);
	v[SCENIC_SW_TLB_FILLS] = atomic64_read(&sw->tlb_fills);
	v[SCENIC_SW_TLB_MISS_NO_MR] = atomic64_read(&sw->tlb_miss_no_mr);
	v[SCENIC_SW_TLB_MISS_OUTSIDE] = atomic64_read(&sw->tlb_miss_outside);
	v[SCENIC_SW_BAD_REQUESTS] = atomic64_read(&sw->bad_requests);
	v[SCENIC_SW_GSI_TX] = atomic64_read(&sw->gsi_tx);
	v[SCENIC_SW_GSI_TX_ERRORS] = atomic64_read(&sw->gsi_tx_errors);
	v[SCENIC_SW_GSI_RX] = atomic64_read(&sw->gsi_rx);
	v[SCENIC_SW_GSI_RX_DROPS] = atomic64_read(&sw->gsi_rx_drops);
	v[SCENIC_SW_GSI_LOOPBACK] = atomic64_read(&sw->gsi_loopback);
	v[SCENIC_SW_EVENT_RESYNCS] = atomic64_read(&sw->event_resyncs);
	v[SCENIC_SW_MEM_REFUSED] = atomic64_read(&sw->mem_refused);
	v[SCENIC_SW_CEQ_OVERFLOWS] = atomic64_read(&sw->ceq_overflows);
	v[SCENIC_SW_TLB_MISS_DROPPED] = atomic64_read(&sw->tlb_miss_dropped);
	v[SCENIC_SW_SRQ_LIMIT_EVENTS] = atomic64_read(&sw->srq_limit_events);
	scenic_aux_admin_totals(sdev->sadev, &at);
	v[SCENIC_SW_ADMIN_CMDS] = at.cmds;
	v[SCENIC_SW_ADMIN_CMD_ERRORS] = at.cmd_errors;
	v[SCENIC_SW_ADMIN_CMD_TIMEOUTS] = at.cmd_timeouts;
	v[SCENIC_SW_ADMIN_IN_FLIGHT] = at.in_flight;
	v[SCENIC_SW_AEQ_EVENTS] = at.aeq_events;
	v[SCENIC_SW_AEQ_OVERFLOWS] = at.aeq_overflows;
	return ARRAY_SIZE(scenic_rdma_stat_descs);
}
