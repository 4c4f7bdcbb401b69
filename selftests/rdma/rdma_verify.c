// SPDX-License-Identifier: MIT
/*
 * rdma_verify: data-integrity and error-path test of an RC device, over plain
 * libibverbs (no provider-specific code), between two nodes.
 *
 *   node 2:  rdma_verify -s [-d dev] [-p port]
 *   node 1:  rdma_verify -c <server IPv4> [-d dev] [-p port] [-n rounds] [-t secs] [-q] [-L]
 *
 * The client drives every test; the server answers commands over a TCP
 * connection (fill or hash a region of its buffer, post a receive, poll its
 * receive CQ, set up a fresh QP). Data is checked on the side that received it,
 * including guard bytes around every region, so a transfer that writes too
 * much, too little or to the wrong place fails. Output is TAP through the
 * kernel's kselftest.h (rdma_common.h); the exit status is 0 only if every
 * test passed, 1 if one failed, 2 on set-up errors.
 *
 * Tests: RDMA WRITE, READ, SEND (SGE lists, inline), SEND/WRITE with
 * immediate, fetch-and-add and compare-and-swap, over sizes 0 .. 1 MiB at
 * unaligned addresses; 16-SGE lists of unaligned, separated pieces (WRITE
 * gathers, READ and the receive of a SEND scatter); a bad rkey, an rkey used
 * out of bounds and a bad lkey (error completions, target untouched); invalid QP state transitions (EINVAL).
 * -n runs the data tests that many rounds; -t SECS repeats rounds until SECS
 * have passed (checked after each round, at most -n rounds, default 1000) and
 * reports the rounds and the time in one more TAP line.
 */
#include <getopt.h>
#include <inttypes.h>

#include "rdma_common.h"

#define BUF_SIZE	(3u << 20)	/* data region: 1 MiB transfers at offsets */
#define ATOMIC_OFF	(BUF_SIZE - 64)	/* 8-byte aligned atomic target */
#define GUARD		16		/* bytes checked on each side of a region */
#define CQ_DEPTH	64
#define OP_TIMEOUT_MS	30000
#define MAX_SGE_USED	3
#define SGE_LIST	16	/* the scatter/gather list test (issue 18 item 4) */

enum cmd_op {
	CMD_FILL = 1,		/* a = off, b = len, x = seed */
	CMD_HASH,		/* a = off, b = len -> v */
	CMD_SET64,		/* a = off, x = value */
	CMD_GET64,		/* a = off -> v */
	CMD_POST_RECV,		/* a = off, b = len (0: no SGE), c = SGEs */
	CMD_POLL_RECV,		/* -> wc fields */
	CMD_NEWQP,		/* a = client qpn, b = client psn -> qpn, psn */
	CMD_POST_RECV_SPREAD,	/* a = off, b = len, c = SGEs: sge_layout() pieces */
	CMD_QUIT,
};

struct cmd {
	uint32_t op, a, b, c;
	uint64_t x;
};

struct reply {
	int32_t status;		/* 0 ok, else -errno or ibv_wc_status + 1000 */
	uint32_t qpn, psn;
	uint32_t wc_opcode, wc_flags, byte_len, imm_be, src_qp;
	uint64_t v;
};

struct conn_info {
	uint32_t qpn, psn, rkey, pad;
	uint64_t addr;
	uint8_t gid[16];
};

struct ctx {
	struct ibv_context *dev;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint8_t *buf;
	int gid_idx;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	uint32_t max_inline;
	uint32_t max_sge;	/* the device's, capped at SGE_LIST */
	struct conn_info peer;
	int sock;
};

/* ---- TCP control channel ---- */

static struct reply call(struct ctx *c, struct cmd cmd)
{
	struct reply r;

	xfer(c->sock, &cmd, sizeof(cmd), true);
	xfer(c->sock, &r, sizeof(r), false);
	return r;
}

/*
 * @n pieces holding @len bytes from @off on: uneven odd lengths, each
 * followed by a gap of 1..7 bytes, so that no piece starts where the previous
 * one ended and few are aligned. Fills @poff / @plen; returns the span
 * (pieces and the gaps between them).
 */
static uint32_t sge_layout(uint32_t off, uint32_t len, int n, uint32_t *poff, uint32_t *plen)
{
	uint32_t w[SGE_LIST], wsum = 0, done = 0, at = off;

	for (int i = 0; i < n; i++) {
		w[i] = 1 + (i * 37) % 11;
		wsum += w[i];
	}
	for (int i = 0; i < n; i++) {
		plen[i] = i == n - 1 ? len - done : (uint32_t)((uint64_t)len * w[i] / wsum);
		poff[i] = at;
		done += plen[i];
		at += plen[i] + (i == n - 1 ? 0 : 1 + (i * 3) % 7);
	}
	return at - off;
}

