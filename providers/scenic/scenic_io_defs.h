/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Formats the card reads and writes in the memory the provider maps (the
 * counterpart of efa_io_defs.h). Little-endian; the kernel never touches them.
 *
 * Completion model (paper section 7.2): the card does not write a CQE for a
 * successful send-queue WQE. It increments the QP's sq_done counter in the
 * counter writeback page instead, and the provider turns counter progress
 * into IBV_WC_SUCCESS completions for the signaled WQEs it remembers. Receive
 * completions, and any completion in error (send or receive), are CQEs in the
 * CQ ring of the QP's CQ. Doorbells are 32-bit writes of a producer index.
 */
#ifndef __SCENIC_IO_DEFS_H__
#define __SCENIC_IO_DEFS_H__

#include <linux/types.h>

/* Per-QP counters, cnt_size bytes apart (a cache line) in the writeback page. */
struct scenic_io_qp_counters {
	__le64 sq_done;		/* SQ WQEs completed, success or error */
	__le64 rq_done;		/* RQ WQEs consumed */
	__le64 sq_err;		/* SQ WQEs completed in error (a CQE each) */
	__le64 reserved_c0[5];
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
