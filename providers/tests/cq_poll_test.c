// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Unit tests of poll_cq (providers/scenic/cq.c, the code the library runs)
 * on a fake CQ ring and fake status pages (cq_fixture.h): 1 and 500 QPs on
 * one CQ, every WC checked (wr_id, status, opcode, qp_num, order per QP,
 * each exactly once), receive CQEs found by QPN, short wc arrays, error and
 * flush CQEs after counter completions, attach refusals, the switch to a
 * resized CQ's new ring. Prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cq_fixture.h"

static int tests;
static int failed;

static void check(bool cond, const char *fmt, const char *name)
{
	tests++;
	if (!cond)
		failed++;
	printf("%sok %d - %s%s\n", cond ? "" : "not ", tests, fmt, name);
}

static void fx_free(struct fixture *fx)
{
	fx_fini(fx);
	free(fx->cq->by_qpn);
	free(fx->cq->sq_qps);
	free(fx->cq);
}

static uint64_t wr_id_of(uint32_t qpn, uint32_t k)
{
	return ((uint64_t)qpn << 16) | k;
}

/*
 * Every QP posts per_qp signaled WRITEs (and one unsignaled one between
 * them), the card completes them all; polling with nwc until empty must give
 * exactly per_qp WCs per QP, in post order, and nothing else.
 */
static bool drain_all(unsigned int nqps, unsigned int per_qp, int nwc,
		      char *why, size_t whylen)
{
	struct fixture fx;
	struct ibv_wc wc[64];
	uint32_t *next = calloc(nqps, sizeof(*next));
	unsigned int i, total = 0, polls = 0;
	bool good = next != NULL;
	int n, j;

	fx_init(&fx, nqps);
	for (i = 0; i < nqps; i++) {
		uint32_t k;

		for (k = 0; k < per_qp; k++) {
			fx_post_send(fx.qps[i], wr_id_of(FX_QPN0 + i, k), true);
			fx_post_send(fx.qps[i], 0xdead, false);
		}
		fx_complete_sends(&fx, i, 2 * per_qp);
	}
	snprintf(why, whylen, "%s", "");
	while (good && polls++ < 100000 && (n = scenic_poll_cq(&fx.cq->verbs_cq.cq, nwc, wc)) > 0) {
		if (n > nwc) {
			snprintf(why, whylen, " # poll returned %d > nwc %d", n, nwc);
			good = false;
		}
		for (j = 0; good && j < n; j++) {
			uint32_t qpn = wc[j].qp_num;

			if (qpn < FX_QPN0 || qpn >= FX_QPN0 + nqps ||
			    wc[j].status != IBV_WC_SUCCESS ||
			    wc[j].opcode != IBV_WC_RDMA_WRITE ||
			    wc[j].byte_len != 8 ||
			    next[qpn - FX_QPN0] >= per_qp ||
			    wc[j].wr_id != wr_id_of(qpn, next[qpn - FX_QPN0])) {
				snprintf(why, whylen,
					 " # bad WC: qpn %u wr_id 0x%llx status %d opcode %d",
					 qpn, (unsigned long long)wc[j].wr_id,
					 wc[j].status, wc[j].opcode);
				good = false;
				break;
			}
			next[qpn - FX_QPN0]++;
			total++;
		}
	}
	if (good && total != nqps * per_qp) {
		snprintf(why, whylen, " # %u WCs, expected %u", total, nqps * per_qp);
		good = false;
	}
	for (i = 0; good && i < nqps; i++)
		if (fx.qps[i]->sq.ci != fx.qps[i]->sq.pi) {
			snprintf(why, whylen, " # QP %u: ci %u pi %u", i,
				 fx.qps[i]->sq.ci, fx.qps[i]->sq.pi);
			good = false;
		}
	fx_free(&fx);
	free(next);
	return good;
}

