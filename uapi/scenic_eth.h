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

/* One TX command: send @len bytes at bus address @addr. */
struct scenic_tx_cmd {
	__le64 addr;
	__le32 len;
	__le32 flags;		/* reserved, must be 0 */
};

/* Writeback area (64 bytes, 64-byte aligned) the card keeps current. */
struct scenic_eth_wb {
	__le32 rx_tail;
	__le32 tx_head;
	__le32 reserved[14];
};

#define SCENIC_RX_TAG_BYTES	8
#define SCENIC_TX_CMD_BYTES	16
#define SCENIC_ETH_WB_BYTES	64

#endif /* SCENIC_ETH_H */
