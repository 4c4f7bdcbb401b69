// SPDX-License-Identifier: MIT
/*
 * dmabuf_mr: RDMA WRITE and READ between two nodes into memory registered
 * with ibv_reg_dmabuf_mr, the stand-in for GPU memory (paper section 6): a
 * udmabuf (a dma-buf over a sealed memfd) on each node. Plain libibverbs.
 *
 *   node 2:  dmabuf_mr -s [-d dev] [-p port] [-U]
 *   node 1:  dmabuf_mr -c <server IPv4> [-d dev] [-p port] [-U]
 *
 * Each node registers its udmabuf twice: MR A, the whole buffer at iova
 * IOVA_A, and MR B, from the unaligned offset B_OFF at an iova of the same
 * page offset. The client WRITEs from its MR A into the server's A and B and
 * READs the server's A and B back into its own, over sizes from 1 byte to
 * 1 MiB at unaligned offsets; the bytes are checked through the memfd
 * mappings on the side that received them, with guard bytes around every
 * region, and every completion's status, opcode, wr_id and byte count.
 * Both nodes also check refusals: an fd that is no file, an fd that is not a
 * dma-buf, a range beyond the buffer, length 0.
 *
 * -U (no /dev/udmabuf: Debian's 6.1 has no CONFIG_UDMABUF): only the
 * refusals that need no dma-buf, which still tell a device with the verb
 * (EBADF, EINVAL) from one without (EOPNOTSUPP). Output is TAP through
 * kselftest.h (the kernel's selftests framework, selftests/ksft/fetch-framework),
 * its plan at the end (the count depends on the side and on -U); the exit
 * status is 0 only if every test passed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "rdma_common.h"
#include "kselftest.h"

#define BUF_SIZE	(4u << 20)
#define B_OFF		(3 * 4096 + 100)	/* MR B: unaligned start in the buffer */
#define B_LEN		(BUF_SIZE - B_OFF - 4096)
#define IOVA_A		0x7e0000000000ull
#define IOVA_B		(0x100000000ull + (B_OFF & 4095))
#define GUARD		16
#define OP_TIMEOUT_MS	30000
#define ACCESS		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

enum { CMD_FILL = 1, CMD_CHECK, CMD_QUIT };

struct cmd {
	uint32_t op, pad;
	uint64_t off, len, seed;	/* byte offsets into the udmabuf */
};

struct info {
	uint32_t qpn, psn, rkey_a, rkey_b;
	uint8_t gid[16];
};

struct node {
	struct ibv_context *dev;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr_a, *mr_b;
	int memfd, buf_fd, gid_idx;
	uint8_t *map;		/* the memfd's pages: what the card reads and writes */
	union ibv_gid gid;
	enum ibv_mtu mtu;
};

/* A udmabuf of BUF_SIZE bytes over a sealed memfd, and the memfd's mapping. */
static void make_udmabuf(struct node *n)
{
	struct udmabuf_create uc = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = BUF_SIZE };
	int dev;

	n->memfd = memfd_create("dmabuf_mr", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (n->memfd < 0 || ftruncate(n->memfd, BUF_SIZE))
		die("memfd");
	/* udmabuf refuses a memfd that could shrink under it */
	if (fcntl(n->memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		die("F_SEAL_SHRINK");
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die("/dev/udmabuf");
	uc.memfd = n->memfd;
	n->buf_fd = ioctl(dev, UDMABUF_CREATE, &uc);
	if (n->buf_fd < 0)
		die("UDMABUF_CREATE");
	close(dev);
	n->map = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, n->memfd, 0);
	if (n->map == MAP_FAILED)
		die("mmap memfd");
	/* background pattern: seed 0 over the whole buffer, for the guards */
	fill(n->map, 0, BUF_SIZE, 0);
}

/*
 * True if [off, off + len) holds pattern @seed as laid at offset @base (the
 * pattern is keyed on the server's offsets) and the GUARD bytes around it
 * still hold the background.
 */
static bool check_region(const uint8_t *map, uint64_t off, uint64_t len, uint64_t seed,
			 uint64_t base)
{
	uint64_t lo = off >= GUARD ? off - GUARD : 0;
	uint64_t hi = off + len + GUARD <= BUF_SIZE ? off + len + GUARD : BUF_SIZE;

	for (uint64_t i = lo; i < hi; i++) {
		bool in = i >= off && i < off + len;
		uint8_t want = in ? pat(seed, base + (i - off)) : pat(0, i);

		if (map[i] != want) {
			fprintf(stderr, "%s byte %" PRIu64 " is 0x%02x, expected 0x%02x (region %"
				PRIu64 "+%" PRIu64 ", seed %" PRIu64 ")\n", in ? "data" : "guard",
				i, map[i], want, off, len, seed);
			return false;
		}
	}
	return true;
}

/* The background pattern again over [off, off + len). */
static void put_back(uint8_t *map, uint64_t off, uint64_t len)
{
	fill(map + off, off, len, 0);
}

/* ibv_reg_dmabuf_mr must fail with @want. */
static void refused(struct node *n, const char *what, uint64_t off, size_t len, int fd,
		    int want)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_dmabuf_mr(n->pd, off, len, IOVA_A, fd, ACCESS);
	ksft_test_result(!mr && errno == want, "reg_dmabuf_mr refuses %s: %s (expected %s)\n",
			 what, mr ? "registered" : strerror(errno), strerror(want));
	if (mr)
		ibv_dereg_mr(mr);
}