static void test_drain(void)
{
	static const struct { unsigned int nqps, per_qp; int nwc; } cases[] = {
		{ 1, 4, 16 }, { 1, 20, 1 }, { 500, 4, 16 }, { 500, 4, 1 },
		{ 500, 20, 64 }, { 3, 7, 5 },
	};
	char why[160], name[256];
	size_t c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		bool good = drain_all(cases[c].nqps, cases[c].per_qp, cases[c].nwc,
				      why, sizeof(why));

		snprintf(name, sizeof(name),
			 "%u QPs x %u signaled WRITEs on one CQ, nwc %d: each WC once, in order per QP%s",
			 cases[c].nqps, cases[c].per_qp, cases[c].nwc, why);
		check(good, "", name);
	}
}

/* With 500 QPs busy, completions of one QP come out, and only those. */
static void test_one_of_500(void)
{
	struct fixture fx;
	struct ibv_wc wc[16];
	unsigned int i;
	bool good;
	int n, k;

	fx_init(&fx, 500);
	for (i = 0; i < 500; i++)
		for (k = 0; k < 4; k++)
			fx_post_send(fx.qps[i], wr_id_of(FX_QPN0 + i, k), true);
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc);
	good = n == 0;
	fx_complete_sends(&fx, 377, 3);
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc);
	good = good && n == 3;
	for (k = 0; good && k < n; k++)
		good = wc[k].qp_num == FX_QPN0 + 377 &&
		       wc[k].wr_id == wr_id_of(FX_QPN0 + 377, k);
	good = good && scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc) == 0;
	/* the counter moves again after polls that skipped it */
	fx_complete_sends(&fx, 377, 1);
	good = good && scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc) == 1 &&
	       wc[0].wr_id == wr_id_of(FX_QPN0 + 377, 3);
	check(good, "", "500 busy QPs: an empty poll gives 0, then exactly the 3 + 1 WCs of the QP whose counter moved");
	fx_free(&fx);
}

/* Receive CQEs find their QP by QPN among 500; unknown and detached QPNs give nothing. */
static void test_recv_by_qpn(void)
{
	struct fixture fx;
	struct ibv_wc wc[16];
	uint32_t idx0, idx1, idx2;
	struct scenic_qp *gone;
	bool good;
	int n;

	fx_init(&fx, 500);
	idx0 = fx_post_recv(fx.qps[499], 0x4990);
	idx1 = fx_post_recv(fx.qps[0], 0x0000);
	idx2 = fx_post_recv(fx.qps[250], 0x2500);
	fx_write_cqe(&fx, FX_QPN0 + 499, idx0, 0, SCENIC_CQE_STATUS_SUCCESS,
		     SCENIC_CQE_OP_RECV, 100);
	fx_write_cqe(&fx, 9999, 0, 0, SCENIC_CQE_STATUS_SUCCESS,
		     SCENIC_CQE_OP_RECV, 1);	/* no such QP */
	fx_write_cqe(&fx, FX_QPN0 + 0, idx1, 0, SCENIC_CQE_STATUS_SUCCESS,
		     SCENIC_CQE_OP_RECV, 200);
	/* QP 250 is destroyed before its CQE is polled */
	gone = fx.qps[250];
	scenic_cq_detach_qp(fx.cq, gone);
	fx_write_cqe(&fx, FX_QPN0 + 250, idx2, 0, SCENIC_CQE_STATUS_SUCCESS,
		     SCENIC_CQE_OP_RECV, 300);
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc);
	good = n == 2 &&
	       wc[0].wr_id == 0x4990 && wc[0].qp_num == FX_QPN0 + 499 &&
	       wc[0].opcode == IBV_WC_RECV && wc[0].byte_len == 100 &&
	       wc[1].wr_id == 0x0000 && wc[1].qp_num == FX_QPN0 &&
	       wc[1].byte_len == 200 &&
	       fx.cq->ring.ci == 4 && le32toh(fx.dbrec.ci) == 4;
	check(good, "", "500 QPs: receive CQEs reach their QP by QPN, in ring order; unknown and detached QPNs are consumed silently");
	/* reattaching the same QPN works, a second QP with it is refused */
	good = scenic_cq_attach_qp(fx.cq, gone) == 0 &&
	       scenic_cq_attach_qp(fx.cq, gone) == 0 &&
	       fx.cq->nqps == 500;
	check(good, "", "attach is idempotent for the same QP");
	{
		struct scenic_qp dup = {};

		dup.verbs_qp.qp.qp_num = FX_QPN0 + 7;
		dup.send_cq = fx.cq;
		good = scenic_cq_attach_qp(fx.cq, &dup) == EEXIST;
		dup.verbs_qp.qp.qp_num = SCENIC_CQ_MAX_QPN;
		good = good && scenic_cq_attach_qp(fx.cq, &dup) == EINVAL &&
		       fx.cq->nqps == 500;
		check(good, "", "attach refuses a QPN already in the table (EEXIST) and one beyond the table's range (EINVAL)");
	}
	fx_free(&fx);
}

