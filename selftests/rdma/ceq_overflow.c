// SPDX-License-Identifier: MIT
/*
 * ceq_overflow: what an application sees when its card's completion event queue (CEQ) loses
 * CQ notifications, and that a QP or CQ number reused while its old owner's events are owed
 * by a stalled event queue gets none of them (docs/admin-queue.md 4.3; docs/security.md,
 * uverbs). One node, the card with fault-inject=on, QPs looped back on that card.
 *
 * Part 1, CEQ overflow: NCQ CQs, each with its own completion channel and armed, receive
 * NMSG SENDs each while the CEQ is stalled (-C .../inject_ceq_stall: the card drops every
 * notification and counts it). Checked: no channel fires during the stall; after the release
 * the card writes its OVERFLOW entry and the driver calls every CQ's handler, so every
 * channel fires; every completion is then polled once, with its status, length and data
 * checked, and nothing is reported twice.
 *
 * Part 2, the destroy-time drain and number reuse: with the CEQ and the AEQ (-A
 * .../inject_aeq_stall) stalled, a CQ gets a completion (its notification owed by the CEQ)
 * and a QP a responder error (IBV_EVENT_QP_ACCESS_ERR owed by the AEQ); both QPs of the pair
 * and the CQ are destroyed, and a new CQ and QP pair are created, which take the same
 * numbers (checked: QP numbers from verbs, CQ numbers from `rdma -dd res show cq`'s hw_cqn).
 * Then both queues are released. Checked: the new QPs get no async event (the old QP's error
 * is not theirs), the new CQ holds no completion (at most the one notification every CQ gets
 * from the OVERFLOW, which the driver documents), and the new pair then carries a SEND with
 * its data, one completion and one notification.
 *
 * Usage: ceq_overflow -d DEV -C CEQ_STALL_FILE -A AEQ_STALL_FILE [-H MS]
 * Prints TAP lines through kselftest.h (no plan: the calling script owns it); exit 0 when all
 * passed, 1 when one failed, 2 on set-up errors.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>

#include "rdma_common.h"

#define NCQ		4	/* CQs of part 1, each with its own channel */
#define NMSG		8	/* SENDs into each */
#define MSG		512
#define BUF_BYTES	(256u * 1024u)
#define SEND_OFF	(128u * 1024u)	/* send buffers (slots of MSG bytes); receive buffers below */
#define WAIT_MS		20000	/* bound on every wait after a release */
#define WR_V_SEND	1000	/* part 2 wr_ids */
#define WR_V_BAD	1001
#define WR_V_RECV	1100
#define WR_N_SEND	1200
#define WR_N_RECV	1300

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_cq *scq;	/* send side of every pair, polled, no channel */
	struct ibv_comp_channel *ch[NCQ];
	struct ibv_cq *cq[NCQ];
	unsigned int ch_events[NCQ];
	struct ibv_qp *qr[NCQ], *qs[NCQ];	/* receiver on cq[i], sender on scq */
	union ibv_gid gid;
	int gid_idx;
	enum ibv_mtu mtu;
	int async_events;
	char async[256];
} g;

/* The send completions seen on scq, by wr_id; -1 none yet. */
static int scq_status[2048];

static void poll_scq(void)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(g.scq, 16, wc)) > 0)
		for (int i = 0; i < n; i++)
			if (wc[i].wr_id < 2048)
				scq_status[wc[i].wr_id] = wc[i].status;
	if (n < 0)
		die("ibv_poll_cq (send CQ)");
}

static bool wait_scq(uint64_t wr_id)
{
	uint64_t t0 = now_ms();

	while (scq_status[wr_id] < 0 && now_ms() - t0 < WAIT_MS) {
		poll_scq();
		usleep(1000);
	}
	return scq_status[wr_id] >= 0;
}

/* Async events of the device so far (none is due in this program). */
static void take_async(void)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(g.ctx, &ev)) {
		size_t l = strlen(g.async);

		g.async_events++;
		snprintf(g.async + l, sizeof(g.async) - l, " %s",
			 ibv_event_type_str(ev.event_type));
		if (ev.event_type == IBV_EVENT_QP_FATAL ||
		    ev.event_type == IBV_EVENT_QP_REQ_ERR ||
		    ev.event_type == IBV_EVENT_QP_ACCESS_ERR ||
		    ev.event_type == IBV_EVENT_COMM_EST ||
		    ev.event_type == IBV_EVENT_SQ_DRAINED ||
		    ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED) {
			l = strlen(g.async);
			snprintf(g.async + l, sizeof(g.async) - l, "(QP %u)",
				 ev.element.qp->qp_num);
		}
		ibv_ack_async_event(&ev);
	}
}

