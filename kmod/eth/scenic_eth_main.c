// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_eth.ko, the fallback-path netdev. Auxiliary
 * driver probe/remove, FLR handling, the netdev operations, the 1 s
 * service work (card counters) and the card's LINK events (carrier).
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>

#include "scenic_eth_drv.h"

/* CTRL is read-modify-write from process and atomic (rx_mode) context. */
static void scenic_eth_update_ctrl(struct scenic_eth *eth, u32 clear, u32 set)
{
	unsigned long flags;

	spin_lock_irqsave(&eth->ctrl_lock, flags);
	eth->ctrl = (eth->ctrl & ~clear) | set;
	if (!eth->in_reset && !eth->dead)
		scenic_eth_wr(eth, SCENIC_ETH_CTRL, eth->ctrl);
	spin_unlock_irqrestore(&eth->ctrl_lock, flags);
}

void scenic_eth_write_coalesce(struct scenic_eth *eth)
{
	if (eth->in_reset || eth->dead)
		return;
	scenic_eth_wr(eth, SCENIC_ETH_IRQ_COAL, eth->irq_coal);
	scenic_eth_wr(eth, SCENIC_ETH_IRQ_TIME, eth->irq_time);
}

static void scenic_eth_update_link(struct scenic_eth *eth)
{
	u32 link;

	if (eth->in_reset || eth->dead)
		return;
	link = scenic_eth_rd(eth, SCENIC_ETH_LINK);
	if (link == ~0U)	/* device gone */
		link = 0;
	if (link & SCENIC_ETH_LINK_UP_MASK) {
		if (!netif_carrier_ok(eth->netdev))
			netif_carrier_on(eth->netdev);
	} else if (netif_carrier_ok(eth->netdev)) {
		netif_carrier_off(eth->netdev);
	}
}

/* AEQ LINK entries; the core's IRQ thread (no admin commands here). */
static void scenic_eth_aeq_event(void *priv, const struct scenic_aeqe *ev)
{
	const struct scenic_aeqe_link *link = (const void *)ev;
	struct scenic_eth *eth = priv;

	if (ev->hdr.type != SCENIC_AEQ_TYPE_LINK || eth->in_reset || eth->dead)
		return;
	if (FIELD_GET(SCENIC_AEQE_LINK_UP_MASK, link->up)) {
		if (!netif_carrier_ok(eth->netdev))
			netif_carrier_on(eth->netdev);
	} else if (netif_carrier_ok(eth->netdev)) {
		netif_carrier_off(eth->netdev);
	}
}

/* LINK events were lost: the LINK register has the current state. */
static void scenic_eth_aeq_resync(void *priv)
{
	scenic_eth_update_link(priv);
}

static const struct scenic_aux_event_ops scenic_eth_event_ops = {
	.event = scenic_eth_aeq_event,
	.resync = scenic_eth_aeq_resync,
};

static void scenic_eth_service(struct work_struct *work)
{
	struct scenic_eth *eth = container_of(to_delayed_work(work),
					      struct scenic_eth, service_work);

	scenic_eth_hw_stats_fold(eth);
	schedule_delayed_work(&eth->service_work, HZ);
}

