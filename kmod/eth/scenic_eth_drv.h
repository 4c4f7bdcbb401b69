/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SCENIC SmartNIC: scenic_eth.ko, the fallback-path netdev (paper section
 * 7.1) over the card's tagged RX ring and TX command ring. Private
 * definitions shared by the scenic_eth_*.c files.
 */
#ifndef _SCENIC_ETH_DRV_H
#define _SCENIC_ETH_DRV_H

#include <linux/io.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "scenic_aux.h"
#include "scenic_eth.h"

#define SCENIC_ETH_DRV_NAME	"scenic_eth"
#define SCENIC_ETH_DRV_VERSION	"1.0"

/* Ring bounds from the register map (RX_RING_SIZE, TX_RING_SIZE). */
#define SCENIC_ETH_RING_MIN	8
#define SCENIC_ETH_RING_MAX	32768
#define SCENIC_ETH_RX_RING_DEF	256
#define SCENIC_ETH_TX_RING_DEF	512
/*
 * The RX ring is one coherent allocation: keep it within what the page
 * allocator gives without CMA (order 10, 4 MiB with 4 KiB pages).
 */
#define SCENIC_ETH_RX_RING_MAX_BYTES	(4U << 20)

/* Most entries one TX packet takes, context included (TX_MAX_FRAGS). */
#define SCENIC_ETH_TX_MAX_ENTRIES	32

/* Frame bytes beyond the MTU: Ethernet header and one VLAN tag. */
#define SCENIC_ETH_MTU_OVERHEAD	18
#define SCENIC_ETH_MIN_MTU	68

/* Coalescing bounds (IRQ_TIME in microseconds, IRQ_COAL in events). */
#define SCENIC_ETH_IRQ_TIME_MAX	65535
#define SCENIC_ETH_IRQ_COAL_MAX	65535
#define SCENIC_ETH_IRQ_COAL_DEF	1
#define SCENIC_ETH_IRQ_TIME_DEF	0

/* How long ndo_stop waits for TX_HEAD to stop moving. */
#define SCENIC_ETH_TX_SETTLE_MS	100

/* Card counters (32-bit, wrapping), folded into 64-bit totals. */
enum scenic_eth_hw_stat {
	SCENIC_HW_RX_FRAMES,
	SCENIC_HW_RX_BYTES,
	SCENIC_HW_RX_DROP_RING_FULL,
	SCENIC_HW_RX_DROP_RUNT,
	SCENIC_HW_RX_DROP_OVERSIZE,
	SCENIC_HW_RX_DROP_FILTER,
	SCENIC_HW_RX_DROP_DISABLED,
	SCENIC_HW_RX_DMA_ERRORS,
	SCENIC_HW_TX_FRAMES,
	SCENIC_HW_TX_BYTES,
	SCENIC_HW_TX_DROP_BAD_CMD,
	SCENIC_HW_TX_DMA_ERRORS,
	SCENIC_HW_IRQ_COUNT,
	SCENIC_HW_RX_ROCE,
	/* ETH 1.1 offload counters: read only when the card has FEATURES */
	SCENIC_HW_TX_DROP_BAD_OFFLOAD,
	SCENIC_HW_TX_DROP_BAD_SG,
	SCENIC_HW_TX_TSO_PKTS,
	SCENIC_HW_TX_TSO_SEGS,
	SCENIC_HW_TX_CSUM,
	SCENIC_HW_RX_CSUM_GOOD,
	SCENIC_HW_RX_CSUM_BAD,
	SCENIC_HW_NUM_STATS
};

struct scenic_eth_rx_ring {
	void *buf;		/* size slots of stride bytes */
	dma_addr_t dma;
	size_t bytes;
	u32 size;
	u32 stride;
	u32 head;		/* next slot the driver reads */
};

/* What one TX ring entry holds until the card has passed it. */
enum scenic_eth_tx_kind {
	SCENIC_ETH_TXB_FREE,	/* not posted */
	SCENIC_ETH_TXB_CTX,	/* context entry: nothing mapped */
	SCENIC_ETH_TXB_HEAD,	/* part of the linear area: dma_map_single */
	SCENIC_ETH_TXB_FRAG,	/* part of a page fragment: skb_frag_dma_map */
};

struct scenic_eth_tx_buf {
	struct sk_buff *skb;	/* on the packet's last entry only */
	dma_addr_t dma;
	u32 len;
	u32 bytes;		/* last entry: bytes reported to BQL */
	u8 kind;		/* enum scenic_eth_tx_kind */
	bool unmap;		/* first entry of its mapping: owns @dma */
	u32 map_len;		/* length of that mapping */
};

struct scenic_eth_tx_ring {
	struct scenic_tx_cmd *cmd;
	dma_addr_t dma;
	struct scenic_eth_tx_buf *bufs;
	u32 size;
	u32 tail;		/* next command the driver fills (xmit) */
	u32 clean;		/* next command to complete (NAPI) */
	u32 max_entries;	/* per packet: min(TX_MAX_FRAGS, size - 1) */
};

