// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs (RC, UC, UD; with an RQ or an SRQ): create with the SCU index, map the rings, the
 * doorbell page and the status page; modify/query/destroy through the
 * kernel; post_send and post_recv.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mmio.h"
#include "scenic.h"
#include "verbs.h"

static void qp_unmap(struct scenic_qp *qp, uint32_t pg_sz)
{
	if (qp->rings_map) {
		/* SQ, RQ and dbrec are inside it */
		munmap(qp->rings_map, qp->rings_map_size);
		qp->rings_map = NULL;
		qp->sq_map = qp->rq_map = NULL;
		qp->dbrec = NULL;
	}
	if (qp->dbrec)
		munmap(qp->dbrec, pg_sz);
	qp->dbrec = NULL;
	if (qp->cnt_page)
		munmap(qp->cnt_page, pg_sz);
	if (qp->db_page)
		munmap(qp->db_page, pg_sz);
	if (qp->rq_map)
		munmap(qp->rq_map, qp->rq_map_size);
	if (qp->sq_map)
		munmap(qp->sq_map, qp->sq_map_size);
	qp->cnt_page = qp->db_page = qp->rq_map = qp->sq_map = NULL;
}

static int qp_map(struct scenic_context *ctx, struct scenic_qp *qp,
		  const struct scenic_ibv_create_qp_resp *resp,
		  uint32_t sq_bytes, uint32_t rq_bytes)
{
	bool with_dbrec = resp->comp_mask & SCENIC_CREATE_QP_RESP_COMP_MASK_DBREC;
	bool one_map = resp->comp_mask & SCENIC_CREATE_QP_RESP_COMP_MASK_ONE_MAP;
	int fd = ctx->ibvctx.context.cmd_fd;

	if (resp->sq_mmap_size < sq_bytes || resp->rq_mmap_size < rq_bytes ||
	    (one_map && (!with_dbrec || !ctx->qp_one_map ||
			 resp->sq_mmap_size % ctx->pg_sz ||
			 resp->rq_mmap_size % ctx->pg_sz ||
			 resp->sq_mmap_size > SIZE_MAX / 4 ||
			 resp->rq_mmap_size > SIZE_MAX / 4)) ||
	    resp->sq_db_off > ctx->pg_sz - 4 || resp->rq_db_off > ctx->pg_sz - 4 ||
	    (resp->sq_db_off & 3) || (resp->rq_db_off & 3) ||
	    resp->cnt_off > ctx->pg_sz - sizeof(struct scenic_qp_status) ||
	    (resp->cnt_off & 7)) {
		verbs_err(&ctx->ibvctx,
			  "bad create_qp response (ring sizes %llu/%llu, offsets %u/%u/%u)\n",
			  (unsigned long long)resp->sq_mmap_size,
			  (unsigned long long)resp->rq_mmap_size,
			  resp->sq_db_off, resp->rq_db_off, resp->cnt_off);
		return EINVAL;
	}

	qp->sq_map_size = resp->sq_mmap_size;
	qp->rq_map_size = resp->rq_mmap_size;
	if (one_map) {
		qp->rings_map_size = resp->sq_mmap_size + resp->rq_mmap_size + ctx->pg_sz;
		qp->rings_map = scenic_map_or_null(qp->rings_map_size,
						   PROT_READ | PROT_WRITE, fd,
						   resp->sq_mmap_key);
		if (qp->rings_map) {
			uint8_t *base = qp->rings_map;

			qp->sq_map = base;
			qp->rq_map = base + resp->sq_mmap_size;
			qp->dbrec = (struct scenic_qp_dbrec *)
				(base + resp->sq_mmap_size + resp->rq_mmap_size);
		}
	} else {
		qp->sq_map = scenic_map_or_null(qp->sq_map_size, PROT_READ | PROT_WRITE,
						fd, resp->sq_mmap_key);
		if (rq_bytes)	/* an SRQ QP has no RQ */
			qp->rq_map = scenic_map_or_null(qp->rq_map_size,
							PROT_READ | PROT_WRITE,
							fd, resp->rq_mmap_key);
		if (with_dbrec)
			qp->dbrec = scenic_map_or_null(ctx->pg_sz, PROT_READ | PROT_WRITE,
						       fd, resp->dbrec_mmap_key);
	}
	qp->db_page = scenic_map_or_null(ctx->pg_sz, PROT_WRITE, fd, resp->db_mmap_key);
	qp->cnt_page = scenic_map_or_null(ctx->pg_sz, PROT_READ, fd, resp->cnt_mmap_key);
	if (!qp->sq_map || (rq_bytes && !qp->rq_map) || !qp->db_page || !qp->cnt_page ||
	    (with_dbrec && !qp->dbrec)) {
		int err = errno;

		verbs_err(&ctx->ibvctx, "mmap of the QP's rings/pages failed (%d)\n", err);
		qp_unmap(qp, ctx->pg_sz);
		return err ? err : ENOMEM;
	}
	qp->sq_db_off = resp->sq_db_off;
	qp->rq_db_off = resp->rq_db_off;
	qp->status = (const struct scenic_qp_status *)
		((const uint8_t *)qp->cnt_page + resp->cnt_off);
	qp->sq.buf = qp->sq_map;
	qp->rq.buf = qp->rq_map;
	return 0;
}

