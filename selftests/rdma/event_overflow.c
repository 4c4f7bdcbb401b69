// SPDX-License-Identifier: MIT
/*
 * event_overflow: what an application sees when its card's asynchronous event queue (AEQ)
 * loses events (docs/admin-queue.md 4.3, 4.4). Node 1 (-c, the card with fault-inject=on)
 * stalls its AEQ through debugfs (-S .../inject_aeq_stall: the card drops every event and
 * counts it), then, while it is stalled, both nodes make events happen that node 1's driver
 * must not lose:
 *   - TLB misses on node 1's card: 4 MiB WRITE from and 4 MiB READ into node 1's MR, and a
 *     4 MiB WRITE from node 2 into it, all beyond the part the driver prefills at reg_mr;
 *   - QP_ERROR on node 1's QP "rerr": node 2 WRITEs to it with a bad rkey (node 1 is the
 *     responder: IBV_EVENT_QP_ACCESS_ERR is due);
 *   - SQ_DRAINED on node 1's QP "sqd": moved RTS -> SQD with an empty SQ (after the resync it
 *     goes SQD -> RTS -> SQD again, AEQ running: a second SQ_DRAINED, and one only);
 *   - and a requester error on node 1's QP "lerr" (a WRITE to a bad rkey of node 2's): that one
 *     is reported by its completion (IBV_WC_REM_ACCESS_ERR) and by no async event.
 * After -H ms node 1 un-stalls the AEQ. The card then writes an OVERFLOW entry, the driver
 * resynchronises (QUERY_QP of every QP), and the card raises its pending TLB misses again.
 * Checked: nothing arrived during the stall and the transfers waited; afterwards every transfer
 * completes (bounded waits) with the right data, each due event arrives exactly once, and no
 * event arrives that the card would not have raised.
 * A second stall holds only a QP error (node 2 WRITEs with a bad rkey to node 1's QP rerr2):
 * with no TLB miss pending, nothing but the OVERFLOW the card owes after the un-stall tells the
 * driver to resynchronise; the event must still arrive.
 *
 * Usage: node 2: event_overflow -s -d DEV [-p PORT]
 *        node 1: event_overflow -c PEER_IP -d DEV -S STALL_FILE [-p PORT] [-H MS]
 * Prints TAP lines through kselftest.h (the kernel's selftests framework,
 * selftests/ksft/fetch-framework; no plan: the calling script owns it); exit 0 when all passed,
 * 1 when one failed, 2 on set-up errors.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>

#include "rdma_common.h"
#include "kselftest.h"

#define MB		(1024u * 1024u)
/* the driver prefills the TLB for the first tlb_entries / 2 pages (8 MiB): start above */
#define REGION0		(8u * MB)
#define REGION		(4u * MB)
#define MR_BYTES	(REGION0 + 3 * REGION)
/* regions: 0 node 2 -> node 1 WRITE, 1 node 1 -> node 2 WRITE, 2 node 1 READs node 2's */
#define R_IN		0
#define R_OUT		1
#define R_READ		2
#define SEED_IN		0x1e5
#define SEED_OUT	0x2e5
#define SEED_READ	0x3e5
#define WAIT_MS		60000	/* bound on every wait after the un-stall */

/*
 * QPs: data (transfers), rerr / lerr (node 1 responder / requester of a bad-rkey WRITE), sqd,
 * rerr2 (the second stall: a responder error alone, nothing else pending on the card)
 */
enum { QP_DATA, QP_RERR, QP_LERR, QP_SQD, QP_RERR2, NQP };

enum { WR_OUT = 1, WR_READ, WR_LERR, WR_IN = 11, WR_RERR, WR_RERR2 };

struct peer_info {
	uint32_t qpn[NQP];
	uint32_t rkey;
	uint32_t psn;
	uint64_t addr;
	uint8_t gid[16];
};

