// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_eth.ko statistics. The card's 32-bit wrapping
 * counters are folded into 64-bit totals by the 1 s service work and on
 * every read; the driver's own ring counters come from NAPI and xmit.
 */

#include <linux/ethtool.h>
#include <linux/string.h>

#include "scenic_eth_drv.h"

static const struct {
	char name[ETH_GSTRING_LEN];
	u32 reg;
	bool v11;	/* ETH 1.1 register: 0 on a card without FEATURES */
} scenic_eth_hw_stats[SCENIC_HW_NUM_STATS] = {
	[SCENIC_HW_RX_FRAMES] = { "rx_frames", SCENIC_ETH_RX_FRAMES },
	[SCENIC_HW_RX_BYTES] = { "rx_bytes", SCENIC_ETH_RX_BYTES },
	[SCENIC_HW_RX_DROP_RING_FULL] = { "rx_drop_ring_full",
					  SCENIC_ETH_RX_DROP_RING_FULL },
	[SCENIC_HW_RX_DROP_RUNT] = { "rx_drop_runt", SCENIC_ETH_RX_DROP_RUNT },
	[SCENIC_HW_RX_DROP_OVERSIZE] = { "rx_drop_oversize",
					 SCENIC_ETH_RX_DROP_OVERSIZE },
	[SCENIC_HW_RX_DROP_FILTER] = { "rx_drop_filter",
				       SCENIC_ETH_RX_DROP_FILTER },
	[SCENIC_HW_RX_DROP_DISABLED] = { "rx_drop_disabled",
					 SCENIC_ETH_RX_DROP_DISABLED },
	[SCENIC_HW_RX_DMA_ERRORS] = { "rx_dma_errors",
				      SCENIC_ETH_RX_DMA_ERRORS },
	[SCENIC_HW_TX_FRAMES] = { "tx_frames", SCENIC_ETH_TX_FRAMES },
	[SCENIC_HW_TX_BYTES] = { "tx_bytes", SCENIC_ETH_TX_BYTES },
	[SCENIC_HW_TX_DROP_BAD_CMD] = { "tx_drop_bad_cmd",
					SCENIC_ETH_TX_DROP_BAD_CMD },
	[SCENIC_HW_TX_DMA_ERRORS] = { "tx_dma_errors",
				      SCENIC_ETH_TX_DMA_ERRORS },
	[SCENIC_HW_IRQ_COUNT] = { "irq_count", SCENIC_ETH_IRQ_COUNT },
	[SCENIC_HW_RX_ROCE] = { "rx_roce", SCENIC_ETH_RX_ROCE },
	[SCENIC_HW_TX_DROP_BAD_OFFLOAD] = { "tx_drop_bad_offload",
					    SCENIC_ETH_TX_DROP_BAD_OFFLOAD, true },
	[SCENIC_HW_TX_DROP_BAD_SG] = { "tx_drop_bad_sg",
				       SCENIC_ETH_TX_DROP_BAD_SG, true },
	[SCENIC_HW_TX_TSO_PKTS] = { "tx_tso_packets", SCENIC_ETH_TX_TSO_PKTS,
				    true },
	[SCENIC_HW_TX_TSO_SEGS] = { "tx_tso_segments", SCENIC_ETH_TX_TSO_SEGS,
				    true },
	[SCENIC_HW_TX_CSUM] = { "tx_csum", SCENIC_ETH_TX_CSUM, true },
	[SCENIC_HW_RX_CSUM_GOOD] = { "rx_csum_good", SCENIC_ETH_RX_CSUM_GOOD,
				     true },
	[SCENIC_HW_RX_CSUM_BAD] = { "rx_csum_bad", SCENIC_ETH_RX_CSUM_BAD,
				    true },
};

static u32 scenic_eth_hw_stat_rd(struct scenic_eth *eth, unsigned int i)
{
	if (scenic_eth_hw_stats[i].v11 && !eth->card_features)
		return 0;
	return scenic_eth_rd(eth, scenic_eth_hw_stats[i].reg);
}

/* The driver's counters, after the card's in ethtool -S. */
static const char scenic_eth_sw_stats[][ETH_GSTRING_LEN] = {
	"rx_packets",
	"rx_bad_tag",
	"rx_csum_err",
	"tx_packets",
	"tx_busy",
	"tx_linearized",
	"tx_timeouts",
	"napi_polls",
	"interrupts",
};

/* Add what each card counter moved since the last fold. */
void scenic_eth_hw_stats_fold(struct scenic_eth *eth)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&eth->hw_stats_lock, flags);
	if (!eth->in_reset && !eth->dead) {
		for (i = 0; i < SCENIC_HW_NUM_STATS; i++) {
			u32 now = scenic_eth_hw_stat_rd(eth, i);

			eth->hw_total[i] += (u32)(now - eth->hw_last[i]);
			eth->hw_last[i] = now;
		}
	}
	spin_unlock_irqrestore(&eth->hw_stats_lock, flags);
}

