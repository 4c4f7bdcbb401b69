// SPDX-License-Identifier: MIT
/*
 * roce_raw: RC behaviours 8 (ACK coalescing, implicit ACKs) and 11 (malformed
 * requests) of issue 6, checked against a real RDMA device (a SCENIC card or
 * Linux rxe) with hand-made RoCE v2 frames: Ethernet / IPv4 / UDP 4791 / BTH
 * [/ RETH / AETH / AtomicETH / AtomicAckETH] / payload / ICRC, sent and
 * captured over AF_PACKET.
 *
 *   verbs side:  roce_raw -s -d DEV [-p PORT]
 *   raw side:    roce_raw -c SERVER_IPV4 -i IFACE [-p PORT]
 *   roce_raw -P  prints the number of checks of a raw-side run (the plan)
 *
 * The verbs side ("server") owns the device: over a TCP connection the raw
 * side ("client") has it create RC QPs whose peer is a QPN the raw side plays
 * (RAW_QPN + slot, above every QPN rxe hands out), fill and hash its memory,
 * query QP states, post WRITE / READ / FETCH_ADD work requests and poll their
 * completions. The peer's GID is the client's IPv4 address on the control
 * connection, so the raw side must send and capture on the interface that
 * carries it, and nothing else on that host may own the raw QPNs.
 *
 * Raw requester (the device is the responder): a WRITE_ONLY with AckReq gets
 * an ACK (sanity); FIRST + 6 MIDDLE + LAST with AckReq on LAST only gets one
 * ACK for LAST; two WRITEs without AckReq then one with it: one ACK whose MSN
 * counts all three; a READ or a FETCH_ADD behind an unacknowledged WRITE is
 * the only answer (implicit ACK); malformed requests (WRITE_MIDDLE without
 * FIRST, SEND_LAST inside a WRITE, a reserved opcode, payload != RETH length,
 * payload > PMTU) get an Invalid Request NAK (AETH 0x61) for their PSN, leave
 * the target memory as it was and the QP in ERR; so does a SEND_ONLY longer
 * than the PMTU (rxe 6.1 receives it).
 *
 * A third party (issue 15): a WRITE_ONLY from a spoofed source address (.99 of
 * the subnet) is dropped without an answer and places nothing; a replay of an
 * accepted WRITE with other data places nothing and gets at most a re-ACK; a
 * "duplicate" READ with a bad rkey at a WRITE's PSN is dropped without a NAK
 * (SCENIC only); the QP stays RTS and ACKs the next WRITE in sequence.
 *
 * Raw responder (the device is the requester): 4 signalled WRITEs answered
 * by one ACK of the last PSN; WRITE, WRITE, READ answered by the READ
 * response only; WRITE + FETCH_ADD answered by the atomic ACK only: every WR
 * completes successfully, without a retransmission, before the ACK timeout.
 *
 * Where Linux rxe 6.1 departs from IBA the check expects what rxe does and
 * says so in its name. Output is TAP through the kernel's kselftest.h, one line
 * per check; exit 0 only if all passed. Every receive and every wait is bounded.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>

#include "rdma_common.h"

#define ROCE_PORT	4791
#define MR_SIZE		(1u << 20)
#define REGION		16384		/* target region of each scenario */
#define PMTU		1024		/* IBV_MTU_1024 on every QP */
#define RAW_QPN		0x5a0000	/* rxe 6.1 QPNs stay below 0x20000 */
#define RAW_VA		0x7f5a00000000ull	/* memory of the fake responder */
#define RAW_RKEY	0x5a5a01
#define ACK_TIMEOUT	19		/* 4.096 us * 2^19 = 2.15 s */
#define ACK_TIMEOUT_MS	2147
#define MAX_RX		24
#define MAX_WC		8
#define FAA_ORIG	0x1122334455667788ull
#define FAA_ADD		5
#define PLAN		50		/* checks of one client run (roce_raw -P prints it) */

/* RC opcodes (IBA 9.2) */
enum {
	SEND_FIRST = 0x00, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM,
	WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM,
	READ_REQ, READ_RESP_FIRST, READ_RESP_MIDDLE, READ_RESP_LAST, READ_RESP_ONLY,
	ACK, ATOMIC_ACK, CMP_SWAP, FETCH_ADD,
	RESERVED_RC = 0x18,	/* reserved in IBA, no rxe_opcode[] entry in rxe 6.1 */
};

#define AETH_ACK	0x1f	/* ACK, credits invalid (what rxe and SCENIC send) */
#define AETH_NAK_INV	0x61	/* NAK, Invalid Request */

/* ---- control protocol ---- */

enum op {
	OP_QP = 1,	/* slot, qp -> qpn: RC QP in RTS towards RAW_QPN + slot */
	OP_STATE,	/* slot, a = wanted state, b = ms: -> state (waits until wanted or b ms) */
	OP_FILL,	/* a = off, b = len, x = seed */
	OP_HASH,	/* a = off, b = len -> v */
	OP_POST,	/* slot, a = kind (POST_*), x = hash of the READ data: post, no wait */
	OP_POLL,	/* slot, a = n, b = ms: -> n completions (status, opcode, wr_id, ms) */
	OP_RECV,	/* slot, a = off, b = len: post a receive */
	OP_QUIT,
};

enum { POST_4WRITES, POST_WWR, POST_WFAA };

struct qp_params {
	uint32_t psn;		/* sq_psn and rq_psn */
	uint32_t pad;
};

struct cmd {
	uint32_t op, slot, a, b;
	uint64_t x;
	struct qp_params qp;
};

struct reply {
	int32_t status;		/* 0 ok, else -errno */
	uint32_t qpn, state, nwc;
	uint64_t v;
	uint32_t wc_status[MAX_WC], wc_opcode[MAX_WC], wc_ms[MAX_WC];
	uint64_t wc_id[MAX_WC];
};

struct hello {
	uint64_t addr;
	uint32_t rkey, scenic;
	char dev[32];
};

/* ---- verbs side ---- */

#define SLOTS 16

struct server {
	struct ibv_context *dev;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp[SLOTS];
	uint8_t *buf;
	int gid_idx;
	union ibv_gid gid, peer_gid;
	uint64_t posted_ms[SLOTS];
	uint32_t kind[SLOTS];
	uint64_t read_hash;	/* of the READ data the fake responder sends */
	int sock;
};

static int qp_up(struct server *s, struct ibv_qp *qp, uint32_t slot, uint32_t psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	int e;

	e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS);
	if (e)
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = RAW_QPN + slot;
	a.rq_psn = psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)s->gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid = s->peer_gid;
	e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (e)
		return e;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = ACK_TIMEOUT;
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.sq_psn = psn;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * The requester scenarios: source data at 512 K, READ destination at 520 K,
 * FETCH_ADD result at 524 K; remote addresses in the fake responder's space.
 */
#define SRC_OFF		(512u << 10)
#define READ_OFF	(520u << 10)
#define FAA_OFF		(524u << 10)
#define XFER		64