/* Checks what we support and sizes the rings (entries rounded up to 2^n). */
static int qp_size(struct scenic_context *ctx, struct scenic_qp *qp,
		   const struct ibv_qp_init_attr_ex *attr)
{
	/* a kernel that says nothing drives a card of the first format */
	uint32_t max_sq_sge = ctx->max_sq_sge ? ctx->max_sq_sge : SCENIC_SQ_MAX_SGE_V0;
	uint32_t max_rq_sge = ctx->max_rq_sge ? ctx->max_rq_sge : SCENIC_RQ_MAX_SGE_V0;
	uint32_t max_inline = ctx->max_inline_data ? ctx->max_inline_data :
						     SCENIC_MAX_INLINE_V0;
	const struct ibv_qp_cap *cap = &attr->cap;
	int stride;

	if (max_sq_sge > SCENIC_SQ_MAX_SGE)
		max_sq_sge = SCENIC_SQ_MAX_SGE;
	/* without RQ strides the kernel takes 64-byte RQ slots only */
	if (max_rq_sge > (ctx->rq_stride ? SCENIC_RQ_MAX_SGE : SCENIC_RQ_MAX_SGE_V0))
		max_rq_sge = ctx->rq_stride ? SCENIC_RQ_MAX_SGE : SCENIC_RQ_MAX_SGE_V0;
	if (max_inline > SCENIC_MAX_INLINE)
		max_inline = SCENIC_MAX_INLINE;

	if ((ctx->max_sq_wr && cap->max_send_wr > ctx->max_sq_wr) ||
	    (!attr->srq && ctx->max_rq_wr && cap->max_recv_wr > ctx->max_rq_wr) ||
	    cap->max_send_sge > max_sq_sge ||
	    (!attr->srq && cap->max_recv_sge > max_rq_sge) ||
	    cap->max_inline_data > max_inline) {
		verbs_err(&ctx->ibvctx,
			  "QP caps beyond the card: wr %u/%u sge %u/%u inline %u\n",
			  cap->max_send_wr, cap->max_recv_wr, cap->max_send_sge,
			  cap->max_recv_sge, cap->max_inline_data);
		return EINVAL;
	}

	qp->sq.wqe_cnt = scenic_roundup_pow2(cap->max_send_wr ? cap->max_send_wr : 1);
	qp->rq.wqe_cnt = scenic_roundup_pow2(cap->max_recv_wr && !attr->srq ?
					     cap->max_recv_wr : 1);
	if (!qp->sq.wqe_cnt || !qp->rq.wqe_cnt ||
	    qp->sq.wqe_cnt > UINT32_MAX / SCENIC_SQ_WQE_BYTES)
		return EINVAL;
	/* the card takes any of its SGE/inline limits; we enforce the QP's */
	qp->sq.max_sge = cap->max_send_sge ? cap->max_send_sge : 1;
	/* a QP of an SRQ: its receive caps are the SRQ's, the RQ is unused */
	qp->rq.max_sge = cap->max_recv_sge && !attr->srq ? cap->max_recv_sge : 1;
	/* the smallest RQ slot for the SGEs asked for: 1-3 SGEs keep 64 bytes */
	stride = scenic_rq_stride_for(qp->rq.max_sge);
	if (stride < 0)
		return EINVAL;
	qp->rq.stride = stride;
	if (qp->rq.wqe_cnt > UINT32_MAX / (SCENIC_RQ_WQE_BYTES << stride))
		return EINVAL;
	qp->sq.max_inline = max_inline;
	qp->sq.sig_all = attr->sq_sig_all;

	qp->sq.swqe = calloc(qp->sq.wqe_cnt, sizeof(*qp->sq.swqe));
	if (!qp->sq.swqe)
		return ENOMEM;
	if (attr->srq) {	/* receives come from the SRQ's ring */
		qp->rq.wqe_cnt = 0;
		qp->rq.max_sge = 0;
		qp->rq.stride = 0;
		return 0;
	}
	qp->rq.wr_id = calloc(qp->rq.wqe_cnt, sizeof(*qp->rq.wr_id));
	if (!qp->rq.wr_id)
		return ENOMEM;
	return 0;
}

