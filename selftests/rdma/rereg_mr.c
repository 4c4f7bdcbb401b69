// SPDX-License-Identifier: MIT
/*
 * ibv_rereg_mr (docs/verbs-completeness.md 5.3), on one node: QP A writes
 * and reads QP B's MR through the card's loopback. B moves the MR to a new
 * buffer while A's WRITEs to the old one are in flight: the key stays, each
 * WRITE either landed before (success) or is refused after (REM_ACCESS_ERR),
 * and the old buffer does not change once ibv_rereg_mr returned; the new
 * buffer is written and read through the same rkey. Then an access change
 * (remote write taken away) and a PD change are enforced on the next access.
 *
 * Usage: rereg_mr DEVICE
 */
#include "rdma_common.h"

#define LEN		(64 * 1024)
#define WRITES		64
#define CHUNK		1024
#define POLL_MS		10000

static struct ibv_pd *pd;
static struct ibv_cq *cq_a, *cq_b;
static struct ibv_qp *qa, *qb;
static int gid_idx;
static enum ibv_mtu mtu;
static union ibv_gid gid;
static uint8_t *buf_a, *old_b, *new_b, *snap;
static struct ibv_mr *mr_a, *mr_b;

static struct ibv_qp *make_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 2 * WRITES, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
}

/* Both QPs RESET -> RTS (after an error too), CQs drained. */
static void connect_pair(void)
{
	struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc;

	ibv_modify_qp(qa, &r, IBV_QP_STATE);
	ibv_modify_qp(qb, &r, IBV_QP_STATE);
	while (ibv_poll_cq(cq_a, 1, &wc) > 0)
		;
	while (ibv_poll_cq(cq_b, 1, &wc) > 0)
		;
	to_init(qa);
	to_init(qb);
	rc_connect(qa, gid_idx, mtu, gid.raw, qb->qp_num, 0x500, 0x600);
	rc_connect(qb, gid_idx, mtu, gid.raw, qa->qp_num, 0x600, 0x500);
}

static void post(enum ibv_wr_opcode op, uint64_t id, uint8_t *local, uint64_t raddr,
		 uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)local, .length = len, .lkey = mr_a->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = mr_b->rkey;
	if (ibv_post_send(qa, &wr, &bad))
		die("ibv_post_send");
}

static enum ibv_wc_status op1(enum ibv_wr_opcode op, uint8_t *local, uint64_t raddr,
			      uint32_t len)
{
	post(op, 99, local, raddr, len);
	return poll_wc(cq_a, POLL_MS).status;
}