/* Counters written only from NAPI. */
struct scenic_eth_napi_stats {
	struct u64_stats_sync syncp;
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_bad_tag;
	u64 rx_alloc_failed;
	u64 rx_csum_bad;
	u64 tx_packets;
	u64 tx_bytes;
	u64 napi_polls;
};

/* Counters written only from ndo_start_xmit (under the TX queue lock). */
struct scenic_eth_xmit_stats {
	struct u64_stats_sync syncp;
	u64 tx_busy;
	u64 tx_dropped;
	u64 tx_linearized;
};

struct scenic_eth {
	struct net_device *netdev;
	struct scenic_aux_dev *sadev;
	struct device *dmadev;		/* the PCI function */
	void __iomem *regs;		/* the eth block */

	struct napi_struct napi;
	int irq;
	char irq_name[IFNAMSIZ + 32];

	struct scenic_eth_wb *wb;	/* writeback area, whole bind */
	dma_addr_t wb_dma;

	struct scenic_eth_rx_ring rx;
	struct scenic_eth_tx_ring tx;

	/* configuration, kept across down/up and resets (rtnl) */
	u32 rx_ring_size;
	u32 tx_ring_size;
	u32 irq_coal;
	u32 irq_time;
	u32 card_max_mtu;
	u32 card_features;		/* FEATURES (ETH 1.1), 0 on a 1.0 card */
	u32 card_max_frags;		/* TX_MAX_FRAGS, 1 on a 1.0 card */

	/* CTRL shadow; rx_mode runs in atomic context */
	spinlock_t ctrl_lock;
	u32 ctrl;
	bool force_promisc;		/* the card has no valid station MAC */

	bool running;			/* datapath set up (rtnl) */
	bool in_reset;			/* FLR in progress: no register access */
	bool dead;			/* the card did not come back */

	struct delayed_work service_work;	/* link and counters, 1 s */
	struct work_struct reset_work;		/* after a TX timeout */

	spinlock_t hw_stats_lock;	/* hw_last, hw_total, in_reset */
	u32 hw_last[SCENIC_HW_NUM_STATS];
	u64 hw_total[SCENIC_HW_NUM_STATS];

	struct scenic_eth_napi_stats nstats;
	struct scenic_eth_xmit_stats xstats;
	atomic64_t interrupts;
	atomic64_t tx_timeouts;
};

static inline u32 scenic_eth_rd(const struct scenic_eth *eth, u32 reg)
{
	return readl(eth->regs + reg);
}

static inline void scenic_eth_wr(const struct scenic_eth *eth, u32 reg,
				 u32 val)
{
	writel(val, eth->regs + reg);
}

/* RX stride for an MTU: tag + MTU + 18, rounded up to 64 bytes. */
static inline u32 scenic_eth_rx_stride(unsigned int mtu)
{
	return ALIGN(SCENIC_RX_TAG_BYTES + mtu + SCENIC_ETH_MTU_OVERHEAD, 64);
}

/* scenic_eth_offload.c: features the card's FEATURES register allows */
netdev_features_t scenic_eth_hw_features(const struct scenic_eth *eth);
void scenic_eth_write_offload_ctrl(struct scenic_eth *eth,
				   netdev_features_t features);
netdev_features_t scenic_eth_fix_features(struct net_device *netdev,
					  netdev_features_t features);
int scenic_eth_set_features(struct net_device *netdev,
			    netdev_features_t features);

/* scenic_eth_main.c */
int scenic_eth_reconfigure(struct scenic_eth *eth, u32 rx_size, u32 tx_size,
			   unsigned int mtu);
void scenic_eth_write_coalesce(struct scenic_eth *eth);

/* scenic_eth_rx.c */
int scenic_eth_rx_alloc(struct scenic_eth *eth);
void scenic_eth_rx_free(struct scenic_eth *eth);
void scenic_eth_rx_hw_init(struct scenic_eth *eth);
int scenic_eth_poll(struct napi_struct *napi, int budget);
irqreturn_t scenic_eth_irq(int irq, void *data);

/* scenic_eth_tx.c */
int scenic_eth_tx_alloc(struct scenic_eth *eth);
void scenic_eth_tx_free(struct scenic_eth *eth);
void scenic_eth_tx_hw_init(struct scenic_eth *eth);
void scenic_eth_tx_clean(struct scenic_eth *eth, int budget);
netdev_tx_t scenic_eth_start_xmit(struct sk_buff *skb,
				  struct net_device *netdev);

/* scenic_eth_offload.c */
netdev_features_t scenic_eth_features_check(struct sk_buff *skb,
					    struct net_device *netdev,
					    netdev_features_t features);

/* scenic_eth_ethtool.c */
extern const struct ethtool_ops scenic_eth_ethtool_ops;

/* scenic_eth_stats.c */
void scenic_eth_hw_stats_fold(struct scenic_eth *eth);
void scenic_eth_hw_stats_resync(struct scenic_eth *eth);
void scenic_eth_get_stats64(struct net_device *netdev,
			    struct rtnl_link_stats64 *s);
int scenic_eth_stats_count(void);
void scenic_eth_stats_strings(u8 *data);
void scenic_eth_stats_fill(struct scenic_eth *eth, u64 *data);

#endif /* _SCENIC_ETH_DRV_H */