/* Takes the pending events of channel @ch (non-blocking); how many, acked on their CQ. */
static unsigned int take_ch(struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq;
	void *ctx;
	unsigned int n = 0;

	while (!ibv_get_cq_event(ch, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		n++;
	}
	return n;
}

static struct ibv_comp_channel *new_channel(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(g.ctx);
	int fl;

	if (!ch)
		die("ibv_create_comp_channel");
	fl = fcntl(ch->fd, F_GETFL);
	if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK))
		die("fcntl channel");
	return ch;
}

static struct ibv_qp *new_qp(struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = g.scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(g.pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void to_rts(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
	rc_connect(qp, g.gid_idx, g.mtu, g.gid.raw, dqpn, 0x100, 0x100);
}

/* Two QPs of this card connected to each other. */
static void pair(struct ibv_qp *a, struct ibv_qp *b)
{
	to_rts(a, b->qp_num);
	to_rts(b, a->qp_num);
}

static uint8_t *rbuf(unsigned int slot)
{
	return g.buf + (uint64_t)slot * MSG;
}

static uint8_t *sbuf(unsigned int slot)
{
	return g.buf + SEND_OFF + (uint64_t)slot * MSG;
}

static void post_recv(struct ibv_qp *qp, uint64_t wr_id, unsigned int slot)
{
	struct ibv_sge sge = { .addr = (uintptr_t)rbuf(slot), .length = MSG, .lkey = g.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(rbuf(slot), 0, MSG);
	if (ibv_post_recv(qp, &wr, &bad))
		die("ibv_post_recv");
}

static void post_send(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
		      unsigned int slot, uint64_t seed, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)sbuf(slot), .length = MSG, .lkey = g.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)g.buf, .rkey = rkey },
	}, *bad;

	fill(sbuf(slot), 0, MSG, seed);
	scq_status[wr_id] = -1;
	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send");
}

static bool slot_is(unsigned int slot, uint64_t seed)
{
	for (unsigned int i = 0; i < MSG; i++)
		if (rbuf(slot)[i] != pat(seed, i))
			return false;
	return true;
}

/*
 * The card's numbers (hw_cqn) of this process's CQs, from `rdma -dd res show cq` (one line
 * per CQ, the driver's attributes at its end); how many, at most @max into @out.
 */
static int hw_cqns(const char *dev, unsigned int *out, int max)
{
	char cmd[128], line[1024], me[32];
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "/usr/sbin/rdma -dd res show cq dev %s 2>/dev/null", dev);
	snprintf(me, sizeof(me), " pid %d ", (int)getpid());
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		char *h = strstr(line, "hw_cqn ");

		if (h && strstr(line, me))
			out[n++] = (unsigned int)strtoul(h + 7, NULL, 10);
	}
	pclose(f);
	return n;
}

static bool in_set(unsigned int v, const unsigned int *s, int n)
{
	for (int i = 0; i < n; i++)
		if (s[i] == v)
			return true;
	return false;
}

static void setup(const char *dev)
{
	int fl;

	g.ctx = open_device(dev);
	g.pd = ibv_alloc_pd(g.ctx);
	g.scq = g.pd ? ibv_create_cq(g.ctx, 256, NULL, NULL, 0) : NULL;
	if (!g.scq)
		die("ibv_alloc_pd/ibv_create_cq");
	g.buf = aligned_alloc(4096, BUF_BYTES);
	if (!g.buf)
		die("aligned_alloc");
	memset(g.buf, 0, BUF_BYTES);
	g.mr = ibv_reg_mr(g.pd, g.buf, BUF_BYTES, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE);
	if (!g.mr)
		die("ibv_reg_mr");
	g.gid_idx = find_roce4_gid(g.ctx, &g.gid, &g.mtu);
	fl = fcntl(g.ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(g.ctx->async_fd, F_SETFL, fl | O_NONBLOCK))
		die("fcntl async_fd");
	for (int i = 0; i < 2048; i++)
		scq_status[i] = -1;
	for (int i = 0; i < NCQ; i++) {
		g.ch[i] = new_channel();
		g.cq[i] = ibv_create_cq(g.ctx, 64, NULL, g.ch[i], 0);
		if (!g.cq[i])
			die("ibv_create_cq");
		g.qr[i] = new_qp(g.cq[i]);
		g.qs[i] = new_qp(g.scq);
		pair(g.qr[i], g.qs[i]);
	}
}

