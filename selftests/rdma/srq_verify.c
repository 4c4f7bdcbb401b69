// SPDX-License-Identifier: MIT
/*
 * A shared receive queue between two nodes (docs/verbs-completeness.md 3):
 * the server (receiver) has one SRQ of 256 slots shared by 64 RC QPs whose
 * receive completions go to 4 CQs; the client (sender) has 64 RC QPs, each
 * connected to one of the server's. The client sends 432 messages, message m
 * on QP m % 64, with m as immediate data and pattern bytes of a length that
 * depends on m. The server checks every completion: status, qp_num (the QP
 * message m was sent to), wr_id (a buffer it posted and has not had back),
 * byte_len, imm and the data. In phase 1 (192 messages) it reposts each
 * buffer after checking it, so ring slots are reused; in phase 2 (240
 * messages) it does not, and the SRQ's limit (32) is crossed once: exactly
 * one IBV_EVENT_SRQ_LIMIT_REACHED, and query_srq then says it is disarmed.
 * Also: ibv_post_recv on a QP of the SRQ is refused, ibv_modify_srq with
 * IBV_SRQ_MAX_WR is EOPNOTSUPP, ibv_destroy_srq while QPs use it is EBUSY, a
 * QP of the SRQ moved to ERR raises IBV_EVENT_QP_LAST_WQE_REACHED, and the
 * SRQ is destroyed once its QPs are.
 *
 * Usage: srq_verify -s -d DEVICE [-p PORT]          (server: receives)
 *        srq_verify -c SERVER_IPV4 -d DEVICE [-p PORT]
 */
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>

#include "rdma_common.h"

#define NQP		64
#define NCQ		4
#define SRQ_SLOTS	256
#define SRQ_LIMIT	32
#define NBUF		SRQ_SLOTS
#define BUF_BYTES	1024
#define PHASE1		192
#define PHASE2		240
#define NMSG		(PHASE1 + PHASE2)
#define POLL_MS		20000
#define SEED		0x5e1fULL

struct hello {
	uint8_t gid[16];
	uint32_t qpn[NQP];
};

static uint32_t msg_len(uint32_t m)
{
	return 1 + (m * 37u) % BUF_BYTES;
}

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq[NCQ];
static struct ibv_qp *qp[NQP];
static struct ibv_srq *srq;
static struct ibv_mr *mr;
static uint8_t *buf;
static int gid_idx;
static enum ibv_mtu mtu;
static union ibv_gid gid;

static void to_init(struct ibv_qp *q)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	if (ibv_modify_qp(q, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
}

/* Exchange GIDs and QPNs over @sock and connect QP i to the peer's QP i. */
static void connect_all(int sock)
{
	struct hello me = { 0 }, peer;

	memcpy(me.gid, gid.raw, 16);
	for (int i = 0; i < NQP; i++)
		me.qpn[i] = htonl(qp[i]->qp_num);
	xfer(sock, &me, sizeof(me), true);
	xfer(sock, &peer, sizeof(peer), false);
	for (int i = 0; i < NQP; i++) {
		to_init(qp[i]);
		rc_connect(qp[i], gid_idx, mtu, peer.gid, ntohl(peer.qpn[i]), 0x300, 0x300);
	}
}

static void sync_byte(int sock, bool send_it)
{
	uint8_t b = 0x5a;

	xfer(sock, &b, 1, send_it);
}

/* The next async event within @ms, or false. */
static bool next_event(int ms, struct ibv_async_event *ev)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return false;
	if (ibv_get_async_event(ctx, ev))
		return false;
	ibv_ack_async_event(ev);
	return true;
}

static int post_buf(uint32_t b)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(buf + (size_t)b * BUF_BYTES),
			       .length = BUF_BYTES, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = b, .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(buf + (size_t)b * BUF_BYTES, 0, BUF_BYTES);
	return ibv_post_srq_recv(srq, &wr, &bad);
}

/*
 * Polls @n receive completions from the 4 CQs and checks each one. @repost:
 * give the buffer back to the SRQ after the check. Counts what was wrong.
 */
