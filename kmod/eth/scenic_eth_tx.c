// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_eth.ko transmit path. A ring of 16-byte entries;
 * a packet is a run of them (docs/eth-offloads.md 1.1): an optional context
 * entry asking for a checksum or TSO, then one entry per buffer (the linear
 * part, then each page fragment), all but the last with SCENIC_TX_MORE. On a
 * card without ETH 1.1 features every skb is linear and takes one entry with
 * flags 0. The driver writes TX_TAIL at packet boundaries, the card advances
 * TX_HEAD past whole packets and writes it to the writeback area; NAPI
 * completes up to there. BQL.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <net/tcp.h>

#include "scenic_eth_drv.h"

/* Longest buffer one entry names. */
#define SCENIC_ETH_TX_ENTRY_MAX	65535U

/* Wake a stopped queue once this many entries are free. */
static u32 scenic_eth_tx_wake(const struct scenic_eth_tx_ring *tx)
{
	return min(max(2 * tx->max_entries, 4U), tx->size - 1);
}

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
	/* a packet must fit the ring with the one slot that stays empty */
	tx->max_entries = min(eth->card_max_frags, tx->size - 1);
	return 0;
}

/* Undo one entry's mapping (the first entry of a split buffer owns it). */
static void scenic_eth_tx_unmap(struct scenic_eth *eth,
				struct scenic_eth_tx_buf *b)
{
	if (b->unmap && b->kind == SCENIC_ETH_TXB_HEAD)
		dma_unmap_single(eth->dmadev, b->dma, b->map_len,
				 DMA_TO_DEVICE);
	else if (b->unmap && b->kind == SCENIC_ETH_TXB_FRAG)
		dma_unmap_page(eth->dmadev, b->dma, b->map_len, DMA_TO_DEVICE);
	b->unmap = false;
	b->kind = SCENIC_ETH_TXB_FREE;
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

		scenic_eth_tx_unmap(eth, b);
		if (!b->skb)
			continue;
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

		if (unlikely(b->kind == SCENIC_ETH_TXB_FREE)) {
			net_err_ratelimited("%s: card completed TX entry %u that was never posted\n",
					    netdev->name, clean);
			break;
		}
		scenic_eth_tx_unmap(eth, b);
		if (b->skb) {
			packets++;
			bytes += b->bytes;
			napi_consume_skb(b->skb, budget);
			b->skb = NULL;
		}
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
	    scenic_eth_tx_free_slots(tx) >= scenic_eth_tx_wake(tx))
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

/* Entries a buffer of @len bytes takes. */
static u32 scenic_eth_tx_chunks(u32 len)
{
	return DIV_ROUND_UP(len, SCENIC_ETH_TX_ENTRY_MAX);
}

static u32 scenic_eth_tx_entries(const struct sk_buff *skb)
{
	u32 n = scenic_eth_tx_chunks(skb_headlen(skb));
	unsigned int f;

	for (f = 0; f < skb_shinfo(skb)->nr_frags; f++)
		n += scenic_eth_tx_chunks(skb_frag_size(&skb_shinfo(skb)->frags[f]));
	return n + (skb->ip_summed == CHECKSUM_PARTIAL);
}

/* Fill the context entry at @idx for a CHECKSUM_PARTIAL or GSO skb. */
static void scenic_eth_tx_ctx(struct scenic_eth_tx_ring *tx, u32 idx,
			      const struct sk_buff *skb)
{
	struct scenic_tx_ctx *c = (struct scenic_tx_ctx *)&tx->cmd[idx];
	u16 ops = SCENIC_TX_OP_CSUM;

	memset(c, 0, sizeof(*c));
	c->csum_start = cpu_to_le16(skb_checksum_start_offset(skb));
	c->csum_offset = cpu_to_le16(skb->csum_offset);
	if (skb_is_gso(skb)) {
		ops = SCENIC_TX_OP_TSO;
		if (skb_shinfo(skb)->gso_type & SKB_GSO_TCPV6)
			ops |= SCENIC_TX_OP_IPV6;
		c->mss = cpu_to_le16(skb_shinfo(skb)->gso_size);
		c->l3_off = skb_network_offset(skb);
		/* <= 255: ndo_features_check leaves longer headers to software */
		c->hdr_len = skb_tcp_all_headers(skb);
	}
	c->ops = cpu_to_le16(ops);
	c->flags = cpu_to_le32(SCENIC_TX_CTX | SCENIC_TX_MORE);
	tx->bufs[idx].kind = SCENIC_ETH_TXB_CTX;
}

/*
 * Map one buffer into entries from *@idx on (split at 65535 bytes); on
 * failure nothing of this buffer stays mapped.
 */
