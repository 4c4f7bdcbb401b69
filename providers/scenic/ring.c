// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SQ/RQ WQE building and completion bookkeeping (see ring.h).
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "mmio.h"
#include "ring.h"
#include "scenic_codes.h"

/* InfiniBand's largest message. */
#define SCENIC_MAX_MSG_SIZE (1u << 31)

static enum ibv_wc_opcode wqe_op_to_wc(enum scenic_wqe_opcode op)
{
	switch (op) {
	case SCENIC_WQE_OP_SEND:
	case SCENIC_WQE_OP_SEND_IMM:
	case SCENIC_WQE_OP_SEND_INV:
		return IBV_WC_SEND;
	case SCENIC_WQE_OP_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	case SCENIC_WQE_OP_BIND_MW:
		return IBV_WC_BIND_MW;
	case SCENIC_WQE_OP_WRITE:
	case SCENIC_WQE_OP_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case SCENIC_WQE_OP_READ:
		return IBV_WC_RDMA_READ;
	case SCENIC_WQE_OP_ATOMIC_CAS:
		return IBV_WC_COMP_SWAP;
	case SCENIC_WQE_OP_ATOMIC_FAA:
		return IBV_WC_FETCH_ADD;
	}
	return IBV_WC_SEND;
}

static bool wqe_is_atomic(const struct scenic_sq_wqe *wqe)
{
	return wqe->opcode == SCENIC_WQE_OP_ATOMIC_CAS ||
	       wqe->opcode == SCENIC_WQE_OP_ATOMIC_FAA;
}

struct scenic_sq_wqe *scenic_sq_start(struct scenic_sq *sq,
				      enum scenic_wqe_opcode op,
				      uint64_t wr_id, unsigned int send_flags)
{
	struct scenic_sq_wqe *wqe;
	struct scenic_swqe *swqe;

	if (!scenic_sq_free(sq))
		return NULL;

	wqe = scenic_sq_slot(sq, sq->pi);
	/* the 64-byte header; SGEs/inline data are written by their setters */
	memset(wqe, 0, offsetof(struct scenic_sq_wqe, sge));
	wqe->opcode = op;
	if (send_flags & IBV_SEND_FENCE)
		wqe->flags |= SCENIC_WQE_F_FENCE;
	if (send_flags & IBV_SEND_SOLICITED)
		wqe->flags |= SCENIC_WQE_F_SOLICITED;
	if ((send_flags & IBV_SEND_SIGNALED) || sq->sig_all)
		wqe->flags |= SCENIC_WQE_F_SIGNALED;

	swqe = &sq->swqe[sq->pi & (sq->wqe_cnt - 1)];
	swqe->wr_id = wr_id;
	swqe->wc_opcode = wqe_op_to_wc(op);
	swqe->signaled = !!(wqe->flags & SCENIC_WQE_F_SIGNALED);
	swqe->byte_len = 0;
	return wqe;
}

void scenic_wqe_set_ud(struct scenic_sq_wqe *wqe, struct ibv_ah *ah,
		       uint32_t remote_qpn, uint32_t remote_qkey)
{
	const struct scenic_ah *sah = (const struct scenic_ah *)
		((const char *)ah - offsetof(struct scenic_ah, ibv_ah));

	wqe->dest_qpn = htole32(remote_qpn & 0xffffff);
	wqe->ud.qkey = htole32(remote_qkey);
	wqe->ud.ah = htole32(sah->index);
}

void scenic_wqe_set_rdma(struct scenic_sq_wqe *wqe, uint32_t rkey,
			 uint64_t remote_addr)
{
	wqe->rkey = htole32(rkey);
	wqe->remote_addr = htole64(remote_addr);
}

void scenic_wqe_set_atomic(struct scenic_sq_wqe *wqe, uint32_t rkey,
			   uint64_t remote_addr, uint64_t compare_add,
			   uint64_t swap)
{
	scenic_wqe_set_rdma(wqe, rkey, remote_addr);
	wqe->compare_add = htole64(compare_add);
	wqe->swap = htole64(swap);
}

void scenic_wqe_set_imm(struct scenic_sq_wqe *wqe, __be32 imm_data)
{
	wqe->imm_data_be = imm_data;	/* already in wire order */
}

/* SEND_INV and LOCAL_INV: the rkey to invalidate */
void scenic_wqe_set_inv(struct scenic_sq_wqe *wqe, uint32_t rkey)
{
	wqe->rkey = htole32(rkey);
}