/* node 2's report to node 1 at the end */
struct report {
	int32_t st_in;		/* its WRITE into node 1 (WR_IN) */
	int32_t st_rerr;	/* its bad-rkey WRITE (WR_RERR) */
	int32_t lerr_event;	/* the async event of its QP_LERR (responder of node 1's bad WRITE) */
	int32_t pad;
	uint64_t hash_out;	/* fnv of its region R_OUT */
};

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_qp *qp[NQP];
	int gid_idx;
	struct peer_info me, peer;
	int status[32];		/* completion status per wr_id, -1 none yet */
	uint64_t done_ms[32];
	int events[NQP][32];	/* async events per QP and ibv_event_type */
	int other_events;
	char other[512];
} g;

static uint8_t *region(int r)
{
	return g.buf + REGION0 + (uint64_t)r * REGION;
}

static uint64_t raddr(int r)
{
	return g.peer.addr + REGION0 + (uint64_t)r * REGION;
}

static int qp_index(uint32_t qpn)
{
	for (int i = 0; i < NQP; i++)
		if (g.qp[i]->qp_num == qpn)
			return i;
	return -1;
}

/* Polls the CQ and the async event file once, waiting up to @ms for the latter. */
static void pump(int ms)
{
	struct pollfd p = { .fd = g.ctx->async_fd, .events = POLLIN };
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(g.cq, 16, wc)) > 0)
		for (int i = 0; i < n; i++)
			if (wc[i].wr_id < 32) {
				g.status[wc[i].wr_id] = wc[i].status;
				g.done_ms[wc[i].wr_id] = now_ms();
			}
	if (n < 0) {
		fprintf(stderr, "%s: ibv_poll_cq failed\n", rc_prog);
		exit(2);
	}
	if (poll(&p, 1, ms) <= 0)
		return;
	for (;;) {
		struct ibv_async_event ev;
		int q = -1;

		if (ibv_get_async_event(g.ctx, &ev))
			return;
		switch (ev.event_type) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_COMM_EST:
		case IBV_EVENT_SQ_DRAINED:
		case IBV_EVENT_PATH_MIG:
		case IBV_EVENT_PATH_MIG_ERR:
		case IBV_EVENT_QP_LAST_WQE_REACHED:
			q = qp_index(ev.element.qp->qp_num);
			break;
		default:
			break;
		}
		if (q >= 0 && ev.event_type < 32) {
			g.events[q][ev.event_type]++;
		} else {
			size_t l = strlen(g.other);

			g.other_events++;
			snprintf(g.other + l, sizeof(g.other) - l, " %s",
				 ibv_event_type_str(ev.event_type));
		}
		ibv_ack_async_event(&ev);
	}
}

/* Every async event of QP @q, "none" if it got none. */
static const char *events_of(int q)
{
	static char s[256];
	size_t l = 0;

	s[0] = 0;
	for (int t = 0; t < 32; t++)
		if (g.events[q][t])
			l += snprintf(s + l, sizeof(s) - l, "%s%s x%d", l ? ", " : "",
				      ibv_event_type_str((enum ibv_event_type)t), g.events[q][t]);
	return l ? s : "none";
}

static int events_total(int q)
{
	int n = 0;

	for (int t = 0; t < 32; t++)
		n += g.events[q][t];
	return n;
}

static const char *wcs(int st)
{
	return st < 0 ? "not completed" : ibv_wc_status_str((enum ibv_wc_status)st);
}

static void post_rdma(int q, uint64_t wr_id, enum ibv_wr_opcode op, void *local, uint32_t len,
		      uint64_t remote, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)local, .length = len, .lkey = g.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = remote, .rkey = rkey },
	}, *bad;

	g.status[wr_id] = -1;
	if (ibv_post_send(g.qp[q], &wr, &bad))
		die("ibv_post_send");
}