static void receive_phase(uint32_t n, bool repost, bool *seen, bool *out,
			  uint32_t *bad_status, uint32_t *bad_qp, uint32_t *bad_wrid,
			  uint32_t *bad_data, uint32_t *dup, uint32_t *got, uint32_t *left)
{
	uint64_t end = now_ms() + POLL_MS;
	static uint32_t pending[NBUF];
	uint32_t npending = 0;

	while (*got < n && now_ms() < end) {
		struct ibv_wc wc[16];
		bool any = false;

		for (int c = 0; c < NCQ; c++) {
			int k = ibv_poll_cq(cq[c], 16, wc);

			for (int j = 0; j < k; j++) {
				uint32_t m, b = (uint32_t)wc[j].wr_id;

				any = true;
				(*got)++;
				if (wc[j].status != IBV_WC_SUCCESS || wc[j].opcode != IBV_WC_RECV ||
				    !(wc[j].wc_flags & IBV_WC_WITH_IMM)) {
					(*bad_status)++;
					continue;
				}
				m = ntohl(wc[j].imm_data);
				if (b >= NBUF || !out[b]) {
					(*bad_wrid)++;
					continue;
				}
				out[b] = false;
				if (m >= NMSG || seen[m]) {
					(*dup)++;
					continue;
				}
				seen[m] = true;
				/* the QP m was sent to, on that QP's receive CQ */
				if (wc[j].qp_num != qp[m % NQP]->qp_num ||
				    c != (int)(m % NQP) % NCQ)
					(*bad_qp)++;
				{
					uint8_t want[BUF_BYTES];

					fill(want, 0, msg_len(m), SEED + m);
					if (wc[j].byte_len != msg_len(m) ||
					    memcmp(buf + (size_t)b * BUF_BYTES, want, msg_len(m)))
						(*bad_data)++;
				}
				if (repost)
					pending[npending++] = b;
			}
		}
		/*
		 * Back to the SRQ in polling order; the slot at its producer
		 * index may still wait for a CQE on another CQ (ENOMEM).
		 */
		while (npending && !post_buf(pending[0])) {
			out[pending[0]] = true;
			memmove(pending, pending + 1, --npending * sizeof(pending[0]));
		}
		if (!any)
			usleep(200);
	}
	*left = npending;
}

struct counts {
	uint32_t bad_status, bad_qp, bad_wrid, bad_data, dup, got, left;
};

static void report(const char *what, uint32_t want, const struct counts *k)
{
	tap(k->got == want && !k->bad_status && !k->bad_qp && !k->bad_wrid && !k->bad_data &&
	    !k->dup && !k->left,
	    "%s: %u of %u receive completions; bad status %u, wrong qp_num/CQ %u, wrong wr_id %u, wrong length/data %u, duplicate %u, not reposted %u",
	    what, k->got, want,
	    k->bad_status, k->bad_qp, k->bad_wrid, k->bad_data, k->dup, k->left);
}

static void setup(bool server)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	buf = calloc(NBUF, BUF_BYTES);
	if (!buf)
		die("calloc");
	mr = ibv_reg_mr(pd, buf, (size_t)NBUF * BUF_BYTES, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	for (int c = 0; c < (server ? NCQ : 1); c++) {
		cq[c] = ibv_create_cq(ctx, 512, NULL, NULL, 0);
		if (!cq[c])
			die("ibv_create_cq");
	}
	if (server) {
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = SRQ_SLOTS, .max_sge = 1 } };

		srq = ibv_create_srq(pd, &sa);
		tap(srq && sa.attr.max_wr >= SRQ_SLOTS,
		    "ibv_create_srq: %u slots, %u SGEs (errno %d)", sa.attr.max_wr,
		    sa.attr.max_sge, srq ? 0 : errno);
		if (!srq)
			ksft_exit_fail_msg("no SRQ\n");
		ia.srq = srq;
		ia.cap.max_recv_wr = 0;
		ia.cap.max_recv_sge = 0;
	}
	for (int i = 0; i < NQP; i++) {
		ia.send_cq = cq[server ? i % NCQ : 0];
		ia.recv_cq = ia.send_cq;
		qp[i] = ibv_create_qp(pd, &ia);
		if (!qp[i])
			die("ibv_create_qp");
	}
}