/* Bring the datapath up: rings, card registers, interrupt, NAPI. (rtnl) */
static int scenic_eth_up(struct scenic_eth *eth)
{
	struct net_device *netdev = eth->netdev;
	int err;

	if (eth->running)
		return 0;
	if (eth->in_reset || eth->dead)
		return -EIO;

	eth->rx.size = eth->rx_ring_size;
	eth->rx.stride = scenic_eth_rx_stride(netdev->mtu);
	eth->tx.size = eth->tx_ring_size;

	err = scenic_eth_rx_alloc(eth);
	if (err)
		return err;
	err = scenic_eth_tx_alloc(eth);
	if (err)
		goto err_rx;

	/* card: masked, disabled, then rings, then enable */
	scenic_eth_wr(eth, SCENIC_ETH_IRQ_MASK, 1);
	scenic_eth_update_ctrl(eth, SCENIC_ETH_CTRL_RX_EN_MASK |
			       SCENIC_ETH_CTRL_TX_EN_MASK, 0);
	scenic_eth_wr(eth, SCENIC_ETH_MTU, netdev->mtu);
	scenic_eth_write_coalesce(eth);
	memset(eth->wb, 0, sizeof(*eth->wb));
	scenic_eth_wr(eth, SCENIC_ETH_WB_ADDR_LO, lower_32_bits(eth->wb_dma));
	scenic_eth_wr(eth, SCENIC_ETH_WB_ADDR_HI, upper_32_bits(eth->wb_dma));
	scenic_eth_write_offload_ctrl(eth, netdev->features);
	scenic_eth_rx_hw_init(eth);
	scenic_eth_tx_hw_init(eth);

	err = request_irq(eth->irq, scenic_eth_irq, 0, eth->irq_name, eth);
	if (err) {
		netdev_err(netdev, "cannot request interrupt %d (%d)\n",
			   eth->irq, err);
		goto err_hw;
	}

	napi_enable(&eth->napi);
	netdev_reset_queue(netdev);
	eth->running = true;

	scenic_eth_update_ctrl(eth, 0, SCENIC_ETH_CTRL_RX_EN_MASK |
			       SCENIC_ETH_CTRL_TX_EN_MASK);
	scenic_eth_wr(eth, SCENIC_ETH_IRQ_MASK, 0);
	netif_start_queue(netdev);
	scenic_eth_update_link(eth);
	return 0;

err_hw:
	scenic_eth_wr(eth, SCENIC_ETH_RX_RING_SIZE, 0);
	scenic_eth_wr(eth, SCENIC_ETH_TX_RING_SIZE, 0);
	scenic_eth_wr(eth, SCENIC_ETH_WB_ADDR_LO, 0);
	scenic_eth_wr(eth, SCENIC_ETH_WB_ADDR_HI, 0);
	scenic_eth_rd(eth, SCENIC_ETH_CTRL);
	scenic_eth_tx_free(eth);
err_rx:
	scenic_eth_rx_free(eth);
	return err;
}

/* TX_HEAD stops moving once CTRL.tx_en is 0; wait for that, bounded. */
static void scenic_eth_tx_settle(struct scenic_eth *eth)
{
	unsigned long deadline = jiffies +
				 msecs_to_jiffies(SCENIC_ETH_TX_SETTLE_MS);
	u32 prev, head;

	prev = scenic_eth_rd(eth, SCENIC_ETH_TX_HEAD);
	do {
		if (prev == eth->tx.tail || prev == ~0U)
			return;
		usleep_range(1000, 2000);
		head = scenic_eth_rd(eth, SCENIC_ETH_TX_HEAD);
		if (head == prev)
			return;
		prev = head;
	} while (time_before(jiffies, deadline));
	netdev_warn(eth->netdev, "TX_HEAD still moving %u ms after TX was disabled\n",
		    SCENIC_ETH_TX_SETTLE_MS);
}

/*
 * Take the datapath down: stop the stack, stop the card, quiesce the
 * interrupt and NAPI, then free the rings. @hw: the card is reachable
 * (false after a failed reset). (rtnl)
 */
static void scenic_eth_down(struct scenic_eth *eth, bool hw)
{
	struct net_device *netdev = eth->netdev;

	if (!eth->running)
		return;

	netif_tx_disable(netdev);
	if (hw) {
		scenic_eth_wr(eth, SCENIC_ETH_IRQ_MASK, 1);
		scenic_eth_update_ctrl(eth, SCENIC_ETH_CTRL_RX_EN_MASK |
				       SCENIC_ETH_CTRL_TX_EN_MASK, 0);
		scenic_eth_tx_settle(eth);
	}
	napi_disable(&eth->napi);
	/* NAPI may have woken the queue: stop it again, now for good */
	netif_tx_disable(netdev);
	free_irq(eth->irq, eth);
	if (hw) {
		/* no DMA into the rings or the writeback area after this */
		scenic_eth_wr(eth, SCENIC_ETH_RX_RING_SIZE, 0);
		scenic_eth_wr(eth, SCENIC_ETH_TX_RING_SIZE, 0);
		scenic_eth_wr(eth, SCENIC_ETH_WB_ADDR_LO, 0);
		scenic_eth_wr(eth, SCENIC_ETH_WB_ADDR_HI, 0);
		scenic_eth_rd(eth, SCENIC_ETH_CTRL);	/* flush posted writes */
	}
	eth->running = false;
	scenic_eth_tx_free(eth);	/* unmaps and frees what was in flight */
	scenic_eth_rx_free(eth);
	netdev_reset_queue(netdev);
}

/*
 * Change ring sizes and/or the MTU, restarting the datapath if it runs.
 * On failure the old configuration is restored. (rtnl)
 */