static int post(struct server *s, struct ibv_qp *qp, uint32_t kind)
{
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sge[4];
	int n = 0;

	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 4; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)s->buf + SRC_OFF + i * XFER,
					   .length = XFER, .lkey = s->mr->lkey };
		wr[i].wr_id = i + 1;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = RAW_VA + i * XFER;
		wr[i].wr.rdma.rkey = RAW_RKEY;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	switch (kind) {
	case POST_4WRITES:
		n = 4;
		break;
	case POST_WWR:
		n = 3;
		wr[2].opcode = IBV_WR_RDMA_READ;
		sge[2].addr = (uintptr_t)s->buf + READ_OFF;
		memset(s->buf + READ_OFF, 0, XFER);
		break;
	case POST_WFAA:
		n = 2;
		wr[1].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		sge[1].addr = (uintptr_t)s->buf + FAA_OFF;
		sge[1].length = 8;
		memset(s->buf + FAA_OFF, 0, 8);
		wr[1].wr.atomic.remote_addr = RAW_VA + 0x100;
		wr[1].wr.atomic.rkey = RAW_RKEY;
		wr[1].wr.atomic.compare_add = FAA_ADD;
		break;
	default:
		return EINVAL;
	}
	wr[n - 1].next = NULL;
	fill(s->buf + SRC_OFF, 0, 4 * XFER, 77);
	return ibv_post_send(qp, wr, &bad);
}

static void poll_wcs(struct server *s, uint32_t slot, uint32_t n, uint32_t ms, struct reply *r)
{
	uint64_t end = now_ms() + ms;
	struct ibv_qp *qp = s->qp[slot];

	while (r->nwc < n && r->nwc < MAX_WC && now_ms() < end) {
		struct ibv_wc wc;
		int k = ibv_poll_cq(s->cq, 1, &wc);

		if (k < 0) {
			r->status = -EIO;
			return;
		}
		if (!k) {
			usleep(100);
			continue;
		}
		if (wc.qp_num != qp->qp_num)
			continue;
		r->wc_status[r->nwc] = wc.status;
		r->wc_opcode[r->nwc] = wc.opcode;
		r->wc_id[r->nwc] = wc.wr_id;
		r->wc_ms[r->nwc] = (uint32_t)(now_ms() - s->posted_ms[slot]);
		r->nwc++;
	}
	/* v: the READ data is what the fake responder sent; or the FETCH_ADD result */
	if (s->kind[slot] == POST_WWR)
		r->v = fnv(s->buf + READ_OFF, XFER) == s->read_hash;
	else if (s->kind[slot] == POST_WFAA)
		memcpy(&r->v, s->buf + FAA_OFF, 8);
}

static void serve(struct server *s)
{
	for (;;) {
		struct cmd m;
		struct reply r = { 0 };
		struct ibv_qp *qp;

		xfer(s->sock, &m, sizeof(m), false);
		if (m.slot >= SLOTS) {
			fprintf(stderr, "roce_raw: bad slot %u\n", m.slot);
			exit(2);
		}
		if ((m.op == OP_FILL || m.op == OP_HASH || m.op == OP_RECV) &&
		    (uint64_t)m.a + m.b + 8 > MR_SIZE) {
			r.status = -EINVAL;
			xfer(s->sock, &r, sizeof(r), true);
			continue;
		}
		qp = s->qp[m.slot];
		switch (m.op) {
		case OP_QP: {
			struct ibv_qp_init_attr ia = {
				.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
				.cap = { .max_send_wr = 16, .max_recv_wr = 16,
					 .max_send_sge = 1, .max_recv_sge = 1 },
			};

			if (qp)
				ibv_destroy_qp(qp);
			qp = ibv_create_qp(s->pd, &ia);
			s->qp[m.slot] = qp;
			if (!qp) {
				r.status = -errno;
				break;
			}
			r.qpn = qp->qp_num;
			r.status = -qp_up(s, qp, m.slot, m.qp.psn);
			break;
		}
		case OP_STATE: {
			uint64_t end = now_ms() + m.b;

			if (!qp) {
				r.status = -ENOENT;
				break;
			}
			for (;;) {
				int st = qp_state(qp);

				r.state = (uint32_t)st;
				if (st < 0 || (uint32_t)st == m.a || now_ms() >= end)
					break;
				usleep(2000);
			}
			break;
		}
		case OP_FILL:
			fill(s->buf + m.a, m.a, m.b, m.x);
			break;
		case OP_HASH:
			r.v = fnv(s->buf + m.a, m.b);
			break;
		case OP_POST:
			if (!qp) {
				r.status = -ENOENT;
				break;
			}
			s->read_hash = m.x;
			s->kind[m.slot] = m.a;
			s->posted_ms[m.slot] = now_ms();
			r.status = -post(s, qp, m.a);
			break;
		case OP_POLL:
			if (!qp) {
				r.status = -ENOENT;
				break;
			}
			poll_wcs(s, m.slot, m.a, m.b, &r);
			break;
		case OP_RECV: {
			struct ibv_sge sge = { .addr = (uintptr_t)s->buf + m.a, .length = m.b,
					       .lkey = s->mr->lkey };
			struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;

			r.status = qp ? -ibv_post_recv(qp, &wr, &bad) : -ENOENT;
			break;
		}
		case OP_QUIT:
			xfer(s->sock, &r, sizeof(r), true);
			return;
		default:
			r.status = -EINVAL;
		}
		xfer(s->sock, &r, sizeof(r), true);
	}
}

