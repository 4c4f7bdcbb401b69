/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Formats the card reads and writes in the memory the provider maps (the
 * counterpart of efa_io_defs.h). Little-endian; the kernel never touches them.
 *
 * Completion model (paper section 7.2): the card does not write a CQE for a
 * successful send-queue WQE. It increments the QP's counter in the counter
 * writeback page instead, and the provider turns counter progress into
 * IBV_WC_SUCCESS completions for the signaled WQEs it remembers. Receive
 * completions, and completions in error (send or receive; the QP then goes to
 * the error state and flushes the rest as CQEs), are CQEs in the CQ ring of
 * the QP's CQ. Doorbells are 32-bit writes of a producer index.
 */
#ifndef __SCENIC_IO_DEFS_H__
#define __SCENIC_IO_DEFS_H__

#include <linux/types.h>

/*
 * A QP's completion counter, as hw-rtl/rtl/scenic_cq_counter.sv writes it:
 * 64 bits, written whole (never torn), monotonic, wrapping; the number of
 * send-queue WQEs the card completed successfully. It sits at cnt_off in the
 * counter page, cnt_size bytes from the next QP's (8 with the RTL as of 1.0,
 * whose array is base + qpn * 8).
 */
struct scenic_io_qp_counter {
	__le64 sq_done;
};

enum scenic_io_cqe_opcode {
	SCENIC_IO_CQE_SEND = 0,		/* error completion of a send-queue WQE */
	SCENIC_IO_CQE_RECV = 1,
	SCENIC_IO_CQE_RECV_RDMA_WITH_IMM = 2,
};

enum {
	SCENIC_IO_CQE_FLAG_PHASE = 1 << 0,	/* flips each lap of the ring */
	SCENIC_IO_CQE_FLAG_IMM = 1 << 1,	/* imm_data valid */
};

/* One CQ ring entry, SCENIC_CQE_SIZE (32) bytes. */
struct scenic_io_cqe {
	__le32 qp_num;
	__le16 wqe_idx;		/* ring index of the WQE it completes */
	__u8 opcode;		/* enum scenic_io_cqe_opcode */
	__u8 status;		/* enum ibv_wc_status */
	__le32 byte_len;
	__be32 imm_data;
	__le16 flags;		/* SCENIC_IO_CQE_FLAG_* */
	__u8 vendor_err;
	__u8 reserved_98;
	__le32 reserved_a0[3];
};

/* Doorbell writes: the new producer index (SQ or RQ), or for a CQ arm doorbell
 * the consumer index with bit 31 set for "solicited only". */
#define SCENIC_IO_CQ_ARM_SOLICITED (1u << 31)

#endif /* __SCENIC_IO_DEFS_H__ */
