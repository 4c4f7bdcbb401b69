// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ibv_wr_* send API. wr_start takes the SQ lock; each wr_<op> starts a
 * WQE and the wr_set_* that follows gives it its data and commits it; the
 * first error is kept and returned by wr_complete, which then rolls the SQ
 * back as wr_abort does. The doorbell rings once, in wr_complete.
 */
#include <errno.h>

#include "scenic.h"

uint64_t scenic_supported_send_ops(void)
{
	return IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
	       IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
	       IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
	       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_BIND_MW |
	       IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND_WITH_INV;
}

static void wr_fail(struct scenic_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

/* Starts a WQE for the current wr_id/wr_flags; NULL after an error. */
static struct scenic_sq_wqe *wr_begin(struct ibv_qp_ex *ibvqpx,
				      enum scenic_wqe_opcode op)
{
	struct scenic_qp *qp = qp_ex_to_scenic_qp(ibvqpx);
	struct scenic_sq_wqe *wqe;

	if (qp->wr_err)
		return NULL;
	if (qp->wr_open) {	/* the previous WR never got its data */
		wr_fail(qp, EINVAL);
		return NULL;
	}
	wqe = scenic_sq_start(&qp->sq, op, ibvqpx->wr_id, ibvqpx->wr_flags);
	if (!wqe) {
		wr_fail(qp, ENOMEM);
		return NULL;
	}
	qp->wr_open = true;
	return wqe;
}

/* The WQE a wr_set_* applies to, or NULL (error latched). */
static struct scenic_sq_wqe *wr_current(struct scenic_qp *qp)
{
	if (qp->wr_err)
		return NULL;
	if (!qp->wr_open) {
		wr_fail(qp, EINVAL);
		return NULL;
	}
	return scenic_sq_slot(&qp->sq, qp->sq.pi);
}

static void wr_finish(struct scenic_qp *qp, int err)
{
	qp->wr_open = false;
	if (err)
		wr_fail(qp, err);
	else
		scenic_sq_commit(&qp->sq);
}

static void wr_send(struct ibv_qp_ex *q)
{
	wr_begin(q, SCENIC_WQE_OP_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *q, __be32 imm_data)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_SEND_IMM);

	if (wqe)
		scenic_wqe_set_imm(wqe, imm_data);
}

static void wr_rdma_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_WRITE);

	if (wqe)
		scenic_wqe_set_rdma(wqe, rkey, raddr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *q, uint32_t rkey,
			      uint64_t raddr, __be32 imm_data)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_WRITE_IMM);

	if (wqe) {
		scenic_wqe_set_rdma(wqe, rkey, raddr);
		scenic_wqe_set_imm(wqe, imm_data);
	}
}

static void wr_rdma_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_READ);

	if (wqe)
		scenic_wqe_set_rdma(wqe, rkey, raddr);
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *q, uint32_t rkey,
			      uint64_t raddr, uint64_t compare, uint64_t swap)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_ATOMIC_CAS);

	if (wqe)
		scenic_wqe_set_atomic(wqe, rkey, raddr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *q, uint32_t rkey,
				uint64_t raddr, uint64_t add)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_ATOMIC_FAA);

	if (wqe)
		scenic_wqe_set_atomic(wqe, rkey, raddr, add, 0);
}

static void wr_send_inv(struct ibv_qp_ex *q, uint32_t invalidate_rkey)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_SEND_INV);

	if (wqe)
		scenic_wqe_set_inv(wqe, invalidate_rkey);
}

/* LOCAL_INV and BIND_MW carry no data: complete at once */
static void wr_local_inv(struct ibv_qp_ex *q, uint32_t invalidate_rkey)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_LOCAL_INV);

	if (wqe) {
		scenic_wqe_set_inv(wqe, invalidate_rkey);
		wr_finish(qp_ex_to_scenic_qp(q), 0);
	}
}

