// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_eth.ko transmit path. A ring of struct
 * scenic_tx_cmd, one per frame (linear skb, dma_map_single); the driver
 * writes TX_TAIL, the card advances TX_HEAD once it has read the frame and
 * writes it to the writeback area; NAPI completes up to there. BQL.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>

#include "scenic_eth_drv.h"

/* Wake a stopped queue once this many commands are free. */
#define SCENIC_ETH_TX_WAKE	4

int scenic_eth_tx_alloc(struct scenic_eth *eth)
{
	struct scenic_eth_tx_ring *tx = &eth->tx;

	tx->bufs = kcalloc(tx->size, sizeof(*tx->bufs), GFP_KERNEL);
	if (!tx->bufs)
		return -ENOMEM;
	tx->cmd = dma_alloc_coherent(eth->dmadev,
				     (size_t)tx->size * SCENIC_TX_CMD_BYTES,
				     &tx->dma, GFP_KERNEL);
	if (!tx->cmd) {
		netdev_err(eth->netdev, "cannot allocate the TX ring (%u commands)\n",
			   tx->size);
		kfree(tx->bufs);
		tx->bufs = NULL;
		return -ENOMEM;
	}
	tx->tail = 0;
	tx->clean = 0;
	return 0;
}

/* Unmap and free what the card never completed, then the ring. */
void scenic_eth_tx_free(struct scenic_eth *eth)
{
	struct scenic_eth_tx_ring *tx = &eth->tx;
	u32 i;

	if (!tx->cmd)
		return;
	for (i = 0; i < tx->size; i++) {
		struct scenic_eth_tx_buf *b = &tx->bufs[i];

		if (!b->skb)
			continue;
		dma_unmap_single(eth->dmadev, b->dma, b->len, DMA_TO_DEVICE);
		dev_kfree_skb_any(b->skb);
		b->skb = NULL;
	}
	dma_free_coherent(eth->dmadev, (size_t)tx->size * SCENIC_TX_CMD_BYTES,
			  tx->cmd, tx->dma);
	tx->cmd = NULL;
	kfree(tx->bufs);
	tx->bufs = NULL;
}

/* Program the ring; writing TX_RING_SIZE last resets TX_HEAD and TX_TAIL. */
void scenic_eth_tx_hw_init(struct scenic_eth *eth)
{
	struct scenic_eth_tx_ring *tx = &eth->tx;

	scenic_eth_wr(eth, SCENIC_ETH_TX_RING_SIZE, 0);
	scenic_eth_wr(eth, SCENIC_ETH_TX_RING_ADDR_LO, lower_32_bits(tx->dma));
	scenic_eth_wr(eth, SCENIC_ETH_TX_RING_ADDR_HI, upper_32_bits(tx->dma));
	scenic_eth_wr(eth, SCENIC_ETH_TX_RING_SIZE, tx->size);
}

/* Free commands; one slot stays empty so that full != empty. */
static u32 scenic_eth_tx_free_slots(const struct scenic_eth_tx_ring *tx)
{
	return tx->size - 1 - ((READ_ONCE(tx->tail) - READ_ONCE(tx->clean)) &
			       (tx->size - 1));
}

void scenic_eth_tx_clean(struct scenic_eth *eth, int budget)
{
	struct scenic_eth_tx_ring *tx = &eth->tx;
	struct net_device *netdev = eth->netdev;
	u32 mask = tx->size - 1;
	unsigned int packets = 0, bytes = 0;
	u32 clean = tx->clean;
	u32 head;

	head = le32_to_cpu(READ_ONCE(eth->wb->tx_head));
	if (unlikely(head > mask)) {
		net_err_ratelimited("%s: writeback tx_head %u outside a ring of %u commands\n",
				    netdev->name, head, tx->size);
		return;
	}

	while (clean != head) {
		struct scenic_eth_tx_buf *b = &tx->bufs[clean];

		if (unlikely(!b->skb)) {
			net_err_ratelimited("%s: card completed TX command %u that was never posted\n",
					    netdev->name, clean);
			break;
		}
		dma_unmap_single(eth->dmadev, b->dma, b->len, DMA_TO_DEVICE);
		packets++;
		bytes += b->len;
		napi_consume_skb(b->skb, budget);
		b->skb = NULL;
		clean = (clean + 1) & mask;
	}
	if (!packets)
		return;

	/* ndo_start_xmit reads clean to count free commands */
	smp_store_release(&tx->clean, clean);
	netdev_completed_queue(netdev, packets, bytes);

	u64_stats_update_begin(&eth->nstats.syncp);
	eth->nstats.tx_packets += packets;
	eth->nstats.tx_bytes += bytes;
	u64_stats_update_end(&eth->nstats.syncp);

	/* pairs with the barrier after netif_stop_queue() in xmit */
	smp_mb();
	if (unlikely(netif_queue_stopped(netdev)) &&
	    scenic_eth_tx_free_slots(tx) >= SCENIC_ETH_TX_WAKE)
		netif_wake_queue(netdev);
}