static void sge_list(struct ctx *c, struct ibv_sge *sge, uint32_t off, uint32_t len, int n)
{
	uint32_t poff[SGE_LIST], plen[SGE_LIST];

	sge_layout(off, len, n, poff, plen);
	for (int i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)c->buf + poff[i];
		sge[i].length = plen[i];
		sge[i].lkey = c->mr->lkey;
	}
}

/* ---- verbs set-up ---- */

static struct ibv_qp *make_qp(struct ctx *c)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = c->scq, .recv_cq = c->rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = c->max_sge, .max_recv_sge = c->max_sge,
			 .max_inline_data = 64 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	struct ibv_qp *qp = ibv_create_qp(c->pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	c->max_inline = ia.cap.max_inline_data;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	return qp;
}

static void connect_qp(struct ctx *c, uint32_t my_psn, uint32_t qpn, uint32_t psn)
{
	rc_connect(c->qp, c->gid_idx, c->mtu, c->peer.gid, qpn, psn, my_psn);
}

static void setup(struct ctx *c, const char *devname)
{
	c->dev = open_device(devname);
	c->gid_idx = find_roce4_gid(c->dev, &c->gid, &c->mtu);
	c->pd = ibv_alloc_pd(c->dev);
	if (!c->pd)
		die("ibv_alloc_pd");
	{
		struct ibv_device_attr da;

		if (ibv_query_device(c->dev, &da))
			die("ibv_query_device");
		/* 16-SGE QPs where the device has them; the SGE test fails otherwise */
		c->max_sge = da.max_sge < SGE_LIST ? (uint32_t)da.max_sge : SGE_LIST;
		if (c->max_sge < MAX_SGE_USED)
			c->max_sge = MAX_SGE_USED;
	}
	c->buf = aligned_alloc(4096, BUF_SIZE);
	if (!c->buf)
		die("aligned_alloc");
	memset(c->buf, 0, BUF_SIZE);
	c->mr = ibv_reg_mr(c->pd, c->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (!c->mr)
		die("ibv_reg_mr");
	c->scq = ibv_create_cq(c->dev, CQ_DEPTH, NULL, NULL, 0);
	c->rcq = ibv_create_cq(c->dev, CQ_DEPTH, NULL, NULL, 0);
	if (!c->scq || !c->rcq)
		die("ibv_create_cq");
	c->qp = make_qp(c);
}

static struct conn_info my_info(struct ctx *c, uint32_t psn)
{
	struct conn_info i = { .qpn = c->qp->qp_num, .psn = psn, .rkey = c->mr->rkey,
			       .addr = (uintptr_t)c->buf };

	memcpy(i.gid, c->gid.raw, 16);
	return i;
}

/* Poll @cq for one completion; false on timeout. */
static bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	uint64_t end = now_ms() + OP_TIMEOUT_MS;

	while (now_ms() < end) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return false;
		if (n == 1)
			return true;
	}
	return false;
}

/* ---- server ---- */

static void serve(struct ctx *c)
{
	for (;;) {
		struct cmd m;
		struct reply r = { 0 };

		xfer(c->sock, &m, sizeof(m), false);
		if ((uint64_t)m.a + m.b > BUF_SIZE && m.op != CMD_NEWQP) {
			r.status = -EINVAL;
			xfer(c->sock, &r, sizeof(r), true);
			continue;
		}
		switch (m.op) {
		case CMD_FILL:
			fill(c->buf + m.a, m.a, m.b, m.x);
			break;
		case CMD_HASH:
			r.v = fnv(c->buf + m.a, m.b);
			break;
		case CMD_SET64:
			memcpy(c->buf + m.a, &m.x, 8);
			break;
		case CMD_GET64:
			memcpy(&r.v, c->buf + m.a, 8);
			break;
		case CMD_POST_RECV: {
			struct ibv_sge sge[MAX_SGE_USED];
			struct ibv_recv_wr wr = { .wr_id = m.a, .sg_list = sge }, *bad;
			uint32_t n = m.b ? (m.c ? m.c : 1) : 0, part = n ? m.b / n : 0;

			for (uint32_t i = 0; i < n && i < MAX_SGE_USED; i++) {
				sge[i].addr = (uintptr_t)c->buf + m.a + i * part;
				sge[i].length = i == n - 1 ? m.b - i * part : part;
				sge[i].lkey = c->mr->lkey;
			}
			wr.num_sge = n;
			r.status = ibv_post_recv(c->qp, &wr, &bad) ? -errno : 0;
			break;
		}
		case CMD_POST_RECV_SPREAD: {
			struct ibv_sge sge[SGE_LIST];
			struct ibv_recv_wr wr = { .wr_id = m.a, .sg_list = sge }, *bad;

			if (!m.c || m.c > SGE_LIST) {
				r.status = -EINVAL;
				break;
			}
			sge_list(c, sge, m.a, m.b, m.c);
			wr.num_sge = m.c;
			r.status = ibv_post_recv(c->qp, &wr, &bad) ? -errno : 0;
			break;
		}
		case CMD_POLL_RECV: {
			struct ibv_wc wc;

			if (!poll_one(c->rcq, &wc)) {
				r.status = -ETIMEDOUT;
				break;
			}
			r.status = wc.status ? 1000 + wc.status : 0;
			r.wc_opcode = wc.opcode;
			r.wc_flags = wc.wc_flags;
			r.byte_len = wc.byte_len;
			r.imm_be = wc.imm_data;
			r.src_qp = wc.src_qp;
			break;
		}
		case CMD_NEWQP: {
			uint32_t psn = rand() & 0xffffff;

			ibv_destroy_qp(c->qp);
			c->qp = make_qp(c);
			connect_qp(c, psn, m.a, m.b);
			r.qpn = c->qp->qp_num;
			r.psn = psn;
			break;
		}
		case CMD_QUIT:
			xfer(c->sock, &r, sizeof(r), true);
			return;
		default:
			r.status = -EINVAL;
		}
		xfer(c->sock, &r, sizeof(r), true);
	}
}