int scenic_wqe_set_bind(struct scenic_sq_wqe *wqe, struct ibv_mw *mw,
			uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct scenic_bind_mw_wqe *b = (struct scenic_bind_mw_wqe *)wqe;
	unsigned int access = info->mw_access_flags;
	uint8_t a = 0;

	/* a window grants remote rights only: LOCAL_WRITE means nothing there (as rxe) */
	if (!mw || (info->length && !info->mr) ||
	    (access & ~(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_ZERO_BASED |
			IBV_ACCESS_LOCAL_WRITE)))
		return EINVAL;
	if (access & IBV_ACCESS_ZERO_BASED)
		return EOPNOTSUPP;	/* windows are addressed by the MR's iova */
	if (access & IBV_ACCESS_REMOTE_WRITE)
		a |= SCENIC_ACCESS_REMOTE_WRITE;
	if (access & IBV_ACCESS_REMOTE_READ)
		a |= SCENIC_ACCESS_REMOTE_READ;
	if (access & IBV_ACCESS_REMOTE_ATOMIC)
		a |= SCENIC_ACCESS_REMOTE_ATOMIC;
	b->new_rkey = htole32(rkey);
	b->va = htole64(info->addr);
	b->length = htole64(info->length);
	b->mr_lkey = htole32(info->mr ? info->mr->lkey : 0);
	b->access = a;
	b->mw_type = mw->type == IBV_MW_TYPE_1 ? 1 : 2;
	return 0;
}

int scenic_wqe_set_sges(struct scenic_sq_wqe *wqe, const struct ibv_sge *sg,
			size_t num_sge, uint32_t max_sge)
{
	uint64_t total = 0;
	size_t i;

	if (num_sge > max_sge || num_sge > SCENIC_SQ_MAX_SGE ||
	    (num_sge && !sg))
		return EINVAL;
	/* an atomic's local buffer: one 8-byte SGE for the original value */
	if (wqe_is_atomic(wqe) && (num_sge != 1 || sg[0].length != 8))
		return EINVAL;

	for (i = 0; i < num_sge; i++) {
		wqe->sge[i].addr = htole64(sg[i].addr);
		wqe->sge[i].length = htole32(sg[i].length);
		wqe->sge[i].lkey = htole32(sg[i].lkey);
		total += sg[i].length;
	}
	if (total > SCENIC_MAX_MSG_SIZE)
		return EINVAL;
	wqe->num_sge = htole16(num_sge);
	wqe->length = htole32(total);
	wqe->flags &= ~SCENIC_WQE_F_INLINE;
	return 0;
}

int scenic_wqe_set_inline(struct scenic_sq_wqe *wqe,
			  const struct ibv_data_buf *buf, size_t num_buf,
			  uint32_t max_inline)
{
	size_t total = 0, i;

	if (wqe->opcode == SCENIC_WQE_OP_READ || wqe_is_atomic(wqe))
		return EINVAL;
	if (num_buf && !buf)
		return EINVAL;
	if (max_inline > SCENIC_MAX_INLINE)
		max_inline = SCENIC_MAX_INLINE;

	for (i = 0; i < num_buf; i++) {
		if (buf[i].length > max_inline - total)
			return EINVAL;
		if (buf[i].length)
			memcpy(wqe->inline_data + total, buf[i].addr,
			       buf[i].length);
		total += buf[i].length;
	}
	wqe->num_sge = 0;
	wqe->length = htole32(total);
	wqe->flags |= SCENIC_WQE_F_INLINE;
	return 0;
}

void scenic_sq_commit(struct scenic_sq *sq)
{
	struct scenic_sq_wqe *wqe = scenic_sq_slot(sq, sq->pi);
	struct scenic_swqe *swqe = &sq->swqe[sq->pi & (sq->wqe_cnt - 1)];

	swqe->byte_len = wqe_is_atomic(wqe) ? 8 : le32toh(wqe->length);
	sq->pi++;
}

