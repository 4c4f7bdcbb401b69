// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues: create (ring mapped read-only, doorbell page mapped),
 * destroy, poll_cq (CQ ring plus the send-completion counters of the QPs that
 * complete here; a RESIZE CQE moves it to the next ring: cq_resize.c),
 * req_notify_cq, and the ibv_cq_ex polling interface. A CQE finds its QP in
 * a table indexed by QPN; the counter scan reads only QPs that send here and
 * takes a QP's lock only when its counter moved.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mmio.h"
#include "scenic.h"
#include "verbs.h"

/* What our CQE carries; anything else asked of an ibv_cq_ex is refused. */
#define SCENIC_CQ_EX_WC_FLAGS                                                  \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |  \
	 IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |      \
	 IBV_WC_EX_WITH_DLID_PATH_BITS)

static void cq_unmap(struct scenic_cq *cq, uint32_t pg_sz)
{
	if (cq->dbrec)
		munmap(cq->dbrec, pg_sz);
	cq->dbrec = NULL;
	if (cq->db_page)
		munmap(cq->db_page, pg_sz);
	if (cq->ring_map)
		munmap(cq->ring_map, cq->ring_map_size);
	cq->db_page = NULL;
	cq->ring_map = NULL;
}

/* Maps the ring, the doorbell page and the CI record the kernel described. */
static int cq_map(struct scenic_context *ctx, struct scenic_cq *cq,
		  const struct scenic_ibv_create_cq_resp *resp)
{
	bool with_dbrec = resp->comp_mask & SCENIC_CREATE_CQ_RESP_COMP_MASK_DBREC;
	int fd = ctx->ibvctx.context.cmd_fd;
	uint32_t n = resp->cq_entries;

	if (!n || (n & (n - 1)) ||
	    resp->q_mmap_size < (uint64_t)n * SCENIC_CQE_BYTES ||
	    resp->db_off > ctx->pg_sz - (SCENIC_DB_CQ_ARM + 4) ||
	    (resp->db_off & 7)) {
		verbs_err(&ctx->ibvctx,
			  "bad create_cq response: %u entries, ring %llu bytes, db_off %u\n",
			  n, (unsigned long long)resp->q_mmap_size, resp->db_off);
		return EINVAL;
	}

	cq->ring_map_size = resp->q_mmap_size;
	cq->ring_map = scenic_map_or_null(cq->ring_map_size, PROT_READ, fd,
					  resp->q_mmap_key);
	cq->db_page = scenic_map_or_null(ctx->pg_sz, PROT_WRITE, fd,
					 resp->db_mmap_key);
	if (with_dbrec)
		cq->dbrec = scenic_map_or_null(ctx->pg_sz, PROT_READ | PROT_WRITE,
					       fd, resp->dbrec_mmap_key);
	if (!cq->ring_map || !cq->db_page || (with_dbrec && !cq->dbrec)) {
		int err = errno;

		cq_unmap(cq, ctx->pg_sz);
		return err ? err : ENOMEM;
	}
	cq->db_off = resp->db_off;
	cq->cqn = resp->cq_idx;
	cq->ring.cqe = cq->ring_map;
	cq->ring.log2_cnt = __builtin_ctz(n);
	cq->ring.ci = 0;
	return 0;
}

static void cq_write_db(struct scenic_cq *cq, uint32_t reg, uint32_t val)
{
	scenic_wmb_before_doorbell();
	scenic_mmio_write32((uint8_t *)cq->db_page + cq->db_off + reg,
			    htole32(val));
}

/* The card reads a CI record only when the ring looks full: no doorbell. */
static void cq_update_ci(struct scenic_cq *cq)
{
	uint32_t ci = cq->ring.ci & SCENIC_DB_CQ_CI_MASK;

	if (cq->dbrec)
		scenic_dbrec_write32(&cq->dbrec->ci, htole32(ci));
	else if (!cq->resizing)	/* the doorbell counts the new ring already */
		cq_write_db(cq, SCENIC_DB_CQ_CI, ci);
}