/* ---- client tests ---- */

/* Post one send WR with up to @nsge SGEs over local [loff, loff + len). */
static int post(struct ctx *c, enum ibv_wr_opcode op, uint32_t loff, uint32_t len, int nsge,
		uint64_t roff, uint32_t rkey, uint32_t lkey, unsigned int flags,
		uint64_t cmp_add, uint64_t swap, uint32_t imm)
{
	struct ibv_sge sge[MAX_SGE_USED];
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = sge, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED | flags,
				  .imm_data = htonl(imm) }, *bad;
	uint32_t part;

	if (!len)
		nsge = 0;
	part = nsge ? len / nsge : 0;
	for (int i = 0; i < nsge; i++) {
		sge[i].addr = (uintptr_t)c->buf + loff + i * part;
		sge[i].length = i == nsge - 1 ? len - i * part : part;
		sge[i].lkey = lkey;
	}
	wr.num_sge = nsge;
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = c->peer.addr + roff;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = c->peer.addr + roff;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(c->qp, &wr, &bad) ? errno : 0;
}

/* Wait for the send completion; returns its status, or -1 on timeout. */
static int complete(struct ctx *c, struct ibv_wc *wc)
{
	if (!poll_one(c->scq, wc))
		return -1;
	return wc->status;
}

static uint64_t remote_hash(struct ctx *c, uint32_t off, uint32_t len)
{
	return call(c, (struct cmd){ .op = CMD_HASH, .a = off, .b = len }).v;
}

/* Expected hash of the server window [off - GUARD, off + len + GUARD) */
static uint64_t expect_window(const uint8_t *data, uint32_t off, uint32_t len, uint64_t bg)
{
	static uint8_t tmp[(1u << 20) + 4 * GUARD];

	fill(tmp, off - GUARD, GUARD, bg);
	memcpy(tmp + GUARD, data, len);
	fill(tmp + GUARD + len, off + len, GUARD, bg);
	return fnv(tmp, len + 2 * GUARD);
}

static const uint32_t sizes_full[] = { 0, 1, 7, 255, 256, 1023, 1024, 1025, 4095, 4096, 4097,
				       65536, 65539, 1u << 20 };
static const uint32_t sizes_quick[] = { 0, 1, 1024, 1025, 4096, 65536, 1u << 20 };

struct size_list {
	const uint32_t *v;
	size_t n;
};