static int run_server(const char *devname, int port)
{
	static struct server s;
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	struct hello h = { 0 };
	enum ibv_mtu mtu;

	s.dev = open_device(devname);
	s.gid_idx = find_roce4_gid(s.dev, &s.gid, &mtu);
	s.pd = ibv_alloc_pd(s.dev);
	s.buf = aligned_alloc(4096, MR_SIZE);
	if (!s.pd || !s.buf)
		die("ibv_alloc_pd / aligned_alloc");
	memset(s.buf, 0, MR_SIZE);
	s.mr = ibv_reg_mr(s.pd, s.buf, MR_SIZE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	s.cq = ibv_create_cq(s.dev, 256, NULL, NULL, 0);
	if (!s.mr || !s.cq)
		die("ibv_reg_mr / ibv_create_cq");
	s.sock = tcp_connect(NULL, port, true);
	if (getpeername(s.sock, (struct sockaddr *)&peer, &plen))
		die("getpeername");
	/* the raw side's GID: its IPv4 address on the control connection, ::ffff:a.b.c.d */
	memset(s.peer_gid.raw, 0, 16);
	s.peer_gid.raw[10] = 0xff;
	s.peer_gid.raw[11] = 0xff;
	memcpy(&s.peer_gid.raw[12], &peer.sin_addr, 4);
	h.addr = (uintptr_t)s.buf;
	h.rkey = s.mr->rkey;
	snprintf(h.dev, sizeof(h.dev), "%s", ibv_get_device_name(s.dev->device));
	h.scenic = !strncmp(h.dev, "scenic", 6);
	xfer(s.sock, &h, sizeof(h), true);
	serve(&s);
	for (int i = 0; i < SLOTS; i++)
		if (s.qp[i])
			ibv_destroy_qp(s.qp[i]);
	ibv_destroy_cq(s.cq);
	ibv_dereg_mr(s.mr);
	ibv_dealloc_pd(s.pd);
	ibv_close_device(s.dev);
	return 0;
}

/* ---- raw side: frames ---- */

#define ETH_LEN		14
#define IP_LEN		20
#define UDP_LEN		8
#define BTH_LEN		12
#define HDRS		(ETH_LEN + IP_LEN + UDP_LEN)	/* BTH at 42 */
#define FRAME_MAX	2048

struct raw {
	int fd, ifindex;
	uint8_t mac[6], peer_mac[6];
	struct in_addr ip, peer_ip;
	uint16_t ip_id;
	int bad_icrc, captured;
};

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc_update(uint32_t c, const uint8_t *p, size_t n)
{
	while (n--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

/*
 * RoCE v2 ICRC (IBA annex A17.3.3, rxe_icrc.c): CRC-32 over 8 bytes of 0xff,
 * then the IPv4 header with TOS, TTL and checksum set to all ones, the UDP
 * header with its checksum set to all ones, the BTH with its resv8a byte set
 * to all ones, and the rest up to the ICRC. @l3 starts at the IPv4 header (20
 * bytes, no options); @len excludes the ICRC.
 */
static uint32_t icrc(const uint8_t *l3, size_t len)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t h[IP_LEN + UDP_LEN + BTH_LEN];
	uint32_t c;

	memcpy(h, l3, sizeof(h));
	h[1] = 0xff;				/* TOS */
	h[8] = 0xff;				/* TTL */
	h[10] = 0xff;				/* header checksum */
	h[11] = 0xff;
	h[IP_LEN + 6] = 0xff;			/* UDP checksum */
	h[IP_LEN + 7] = 0xff;
	h[IP_LEN + UDP_LEN + 4] = 0xff;		/* BTH resv8a */
	c = crc_update(0xffffffffu, ones, sizeof(ones));
	c = crc_update(c, h, sizeof(h));
	c = crc_update(c, l3 + sizeof(h), len - sizeof(h));
	return ~c;
}

static uint16_t ip_csum(const uint8_t *p)
{
	uint32_t s = 0;

	for (int i = 0; i < IP_LEN; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = (uint8_t)v; }
static void put24(uint8_t *p, uint32_t v) { p[0] = v >> 16; p[1] = v >> 8; p[2] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, (uint16_t)v); }
static void put64(uint8_t *p, uint64_t v) { put32(p, v >> 32); put32(p + 4, (uint32_t)v); }
static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t get24(const uint8_t *p) { return (uint32_t)p[0] << 16 | get16(p + 1); }
static uint32_t get32(const uint8_t *p) { return get16(p) << 16 | get16(p + 2); }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) << 32 | get32(p + 4); }

/* One packet to send: the opcode byte is taken as given, the headers from the flags. */
struct tx {
	uint8_t op;
	bool ackreq, reth, aeth, atomic_eth, atomic_ack;
	uint32_t qpn, psn;
	uint64_t va;		/* RETH / AtomicETH */
	uint32_t rkey, dlen;
	uint64_t add;		/* AtomicETH swap/add */
	uint8_t syn;		/* AETH */
	uint32_t msn;
	uint64_t orig;		/* AtomicAckETH */
	const uint8_t *data;
	uint32_t len;
	bool spoof;		/* source IPv4 .99 of our subnet instead of ours */
};

static void tx_send(struct raw *r, const struct tx *t)
{
	uint8_t f[FRAME_MAX] = { 0 };
	uint8_t *ip = f + ETH_LEN, *udp = ip + IP_LEN, *bth = udp + UDP_LEN, *p = bth + BTH_LEN;
	uint32_t pad = (4 - t->len % 4) % 4;
	size_t l3;

	memcpy(f, r->peer_mac, 6);
	memcpy(f + 6, r->mac, 6);
	put16(f + 12, ETHERTYPE_IP);
	bth[0] = t->op;
	bth[1] = (uint8_t)(pad << 4);	/* SE 0, M 0, pad, TVer 0 */
	put16(bth + 2, 0xffff);		/* default P_Key */
	put24(bth + 5, t->qpn);
	bth[8] = t->ackreq ? 0x80 : 0;
	put24(bth + 9, t->psn);
	if (t->reth) {
		put64(p, t->va);
		put32(p + 8, t->rkey);
		put32(p + 12, t->dlen);
		p += 16;
	}
	if (t->aeth) {
		p[0] = t->syn;
		put24(p + 1, t->msn);
		p += 4;
	}
	if (t->atomic_ack) {
		put64(p, t->orig);
		p += 8;
	}
	if (t->atomic_eth) {
		put64(p, t->va);
		put32(p + 8, t->rkey);
		put64(p + 12, t->add);
		put64(p + 20, 0);
		p += 28;
	}
	if (t->len)
		memcpy(p, t->data, t->len);
	p += t->len + pad;
	l3 = (size_t)(p - ip);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(l3 + 4));
	put16(ip + 4, r->ip_id++);
	put16(ip + 6, 0x4000);		/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &r->ip, 4);
	if (t->spoof)
		ip[15] = 99;	/* a third host on the wire, not the QP's path */
	memcpy(ip + 16, &r->peer_ip, 4);
	put16(ip + 10, ip_csum(ip));
	put16(udp, (uint16_t)(0xc000 | (t->qpn & 0x3fff)));
	put16(udp + 2, ROCE_PORT);
	put16(udp + 4, (uint16_t)(l3 + 4 - IP_LEN));
	put16(udp + 6, 0);		/* no UDP checksum, as rxe and SCENIC send */
	{
		uint32_t c = icrc(ip, l3);

		p[0] = (uint8_t)c;	/* least significant byte first */
		p[1] = (uint8_t)(c >> 8);
		p[2] = (uint8_t)(c >> 16);
		p[3] = (uint8_t)(c >> 24);
	}
	if (send(r->fd, f, ETH_LEN + l3 + 4, 0) != (ssize_t)(ETH_LEN + l3 + 4))
		die("send (AF_PACKET)");
	usleep(1000);	/* the VM rig's wire (UDP on the host) loses back-to-back bursts */
}

/* A captured RoCE v2 packet to one of the raw QPNs. */
struct rx {
	uint8_t op, syn;
	bool ackreq, icrc_ok;
	uint32_t qpn, psn, msn, rkey, dlen, len;
	uint64_t va, add, orig;
	uint8_t data[PMTU];
};

static bool has_reth(uint8_t op)
{
	return op == WRITE_FIRST || op == WRITE_ONLY || op == WRITE_ONLY_IMM || op == READ_REQ;
}

static bool has_aeth(uint8_t op)
{
	return op == READ_RESP_FIRST || op == READ_RESP_LAST || op == READ_RESP_ONLY ||
	       op == ACK || op == ATOMIC_ACK;
}