static int check_qp_attr(struct scenic_context *ctx,
			 const struct ibv_qp_init_attr_ex *attr)
{
	uint64_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
			 IBV_QP_INIT_ATTR_CREATE_FLAGS;

	/* UC WQEs are RC's; the kernel refuses UC when the card has no FEATURES.uc */
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    (attr->qp_type != IBV_QPT_UD || !ctx->ud)) {
		verbs_err(&ctx->ibvctx, "only RC, UC%s QPs are supported\n",
			  ctx->ud ? " and UD" : "");
		return EOPNOTSUPP;
	}
	if (attr->comp_mask & ~known || !(attr->comp_mask & IBV_QP_INIT_ATTR_PD) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && attr->create_flags) ||
	    (attr->srq && (!ctx->srq || attr->srq->context != &ctx->ibvctx.context))) {
		verbs_err(&ctx->ibvctx,
			  "unsupported QP attributes (comp_mask 0x%x, SRQ or create flags)\n",
			  attr->comp_mask);
		return attr->comp_mask & IBV_QP_INIT_ATTR_PD ? EOPNOTSUPP : EINVAL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    attr->send_ops_flags & ~(attr->qp_type == IBV_QPT_UD ?
				     (uint64_t)(IBV_QP_EX_WITH_SEND |
						IBV_QP_EX_WITH_SEND_WITH_IMM) :
				     scenic_supported_send_ops())) {
		verbs_err(&ctx->ibvctx, "unsupported send_ops_flags 0x%llx\n",
			  (unsigned long long)attr->send_ops_flags);
		return EOPNOTSUPP;
	}
	if (!attr->send_cq || !attr->recv_cq ||
	    attr->send_cq->context != &ctx->ibvctx.context ||
	    attr->recv_cq->context != &ctx->ibvctx.context)
		return EINVAL;
	return 0;
}

static void qp_free(struct scenic_qp *qp)
{
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp->sq.swqe);
	free(qp->rq.wr_id);
	free(qp);
}