int scenic_eth_reconfigure(struct scenic_eth *eth, u32 rx_size, u32 tx_size,
			   unsigned int mtu)
{
	struct net_device *netdev = eth->netdev;
	u32 old_rx = eth->rx_ring_size, old_tx = eth->tx_ring_size;
	unsigned int old_mtu = netdev->mtu;
	bool was_running = eth->running;
	int err;

	if ((size_t)rx_size * scenic_eth_rx_stride(mtu) >
	    SCENIC_ETH_RX_RING_MAX_BYTES) {
		netdev_err(netdev, "RX ring of %u slots of %u bytes exceeds %u bytes; use fewer RX slots (ethtool -G rx)\n",
			   rx_size, scenic_eth_rx_stride(mtu),
			   SCENIC_ETH_RX_RING_MAX_BYTES);
		return -EINVAL;
	}

	scenic_eth_down(eth, true);
	eth->rx_ring_size = rx_size;
	eth->tx_ring_size = tx_size;
	WRITE_ONCE(netdev->mtu, mtu);
	if (!eth->in_reset && !eth->dead)
		scenic_eth_wr(eth, SCENIC_ETH_MTU, mtu);
	if (!was_running)
		return 0;

	err = scenic_eth_up(eth);
	if (!err)
		return 0;

	netdev_err(netdev, "reconfiguration failed (%d), restoring the previous one\n",
		   err);
	eth->rx_ring_size = old_rx;
	eth->tx_ring_size = old_tx;
	WRITE_ONCE(netdev->mtu, old_mtu);
	if (!eth->in_reset && !eth->dead)
		scenic_eth_wr(eth, SCENIC_ETH_MTU, old_mtu);
	if (scenic_eth_up(eth))
		netdev_err(netdev, "cannot restart the datapath; interface stays down until the next ip link set up\n");
	return err;
}

static int scenic_eth_open(struct net_device *netdev)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	return scenic_eth_up(eth);
}

static int scenic_eth_stop(struct net_device *netdev)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	scenic_eth_down(eth, !eth->in_reset && !eth->dead);
	return 0;
}

static int scenic_eth_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	return scenic_eth_reconfigure(eth, eth->rx_ring_size,
				      eth->tx_ring_size, new_mtu);
}

static void scenic_eth_set_rx_mode(struct net_device *netdev)
{
	struct scenic_eth *eth = netdev_priv(netdev);
	u32 set = 0;

	if ((netdev->flags & IFF_PROMISC) || eth->force_promisc)
		set |= SCENIC_ETH_CTRL_PROMISC_MASK;
	/* no multicast filter on the card: any group needs allmulti */
	if ((netdev->flags & IFF_ALLMULTI) || !netdev_mc_empty(netdev))
		set |= SCENIC_ETH_CTRL_ALLMULTI_MASK;
	scenic_eth_update_ctrl(eth, SCENIC_ETH_CTRL_PROMISC_MASK |
			       SCENIC_ETH_CTRL_ALLMULTI_MASK, set);
}

static void scenic_eth_tx_timeout(struct net_device *netdev,
				  unsigned int txqueue)
{
	struct scenic_eth *eth = netdev_priv(netdev);
	u32 head = ~0U, ctrl = ~0U;

	atomic64_inc(&eth->tx_timeouts);
	if (!eth->in_reset && !eth->dead) {
		head = scenic_eth_rd(eth, SCENIC_ETH_TX_HEAD);
		ctrl = scenic_eth_rd(eth, SCENIC_ETH_CTRL);
	}
	netdev_err(netdev, "TX timeout on queue %u: driver tail %u clean %u, card TX_HEAD %u, writeback tx_head %u, CTRL 0x%08x; resetting the rings\n",
		   txqueue, eth->tx.tail, READ_ONCE(eth->tx.clean), head,
		   le32_to_cpu(READ_ONCE(eth->wb->tx_head)), ctrl);
	schedule_work(&eth->reset_work);
}

static void scenic_eth_reset_work(struct work_struct *work)
{
	struct scenic_eth *eth = container_of(work, struct scenic_eth,
					      reset_work);
	int err;

	rtnl_lock();
	if (eth->running && !eth->in_reset && !eth->dead) {
		scenic_eth_down(eth, true);
		err = scenic_eth_up(eth);
		if (err)
			netdev_err(eth->netdev, "ring reset failed (%d)\n", err);
	}
	rtnl_unlock();
}

