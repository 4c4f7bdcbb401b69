// SPDX-License-Identifier: MIT
/*
 * ibv_resize_cq with traffic in flight (docs/verbs-completeness.md 5.2), on
 * one node: QP A sends to QP B of the same device through the card's
 * loopback. B's receive CQ is resized in the middle of every batch of SENDs,
 * with the first half's receives not polled, so receives land before and
 * after the RESIZE CQE;
 * A's send CQ is resized too (its completions are counters, not CQEs). Every
 * receive completion must come exactly once, in order, with its length,
 * immediate and data; every signaled send completion too. A resize below the
 * completions not yet polled fails with EINVAL and changes nothing.
 *
 * Usage: cq_resize DEVICE
 */
#include "rdma_common.h"

#define MSGS		600	/* SENDs in all */
#define BATCH		40
#define SLOT		1024	/* receive i lands in buf_b + (i % RQ) * SLOT */
#define RQ		256
#define POLL_MS		10000

static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_qp *qa, *qb;
static uint8_t *buf_a, *buf_b;
static struct ibv_mr *mr_a, *mr_b;

static uint32_t msg_len(uint32_t i)
{
	return 1 + (i * 37) % SLOT;
}

static void post_recv(uint32_t i)
{
	struct ibv_sge s = { .addr = (uintptr_t)buf_b + (uint64_t)(i % RQ) * SLOT,
			     .length = SLOT, .lkey = mr_b->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &s, .num_sge = 1 }, *bad;

	if (ibv_post_recv(qb, &wr, &bad))
		die("ibv_post_recv");
}

/* SEND i: its pattern in buf_a's slot i % RQ, immediate i; every 3rd unsignaled. */
static void post_send(uint32_t i)
{
	struct ibv_sge s = { .addr = (uintptr_t)buf_a + (uint64_t)(i % RQ) * SLOT,
			     .length = msg_len(i), .lkey = mr_a->lkey };
	struct ibv_send_wr wr = { .wr_id = i, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND_WITH_IMM,
				  .send_flags = i % 3 ? IBV_SEND_SIGNALED : 0 }, *bad;

	wr.imm_data = htobe32(0xc0000000u | i);
	fill(buf_a + (uint64_t)(i % RQ) * SLOT, 0, msg_len(i), i);
	if (ibv_post_send(qa, &wr, &bad))
		die("ibv_post_send");
}

struct tally {
	uint32_t next_recv;	/* the receive expected next */
	uint32_t next_send;	/* the signaled send expected after the last one seen */
	uint32_t sends;		/* signaled send completions */
	uint32_t bad;		/* completions out of order, wrong or corrupt */
	char why[160];
};

static void bad(struct tally *t, const char *what, uint32_t got, uint32_t want)
{
	if (!t->bad++)
		snprintf(t->why, sizeof(t->why), "%s: got %u, expected %u", what, got, want);
}

static void check_recv(struct tally *t, const struct ibv_wc *wc)
{
	uint32_t i = t->next_recv++;
	uint8_t *p = buf_b + (uint64_t)(i % RQ) * SLOT;

	if (wc->status != IBV_WC_SUCCESS)
		return bad(t, "receive status", wc->status, IBV_WC_SUCCESS);
	if (wc->wr_id != i)
		return bad(t, "receive wr_id", (uint32_t)wc->wr_id, i);
	if (wc->opcode != IBV_WC_RECV || !(wc->wc_flags & IBV_WC_WITH_IMM) ||
	    be32toh(wc->imm_data) != (0xc0000000u | i))
		return bad(t, "receive immediate", be32toh(wc->imm_data), 0xc0000000u | i);
	if (wc->byte_len != msg_len(i))
		return bad(t, "receive length", wc->byte_len, msg_len(i));
	for (uint32_t k = 0; k < msg_len(i); k++)
		if (p[k] != pat(i, k))
			return bad(t, "receive data: byte offset of a bad byte", k, i);
	/* the slot is reused RQ messages later: a new receive for it */
	if (i + RQ < MSGS)
		post_recv(i + RQ);
}

static void check_send(struct tally *t, const struct ibv_wc *wc)
{
	uint32_t i = t->next_send;

	while (i % 3 == 0)	/* unsignaled ones report nothing */
		i++;
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_SEND)
		return bad(t, "send status", wc->status, IBV_WC_SUCCESS);
	if (wc->wr_id != i)
		return bad(t, "send wr_id", (uint32_t)wc->wr_id, i);
	t->next_send = i + 1;
	t->sends++;
}

static uint32_t signaled_below(uint32_t n)
{
	return n - (n + 2) / 3;
}

/*
 * Polls both CQs until the first @recvs receives and their signaled sends
 * are in, or POLL_MS pass; false if not.
 */
static bool drain(struct tally *t, uint32_t recvs)
{
	uint64_t end = now_ms() + POLL_MS;
	struct ibv_wc wc[16];

	while ((t->next_recv < recvs || t->sends < signaled_below(recvs)) &&
	       now_ms() < end) {
		int n = ibv_poll_cq(rcq, 16, wc);
		int m;

		if (n < 0)
			return false;
		for (int k = 0; k < n; k++)
			check_recv(t, &wc[k]);
		m = ibv_poll_cq(scq, 16, wc);
		if (m < 0)
			return false;
		for (int k = 0; k < m; k++)
			check_send(t, &wc[k]);
		if (!n && !m)
			usleep(50);
	}
	return t->next_recv == recvs && t->sends == signaled_below(recvs);
}