static bool parse(struct raw *r, const uint8_t *f, size_t n, struct rx *x)
{
	const uint8_t *ip = f + ETH_LEN, *bth = ip + IP_LEN + UDP_LEN, *p, *end;
	uint32_t l3;

	if (n < HDRS + BTH_LEN + 4 || get16(f + 12) != ETHERTYPE_IP || ip[0] != 0x45 ||
	    ip[9] != IPPROTO_UDP || get16(ip + IP_LEN + 2) != ROCE_PORT ||
	    memcmp(ip + 16, &r->ip, 4))
		return false;
	l3 = get16(ip + 2);
	if (l3 + ETH_LEN > n || l3 < IP_LEN + UDP_LEN + BTH_LEN + 4)
		return false;
	memset(x, 0, sizeof(*x));
	x->op = bth[0];
	x->qpn = get24(bth + 5);
	x->ackreq = bth[8] & 0x80;
	x->psn = get24(bth + 9);
	if (x->qpn < RAW_QPN || x->qpn >= RAW_QPN + SLOTS)
		return false;
	x->icrc_ok = icrc(ip, l3 - 4) == ((uint32_t)ip[l3 - 4] | (uint32_t)ip[l3 - 3] << 8 |
					 (uint32_t)ip[l3 - 2] << 16 | (uint32_t)ip[l3 - 1] << 24);
	p = bth + BTH_LEN;
	end = ip + l3 - 4 - ((bth[1] >> 4) & 3);
	if (has_reth(x->op) && p + 16 <= end) {
		x->va = get64(p);
		x->rkey = get32(p + 8);
		x->dlen = get32(p + 12);
		p += 16;
	}
	if (has_aeth(x->op) && p + 4 <= end) {
		x->syn = p[0];
		x->msn = get24(p + 1);
		p += 4;
	}
	if (x->op == ATOMIC_ACK && p + 8 <= end) {
		x->orig = get64(p);
		p += 8;
	}
	if ((x->op == FETCH_ADD || x->op == CMP_SWAP) && p + 28 <= end) {
		x->va = get64(p);
		x->rkey = get32(p + 8);
		x->add = get64(p + 12);
		p += 28;
	}
	if (p < end) {
		x->len = (uint32_t)(end - p);
		memcpy(x->data, p, x->len < PMTU ? x->len : PMTU);
	}
	return true;
}

/*
 * Capture the packets to raw QPN @qpn: wait at most @first_ms for the first,
 * then until @quiet_ms pass without one. Keeps up to @max, returns how many came.
 */