/*
 * Counter completions, then an error CQE and a flush CQE for the next WQEs:
 * WCs in SQ order, and a counter left behind ci retires nothing more.
 */
static void test_error_after_counter(void)
{
	struct fixture fx;
	struct ibv_wc wc[16];
	struct scenic_qp *qp;
	bool good;
	int n, k;

	fx_init(&fx, 500);
	qp = fx.qps[123];
	for (k = 0; k < 4; k++)
		fx_post_send(qp, wr_id_of(qp->verbs_qp.qp.qp_num, k), true);
	fx_complete_sends(&fx, 123, 1);
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc);
	good = n == 1 && wc[0].wr_id == wr_id_of(qp->verbs_qp.qp.qp_num, 0);
	/* WQE 2 fails: its CQE says WQE 1 completed (counter not yet moved) */
	fx_write_cqe(&fx, qp->verbs_qp.qp.qp_num, 2, SCENIC_CQE_F_SQ,
		     SCENIC_CQE_STATUS_REM_ACCESS, SCENIC_CQE_OP_WRITE, 0);
	fx_write_cqe(&fx, qp->verbs_qp.qp.qp_num, 3, SCENIC_CQE_F_SQ,
		     SCENIC_CQE_STATUS_FLUSHED, SCENIC_CQE_OP_WRITE, 0);
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc);
	good = good && n == 3 &&
	       wc[0].wr_id == wr_id_of(qp->verbs_qp.qp.qp_num, 1) &&
	       wc[0].status == IBV_WC_SUCCESS &&
	       wc[1].wr_id == wr_id_of(qp->verbs_qp.qp.qp_num, 2) &&
	       wc[1].status == IBV_WC_REM_ACCESS_ERR &&
	       wc[2].wr_id == wr_id_of(qp->verbs_qp.qp.qp_num, 3) &&
	       wc[2].status == IBV_WC_WR_FLUSH_ERR;
	/* the counter now catches up to 2 (behind ci 4): nothing more */
	fx_complete_sends(&fx, 123, 1);
	good = good && scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc) == 0 &&
	       scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc) == 0 &&
	       qp->sq.ci == 4;
	check(good, "", "counter WC, then error and flush CQEs: WCs in SQ order; a counter behind ci retires nothing");
	fx_free(&fx);
}

/* A QP that only receives here is not in the send scan. */
static void test_recv_only_qp(void)
{
	struct fixture fx, fx2;
	struct scenic_cq *other;
	struct ibv_wc wc[4];
	struct scenic_qp *qp;
	bool good;

	fx_init(&fx, 2);
	fx_init(&fx2, 0);
	other = fx2.cq;
	qp = fx.qps[1];
	scenic_cq_detach_qp(fx.cq, qp);
	qp->send_cq = other;
	good = scenic_cq_attach_qp(other, qp) == 0 &&
	       scenic_cq_attach_qp(fx.cq, qp) == 0 &&
	       fx.cq->n_sq_qps == 1 && other->n_sq_qps == 1 && fx.cq->nqps == 2;
	fx_post_send(qp, 77, true);
	fx_complete_sends(&fx, 1, 1);
	good = good && scenic_poll_cq(&fx.cq->verbs_cq.cq, 4, wc) == 0 &&
	       scenic_poll_cq(&other->verbs_cq.cq, 4, wc) == 1 && wc[0].wr_id == 77;
	check(good, "", "a QP's send completions come out of its send CQ only, not its receive CQ");
	scenic_cq_detach_qp(other, qp);
	fx_free(&fx);
	fx_free(&fx2);
}