static int scenic_eth_tx_map(struct scenic_eth *eth, u32 *idx, dma_addr_t dma,
			     u32 len, u8 kind)
{
	struct scenic_eth_tx_ring *tx = &eth->tx;
	u32 off = 0;

	if (unlikely(dma_mapping_error(eth->dmadev, dma)))
		return -ENOMEM;
	while (off < len) {
		struct scenic_eth_tx_buf *b = &tx->bufs[*idx];
		u32 n = min(len - off, SCENIC_ETH_TX_ENTRY_MAX);

		b->kind = kind;
		b->unmap = off == 0;
		b->dma = dma;
		b->map_len = len;
		b->len = n;
		tx->cmd[*idx].addr = cpu_to_le64(dma + off);
		tx->cmd[*idx].len = cpu_to_le32(n);
		tx->cmd[*idx].flags = cpu_to_le32(SCENIC_TX_MORE);
		off += n;
		*idx = (*idx + 1) & (tx->size - 1);
	}
	return 0;
}

/* Map the skb into entries from tx->tail; returns the entry after the last. */
static int scenic_eth_tx_post(struct scenic_eth *eth, struct sk_buff *skb,
			      u32 *last)
{
	struct scenic_eth_tx_ring *tx = &eth->tx;
	u32 idx = tx->tail;
	unsigned int f;
	int err;

	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		scenic_eth_tx_ctx(tx, idx, skb);
		idx = (idx + 1) & (tx->size - 1);
	}
	/* a GSO skb may carry everything in fragments */
	err = 0;
	if (skb_headlen(skb))
		err = scenic_eth_tx_map(eth, &idx,
					dma_map_single(eth->dmadev, skb->data,
						       skb_headlen(skb),
						       DMA_TO_DEVICE),
					skb_headlen(skb), SCENIC_ETH_TXB_HEAD);
	for (f = 0; !err && f < skb_shinfo(skb)->nr_frags; f++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[f];

		err = scenic_eth_tx_map(eth, &idx,
					skb_frag_dma_map(eth->dmadev, frag, 0,
							 skb_frag_size(frag),
							 DMA_TO_DEVICE),
					skb_frag_size(frag), SCENIC_ETH_TXB_FRAG);
	}
	if (err) {
		u32 i;

		for (i = tx->tail; i != idx; i = (i + 1) & (tx->size - 1))
			scenic_eth_tx_unmap(eth, &tx->bufs[i]);
		return err;
	}
	*last = (idx - 1) & (tx->size - 1);
	tx->cmd[*last].flags = 0;	/* the packet ends here */
	return 0;
}

netdev_tx_t scenic_eth_start_xmit(struct sk_buff *skb,
				  struct net_device *netdev)
{
	struct scenic_eth *eth = netdev_priv(netdev);
	struct scenic_eth_tx_ring *tx = &eth->tx;
	struct scenic_eth_tx_buf *b;
	u32 bytes, last;

	/* the card refuses frames under 14 bytes; pad to the minimum */
	if (skb_put_padto(skb, ETH_ZLEN)) {
		scenic_eth_tx_drop(eth, NULL);
		return NETDEV_TX_OK;
	}
	/* more buffers than one packet may have: one buffer (plus context) */
	if (scenic_eth_tx_entries(skb) > tx->max_entries) {
		if (skb_linearize(skb) ||
		    scenic_eth_tx_entries(skb) > tx->max_entries) {
			scenic_eth_tx_drop(eth, skb);
			return NETDEV_TX_OK;
		}
		u64_stats_update_begin(&eth->xstats.syncp);
		eth->xstats.tx_linearized++;
		u64_stats_update_end(&eth->xstats.syncp);
	}

	if (unlikely(scenic_eth_tx_free_slots(tx) < scenic_eth_tx_entries(skb))) {
		/* should not happen: the queue stops before the ring fills */
		netif_stop_queue(netdev);
		u64_stats_update_begin(&eth->xstats.syncp);
		eth->xstats.tx_busy++;
		u64_stats_update_end(&eth->xstats.syncp);
		return NETDEV_TX_BUSY;
	}

	if (unlikely(scenic_eth_tx_post(eth, skb, &last))) {
		net_err_ratelimited("%s: TX DMA mapping failed\n", netdev->name);
		scenic_eth_tx_drop(eth, skb);
		return NETDEV_TX_OK;
	}
	/* BQL and the stats count what goes on the wire */
	bytes = skb->len;
	if (skb_is_gso(skb))
		bytes += (skb_shinfo(skb)->gso_segs - 1) * skb_tcp_all_headers(skb);
	b = &tx->bufs[last];
	b->skb = skb;
	b->bytes = bytes;
	skb_tx_timestamp(skb);
	WRITE_ONCE(tx->tail, (last + 1) & (tx->size - 1));

	if (unlikely(scenic_eth_tx_free_slots(tx) < tx->max_entries)) {
		netif_stop_queue(netdev);
		u64_stats_update_begin(&eth->xstats.syncp);
		eth->xstats.tx_busy++;
		u64_stats_update_end(&eth->xstats.syncp);
		/* pairs with the barrier in scenic_eth_tx_clean() */
		smp_mb();
		if (scenic_eth_tx_free_slots(tx) >= scenic_eth_tx_wake(tx))
			netif_start_queue(netdev);
	}

	if (__netdev_sent_queue(netdev, bytes, netdev_xmit_more())) {
		/* entries in memory before the doorbell */
		wmb();
		scenic_eth_wr(eth, SCENIC_ETH_TX_TAIL, tx->tail);
	}
	return NETDEV_TX_OK;
}