int main(int argc, char **argv)
{
	uint32_t rkey, ok = 0, refused = 0, other = 0, flushed = 0;
	struct ibv_context *ctx;
	struct ibv_pd *pd2;
	int rc;

	rc_prog = "rereg_mr";
	if (argc != 2) {
		fprintf(stderr, "usage: rereg_mr DEVICE\n");
		return 2;
	}
	ksft_print_header();
	ctx = open_device(argv[1]);
	gid_idx = find_roce4_gid(ctx, &gid, &mtu);
	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	buf_a = aligned_alloc(4096, LEN);
	old_b = aligned_alloc(4096, LEN);
	new_b = aligned_alloc(4096, LEN);
	snap = malloc(LEN);
	if (!pd || !pd2 || !buf_a || !old_b || !new_b || !snap)
		die("set-up");
	memset(old_b, 0x0d, LEN);
	memset(new_b, 0x4e, LEN);
	mr_a = ibv_reg_mr(pd, buf_a, LEN, IBV_ACCESS_LOCAL_WRITE);
	mr_b = ibv_reg_mr(pd, old_b, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ);
	cq_a = ibv_create_cq(ctx, 4 * WRITES, NULL, NULL, 0);
	cq_b = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!mr_a || !mr_b || !cq_a || !cq_b)
		die("set-up");
	qa = make_qp(cq_a);
	qb = make_qp(cq_b);
	connect_pair();
	rkey = mr_b->rkey;

	/* 1. WRITEs into the old buffer in flight while it is moved */
	fill(buf_a, 0, LEN, 1);
	for (uint32_t i = 0; i < WRITES; i++)
		post(IBV_WR_RDMA_WRITE, i, buf_a + (uint64_t)i * CHUNK,
		     (uintptr_t)old_b + (uint64_t)i * CHUNK, CHUNK);
	rc = ibv_rereg_mr(mr_b, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, new_b, LEN, 0);
	memcpy(snap, old_b, LEN);	/* the card no longer reaches it */
	tap(rc == 0 && mr_b->rkey == rkey && mr_b->addr == new_b,
	    "ibv_rereg_mr moves the MR to a new buffer, same rkey (rc %d, errno %d)", rc,
	    rc ? errno : 0);
	for (uint32_t i = 0; i < WRITES; i++) {
		struct ibv_wc wc = poll_wc(cq_a, POLL_MS);

		if (wc.status == IBV_WC_SUCCESS)
			ok++;
		else if (wc.status == IBV_WC_REM_ACCESS_ERR)
			refused++;
		else if (wc.status == IBV_WC_WR_FLUSH_ERR)
			flushed++;	/* after the first refusal the QP is in error */
		else
			other++;
	}
	tap(ok + refused + flushed == WRITES && !other,
	    "every in-flight WRITE landed before (%u) or was refused after (%u, then %u flushed)",
	    ok, refused, flushed);
	usleep(100 * 1000);
	tap(!memcmp(snap, old_b, LEN), "the old buffer did not change after ibv_rereg_mr returned");
	{
		bool landed = true;

		/* WRITEs complete in order: the first `ok` ones are those that landed */
		for (uint32_t i = 0; i < ok; i++)
			landed = landed && !memcmp(old_b + (uint64_t)i * CHUNK,
						   buf_a + (uint64_t)i * CHUNK, CHUNK);
		tap(landed, "the %u WRITEs that completed are in the old buffer", ok);
	}

	/* 2. the new buffer through the same rkey */
	connect_pair();
	fill(buf_a, 0, 8192, 2);
	rc = op1(IBV_WR_RDMA_WRITE, buf_a, (uintptr_t)new_b + 4096 + 3, 8192);
	tap(rc == IBV_WC_SUCCESS && !memcmp(new_b + 4096 + 3, buf_a, 8192) &&
	    !memcmp(snap, old_b, LEN),
	    "WRITE through the rkey lands in the new buffer, the old one untouched (status %d)",
	    rc);
	memset(buf_a + 16384, 0, 8192);
	rc = op1(IBV_WR_RDMA_READ, buf_a + 16384, (uintptr_t)new_b + 4096 + 3, 8192);
	tap(rc == IBV_WC_SUCCESS && !memcmp(buf_a + 16384, buf_a, 8192),
	    "READ through the rkey returns the new buffer's bytes (status %d)", rc);
	rc = op1(IBV_WR_RDMA_WRITE, buf_a, (uintptr_t)old_b, 64);
	tap(rc == IBV_WC_REM_ACCESS_ERR && !memcmp(snap, old_b, LEN),
	    "a WRITE to the old address range is refused (status %d)", rc);

	/* 3. access: remote write taken away */
	connect_pair();
	rc = ibv_rereg_mr(mr_b, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	tap(rc == 0, "ibv_rereg_mr changes the access (rc %d)", rc);
	rc = op1(IBV_WR_RDMA_READ, buf_a + 16384, (uintptr_t)new_b, 64);
	tap(rc == IBV_WC_SUCCESS, "READ still allowed (status %d)", rc);
	memcpy(snap, new_b, LEN);
	rc = op1(IBV_WR_RDMA_WRITE, buf_a, (uintptr_t)new_b, 64);
	tap(rc == IBV_WC_REM_ACCESS_ERR && !memcmp(snap, new_b, LEN),
	    "WRITE refused without remote write, nothing written (status %d)", rc);

	/* 4. PD: the MR leaves the QPs' PD */
	connect_pair();
	rc = ibv_rereg_mr(mr_b, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	tap(rc == 0 && mr_b->pd == pd2, "ibv_rereg_mr moves the MR to another PD (rc %d)", rc);
	rc = op1(IBV_WR_RDMA_READ, buf_a + 16384, (uintptr_t)new_b, 64);
	tap(rc == IBV_WC_REM_ACCESS_ERR, "a QP of the old PD is refused (status %d)", rc);
	rc = ibv_rereg_mr(mr_b, IBV_REREG_MR_CHANGE_PD, pd, NULL, 0, 0);
	connect_pair();
	tap(rc == 0 && op1(IBV_WR_RDMA_READ, buf_a + 16384, (uintptr_t)new_b, 64) ==
			IBV_WC_SUCCESS, "back in the QPs' PD, READ works again");

	tap(!ibv_destroy_qp(qa) && !ibv_destroy_qp(qb) && !ibv_dereg_mr(mr_b) &&
	    !ibv_dereg_mr(mr_a) && !ibv_destroy_cq(cq_a) && !ibv_destroy_cq(cq_b),
	    "tear-down");
	tap_finish();
	return 0;
}
