// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_resize_cq (docs/verbs-completeness.md 5.2). The kernel gives the CQ a
 * new ring and CI record and the card ends the old ring with a RESIZE CQE;
 * poll_cq reads the old ring up to that CQE, then switches to the new ring
 * at index 0 and unmaps the old one. Nothing is copied, so no completion is
 * lost, and all of it happens under the CQ lock.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "scenic.h"
#include "verbs.h"

/* Signaled send completions the card counted and poll has not reported. */
static uint32_t sq_unreported(struct scenic_qp *qp)
{
	uint32_t done, idx, n = 0;

	done = (uint32_t)le64toh(__atomic_load_n(&qp->status->sq_completed,
						 __ATOMIC_ACQUIRE));
	pthread_spin_lock(&qp->sq_lock);
	if (done - qp->sq.ci <= qp->sq.pi - qp->sq.ci)
		for (idx = qp->sq.ci; idx != done; idx++)
			n += qp->sq.swqe[idx & (qp->sq.wqe_cnt - 1)].signaled;
	pthread_spin_unlock(&qp->sq_lock);
	return n;
}

/*
 * Completions not yet polled: CQEs in the ring (an SQ CQE may stand for
 * more, counted through its QP's counter) plus the send counters' signaled
 * WQEs. With cq->lock held.
 */
static uint32_t cq_unpolled(struct scenic_cq *cq)
{
	struct scenic_cq_ring r = cq->ring;
	uint32_t n = 0, k;

	for (k = 0; k < (1u << r.log2_cnt) && scenic_cq_peek(&r); k++, r.ci++)
		n++;
	for (k = 0; k < cq->n_sq_qps; k++)
		n += sq_unreported(cq->sq_qps[k]);
	return n;
}

/* The RESIZE CQE at the head ends the current ring: on to the next one. */
static void cq_switch_ring(struct scenic_cq *cq)
{
	uint32_t k;

	munmap(cq->ring_map, cq->ring_map_size);
	if (cq->dbrec)
		munmap(cq->dbrec, cq->next.pg_sz);
	cq->ring_map = cq->next.ring_map;
	cq->ring_map_size = cq->next.ring_map_size;
	cq->dbrec = cq->next.dbrec;
	cq->ring.cqe = cq->ring_map;
	cq->ring.log2_cnt = cq->next.log2_cnt;
	cq->ring.ci = 0;
	memset(&cq->next, 0, sizeof(cq->next));
	cq->resizing = false;
	/* stale marks count in the old ring, which is done with */
	for (k = 0; k < cq->by_qpn_cap; k++) {
		struct scenic_qp *qp = cq->by_qpn[k];

		if (qp && qp->recv_cq == cq)
			qp->recv_stale.valid = false;
		if (qp && qp->send_cq == cq)
			qp->send_stale.valid = false;
	}
}

int scenic_cq_cross_resize(struct scenic_cq *cq)
{
	if (cq->resizing) {
		cq_switch_ring(cq);
		return 1;
	}
	if (cq->resize_lost)	/* the new ring was never mapped */
		return -EIO;
	cq->ring.ci++;	/* not ours: a RESIZE CQE nobody asked for */
	return 0;
}

/* Maps what the kernel returned; the card already writes the new ring. */
static int cq_map_next(struct scenic_context *ctx, struct scenic_cq *cq,
		       const struct scenic_ibv_resize_cq_resp *resp)
{
	int fd = ctx->ibvctx.context.cmd_fd;
	uint32_t n = resp->cq_entries;

	if (!n || (n & (n - 1)) ||
	    resp->q_mmap_size < (uint64_t)n * SCENIC_CQE_BYTES) {
		verbs_err(&ctx->ibvctx, "bad resize_cq response: %u entries, ring %llu bytes\n",
			  n, (unsigned long long)resp->q_mmap_size);
		return EINVAL;
	}
	cq->next.ring_map_size = resp->q_mmap_size;
	cq->next.ring_map = scenic_map_or_null(resp->q_mmap_size, PROT_READ, fd,
					       resp->q_mmap_key);
	cq->next.dbrec = scenic_map_or_null(ctx->pg_sz, PROT_READ | PROT_WRITE,
					    fd, resp->dbrec_mmap_key);
	if (!cq->next.ring_map || !cq->next.dbrec) {
		int err = errno ? errno : ENOMEM;

		if (cq->next.ring_map)
			munmap(cq->next.ring_map, cq->next.ring_map_size);
		if (cq->next.dbrec)
			munmap(cq->next.dbrec, ctx->pg_sz);
		memset(&cq->next, 0, sizeof(cq->next));
		return err;
	}
	cq->next.log2_cnt = __builtin_ctz(n);
	cq->next.pg_sz = ctx->pg_sz;
	return 0;
}

int scenic_resize_cq(struct ibv_cq *ibvcq, int cqe)
{
	struct scenic_context *ctx = to_scenic_context(ibvcq->context);
	struct scenic_cq *cq = to_scenic_cq(ibvcq);
	struct scenic_resize_cq_resp resp = {};
	struct scenic_resize_cq cmd = {};
	const struct scenic_cqe *head;
	int err;

	if (cqe < 1)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	if (cq->resize_lost) {
		err = EIO;
		goto out;
	}
	/* one resize at a time: the previous RESIZE CQE is not polled yet */
	if (cq->resizing) {
		err = EAGAIN;
		goto out;
	}
	/* IBA: the new size holds the completions not yet polled */
	if (cq_unpolled(cq) > (uint32_t)cqe) {
		err = EINVAL;
		goto out;
	}
	err = ibv_cmd_resize_cq(ibvcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err)
		goto out;
	err = cq_map_next(ctx, cq, &resp.drv);
	if (err) {
		/* the card writes a ring we cannot read: poll reports EIO */
		cq->resize_lost = true;
		verbs_err(&ctx->ibvctx, "cannot map the resized CQ %u (%d)\n",
			  cq->cqn, err);
		goto out;
	}
	cq->resizing = true;
	/* nothing unpolled before the RESIZE CQE: switch now */
	head = scenic_cq_peek(&cq->ring);
	if (head && head->opcode == SCENIC_CQE_OP_RESIZE)
		cq_switch_ring(cq);
out:
	pthread_spin_unlock(&cq->lock);
	return err;
}

void scenic_cq_unmap_next(struct scenic_cq *cq, uint32_t pg_sz)
{
	if (!cq->resizing)
		return;
	munmap(cq->next.ring_map, cq->next.ring_map_size);
	munmap(cq->next.dbrec, pg_sz);
	memset(&cq->next, 0, sizeof(cq->next));
	cq->resizing = false;
}