/* A page-aligned anonymous mapping, as the kernel's rings are. */
static void *fx_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fx_die("mmap");
	return p;
}

/* One receive CQE into @ring (2^log2 slots) at free-running index @pi. */
static void put_cqe(struct scenic_cqe *ring, unsigned int log2, uint32_t pi,
		    uint32_t qpn, uint32_t idx, uint8_t opcode)
{
	struct scenic_cqe *c = &ring[pi & ((1u << log2) - 1)];

	memset(c, 0, sizeof(*c));
	c->qpn = htole32(qpn);
	c->wqe_idx = htole32(idx);
	c->byte_len = htole32(64 + idx);
	c->opcode = opcode;
	__atomic_store_n(&c->flags, (uint8_t)(((pi >> log2) & 1) ^ 1),
			 __ATOMIC_RELEASE);
}

/*
 * ibv_resize_cq's poll side (cq_resize.c): receives in the old ring, the
 * RESIZE CQE, more receives in the new ring from index 0 with phase 1; one
 * poll returns all of them in order and leaves the CQ on the new ring with
 * its new CI record. A RESIZE CQE nobody asked for is skipped; one whose
 * ring could not be mapped makes poll fail with EIO.
 */
static void test_resize_crossing(void)
{
	struct scenic_cq_dbrec *old_rec = fx_map(4096), *new_rec = fx_map(4096);
	struct scenic_cqe *new_ring = fx_map(4096);
	struct fixture fx;
	struct ibv_wc wc[16];
	struct scenic_qp *qp;
	uint32_t k;
	bool good;
	int n;

	fx_init(&fx, 1);
	qp = fx.qps[0];
	fx.cq->dbrec = old_rec;
	for (k = 0; k < 6; k++)
		fx_post_recv(qp, 0x100 + k);
	/* the old ring: 2 receives and the RESIZE CQE; the new one: 3 receives */
	fx_write_cqe(&fx, FX_QPN0, 0, 0, SCENIC_CQE_STATUS_SUCCESS, SCENIC_CQE_OP_RECV, 64);
	fx_write_cqe(&fx, FX_QPN0, 1, 0, SCENIC_CQE_STATUS_SUCCESS, SCENIC_CQE_OP_RECV, 65);
	fx_write_cqe(&fx, 0, 0, 0, SCENIC_CQE_STATUS_SUCCESS, SCENIC_CQE_OP_RESIZE, 16);
	for (k = 0; k < 3; k++)
		put_cqe(new_ring, 4, k, FX_QPN0, 2 + k, SCENIC_CQE_OP_RECV);
	fx.cq->resizing = true;
	fx.cq->next.ring_map = new_ring;
	fx.cq->next.ring_map_size = 4096;
	fx.cq->next.dbrec = new_rec;
	fx.cq->next.log2_cnt = 4;
	fx.cq->next.pg_sz = 4096;
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc);
	good = n == 5 && !fx.cq->resizing && fx.cq->ring.cqe == new_ring &&
	       fx.cq->ring.ci == 3 && le32toh(new_rec->ci) == 3;
	for (k = 0; good && k < 5; k++)
		good = wc[k].wr_id == 0x100 + k && wc[k].status == IBV_WC_SUCCESS &&
		       wc[k].opcode == IBV_WC_RECV && wc[k].byte_len == 64 + k;
	check(good, "", "resize: receives before and after the RESIZE CQE in one poll, in order; the CQ is on the new ring and its record");

	/* a stray RESIZE CQE in the new ring: skipped, the receive after it is reported */
	put_cqe(new_ring, 4, 3, 0, 0, SCENIC_CQE_OP_RESIZE);
	put_cqe(new_ring, 4, 4, FX_QPN0, 5, SCENIC_CQE_OP_RECV);
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc);
	good = n == 1 && wc[0].wr_id == 0x105 && fx.cq->ring.ci == 5 &&
	       le32toh(new_rec->ci) == 5;
	check(good, "", "resize: a RESIZE CQE without a resize is consumed silently");

	/* the next ring was never mapped: poll fails instead of losing completions */
	fx.cq->resize_lost = true;
	put_cqe(new_ring, 4, 5, 0, 0, SCENIC_CQE_OP_RESIZE);
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 16, wc);
	check(n == -EIO, "", "resize: a RESIZE CQE whose ring is not mapped fails poll with EIO");
	fx.cq->resize_lost = false;

	munmap(new_ring, 4096);
	munmap(new_rec, 4096);
	fx.cq->dbrec = NULL;
	fx_free(&fx);
}