struct ibv_qp *scenic_create_qp_common(struct ibv_context *ibvctx,
				       struct ibv_qp_init_attr_ex *attr_ex,
				       uint16_t scu_index)
{
	struct scenic_context *ctx = to_scenic_context(ibvctx);
	struct scenic_create_qp_resp resp = {};
	struct scenic_create_qp cmd = {};
	struct ibv_qp_init_attr_ex attr;
	uint32_t sq_bytes, rq_bytes;
	struct scenic_qp *qp;
	int err;

	err = check_qp_attr(ctx, attr_ex);
	if (err)
		goto err_out;
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		err = ENOMEM;
		goto err_out;
	}
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	err = qp_size(ctx, qp, attr_ex);
	if (err)
		goto err_free;

	sq_bytes = qp->sq.wqe_cnt * SCENIC_SQ_WQE_BYTES;
	rq_bytes = qp->rq.wqe_cnt * (SCENIC_RQ_WQE_BYTES << qp->rq.stride);
	qp->srq = attr_ex->srq ? to_scenic_srq(attr_ex->srq) : NULL;
	qp->sq.ud = attr_ex->qp_type == IBV_QPT_UD;
	if (attr_ex->qp_type != IBV_QPT_RC)
		scu_index = 0;	/* only RC messages pass the SCUs */
	cmd.drv.comp_mask = SCENIC_CREATE_QP_CMD_COMP_MASK_SCU;
	if (ctx->qp_one_map)
		cmd.drv.comp_mask |= SCENIC_CREATE_QP_CMD_COMP_MASK_ONE_MAP;
	cmd.drv.sq_ring_size = sq_bytes;
	cmd.drv.rq_ring_size = rq_bytes;
	cmd.drv.scu_index = scu_index;
	/* 0 (= 64 bytes) for a kernel without strides, which refuses anything else */
	cmd.drv.rq_wqe_size = qp->rq.stride ? SCENIC_RQ_WQE_BYTES << qp->rq.stride : 0;
	if (qp->srq)
		cmd.drv.rq_ring_size = 0;	/* no RQ next to the SRQ */

	/* the kernel sizes its side from the rounded-up ring sizes */
	attr = *attr_ex;
	attr.cap.max_send_wr = qp->sq.wqe_cnt;
	attr.cap.max_recv_wr = qp->rq.wqe_cnt;
	attr.cap.max_send_sge = qp->sq.max_sge;
	attr.cap.max_recv_sge = qp->rq.max_sge;
	attr.cap.max_inline_data = qp->sq.max_inline;
	attr.comp_mask &= ~(uint32_t)(IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
				      IBV_QP_INIT_ATTR_CREATE_FLAGS);

	err = ibv_cmd_create_qp_ex(ibvctx, &qp->verbs_qp, &attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "create_qp command failed (%d)\n", err);
		goto err_free;
	}
	err = qp_map(ctx, qp, &resp.drv, sq_bytes, rq_bytes);
	if (err)
		goto err_destroy;

	qp->scu_index = resp.drv.scu_index;
	qp->state = IBV_QPS_RESET;
	qp->send_cq = to_scenic_cq(attr_ex->send_cq);
	qp->recv_cq = to_scenic_cq(attr_ex->recv_cq);
	err = scenic_cq_attach_qp(qp->send_cq, qp);
	if (!err) {
		err = scenic_cq_attach_qp(qp->recv_cq, qp);
		if (err)
			scenic_cq_detach_qp(qp->send_cq, qp);
	}
	if (err)
		goto err_unmap;

	if (attr_ex->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		scenic_qp_fill_wr_ops(qp, attr_ex->send_ops_flags);
		qp->verbs_qp.comp_mask |= VERBS_QP_EX;
	}

	/* what the caller got: at least what it asked for */
	attr_ex->cap.max_send_wr = qp->sq.wqe_cnt;
	attr_ex->cap.max_recv_wr = qp->rq.wqe_cnt;
	attr_ex->cap.max_send_sge = qp->sq.max_sge;
	attr_ex->cap.max_recv_sge = qp->rq.max_sge;
	attr_ex->cap.max_inline_data = qp->sq.max_inline;
	return &qp->verbs_qp.qp;

err_unmap:
	qp_unmap(qp, ctx->pg_sz);
err_destroy:
	ibv_cmd_destroy_qp(&qp->verbs_qp.qp);
err_free:
	qp_free(qp);
err_out:
	errno = err;
	return NULL;
}

struct ibv_qp *scenic_create_qp(struct ibv_pd *ibvpd,
				struct ibv_qp_init_attr *attr)
{
	struct scenic_context *ctx = to_scenic_context(ibvpd->context);
	struct ibv_qp_init_attr_ex attr_ex = {};
	struct ibv_qp *qp;

	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = ibvpd;
	qp = scenic_create_qp_common(ibvpd->context, &attr_ex, ctx->default_scu);
	if (qp)
		attr->cap = attr_ex.cap;
	return qp;
}

struct ibv_qp *scenic_create_qp_ex(struct ibv_context *ibvctx,
				   struct ibv_qp_init_attr_ex *attr_ex)
{
	return scenic_create_qp_common(ibvctx, attr_ex,
				       to_scenic_context(ibvctx)->default_scu);
}

/*
 * A QP back in RESET starts its rings from index 0, as the card does (the
 * kernel zeroes the doorbell records).
 */
static void qp_reset_rings(struct scenic_qp *qp)
{
	/* the send CQ's lock first, as in poll_cq: it guards sq_seen */
	pthread_spin_lock(&qp->send_cq->lock);
	pthread_spin_lock(&qp->sq_lock);
	qp->sq.pi = qp->sq.ci = 0;
	qp->sq_seen_valid = false;
	pthread_spin_unlock(&qp->sq_lock);
	pthread_spin_unlock(&qp->send_cq->lock);
	pthread_spin_lock(&qp->rq_lock);
	qp->rq.pi = qp->rq.ci = 0;
	pthread_spin_unlock(&qp->rq_lock);
}

int scenic_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		     int attr_mask)
{
	struct scenic_qp *qp = to_scenic_qp(ibvqp);
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibvqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (attr_mask & IBV_QP_STATE) {
		qp->state = attr->qp_state;
		if (attr->qp_state == IBV_QPS_RESET) {
			/* as mlx5: a reset QP's CQEs are not reported */
			scenic_cq_forget_qp(qp->recv_cq, qp);
			if (qp->send_cq != qp->recv_cq)
				scenic_cq_forget_qp(qp->send_cq, qp);
			qp_reset_rings(qp);
		}
	}
	return 0;
}

