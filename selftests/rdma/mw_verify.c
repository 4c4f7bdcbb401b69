// SPDX-License-Identifier: MIT
/*
 * Memory windows through libibverbs (docs/verbs-completeness.md 5.1), on one
 * node: QP A (requester) and QP B (the window's side) of one device, connected
 * through the card's loopback. B binds a type 2 window with IBV_WR_BIND_MW and a
 * type 1 window with ibv_bind_mw(); A writes and reads through the windows'
 * rkeys (data checked), an access outside a window and after LOCAL_INV fails on
 * A with IBV_WC_REM_ACCESS_ERR, SEND_WITH_INV invalidates (B's receive carries
 * IBV_WC_WITH_INV and the key), and the MR cannot be deregistered while a
 * window is bound to it.
 *
 * Usage: mw_verify DEVICE
 */
#include "rdma_common.h"

#define BUF_B		(64 * 1024)
#define BUF_A		(16 * 1024)
#define WIN_OFF		(4096 + 100)
#define WIN_LEN		8192
#define POLL_MS		5000

struct end {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static struct ibv_pd *pd;
static struct end a, b;
static int gid_idx;
static enum ibv_mtu mtu;
static union ibv_gid gid;
static uint8_t *buf_a, *buf_b;
static struct ibv_mr *mr_a, *mr_b;

static void to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
}

/* Both QPs RESET -> RTS towards each other (after an error too); CQs drained. */
static void connect_pair(void)
{
	struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc;

	ibv_modify_qp(a.qp, &r, IBV_QP_STATE);
	ibv_modify_qp(b.qp, &r, IBV_QP_STATE);
	while (ibv_poll_cq(a.cq, 1, &wc) > 0)
		;
	while (ibv_poll_cq(b.cq, 1, &wc) > 0)
		;
	to_init(a.qp);
	to_init(b.qp);
	rc_connect(a.qp, gid_idx, mtu, gid.raw, b.qp->qp_num, 0x200, 0x100);
	rc_connect(b.qp, gid_idx, mtu, gid.raw, a.qp->qp_num, 0x100, 0x200);
}

static struct end make_end(struct ibv_context *ctx)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct end e;

	e.cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!e.cq)
		die("ibv_create_cq");
	ia.send_cq = e.cq;
	ia.recv_cq = e.cq;
	e.qp = ibv_create_qp(pd, &ia);
	if (!e.qp)
		die("ibv_create_qp");
	return e;
}

/* A's one-sided operation on [raddr, raddr + len) through @rkey: its completion. */
static struct ibv_wc rdma_op(enum ibv_wr_opcode op, uint64_t raddr, uint32_t len,
			     uint32_t rkey, uint32_t a_off)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf_a + a_off, .length = len,
			       .lkey = mr_a->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(a.qp, &wr, &bad)) {
		struct ibv_wc wc = { .status = (enum ibv_wc_status)-2 };

		return wc;
	}
	return poll_wc(a.cq, POLL_MS);
}

/* B posts a BIND_MW (type 2) or LOCAL_INV WR: its completion. */
static struct ibv_wc b_post(struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(b.qp, wr, &bad)) {
		struct ibv_wc wc = { .status = (enum ibv_wc_status)-2 };

		return wc;
	}
	return poll_wc(b.cq, POLL_MS);
}

static struct ibv_wc bind2(struct ibv_mw *mw, uint32_t rkey, uint64_t off, uint64_t len)
{
	struct ibv_send_wr wr = { .wr_id = 2, .opcode = IBV_WR_BIND_MW };

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr_b;
	wr.bind_mw.bind_info.addr = (uintptr_t)buf_b + off;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	return b_post(&wr);
}

static bool wc_is(const struct ibv_wc *wc, enum ibv_wc_status st, enum ibv_wc_opcode op)
{
	return wc->status == st && (st != IBV_WC_SUCCESS || wc->opcode == op);
}