static void wr_bind_mw(struct ibv_qp_ex *q, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *info)
{
	struct scenic_sq_wqe *wqe = wr_begin(q, SCENIC_WQE_OP_BIND_MW);

	if (wqe)
		wr_finish(qp_ex_to_scenic_qp(q),
			  scenic_wqe_set_bind(wqe, mw, rkey, info));
}

/* UD: the datagram's address, before its data (a WQE without one fails on the card) */
static void wr_set_ud_addr(struct ibv_qp_ex *q, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct scenic_qp *qp = qp_ex_to_scenic_qp(q);
	struct scenic_sq_wqe *wqe = wr_current(qp);

	if (!wqe)
		return;
	if (!ah)
		wr_fail(qp, EINVAL);
	else
		scenic_wqe_set_ud(wqe, ah, remote_qpn, remote_qkey);
}

static void wr_set_sge_list(struct ibv_qp_ex *q, size_t num_sge,
			    const struct ibv_sge *sg_list)
{
	struct scenic_qp *qp = qp_ex_to_scenic_qp(q);
	struct scenic_sq_wqe *wqe = wr_current(qp);

	if (wqe)
		wr_finish(qp, scenic_wqe_set_sges(wqe, sg_list, num_sge,
						  qp->sq.max_sge));
}

static void wr_set_sge(struct ibv_qp_ex *q, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(q, 1, &sge);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *q, size_t num_buf,
				    const struct ibv_data_buf *buf_list)
{
	struct scenic_qp *qp = qp_ex_to_scenic_qp(q);
	struct scenic_sq_wqe *wqe = wr_current(qp);

	if (wqe)
		wr_finish(qp, scenic_wqe_set_inline(wqe, buf_list, num_buf,
						    qp->sq.max_inline));
}

static void wr_set_inline_data(struct ibv_qp_ex *q, void *addr, size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	wr_set_inline_data_list(q, 1, &buf);
}

static void wr_start(struct ibv_qp_ex *q)
{
	struct scenic_qp *qp = qp_ex_to_scenic_qp(q);

	pthread_spin_lock(&qp->sq_lock);
	qp->wr_start_pi = qp->sq.pi;
	qp->wr_open = false;
	qp->wr_err = (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_INIT ||
		      qp->state == IBV_QPS_RTR) ? EINVAL : 0;
}

static void wr_abort(struct ibv_qp_ex *q)
{
	struct scenic_qp *qp = qp_ex_to_scenic_qp(q);

	qp->sq.pi = qp->wr_start_pi;	/* nothing was rung: forget it */
	qp->wr_open = false;
	pthread_spin_unlock(&qp->sq_lock);
}

static int wr_complete(struct ibv_qp_ex *q)
{
	struct scenic_qp *qp = qp_ex_to_scenic_qp(q);
	int err = qp->wr_open ? EINVAL : qp->wr_err;

	if (err) {
		wr_abort(q);
		return err;
	}
	if (qp->sq.pi != qp->wr_start_pi)
		scenic_qp_ring_sq_db(qp);
	pthread_spin_unlock(&qp->sq_lock);
	return 0;
}

void scenic_qp_fill_wr_ops(struct scenic_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *q = &qp->verbs_qp.qp_ex;

	q->wr_start = wr_start;
	q->wr_complete = wr_complete;
	q->wr_abort = wr_abort;
	q->wr_set_sge = wr_set_sge;
	q->wr_set_sge_list = wr_set_sge_list;
	q->wr_set_inline_data = wr_set_inline_data;
	q->wr_set_inline_data_list = wr_set_inline_data_list;
	if (qp->sq.ud) {
		q->wr_set_ud_addr = wr_set_ud_addr;
		ops &= IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
	}
	if (ops & IBV_QP_EX_WITH_SEND)
		q->wr_send = wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		q->wr_send_imm = wr_send_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		q->wr_rdma_write = wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		q->wr_rdma_write_imm = wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		q->wr_rdma_read = wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		q->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		q->wr_atomic_fetch_add = wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		q->wr_send_inv = wr_send_inv;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		q->wr_local_inv = wr_local_inv;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		q->wr_bind_mw = wr_bind_mw;
}