/*
 * A QP reset with CQEs of its old incarnation still in the CQ (flushed
 * receives): after the reset they are dropped, and the new incarnation's
 * first CQE, with the same WQE index, is reported once.
 */
static void test_reset_forgets_old_cqes(void)
{
	struct fixture fx;
	struct ibv_wc wc[8];
	struct scenic_qp *qp;
	bool good;
	int n;

	fx_init(&fx, 2);
	qp = fx.qps[0];
	fx_post_recv(qp, 0xa0);
	fx_post_recv(qp, 0xa1);
	fx_write_cqe(&fx, FX_QPN0, 0, 0, SCENIC_CQE_STATUS_FLUSHED, SCENIC_CQE_OP_RECV, 0);
	fx_post_recv(fx.qps[1], 0xb0);	/* another QP's CQE in between stays */
	fx_write_cqe(&fx, FX_QPN0 + 1, 0, 0, SCENIC_CQE_STATUS_SUCCESS, SCENIC_CQE_OP_RECV, 7);
	fx_write_cqe(&fx, FX_QPN0, 1, 0, SCENIC_CQE_STATUS_FLUSHED, SCENIC_CQE_OP_RECV, 0);
	/* modify_qp(RESET): forget, then the rings start again */
	scenic_cq_forget_qp(fx.cq, qp);
	qp->rq.pi = qp->rq.ci = 0;
	fx_post_recv(qp, 0xc0);
	fx_write_cqe(&fx, FX_QPN0, 0, 0, SCENIC_CQE_STATUS_SUCCESS, SCENIC_CQE_OP_RECV, 9);
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 8, wc);
	good = n == 2 && wc[0].wr_id == 0xb0 && wc[0].qp_num == FX_QPN0 + 1 &&
	       wc[1].wr_id == 0xc0 && wc[1].status == IBV_WC_SUCCESS &&
	       wc[1].byte_len == 9 && fx.cq->ring.ci == 4 && !qp->recv_stale.valid;
	check(good, "", "reset: the QP's CQEs from before the reset are dropped, others' and the new ones reported");
	fx_free(&fx);
}

/*
 * SRQ receive CQEs (srq.c): a 4-slot SRQ shared by two QPs. Posting fills
 * the ring and the record and rings the doorbell; a fifth post is ENOMEM.
 * CQEs with F_SRQ give the slot's wr_id and the receiving QP, in any order;
 * a repeated CQE and one for a slot never posted are dropped. A slot is
 * posted again only once its CQE was polled.
 */