int scenic_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct scenic_qp *qp = to_scenic_qp(ibvqp);
	struct ibv_query_qp cmd = {};
	int err;

	err = ibv_cmd_query_qp(ibvqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (err)
		return err;
	/* the provider's ring sizes are the truth for the caps */
	attr->cap.max_send_wr = qp->sq.wqe_cnt;
	attr->cap.max_recv_wr = qp->rq.wqe_cnt;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	init_attr->cap = attr->cap;
	qp->state = attr->qp_state;
	return 0;
}

int scenic_destroy_qp(struct ibv_qp *ibvqp)
{
	struct scenic_context *ctx = to_scenic_context(ibvqp->context);
	struct scenic_qp *qp = to_scenic_qp(ibvqp);
	int err;

	err = ibv_cmd_destroy_qp(ibvqp);
	if (err)
		return err;
	scenic_cq_detach_qp(qp->send_cq, qp);
	if (qp->recv_cq != qp->send_cq)
		scenic_cq_detach_qp(qp->recv_cq, qp);
	qp_unmap(qp, ctx->pg_sz);
	qp_free(qp);
	return 0;
}

/*
 * With doorbell records the producer index goes to host memory, and the
 * doorbell register is written only when the card asks for it (db_skip bit
 * clear): a doorbell write traps into the emulator (a PCIe write on the card)
 * and serialises with the card's own work.
 */
static bool qp_doorbell_needed(struct scenic_qp *qp, bool sq)
{
	if (!qp->dbrec)
		return true;
	if (sq)
		scenic_dbrec_write32(&qp->dbrec->sq_pi, htole32(qp->sq.pi));
	else
		scenic_dbrec_write32(&qp->dbrec->rq_pi, htole32(qp->rq.pi));
	scenic_mb_before_skip_check();
	return !(le32toh(__atomic_load_n(&qp->status->db_skip,
					 __ATOMIC_RELAXED)) &
		 (sq ? SCENIC_QP_DB_SKIP_SQ : SCENIC_QP_DB_SKIP_RQ));
}

void scenic_qp_ring_sq_db(struct scenic_qp *qp)
{
	scenic_wmb_before_doorbell();
	if (qp_doorbell_needed(qp, true))
		scenic_mmio_write32((uint8_t *)qp->db_page + qp->sq_db_off,
				    htole32(qp->sq.pi));
}

static void qp_ring_rq_db(struct scenic_qp *qp)
{
	scenic_wmb_before_doorbell();
	if (qp_doorbell_needed(qp, false))
		scenic_mmio_write32((uint8_t *)qp->db_page + qp->rq_db_off,
				    htole32(qp->rq.pi));
}

int scenic_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad)
{
	struct scenic_qp *qp = to_scenic_qp(ibvqp);
	uint32_t pi_start;
	int err = 0;

	pthread_spin_lock(&qp->sq_lock);
	pi_start = qp->sq.pi;
	if (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_INIT ||
	    qp->state == IBV_QPS_RTR) {
		err = EINVAL;	/* the send queue is not active yet */
		*bad = wr;
	}
	for (; wr && !err; wr = wr->next) {
		err = scenic_sq_post_wr(&qp->sq, wr);
		if (err)
			*bad = wr;
	}
	if (qp->sq.pi != pi_start)
		scenic_qp_ring_sq_db(qp);
	pthread_spin_unlock(&qp->sq_lock);
	return err;
}

int scenic_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad)
{
	struct scenic_qp *qp = to_scenic_qp(ibvqp);
	uint32_t pi_start;
	int err = 0;

	pthread_spin_lock(&qp->rq_lock);
	pi_start = qp->rq.pi;
	/* a QP of an SRQ has no receive queue of its own (ibv_post_srq_recv) */
	if (qp->state == IBV_QPS_RESET || qp->srq) {
		err = EINVAL;
		*bad = wr;
	}
	for (; wr && !err; wr = wr->next) {
		err = scenic_rq_post_wr(&qp->rq, wr);
		if (err)
			*bad = wr;
	}
	if (qp->rq.pi != pi_start)
		qp_ring_rq_db(qp);
	pthread_spin_unlock(&qp->rq_lock);
	return err;
}