/* RDMA WRITE (and WRITE with immediate when @imm) of every size. */
static void test_write(struct ctx *c, struct size_list sz, bool imm, unsigned int round)
{
	int bad = 0;
	char why[160] = "";

	for (size_t i = 0; i < sz.n; i++) {
		uint32_t len = sz.v[i], loff = 3 + i, roff = 4096 + 5 + 2 * i;
		uint64_t seed = 100 + i + round * 1000, bg = 200 + i;
		struct ibv_wc wc;
		struct reply r;

		fill(c->buf + loff, loff, len, seed);
		call(c, (struct cmd){ .op = CMD_FILL, .a = roff - GUARD, .b = len + 2 * GUARD,
				      .x = bg });
		if (imm)
			call(c, (struct cmd){ .op = CMD_POST_RECV, .a = 0, .b = 0 });
		if (post(c, imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE, loff, len,
			 1 + i % MAX_SGE_USED, roff, c->peer.rkey, c->mr->lkey, 0, 0, 0,
			 0xabc000 + i) || complete(c, &wc)) {
			snprintf(why, sizeof(why), "%u B: post or completion failed (status %d)",
				 len, wc.status);
			bad++;
			break;
		}
		if (remote_hash(c, roff - GUARD, len + 2 * GUARD) !=
		    expect_window(c->buf + loff, roff, len, bg)) {
			snprintf(why, sizeof(why), "%u B: target data or guard bytes differ", len);
			bad++;
			continue;
		}
		if (!imm)
			continue;
		r = call(c, (struct cmd){ .op = CMD_POLL_RECV });
		if (r.status || r.wc_opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    !(r.wc_flags & IBV_WC_WITH_IMM) || ntohl(r.imm_be) != 0xabc000 + i) {
			snprintf(why, sizeof(why),
				 "%u B: receive completion status %d opcode %u imm 0x%x",
				 len, r.status, r.wc_opcode, ntohl(r.imm_be));
			bad++;
		}
	}
	tap(!bad, "RDMA WRITE%s, %zu sizes 0..1 MiB, unaligned, 1-3 SGEs%s%s",
	    imm ? " with immediate" : "", sz.n, bad ? ": " : "", why);
}

static void test_read(struct ctx *c, struct size_list sz, unsigned int round)
{
	int bad = 0;
	char why[160] = "";

	for (size_t i = 0; i < sz.n; i++) {
		uint32_t len = sz.v[i], loff = 4096 + 1 + i, roff = 7 + 3 * i;
		uint64_t seed = 300 + i + round * 1000;
		uint8_t *dst = c->buf + loff;
		struct ibv_wc wc;
		bool ok = true;

		call(c, (struct cmd){ .op = CMD_FILL, .a = roff, .b = len, .x = seed });
		memset(dst - GUARD, 0xee, len + 2 * GUARD);
		if (post(c, IBV_WR_RDMA_READ, loff, len, 1 + i % MAX_SGE_USED, roff,
			 c->peer.rkey, c->mr->lkey, 0, 0, 0, 0) || complete(c, &wc)) {
			snprintf(why, sizeof(why), "%u B: post or completion failed (status %d)",
				 len, wc.status);
			bad++;
			break;
		}
		for (uint32_t k = 0; k < len && ok; k++)
			ok = dst[k] == pat(seed, roff + k);
		for (uint32_t k = 0; k < GUARD && ok; k++)
			ok = dst[-1 - (int)k] == 0xee && dst[len + k] == 0xee;
		if (!ok || wc.opcode != IBV_WC_RDMA_READ) {
			snprintf(why, sizeof(why), "%u B: local data, guard bytes or wc opcode wrong",
				 len);
			bad++;
		}
	}
	tap(!bad, "RDMA READ, %zu sizes 0..1 MiB, unaligned, 1-3 SGEs%s%s", sz.n,
	    bad ? ": " : "", why);
}

/* SEND, SEND with immediate, inline SEND: the server checks byte_len, imm, data. */
static void test_send(struct ctx *c, struct size_list sz, int variant, unsigned int round)
{
	static const char *const name[] = { "SEND", "SEND with immediate", "SEND inline" };
	int bad = 0, done = 0;
	char why[160] = "";

	for (size_t i = 0; i < sz.n; i++) {
		uint32_t len = sz.v[i], loff = 11 + i, roff = 64 + 9 * i;
		uint64_t seed = 500 + i + round * 1000, bg = 600 + i;
		bool imm = variant == 1, inl = variant == 2;
		struct ibv_wc wc;
		struct reply r;

		if (inl && len > c->max_inline)
			continue;
		done++;
		fill(c->buf + loff, loff, len, seed);
		call(c, (struct cmd){ .op = CMD_FILL, .a = roff - GUARD, .b = len + 2 * GUARD + 64,
				      .x = bg });
		/* a receive buffer 64 bytes larger than the message, split over SGEs */
		call(c, (struct cmd){ .op = CMD_POST_RECV, .a = roff, .b = len + 64,
				      .c = 1 + i % MAX_SGE_USED });
		if (post(c, imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND, loff, len,
			 inl ? 1 : 1 + (i + 1) % MAX_SGE_USED, 0, 0, c->mr->lkey,
			 inl ? IBV_SEND_INLINE : 0, 0, 0, 0x5e000 + i) || complete(c, &wc)) {
			snprintf(why, sizeof(why), "%u B: post or completion failed (status %d)",
				 len, wc.status);
			bad++;
			break;
		}
		r = call(c, (struct cmd){ .op = CMD_POLL_RECV });
		if (r.status || r.wc_opcode != IBV_WC_RECV || r.byte_len != len ||
		    !!(r.wc_flags & IBV_WC_WITH_IMM) != imm ||
		    (imm && ntohl(r.imm_be) != 0x5e000 + i)) {
			snprintf(why, sizeof(why),
				 "%u B: receive status %d opcode %u byte_len %u imm 0x%x", len,
				 r.status, r.wc_opcode, r.byte_len, ntohl(r.imm_be));
			bad++;
			continue;
		}
		if (remote_hash(c, roff - GUARD, len + 2 * GUARD) !=
		    expect_window(c->buf + loff, roff, len, bg)) {
			snprintf(why, sizeof(why), "%u B: received data or guard bytes differ", len);
			bad++;
		}
	}
	tap(!bad && done, "%s, %d sizes%s%s", name[variant], done, bad ? ": " : "", why);
}

