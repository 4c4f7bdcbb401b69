/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A CQ and QPs without a kernel or a card, for the poll_cq tests and the
 * benchmark: the CQ ring, the QPs' status pages and the CI record are host
 * memory that the test writes as the card would, and poll_cq (cq.c, the code
 * the library runs) reads them. Only fields that every version of cq.c uses
 * are touched here, so that the benchmark also builds an older cq.c.
 */
#ifndef CQ_FIXTURE_H
#define CQ_FIXTURE_H

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scenic_admin.h>

#include "scenic.h"
#include "verbs.h"

#define FX_RING_LOG2 12		/* 4096 CQEs */
#define FX_SQ_CNT 64
#define FX_RQ_CNT 64
#define FX_QPN0 2		/* QPN 0 and 1 are reserved on the card */

struct fixture {
	struct scenic_cq *cq;
	struct scenic_cqe *ring;
	struct scenic_cq_dbrec dbrec;
	uint32_t ring_pi;		/* the "card's" producer index */
	unsigned int nqps;
	struct scenic_qp **qps;
	struct scenic_qp_status *status;	/* one per QP */
};

static inline void fx_die(const char *what)
{
	fprintf(stderr, "fixture: %s\n", what);
	exit(2);
}

static inline void *fx_calloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		fx_die("out of memory");
	return p;
}

/* A CQ with nqps RC QPs whose send and receive queues complete on it. */
static inline void fx_init(struct fixture *fx, unsigned int nqps)
{
	unsigned int i;

	memset(fx, 0, sizeof(*fx));
	fx->cq = fx_calloc(1, sizeof(*fx->cq));
	pthread_spin_init(&fx->cq->lock, PTHREAD_PROCESS_PRIVATE);
	fx->ring = fx_calloc(1u << FX_RING_LOG2, sizeof(*fx->ring));
	fx->cq->ring.cqe = fx->ring;
	fx->cq->ring.log2_cnt = FX_RING_LOG2;
	fx->cq->dbrec = &fx->dbrec;
	fx->nqps = nqps;
	fx->qps = fx_calloc(nqps, sizeof(*fx->qps));
	fx->status = fx_calloc(nqps, sizeof(*fx->status));
	for (i = 0; i < nqps; i++) {
		struct scenic_qp *qp = fx_calloc(1, sizeof(*qp));

		qp->verbs_qp.qp.qp_num = FX_QPN0 + i;
		pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
		pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
		qp->sq.wqe_cnt = FX_SQ_CNT;
		qp->sq.swqe = fx_calloc(FX_SQ_CNT, sizeof(*qp->sq.swqe));
		qp->rq.wqe_cnt = FX_RQ_CNT;
		qp->rq.wr_id = fx_calloc(FX_RQ_CNT, sizeof(*qp->rq.wr_id));
		qp->status = &fx->status[i];
		qp->send_cq = fx->cq;
		qp->recv_cq = fx->cq;
		qp->state = IBV_QPS_RTS;
		if (scenic_cq_attach_qp(fx->cq, qp))
			fx_die("attach failed");
		fx->qps[i] = qp;
	}
}

/*
 * Detaches and frees the QPs and the fake memory. The CQ's own tables belong
 * to cq.c (their layout differs between versions): the caller frees those
 * and then fx->cq.
 */
static inline void fx_fini(struct fixture *fx)
{
	unsigned int i;

	for (i = 0; i < fx->nqps; i++) {
		struct scenic_qp *qp = fx->qps[i];

		if (qp) {
			scenic_cq_detach_qp(fx->cq, qp);
			free(qp->sq.swqe);
			free(qp->rq.wr_id);
			free(qp);
		}
	}
	free(fx->ring);
	free(fx->qps);
	free(fx->status);
}

/* What ibv_post_send records for a WRITE (no WQE bytes: the card is fake). */
static inline void fx_post_send(struct scenic_qp *qp, uint64_t wr_id,
				bool signaled)
{
	struct scenic_swqe *s = &qp->sq.swqe[qp->sq.pi & (FX_SQ_CNT - 1)];

	s->wr_id = wr_id;
	s->byte_len = 8;
	s->wc_opcode = IBV_WC_RDMA_WRITE;
	s->signaled = signaled;
	qp->sq.pi++;
}

static inline uint32_t fx_post_recv(struct scenic_qp *qp, uint64_t wr_id)
{
	qp->rq.wr_id[qp->rq.pi & (FX_RQ_CNT - 1)] = wr_id;
	return qp->rq.pi++;
}

/* The card's side: n more SQ WQEs of qp completed successfully. */
static inline void fx_complete_sends(struct fixture *fx, unsigned int i,
				     uint32_t n)
{
	uint64_t v = le64toh(fx->status[i].sq_completed) + n;

	__atomic_store_n(&fx->status[i].sq_completed, htole64(v),
			 __ATOMIC_RELEASE);
}

/* The card's side: one CQE at the producer index, flags (owner bit) last. */
static inline void fx_write_cqe(struct fixture *fx, uint32_t qpn,
				uint32_t wqe_idx, uint8_t flags, uint8_t status,
				uint8_t opcode, uint32_t byte_len)
{
	struct scenic_cqe *c = &fx->ring[fx->ring_pi & ((1u << FX_RING_LOG2) - 1)];
	uint8_t owner = ((fx->ring_pi >> FX_RING_LOG2) & 1) ^ 1;

	c->wqe_idx = htole32(wqe_idx);
	c->qpn = htole32(qpn);
	c->byte_len = htole32(byte_len);
	c->src_qp = htole32(0);
	c->status = status;
	c->opcode = opcode;
	c->vendor_err = 0;
	__atomic_store_n(&c->flags, (uint8_t)(flags | owner), __ATOMIC_RELEASE);
	fx->ring_pi++;
}

#endif /* CQ_FIXTURE_H */