static int check_cqe(struct ibv_context *ibvctx, int cqe)
{
	struct scenic_context *ctx = to_scenic_context(ibvctx);

	if (cqe < 1 || !scenic_roundup_pow2(cqe)) {
		verbs_err(&ctx->ibvctx, "invalid CQ size %d\n", cqe);
		return EINVAL;
	}
	return 0;
}

static void fill_cq_cmd(struct scenic_ibv_create_cq *drv, bool channel)
{
	memset(drv, 0, sizeof(*drv));
	drv->cq_entry_size = SCENIC_CQE_BYTES;
	if (channel)
		drv->flags |= SCENIC_CREATE_CQ_WITH_COMPLETION_CHANNEL;
}

struct ibv_cq *scenic_create_cq(struct ibv_context *ibvctx, int ncqe,
				struct ibv_comp_channel *channel, int vec)
{
	struct scenic_context *ctx = to_scenic_context(ibvctx);
	struct scenic_create_cq_resp resp = {};
	struct scenic_create_cq cmd = {};
	struct scenic_cq *cq;
	int err;

	err = check_cqe(ibvctx, ncqe);
	if (err)
		goto err_out;
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		err = ENOMEM;
		goto err_out;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	fill_cq_cmd(&cmd.drv, channel);

	err = ibv_cmd_create_cq(ibvctx, scenic_roundup_pow2(ncqe), channel, vec,
				&cq->verbs_cq.cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "create_cq command failed (%d)\n", err);
		goto err_free;
	}
	err = cq_map(ctx, cq, &resp.drv);
	if (err)
		goto err_destroy;
	return &cq->verbs_cq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->verbs_cq.cq);
err_free:
	pthread_spin_destroy(&cq->lock);
	free(cq);
err_out:
	errno = err;
	return NULL;
}

/* One load: the QP with this QPN if its send or receive queue completes here. */
static struct scenic_qp *cq_find_qp(struct scenic_cq *cq, uint32_t qpn)
{
	return qpn < cq->by_qpn_cap ? cq->by_qpn[qpn] : NULL;
}

/*
 * Handles the CQE at the ring's head: writes up to nwc WCs and says in
 * *consumed whether the CQE is done with. An SQ CQE first retires the WQEs
 * before it (they completed successfully); if those fill wc, the CQE stays
 * at the head and the next poll goes on from there.
 */
static int poll_one_cqe(struct scenic_cq *cq, const struct scenic_cqe *cqe,
			struct ibv_wc *wc, int nwc, bool *consumed)
{
	struct scenic_qp *qp = cq_find_qp(cq, le32toh(cqe->qpn));
	uint32_t idx = le32toh(cqe->wqe_idx);
	struct scenic_stale *st;
	int n = 0;

	*consumed = true;
	if (!qp)	/* a QP destroyed since: nothing to report */
		return 0;
	st = cq == qp->recv_cq ? &qp->recv_stale : &qp->send_stale;
	if (st->valid) {
		if ((int32_t)(cq->ring.ci - st->end) < 0)
			return 0;	/* from before the QP's reset */
		st->valid = false;
	}

	if (cqe->flags & SCENIC_CQE_F_SQ) {
		pthread_spin_lock(&qp->sq_lock);
		if (scenic_sq_idx_pending(&qp->sq, idx)) {
			n = scenic_sq_retire(&qp->sq, idx,
					     qp->verbs_qp.qp.qp_num, wc, nwc);
			if (qp->sq.ci == idx && n < nwc) {
				scenic_cqe_to_send_wc(cqe,
					&qp->sq.swqe[idx & (qp->sq.wqe_cnt - 1)],
					&wc[n++]);
				qp->sq.ci = idx + 1;
				qp->sq_seen_valid = false;
			} else {
				*consumed = false;
			}
		}
		pthread_spin_unlock(&qp->sq_lock);
		return n;
	}

