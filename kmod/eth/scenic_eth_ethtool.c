// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_eth.ko ethtool operations: driver info,
 * statistics, interrupt moderation (IRQ_COAL / IRQ_TIME), ring sizes, link.
 */

#include <linux/ethtool.h>
#include <linux/log2.h>
#include <linux/netdevice.h>

#include "scenic_eth_drv.h"

static void scenic_eth_get_drvinfo(struct net_device *netdev,
				   struct ethtool_drvinfo *info)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	strscpy(info->driver, SCENIC_ETH_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, SCENIC_ETH_DRV_VERSION, sizeof(info->version));
	snprintf(info->fw_version, sizeof(info->fw_version), "%08x",
		 eth->sadev->build_id);
	strscpy(info->bus_info, pci_name(eth->sadev->pdev),
		sizeof(info->bus_info));
}

static int scenic_eth_get_sset_count(struct net_device *netdev, int sset)
{
	if (sset == ETH_SS_STATS)
		return scenic_eth_stats_count();
	return -EOPNOTSUPP;
}

static void scenic_eth_get_strings(struct net_device *netdev, u32 sset,
				   u8 *data)
{
	if (sset == ETH_SS_STATS)
		scenic_eth_stats_strings(data);
}

static void scenic_eth_get_ethtool_stats(struct net_device *netdev,
					 struct ethtool_stats *stats,
					 u64 *data)
{
	scenic_eth_stats_fill(netdev_priv(netdev), data);
}

static int scenic_eth_get_coalesce(struct net_device *netdev,
				   struct ethtool_coalesce *ec,
				   struct kernel_ethtool_coalesce *kec,
				   struct netlink_ext_ack *extack)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	ec->rx_coalesce_usecs = eth->irq_time;
	ec->rx_max_coalesced_frames = eth->irq_coal;
	return 0;
}

static int scenic_eth_set_coalesce(struct net_device *netdev,
				   struct ethtool_coalesce *ec,
				   struct kernel_ethtool_coalesce *kec,
				   struct netlink_ext_ack *extack)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	if (ec->rx_coalesce_usecs > SCENIC_ETH_IRQ_TIME_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "rx-usecs is at most 65535");
		return -EINVAL;
	}
	if (ec->rx_max_coalesced_frames > SCENIC_ETH_IRQ_COAL_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "rx-frames is at most 65535");
		return -EINVAL;
	}
	eth->irq_time = ec->rx_coalesce_usecs;
	eth->irq_coal = ec->rx_max_coalesced_frames;
	scenic_eth_write_coalesce(eth);
	return 0;
}

static void scenic_eth_get_ringparam(struct net_device *netdev,
				     struct ethtool_ringparam *ring,
				     struct kernel_ethtool_ringparam *kring,
				     struct netlink_ext_ack *extack)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	ring->rx_max_pending = min_t(u32, SCENIC_ETH_RING_MAX,
				     rounddown_pow_of_two(SCENIC_ETH_RX_RING_MAX_BYTES /
							  scenic_eth_rx_stride(netdev->mtu)));
	ring->tx_max_pending = SCENIC_ETH_RING_MAX;
	ring->rx_pending = eth->rx_ring_size;
	ring->tx_pending = eth->tx_ring_size;
}

static int scenic_eth_set_ringparam(struct net_device *netdev,
				    struct ethtool_ringparam *ring,
				    struct kernel_ethtool_ringparam *kring,
				    struct netlink_ext_ack *extack)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "no mini or jumbo rings");
		return -EINVAL;
	}
	if (ring->rx_pending < SCENIC_ETH_RING_MIN ||
	    ring->tx_pending < SCENIC_ETH_RING_MIN ||
	    !is_power_of_2(ring->rx_pending) ||
	    !is_power_of_2(ring->tx_pending)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "ring sizes are powers of two, at least 8");
		return -EINVAL;
	}
	if (ring->rx_pending == eth->rx_ring_size &&
	    ring->tx_pending == eth->tx_ring_size)
		return 0;
	if ((size_t)ring->rx_pending * scenic_eth_rx_stride(netdev->mtu) >
	    SCENIC_ETH_RX_RING_MAX_BYTES) {
		NL_SET_ERR_MSG_MOD(extack,
				   "RX ring slots x stride exceed 4 MiB at this MTU");
		return -EINVAL;
	}
	return scenic_eth_reconfigure(eth, ring->rx_pending, ring->tx_pending,
				      netdev->mtu);
}

static int scenic_eth_get_link_ksettings(struct net_device *netdev,
					 struct ethtool_link_ksettings *ks)
{
	struct scenic_eth *eth = netdev_priv(netdev);
	u32 link = 0;

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.port = PORT_FIBRE;
	ks->base.autoneg = AUTONEG_DISABLE;
	if (!eth->in_reset && !eth->dead)
		link = scenic_eth_rd(eth, SCENIC_ETH_LINK);
	if (link != ~0U && (link & SCENIC_ETH_LINK_UP_MASK) &&
	    netif_running(netdev)) {
		ks->base.speed = ((link & SCENIC_ETH_LINK_SPEED_GBPS_MASK) >>
				  SCENIC_ETH_LINK_SPEED_GBPS_SHIFT) * 1000;
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

const struct ethtool_ops scenic_eth_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS |
				     ETHTOOL_COALESCE_RX_MAX_FRAMES,
	.get_drvinfo		= scenic_eth_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= scenic_eth_get_link_ksettings,
	.get_sset_count		= scenic_eth_get_sset_count,
	.get_strings		= scenic_eth_get_strings,
	.get_ethtool_stats	= scenic_eth_get_ethtool_stats,
	.get_coalesce		= scenic_eth_get_coalesce,
	.set_coalesce		= scenic_eth_set_coalesce,
	.get_ringparam		= scenic_eth_get_ringparam,
	.set_ringparam		= scenic_eth_set_ringparam,
};