/* One signaled WR over the sge_layout() pieces of [loff, loff + len). */
static int post_list(struct ctx *c, enum ibv_wr_opcode op, uint32_t loff, uint32_t len, int n,
		     uint32_t roff)
{
	struct ibv_sge sge[SGE_LIST];
	struct ibv_send_wr wr = { .wr_id = 8, .sg_list = sge, .num_sge = n, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	sge_list(c, sge, loff, len, n);
	wr.wr.rdma.remote_addr = c->peer.addr + roff;
	wr.wr.rdma.rkey = c->peer.rkey;
	return ibv_post_send(c->qp, &wr, &bad) ? errno : 0;
}

/* The message bytes of the pieces of [off, off + len) in @buf, in list order. */
static void sge_gather(const uint8_t *buf, uint32_t off, uint32_t len, int n, uint8_t *out)
{
	uint32_t poff[SGE_LIST], plen[SGE_LIST];

	sge_layout(off, len, n, poff, plen);
	for (int i = 0; i < n; i++) {
		memcpy(out, buf + poff[i], plen[i]);
		out += plen[i];
	}
}

/*
 * 16-SGE lists of uneven, separated, unaligned pieces (issue 18 item 4): an
 * RDMA WRITE gathers them, an RDMA READ scatters into them, a SEND gathers
 * from them into a receive WQE that scatters into 16 pieces on the server.
 * Every byte is checked, with the gaps between pieces and guards around them.
 */
static const uint32_t sge_sizes[] = { 16, 17, 1000, 4097, 65539 };

static void test_sge_lists(struct ctx *c, unsigned int round)
{
	static uint8_t msg[65539 + 64], want[65539 + 64 + SGE_LIST * 8 + 2 * GUARD];
	const size_t nsz = sizeof(sge_sizes) / sizeof(sge_sizes[0]);
	int bad_w = 0, bad_r = 0, bad_s = 0, n = SGE_LIST;
	char why_w[160] = "", why_r[160] = "", why_s[160] = "";

	if (c->max_sge < SGE_LIST) {
		tap(false, "%d-SGE lists: the device reports max_sge %u", SGE_LIST, c->max_sge);
		return;
	}
	for (size_t i = 0; i < nsz; i++) {
		uint32_t len = sge_sizes[i], loff = 8192 + 3 + i, roff = 4096 * 40 + 5 + 3 * i;
		uint32_t poff[SGE_LIST], plen[SGE_LIST], span, rspan, at = 0;
		uint64_t seed = 700 + i + round * 1000, bg = 800 + i;
		struct ibv_wc wc = { 0 };
		struct reply r;
		bool ok = true;

		/* WRITE: 16 local pieces gathered into one remote range */
		span = sge_layout(loff, len, n, poff, plen);
		fill(c->buf + loff, loff, span, seed);
		call(c, (struct cmd){ .op = CMD_FILL, .a = roff - GUARD, .b = len + 2 * GUARD,
				      .x = bg });
		if (post_list(c, IBV_WR_RDMA_WRITE, loff, len, n, roff) || complete(c, &wc)) {
			snprintf(why_w, sizeof(why_w), "%u B: post or completion failed (status %d)",
				 len, wc.status);
			bad_w++;
			break;
		}
		sge_gather(c->buf, loff, len, n, msg);
		if (remote_hash(c, roff - GUARD, len + 2 * GUARD) !=
		    expect_window(msg, roff, len, bg)) {
			snprintf(why_w, sizeof(why_w), "%u B: target data or guard bytes differ", len);
			bad_w++;
		}

		/* READ: one remote range scattered into 16 local pieces; gaps keep 0xee */
		call(c, (struct cmd){ .op = CMD_FILL, .a = roff, .b = len, .x = seed + 50 });
		memset(c->buf + loff - GUARD, 0xee, span + 2 * GUARD);
		if (post_list(c, IBV_WR_RDMA_READ, loff, len, n, roff) || complete(c, &wc)) {
			snprintf(why_r, sizeof(why_r), "%u B: post or completion failed (status %d)",
				 len, wc.status);
			bad_r++;
			break;
		}
		for (uint32_t k = 0; k < GUARD && ok; k++)
			ok = c->buf[loff - 1 - k] == 0xee && c->buf[loff + span + k] == 0xee;
		for (int p = 0; p < n && ok; p++) {
			for (uint32_t k = 0; k < plen[p] && ok; k++)
				ok = c->buf[poff[p] + k] == pat(seed + 50, roff + at + k);
			at += plen[p];
			for (uint32_t k = poff[p] + plen[p]; p < n - 1 && k < poff[p + 1] && ok; k++)
				ok = c->buf[k] == 0xee;
		}
		if (!ok || wc.opcode != IBV_WC_RDMA_READ || wc.byte_len != len) {
			snprintf(why_r, sizeof(why_r), "%u B: a piece, a gap or the wc is wrong", len);
			bad_r++;
		}

		/* SEND: 16 local pieces into 16 remote pieces (64 bytes of room left over) */
		fill(c->buf + loff, loff, span, seed + 90);
		rspan = sge_layout(roff, len + 64, n, poff, plen);
		call(c, (struct cmd){ .op = CMD_FILL, .a = roff - GUARD, .b = rspan + 2 * GUARD,
				      .x = bg });
		r = call(c, (struct cmd){ .op = CMD_POST_RECV_SPREAD, .a = roff, .b = len + 64,
					  .c = n });
		if (r.status || post_list(c, IBV_WR_SEND, loff, len, n, 0) || complete(c, &wc)) {
			snprintf(why_s, sizeof(why_s), "%u B: post or completion failed (%d, %d)",
				 len, r.status, wc.status);
			bad_s++;
			break;
		}
		r = call(c, (struct cmd){ .op = CMD_POLL_RECV });
		sge_gather(c->buf, loff, len, n, msg);
		fill(want, roff - GUARD, rspan + 2 * GUARD, bg);
		at = 0;
		for (int p = 0; p < n && at < len; p++) {
			uint32_t k = plen[p] < len - at ? plen[p] : len - at;

			memcpy(want + GUARD + (poff[p] - roff), msg + at, k);
			at += k;
		}
		if (r.status || r.wc_opcode != IBV_WC_RECV || r.byte_len != len) {
			snprintf(why_s, sizeof(why_s), "%u B: receive status %d opcode %u byte_len %u",
				 len, r.status, r.wc_opcode, r.byte_len);
			bad_s++;
		} else if (remote_hash(c, roff - GUARD, rspan + 2 * GUARD) !=
			   fnv(want, rspan + 2 * GUARD)) {
			snprintf(why_s, sizeof(why_s), "%u B: received pieces, gaps or guards differ",
				 len);
			bad_s++;
		}
	}
	tap(!bad_w, "RDMA WRITE gathering %d unaligned separated pieces, %zu sizes%s%s", n, nsz,
	    bad_w ? ": " : "", why_w);
	tap(!bad_r, "RDMA READ scattering into %d unaligned separated pieces, %zu sizes%s%s", n,
	    nsz, bad_r ? ": " : "", why_r);
	tap(!bad_s, "SEND of %d pieces into a %d-piece receive, %zu sizes%s%s", n, n, nsz,
	    bad_s ? ": " : "", why_s);
}

static void test_atomics(struct ctx *c, unsigned int round)
{
	uint64_t v0 = 0x1122334455667788ull + round, add = 0x1000000001ull, swp = 0xfeedull;
	uint64_t *res = (uint64_t *)(c->buf + 8192);
	struct ibv_wc wc;
	bool ok;

	call(c, (struct cmd){ .op = CMD_SET64, .a = ATOMIC_OFF, .x = v0 });
	*res = 0;
	ok = !post(c, IBV_WR_ATOMIC_FETCH_AND_ADD, 8192, 8, 1, ATOMIC_OFF, c->peer.rkey,
		   c->mr->lkey, 0, add, 0, 0) && !complete(c, &wc) && *res == v0 &&
	     call(c, (struct cmd){ .op = CMD_GET64, .a = ATOMIC_OFF }).v == v0 + add;
	tap(ok, "fetch-and-add returns the original value and adds (got 0x%" PRIx64 ")", *res);

	*res = 0;
	ok = !post(c, IBV_WR_ATOMIC_CMP_AND_SWP, 8192, 8, 1, ATOMIC_OFF, c->peer.rkey,
		   c->mr->lkey, 0, v0 + add, swp, 0) && !complete(c, &wc) && *res == v0 + add &&
	     call(c, (struct cmd){ .op = CMD_GET64, .a = ATOMIC_OFF }).v == swp;
	tap(ok, "compare-and-swap (equal) returns the original value and swaps");

	*res = 0;
	ok = !post(c, IBV_WR_ATOMIC_CMP_AND_SWP, 8192, 8, 1, ATOMIC_OFF, c->peer.rkey,
		   c->mr->lkey, 0, swp + 1, 0x1234, 0) && !complete(c, &wc) && *res == swp &&
	     call(c, (struct cmd){ .op = CMD_GET64, .a = ATOMIC_OFF }).v == swp;
	tap(ok, "compare-and-swap (different) returns the original value, target unchanged");
}

/* A fresh pair of connected QPs (after an error moved the old ones to ERR). */
static void new_qps(struct ctx *c)
{
	uint32_t psn = rand() & 0xffffff;
	struct reply r;

	ibv_destroy_qp(c->qp);
	c->qp = make_qp(c);
	r = call(c, (struct cmd){ .op = CMD_NEWQP, .a = c->qp->qp_num, .b = psn });
	connect_qp(c, psn, r.qpn, r.psn);
}

/*
 * A lossy wire (-L): the NAK that reports a remote error is the last packet of the exchange, and
 * the responder QP is in ERR after sending it (IBA: it drops what comes after). When the wire
 * drops that NAK, the requester ends in its retry timeout instead: IBV_WC_RETRY_EXC_ERR.
 */
static bool lossy;

static bool remote_error(int st, int expected)
{
	return st == expected || (lossy && st == IBV_WC_RETRY_EXC_ERR);
}

static void test_errors(struct ctx *c)
{
	uint32_t roff = 8192, len = 4096;
	uint64_t before;
	struct ibv_wc wc;
	bool rxe;
	int st;

	call(c, (struct cmd){ .op = CMD_FILL, .a = roff, .b = len, .x = 77 });
	before = remote_hash(c, roff, len);
	fill(c->buf, 0, len, 78);

	st = post(c, IBV_WR_RDMA_WRITE, 0, len, 1, roff, c->peer.rkey ^ 0x7fff00,
		  c->mr->lkey, 0, 0, 0, 0) ?: complete(c, &wc);
	tap(remote_error(st, IBV_WC_REM_ACCESS_ERR) && remote_hash(c, roff, len) == before,
	    "WRITE with a bad rkey: IBV_WC_REM_ACCESS_ERR%s, target untouched (status %d)",
	    lossy ? " (or RETRY_EXC_ERR: NAK lost)" : "", st);
	new_qps(c);

	st = post(c, IBV_WR_RDMA_WRITE, 0, len, 1, BUF_SIZE - 100, c->peer.rkey,
		  c->mr->lkey, 0, 0, 0, 0) ?: complete(c, &wc);
	tap(remote_error(st, IBV_WC_REM_ACCESS_ERR) &&
	    remote_hash(c, BUF_SIZE - 4096, 4096) != fnv(c->buf, 4096),
	    "WRITE past the end of the remote MR: IBV_WC_REM_ACCESS_ERR%s (status %d)",
	    lossy ? " (or RETRY_EXC_ERR: NAK lost)" : "", st);
	new_qps(c);

	st = post(c, IBV_WR_RDMA_WRITE, 0, len, 1, roff, c->peer.rkey, c->mr->lkey ^ 0x7fff00,
		  0, 0, 0, 0) ?: complete(c, &wc);
	/*
	 * IBA: a local protection error. rxe 6.1 reports LOC_QP_OP_ERR (its
	 * finish_packet() gives LOC_PROT_ERR only for -EFAULT, not for a key
	 * that does not resolve): taken from rxe only, and said.
	 */
	rxe = !strncmp(ibv_get_device_name(c->dev->device), "rxe", 3);
	tap((st == IBV_WC_LOC_PROT_ERR || (rxe && st == IBV_WC_LOC_QP_OP_ERR)) &&
	    remote_hash(c, roff, len) == before,
	    "WRITE with a bad lkey: IBV_WC_LOC_PROT_ERR%s, target untouched (status %d)",
	    rxe ? " (rxe: or LOC_QP_OP_ERR)" : "", st);
	new_qps(c);

	st = post(c, IBV_WR_RDMA_READ, 0, len, 1, roff, c->peer.rkey ^ 0x7fff00, c->mr->lkey,
		  0, 0, 0, 0) ?: complete(c, &wc);
	tap(remote_error(st, IBV_WC_REM_ACCESS_ERR),
	    "READ with a bad rkey: IBV_WC_REM_ACCESS_ERR%s (status %d)",
	    lossy ? " (or RETRY_EXC_ERR: NAK lost)" : "", st);
	new_qps(c);
}

/* Invalid state transitions fail with EINVAL and leave the QP usable. */
static void test_transitions(struct ctx *c)
{
	struct ibv_qp_init_attr ia = { .send_cq = c->scq, .recv_cq = c->rcq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *qp = ibv_create_qp(c->pd, &ia);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
	struct ibv_qp_init_attr qia;
	int e1, e2, e3;

	if (!qp) {
		tap(false, "invalid QP transitions: ibv_create_qp failed: %s", strerror(errno));
		return;
	}
	e1 = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTR;
	e2 = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	e3 = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			   IBV_QP_ACCESS_FLAGS);
	memset(&a, 0, sizeof(a));
	ibv_query_qp(qp, &a, IBV_QP_STATE, &qia);
	tap(e1 == EINVAL && e2 == EINVAL && e3 == 0 && a.qp_state == IBV_QPS_INIT,
	    "RESET->RTS and RESET->RTR fail with EINVAL (%d, %d), RESET->INIT works (%d)", e1, e2,
	    e3);
	a.qp_state = IBV_QPS_RTS;
	tap(ibv_modify_qp(qp, &a, IBV_QP_STATE) == EINVAL, "INIT->RTS fails with EINVAL");
	ibv_destroy_qp(qp);
}

static void usage(void)
{
	fprintf(stderr, "usage: rdma_verify -s | -c SERVER_IPV4 [-d DEV] [-p PORT] [-n ROUNDS] "
		"[-t SECS] [-q] [-L]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *server = NULL, *dev = NULL;
	bool serve_mode = false, quick = false;
	int port = 18800, rounds = 0, secs = 0, done = 0, opt;
	uint64_t t0;
	struct ctx c = { 0 };
	struct conn_info mine;
	uint32_t psn;

	while ((opt = getopt(argc, argv, "sc:d:p:n:t:qL")) != -1) {
		switch (opt) {
		case 's': serve_mode = true; break;
		case 'c': server = optarg; break;
		case 'd': dev = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': rounds = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 'q': quick = true; break;
		case 'L': lossy = true; break;
		default: usage();
		}
	}
	if (!rounds)
		rounds = secs ? 1000 : 1;
	if (serve_mode == !!server || rounds < 1 || rounds > 1000 || secs < 0 || secs > 3600)
		usage();
	rc_prog = "rdma_verify";
	srand(getpid());
	setup(&c, dev);
	psn = rand() & 0xffffff;
	mine = my_info(&c, psn);
	c.sock = tcp_connect(server, port, serve_mode);
	if (serve_mode) {
		xfer(c.sock, &c.peer, sizeof(c.peer), false);
		xfer(c.sock, &mine, sizeof(mine), true);
	} else {
		xfer(c.sock, &mine, sizeof(mine), true);
		xfer(c.sock, &c.peer, sizeof(c.peer), false);
	}
	connect_qp(&c, psn, c.peer.qpn, c.peer.psn);
	if (serve_mode) {
		serve(&c);
		return 0;
	}

	struct size_list sz = quick ? (struct size_list){ sizes_quick, 7 } :
				      (struct size_list){ sizes_full, 14 };

	ksft_print_header();
	ksft_print_msg("device %s, gid index %d, path MTU %d, max inline %u, SGEs per QP %u\n",
		       ibv_get_device_name(c.dev->device), c.gid_idx, 128 << c.mtu, c.max_inline,
		       c.max_sge);
	test_transitions(&c);
	t0 = now_ms();
	for (int r = 0; r < rounds; r++) {
		if (secs && r && now_ms() - t0 >= (uint64_t)secs * 1000)
			break;
		done++;
		test_write(&c, sz, false, r);
		test_write(&c, sz, true, r);
		test_read(&c, sz, r);
		test_send(&c, sz, 0, r);
		test_send(&c, sz, 1, r);
		test_send(&c, sz, 2, r);
		test_atomics(&c, r);
		test_sge_lists(&c, r);
	}
	if (secs) {
		uint64_t ms = now_ms() - t0;
		int failed = ksft_get_fail_cnt();

		tap(ms >= (uint64_t)secs * 1000 && failed == 0,
		    "data tests repeated for %" PRIu64 ".%01" PRIu64 " s (>= %d s): %d rounds, "
		    "%d failed checks", ms / 1000, ms % 1000 / 100, secs, done, failed);
	}
	test_errors(&c);
	call(&c, (struct cmd){ .op = CMD_QUIT });
	tap_finish();
}