static int run_client(int sock)
{
	uint8_t *src;
	struct ibv_mr *smr;
	uint32_t ok_sends = 0, bad_sends = 0;

	setup(false);
	src = calloc(NMSG, BUF_BYTES);
	if (!src)
		die("calloc");
	smr = ibv_reg_mr(pd, src, (size_t)NMSG * BUF_BYTES, 0);
	if (!smr)
		die("ibv_reg_mr");
	for (uint32_t m = 0; m < NMSG; m++)
		fill(src + (size_t)m * BUF_BYTES, 0, msg_len(m), SEED + m);
	connect_all(sock);
	for (int phase = 0; phase < 2; phase++) {
		uint32_t first = phase ? PHASE1 : 0, last = phase ? NMSG : PHASE1, done = 0;
		uint64_t end;

		sync_byte(sock, false);	/* the server posted its buffers */
		for (uint32_t m = first; m < last; m++) {
			struct ibv_sge sge = { .addr = (uintptr_t)(src + (size_t)m * BUF_BYTES),
					       .length = msg_len(m), .lkey = smr->lkey };
			struct ibv_send_wr wr = { .wr_id = m, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND_WITH_IMM,
						  .send_flags = IBV_SEND_SIGNALED,
						  .imm_data = htonl(m) }, *bad;

			if (ibv_post_send(qp[m % NQP], &wr, &bad))
				die("ibv_post_send");
		}
		end = now_ms() + POLL_MS;
		while (done < last - first && now_ms() < end) {
			struct ibv_wc wc[32];
			int k = ibv_poll_cq(cq[0], 32, wc);

			for (int j = 0; j < k; j++)
				if (wc[j].status == IBV_WC_SUCCESS)
					ok_sends++;
				else
					bad_sends++;
			done += k > 0 ? k : 0;
			if (k <= 0)
				usleep(200);
		}
		sync_byte(sock, true);	/* all sent */
	}
	tap(ok_sends == NMSG && !bad_sends,
	    "client: %u of %u SEND_WITH_IMM on %d QPs completed successfully, %u in error",
	    ok_sends, NMSG, NQP, bad_sends);
	sync_byte(sock, false);	/* the server is done */
	for (int i = 0; i < NQP; i++)
		ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(cq[0]);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	return 0;
}

