// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues (docs/verbs-completeness.md 3): create (the ring
 * and its doorbell record behind one mapping, the doorbell page), post
 * receive WQEs, modify the limit, query, destroy. Receive CQEs with
 * SCENIC_CQE_F_SRQ name the SRQ slot; poll_cq gets the wr_id here.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mmio.h"
#include "scenic.h"
#include "verbs.h"

/* as ring.c: a message is at most 2^31 bytes */
#define SCENIC_SRQ_MAX_MSG_SIZE (1u << 31)

static void srq_unmap(struct scenic_srq *srq, uint32_t pg_sz)
{
	if (srq->db_page)
		munmap(srq->db_page, pg_sz);
	if (srq->ring_map)
		munmap(srq->ring_map, srq->ring_map_size);
	srq->db_page = NULL;
	srq->ring_map = NULL;
	srq->dbrec = NULL;
}

static int srq_map(struct scenic_context *ctx, struct scenic_srq *srq,
		   const struct scenic_ibv_create_srq_resp *resp, uint32_t ring_bytes)
{
	int fd = ctx->ibvctx.context.cmd_fd;

	if (resp->entries != srq->wqe_cnt || resp->ring_mmap_size < ring_bytes ||
	    resp->ring_mmap_size % ctx->pg_sz || resp->ring_mmap_size > SIZE_MAX / 4 ||
	    resp->db_off > ctx->pg_sz - 4 || (resp->db_off & 3)) {
		verbs_err(&ctx->ibvctx,
			  "bad create_srq response (%u entries, ring %llu bytes, db_off %u)\n",
			  resp->entries, (unsigned long long)resp->ring_mmap_size,
			  resp->db_off);
		return EINVAL;
	}
	srq->ring_map_size = resp->ring_mmap_size + ctx->pg_sz;
	srq->ring_map = scenic_map_or_null(srq->ring_map_size, PROT_READ | PROT_WRITE,
					   fd, resp->ring_mmap_key);
	srq->db_page = scenic_map_or_null(ctx->pg_sz, PROT_WRITE, fd, resp->db_mmap_key);
	if (!srq->ring_map || !srq->db_page) {
		int err = errno;

		verbs_err(&ctx->ibvctx, "mmap of the SRQ's ring/doorbell failed (%d)\n", err);
		srq_unmap(srq, ctx->pg_sz);
		return err ? err : ENOMEM;
	}
	srq->buf = srq->ring_map;
	srq->dbrec = (struct scenic_srq_dbrec *)((uint8_t *)srq->ring_map +
						 resp->ring_mmap_size);
	srq->db_off = resp->db_off;
	srq->srqn = resp->srqn;
	return 0;
}

static void srq_free(struct scenic_srq *srq)
{
	pthread_spin_destroy(&srq->lock);
	free(srq->wr_id);
	free(srq->polled);
	free(srq);
}

struct ibv_srq *scenic_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct scenic_context *ctx = to_scenic_context(pd->context);
	struct scenic_create_srq_resp resp = {};
	struct scenic_create_srq cmd = {};
	struct ibv_srq_init_attr kattr;
	uint32_t max_sge, ring_bytes;
	struct scenic_srq *srq;
	int stride, err;

	if (!ctx->srq) {
		verbs_err(&ctx->ibvctx, "this card has no SRQs\n");
		errno = EOPNOTSUPP;
		return NULL;
	}
	max_sge = attr->attr.max_sge ? attr->attr.max_sge : 1;
	stride = scenic_rq_stride_for(max_sge);
	if (!attr->attr.max_wr || max_sge > ctx->max_rq_sge || stride < 0 ||
	    (stride && !ctx->rq_stride) || attr->attr.srq_limit > attr->attr.max_wr ||
	    !scenic_roundup_pow2(attr->attr.max_wr)) {
		verbs_err(&ctx->ibvctx, "SRQ caps beyond the card: %u WRs, %u SGEs, limit %u\n",
			  attr->attr.max_wr, attr->attr.max_sge, attr->attr.srq_limit);
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	srq->wqe_cnt = scenic_roundup_pow2(attr->attr.max_wr);
	srq->stride = stride;
	srq->max_sge = max_sge;
	err = EINVAL;
	if (srq->wqe_cnt > UINT32_MAX / (SCENIC_RQ_WQE_BYTES << stride))
		goto err_free;
	ring_bytes = srq->wqe_cnt * (SCENIC_RQ_WQE_BYTES << stride);
	srq->wr_id = calloc(srq->wqe_cnt, sizeof(*srq->wr_id));
	srq->polled = malloc(srq->wqe_cnt);
	err = ENOMEM;
	if (!srq->wr_id || !srq->polled)
		goto err_free;
	memset(srq->polled, 1, srq->wqe_cnt);

	cmd.drv.ring_size = ring_bytes;
	cmd.drv.wqe_size = SCENIC_RQ_WQE_BYTES << stride;
	kattr = *attr;
	kattr.attr.max_wr = srq->wqe_cnt;
	kattr.attr.max_sge = max_sge;
	err = ibv_cmd_create_srq(pd, &srq->ibv_srq, &kattr, &cmd.ibv_cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "create_srq command failed (%d)\n", err);
		goto err_free;
	}
	err = srq_map(ctx, srq, &resp.drv, ring_bytes);
	if (err) {
		ibv_cmd_destroy_srq(&srq->ibv_srq);
		goto err_free;
	}
	attr->attr.max_wr = srq->wqe_cnt;
	attr->attr.max_sge = SCENIC_RQ_STRIDE_SGES(stride);
	return &srq->ibv_srq;