/* Take the card's current values as the base (probe, after a reset). */
void scenic_eth_hw_stats_resync(struct scenic_eth *eth)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&eth->hw_stats_lock, flags);
	for (i = 0; i < SCENIC_HW_NUM_STATS; i++)
		eth->hw_last[i] = scenic_eth_hw_stat_rd(eth, i);
	spin_unlock_irqrestore(&eth->hw_stats_lock, flags);
}

static void scenic_eth_hw_stats_read(struct scenic_eth *eth, u64 *out)
{
	unsigned long flags;

	scenic_eth_hw_stats_fold(eth);
	spin_lock_irqsave(&eth->hw_stats_lock, flags);
	memcpy(out, eth->hw_total, sizeof(eth->hw_total));
	spin_unlock_irqrestore(&eth->hw_stats_lock, flags);
}

static void scenic_eth_sw_read(struct scenic_eth *eth,
			       struct scenic_eth_napi_stats *n,
			       struct scenic_eth_xmit_stats *x)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&eth->nstats.syncp);
		n->rx_packets = eth->nstats.rx_packets;
		n->rx_bytes = eth->nstats.rx_bytes;
		n->rx_bad_tag = eth->nstats.rx_bad_tag;
		n->rx_alloc_failed = eth->nstats.rx_alloc_failed;
		n->rx_csum_bad = eth->nstats.rx_csum_bad;
		n->tx_packets = eth->nstats.tx_packets;
		n->tx_bytes = eth->nstats.tx_bytes;
		n->napi_polls = eth->nstats.napi_polls;
	} while (u64_stats_fetch_retry(&eth->nstats.syncp, start));
	do {
		start = u64_stats_fetch_begin(&eth->xstats.syncp);
		x->tx_busy = eth->xstats.tx_busy;
		x->tx_dropped = eth->xstats.tx_dropped;
		x->tx_linearized = eth->xstats.tx_linearized;
	} while (u64_stats_fetch_retry(&eth->xstats.syncp, start));
}

void scenic_eth_get_stats64(struct net_device *netdev,
			    struct rtnl_link_stats64 *s)
{
	struct scenic_eth *eth = netdev_priv(netdev);
	struct scenic_eth_napi_stats n;
	struct scenic_eth_xmit_stats x;
	u64 hw[SCENIC_HW_NUM_STATS];

	scenic_eth_sw_read(eth, &n, &x);
	scenic_eth_hw_stats_read(eth, hw);

	s->rx_packets = n.rx_packets;
	s->rx_bytes = n.rx_bytes;
	s->tx_packets = n.tx_packets;
	s->tx_bytes = n.tx_bytes;

	s->rx_missed_errors = hw[SCENIC_HW_RX_DROP_RING_FULL];
	s->rx_length_errors = hw[SCENIC_HW_RX_DROP_RUNT] +
			      hw[SCENIC_HW_RX_DROP_OVERSIZE];
	s->rx_fifo_errors = hw[SCENIC_HW_RX_DMA_ERRORS];
	s->rx_frame_errors = n.rx_bad_tag;
	s->rx_errors = s->rx_length_errors + s->rx_fifo_errors +
		       s->rx_frame_errors;
	s->rx_dropped = hw[SCENIC_HW_RX_DROP_DISABLED] + n.rx_alloc_failed;

	s->tx_fifo_errors = hw[SCENIC_HW_TX_DMA_ERRORS];
	s->tx_aborted_errors = hw[SCENIC_HW_TX_DROP_BAD_CMD] +
			       hw[SCENIC_HW_TX_DROP_BAD_OFFLOAD] +
			       hw[SCENIC_HW_TX_DROP_BAD_SG];
	s->tx_errors = s->tx_fifo_errors + s->tx_aborted_errors;
	s->tx_dropped = x.tx_dropped;
}

int scenic_eth_stats_count(void)
{
	return SCENIC_HW_NUM_STATS + ARRAY_SIZE(scenic_eth_sw_stats);
}

void scenic_eth_stats_strings(u8 *data)
{
	unsigned int i;

	for (i = 0; i < SCENIC_HW_NUM_STATS; i++, data += ETH_GSTRING_LEN)
		memcpy(data, scenic_eth_hw_stats[i].name, ETH_GSTRING_LEN);
	for (i = 0; i < ARRAY_SIZE(scenic_eth_sw_stats);
	     i++, data += ETH_GSTRING_LEN)
		memcpy(data, scenic_eth_sw_stats[i], ETH_GSTRING_LEN);
}

void scenic_eth_stats_fill(struct scenic_eth *eth, u64 *data)
{
	struct scenic_eth_napi_stats n;
	struct scenic_eth_xmit_stats x;

	scenic_eth_hw_stats_read(eth, data);
	data += SCENIC_HW_NUM_STATS;
	scenic_eth_sw_read(eth, &n, &x);
	*data++ = n.rx_packets;
	*data++ = n.rx_bad_tag;
	*data++ = n.rx_csum_bad;
	*data++ = n.tx_packets;
	*data++ = x.tx_busy;
	*data++ = x.tx_linearized;
	*data++ = atomic64_read(&eth->tx_timeouts);
	*data++ = n.napi_polls;
	*data++ = atomic64_read(&eth->interrupts);
}
