// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_eth.ko offload features (docs/eth-offloads.md
 * 1.6, 2.3). What the card's FEATURES register offers becomes hw_features;
 * ndo_fix_features keeps the dependencies (TSO needs SG and HW_CSUM),
 * ndo_features_check leaves to software what the card does not segment, and
 * the RX checksum follows NETIF_F_RXCSUM through OFFLOAD_CTRL.
 */

#include <linux/if_vlan.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <net/tcp.h>

#include "scenic_eth_drv.h"

/* Longest header run the context entry's hdr_len can name. */
#define SCENIC_ETH_TSO_MAX_HDR	255

netdev_features_t scenic_eth_hw_features(const struct scenic_eth *eth)
{
	u32 f = eth->card_features;
	netdev_features_t hw = 0;

	if (f & SCENIC_ETH_FEATURES_TX_CSUM_MASK)
		hw |= NETIF_F_HW_CSUM;
	if ((f & SCENIC_ETH_FEATURES_TX_SG_MASK) && eth->card_max_frags > 1)
		hw |= NETIF_F_SG;
	if ((f & SCENIC_ETH_FEATURES_TSO_MASK) && (hw & NETIF_F_SG) &&
	    (hw & NETIF_F_HW_CSUM))
		hw |= NETIF_F_TSO | NETIF_F_TSO6;
	if (f & SCENIC_ETH_FEATURES_RX_CSUM_MASK)
		hw |= NETIF_F_RXCSUM;
	return hw;
}

void scenic_eth_write_offload_ctrl(struct scenic_eth *eth,
				   netdev_features_t features)
{
	if (!eth->card_features || eth->in_reset || eth->dead)
		return;
	scenic_eth_wr(eth, SCENIC_ETH_OFFLOAD_CTRL,
		      (features & NETIF_F_RXCSUM) ?
		      SCENIC_ETH_OFFLOAD_CTRL_RX_CSUM_MASK : 0);
}

netdev_features_t scenic_eth_features_check(struct sk_buff *skb,
					    struct net_device *netdev,
					    netdev_features_t features)
{
	__be16 proto;
	int off;

	features = vlan_features_check(skb, features);
	if (skb->encapsulation)
		return features & ~(NETIF_F_CSUM_MASK | NETIF_F_GSO_MASK);
	if (!skb_is_gso(skb))
		return features;
	/* the card finds the IP header behind no or one 802.1Q tag */
	off = skb_network_offset(skb);
	proto = ((const struct ethhdr *)skb->data)->h_proto;
	if (off != ETH_HLEN &&
	    (off != VLAN_ETH_HLEN || proto != htons(ETH_P_8021Q)))
		return features & ~NETIF_F_GSO_MASK;
	/* the card segments TCP right behind an IPv4 or IPv6 header only */
	if ((skb_shinfo(skb)->gso_type & SKB_GSO_TCPV6) &&
	    ipv6_hdr(skb)->nexthdr != IPPROTO_TCP)
		return features & ~NETIF_F_GSO_MASK;
	if (skb_tcp_all_headers(skb) > SCENIC_ETH_TSO_MAX_HDR)
		return features & ~NETIF_F_GSO_MASK;
	return features;
}

netdev_features_t scenic_eth_fix_features(struct net_device *netdev,
					  netdev_features_t features)
{
	/* the card checksums every segment it makes; entries need SG */
	if (!(features & NETIF_F_HW_CSUM))
		features &= ~NETIF_F_SG;
	if (!(features & NETIF_F_SG))
		features &= ~(NETIF_F_TSO | NETIF_F_TSO6);
	return features;
}

int scenic_eth_set_features(struct net_device *netdev,
			    netdev_features_t features)
{
	struct scenic_eth *eth = netdev_priv(netdev);

	/* takes effect at once; the RX path also checks NETIF_F_RXCSUM */
	if ((netdev->features ^ features) & NETIF_F_RXCSUM)
		scenic_eth_write_offload_ctrl(eth, features);
	return 0;
}