err_free:
	srq_free(srq);
	errno = err;
	return NULL;
}

int scenic_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr, int mask)
{
	struct ibv_modify_srq cmd = {};

	/* the card keeps an SRQ's size (the kernel says EOPNOTSUPP too) */
	if (mask & IBV_SRQ_MAX_WR)
		return EOPNOTSUPP;
	return ibv_cmd_modify_srq(ibvsrq, attr, mask, &cmd, sizeof(cmd));
}

int scenic_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr)
{
	struct scenic_srq *srq = to_scenic_srq(ibvsrq);
	struct ibv_query_srq cmd = {};
	int err;

	err = ibv_cmd_query_srq(ibvsrq, attr, &cmd, sizeof(cmd));
	if (err)
		return err;
	attr->max_wr = srq->wqe_cnt;
	attr->max_sge = SCENIC_RQ_STRIDE_SGES(srq->stride);
	return 0;
}

int scenic_destroy_srq(struct ibv_srq *ibvsrq)
{
	struct scenic_context *ctx = to_scenic_context(ibvsrq->context);
	struct scenic_srq *srq = to_scenic_srq(ibvsrq);
	int err;

	/* EBUSY (the kernel's) while a QP still uses it */
	err = ibv_cmd_destroy_srq(ibvsrq);
	if (err)
		return err;
	srq_unmap(srq, ctx->pg_sz);
	srq_free(srq);
	return 0;
}

/* One WQE at srq->pi; 0, ENOMEM (the slot's last CQE not polled) or EINVAL. */
static int srq_post_one(struct scenic_srq *srq, const struct ibv_recv_wr *wr)
{
	uint32_t slot = srq->pi & (srq->wqe_cnt - 1);
	struct scenic_rq_wqe *wqe;
	uint64_t total = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > SCENIC_SRQ_MAX_MSG_SIZE)
		return EINVAL;
	if (!srq->polled[slot])
		return ENOMEM;

	wqe = (struct scenic_rq_wqe *)(srq->buf +
		((size_t)slot * SCENIC_RQ_WQE_BYTES << srq->stride));
	memset(wqe, 0, SCENIC_RQ_WQE_HDR_BYTES);
	wqe->num_sge = htole16(wr->num_sge);
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = htole64(wr->sg_list[i].addr);
		wqe->sge[i].length = htole32(wr->sg_list[i].length);
		wqe->sge[i].lkey = htole32(wr->sg_list[i].lkey);
	}
	srq->wr_id[slot] = wr->wr_id;
	srq->polled[slot] = 0;
	srq->pi++;
	return 0;
}

int scenic_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad)
{
	struct scenic_srq *srq = to_scenic_srq(ibvsrq);
	uint32_t pi_start;
	int err = 0;

	pthread_spin_lock(&srq->lock);
	pi_start = srq->pi;
	for (; wr && !err; wr = wr->next) {
		err = srq_post_one(srq, wr);
		if (err)
			*bad = wr;
	}
	if (srq->pi != pi_start) {
		/*
		 * The card reads the record when the SRQ looks empty; the
		 * doorbell tells it at once (an SRQ has no db_skip bit).
		 */
		scenic_wmb_before_doorbell();
		scenic_dbrec_write32(&srq->dbrec->pi, htole32(srq->pi));
		scenic_mmio_write32((uint8_t *)srq->db_page + srq->db_off + SCENIC_DB_SRQ,
				    htole32(srq->pi));
	}
	pthread_spin_unlock(&srq->lock);
	return err;
}

bool scenic_srq_complete(struct scenic_srq *srq, uint32_t idx, uint64_t *wr_id)
{
	uint32_t slot = idx & (srq->wqe_cnt - 1);
	bool ok;

	pthread_spin_lock(&srq->lock);
	/* posted (idx in [pi - wqe_cnt, pi)) and not completed yet */
	ok = srq->pi - idx - 1 < srq->wqe_cnt && !srq->polled[slot];
	if (ok) {
		*wr_id = srq->wr_id[slot];
		srq->polled[slot] = 1;
	}
	pthread_spin_unlock(&srq->lock);
	return ok;
}