static void scenic_eth_tx_drop(struct scenic_eth *eth, struct sk_buff *skb)
{
	if (skb)
		dev_kfree_skb_any(skb);
	u64_stats_update_begin(&eth->xstats.syncp);
	eth->xstats.tx_dropped++;
	u64_stats_update_end(&eth->xstats.syncp);
}

netdev_tx_t scenic_eth_start_xmit(struct sk_buff *skb,
				  struct net_device *netdev)
{
	struct scenic_eth *eth = netdev_priv(netdev);
	struct scenic_eth_tx_ring *tx = &eth->tx;
	struct scenic_eth_tx_buf *b;
	struct scenic_tx_cmd *cmd;
	dma_addr_t dma;
	u32 len;

	/* the card refuses commands under 14 bytes; pad to the minimum */
	if (skb_put_padto(skb, ETH_ZLEN)) {
		scenic_eth_tx_drop(eth, NULL);
		return NETDEV_TX_OK;
	}
	/* no scatter-gather on the card: one command, one buffer */
	if (skb_linearize(skb)) {
		scenic_eth_tx_drop(eth, skb);
		return NETDEV_TX_OK;
	}

	if (unlikely(!scenic_eth_tx_free_slots(tx))) {
		/* should not happen: the queue stops before the ring fills */
		netif_stop_queue(netdev);
		u64_stats_update_begin(&eth->xstats.syncp);
		eth->xstats.tx_busy++;
		u64_stats_update_end(&eth->xstats.syncp);
		return NETDEV_TX_BUSY;
	}

	len = skb->len;
	dma = dma_map_single(eth->dmadev, skb->data, len, DMA_TO_DEVICE);
	if (unlikely(dma_mapping_error(eth->dmadev, dma))) {
		net_err_ratelimited("%s: TX DMA mapping failed\n", netdev->name);
		scenic_eth_tx_drop(eth, skb);
		return NETDEV_TX_OK;
	}

	b = &tx->bufs[tx->tail];
	b->skb = skb;
	b->dma = dma;
	b->len = len;
	cmd = &tx->cmd[tx->tail];
	cmd->addr = cpu_to_le64(dma);
	cmd->len = cpu_to_le32(len);
	cmd->flags = 0;
	skb_tx_timestamp(skb);
	WRITE_ONCE(tx->tail, (tx->tail + 1) & (tx->size - 1));

	if (unlikely(!scenic_eth_tx_free_slots(tx))) {
		netif_stop_queue(netdev);
		u64_stats_update_begin(&eth->xstats.syncp);
		eth->xstats.tx_busy++;
		u64_stats_update_end(&eth->xstats.syncp);
		/* pairs with the barrier in scenic_eth_tx_clean() */
		smp_mb();
		if (scenic_eth_tx_free_slots(tx) >= SCENIC_ETH_TX_WAKE)
			netif_start_queue(netdev);
	}

	if (__netdev_sent_queue(netdev, len, netdev_xmit_more())) {
		/* commands in memory before the doorbell */
		wmb();
		scenic_eth_wr(eth, SCENIC_ETH_TX_TAIL, tx->tail);
	}
	return NETDEV_TX_OK;
}
