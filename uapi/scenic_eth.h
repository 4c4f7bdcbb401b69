/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * SCENIC fallback path: the in-memory formats shared by the card (device
 * model, RTL) and the Ethernet driver. Registers are in scenic_regs.h.
 *
 * RX: one ring of RX_RING_SIZE slots, RX_RING_STRIDE bytes each. For every
 * frame the card writes, in one DMA, a struct scenic_rx_tag followed directly
 * by the frame (paper section 7.1), then advances RX_TAIL and writes it to the
 * writeback area. The driver trusts RX_TAIL (written after the data, so
 * ordered behind it), then checks each tag's VALID flag.
 *
 * TX: a ring of struct scenic_tx_cmd; the driver fills commands and writes
 * TX_TAIL; the card reads each frame by DMA, sends it and advances TX_HEAD,
 * then writes TX_HEAD to the writeback area.
 *
 * All fields are little endian.
 */
#ifndef SCENIC_ETH_H
#define SCENIC_ETH_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
typedef uint16_t __le16;
typedef uint32_t __le32;
typedef uint64_t __le64;
typedef uint8_t __u8;
#endif

/* Metadata tag in front of every received frame. */
struct scenic_rx_tag {
	__le16 len;		/* frame bytes that follow the tag (no FCS) */
	__le16 flags;		/* SCENIC_RX_TAG_* */
	__le32 seq;		/* frames written since the ring was set up */
};

#define SCENIC_RX_TAG_VALID		0x0001
#define SCENIC_RX_TAG_CLASS_SHIFT	1	/* prefilter class, 2 bits */
#define SCENIC_RX_TAG_CLASS_MASK	0x0006
#define SCENIC_RX_CLASS_ROCE		0
#define SCENIC_RX_CLASS_TCP		1
#define SCENIC_RX_CLASS_OTHER		2
/* ETH 1.1, only while OFFLOAD_CTRL.rx_csum = 1: the card's checksum check */
#define SCENIC_RX_TAG_CSUM_SHIFT	3
#define SCENIC_RX_TAG_CSUM_MASK		0x0018
#define SCENIC_RX_CSUM_NONE		0	/* not checked */
#define SCENIC_RX_CSUM_GOOD		1	/* L4 (and IPv4 header) verified */
#define SCENIC_RX_CSUM_BAD_L4		2
#define SCENIC_RX_CSUM_BAD_IP		3

/*
 * One TX entry: @len (1..65535) bytes at bus address @addr. A packet is a run
 * of entries, every one but the last with SCENIC_TX_MORE; ETH 1.1 cards
 * (FEATURES) accept a struct scenic_tx_ctx as a run's first entry. flags 0 is
 * one whole frame, as on ETH 1.0 cards. See docs/eth-offloads.md 1.1.
 */
struct scenic_tx_cmd {
	__le64 addr;
	__le32 len;
	__le32 flags;		/* SCENIC_TX_MORE, SCENIC_TX_CTX; others 0 */
};

#define SCENIC_TX_MORE		0x00000001
#define SCENIC_TX_CTX		0x00000002

/* Context entry: the offload the packet asks for (same 16 bytes). */
struct scenic_tx_ctx {
	__le16 csum_start;	/* L4 header offset: summing starts here */
	__le16 csum_offset;	/* checksum field, from csum_start */
	__le16 mss;		/* TSO: payload bytes per segment */
	__u8 l3_off;		/* IP header offset: 14, or 18 with a VLAN tag */
	__u8 hdr_len;		/* TSO: L2 + L3 + L4 header bytes */
	__le16 ops;		/* SCENIC_TX_OP_* */
	__le16 reserved;	/* 0 */
	__le32 flags;		/* SCENIC_TX_CTX | SCENIC_TX_MORE */
};

#define SCENIC_TX_OP_CSUM	0x0001	/* insert one L4 checksum */
#define SCENIC_TX_OP_TSO	0x0002	/* TCP segmentation */
#define SCENIC_TX_OP_USO	0x0004	/* UDP segmentation (not implemented) */
#define SCENIC_TX_OP_IPV6	0x0008	/* the L3 header is IPv6 */

/* Writeback area (64 bytes, 64-byte aligned) the card keeps current. */
struct scenic_eth_wb {
	__le32 rx_tail;
	__le32 tx_head;
	__le32 reserved[14];
};

#define SCENIC_RX_TAG_BYTES	8
#define SCENIC_TX_CMD_BYTES	16
#define SCENIC_ETH_WB_BYTES	64
#define SCENIC_TX_CTX_BYTES	16

#endif /* SCENIC_ETH_H */