static int wr_opcode_to_wqe(enum ibv_wr_opcode op, enum scenic_wqe_opcode *out)
{
	switch (op) {
	case IBV_WR_SEND:
		*out = SCENIC_WQE_OP_SEND;
		return 0;
	case IBV_WR_SEND_WITH_IMM:
		*out = SCENIC_WQE_OP_SEND_IMM;
		return 0;
	case IBV_WR_RDMA_WRITE:
		*out = SCENIC_WQE_OP_WRITE;
		return 0;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		*out = SCENIC_WQE_OP_WRITE_IMM;
		return 0;
	case IBV_WR_RDMA_READ:
		*out = SCENIC_WQE_OP_READ;
		return 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		*out = SCENIC_WQE_OP_ATOMIC_CAS;
		return 0;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		*out = SCENIC_WQE_OP_ATOMIC_FAA;
		return 0;
	case IBV_WR_SEND_WITH_INV:
		*out = SCENIC_WQE_OP_SEND_INV;
		return 0;
	case IBV_WR_LOCAL_INV:
		*out = SCENIC_WQE_OP_LOCAL_INV;
		return 0;
	case IBV_WR_BIND_MW:
		*out = SCENIC_WQE_OP_BIND_MW;
		return 0;
	default:
		return EINVAL;
	}
}

int scenic_sq_post_wr(struct scenic_sq *sq, const struct ibv_send_wr *wr)
{
	struct ibv_data_buf bufs[SCENIC_SQ_MAX_SGE];
	enum scenic_wqe_opcode op;
	struct scenic_sq_wqe *wqe;
	int i, err;

	if (wr->num_sge < 0 || wr_opcode_to_wqe(wr->opcode, &op))
		return EINVAL;
	if (sq->ud && ((op != SCENIC_WQE_OP_SEND && op != SCENIC_WQE_OP_SEND_IMM) ||
		       !wr->wr.ud.ah))
		return EINVAL;	/* a datagram is a SEND to an address handle */
	wqe = scenic_sq_start(sq, op, wr->wr_id, wr->send_flags);
	if (!wqe)
		return ENOMEM;
	if (sq->ud)
		scenic_wqe_set_ud(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				  wr->wr.ud.remote_qkey);

	switch (op) {
	case SCENIC_WQE_OP_SEND_IMM:
		scenic_wqe_set_imm(wqe, wr->imm_data);
		break;
	case SCENIC_WQE_OP_WRITE_IMM:
		scenic_wqe_set_imm(wqe, wr->imm_data);
		/* fall through */
	case SCENIC_WQE_OP_WRITE:
	case SCENIC_WQE_OP_READ:
		scenic_wqe_set_rdma(wqe, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case SCENIC_WQE_OP_ATOMIC_CAS:
	case SCENIC_WQE_OP_ATOMIC_FAA:
		scenic_wqe_set_atomic(wqe, wr->wr.atomic.rkey,
				      wr->wr.atomic.remote_addr,
				      wr->wr.atomic.compare_add,
				      wr->wr.atomic.swap);
		break;
	case SCENIC_WQE_OP_SEND_INV:
		scenic_wqe_set_inv(wqe, wr->invalidate_rkey);
		break;
	case SCENIC_WQE_OP_LOCAL_INV:
		scenic_wqe_set_inv(wqe, wr->invalidate_rkey);
		scenic_sq_commit(sq);	/* no data */
		return 0;
	case SCENIC_WQE_OP_BIND_MW:
		err = scenic_wqe_set_bind(wqe, wr->bind_mw.mw, wr->bind_mw.rkey,
					  &wr->bind_mw.bind_info);
		if (err)
			return err;
		scenic_sq_commit(sq);
		return 0;
	default:
		break;
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		if (wr->num_sge > SCENIC_SQ_MAX_SGE)
			return EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			bufs[i].addr = (void *)(uintptr_t)wr->sg_list[i].addr;
			bufs[i].length = wr->sg_list[i].length;
		}
		err = scenic_wqe_set_inline(wqe, bufs, wr->num_sge,
					    sq->max_inline);
	} else {
		err = scenic_wqe_set_sges(wqe, wr->sg_list, wr->num_sge,
					  sq->max_sge);
	}
	if (err)
		return err;
	scenic_sq_commit(sq);
	return 0;
}