static uint64_t seed_of(int c, int k)
{
	return 0x5eed00u + (uint64_t)c * NMSG + k;
}

/* Part 1: the CEQ overflows while completions arrive on NCQ CQs. */
static void part1(const char *ceq, int hold_ms)
{
	int seen[NCQ * NMSG] = { 0 };
	int bad = 0, twice = 0, stray = 0, all_events = 1, sends_ok = 1, late = 0;
	uint64_t t0, t_rel;
	char why[256] = "";

	for (int c = 0; c < NCQ; c++) {
		for (int k = 0; k < NMSG; k++)
			post_recv(g.qr[c], (uint64_t)c * NMSG + k, c * NMSG + k);
		if (ibv_req_notify_cq(g.cq[c], 0))
			die("ibv_req_notify_cq");
	}
	ksft_test_result(flag_file_set(ceq, 1) == 0, "inject_ceq_stall: 1 written and read back\n");
	for (int c = 0; c < NCQ; c++)
		for (int k = 0; k < NMSG; k++)
			post_send(g.qs[c], 100 + c * NMSG + k, IBV_WR_SEND, c * NMSG + k,
				  seed_of(c, k), 0);
	for (int i = 0; i < NCQ * NMSG; i++)
		if (!wait_scq(100 + i) || scq_status[100 + i] != IBV_WC_SUCCESS)
			sends_ok = 0;
	ksft_test_result(sends_ok, "%d SENDs into %d CQs complete while the CEQ is stalled\n",
			 NCQ * NMSG, NCQ);
	t0 = now_ms();
	while (now_ms() - t0 < (uint64_t)hold_ms) {
		for (int c = 0; c < NCQ; c++)
			g.ch_events[c] += take_ch(g.ch[c]);
		usleep(10000);
	}
	{
		unsigned int during = 0;

		for (int c = 0; c < NCQ; c++)
			during += g.ch_events[c];
		ksft_test_result(during == 0,
				 "no CQ notification reached a channel during the %d ms stall (%u)\n",
				 hold_ms, during);
	}

	ksft_test_result(flag_file_set(ceq, 0) == 0, "inject_ceq_stall: 0 written and read back\n");
	t_rel = now_ms();
	for (;;) {
		int missing = 0;

		for (int c = 0; c < NCQ; c++) {
			g.ch_events[c] += take_ch(g.ch[c]);
			missing += !g.ch_events[c];
		}
		if (!missing || now_ms() - t_rel > WAIT_MS)
			break;
		usleep(2000);
	}
	for (int c = 0; c < NCQ; c++) {
		size_t l = strlen(why);

		snprintf(why + l, sizeof(why) - l, "%s%u", c ? "/" : "", g.ch_events[c]);
		all_events &= g.ch_events[c] >= 1;
	}
	ksft_test_result(all_events,
			 "after the release every CQ's channel fired (events per CQ %s, %llu ms)\n",
			 why, (unsigned long long)(now_ms() - t_rel));

	/* every completion, polled once, with its data */
	for (int c = 0; c < NCQ; c++) {
		struct ibv_wc wc[16];
		int n;

		while ((n = ibv_poll_cq(g.cq[c], 16, wc)) > 0)
			for (int i = 0; i < n; i++) {
				uint64_t id = wc[i].wr_id;

				if (id >= NCQ * NMSG || id / NMSG != (uint64_t)c) {
					stray++;
					continue;
				}
				if (seen[id]++)
					twice++;
				if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RECV ||
				    wc[i].byte_len != MSG || !slot_is(id, seed_of(c, id % NMSG)))
					bad++;
			}
		if (n < 0)
			die("ibv_poll_cq");
	}
	{
		int polled = 0;

		for (int i = 0; i < NCQ * NMSG; i++)
			polled += seen[i] > 0;
		ksft_test_result(polled == NCQ * NMSG && !bad,
				 "all %d completions polled after the release, status, length and data right (%d of them, %d bad)\n",
				 NCQ * NMSG, polled, bad);
	}
	/* re-armed, nothing more may come: a completion reported twice would show now */
	for (int c = 0; c < NCQ; c++)
		if (ibv_req_notify_cq(g.cq[c], 0))
			die("ibv_req_notify_cq");
	usleep(300000);
	for (int c = 0; c < NCQ; c++) {
		struct ibv_wc wc;

		g.ch_events[c] += take_ch(g.ch[c]);
		while (ibv_poll_cq(g.cq[c], 1, &wc) > 0)
			late++;
	}
	ksft_test_result(!twice && !stray && !late,
			 "nothing reported twice (%d twice, %d on the wrong CQ, %d late)\n", twice,
			 stray, late);
}

