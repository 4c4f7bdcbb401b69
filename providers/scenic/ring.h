/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The data path's ring logic: building SQ/RQ WQEs (uapi/scenic_rdma.h), CQE
 * validity by phase, and turning the card's send-completion counter and CQEs
 * into ibv_wc. It depends on the public <infiniband/verbs.h> and the card's
 * formats only, not on rdma-core internals, so that providers/test.sh runs it
 * on a host without a device. No locking here: the callers hold the queue's
 * lock.
 */
#ifndef __SCENIC_RING_H__
#define __SCENIC_RING_H__

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "scenic_io_defs.h"

/* What poll_cq needs to remember of a posted SQ WQE. */
struct scenic_swqe {
	uint64_t wr_id;
	uint32_t byte_len;	/* reported in the WC: READ length, 8 for atomics */
	uint8_t wc_opcode;	/* enum ibv_wc_opcode */
	uint8_t signaled;	/* report success (errors are always reported) */
};

/* A user AH: its entry in the card's AH table (kernel create_ah). */
struct scenic_ah {
	struct ibv_ah ibv_ah;
	uint32_t index;
};

struct scenic_sq {
	uint8_t *buf;		/* wqe_cnt slots of SCENIC_SQ_WQE_BYTES */
	struct scenic_swqe *swqe;	/* wqe_cnt entries */
	uint32_t wqe_cnt;	/* power of two */
	uint32_t pi;		/* next slot to fill, free-running */
	uint32_t ci;		/* oldest WQE not yet retired, free-running */
	uint32_t max_sge;
	uint32_t max_inline;
	bool sig_all;		/* sq_sig_all: every WQE is signaled */
	bool ud;		/* a UD QP's: SEND / SEND_IMM to wr.ud's address */
};

struct scenic_rq {
	uint8_t *buf;		/* wqe_cnt slots of SCENIC_RQ_WQE_BYTES << stride */
	uint64_t *wr_id;	/* wqe_cnt entries */
	uint32_t wqe_cnt;	/* power of two */
	uint32_t stride;	/* 0..SCENIC_RQ_MAX_STRIDE */
	uint32_t pi;
	uint32_t ci;
	uint32_t max_sge;
};

/* The smallest RQ stride whose slots hold @max_sge SGEs; -1 if none does. */
static inline int scenic_rq_stride_for(uint32_t max_sge)
{
	int n;

	for (n = 0; n <= SCENIC_RQ_MAX_STRIDE; n++)
		if (max_sge <= SCENIC_RQ_STRIDE_SGES(n))
			return n;
	return -1;
}

struct scenic_cq_ring {
	const struct scenic_cqe *cqe;	/* 1 << log2_cnt entries */
	uint32_t log2_cnt;
	uint32_t ci;		/* next CQE to read, free-running */
};

static inline uint32_t scenic_sq_free(const struct scenic_sq *sq)
{
	return sq->wqe_cnt - (sq->pi - sq->ci);
}

static inline struct scenic_sq_wqe *scenic_sq_slot(struct scenic_sq *sq,
						   uint32_t idx)
{
	return (struct scenic_sq_wqe *)(sq->buf +
		(size_t)(idx & (sq->wqe_cnt - 1)) * SCENIC_SQ_WQE_BYTES);
}

/*
 * Starts the WQE at sq->pi: clears its header, sets opcode and flags from
 * IBV_SEND_* and records wr_id. Returns NULL when the ring is full. The WQE
 * only becomes visible to the card with scenic_sq_commit() and a doorbell.
 */
struct scenic_sq_wqe *scenic_sq_start(struct scenic_sq *sq,
				      enum scenic_wqe_opcode op,
				      uint64_t wr_id, unsigned int send_flags);
void scenic_wqe_set_ud(struct scenic_sq_wqe *wqe, struct ibv_ah *ah,
		       uint32_t remote_qpn, uint32_t remote_qkey);
void scenic_wqe_set_rdma(struct scenic_sq_wqe *wqe, uint32_t rkey,
			 uint64_t remote_addr);
void scenic_wqe_set_atomic(struct scenic_sq_wqe *wqe, uint32_t rkey,
			   uint64_t remote_addr, uint64_t compare_add,
			   uint64_t swap);
void scenic_wqe_set_imm(struct scenic_sq_wqe *wqe, __be32 imm_data);
void scenic_wqe_set_inv(struct scenic_sq_wqe *wqe, uint32_t rkey);
int scenic_wqe_set_bind(struct scenic_sq_wqe *wqe, struct ibv_mw *mw,
			uint32_t rkey, const struct ibv_mw_bind_info *info);
/* Gather list; EINVAL above max_sge, on a total above 2^31, or for atomics not one 8-byte SGE. */
int scenic_wqe_set_sges(struct scenic_sq_wqe *wqe, const struct ibv_sge *sg,
			size_t num_sge, uint32_t max_sge);
/* Inline payload; EINVAL above max_inline or for READ/atomics. */
int scenic_wqe_set_inline(struct scenic_sq_wqe *wqe,
			  const struct ibv_data_buf *buf, size_t num_buf,
			  uint32_t max_inline);
/* Makes the started WQE part of the ring (advances pi). */
void scenic_sq_commit(struct scenic_sq *sq);

/* Builds one ibv_post_send() WR at sq->pi and commits it; 0, ENOMEM (full) or EINVAL. */
int scenic_sq_post_wr(struct scenic_sq *sq, const struct ibv_send_wr *wr);

/* Builds one ibv_post_recv() WR at rq->pi; 0, ENOMEM (full) or EINVAL. */
int scenic_rq_post_wr(struct scenic_rq *rq, const struct ibv_recv_wr *wr);

/*
 * Retires SQ WQEs [sq->ci, upto) as successful, writing a WC for each
 * signaled one, at most nwc. Returns the number of WCs written; sq->ci says
 * how far it got. An upto outside (ci, pi] (a counter behind ci after an
 * error, or garbage) retires nothing.
 */
int scenic_sq_retire(struct scenic_sq *sq, uint32_t upto, uint32_t qp_num,
		     struct ibv_wc *wc, int nwc);

/* True if idx names a WQE that is posted and not yet retired. */
bool scenic_sq_idx_pending(const struct scenic_sq *sq, uint32_t idx);
bool scenic_rq_idx_pending(const struct scenic_rq *rq, uint32_t idx);

/* The CQE at r->ci if the card has written it in this pass, else NULL. */
const struct scenic_cqe *scenic_cq_peek(const struct scenic_cq_ring *r);

/* WC of an SQ CQE (error or flush) for the WQE described by swqe. */
void scenic_cqe_to_send_wc(const struct scenic_cqe *cqe,
			   const struct scenic_swqe *swqe, struct ibv_wc *wc);
/* WC of an RQ CQE. */
void scenic_cqe_to_recv_wc(const struct scenic_cqe *cqe, uint64_t wr_id,
			   struct ibv_wc *wc);

/* Smallest power of two >= n (n >= 1), 0 if it does not fit 32 bits. */
uint32_t scenic_roundup_pow2(uint32_t n);

#endif /* __SCENIC_RING_H__ */
