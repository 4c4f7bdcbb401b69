// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Host micro-benchmark of poll_cq (cq.c) on the fake CQ of cq_fixture.h: N
 * QPs on one CQ, each with 4 signaled WRITEs in flight, and the "card"
 * (this program) completing work between polls. Built once per cq.c
 * version by tools/bench/poll-cq, which prints them side by side.
 *
 *   cq_poll_bench N [SECONDS]
 *
 * Prints one line per scenario: "<scenario> <N> <ns per completion>" (for
 * "empty", ns per poll that found nothing). Every poll's result is checked;
 * a wrong count exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cq_fixture.h"

#define INFLIGHT 4
#define NWC 16

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void expect(int got, int want, const char *what)
{
	if (got != want) {
		fprintf(stderr, "cq_poll_bench: %s: poll gave %d, expected %d\n",
			what, got, want);
		exit(1);
	}
}

/* The card completes one WRITE of one QP; one poll reports it; the QP posts another. */
static double one_per_poll(struct fixture *fx, double secs)
{
	struct ibv_cq *cq = &fx->cq->verbs_cq.cq;
	struct ibv_wc wc[NWC];
	unsigned long done = 0;
	double t0 = now(), t;

	do {
		unsigned int k;

		for (k = 0; k < 256; k++, done++) {
			unsigned int i = done % fx->nqps;

			fx_complete_sends(fx, i, 1);
			expect(scenic_poll_cq(cq, NWC, wc), 1, "one send");
			fx_post_send(fx->qps[i], done, true);
		}
		t = now() - t0;
	} while (t < secs);
	return t * 1e9 / done;
}

/* Every QP completes one WRITE; polls of NWC drain them; each QP posts another. */
static double burst(struct fixture *fx, double secs)
{
	struct ibv_cq *cq = &fx->cq->verbs_cq.cq;
	struct ibv_wc wc[NWC];
	unsigned long done = 0;
	double t0 = now(), t;

	do {
		unsigned int i, got = 0, polls = 0;
		int n;

		for (i = 0; i < fx->nqps; i++)
			fx_complete_sends(fx, i, 1);
		while (got < fx->nqps && polls++ <= fx->nqps) {
			n = scenic_poll_cq(cq, NWC, wc);
			if (n <= 0)
				break;
			got += n;
		}
		expect(got, fx->nqps, "burst");
		for (i = 0; i < fx->nqps; i++)
			fx_post_send(fx->qps[i], done + i, true);
		done += fx->nqps;
		t = now() - t0;
	} while (t < secs);
	return t * 1e9 / done;
}

/* A receive CQE of one QP (round robin) per poll; no counter moves. */
static double recv_one(struct fixture *fx, double secs)
{
	struct ibv_cq *cq = &fx->cq->verbs_cq.cq;
	struct ibv_wc wc[NWC];
	unsigned long done = 0;
	double t0 = now(), t;

	do {
		unsigned int k;

		for (k = 0; k < 256; k++, done++) {
			struct scenic_qp *qp = fx->qps[done % fx->nqps];
			uint32_t idx = fx_post_recv(qp, done);

			fx_write_cqe(fx, qp->verbs_qp.qp.qp_num, idx, 0,
				     SCENIC_CQE_STATUS_SUCCESS,
				     SCENIC_CQE_OP_RECV, 64);
			expect(scenic_poll_cq(cq, NWC, wc), 1, "one receive");
		}
		t = now() - t0;
	} while (t < secs);
	return t * 1e9 / done;
}

/* Nothing completed: what a busy-polling thread pays per empty poll. */
static double empty(struct fixture *fx, double secs)
{
	struct ibv_cq *cq = &fx->cq->verbs_cq.cq;
	struct ibv_wc wc[NWC];
	unsigned long polls = 0;
	double t0 = now(), t;

	do {
		unsigned int k;

		for (k = 0; k < 256; k++, polls++)
			expect(scenic_poll_cq(cq, NWC, wc), 0, "empty");
		t = now() - t0;
	} while (t < secs);
	return t * 1e9 / polls;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	double secs = argc > 2 ? strtod(argv[2], NULL) : 0.3;
	struct fixture fx;
	unsigned int i, k;

	if (!n || n > 500 || secs <= 0) {
		fprintf(stderr, "usage: cq_poll_bench N(1..500) [SECONDS]\n");
		return 2;
	}
	fx_init(&fx, n);
	for (i = 0; i < n; i++)
		for (k = 0; k < INFLIGHT; k++)
			fx_post_send(fx.qps[i], k, true);
	printf("send-1-per-poll %u %.1f\n", n, one_per_poll(&fx, secs));
	printf("send-burst %u %.1f\n", n, burst(&fx, secs));
	printf("recv-1-per-poll %u %.1f\n", n, recv_one(&fx, secs));
	printf("empty-poll %u %.1f\n", n, empty(&fx, secs));
	fx_fini(&fx);	/* the CQ's tables and fx.cq are left to exit */
	return 0;
}