static int run_server(int sock)
{
	static bool seen[NMSG], out[NBUF];
	struct counts k1 = { 0 }, k2 = { 0 };
	struct ibv_srq_attr sa = { .srq_limit = SRQ_LIMIT };
	struct ibv_recv_wr rwr = { .wr_id = 7 }, *rbad;
	struct ibv_async_event ev;
	uint32_t limits = 0, others = 0, posted = 0;
	int flags, err;

	setup(true);
	flags = fcntl(ctx->async_fd, F_GETFL);
	if (fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK))
		die("fcntl async_fd");
	connect_all(sock);

	errno = 0;
	err = ibv_post_recv(qp[0], &rwr, &rbad);
	tap(err != 0, "ibv_post_recv on a QP of the SRQ is refused (%d)", err);

	for (uint32_t b = 0; b < NBUF; b++)
		if (!post_buf(b)) {
			out[b] = true;
			posted++;
		}
	err = posted == SRQ_SLOTS ? post_buf(0) : 0;
	tap(posted == SRQ_SLOTS && err == ENOMEM,
	    "ibv_post_srq_recv: %u of %u slots posted, one more is ENOMEM (%d)", posted,
	    SRQ_SLOTS, err);
	err = ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT);
	tap(!err, "ibv_modify_srq arms the limit at %u (%d)", SRQ_LIMIT, err);
	sa.max_wr = 2 * SRQ_SLOTS;
	err = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
	tap(err == EOPNOTSUPP, "ibv_modify_srq IBV_SRQ_MAX_WR (resize) is EOPNOTSUPP (%d)", err);

	/* phase 1: every buffer reposted after its check (ring slots reused) */
	sync_byte(sock, true);
	receive_phase(PHASE1, true, seen, out, &k1.bad_status, &k1.bad_qp, &k1.bad_wrid,
		      &k1.bad_data, &k1.dup, &k1.got, &k1.left);
	sync_byte(sock, false);
	report("phase 1, buffers reposted", PHASE1, &k1);
	while (next_event(0, &ev))
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED)
			limits++;
		else
			others++;
	tap(!limits && !others, "no async event while the SRQ stays full (limit %u, other %u)",
	    limits, others);

	/* phase 2: no reposting: the SRQ drains below its limit once */
	sync_byte(sock, true);
	receive_phase(PHASE2, false, seen, out, &k2.bad_status, &k2.bad_qp, &k2.bad_wrid,
		      &k2.bad_data, &k2.dup, &k2.got, &k2.left);
	sync_byte(sock, false);
	report("phase 2, SRQ drained to 16 WQEs", PHASE2, &k2);
	while (next_event(limits ? 200 : 3000, &ev)) {
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == srq)
			limits++;
		else
			others++;
	}
	tap(limits == 1 && !others,
	    "IBV_EVENT_SRQ_LIMIT_REACHED seen once (%u), no other event (%u)", limits, others);
	memset(&sa, 0xff, sizeof(sa));
	err = ibv_query_srq(srq, &sa);
	tap(!err && sa.srq_limit == 0 && sa.max_wr >= SRQ_SLOTS,
	    "ibv_query_srq after the event: limit %u (disarmed: 0), max_wr %u (%d)",
	    sa.srq_limit, sa.max_wr, err);

	err = ibv_destroy_srq(srq);
	tap(err == EBUSY, "ibv_destroy_srq while %d QPs use it is EBUSY (%d)", NQP, err);

	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
		uint32_t last = 0;

		err = ibv_modify_qp(qp[0], &a, IBV_QP_STATE);
		while (!err && next_event(3000, &ev))
			if (ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED && ev.element.qp == qp[0]) {
				last++;
				break;
			}
		tap(!err && last == 1, "a QP of the SRQ in ERR raises IBV_EVENT_QP_LAST_WQE_REACHED (%d)",
		    err);
	}
	sync_byte(sock, true);	/* done */
	for (int i = 0; i < NQP; i++)
		if (ibv_destroy_qp(qp[i]))
			die("ibv_destroy_qp");
	err = ibv_destroy_srq(srq);
	tap(!err, "ibv_destroy_srq once no QP uses it (%d)", err);
	for (int c = 0; c < NCQ; c++)
		ibv_destroy_cq(cq[c]);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *server = NULL;
	struct ibv_device_attr da;
	bool serve = false;
	int port = 18840, opt, sock;

	rc_prog = "srq_verify";
	while ((opt = getopt(argc, argv, "sc:d:p:")) != -1) {
		switch (opt) {
		case 's':
			serve = true;
			break;
		case 'c':
			server = optarg;
			break;
		case 'd':
			dev = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: srq_verify -s|-c SERVER -d DEVICE [-p PORT]\n");
			return 2;
		}
	}
	if (serve == !!server) {
		fprintf(stderr, "usage: srq_verify -s|-c SERVER -d DEVICE [-p PORT]\n");
		return 2;
	}
	ksft_print_header();
	ctx = open_device(dev);
	gid_idx = find_roce4_gid(ctx, &gid, &mtu);
	if (ibv_query_device(ctx, &da))
		die("ibv_query_device");
	tap(da.max_srq > 0 && da.max_srq_wr >= SRQ_SLOTS && da.max_srq_sge >= 1,
	    "device reports SRQs: max_srq %d, max_srq_wr %d, max_srq_sge %d", da.max_srq,
	    da.max_srq_wr, da.max_srq_sge);
	sock = tcp_connect(server, port, serve);
	if (serve)
		run_server(sock);
	else
		run_client(sock);
	close(sock);
	ibv_close_device(ctx);
	tap_finish();
	return 0;
}