static void test_srq(void)
{
	struct scenic_srq *srq = fx_calloc(1, sizeof(*srq));
	struct scenic_srq_dbrec rec = {};
	uint32_t *db = fx_calloc(1024, sizeof(uint32_t));
	struct ibv_sge sge = { .addr = 0x1000, .length = 64, .lkey = 0x105 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad = NULL;
	const struct scenic_rq_wqe *w;
	struct fixture fx;
	struct ibv_wc wc[8];
	bool good = true;
	int n, i;

	fx_init(&fx, 2);
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	srq->wqe_cnt = 4;
	srq->max_sge = 3;
	srq->buf = fx_calloc(4, SCENIC_RQ_WQE_BYTES);
	srq->wr_id = fx_calloc(4, sizeof(*srq->wr_id));
	srq->polled = fx_calloc(4, 1);
	memset(srq->polled, 1, 4);
	srq->dbrec = &rec;
	srq->db_page = db;
	fx.qps[0]->srq = srq;
	fx.qps[1]->srq = srq;
	for (i = 0; i < 4; i++) {
		wr.wr_id = 100 + i;
		sge.addr = 0x1000 + 64 * i;
		good = good && scenic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == 0;
	}
	wr.wr_id = 104;
	w = (const struct scenic_rq_wqe *)(srq->buf + 2 * SCENIC_RQ_WQE_BYTES);
	good = good && scenic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == ENOMEM && bad == &wr &&
	       le32toh(rec.pi) == 4 && le32toh(db[SCENIC_DB_SRQ / 4]) == 4 &&
	       le16toh(w->num_sge) == 1 && le64toh(w->sge[0].addr) == 0x1000 + 128 &&
	       le32toh(w->sge[0].lkey) == 0x105;
	check(good, "", "srq: 4 WQEs fill a 4-slot ring (record and doorbell at 4), a fifth is ENOMEM");

	fx_write_cqe(&fx, FX_QPN0 + 1, 1, SCENIC_CQE_F_SRQ, SCENIC_CQE_STATUS_SUCCESS,
		     SCENIC_CQE_OP_RECV, 11);
	fx_write_cqe(&fx, FX_QPN0, 0, SCENIC_CQE_F_SRQ, SCENIC_CQE_STATUS_SUCCESS,
		     SCENIC_CQE_OP_RECV, 10);
	fx_write_cqe(&fx, FX_QPN0, 1, SCENIC_CQE_F_SRQ, SCENIC_CQE_STATUS_SUCCESS,
		     SCENIC_CQE_OP_RECV, 12);	/* slot 1 again: dropped */
	fx_write_cqe(&fx, FX_QPN0, 7, SCENIC_CQE_F_SRQ, SCENIC_CQE_STATUS_SUCCESS,
		     SCENIC_CQE_OP_RECV, 13);	/* never posted: dropped */
	n = scenic_poll_cq(&fx.cq->verbs_cq.cq, 8, wc);
	good = n == 2 && wc[0].wr_id == 101 && wc[0].qp_num == FX_QPN0 + 1 &&
	       wc[0].byte_len == 11 && wc[0].status == IBV_WC_SUCCESS &&
	       wc[1].wr_id == 100 && wc[1].qp_num == FX_QPN0 && wc[1].byte_len == 10 &&
	       fx.cq->ring.ci == 4;
	check(good, "", "srq: F_SRQ CQEs give the slot's wr_id and the receiving QP in any slot order; a repeated or never-posted slot is dropped");

	wr.wr_id = 200;
	good = scenic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == 0;
	wr.wr_id = 201;
	good = good && scenic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == 0;
	wr.wr_id = 202;	/* slot 2: its CQE not polled yet */
	good = good && scenic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == ENOMEM &&
	       le32toh(rec.pi) == 6 && srq->wr_id[0] == 200 && srq->wr_id[1] == 201;
	check(good, "", "srq: polled slots are posted again, the next unpolled one is ENOMEM");

	fx_free(&fx);
	free(srq->buf);
	free(srq->wr_id);
	free(srq->polled);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	free(db);
}

int main(void)
{
	test_drain();
	test_one_of_500();
	test_recv_by_qpn();
	test_error_after_counter();
	test_recv_only_qp();
	test_resize_crossing();
	test_reset_forgets_old_cqes();
	test_srq();
	printf("1..%d\n", tests);
	return failed ? 1 : 0;
}