static void drain_sends(struct tally *t, uint32_t want)
{
	uint64_t end = now_ms() + POLL_MS;
	struct ibv_wc wc[16];

	while (t->sends < want && now_ms() < end) {
		int m = ibv_poll_cq(scq, 16, wc);

		if (m < 0)
			return;
		for (int k = 0; k < m; k++)
			check_send(t, &wc[k]);
		if (!m)
			usleep(50);
	}
}

static struct ibv_qp *make_qp(void)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC, .send_cq = scq, .recv_cq = rcq,
		.cap = { .max_send_wr = 2 * BATCH, .max_recv_wr = RQ, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	return qp;
}

int main(int argc, char **argv)
{
	/* the receive CQ's sizes, one per batch: up and down, odd and even */
	static const int sizes[] = { 64, 300, 41, 128, 1000, 50, 90, 2048, 45, 63, 129, 77 };
	struct tally t = { 0 };
	struct ibv_context *ctx;
	enum ibv_mtu mtu;
	union ibv_gid gid;
	uint32_t posted = 0, resizes = 0, resize_err = 0, small_cqe = 0;
	bool ok;
	int gid_idx, err, last_err = 0;
	uint64_t t0;

	rc_prog = "cq_resize";
	if (argc != 2) {
		fprintf(stderr, "usage: cq_resize DEVICE\n");
		return 2;
	}
	ksft_print_header();
	ctx = open_device(argv[1]);
	gid_idx = find_roce4_gid(ctx, &gid, &mtu);
	pd = ibv_alloc_pd(ctx);
	buf_a = aligned_alloc(4096, RQ * SLOT);
	buf_b = aligned_alloc(4096, RQ * SLOT);
	if (!pd || !buf_a || !buf_b)
		die("set-up");
	memset(buf_b, 0, RQ * SLOT);
	mr_a = ibv_reg_mr(pd, buf_a, RQ * SLOT, IBV_ACCESS_LOCAL_WRITE);
	mr_b = ibv_reg_mr(pd, buf_b, RQ * SLOT, IBV_ACCESS_LOCAL_WRITE);
	scq = ibv_create_cq(ctx, 2 * BATCH, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 2 * BATCH, NULL, NULL, 0);
	if (!mr_a || !mr_b || !scq || !rcq)
		die("set-up");
	qa = make_qp();
	qb = make_qp();
	rc_connect(qa, gid_idx, mtu, gid.raw, qb->qp_num, 0x300, 0x400);
	rc_connect(qb, gid_idx, mtu, gid.raw, qa->qp_num, 0x400, 0x300);
	for (uint32_t i = 0; i < RQ; i++)
		post_recv(i);

	/* 1. below the completions not yet polled: EINVAL, nothing lost */
	for (uint32_t i = 0; i < 8; i++)
		post_send(posted++);
	/* the sends complete after their receives: then 8 receive CQEs wait */
	drain_sends(&t, signaled_below(posted));
	err = ibv_resize_cq(rcq, 3);
	tap(err == EINVAL, "resize to 3 with 8 receives not polled fails with EINVAL (%d)", err);
	ok = drain(&t, posted) && !t.bad;
	tap(ok, "the 8 receives are all there afterwards (%u, %s)", t.next_recv,
	    t.bad ? t.why : "in order");

	/* 2. a resize in the middle of each batch, on both CQs */
	t0 = now_ms();
	for (uint32_t b = 0; posted < MSGS; b++) {
		int want = sizes[b % (sizeof(sizes) / sizeof(sizes[0]))];

		for (uint32_t i = 0; i < BATCH / 2 && posted < MSGS; i++)
			post_send(posted++);
		err = ibv_resize_cq(rcq, want);
		if (!err) {
			resizes++;
			if (rcq->cqe < want)
				small_cqe++;
		} else if (err != EAGAIN) {	/* EAGAIN: the last RESIZE CQE not polled yet */
			resize_err++;
			last_err = err;
		}
		for (uint32_t i = 0; i < BATCH / 2 && posted < MSGS; i++)
			post_send(posted++);
		if (b % 3 == 1 && !ibv_resize_cq(scq, BATCH * 2 + (int)b))
			resizes++;
		if (!drain(&t, posted))
			break;
	}
	drain_sends(&t, signaled_below(MSGS));
	tap(resizes >= MSGS / BATCH && !resize_err && !small_cqe,
	    "%u resizes while SENDs were in flight, none refused (last error %d), cqe >= asked",
	    resizes, last_err);
	tap(t.next_recv == MSGS && !t.bad,
	    "all %u receive completions exactly once, in order, length/immediate/data checked (%u; %s)",
	    MSGS, t.next_recv, t.bad ? t.why : "ok");
	tap(t.sends == signaled_below(MSGS) && !t.bad,
	    "all %u signaled send completions in order (%u)", signaled_below(MSGS), t.sends);
	ksft_print_msg("%u messages with resizes in %llu ms\n", MSGS,
		       (unsigned long long)(now_ms() - t0));

	/* 3. the CQs still work and go away cleanly */
	{
		struct ibv_wc wc;

		tap(ibv_poll_cq(rcq, 1, &wc) == 0 && ibv_poll_cq(scq, 1, &wc) == 0,
		    "nothing left over in either CQ");
	}
	tap(!ibv_destroy_qp(qa) && !ibv_destroy_qp(qb) && !ibv_destroy_cq(scq) &&
	    !ibv_destroy_cq(rcq), "destroy QPs and resized CQs");
	tap_finish();
	return 0;
}