static int gather(struct raw *r, uint32_t qpn, struct rx *out, int max, int first_ms,
		  int quiet_ms)
{
	uint64_t end = now_ms() + first_ms;
	static uint8_t f[9216 + 64];
	int n = 0;

	for (;;) {
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
		int64_t left = (int64_t)(end - now_ms());
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		struct rx x;
		ssize_t k;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return n;
		k = recvfrom(r->fd, f, sizeof(f), MSG_DONTWAIT, (struct sockaddr *)&sll, &sl);
		if (k <= 0 || sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (!parse(r, f, (size_t)k, &x) || x.qpn != qpn)
			continue;
		r->captured++;
		if (!x.icrc_ok)
			r->bad_icrc++;
		if (n < max)
			out[n] = x;
		n++;
		end = now_ms() + quiet_ms;
	}
}

/* Drop whatever is queued on the packet socket (frames of an earlier scenario). */
static void drain(struct raw *r)
{
	static uint8_t f[9216 + 64];

	for (int i = 0; i < 10000 && recv(r->fd, f, sizeof(f), MSG_DONTWAIT) > 0; i++)
		;
}

static void raw_open(struct raw *r, const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr = { 0 };
	int ufd;

	r->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (r->fd < 0)
		die("socket(AF_PACKET)");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(r->fd, SIOCGIFINDEX, &ifr))
		die("SIOCGIFINDEX");
	r->ifindex = ifr.ifr_ifindex;
	if (ioctl(r->fd, SIOCGIFHWADDR, &ifr))
		die("SIOCGIFHWADDR");
	memcpy(r->mac, ifr.ifr_hwaddr.sa_data, 6);
	ifr.ifr_addr.sa_family = AF_INET;
	if (ioctl(r->fd, SIOCGIFADDR, &ifr))
		die("SIOCGIFADDR");
	r->ip = ((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr;
	sll.sll_ifindex = r->ifindex;
	if (bind(r->fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind(AF_PACKET)");
	/*
	 * Where no RDMA device owns UDP 4791 on this host (the raw side in its own
	 * network namespace), a socket there keeps the kernel from answering the
	 * device's packets with ICMP port unreachable; it is never read.
	 */
	ufd = socket(AF_INET, SOCK_DGRAM, 0);
	if (ufd >= 0) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(ROCE_PORT) };

		if (bind(ufd, (struct sockaddr *)&sa, sizeof(sa)))
			close(ufd);
	}
}

/* The peer's MAC from the neighbour table (the control connection resolved it). */
static void peer_mac(struct raw *r, const char *ifname)
{
	char line[256], ip[64], hw[64], dev[64];
	unsigned int m[6];

	for (int tries = 0; tries < 50; tries++) {
		FILE *f = fopen("/proc/net/arp", "r");

		if (!f)
			die("/proc/net/arp");
		while (fgets(line, sizeof(line), f)) {
			struct in_addr a;
			int flags;

			if (sscanf(line, "%63s %*s %x %63s %*s %63s", ip, &flags, hw, dev) != 4 ||
			    inet_pton(AF_INET, ip, &a) != 1 || a.s_addr != r->peer_ip.s_addr ||
			    strcmp(dev, ifname) || !(flags & 2) ||
			    sscanf(hw, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
				   &m[5]) != 6)
				continue;
			for (int i = 0; i < 6; i++)
				r->peer_mac[i] = (uint8_t)m[i];
			fclose(f);
			return;
		}
		fclose(f);
		usleep(100000);
	}
	fprintf(stderr, "roce_raw: no neighbour entry for %s on %s\n", inet_ntoa(r->peer_ip),
		ifname);
	exit(2);
}

/* ---- raw side: scenarios ---- */

struct client {
	int sock;
	struct hello h;
	struct raw r;
	const char *peer;	/* "SCENIC" or "rxe" */
	bool rxe;
};

static struct reply call(struct client *c, struct cmd m)
{
	struct reply r;

	xfer(c->sock, &m, sizeof(m), true);
	xfer(c->sock, &r, sizeof(r), false);
	return r;
}

static const char *opname(uint8_t op)
{
	static const char *const n[] = {
		"SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_IMM", "SEND_ONLY",
		"SEND_ONLY_IMM", "WRITE_FIRST", "WRITE_MIDDLE", "WRITE_LAST", "WRITE_LAST_IMM",
		"WRITE_ONLY", "WRITE_ONLY_IMM", "READ_REQUEST", "READ_RESPONSE_FIRST",
		"READ_RESPONSE_MIDDLE", "READ_RESPONSE_LAST", "READ_RESPONSE_ONLY", "ACK",
		"ATOMIC_ACK", "CMP_SWAP", "FETCH_ADD",
	};

	return op < sizeof(n) / sizeof(n[0]) ? n[op] : "reserved";
}

/* "ACK PSN 0x... MSN n syndrome 0x.." for the names of the checks */
static const char *desc(const struct rx *x, int n)
{
	static char s[8][96];
	static int k;
	char *b = s[k++ % 8];

	if (!n)
		return "nothing";
	snprintf(b, 96, "%s PSN %#x syndrome %#x MSN %u%s%s", opname(x->op), x->psn, x->syn,
		 x->msn, n > 1 ? " and more" : "", x->icrc_ok ? "" : " (bad ICRC)");
	return b;
}

/* Region of slot @slot, filled with the pattern of seed 100 + slot. */
static uint32_t region(struct client *c, uint32_t slot)
{
	uint32_t off = slot * REGION;

	call(c, (struct cmd){ .op = OP_FILL, .a = off, .b = REGION, .x = 100 + slot });
	return off;
}

/* Hash of the region of @slot if the bytes [@woff, @woff + @wlen) were written with @seed. */
static uint64_t expect_hash(uint32_t slot, uint32_t woff, uint32_t wlen, uint64_t seed)
{
	static uint8_t b[REGION];
	uint32_t off = slot * REGION;

	fill(b, off, REGION, 100 + slot);
	for (uint32_t i = 0; i < wlen; i++)
		b[woff + i] = pat(seed, i);
	return fnv(b, REGION);
}

static bool region_is(struct client *c, uint32_t slot, uint32_t woff, uint32_t wlen,
		      uint64_t seed)
{
	struct reply r = call(c, (struct cmd){ .op = OP_HASH, .a = slot * REGION, .b = REGION });

	return !r.status && r.v == expect_hash(slot, woff, wlen, seed);
}

static uint32_t slot_psn(uint32_t slot)
{
	/* a fixed PSN per scenario, to spot it in a trace */
	return 0x100000 * (slot + 1) + 0xabc;
}

/* A QP of the device for raw QPN RAW_QPN + @slot, RTS; returns its QPN (0 on failure). */
static uint32_t dev_qp(struct client *c, uint32_t slot, const char *what)
{
	struct reply r = call(c, (struct cmd){ .op = OP_QP, .slot = slot,
					       .qp = { .psn = slot_psn(slot) } });

	if (r.status) {
		tap(false, "%s: %s QP for raw QPN %#x: %s", what, c->peer, RAW_QPN + slot,
		    strerror(-r.status));
		return 0;
	}
	return r.qpn;
}

static int dev_state(struct client *c, uint32_t slot, int want)
{
	return (int)call(c, (struct cmd){ .op = OP_STATE, .slot = slot, .a = (uint32_t)want,
					  .b = 2000 }).state;
}

static void write_pkt(struct tx *t, uint8_t op, uint32_t qpn, uint32_t psn, const uint8_t *data,
		      uint32_t len)
{
	memset(t, 0, sizeof(*t));
	t->op = op;
	t->qpn = qpn;
	t->psn = psn;
	t->data = data;
	t->len = len;
}

static void with_reth(struct tx *t, struct client *c, uint32_t off, uint32_t dlen)
{
	t->reth = true;
	t->va = c->h.addr + off;
	t->rkey = c->h.rkey;
	t->dlen = dlen;
}

/*
 * Send one hand-made request of raw slot @slot and capture the device's
 * answers to it (the socket emptied first): how many came, up to MAX_RX in @x.
 */
static int exchange(struct client *c, const struct tx *t, int slot, struct rx *x, int first_ms)
{
	drain(&c->r);
	tx_send(&c->r, t);
	return gather(&c->r, RAW_QPN + slot, x, MAX_RX, first_ms, 300);
}

/* Expect exactly one packet, an ACK of @psn with @msn. */
static void check_ack(struct client *c, const char *what, const struct rx *x, int n,
		      uint32_t psn, uint32_t msn)
{
	tap(n == 1 && x->op == ACK && x->syn == AETH_ACK && x->psn == psn && x->msn == msn &&
	    x->icrc_ok, "%s: %s responder: one ACK (syndrome 0x1f) for PSN %#x with MSN %u "
	    "(got %d: %s)", what, c->peer, psn, msn, n, desc(x, n));
}

/* Expect an Invalid Request NAK of @psn, the region as @seed / @wlen says, the QP in ERR. */
static void check_nak(struct client *c, const char *what, uint32_t slot, const struct rx *x,
		      int n, uint32_t psn, uint32_t msn, uint32_t wlen, uint64_t seed)
{
	int st;

	tap(n == 1 && x->op == ACK && x->syn == AETH_NAK_INV && x->psn == psn && x->msn == msn &&
	    x->icrc_ok, "%s: %s responder: Invalid Request NAK (AETH 0x61) for PSN %#x MSN %u "
	    "(got %d: %s)", what, c->peer, psn, msn, n, desc(x, n));
	tap(region_is(c, slot, 0, wlen, seed), "%s: target memory %s", what,
	    wlen ? "holds only the accepted FIRST packet" : "untouched");
	st = dev_state(c, slot, IBV_QPS_ERR);
	tap(st == IBV_QPS_ERR, "%s: %s responder QP in ERR (got %s)", what, c->peer,
	    state_str(st));
}

static void responder_tests(struct client *c)
{
	static uint8_t data[8 * PMTU];
	struct rx x[MAX_RX];
	struct tx t;
	uint32_t qpn, psn, off;
	const char *w;
	int n, st;

	for (uint32_t i = 0; i < sizeof(data); i++)
		data[i] = pat(1, i);

	/* (a) sanity: a WRITE_ONLY with AckReq is ACKed and placed */
	w = "WRITE_ONLY 64 B with AckReq";
	qpn = dev_qp(c, 0, w);
	if (qpn) {
		off = region(c, 0);
		psn = slot_psn(0);
		write_pkt(&t, WRITE_ONLY, qpn, psn, data, 64);
		with_reth(&t, c, off, 64);
		t.ackreq = true;
		n = exchange(c, &t, 0, x, 3000);
		check_ack(c, w, x, n, psn, 1);
		tap(region_is(c, 0, 0, 64, 1), "%s: data placed", w);
		st = dev_state(c, 0, IBV_QPS_RTS);
		tap(st == IBV_QPS_RTS, "%s: QP still RTS (got %s)", w, state_str(st));
	}

	/* (b) 8-packet WRITE, AckReq on LAST only; then ACKs and responses covering earlier ones */
	w = "WRITE FIRST + 6 MIDDLE + LAST, AckReq on LAST only";
	qpn = dev_qp(c, 1, w);
	if (qpn) {
		off = region(c, 1);
		psn = slot_psn(1);
		drain(&c->r);
		for (int i = 0; i < 8; i++) {
			uint8_t op = i == 0 ? WRITE_FIRST : i == 7 ? WRITE_LAST : WRITE_MIDDLE;

			write_pkt(&t, op, qpn, psn + i, data + i * PMTU, PMTU);
			if (i == 0)
				with_reth(&t, c, off, 8 * PMTU);
			t.ackreq = i == 7;
			tx_send(&c->r, &t);
		}
		n = gather(&c->r, RAW_QPN + 1, x, MAX_RX, 3000, 500);
		printf("# %s: %s sent %d answer(s):", w, c->peer, n);
		for (int i = 0; i < n && i < MAX_RX; i++)
			printf(" %s", desc(&x[i], 1));
		printf("\n");
		tap(n >= 1 && n <= MAX_RX && x[n - 1].op == ACK && x[n - 1].syn == AETH_ACK &&
		    x[n - 1].psn == psn + 7 && x[n - 1].msn == 1,
		    "%s: %s responder: the last ACK is for the LAST PSN %#x with MSN 1 (got %s)", w,
		    c->peer, psn + 7, n ? desc(&x[n - 1 < MAX_RX ? n - 1 : 0], 1) : "nothing");
		/* IBA lets a responder ACK more often; SCENIC and rxe 6.1 ACK only on AckReq */
		tap(n == 1, "%s: %s responder ACKs only the packet with AckReq: 1 ACK (got %d)", w,
		    c->peer, n);
		tap(region_is(c, 1, 0, 8 * PMTU, 1), "%s: 8 KiB placed", w);

		w = "2 WRITE_ONLY without AckReq, then one with it";
		for (int i = 0; i < 3; i++) {
			write_pkt(&t, WRITE_ONLY, qpn, psn + 8 + i, data + i * 64, 64);
			with_reth(&t, c, off + 8 * PMTU + i * 64, 64);
			t.ackreq = i == 2;
			tx_send(&c->r, &t);
		}
		n = gather(&c->r, RAW_QPN + 1, x, MAX_RX, 3000, 300);
		check_ack(c, w, x, n, psn + 10, 4);

		w = "WRITE_ONLY without AckReq, then READ 64 B";
		write_pkt(&t, WRITE_ONLY, qpn, psn + 11, data, 64);
		with_reth(&t, c, off + 8 * PMTU + 256, 64);
		tx_send(&c->r, &t);
		write_pkt(&t, READ_REQ, qpn, psn + 12, NULL, 0);
		with_reth(&t, c, off, 64);
		t.ackreq = true;
		tx_send(&c->r, &t);
		n = gather(&c->r, RAW_QPN + 1, x, MAX_RX, 3000, 300);
		tap(n == 1 && x[0].op == READ_RESP_ONLY && x[0].syn == AETH_ACK &&
		    x[0].psn == psn + 12 && x[0].msn == 6 && x[0].len == 64 &&
		    !memcmp(x[0].data, data, 64) && x[0].icrc_ok,
		    "%s: %s responder: only a READ_RESPONSE_ONLY for PSN %#x, MSN 6 (the WRITE "
		    "counted), 64 B of data, no separate ACK (got %d: %s)", w, c->peer, psn + 12, n,
		    desc(x, n));

		w = "WRITE_ONLY without AckReq, then FETCH_ADD";
		write_pkt(&t, WRITE_ONLY, qpn, psn + 13, data, 64);
		with_reth(&t, c, off + 8 * PMTU + 320, 64);
		tx_send(&c->r, &t);
		write_pkt(&t, FETCH_ADD, qpn, psn + 14, NULL, 0);
		t.atomic_eth = true;
		t.va = c->h.addr + off + 8 * PMTU + 512;
		t.rkey = c->h.rkey;
		t.add = FAA_ADD;
		t.ackreq = true;
		{
			uint64_t orig;
			uint8_t b[8];

			/* the original value: the region's pattern at that offset, host order */
			for (int i = 0; i < 8; i++)
				b[i] = pat(101, off + 8 * PMTU + 512 + i);
			memcpy(&orig, b, 8);
			tx_send(&c->r, &t);
			n = gather(&c->r, RAW_QPN + 1, x, MAX_RX, 3000, 300);
			tap(n == 1 && x[0].op == ATOMIC_ACK && x[0].syn == AETH_ACK &&
			    x[0].psn == psn + 14 && x[0].msn == 8 && x[0].orig == orig &&
			    x[0].icrc_ok,
			    "%s: %s responder: only an ATOMIC_ACK for PSN %#x, MSN 8, original "
			    "%#" PRIx64 " (got %d: %s, original %#" PRIx64 ")", w, c->peer,
			    psn + 14, orig, n, desc(x, n), n ? x[0].orig : 0);
		}
	}

	/* (c) wrong opcode sequence */
	w = "WRITE_MIDDLE without FIRST";
	qpn = dev_qp(c, 2, w);
	if (qpn) {
		off = region(c, 2);
		psn = slot_psn(2);
		write_pkt(&t, WRITE_MIDDLE, qpn, psn, data, PMTU);
		n = exchange(c, &t, 2, x, 3000);
		check_nak(c, w, 2, x, n, psn, 0, 0, 0);
	}
	w = "SEND_LAST after WRITE_FIRST";
	qpn = dev_qp(c, 3, w);
	if (qpn) {
		off = region(c, 3);
		psn = slot_psn(3);
		write_pkt(&t, WRITE_FIRST, qpn, psn, data, PMTU);
		with_reth(&t, c, off, 3 * PMTU);
		drain(&c->r);
		tx_send(&c->r, &t);
		write_pkt(&t, SEND_LAST, qpn, psn + 1, data + PMTU, 64);
		t.ackreq = true;
		tx_send(&c->r, &t);
		n = gather(&c->r, RAW_QPN + 3, x, MAX_RX, 3000, 300);
		/* the FIRST was valid: its PMTU is placed (IBA 9.7.5.1.3 allows it) */
		check_nak(c, w, 3, x, n, psn + 1, 0, PMTU, 1);
	}

	/* (d) a reserved RC opcode, built like a SEND_ONLY of 16 B */
	w = "reserved RC opcode 0x18";
	qpn = dev_qp(c, 4, w);
	if (qpn) {
		off = region(c, 4);
		psn = slot_psn(4);
		write_pkt(&t, RESERVED_RC, qpn, psn, data, 16);
		t.ackreq = true;
		n = exchange(c, &t, 4, x, c->rxe ? 1500 : 3000);
		if (c->rxe) {
			/*
			 * rxe 6.1: rxe_rcv() takes an opcode without an rxe_opcode[] mask for a
			 * response (no RXE_REQ_MASK) and hands it to the completer, which finds
			 * no WQE and drops it: no NAK, the QP stays RTS.
			 */
			tap(n == 0, "%s: rxe responder drops it silently (rxe 6.1; IBA: Invalid "
			    "Request NAK) (got %d: %s)", w, n, desc(x, n));
			tap(region_is(c, 4, 0, 0, 0), "%s: target memory untouched", w);
			/* alive, at the same PSN: a valid WRITE there is the first message */
			st = dev_state(c, 4, IBV_QPS_RTS);
			write_pkt(&t, WRITE_ONLY, qpn, psn, data, 64);
			with_reth(&t, c, off, 64);
			t.ackreq = true;
			tx_send(&c->r, &t);
			n = gather(&c->r, RAW_QPN + 4, x, MAX_RX, 3000, 300);
			tap(st == IBV_QPS_RTS && n == 1 && x[0].op == ACK && x[0].syn == AETH_ACK &&
			    x[0].psn == psn && x[0].msn == 1,
			    "%s: rxe responder QP stays RTS (rxe 6.1), a WRITE_ONLY at the same PSN is "
			    "then ACKed with MSN 1 (got %s, %d: %s)", w, state_str(st), n,
			    desc(x, n));
		} else {
			check_nak(c, w, 4, x, n, psn, 0, 0, 0);
		}
	}

	/* (e) bad lengths */
	w = "WRITE_ONLY of 200 B with RETH length 100";
	qpn = dev_qp(c, 5, w);
	if (qpn) {
		off = region(c, 5);
		psn = slot_psn(5);
		write_pkt(&t, WRITE_ONLY, qpn, psn, data, 200);
		with_reth(&t, c, off, 100);
		t.ackreq = true;
		n = exchange(c, &t, 5, x, 3000);
		check_nak(c, w, 5, x, n, psn, 0, 0, 0);
	}
	w = "WRITE_ONLY of PMTU + 4 B (RETH length PMTU + 4)";
	qpn = dev_qp(c, 6, w);
	if (qpn) {
		off = region(c, 6);
		psn = slot_psn(6);
		write_pkt(&t, WRITE_ONLY, qpn, psn, data, PMTU + 4);
		with_reth(&t, c, off, PMTU + 4);
		t.ackreq = true;
		n = exchange(c, &t, 6, x, 3000);
		check_nak(c, w, 6, x, n, psn, 0, 0, 0);
	}
	w = "SEND_ONLY of PMTU + 4 B into a 4 KiB receive";
	qpn = dev_qp(c, 7, w);
	if (qpn) {
		off = region(c, 7);
		psn = slot_psn(7);
		call(c, (struct cmd){ .op = OP_RECV, .slot = 7, .a = off, .b = 4096 });
		write_pkt(&t, SEND_ONLY, qpn, psn, data, PMTU + 4);
		t.ackreq = true;
		n = exchange(c, &t, 7, x, 3000);
		if (c->rxe) {
			/*
			 * rxe 6.1 checks a SEND's length only against the receive buffer
			 * (check_length() is a stub for RC, check_rkey() covers WRITEs only):
			 * the SEND is received and ACKed.
			 */
			check_ack(c, w, x, n, psn, 1);
			tap(region_is(c, 7, 0, PMTU + 4, 1), "%s: rxe places the %u B (rxe 6.1; "
			    "IBA: Invalid Request NAK)", w, PMTU + 4);
			st = dev_state(c, 7, IBV_QPS_RTS);
			tap(st == IBV_QPS_RTS, "%s: rxe responder QP stays RTS (rxe 6.1) (got %s)",
			    w, state_str(st));
		} else {
			check_nak(c, w, 7, x, n, psn, 0, 0, 0);
		}
	}

	/*
	 * (f) a third party on the wire (issue 15): a request with a spoofed source address,
	 * then a replay of an accepted WRITE with other data, and a "duplicate" READ with a bad
	 * rkey at the PSN of a WRITE. None may place data, get an answer that hurts, or end the QP.
	 */
	w = "WRITE_ONLY from a spoofed source IPv4 (.99)";
	qpn = dev_qp(c, 11, w);
	if (qpn) {
		off = region(c, 11);
		psn = slot_psn(11);
		write_pkt(&t, WRITE_ONLY, qpn, psn, data, 64);
		with_reth(&t, c, off, 64);
		t.ackreq = true;
		t.spoof = true;
		n = exchange(c, &t, 11, x, 1500);
		tap(n == 0 && region_is(c, 11, 0, 0, 0), "%s: %s responder drops it: no answer "
		    "(got %d: %s), target memory untouched", w, c->peer, n, desc(x, n));
		st = dev_state(c, 11, IBV_QPS_RTS);
		tap(st == IBV_QPS_RTS, "%s: QP still RTS (got %s)", w, state_str(st));

		w = "the same WRITE_ONLY from the QP's peer";
		t.spoof = false;
		n = exchange(c, &t, 11, x, 3000);
		check_ack(c, w, x, n, psn, 1);
		tap(region_is(c, 11, 0, 64, 1), "%s: data placed", w);

		w = "a replay of that WRITE_ONLY with other data";
		write_pkt(&t, WRITE_ONLY, qpn, psn, data + 128, 64);
		with_reth(&t, c, off, 64);
		t.ackreq = true;
		n = exchange(c, &t, 11, x, 1500);
		tap(region_is(c, 11, 0, 64, 1), "%s: not placed, the memory holds the first WRITE's "
		    "data", w);
		tap(n == 0 || (n == 1 && x[0].op == ACK && x[0].syn == AETH_ACK && x[0].psn == psn),
		    "%s: %s responder answers at most a re-ACK of PSN %#x (got %d: %s)", w, c->peer,
		    psn, n, desc(x, n));

		w = "a duplicate READ with a bad rkey at the WRITE's PSN";
		write_pkt(&t, READ_REQ, qpn, psn, NULL, 0);
		with_reth(&t, c, off, 64);
		t.rkey ^= 0x5a5a00;
		t.ackreq = true;
		if (c->rxe) {
			tap_skip("%s: QP still RTS: checked against SCENIC only", w);
		} else {
			n = exchange(c, &t, 11, x, 1500);
			st = dev_state(c, 11, IBV_QPS_RTS);
			tap(n == 0 && st == IBV_QPS_RTS, "%s: SCENIC responder drops it silently, no "
			    "NAK (got %d: %s), QP still RTS (got %s)", w, n, desc(x, n),
			    state_str(st));
		}

		w = "then the next WRITE_ONLY in sequence";
		write_pkt(&t, WRITE_ONLY, qpn, psn + 1, data + 256, 64);
		with_reth(&t, c, off + 64, 64);
		t.ackreq = true;
		n = exchange(c, &t, 11, x, 3000);
		tap(n == 1 && x[0].op == ACK && x[0].syn == AETH_ACK && x[0].psn == psn + 1 &&
		    x[0].msn == 2, "%s: %s responder ACKs PSN %#x with MSN 2: the QP went on "
		    "(got %d: %s)", w, c->peer, psn + 1, n, desc(x, n));
	}
}

/* ---- raw responder ---- */

/* Capture exactly the requests @ops of the device's requester QP in @slot, PSNs from its sq_psn. */
static bool requests(struct client *c, uint32_t slot, const uint8_t *ops, int nops,
		     struct rx *x, const char *what)
{
	uint32_t psn = slot_psn(slot);
	int n = gather(&c->r, RAW_QPN + slot, x, MAX_RX, 5000, 300);
	bool ok = n == nops;
	char got[256] = "";

	for (int i = 0; i < n && i < MAX_RX; i++) {
		size_t l = strlen(got);

		snprintf(got + l, sizeof(got) - l, "%s%s %#x%s", i ? ", " : "", opname(x[i].op),
			 x[i].psn, x[i].ackreq ? " A" : "");
	}
	for (int i = 0; ok && i < nops; i++) {
		ok = x[i].op == ops[i] && x[i].psn == psn + (uint32_t)i && x[i].icrc_ok;
		uint64_t va = RAW_VA + (uint32_t)i * XFER;

		if (ops[i] == WRITE_ONLY) {
			ok = ok && x[i].va == va && x[i].rkey == RAW_RKEY && x[i].dlen == XFER &&
			     x[i].len == XFER;
			for (uint32_t k = 0; ok && k < XFER; k++)	/* the server's source */
				ok = x[i].data[k] == pat(77, (uint32_t)i * XFER + k);
		}
		if (ops[i] == READ_REQ)
			ok = ok && x[i].va == va && x[i].rkey == RAW_RKEY && x[i].dlen == XFER &&
			     x[i].len == 0;
		if (ops[i] == FETCH_ADD)
			ok = ok && x[i].va == RAW_VA + 0x100 && x[i].rkey == RAW_RKEY &&
			     x[i].add == FAA_ADD;
	}
	tap(ok, "%s: %s requester sends %d requests from PSN %#x, headers and data as posted "
	    "(got %d: %s; A: AckReq)", what, c->peer, nops, psn, n, got);
	return ok;
}

/* Poll @n completions, check them, then that the raw side saw no retransmission. */
static void completions(struct client *c, uint32_t slot, int n, const uint32_t *opcodes,
			const char *what, struct reply *r)
{
	struct rx x[MAX_RX];
	char got[256] = "";
	bool ok;
	int k, late = 0;

	*r = call(c, (struct cmd){ .op = OP_POLL, .slot = slot, .a = (uint32_t)n, .b = 10000 });
	ok = !r->status && r->nwc == (uint32_t)n;
	for (uint32_t i = 0; i < r->nwc; i++) {
		size_t l = strlen(got);

		snprintf(got + l, sizeof(got) - l, "%s%" PRIu64 ":%s@%ums", i ? ", " : "",
			 r->wc_id[i], ibv_wc_status_str((enum ibv_wc_status)r->wc_status[i]),
			 r->wc_ms[i]);
		ok = ok && r->wc_status[i] == IBV_WC_SUCCESS && r->wc_id[i] == i + 1 &&
		     r->wc_opcode[i] == opcodes[i];
		late = r->wc_ms[i] > (uint32_t)late ? (int)r->wc_ms[i] : late;
	}
	tap(ok, "%s: %s requester: all %d WRs complete IBV_WC_SUCCESS in order (got %u: %s)",
	    what, c->peer, n, r->nwc, got);
	tap(r->nwc == (uint32_t)n && late < ACK_TIMEOUT_MS,
	    "%s: %s requester: completed within the ACK timeout (%d ms) of the post (got %d ms)",
	    what, c->peer, ACK_TIMEOUT_MS, late);
	k = gather(&c->r, RAW_QPN + slot, x, MAX_RX, 200, 100);
	tap(k == 0, "%s: %s requester: no retransmission (got %d: %s)", what, c->peer, k,
	    desc(x, k));
}

static void requester_tests(struct client *c)
{
	static const uint8_t w4[] = { WRITE_ONLY, WRITE_ONLY, WRITE_ONLY, WRITE_ONLY };
	static const uint8_t wwr[] = { WRITE_ONLY, WRITE_ONLY, READ_REQ };
	static const uint8_t wfaa[] = { WRITE_ONLY, FETCH_ADD };
	static const uint32_t c4[] = { IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE,
				       IBV_WC_RDMA_WRITE };
	static const uint32_t cwwr[] = { IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ };
	static const uint32_t cwfaa[] = { IBV_WC_RDMA_WRITE, IBV_WC_FETCH_ADD };
	uint8_t rdata[XFER];
	struct rx x[MAX_RX];
	struct reply r;
	struct tx t;
	uint32_t qpn;
	const char *w;
	bool ok;

	w = "4 signalled WRITEs, one ACK for the last PSN";
	qpn = dev_qp(c, 8, w);
	if (qpn) {
		drain(&c->r);
		r = call(c, (struct cmd){ .op = OP_POST, .slot = 8, .a = POST_4WRITES });
		ok = !r.status && requests(c, 8, w4, 4, x, w);
		if (ok) {
			write_pkt(&t, ACK, qpn, slot_psn(8) + 3, NULL, 0);
			t.aeth = true;
			t.syn = AETH_ACK;
			t.msn = 4;
			tx_send(&c->r, &t);
			completions(c, 8, 4, c4, w, &r);
		}
	}

	w = "WRITE, WRITE, READ, only the READ response";
	qpn = dev_qp(c, 9, w);
	if (qpn) {
		fill(rdata, 0, XFER, 99);
		drain(&c->r);
		r = call(c, (struct cmd){ .op = OP_POST, .slot = 9, .a = POST_WWR,
					  .x = fnv(rdata, XFER) });
		ok = !r.status && requests(c, 9, wwr, 3, x, w);
		if (ok) {
			write_pkt(&t, READ_RESP_ONLY, qpn, slot_psn(9) + 2, rdata, XFER);
			t.aeth = true;
			t.syn = AETH_ACK;
			t.msn = 3;
			tx_send(&c->r, &t);
			completions(c, 9, 3, cwwr, w, &r);
			tap(r.v == 1, "%s: the READ destination holds the response's 64 B", w);
		}
	}

	w = "WRITE + FETCH_ADD, only the atomic ACK";
	qpn = dev_qp(c, 10, w);
	if (qpn) {
		drain(&c->r);
		r = call(c, (struct cmd){ .op = OP_POST, .slot = 10, .a = POST_WFAA });
		ok = !r.status && requests(c, 10, wfaa, 2, x, w);
		if (ok) {
			write_pkt(&t, ATOMIC_ACK, qpn, slot_psn(10) + 1, NULL, 0);
			t.aeth = true;
			t.syn = AETH_ACK;
			t.msn = 2;
			t.atomic_ack = true;
			t.orig = FAA_ORIG;
			tx_send(&c->r, &t);
			completions(c, 10, 2, cwfaa, w, &r);
			tap(r.v == FAA_ORIG, "%s: FETCH_ADD returns the original %#llx "
			    "(got %#" PRIx64 ")", w, FAA_ORIG, r.v);
		}
	}
}

static int run_client(const char *server, const char *ifname, int port)
{
	static struct client c;

	c.sock = tcp_connect(server, port, false);
	xfer(c.sock, &c.h, sizeof(c.h), false);
	c.h.dev[sizeof(c.h.dev) - 1] = 0;
	c.rxe = !c.h.scenic;
	c.peer = c.h.scenic ? "SCENIC" : "rxe";
	crc_init();
	raw_open(&c.r, ifname);
	if (inet_pton(AF_INET, server, &c.r.peer_ip) != 1)
		die("inet_pton");
	peer_mac(&c.r, ifname);
	ksft_print_header();
	ksft_set_plan(PLAN);
	ksft_print_msg("raw side %s (%s), device %s (%s) at %s\n", ifname, inet_ntoa(c.r.ip),
		       c.h.dev, c.peer, server);
	responder_tests(&c);
	requester_tests(&c);
	tap(c.r.captured > 0 && c.r.bad_icrc == 0, "%s: every captured frame has the ICRC this "
	    "program computes (%d frames, %d bad)", c.peer, c.r.captured, c.r.bad_icrc);
	while (ksft_test_num() < PLAN)
		tap(false, "check %d not run: a scenario ended early (see above)",
		    ksft_test_num() + 1);
	call(&c, (struct cmd){ .op = OP_QUIT });
	fflush(stdout);
	ksft_finished();	/* exit 0 only when all PLAN checks passed or were skipped */
	return KSFT_FAIL;
}

static void usage(void)
{
	fprintf(stderr, "usage: roce_raw -s -d DEV [-p PORT]\n"
			"       roce_raw -c SERVER_IPV4 -i IFACE [-p PORT]\n"
			"       roce_raw -P    (prints the number of checks of a client run)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *server = NULL, *dev = NULL, *ifname = NULL;
	bool serve_mode = false;
	int port = 18950, opt;

	rc_prog = "roce_raw";
	while ((opt = getopt(argc, argv, "sc:d:i:p:P")) != -1) {
		switch (opt) {
		case 'P': printf("%d\n", PLAN); return 0;
		case 's': serve_mode = true; break;
		case 'c': server = optarg; break;
		case 'd': dev = optarg; break;
		case 'i': ifname = optarg; break;
		case 'p': port = atoi(optarg); break;
		default: usage();
		}
	}
	if (serve_mode == !!server || (server && !ifname))
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	return serve_mode ? run_server(dev, port) : run_client(server, ifname, port);
}