/* A writes @len pattern bytes at window offset @off and reads them back into a fresh spot. */
static bool write_read(uint64_t win, uint32_t off, uint32_t len, uint32_t rkey, uint64_t seed)
{
	struct ibv_wc wc;

	fill(buf_a, 0, len, seed);
	memset(buf_a + 8192, 0, len);
	wc = rdma_op(IBV_WR_RDMA_WRITE, win + off, len, rkey, 0);
	if (!wc_is(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE) ||
	    memcmp(buf_b + (win - (uintptr_t)buf_b) + off, buf_a, len))
		return false;
	wc = rdma_op(IBV_WR_RDMA_READ, win + off, len, rkey, 8192);
	return wc_is(&wc, IBV_WC_SUCCESS, IBV_WC_RDMA_READ) && !memcmp(buf_a + 8192, buf_a, len);
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct ibv_device_attr_ex dattr;
	struct ibv_mw *mw1, *mw2;
	uint64_t win = 0;
	uint32_t k2 = 0;
	struct ibv_wc wc;
	uint8_t before[64];
	bool ok;

	rc_prog = "mw_verify";
	if (argc != 2) {
		fprintf(stderr, "usage: mw_verify DEVICE\n");
		return 2;
	}
	ksft_print_header();
	ctx = open_device(argv[1]);
	gid_idx = find_roce4_gid(ctx, &gid, &mtu);
	if (ibv_query_device_ex(ctx, NULL, &dattr))
		die("ibv_query_device_ex");
	tap((dattr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	    (dattr.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) &&
	    dattr.orig_attr.max_mw > 0,
	    "device reports memory windows (cap flags 0x%llx, max_mw %d)",
	    (unsigned long long)dattr.orig_attr.device_cap_flags, dattr.orig_attr.max_mw);

	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	buf_a = aligned_alloc(4096, BUF_A);
	buf_b = aligned_alloc(4096, BUF_B);
	if (!buf_a || !buf_b)
		die("aligned_alloc");
	memset(buf_b, 0x5a, BUF_B);
	mr_a = ibv_reg_mr(pd, buf_a, BUF_A, IBV_ACCESS_LOCAL_WRITE);
	mr_b = ibv_reg_mr(pd, buf_b, BUF_B, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
	if (!mr_a || !mr_b)
		die("ibv_reg_mr");
	a = make_end(ctx);
	b = make_end(ctx);
	connect_pair();

	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	tap(mw1 && mw2, "ibv_alloc_mw type 1 and type 2 (errno %d)", mw1 && mw2 ? 0 : errno);
	if (!mw1 || !mw2)
		goto out;

	/* type 2, bound by a WR on B's QP */
	win = (uintptr_t)buf_b + WIN_OFF;
	k2 = ibv_inc_rkey(mw2->rkey);
	wc = bind2(mw2, k2, WIN_OFF, WIN_LEN);
	tap(wc_is(&wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW),
	    "type 2: IBV_WR_BIND_MW completes (status %d, opcode %d)", wc.status, wc.opcode);
	tap(write_read(win, 100, 3000, k2, 1) && write_read(win, 0, WIN_LEN, k2, 2),
	    "type 2: WRITE and READ through the window's rkey, data checked");

	memcpy(before, buf_b + WIN_OFF + WIN_LEN - 4, sizeof(before));
	wc = rdma_op(IBV_WR_RDMA_WRITE, win + WIN_LEN - 4, 8, k2, 0);
	tap(wc.status == IBV_WC_REM_ACCESS_ERR &&
	    !memcmp(before, buf_b + WIN_OFF + WIN_LEN - 4, sizeof(before)),
	    "type 2: a WRITE across the window's end fails with REM_ACCESS_ERR (status %d), nothing written",
	    wc.status);
	connect_pair();

	{
		struct ibv_send_wr inv = { .wr_id = 3, .opcode = IBV_WR_LOCAL_INV,
					   .invalidate_rkey = k2 };

		wc = b_post(&inv);
	}
	tap(wc_is(&wc, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV),
	    "type 2: IBV_WR_LOCAL_INV completes (status %d, opcode %d)", wc.status, wc.opcode);
	wc = rdma_op(IBV_WR_RDMA_WRITE, win, 8, k2, 0);
	tap(wc.status == IBV_WC_REM_ACCESS_ERR,
	    "type 2: the invalidated rkey gives REM_ACCESS_ERR (status %d)", wc.status);
	connect_pair();

	/* SEND_WITH_INV: bound again with the next tag, invalidated by A's send */
	k2 = ibv_inc_rkey(k2);
	wc = bind2(mw2, k2, WIN_OFF, WIN_LEN);
	ok = wc_is(&wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW) && write_read(win, 8, 64, k2, 3);
	{
		struct ibv_sge rs = { .addr = (uintptr_t)buf_b, .length = 4096, .lkey = mr_b->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 9, .sg_list = &rs, .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { .addr = (uintptr_t)buf_a, .length = 1500, .lkey = mr_a->lkey };
		struct ibv_send_wr swr = { .wr_id = 4, .sg_list = &ss, .num_sge = 1,
					   .opcode = IBV_WR_SEND_WITH_INV,
					   .send_flags = IBV_SEND_SIGNALED,
					   .invalidate_rkey = k2 }, *sbad;
		struct ibv_wc rwc;

		fill(buf_a, 0, 1500, 4);
		if (ibv_post_recv(b.qp, &rwr, &rbad) || ibv_post_send(a.qp, &swr, &sbad))
			die("post SEND_WITH_INV");
		wc = poll_wc(a.cq, POLL_MS);
		rwc = poll_wc(b.cq, POLL_MS);
		tap(ok && wc_is(&wc, IBV_WC_SUCCESS, IBV_WC_SEND) && rwc.status == IBV_WC_SUCCESS &&
		    rwc.opcode == IBV_WC_RECV && (rwc.wc_flags & IBV_WC_WITH_INV) &&
		    rwc.invalidated_rkey == k2 && rwc.byte_len == 1500 && !memcmp(buf_b, buf_a, 1500),
		    "SEND_WITH_INV: receive has IBV_WC_WITH_INV and the key (flags 0x%x, key 0x%x of 0x%x)",
		    rwc.wc_flags, rwc.invalidated_rkey, k2);
	}
	wc = rdma_op(IBV_WR_RDMA_WRITE, win, 8, k2, 0);
	tap(wc.status == IBV_WC_REM_ACCESS_ERR,
	    "SEND_WITH_INV: the key is invalid afterwards (status %d)", wc.status);
	connect_pair();

	/* type 1, bound with ibv_bind_mw() */
	{
		struct ibv_mw_bind bind = { .wr_id = 5, .send_flags = IBV_SEND_SIGNALED };
		uint32_t old = mw1->rkey;
		int err;

		bind.bind_info.mr = mr_b;
		bind.bind_info.addr = (uintptr_t)buf_b + 32768;
		bind.bind_info.length = 4096;
		bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		err = ibv_bind_mw(b.qp, mw1, &bind);
		wc = poll_wc(b.cq, POLL_MS);
		tap(!err && wc_is(&wc, IBV_WC_SUCCESS, IBV_WC_BIND_MW) && mw1->rkey != old,
		    "type 1: ibv_bind_mw completes with a new rkey (err %d, status %d)", err,
		    wc.status);
		tap(write_read((uintptr_t)buf_b + 32768, 0, 4096, mw1->rkey, 5),
		    "type 1: WRITE and READ through the window's rkey, data checked");
		tap(ibv_dereg_mr(mr_b) != 0, "dereg_mr of an MR with a bound window is refused");
		/* unbind (length 0), then the MR may go */
		bind.bind_info.mr = NULL;
		bind.bind_info.addr = 0;
		bind.bind_info.length = 0;
		bind.bind_info.mw_access_flags = 0;
		err = ibv_bind_mw(b.qp, mw1, &bind);
		wc = poll_wc(b.cq, POLL_MS);
		tap(!err && wc.status == IBV_WC_SUCCESS,
		    "type 1: unbind (length 0) completes (err %d, status %d)", err, wc.status);
	}
	tap(!ibv_dealloc_mw(mw1) && !ibv_dealloc_mw(mw2), "ibv_dealloc_mw of both windows");
	mw1 = mw2 = NULL;
	tap(!ibv_dereg_mr(mr_b), "dereg_mr once no window is bound");
	mr_b = NULL;
out:
	tap_finish();
	return 0;
}
