// SPDX-License-Identifier: MIT
/*
 * scu_aes_rdma: RDMA WRITE, SEND and READ between two QPs of one card (the
 * card's loopback, its own GID), QP A on SCU slot -a, QP B on slot -b (each
 * QP's verbs context is opened with SCENIC_DEFAULT_SCU set to its slot), for
 * aes.sh. Prints what the receivers' memory holds, in hex, one line each:
 *
 *   qpn <A> <B>
 *   write <B's buffer after A's 3000-byte WRITE>
 *   send <B's receive buffer after A's 700-byte SEND>
 *   read <A's buffer after A's 2500-byte READ of B>
 *
 * The sources are fixed patterns (byte i of the WRITE is 7i+3, of the SEND
 * 13i+5, of the READ's source 31i+11, mod 256); mkimages.py computes what an
 * AES-CTR SCU turns them into. Exit status 0 only if every work request
 * completed successfully.
 */
#include <getopt.h>

#include "../rdma/rdma_common.h"

#define WR_LEN		3000u
#define SEND_LEN	700u
#define READ_LEN	2500u
#define BUF		16384u
#define OP_TIMEOUT_MS	30000

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static void side_open(struct side *s, const char *dev, unsigned int slot)
{
	char v[16];
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	snprintf(v, sizeof(v), "%u", slot);
	if (setenv("SCENIC_DEFAULT_SCU", v, 1))
		die("setenv");
	s->ctx = open_device(dev);
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		die("ibv_alloc_pd");
	s->cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
	if (!s->cq)
		die("ibv_create_cq");
	s->buf = calloc(1, BUF);
	if (!s->buf)
		die("calloc");
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		die("ibv_reg_mr");
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &qa);
	if (!s->qp)
		die("ibv_create_qp");
}

static void to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
}

/* Waits for one completion on @cq; false (and a message) unless it succeeded. */
static bool wait_ok(struct ibv_cq *cq, const char *what)
{
	uint64_t end = now_ms() + OP_TIMEOUT_MS;
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n == 1) {
			if (wc.status == IBV_WC_SUCCESS)
				return true;
			fprintf(stderr, "%s: %s completed with %s\n", rc_prog, what,
				ibv_wc_status_str(wc.status));
			return false;
		}
	} while (now_ms() < end);
	fprintf(stderr, "%s: %s: no completion in %d ms\n", rc_prog, what, OP_TIMEOUT_MS);
	return false;
}

static bool post(struct side *s, enum ibv_wr_opcode op, uint64_t off, uint32_t len,
		 uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf + off, .length = len,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(s->qp, &wr, &bad))
		die("ibv_post_send");
	return wait_ok(s->cq, op == IBV_WR_RDMA_WRITE ? "WRITE" :
		       op == IBV_WR_SEND ? "SEND" : "READ");
}

static void hexline(const char *tag, const uint8_t *p, uint32_t len)
{
	printf("%s ", tag);
	for (uint32_t i = 0; i < len; i++)
		printf("%02x", p[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	unsigned int sa = 0, sb = 0;
	struct side a, b;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	int gidx, c;
	bool ok = true;

	rc_prog = "scu_aes_rdma";
	while ((c = getopt(argc, argv, "a:b:d:")) != -1) {
		switch (c) {
		case 'a':
			sa = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			sb = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dev = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s -a SLOT -b SLOT [-d DEV]\n", rc_prog);
			return 2;
		}
	}
	side_open(&a, dev, sa);
	side_open(&b, dev, sb);
	gidx = find_roce4_gid(a.ctx, &gid, &mtu);
	to_init(a.qp);
	to_init(b.qp);
	rc_connect(a.qp, gidx, mtu, gid.raw, b.qp->qp_num, 0x200, 0x100);
	rc_connect(b.qp, gidx, mtu, gid.raw, a.qp->qp_num, 0x100, 0x200);
	printf("qpn %u %u\n", a.qp->qp_num, b.qp->qp_num);

	for (uint32_t i = 0; i < WR_LEN; i++)
		a.buf[i] = (uint8_t)(7 * i + 3);
	for (uint32_t i = 0; i < SEND_LEN; i++)
		a.buf[4096 + i] = (uint8_t)(13 * i + 5);
	for (uint32_t i = 0; i < READ_LEN; i++)
		b.buf[8192 + i] = (uint8_t)(31 * i + 11);

	ok = post(&a, IBV_WR_RDMA_WRITE, 0, WR_LEN, (uintptr_t)b.buf, b.mr->rkey) && ok;
	hexline("write", b.buf, WR_LEN);

	struct ibv_sge rs = { .addr = (uintptr_t)b.buf + 4096, .length = 4096,
			      .lkey = b.mr->lkey };
	struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 }, *rbad;

	if (ibv_post_recv(b.qp, &rw, &rbad))
		die("ibv_post_recv");
	ok = post(&a, IBV_WR_SEND, 4096, SEND_LEN, 0, 0) && ok;
	ok = wait_ok(b.cq, "receive") && ok;
	hexline("send", b.buf + 4096, SEND_LEN);

	ok = post(&a, IBV_WR_RDMA_READ, 8192, READ_LEN, (uintptr_t)b.buf + 8192, b.mr->rkey) && ok;
	hexline("read", a.buf + 8192, READ_LEN);
	fflush(stdout);
	return ok ? 0 : 1;
}