static void refusals(struct node *n, bool have_buf)
{
	refused(n, "fd -1", 0, 4096, -1, EBADF);
	/* the memfd is a file but no dma-buf */
	refused(n, "an fd that is not a dma-buf", 0, 4096, n->memfd, EINVAL);
	if (!have_buf)
		return;
	refused(n, "an offset at the end of the buffer", BUF_SIZE, 4096, n->buf_fd, EINVAL);
	refused(n, "a range past the end of the buffer", BUF_SIZE - 4096, 8192, n->buf_fd,
		EINVAL);
	refused(n, "length 0", 0, 0, n->buf_fd, EINVAL);
}

static void setup(struct node *n, const char *devname, bool have_buf)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};

	n->dev = open_device(devname);
	n->gid_idx = find_roce4_gid(n->dev, &n->gid, &n->mtu);
	n->pd = ibv_alloc_pd(n->dev);
	if (!n->pd)
		die("ibv_alloc_pd");
	if (!have_buf) {
		n->memfd = memfd_create("dmabuf_mr", MFD_CLOEXEC);
		if (n->memfd < 0)
			die("memfd");
		return;
	}
	make_udmabuf(n);
	n->mr_a = ibv_reg_dmabuf_mr(n->pd, 0, BUF_SIZE, IOVA_A, n->buf_fd, ACCESS);
	ksft_test_result(n->mr_a,
			 "reg_dmabuf_mr: the whole udmabuf (%u bytes) at iova 0x%llx: %s\n",
			 BUF_SIZE, IOVA_A, n->mr_a ? "ok" : strerror(errno));
	n->mr_b = ibv_reg_dmabuf_mr(n->pd, B_OFF, B_LEN, IOVA_B, n->buf_fd, ACCESS);
	ksft_test_result(n->mr_b, "reg_dmabuf_mr: %u bytes from offset %u at iova 0x%llx: %s\n",
			 B_LEN, B_OFF, IOVA_B, n->mr_b ? "ok" : strerror(errno));
	if (!n->mr_a || !n->mr_b)
		exit(1);
	n->cq = ibv_create_cq(n->dev, 16, NULL, NULL, 0);
	if (!n->cq)
		die("ibv_create_cq");
	ia.send_cq = ia.recv_cq = n->cq;
	n->qp = ibv_create_qp(n->pd, &ia);
	if (!n->qp)
		die("ibv_create_qp");
	if (ibv_modify_qp(n->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("modify_qp INIT");
}

static void connect_qp(struct node *n, uint32_t my_psn, const struct info *peer)
{
	rc_connect(n->qp, n->gid_idx, n->mtu, peer->gid, peer->qpn, peer->psn, my_psn);
}

static struct info my_info(struct node *n, uint32_t psn)
{
	struct info i = { .qpn = n->qp->qp_num, .psn = psn, .rkey_a = n->mr_a->rkey,
			  .rkey_b = n->mr_b->rkey };

	memcpy(i.gid, n->gid.raw, 16);
	return i;
}

/* One WRITE or READ of @len bytes between local MR A at @loff and @raddr; checks the CQE. */
static bool rdma_op(struct node *n, enum ibv_wr_opcode op, uint64_t loff, uint64_t len,
		    uint64_t raddr, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = IOVA_A + loff, .length = len, .lkey = n->mr_a->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	uint64_t t0 = now_ms();
	struct ibv_wc wc;
	int got = 0;

	if (ibv_post_send(n->qp, &wr, &bad)) {
		fprintf(stderr, "ibv_post_send: %s\n", strerror(errno));
		return false;
	}
	while (!(got = ibv_poll_cq(n->cq, 1, &wc)) && now_ms() - t0 < OP_TIMEOUT_MS)
		;
	if (got != 1) {
		fprintf(stderr, "no completion in %d ms (poll %d)\n", OP_TIMEOUT_MS, got);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id ||
	    wc.opcode != (op == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ) ||
	    (op == IBV_WR_RDMA_READ && wc.byte_len != len)) {
		fprintf(stderr, "completion: %s, wr_id %" PRIu64 ", opcode %d, byte_len %u\n",
			ibv_wc_status_str(wc.status), wc.wr_id, wc.opcode, wc.byte_len);
		return false;
	}
	return true;
}

static void serve(struct node *n, int sock)
{
	struct cmd c;
	int32_t ok;

	for (;;) {
		xfer(sock, &c, sizeof(c), false);
		if (c.op == CMD_QUIT || c.off > BUF_SIZE || c.len > BUF_SIZE - c.off)
			break;
		if (c.op == CMD_FILL) {
			fill(n->map + c.off, c.off, c.len, c.seed);
			ok = 1;
		} else {
			ok = check_region(n->map, c.off, c.len, c.seed, c.off);
			put_back(n->map, c.off, c.len);
		}
		xfer(sock, &ok, sizeof(ok), true);
	}
}

static bool call(int sock, uint32_t op, uint64_t off, uint64_t len, uint64_t seed)
{
	struct cmd c = { .op = op, .off = off, .len = len, .seed = seed };
	int32_t ok;

	xfer(sock, &c, sizeof(c), true);
	xfer(sock, &ok, sizeof(ok), false);
	return ok == 1;
}

/*
 * WRITE @len bytes from local offset @loff to the server's buffer offset
 * @roff (through its MR B when @via_b, else A), then READ another pattern
 * from there into local offset @loff2. Each side checks what it received.
 */
static void write_read(struct node *n, int sock, const struct info *peer, uint64_t len,
		       uint64_t loff, uint64_t roff, uint64_t loff2, bool via_b, uint64_t seed)
{
	uint64_t raddr = via_b ? IOVA_B + (roff - B_OFF) : IOVA_A + roff;
	uint32_t rkey = via_b ? peer->rkey_b : peer->rkey_a;
	const char *mr = via_b ? "B" : "A";
	bool ok;

	fill(n->map + loff, roff, len, seed);
	ok = rdma_op(n, IBV_WR_RDMA_WRITE, loff, len, raddr, rkey, seed);
	/* the server compares and restores its background */
	ok = call(sock, CMD_CHECK, roff, len, seed) && ok;
	ksft_test_result(ok, "WRITE %" PRIu64 " bytes from local offset %" PRIu64
			 " to the server's MR %s at buffer offset %" PRIu64
			 ": completion and bytes\n", len, loff, mr, roff);
	put_back(n->map, loff, len);

	ok = call(sock, CMD_FILL, roff, len, seed + 1);
	ok = rdma_op(n, IBV_WR_RDMA_READ, loff2, len, raddr, rkey, seed + 1) && ok;
	ok = check_region(n->map, loff2, len, seed + 1, roff) && ok;
	ksft_test_result(ok, "READ %" PRIu64 " bytes from the server's MR %s at buffer offset %"
			 PRIu64 " to local offset %" PRIu64 ": completion and bytes\n",
			 len, mr, roff, loff2);
	put_back(n->map, loff2, len);
	call(sock, CMD_FILL, roff, len, 0);
}

int main(int argc, char **argv)
{
	const char *server = NULL, *devname = NULL;
	bool serving = false, have_buf = true;
	struct node n = { 0 };
	struct info me, peer;
	int port = 18800, sock, opt;
	uint32_t psn;

	rc_prog = "dmabuf_mr";
	while ((opt = getopt(argc, argv, "sc:d:p:U")) != -1) {
		switch (opt) {
		case 's': serving = true; break;
		case 'c': server = optarg; break;
		case 'd': devname = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'U': have_buf = false; break;
		default:
			fprintf(stderr, "usage: dmabuf_mr -s|-c IPV4 [-d dev] [-p port] [-U]\n");
			return 2;
		}
	}
	if (serving == !!server) {
		fprintf(stderr, "dmabuf_mr: -s or -c IPV4\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	setup(&n, devname, have_buf);
	refusals(&n, have_buf);
	if (!have_buf)
		goto out;

	srand(getpid() ^ time(NULL));
	psn = rand() & 0xffffff;
	sock = tcp_connect(server, port, serving);
	me = my_info(&n, psn);
	xfer(sock, &me, sizeof(me), true);
	xfer(sock, &peer, sizeof(peer), false);
	connect_qp(&n, psn, &peer);
	if (serving) {
		serve(&n, sock);
	} else {
		static const uint64_t lens[] = { 1, 4095, 4096, 3 * 4096 + 17, 65536 + 5, 1 << 20 };
		struct cmd quit = { .op = CMD_QUIT };
		uint64_t seed = 10;

		for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++, seed += 2) {
			/* unaligned on both sides, crossing pages from 4095 bytes up */
			write_read(&n, sock, &peer, lens[i], 1000 + i, 5000 + 3 * i,
				   (2u << 20) + 7 * i, false, seed);
			write_read(&n, sock, &peer, lens[i], 333, B_OFF + 11 * i,
				   (2u << 20) + 4096 - 1, true, seed + 100);
		}
		/* no answer: the server leaves its loop */
		xfer(sock, &quit, sizeof(quit), true);
	}
	close(sock);
out:
	if (n.qp)
		ibv_destroy_qp(n.qp);
	if (n.cq)
		ibv_destroy_cq(n.cq);
	if (n.mr_b)
		ksft_test_result(!ibv_dereg_mr(n.mr_b), "dereg_mr of MR B\n");
	if (n.mr_a)
		ksft_test_result(!ibv_dereg_mr(n.mr_a), "dereg_mr of MR A\n");
	ibv_dealloc_pd(n.pd);
	ibv_close_device(n.dev);
	ksft_set_plan(ksft_test_num());
	ksft_finished();	/* exit 0 only when every test passed */
}