static void setup(void)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	union ibv_gid gid;
	enum ibv_mtu mtu;
	int fl;

	g.pd = ibv_alloc_pd(g.ctx);
	g.cq = g.pd ? ibv_create_cq(g.ctx, 256, NULL, NULL, 0) : NULL;
	if (!g.cq)
		die("ibv_alloc_pd/ibv_create_cq");
	g.buf = aligned_alloc(4096, MR_BYTES);
	if (!g.buf)
		die("aligned_alloc");
	memset(g.buf, 0, MR_BYTES);
	g.mr = ibv_reg_mr(g.pd, g.buf, MR_BYTES, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!g.mr)
		die("ibv_reg_mr");
	ia.send_cq = g.cq;
	ia.recv_cq = g.cq;
	for (int i = 0; i < NQP; i++) {
		g.qp[i] = ibv_create_qp(g.pd, &ia);
		if (!g.qp[i])
			die("ibv_create_qp");
		g.me.qpn[i] = g.qp[i]->qp_num;
	}
	g.gid_idx = find_roce4_gid(g.ctx, &gid, &mtu);
	memcpy(g.me.gid, gid.raw, 16);
	g.me.rkey = g.mr->rkey;
	g.me.addr = (uintptr_t)g.buf;
	g.me.psn = 0x1000;
	for (int i = 0; i < 32; i++)
		g.status[i] = -1;
	fl = fcntl(g.ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(g.ctx->async_fd, F_SETFL, fl | O_NONBLOCK))
		die("fcntl async_fd");
}

