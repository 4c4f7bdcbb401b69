// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_eth.ko receive path. One coherent ring of
 * RX_RING_SIZE slots of RX_RING_STRIDE bytes; the card writes a struct
 * scenic_rx_tag and the frame into a slot in one DMA, advances RX_TAIL and
 * writes it to the writeback area. NAPI copies each frame into an skb and
 * returns the slots by advancing RX_HEAD. The interrupt handler and the NAPI
 * poll live here too (the poll also completes TX commands).
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>

#include "scenic_eth_drv.h"

int scenic_eth_rx_alloc(struct scenic_eth *eth)
{
	struct scenic_eth_rx_ring *rx = &eth->rx;

	rx->bytes = (size_t)rx->size * rx->stride;
	rx->buf = dma_alloc_coherent(eth->dmadev, rx->bytes, &rx->dma,
				     GFP_KERNEL);
	if (!rx->buf)
		return -ENOMEM;
	rx->head = 0;
	return 0;
}

void scenic_eth_rx_free(struct scenic_eth *eth)
{
	struct scenic_eth_rx_ring *rx = &eth->rx;

	if (!rx->buf)
		return;
	dma_free_coherent(eth->dmadev, rx->bytes, rx->buf, rx->dma);
	rx->buf = NULL;
}

/* Program the ring; writing RX_RING_SIZE last resets RX_TAIL and RX_HEAD. */
void scenic_eth_rx_hw_init(struct scenic_eth *eth)
{
	struct scenic_eth_rx_ring *rx = &eth->rx;

	scenic_eth_wr(eth, SCENIC_ETH_RX_RING_SIZE, 0);
	scenic_eth_wr(eth, SCENIC_ETH_RX_RING_ADDR_LO, lower_32_bits(rx->dma));
	scenic_eth_wr(eth, SCENIC_ETH_RX_RING_ADDR_HI, upper_32_bits(rx->dma));
	scenic_eth_wr(eth, SCENIC_ETH_RX_RING_STRIDE, rx->stride);
	scenic_eth_wr(eth, SCENIC_ETH_RX_RING_SIZE, rx->size);
	scenic_eth_wr(eth, SCENIC_ETH_RX_HEAD, 0);
}

/*
 * The card's checksum verdict (ETH 1.1, OFFLOAD_CTRL.rx_csum): GOOD becomes
 * CHECKSUM_UNNECESSARY; a bad checksum is counted and the frame delivered
 * with CHECKSUM_NONE, so the stack checks it again and drops it in its own
 * counters. Returns 1 for a bad checksum.
 */
static int scenic_eth_rx_csum(struct net_device *netdev, struct sk_buff *skb,
			      u16 flags)
{
	u16 csum = (flags & SCENIC_RX_TAG_CSUM_MASK) >> SCENIC_RX_TAG_CSUM_SHIFT;

	/* frames written before rx was turned off may still carry bits */
	if (!(netdev->features & NETIF_F_RXCSUM))
		return 0;
	if (csum == SCENIC_RX_CSUM_GOOD) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		return 0;
	}
	return csum != SCENIC_RX_CSUM_NONE;
}

static int scenic_eth_rx(struct scenic_eth *eth, int budget)
{
	struct scenic_eth_rx_ring *rx = &eth->rx;
	struct net_device *netdev = eth->netdev;
	u32 mask = rx->size - 1;
	u32 head = rx->head;
	u64 packets = 0, bytes = 0, bad = 0, nomem = 0, csum_bad = 0;
	int done = 0;
	u32 tail;

	tail = le32_to_cpu(READ_ONCE(eth->wb->rx_tail));
	/* the tags and frames behind rx_tail were written before it */
	dma_rmb();
	if (unlikely(tail > mask)) {
		net_err_ratelimited("%s: writeback rx_tail %u outside a ring of %u slots\n",
				    netdev->name, tail, rx->size);
		return 0;
	}

	while (head != tail && done < budget) {
		u8 *slot = (u8 *)rx->buf + (size_t)head * rx->stride;
		struct scenic_rx_tag *tag = (struct scenic_rx_tag *)slot;
		u16 flags = le16_to_cpu(READ_ONCE(tag->flags));
		u16 len = le16_to_cpu(READ_ONCE(tag->len));
		struct sk_buff *skb;

		if (unlikely(!(flags & SCENIC_RX_TAG_VALID) || len < ETH_HLEN ||
			     len > rx->stride - SCENIC_RX_TAG_BYTES)) {
			/* counted and skipped, never delivered */
			bad++;
		} else {
			skb = napi_alloc_skb(&eth->napi, len);
			if (likely(skb)) {
				skb_put_data(skb, slot + SCENIC_RX_TAG_BYTES,
					     len);
				skb->protocol = eth_type_trans(skb, netdev);
				csum_bad += scenic_eth_rx_csum(netdev, skb, flags);
				napi_gro_receive(&eth->napi, skb);
				packets++;
				bytes += len;
			} else {
				nomem++;
			}
		}
		WRITE_ONCE(tag->flags, 0);	/* clear VALID */
		head = (head + 1) & mask;
		done++;
	}

	if (done) {
		rx->head = head;
		/* our reads of the slots and the cleared tags before RX_HEAD */
		mb();
		scenic_eth_wr(eth, SCENIC_ETH_RX_HEAD, head);
	}

	u64_stats_update_begin(&eth->nstats.syncp);
	eth->nstats.rx_packets += packets;
	eth->nstats.rx_bytes += bytes;
	eth->nstats.rx_bad_tag += bad;
	eth->nstats.rx_alloc_failed += nomem;
	eth->nstats.rx_csum_bad += csum_bad;
	eth->nstats.napi_polls++;
	u64_stats_update_end(&eth->nstats.syncp);
	return done;
}

int scenic_eth_poll(struct napi_struct *napi, int budget)
{
	struct scenic_eth *eth = container_of(napi, struct scenic_eth, napi);
	int done;

	scenic_eth_tx_clean(eth, budget);
	done = scenic_eth_rx(eth, budget);
	if (done >= budget)
		return budget;
	if (napi_complete_done(napi, done))
		scenic_eth_wr(eth, SCENIC_ETH_IRQ_MASK, 0);
	return done;
}

irqreturn_t scenic_eth_irq(int irq, void *data)
{
	struct scenic_eth *eth = data;

	atomic64_inc(&eth->interrupts);
	if (napi_schedule_prep(&eth->napi)) {
		scenic_eth_wr(eth, SCENIC_ETH_IRQ_MASK, 1);
		__napi_schedule_irqoff(&eth->napi);
	}
	return IRQ_HANDLED;
}