static const struct net_device_ops scenic_eth_netdev_ops = {
	.ndo_open		= scenic_eth_open,
	.ndo_stop		= scenic_eth_stop,
	.ndo_start_xmit		= scenic_eth_start_xmit,
	.ndo_features_check	= scenic_eth_features_check,
	.ndo_fix_features	= scenic_eth_fix_features,
	.ndo_set_features	= scenic_eth_set_features,
	.ndo_set_rx_mode	= scenic_eth_set_rx_mode,
	.ndo_change_mtu		= scenic_eth_change_mtu,
	.ndo_get_stats64	= scenic_eth_get_stats64,
	.ndo_tx_timeout		= scenic_eth_tx_timeout,
	.ndo_validate_addr	= eth_validate_addr,
};

static void scenic_eth_read_mac(struct scenic_eth *eth)
{
	struct net_device *netdev = eth->netdev;
	u32 lo = scenic_eth_rd(eth, SCENIC_ETH_MAC_LO);
	u32 hi = scenic_eth_rd(eth, SCENIC_ETH_MAC_HI);
	u8 mac[ETH_ALEN];

	mac[0] = hi >> 8;
	mac[1] = hi;
	mac[2] = lo >> 24;
	mac[3] = lo >> 16;
	mac[4] = lo >> 8;
	mac[5] = lo;
	if (is_valid_ether_addr(mac)) {
		eth_hw_addr_set(netdev, mac);
		return;
	}
	/* the card filters on a station MAC we cannot use: accept all */
	eth_hw_addr_random(netdev);
	eth->force_promisc = true;
	dev_warn(&eth->sadev->adev.dev, "card has no valid MAC (%pM); using random %pM in promiscuous mode\n",
		 mac, netdev->dev_addr);
}

static unsigned int max_minor = 255;
module_param(max_minor, uint, 0444);
MODULE_PARM_DESC(max_minor,
		 "Highest ETH block minor version to use (0: the ETH 1.0 contract, no offloads)");

/* ETH 1.1: the card's offloads and limits (docs/eth-offloads.md 1.3). */
static void scenic_eth_read_features(struct scenic_eth *eth)
{
	u32 segs = scenic_eth_rd(eth, SCENIC_ETH_TX_MAX_TSO_SEGS);

	eth->card_features = scenic_eth_rd(eth, SCENIC_ETH_FEATURES);
	eth->card_max_frags = clamp_t(u32,
				      scenic_eth_rd(eth, SCENIC_ETH_TX_MAX_FRAGS),
				      1, SCENIC_ETH_TX_MAX_ENTRIES);
	/* TSO only if the card takes what the stack may send */
	if (scenic_eth_rd(eth, SCENIC_ETH_TX_MAX_PKT) < GSO_LEGACY_MAX_SIZE ||
	    !segs) {
		eth->card_features &= ~SCENIC_ETH_FEATURES_TSO_MASK;
		return;
	}
	netif_set_tso_max_size(eth->netdev, GSO_LEGACY_MAX_SIZE);
	netif_set_tso_max_segs(eth->netdev, min_t(u32, segs, GSO_MAX_SEGS));
}