	if (cqe->flags & SCENIC_CQE_F_SRQ) {
		uint64_t wr_id;

		/* the SRQ's slot; a CQE for a slot not awaiting one is dropped */
		if (!qp->srq || !scenic_srq_complete(qp->srq, idx, &wr_id))
			return 0;
		scenic_cqe_to_recv_wc(cqe, wr_id, wc);
		if (qp->verbs_qp.qp.qp_type == IBV_QPT_UD &&
		    wc->status == IBV_WC_SUCCESS)
			wc->wc_flags |= IBV_WC_GRH;
		return 1;
	}

	pthread_spin_lock(&qp->rq_lock);
	if (scenic_rq_idx_pending(&qp->rq, idx)) {
		scenic_cqe_to_recv_wc(cqe,
				      qp->rq.wr_id[idx & (qp->rq.wqe_cnt - 1)], wc);
		/* RoCE v2 always carries an IP header: the GRH is in the buffer */
		if (qp->verbs_qp.qp.qp_type == IBV_QPT_UD &&
		    wc->status == IBV_WC_SUCCESS)
			wc->wc_flags |= IBV_WC_GRH;
		qp->rq.ci = idx + 1;
		n = 1;
	}
	pthread_spin_unlock(&qp->rq_lock);
	return n;
}

/* The body of poll_cq, with cq->lock held. */
static int poll_locked(struct scenic_cq *cq, int nwc, struct ibv_wc *wc)
{
	const struct scenic_cqe *cqe;
	uint32_t ci_start = cq->ring.ci;
	bool consumed;
	unsigned int k;
	int n = 0;

	/* receive completions and errors, in ring order */
	while (n < nwc && (cqe = scenic_cq_peek(&cq->ring))) {
		if (cqe->opcode == SCENIC_CQE_OP_RESIZE) {
			int r = scenic_cq_cross_resize(cq);

			if (r < 0)
				return n ? n : r;
			if (r)	/* a new ring at 0, its record at 0 */
				ci_start = 0;
			continue;
		}
		n += poll_one_cqe(cq, cqe, wc + n, nwc - n, &consumed);
		if (!consumed)
			break;
		cq->ring.ci++;
	}
	if (cq->ring.ci != ci_start)	/* give the slots back to the card */
		cq_update_ci(cq);

	/*
	 * Successful send completions: each counter of a QP that sends here, in
	 * SQ order. A counter equal to sq.ci as the last scan left it costs
	 * one load and no lock. The scan starts after the QP where the
	 * last one stopped, so a short wc array does not always serve the
	 * first QPs of the CQ.
	 */
	for (k = 0; k < cq->n_sq_qps && n < nwc; k++) {
		struct scenic_qp *qp =
			cq->sq_qps[(cq->poll_next + k) % cq->n_sq_qps];
		uint32_t done;
		int got;

		done = (uint32_t)le64toh(__atomic_load_n(&qp->status->sq_completed,
							 __ATOMIC_ACQUIRE));
		if (qp->sq_seen_valid && qp->sq_seen == done)
			continue;
		pthread_spin_lock(&qp->sq_lock);
		got = scenic_sq_retire(&qp->sq, done, qp->verbs_qp.qp.qp_num,
				       wc + n, nwc - n);
		/*
		 * Skip this counter value next time only if nothing is left
		 * for it: not when a full wc array cut the retire short, nor
		 * for a counter behind ci (after an error CQE).
		 */
		qp->sq_seen = done;
		qp->sq_seen_valid = qp->sq.ci == done;
		pthread_spin_unlock(&qp->sq_lock);
		n += got;
	}
	if (cq->n_sq_qps)
		cq->poll_next = (cq->poll_next + k) % cq->n_sq_qps;
	return n;
}