int scenic_rq_post_wr(struct scenic_rq *rq, const struct ibv_recv_wr *wr)
{
	struct scenic_rq_wqe *wqe;
	uint64_t total = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge ||
	    (uint32_t)wr->num_sge > SCENIC_RQ_STRIDE_SGES(rq->stride) ||
	    (wr->num_sge && !wr->sg_list))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > SCENIC_MAX_MSG_SIZE)
		return EINVAL;
	if (rq->pi - rq->ci >= rq->wqe_cnt)
		return ENOMEM;

	wqe = (struct scenic_rq_wqe *)(rq->buf +
		((size_t)(rq->pi & (rq->wqe_cnt - 1)) * SCENIC_RQ_WQE_BYTES << rq->stride));
	/* the header and the SGEs the card reads; the rest of the slot is never read */
	memset(wqe, 0, SCENIC_RQ_WQE_HDR_BYTES);
	wqe->num_sge = htole16(wr->num_sge);
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = htole64(wr->sg_list[i].addr);
		wqe->sge[i].length = htole32(wr->sg_list[i].length);
		wqe->sge[i].lkey = htole32(wr->sg_list[i].lkey);
	}
	rq->wr_id[rq->pi & (rq->wqe_cnt - 1)] = wr->wr_id;
	rq->pi++;
	return 0;
}

bool scenic_sq_idx_pending(const struct scenic_sq *sq, uint32_t idx)
{
	return idx - sq->ci < sq->pi - sq->ci;
}

bool scenic_rq_idx_pending(const struct scenic_rq *rq, uint32_t idx)
{
	return idx - rq->ci < rq->pi - rq->ci;
}

int scenic_sq_retire(struct scenic_sq *sq, uint32_t upto, uint32_t qp_num,
		     struct ibv_wc *wc, int nwc)
{
	int n = 0;

	/* upto - ci in (0, pi - ci]: anything else retires nothing */
	if (upto - sq->ci > sq->pi - sq->ci)
		return 0;

	while (sq->ci != upto && n < nwc) {
		const struct scenic_swqe *swqe =
			&sq->swqe[sq->ci & (sq->wqe_cnt - 1)];

		if (swqe->signaled) {
			memset(&wc[n], 0, sizeof(wc[n]));
			wc[n].wr_id = swqe->wr_id;
			wc[n].status = IBV_WC_SUCCESS;
			wc[n].opcode = swqe->wc_opcode;
			wc[n].byte_len = swqe->byte_len;
			wc[n].qp_num = qp_num;
			n++;
		}
		sq->ci++;
	}
	/* trailing unsignaled WQEs need no WC slot */
	while (sq->ci != upto && !sq->swqe[sq->ci & (sq->wqe_cnt - 1)].signaled)
		sq->ci++;
	return n;
}

const struct scenic_cqe *scenic_cq_peek(const struct scenic_cq_ring *r)
{
	const struct scenic_cqe *cqe =
		&r->cqe[r->ci & ((1u << r->log2_cnt) - 1)];
	uint8_t phase = ((r->ci >> r->log2_cnt) & 1) ^ 1;
	uint8_t flags = *(const volatile uint8_t *)&cqe->flags;

	if ((flags & SCENIC_CQE_F_OWNER) != phase)
		return NULL;
	/* the card writes flags last: the rest is read after seeing it */
	scenic_rmb_after_valid();
	return cqe;
}

void scenic_cqe_to_send_wc(const struct scenic_cqe *cqe,
			   const struct scenic_swqe *swqe, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = swqe->wr_id;
	wc->status = scenic_wc_status_to_ibv(cqe->status);
	wc->opcode = swqe->wc_opcode;
	wc->byte_len = cqe->status == SCENIC_CQE_STATUS_SUCCESS ?
			       swqe->byte_len : 0;
	wc->vendor_err = le32toh(cqe->vendor_err);
	wc->qp_num = le32toh(cqe->qpn);
}

void scenic_cqe_to_recv_wc(const struct scenic_cqe *cqe, uint64_t wr_id,
			   struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = scenic_wc_status_to_ibv(cqe->status);
	wc->opcode = cqe->opcode == SCENIC_CQE_OP_RECV_WRITE_IMM ?
			     IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	wc->vendor_err = le32toh(cqe->vendor_err);
	wc->byte_len = le32toh(cqe->byte_len);
	wc->qp_num = le32toh(cqe->qpn);
	wc->src_qp = le32toh(cqe->src_qp);
	if (cqe->flags & SCENIC_CQE_F_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_data_be;
	} else if (cqe->flags & SCENIC_CQE_F_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = be32toh(cqe->imm_data_be);
	}
}

uint32_t scenic_roundup_pow2(uint32_t n)
{
	uint32_t p = 1;

	while (p < n) {
		if (p == 1u << 31)
			return 0;
		p <<= 1;
	}
	return p;
}