/* Part 2: a QP pair and a CQ destroyed while their events are owed; the numbers reused. */
static void part2(const char *dev, const char *ceq, const char *aeq, int hold_ms)
{
	unsigned int before[16], after[16];
	struct ibv_comp_channel *vch, *nch;
	struct ibv_qp *vr, *vs, *nr, *ns;
	uint32_t old_r, old_s;
	struct ibv_cq *vc, *nc;
	unsigned int nch_events = 0, vch_events;
	int nb, na, cqes = 0, ok_cqe = 0, n, stalls;
	bool same;
	struct ibv_wc wc[8];
	uint64_t t0;

	vch = new_channel();
	vc = ibv_create_cq(g.ctx, 64, NULL, vch, 0);
	if (!vc)
		die("ibv_create_cq");
	vr = new_qp(vc);
	vs = new_qp(g.scq);
	pair(vr, vs);
	for (int k = 0; k < 4; k++)
		post_recv(vr, WR_V_RECV + k, 100 + k);
	if (ibv_req_notify_cq(vc, 0))
		die("ibv_req_notify_cq");
	take_async();
	g.async_events = 0;
	g.async[0] = 0;

	stalls = (flag_file_set(ceq, 1) == 0) + (flag_file_set(aeq, 1) == 0);
	ksft_test_result(stalls == 2, "inject_ceq_stall and inject_aeq_stall: 1\n");
	post_send(vs, WR_V_SEND, IBV_WR_SEND, 100, 0xdead, 0);
	wait_scq(WR_V_SEND);
	/* a WRITE with a bad rkey: the receiver's QP goes to ERR, its event owed by the AEQ */
	post_send(vs, WR_V_BAD, IBV_WR_RDMA_WRITE, 101, 0xbad, g.mr->rkey ^ 0x5a);
	wait_scq(WR_V_BAD);
	t0 = now_ms();
	while (now_ms() - t0 < (uint64_t)hold_ms) {
		take_async();
		usleep(10000);
	}
	vch_events = take_ch(vch);
	ksft_test_result(scq_status[WR_V_SEND] == IBV_WC_SUCCESS &&
			 scq_status[WR_V_BAD] == IBV_WC_REM_ACCESS_ERR &&
			 qp_state(vr) == IBV_QPS_ERR && !vch_events && !g.async_events,
			 "during the stalls: the SEND completed (%s), the bad WRITE failed (%s), the "
			 "receiver is in %s, no notification (%u) and no async event (%d:%s)\n",
			 scq_status[WR_V_SEND] < 0 ? "not completed" :
			 ibv_wc_status_str(scq_status[WR_V_SEND]),
			 scq_status[WR_V_BAD] < 0 ? "not completed" :
			 ibv_wc_status_str(scq_status[WR_V_BAD]),
			 state_str(qp_state(vr)), vch_events, g.async_events,
			 g.async_events ? g.async : " none");

	nb = hw_cqns(dev, before, 16);
	old_r = vr->qp_num;
	old_s = vs->qp_num;
	if (ibv_destroy_qp(vr) || ibv_destroy_qp(vs) || ibv_destroy_cq(vc) ||
	    ibv_destroy_comp_channel(vch))
		die("destroy of the old QPs and CQ");
	nch = new_channel();
	nc = ibv_create_cq(g.ctx, 64, NULL, nch, 0);
	if (!nc)
		die("ibv_create_cq (new)");
	nr = new_qp(nc);
	ns = new_qp(g.scq);
	na = hw_cqns(dev, after, 16);
	/* this process's CQs: the send CQ, part 1's and the old (then the new) one */
	same = nb == NCQ + 2 && na == nb;
	for (int i = 0; same && i < nb; i++)
		same = in_set(before[i], after, na);
	ksft_test_result(((nr->qp_num == old_r && ns->qp_num == old_s) ||
			  (nr->qp_num == old_s && ns->qp_num == old_r)) && same,
			 "the new QPs and CQ took the old numbers (QPs %u, %u -> %u, %u; the card's "
			 "CQ numbers of this process: %d before, %d after, %s)\n", old_r, old_s,
			 nr->qp_num, ns->qp_num, nb, na, same ? "the same set" : "not the same set");
	pair(nr, ns);
	post_recv(nr, WR_N_RECV, 110);
	if (ibv_req_notify_cq(nc, 0))
		die("ibv_req_notify_cq (new)");

	stalls = (flag_file_set(ceq, 0) == 0) + (flag_file_set(aeq, 0) == 0);
	ksft_test_result(stalls == 2, "inject_ceq_stall and inject_aeq_stall: 0\n");
	/* the OVERFLOWs and the AEQ resync happen now; give them time */
	t0 = now_ms();
	while (now_ms() - t0 < 1500) {
		take_async();
		nch_events += take_ch(nch);
		for (int c = 0; c < NCQ; c++)
			take_ch(g.ch[c]);
		usleep(10000);
	}
	while ((n = ibv_poll_cq(nc, 8, wc)) > 0)
		cqes += n;
	ksft_test_result(!g.async_events,
			 "no async event after the release: the old QP's error is not the new QP's (%d:%s)\n",
			 g.async_events, g.async_events ? g.async : " none");
	ksft_test_result(!cqes && nch_events <= 1,
			 "the new CQ holds none of the old CQ's completions (%d) and got at most the "
			 "OVERFLOW's call to every CQ (%u notifications)\n", cqes, nch_events);

	/* the new pair works: one SEND, one completion with its data, one notification */
	if (ibv_req_notify_cq(nc, 0))
		die("ibv_req_notify_cq (new)");
	nch_events = 0;
	post_send(ns, WR_N_SEND, IBV_WR_SEND, 111, 0xfeed, 0);
	wait_scq(WR_N_SEND);
	t0 = now_ms();
	while (now_ms() - t0 < WAIT_MS && !nch_events) {
		nch_events += take_ch(nch);
		usleep(2000);
	}
	usleep(200000);
	nch_events += take_ch(nch);
	while ((n = ibv_poll_cq(nc, 8, wc)) > 0)
		for (int i = 0; i < n; i++) {
			cqes++;
			ok_cqe += wc[i].wr_id == WR_N_RECV && wc[i].status == IBV_WC_SUCCESS &&
				  wc[i].byte_len == MSG && slot_is(110, 0xfeed);
		}
	take_async();
	ksft_test_result(scq_status[WR_N_SEND] == IBV_WC_SUCCESS && cqes == 1 && ok_cqe == 1 &&
			 nch_events == 1 && !g.async_events && qp_state(nr) == IBV_QPS_RTS &&
			 qp_state(ns) == IBV_QPS_RTS,
			 "the new pair carries a SEND: %s, %d completion(s) on the new CQ (%d right), "
			 "%u notification(s), QPs %s/%s, %d async events\n",
			 scq_status[WR_N_SEND] < 0 ? "not completed" :
			 ibv_wc_status_str(scq_status[WR_N_SEND]),
			 cqes, ok_cqe, nch_events, state_str(qp_state(nr)), state_str(qp_state(ns)),
			 g.async_events);
	if (ibv_destroy_qp(nr) || ibv_destroy_qp(ns) || ibv_destroy_cq(nc) ||
	    ibv_destroy_comp_channel(nch))
		die("destroy of the new QPs and CQ");
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *ceq = NULL, *aeq = NULL;
	int hold_ms = 500, opt;

	rc_prog = "ceq_overflow";
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:C:A:H:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'C': ceq = optarg; break;
		case 'A': aeq = optarg; break;
		case 'H': hold_ms = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s -d DEV -C CEQ_STALL -A AEQ_STALL [-H MS]\n", argv[0]);
			return 2;
		}
	}
	if (!dev || !ceq || !aeq) {
		fprintf(stderr, "%s: -d, -C and -A are needed\n", rc_prog);
		return 2;
	}
	setup(dev);
	part1(ceq, hold_ms);
	part2(dev, ceq, aeq, hold_ms);
	for (int c = 0; c < NCQ; c++) {
		take_ch(g.ch[c]);
		ibv_destroy_qp(g.qr[c]);
		ibv_destroy_qp(g.qs[c]);
		ibv_destroy_cq(g.cq[c]);
		ibv_destroy_comp_channel(g.ch[c]);
	}
	ibv_dereg_mr(g.mr);
	ibv_destroy_cq(g.scq);
	ibv_dealloc_pd(g.pd);
	ibv_close_device(g.ctx);
	free(g.buf);
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