static void connect_qp(int q)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(g.qp[q], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = g.peer.qpn[q];
	a.rq_psn = g.peer.psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 20;	/* 10.24 ms between a TLB miss's RNR NAK and the retry */
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)g.gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	memcpy(a.ah_attr.grh.dgid.raw, g.peer.gid, 16);
	if (ibv_modify_qp(g.qp[q], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR");
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 18;		/* 1 s: a loaded TCG host is slow */
	a.retry_cnt = 7;
	a.rnr_retry = 7;	/* RNR NAKs for TLB misses: retry for ever */
	a.sq_psn = g.me.psn;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(g.qp[q], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

static bool region_is(int r, uint64_t seed)
{
	const uint8_t *p = region(r);

	for (uint64_t i = 0; i < REGION; i++)
		if (p[i] != pat(seed, i))
			return false;
	return true;
}

static uint64_t pattern_hash(uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint64_t i = 0; i < REGION; i++)
		h = (h ^ pat(seed, i)) * 0x100000001b3ull;
	return h;
}

static void sync_byte(int fd, char c)
{
	char got;

	xfer(fd, &c, 1, true);
	xfer(fd, &got, 1, false);
	if (got != c) {
		fprintf(stderr, "%s: out of step with the peer ('%c', expected '%c')\n", rc_prog,
			got, c);
		exit(2);
	}
}

static int server(int fd)
{
	struct report rep = { 0 };
	uint64_t t0;

	fill(region(R_IN), 0, REGION, SEED_IN);
	fill(region(R_READ), 0, REGION, SEED_READ);
	sync_byte(fd, 'G');	/* node 1's AEQ is stalled and its WRITE/READ posted */
	post_rdma(QP_DATA, WR_IN, IBV_WR_RDMA_WRITE, region(R_IN), REGION,
		  raddr(R_IN), g.peer.rkey);
	post_rdma(QP_RERR, WR_RERR, IBV_WR_RDMA_WRITE, g.buf, 4096,
		  raddr(R_IN), g.peer.rkey ^ 0x5a);
	sync_byte(fd, 'P');
	t0 = now_ms();
	while (now_ms() - t0 < WAIT_MS &&
	       (g.status[WR_IN] < 0 || g.status[WR_RERR] < 0 || !events_total(QP_LERR)))
		pump(50);
	sync_byte(fd, 'Q');	/* node 1 is done too: settle, then report */
	pump(500);
	rep.st_in = g.status[WR_IN];
	rep.st_rerr = g.status[WR_RERR];
	rep.lerr_event = g.events[QP_LERR][IBV_EVENT_QP_ACCESS_ERR] == 1 &&
			 events_total(QP_LERR) == 1;
	rep.hash_out = fnv(region(R_OUT), REGION);
	xfer(fd, &rep, sizeof(rep), true);

	sync_byte(fd, 'H');	/* node 1's AEQ is stalled again */
	post_rdma(QP_RERR2, WR_RERR2, IBV_WR_RDMA_WRITE, g.buf, 4096, raddr(R_IN),
		  g.peer.rkey ^ 0x5a);
	t0 = now_ms();
	while (now_ms() - t0 < WAIT_MS && g.status[WR_RERR2] < 0)
		pump(20);
	sync_byte(fd, 'h');
	ksft_test_result(rep.st_in == IBV_WC_SUCCESS,
		         "node 2: its 4 MiB WRITE into node 1's MR (TLB misses on node 1's stalled card): %s\n",
		         wcs(rep.st_in));
	ksft_test_result(rep.st_rerr == IBV_WC_REM_ACCESS_ERR,
		         "node 2: its WRITE with a bad rkey to node 1's QP rerr: %s (want %s)\n", wcs(rep.st_rerr),
		         wcs(IBV_WC_REM_ACCESS_ERR));
	ksft_test_result(rep.lerr_event,
		         "node 2: its QP lerr (responder of node 1's bad-rkey WRITE) got "
		         "IBV_EVENT_QP_ACCESS_ERR once: %s\n", events_of(QP_LERR));
	ksft_test_result(g.status[WR_RERR2] == IBV_WC_REM_ACCESS_ERR,
		         "node 2: its WRITE with a bad rkey to node 1's QP rerr2 (second stall): %s\n",
		         wcs(g.status[WR_RERR2]));
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}

static int client(int fd, const char *stall, int hold_ms)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD };
	struct report rep;
	uint64_t t_unstall, t_end, last_ms;
	bool sqd_ok;
	int n_events;

	fill(region(R_OUT), 0, REGION, SEED_OUT);
	ksft_test_result(flag_file_set(stall, 1) == 0, "inject_aeq_stall: 1 written and read back\n");
	post_rdma(QP_DATA, WR_OUT, IBV_WR_RDMA_WRITE, region(R_OUT), REGION, raddr(R_OUT),
		  g.peer.rkey);
	post_rdma(QP_DATA, WR_READ, IBV_WR_RDMA_READ, region(R_READ), REGION, raddr(R_READ),
		  g.peer.rkey);
	/* from the first page (prefilled: no miss), so the error happens during the stall */
	post_rdma(QP_LERR, WR_LERR, IBV_WR_RDMA_WRITE, g.buf, 4096, raddr(R_OUT),
		  g.peer.rkey ^ 0x5a);
	sqd_ok = ibv_modify_qp(g.qp[QP_SQD], &a, IBV_QP_STATE) == 0;
	sync_byte(fd, 'G');
	sync_byte(fd, 'P');	/* node 2 posted its WRITE into us and its bad-rkey WRITE */
	t_end = now_ms() + (uint64_t)hold_ms;
	while (now_ms() < t_end)
		pump(20);
	n_events = g.other_events;
	for (int q = 0; q < NQP; q++)
		n_events += events_total(q);
	ksft_test_result(n_events == 0,
		         "no async event reached the application during the %d ms stall (%d)\n",
		         hold_ms, n_events);
	ksft_test_result(g.status[WR_OUT] < 0 && g.status[WR_READ] < 0,
		         "the 4 MiB WRITE and READ wait on TLB misses while the AEQ is stalled (WRITE %s, READ %s)\n",
		         wcs(g.status[WR_OUT]), wcs(g.status[WR_READ]));

	ksft_test_result(flag_file_set(stall, 0) == 0, "inject_aeq_stall: 0 written and read back\n");
	t_unstall = now_ms();
	while (now_ms() - t_unstall < WAIT_MS &&
	       (g.status[WR_OUT] < 0 || g.status[WR_READ] < 0 || g.status[WR_LERR] < 0 ||
		!events_total(QP_RERR) || (sqd_ok && !events_total(QP_SQD))))
		pump(20);
	last_ms = now_ms() - t_unstall;
	/* anything that was not due would come with the resync: give it time */
	sync_byte(fd, 'Q');
	pump(500);
	t_end = now_ms() + 1000;
	while (now_ms() < t_end)
		pump(50);
	xfer(fd, &rep, sizeof(rep), false);
	printf("# after the un-stall: WRITE done in %lld ms, READ in %lld ms, everything in %llu ms\n",
	       g.status[WR_OUT] < 0 ? -1LL : (long long)(g.done_ms[WR_OUT] - t_unstall),
	       g.status[WR_READ] < 0 ? -1LL : (long long)(g.done_ms[WR_READ] - t_unstall),
	       (unsigned long long)last_ms);

	ksft_test_result(g.status[WR_OUT] == IBV_WC_SUCCESS,
		         "4 MiB WRITE from node 1's MR completes after the un-stall: %s\n", wcs(g.status[WR_OUT]));
	ksft_test_result(g.status[WR_READ] == IBV_WC_SUCCESS,
		         "4 MiB READ into node 1's MR completes after the un-stall: %s\n", wcs(g.status[WR_READ]));
	ksft_test_result(rep.hash_out == pattern_hash(SEED_OUT),
		         "the WRITE's data arrived intact at node 2\n");
	ksft_test_result(g.status[WR_READ] == IBV_WC_SUCCESS && region_is(R_READ, SEED_READ),
		         "the READ's data is intact in node 1's MR\n");
	ksft_test_result(rep.st_in == IBV_WC_SUCCESS && region_is(R_IN, SEED_IN),
		         "node 2's 4 MiB WRITE into node 1's MR completed (%s) and its data is intact\n",
		         wcs(rep.st_in));
	ksft_test_result(g.events[QP_RERR][IBV_EVENT_QP_ACCESS_ERR] == 1 &&
		         events_total(QP_RERR) == 1,
		         "QP rerr (node 2 wrote with a bad rkey during the stall): IBV_EVENT_QP_ACCESS_ERR "
		         "exactly once after the resync (got %s)\n", events_of(QP_RERR));
	if (sqd_ok)
		ksft_test_result(g.events[QP_SQD][IBV_EVENT_SQ_DRAINED] == 1 &&
			         events_total(QP_SQD) == 1,
			         "QP sqd (RTS -> SQD during the stall): IBV_EVENT_SQ_DRAINED exactly once after "
			         "the resync (got %s)\n", events_of(QP_SQD));
	else
		ksft_test_result(false, "QP sqd: modify RTS -> SQD failed: %s\n", strerror(errno));
	ksft_test_result(g.status[WR_LERR] == IBV_WC_REM_ACCESS_ERR,
		         "QP lerr (WRITE to a bad rkey during the stall): error completion %s (want %s)\n",
		         wcs(g.status[WR_LERR]), wcs(IBV_WC_REM_ACCESS_ERR));
	ksft_test_result(events_total(QP_LERR) == 0,
		         "QP lerr: no async event (a requester error is reported by its completion only; got %s)\n",
		         events_of(QP_LERR));
	ksft_test_result(events_total(QP_DATA) == 0 && g.other_events == 0,
		         "no other async event (QP data: %s; device:%s)\n", events_of(QP_DATA),
		         g.other_events ? g.other : " none");
	ksft_test_result(qp_state(g.qp[QP_DATA]) == IBV_QPS_RTS &&
		         qp_state(g.qp[QP_RERR]) == IBV_QPS_ERR &&
		         qp_state(g.qp[QP_LERR]) == IBV_QPS_ERR,
		         "QP states: data %s, rerr %s, lerr %s (want RTS, ERR, ERR)\n",
		         state_str(qp_state(g.qp[QP_DATA])), state_str(qp_state(g.qp[QP_RERR])),
		         state_str(qp_state(g.qp[QP_LERR])));

	/* a second drain, AEQ running: SQD -> RTS -> SQD gets its own SQ_DRAINED, and one only */
	if (sqd_ok) {
		struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS };

		sqd_ok = ibv_modify_qp(g.qp[QP_SQD], &rts, IBV_QP_STATE) == 0 &&
			 ibv_modify_qp(g.qp[QP_SQD], &a, IBV_QP_STATE) == 0;
		t_end = now_ms() + 20000;
		while (sqd_ok && now_ms() < t_end && g.events[QP_SQD][IBV_EVENT_SQ_DRAINED] < 2)
			pump(20);
		pump(500);	/* a duplicate would arrive now */
	}
	ksft_test_result(sqd_ok && g.events[QP_SQD][IBV_EVENT_SQ_DRAINED] == 2 &&
		         events_total(QP_SQD) == 2,
		         "QP sqd: SQD -> RTS -> SQD again: a second IBV_EVENT_SQ_DRAINED, two in all (got %s%s)\n",
		         events_of(QP_SQD), sqd_ok ? "" : "; a modify failed");

	/* second stall: a QP error alone */
	if (flag_file_set(stall, 1))
		ksft_test_result(false, "inject_aeq_stall: 1 again\n");
	sync_byte(fd, 'H');
	sync_byte(fd, 'h');	/* node 2's bad WRITE got its error completion */
	t_end = now_ms() + 500;
	while (now_ms() < t_end)
		pump(20);
	n_events = events_total(QP_RERR2);
	if (flag_file_set(stall, 0))
		ksft_test_result(false, "inject_aeq_stall: 0 again\n");
	t_unstall = now_ms();
	while (now_ms() - t_unstall < 20000 && !events_total(QP_RERR2))
		pump(20);
	last_ms = now_ms() - t_unstall;
	pump(500);
	ksft_test_result(n_events == 0, "second stall: no event during it (%d)\n", n_events);
	ksft_test_result(g.events[QP_RERR2][IBV_EVENT_QP_ACCESS_ERR] == 1 &&
		         events_total(QP_RERR2) == 1,
		         "second stall, a QP error and no TLB miss: IBV_EVENT_QP_ACCESS_ERR once on QP rerr2, "
		         "%llu ms after the un-stall (got %s)\n", (unsigned long long)last_ms,
		         events_of(QP_RERR2));
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *peer = NULL, *stall = NULL;
	int port = 18790, hold_ms = 2000, opt, fd, rc;
	bool srv = false;

	rc_prog = "event_overflow";
	setvbuf(stdout, NULL, _IOLBF, 0);	/* each result line out at once, as before */
	while ((opt = getopt(argc, argv, "sc:d:p:S:H:")) != -1) {
		switch (opt) {
		case 's': srv = true; break;
		case 'c': peer = optarg; break;
		case 'd': dev = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'S': stall = optarg; break;
		case 'H': hold_ms = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s -s | -c PEER_IP -S STALL_FILE [-d DEV] "
				"[-p PORT] [-H MS]\n", argv[0]);
			return 2;
		}
	}
	if (srv == !!peer || (peer && !stall)) {
		fprintf(stderr, "%s: one of -s and -c PEER_IP; -c needs -S\n", rc_prog);
		return 2;
	}
	g.ctx = open_device(dev);
	setup();
	fd = tcp_connect(peer, port, srv);
	xfer(fd, &g.me, sizeof(g.me), true);
	xfer(fd, &g.peer, sizeof(g.peer), false);
	for (int q = 0; q < NQP; q++)
		connect_qp(q);
	sync_byte(fd, 'R');	/* both sides' QPs are in RTS */
	rc = srv ? server(fd) : client(fd, stall, hold_ms);
	close(fd);
	for (int q = 0; q < NQP; q++)
		ibv_destroy_qp(g.qp[q]);
	ibv_dereg_mr(g.mr);
	ibv_destroy_cq(g.cq);
	ibv_dealloc_pd(g.pd);
	ibv_close_device(g.ctx);
	free(g.buf);
	return rc;
}