static int scenic_eth_probe(struct auxiliary_device *adev,
			    const struct auxiliary_device_id *id)
{
	struct scenic_aux_dev *sadev = to_scenic_aux_dev(adev);
	const struct scenic_block *blk;
	struct net_device *netdev;
	struct scenic_eth *eth;
	u32 max_mtu;
	int irq, err;

	blk = scenic_aux_find_block(sadev, SCENIC_ETH_BLK_TYPE);
	if (!blk || blk->len < SCENIC_ETH_BLK_SIZE) {
		dev_err(&adev->dev, "no usable eth register block\n");
		return -ENODEV;
	}
	irq = scenic_aux_irq_vector(sadev, SCENIC_VEC_ETH);
	if (irq < 0) {
		dev_err(&adev->dev, "no MSI-X vector %d for eth (%u allocated)\n",
			SCENIC_VEC_ETH, sadev->num_vectors);
		return -ENODEV;
	}

	netdev = alloc_etherdev(sizeof(*eth));
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, &sadev->pdev->dev);
	eth = netdev_priv(netdev);
	eth->netdev = netdev;
	eth->sadev = sadev;
	eth->dmadev = &sadev->pdev->dev;
	eth->regs = blk->base;
	eth->irq = irq;
	snprintf(eth->irq_name, sizeof(eth->irq_name), "scenic-eth@%s",
		 pci_name(sadev->pdev));
	eth->rx_ring_size = SCENIC_ETH_RX_RING_DEF;
	eth->tx_ring_size = SCENIC_ETH_TX_RING_DEF;
	eth->irq_coal = SCENIC_ETH_IRQ_COAL_DEF;
	eth->irq_time = SCENIC_ETH_IRQ_TIME_DEF;
	spin_lock_init(&eth->ctrl_lock);
	spin_lock_init(&eth->hw_stats_lock);
	u64_stats_init(&eth->nstats.syncp);
	u64_stats_init(&eth->xstats.syncp);
	INIT_DELAYED_WORK(&eth->service_work, scenic_eth_service);
	INIT_WORK(&eth->reset_work, scenic_eth_reset_work);
	auxiliary_set_drvdata(adev, eth);

	eth->wb = dma_alloc_coherent(eth->dmadev, SCENIC_ETH_WB_BYTES,
				     &eth->wb_dma, GFP_KERNEL);
	if (!eth->wb) {
		err = -ENOMEM;
		goto err_free;
	}

	/* the card starts stopped: reset values, but do not trust them */
	scenic_eth_wr(eth, SCENIC_ETH_IRQ_MASK, 1);
	scenic_eth_wr(eth, SCENIC_ETH_CTRL, 0);
	scenic_eth_read_mac(eth);
	if (eth->force_promisc)
		eth->ctrl |= SCENIC_ETH_CTRL_PROMISC_MASK;

	max_mtu = scenic_eth_rd(eth, SCENIC_ETH_MAX_MTU);
	if (max_mtu < SCENIC_ETH_MIN_MTU || max_mtu > 65535) {
		dev_err(&adev->dev, "card reports MAX_MTU %u; refusing\n",
			max_mtu);
		err = -ENODEV;
		goto err_wb;
	}
	eth->card_max_mtu = max_mtu;
	netdev->min_mtu = SCENIC_ETH_MIN_MTU;
	netdev->max_mtu = max_mtu;
	netdev->mtu = min_t(u32, ETH_DATA_LEN, max_mtu);

	netdev->netdev_ops = &scenic_eth_netdev_ops;
	netdev->ethtool_ops = &scenic_eth_ethtool_ops;
	netdev->watchdog_timeo = 5 * HZ;
	/*
	 * Offloads only from an ETH 1.1 card's FEATURES (a 1.0 card has no
	 * such register): without them, the card computes the Ethernet FCS
	 * and nothing else and every skb is linear, as before.
	 */
	eth->card_max_frags = 1;
	if (SCENIC_BLK_VERSION_MINOR(blk->version) >= 1 && max_minor >= 1)
		scenic_eth_read_features(eth);
	netdev->hw_features = scenic_eth_hw_features(eth);
	netdev->features = netdev->hw_features;
	netdev->vlan_features = netdev->hw_features & ~NETIF_F_RXCSUM;
	netif_napi_add(netdev, &eth->napi, scenic_eth_poll);
	netif_carrier_off(netdev);

	scenic_eth_hw_stats_resync(eth);

	err = register_netdev(netdev);
	if (err) {
		dev_err(&adev->dev, "cannot register the netdev (%d)\n", err);
		goto err_napi;
	}
	schedule_delayed_work(&eth->service_work, 0);
	err = scenic_aux_events_register(sadev, &scenic_eth_event_ops, eth);
	if (err)
		netdev_warn(netdev, "no LINK events (%d): carrier follows the LINK register at start and reset only\n",
			    err);
	scenic_eth_update_link(eth);
	netdev_info(netdev, "SCENIC fallback path: MAC %pM, MTU %u..%u, vector %d (irq %d)\n",
		    netdev->dev_addr, netdev->min_mtu, netdev->max_mtu,
		    SCENIC_VEC_ETH, irq);
	return 0;

err_napi:
	netif_napi_del(&eth->napi);
err_wb:
	dma_free_coherent(eth->dmadev, SCENIC_ETH_WB_BYTES, eth->wb,
			  eth->wb_dma);
err_free:
	free_netdev(netdev);
	return err;
}