int scenic_poll_cq(struct ibv_cq *ibvcq, int nwc, struct ibv_wc *wc)
{
	struct scenic_cq *cq = to_scenic_cq(ibvcq);
	int n;

	if (nwc < 0 || (nwc && !wc))
		return -EINVAL;
	pthread_spin_lock(&cq->lock);
	n = poll_locked(cq, nwc, wc);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int scenic_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only)
{
	struct scenic_cq *cq = to_scenic_cq(ibvcq);
	uint32_t val;

	pthread_spin_lock(&cq->lock);
	/* after a resize the card counts from 0 in the ring not yet reached */
	val = cq->resizing ? 0 : cq->ring.ci & SCENIC_DB_CQ_CI_MASK;
	if (solicited_only)
		val |= SCENIC_DB_CQ_ARM_SOLICITED;
	cq_write_db(cq, SCENIC_DB_CQ_ARM, val);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

int scenic_destroy_cq(struct ibv_cq *ibvcq)
{
	struct scenic_context *ctx = to_scenic_context(ibvcq->context);
	struct scenic_cq *cq = to_scenic_cq(ibvcq);
	int err;

	if (cq->nqps)	/* the kernel would refuse too; say why */
		return EBUSY;
	err = ibv_cmd_destroy_cq(ibvcq);
	if (err)
		return err;
	cq_unmap(cq, ctx->pg_sz);
	scenic_cq_unmap_next(cq, ctx->pg_sz);
	pthread_spin_destroy(&cq->lock);
	free(cq->by_qpn);
	free(cq->sq_qps);
	free(cq);
	return 0;
}

void scenic_cq_forget_qp(struct scenic_cq *cq, struct scenic_qp *qp)
{
	struct scenic_stale *st = cq == qp->recv_cq ? &qp->recv_stale :
						     &qp->send_stale;
	uint32_t qpn = qp->verbs_qp.qp.qp_num, k;
	const struct scenic_cqe *cqe;
	struct scenic_cq_ring r;

	pthread_spin_lock(&cq->lock);
	r = cq->ring;
	st->valid = false;
	for (k = 0; k < (1u << r.log2_cnt); k++, r.ci++) {
		cqe = scenic_cq_peek(&r);
		if (!cqe || cqe->opcode == SCENIC_CQE_OP_RESIZE)
			break;
		if (le32toh(cqe->qpn) == qpn) {
			st->end = r.ci + 1;
			st->valid = true;
		}
	}
	pthread_spin_unlock(&cq->lock);
}

/* Makes by_qpn cover qpn; with cq->lock held. */
static int cq_grow_by_qpn(struct scenic_cq *cq, uint32_t qpn)
{
	uint32_t cap = scenic_roundup_pow2(qpn + 1);
	struct scenic_qp **t;

	if (qpn >= SCENIC_CQ_MAX_QPN)
		return EINVAL;
	if (cap < 64)
		cap = 64;
	t = realloc(cq->by_qpn, cap * sizeof(*t));
	if (!t)
		return ENOMEM;
	memset(t + cq->by_qpn_cap, 0, (cap - cq->by_qpn_cap) * sizeof(*t));
	cq->by_qpn = t;
	cq->by_qpn_cap = cap;
	return 0;
}

/* Adds qp to the counters the scan reads; with cq->lock held. */
static int cq_add_sq_qp(struct scenic_cq *cq, struct scenic_qp *qp)
{
	if (cq->n_sq_qps == cq->sq_qps_cap) {
		unsigned int cap = cq->sq_qps_cap ? 2 * cq->sq_qps_cap : 8;
		struct scenic_qp **qps = realloc(cq->sq_qps, cap * sizeof(*qps));

		if (!qps)
			return ENOMEM;
		cq->sq_qps = qps;
		cq->sq_qps_cap = cap;
	}
	cq->sq_qps[cq->n_sq_qps++] = qp;
	return 0;
}

int scenic_cq_attach_qp(struct scenic_cq *cq, struct scenic_qp *qp)
{
	uint32_t qpn = qp->verbs_qp.qp.qp_num;
	int err = 0;

	pthread_spin_lock(&cq->lock);
	if (cq_find_qp(cq, qpn) == qp)
		goto out;
	if (qpn >= cq->by_qpn_cap) {
		err = cq_grow_by_qpn(cq, qpn);
		if (err)
			goto out;
	}
	if (cq->by_qpn[qpn]) {	/* the kernel gave out a QPN still in use */
		err = EEXIST;
		goto out;
	}
	if (qp->send_cq == cq) {
		err = cq_add_sq_qp(cq, qp);
		if (err)
			goto out;
		qp->sq_seen_valid = false;
	}
	cq->by_qpn[qpn] = qp;
	cq->nqps++;
out:
	pthread_spin_unlock(&cq->lock);
	return err;
}

void scenic_cq_detach_qp(struct scenic_cq *cq, struct scenic_qp *qp)
{
	uint32_t qpn = qp->verbs_qp.qp.qp_num;
	unsigned int i;

	pthread_spin_lock(&cq->lock);
	if (cq_find_qp(cq, qpn) == qp) {
		cq->by_qpn[qpn] = NULL;
		cq->nqps--;
	}
	for (i = 0; i < cq->n_sq_qps; i++) {
		if (cq->sq_qps[i] == qp) {
			cq->sq_qps[i] = cq->sq_qps[--cq->n_sq_qps];
			break;
		}
	}
	if (cq->poll_next >= cq->n_sq_qps)
		cq->poll_next = 0;
	pthread_spin_unlock(&cq->lock);
}

/* ---- ibv_cq_ex: start_poll takes the lock, end_poll drops it ---- */

static void cq_ex_load(struct scenic_cq *cq)
{
	cq->verbs_cq.cq_ex.wr_id = cq->cur_wc.wr_id;
	cq->verbs_cq.cq_ex.status = cq->cur_wc.status;
}

static int cq_ex_start_poll(struct ibv_cq_ex *ibvcqx,
			    struct ibv_poll_cq_attr *attr)
{
	struct scenic_cq *cq = cq_ex_to_scenic_cq(ibvcqx);
	int n;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	n = poll_locked(cq, 1, &cq->cur_wc);
	if (n != 1) {
		pthread_spin_unlock(&cq->lock);
		return n < 0 ? -n : ENOENT;
	}
	cq_ex_load(cq);
	return 0;
}

static int cq_ex_next_poll(struct ibv_cq_ex *ibvcqx)
{
	struct scenic_cq *cq = cq_ex_to_scenic_cq(ibvcqx);
	int n = poll_locked(cq, 1, &cq->cur_wc);

	if (n != 1)
		return n < 0 ? -n : ENOENT;
	cq_ex_load(cq);
	return 0;
}

static void cq_ex_end_poll(struct ibv_cq_ex *ibvcqx)
{
	pthread_spin_unlock(&cq_ex_to_scenic_cq(ibvcqx)->lock);
}

static enum ibv_wc_opcode cq_ex_read_opcode(struct ibv_cq_ex *c)
{
	return cq_ex_to_scenic_cq(c)->cur_wc.opcode;
}

static uint32_t cq_ex_read_vendor_err(struct ibv_cq_ex *c)
{
	return cq_ex_to_scenic_cq(c)->cur_wc.vendor_err;
}

static uint32_t cq_ex_read_byte_len(struct ibv_cq_ex *c)
{
	return cq_ex_to_scenic_cq(c)->cur_wc.byte_len;
}

static __be32 cq_ex_read_imm_data(struct ibv_cq_ex *c)
{
	const struct ibv_wc *wc = &cq_ex_to_scenic_cq(c)->cur_wc;

	/* ibv_wc_read_invalidated_rkey() reads the key through here, big endian */
	if (wc->wc_flags & IBV_WC_WITH_INV)
		return htobe32(wc->invalidated_rkey);
	return wc->imm_data;
}

static uint32_t cq_ex_read_qp_num(struct ibv_cq_ex *c)
{
	return cq_ex_to_scenic_cq(c)->cur_wc.qp_num;
}

static uint32_t cq_ex_read_src_qp(struct ibv_cq_ex *c)
{
	return cq_ex_to_scenic_cq(c)->cur_wc.src_qp;
}

static unsigned int cq_ex_read_wc_flags(struct ibv_cq_ex *c)
{
	return cq_ex_to_scenic_cq(c)->cur_wc.wc_flags;
}

/* RoCE has no LIDs or SLs: these read as zero, as in the ibv_wc. */
static uint32_t cq_ex_read_slid(struct ibv_cq_ex *c)
{
	return 0;
}

static uint8_t cq_ex_read_sl(struct ibv_cq_ex *c)
{
	return 0;
}

static uint8_t cq_ex_read_dlid_path_bits(struct ibv_cq_ex *c)
{
	return 0;
}

static void cq_ex_fill_ops(struct ibv_cq_ex *c)
{
	c->start_poll = cq_ex_start_poll;
	c->next_poll = cq_ex_next_poll;
	c->end_poll = cq_ex_end_poll;
	c->read_opcode = cq_ex_read_opcode;
	c->read_vendor_err = cq_ex_read_vendor_err;
	c->read_wc_flags = cq_ex_read_wc_flags;
	c->read_byte_len = cq_ex_read_byte_len;
	c->read_imm_data = cq_ex_read_imm_data;
	c->read_qp_num = cq_ex_read_qp_num;
	c->read_src_qp = cq_ex_read_src_qp;
	c->read_slid = cq_ex_read_slid;
	c->read_sl = cq_ex_read_sl;
	c->read_dlid_path_bits = cq_ex_read_dlid_path_bits;
}

struct ibv_cq_ex *scenic_create_cq_ex(struct ibv_context *ibvctx,
				      struct ibv_cq_init_attr_ex *attr)
{
	struct scenic_context *ctx = to_scenic_context(ibvctx);
	struct scenic_create_cq_ex_resp resp = {};
	struct scenic_create_cq_ex cmd = {};
	struct ibv_cq_init_attr_ex attr_local;
	struct scenic_cq *cq;
	int err;

	if (attr->wc_flags & ~(uint64_t)SCENIC_CQ_EX_WC_FLAGS) {
		verbs_err(&ctx->ibvctx, "unsupported wc_flags 0x%llx\n",
			  (unsigned long long)(attr->wc_flags &
					       ~(uint64_t)SCENIC_CQ_EX_WC_FLAGS));
		err = EOPNOTSUPP;
		goto err_out;
	}
	if (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		err = EOPNOTSUPP;
		goto err_out;
	}
	err = check_cqe(ibvctx, attr->cqe);
	if (err)
		goto err_out;
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		err = ENOMEM;
		goto err_out;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	fill_cq_cmd(&cmd.drv, attr->channel);

	attr_local = *attr;
	attr_local.cqe = scenic_roundup_pow2(attr->cqe);
	/* single-threaded is a hint to us, not to the kernel */
	attr_local.comp_mask &= ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr_local.flags = 0;
	err = ibv_cmd_create_cq_ex(ibvctx, &attr_local, &cq->verbs_cq,
				   &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				   sizeof(resp), 0);
	if (err) {
		verbs_err(&ctx->ibvctx, "create_cq_ex command failed (%d)\n", err);
		goto err_free;
	}
	err = cq_map(ctx, cq, &resp.drv);
	if (err)
		goto err_destroy;
	cq_ex_fill_ops(&cq->verbs_cq.cq_ex);
	return &cq->verbs_cq.cq_ex;

err_destroy:
	ibv_cmd_destroy_cq(&cq->verbs_cq.cq);
err_free:
	pthread_spin_destroy(&cq->lock);
	free(cq);
err_out:
	errno = err;
	return NULL;
}