static void scenic_eth_remove(struct auxiliary_device *adev)
{
	struct scenic_eth *eth = auxiliary_get_drvdata(adev);
	struct net_device *netdev = eth->netdev;

	scenic_aux_events_unregister(eth->sadev);
	/* ndo_stop takes the datapath down */
	unregister_netdev(netdev);
	cancel_work_sync(&eth->reset_work);
	cancel_delayed_work_sync(&eth->service_work);
	if (!eth->in_reset && !eth->dead) {
		scenic_eth_wr(eth, SCENIC_ETH_IRQ_MASK, 1);
		scenic_eth_wr(eth, SCENIC_ETH_CTRL, 0);
		scenic_eth_rd(eth, SCENIC_ETH_CTRL);
	}
	netif_napi_del(&eth->napi);
	dma_free_coherent(eth->dmadev, SCENIC_ETH_WB_BYTES, eth->wb,
			  eth->wb_dma);
	free_netdev(netdev);
}

/* FLR: the core holds our device lock; registers are reachable still. */
static void scenic_eth_reset_prepare(struct scenic_aux_dev *sadev)
{
	struct scenic_eth *eth = auxiliary_get_drvdata(&sadev->adev);

	cancel_delayed_work_sync(&eth->service_work);
	rtnl_lock();
	netif_device_detach(eth->netdev);
	/* reset_done brings it back up if the interface is still up then */
	scenic_eth_down(eth, !eth->dead);
	scenic_eth_hw_stats_fold(eth);
	spin_lock_irq(&eth->ctrl_lock);
	spin_lock(&eth->hw_stats_lock);
	eth->in_reset = true;
	spin_unlock(&eth->hw_stats_lock);
	spin_unlock_irq(&eth->ctrl_lock);
	netif_carrier_off(eth->netdev);
	rtnl_unlock();
	cancel_work_sync(&eth->reset_work);
}

static void scenic_eth_reset_done(struct scenic_aux_dev *sadev, int status)
{
	struct scenic_eth *eth = auxiliary_get_drvdata(&sadev->adev);
	struct net_device *netdev = eth->netdev;
	int err;

	rtnl_lock();
	spin_lock_irq(&eth->ctrl_lock);
	spin_lock(&eth->hw_stats_lock);
	eth->in_reset = false;
	eth->dead = status != 0;
	spin_unlock(&eth->hw_stats_lock);
	spin_unlock_irq(&eth->ctrl_lock);
	if (eth->dead) {
		netdev_err(netdev, "card did not come back from the reset (%d); interface unusable until the card is bound again\n",
			   status);
		rtnl_unlock();
		return;
	}

	/* registers are at their reset values */
	scenic_eth_hw_stats_resync(eth);
	scenic_eth_wr(eth, SCENIC_ETH_IRQ_MASK, 1);
	scenic_eth_update_ctrl(eth, 0, 0);	/* the filter bits */
	scenic_eth_wr(eth, SCENIC_ETH_MTU, netdev->mtu);
	scenic_eth_write_coalesce(eth);
	/* rings first: attaching wakes the queue of a running interface */
	if (netif_running(netdev)) {
		err = scenic_eth_up(eth);
		if (err) {
			netdev_err(netdev, "cannot restart after the reset (%d)\n",
				   err);
			dev_close(netdev);
		}
	}
	netif_device_attach(netdev);
	/* LINK events from before the reset are gone: read the register */
	scenic_eth_update_link(eth);
	rtnl_unlock();
	schedule_delayed_work(&eth->service_work, 0);
	netdev_info(netdev, "back after a function-level reset\n");
}

static const struct auxiliary_device_id scenic_eth_id_table[] = {
	{ .name = "scenic." SCENIC_AUX_ETH },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, scenic_eth_id_table);

static struct scenic_aux_driver scenic_eth_driver = {
	.adrv = {
		.name = "eth",
		.probe = scenic_eth_probe,
		.remove = scenic_eth_remove,
		.id_table = scenic_eth_id_table,
	},
	.reset_prepare = scenic_eth_reset_prepare,
	.reset_done = scenic_eth_reset_done,
	/*
	 * Card fault: the netdev stays registered; stop the queues, detach and
	 * stop the rings' DMA as before an FLR (bounded waits), and come back
	 * in reset_done once the core has recovered the card.
	 */
	.fatal = scenic_eth_reset_prepare,
};

static int __init scenic_eth_init(void)
{
	return auxiliary_driver_register(&scenic_eth_driver.adrv);
}
module_init(scenic_eth_init);

static void __exit scenic_eth_exit(void)
{
	auxiliary_driver_unregister(&scenic_eth_driver.adrv);
}
module_exit(scenic_eth_exit);

MODULE_DESCRIPTION("SCENIC SmartNIC fallback-path Ethernet driver");
MODULE_AUTHOR("The SCENIC authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(SCENIC_ETH_DRV_VERSION);
