// SPDX-License-Identifier: MIT
/*
 * rdma_hostile: what an unprivileged, hostile process can try against the
 * RDMA driver on one node (node 2 only has to exist: QPs point at it).
 *
 *  a) doorbell pages after destroy: process A keeps a second mapping of its
 *     QP's and CQ's doorbell pages and destroys them; process B's QPs and CQs
 *     must not get those numbers while A's mappings live, and A ringing its
 *     stale page must not move B's QP. After A unmaps, the numbers come back.
 *  b) read-only mappings cannot be made writable (mprotect, PROT_WRITE,
 *     MAP_PRIVATE); doorbell pages cannot be mapped privately.
 *  c) a 1 TiB MR (MAP_NORESERVE) and an MR whose address + length wraps are
 *     refused with an errno, and the guest lives on.
 *  d) without CAP_IPC_LOCK and with RLIMIT_MEMLOCK at 1 MiB, CQs, QPs and MRs
 *     beyond the limit get ENOMEM; a context's rings are capped.
 *  e) kill -9 of a process whose QPs are retransmitting leaves no QP, CQ, MR
 *     or PD behind in rdma resource.
 *  f) deregistration racing TLB misses: QP A WRITEs and READs into an MR of
 *     QP B (both on this card, looped back) beyond the part the driver
 *     prefills in the card's TLB, and the MR is deregistered while they run.
 *     Every WR ends in success, a remote access error or a flush; once
 *     ibv_dereg_mr has returned nothing lands in the pages any more (a canary
 *     written then stays intact) and no READ returns it; the card carries
 *     clean traffic afterwards.
 *
 * Usage: rdma_hostile -d DEV -p PEER_IPV4 [-o PARTS]   (PARTS: letters a..f, default all)
 * Output is TAP through the kernel's kselftest.h, one line per check (the parts
 * share one device and run in order, each with several checks: kselftest.h
 * rather than a harness TEST per part); exit 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "rdma_common.h"

#define MAX_MAPS 256
#define BIG_WR 8192		/* SQ 8192 x 512 B + RQ 8192 x 64 B: 4.5 MiB of rings */
#define BIG_QP_BYTES (BIG_WR * 512 + BIG_WR * 64)
#define UCTX_CAP (256u << 20)	/* SCENIC_RDMA_UCTX_MAX_RING_BYTES (1 GiB guest: RAM/4 too) */

static const char *devname;
static const char *peer;

struct umap {
	unsigned long start, end, off;
	char perms[5];
};

/* The mappings of the uverbs device in this process. */
static int uverbs_maps(struct umap *m, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f) && n < max) {
		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx %4s %lx", &m[n].start, &m[n].end, m[n].perms,
			   &m[n].off) == 4)
			n++;
	}
	fclose(f);
	return n;
}

/* A mapping in @after that is not in @before, with permissions @perms. */
static bool new_map(const struct umap *before, int nb, const struct umap *after, int na,
		    const char *perms, struct umap *out)
{
	for (int i = 0; i < na; i++) {
		bool old = false;

		for (int j = 0; j < nb; j++)
			old |= before[j].start == after[i].start && before[j].off == after[i].off;
		if (!old && !strcmp(after[i].perms, perms)) {
			*out = after[i];
			return true;
		}
	}
	return false;
}

/* Path to the peer: RoCE v2 over IPv4 from our GID to the peer's. */
struct path {
	int gidx;
	union ibv_gid dgid;
	enum ibv_mtu mtu;
};

static void path_init(struct ibv_context *ctx, struct path *p)
{
	union ibv_gid g;
	struct in_addr a;

	p->gidx = find_roce4_gid(ctx, &g, &p->mtu);
	memset(&p->dgid, 0, sizeof(p->dgid));
	p->dgid.raw[10] = p->dgid.raw[11] = 0xff;
	if (inet_pton(AF_INET, peer, &a) != 1) {
		fprintf(stderr, "%s: bad peer address %s\n", rc_prog, peer);
		exit(2);
	}
	memcpy(&p->dgid.raw[12], &a, 4);
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq, unsigned int wr)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &ia);
}

/* RESET -> RTS towards QP @dqpn on the peer (which does not exist there). */
static int to_rts(struct ibv_qp *qp, const struct path *p, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = p->dgid;
	a.ah_attr.grh.sgid_index = p->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 10;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return -errno;
	return 0;
}

/* The card's numbers (drv_hw_cqn) of the CQs of process @pid, from rdma resource. */
static int hw_cqns(pid_t pid, int *out, int max)
{
	FILE *f = popen("/usr/sbin/rdma -dd resource show cq 2>/dev/null", "r");
	char line[1024];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long p = -1, c = -1;
		char *save = NULL, *prev = NULL;

		for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
			if (prev && !strcmp(prev, "pid"))
				p = strtol(t, NULL, 10);
			if (prev && !strcmp(prev, "drv_hw_cqn"))
				c = strtol(t, NULL, 10);
			prev = t;
		}
		if (p == pid && c >= 0 && n < max)
			out[n++] = (int)c;
	}
	pclose(f);
	return n;
}

static void xwrite(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		die("pipe write");
}

static void xread(int fd, void *p, size_t n)
{
	if (read(fd, p, n) != (ssize_t)n)
		die("pipe read");
}

/* ---- a) ---- */

struct a_report {
	int ok;
	uint32_t qpn;
	int cqn;
};

/*
 * Process A: a CQ and a QP, a second mapping of each doorbell page, destroy
 * both, report; on 'r' ring the stale pages, on 'u' unmap them, then exit.
 */
static void proc_a(int to_b, int from_b)
{
	struct umap m0[MAX_MAPS], m1[MAX_MAPS], m2[MAX_MAPS], cqdb, qpdb;
	struct a_report r = { 0 };
	struct ibv_context *ctx = open_device(devname);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	volatile uint32_t *cqmap, *qpmap;
	int fd = ctx->cmd_fd, n0, n1, n2, cqns[8];
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char c;

	n0 = uverbs_maps(m0, MAX_MAPS);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	n1 = uverbs_maps(m1, MAX_MAPS);
	qp = pd && cq ? make_qp(pd, cq, 16) : NULL;
	n2 = uverbs_maps(m2, MAX_MAPS);
	/* the provider maps doorbell pages write-only */
	if (!qp || !new_map(m0, n0, m1, n1, "-w-s", &cqdb) ||
	    !new_map(m1, n1, m2, n2, "-w-s", &qpdb)) {
		fprintf(stderr, "%s: A: set-up failed (qp %p)\n", rc_prog, (void *)qp);
		xwrite(to_b, &r, sizeof(r));
		_exit(1);
	}
	cqmap = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, cqdb.off);
	qpmap = mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, fd, qpdb.off);
	r.qpn = qp->qp_num;
	r.cqn = hw_cqns(getpid(), cqns, 8) == 1 ? cqns[0] : -1;
	if (cqmap == MAP_FAILED || qpmap == MAP_FAILED || ibv_destroy_qp(qp) ||
	    ibv_destroy_cq(cq)) {
		fprintf(stderr, "%s: A: second mapping or destroy failed: %s\n", rc_prog,
			strerror(errno));
		xwrite(to_b, &r, sizeof(r));
		_exit(1);
	}
	r.ok = 1;
	xwrite(to_b, &r, sizeof(r));
	while (read(from_b, &c, 1) == 1) {
		if (c == 'r') {
			/* post 4 (zeroed) WQEs and move the CQ's consumer index */
			qpmap[0] = 4;
			qpmap[2] = 4;
			cqmap[0] = 3;
			cqmap[2] = 3;
		} else if (c == 'u') {
			munmap((void *)cqmap, 4096);
			munmap((void *)qpmap, 4096);
		}
		xwrite(to_b, &c, 1);
	}
	_exit(0);
}

static void test_stale_doorbell(void)
{
	int ab[2], ba[2], cqns[8], ncq, st;
	struct ibv_context *ctx;
	struct ibv_qp *qps[4] = { 0 }, *again;
	struct ibv_cq *cqs[4] = { 0 }, *cq2;
	struct ibv_wc wc[4];
	struct a_report r;
	struct ibv_pd *pd;
	struct path p;
	bool qp_reused = false, cq_reused = false, qp_back, cq_back = false;
	pid_t a;
	char c;

	if (pipe(ab) || pipe(ba))
		die("pipe");
	a = fork();
	if (a < 0)
		die("fork");
	if (!a) {
		close(ab[0]);
		close(ba[1]);
		proc_a(ab[1], ba[0]);
	}
	close(ab[1]);
	close(ba[0]);
	xread(ab[0], &r, sizeof(r));
	tap(r.ok && r.cqn >= 0, "a: process A created QP %u and CQ %d, mapped their doorbell pages twice, destroyed them",
	    r.qpn, r.cqn);
	if (!r.ok) {
		close(ba[1]);
		waitpid(a, NULL, 0);
		return;
	}

	ctx = open_device(devname);
	pd = ibv_alloc_pd(ctx);
	path_init(ctx, &p);
	for (int i = 0; i < 4; i++) {
		cqs[i] = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		qps[i] = pd && cqs[i] ? make_qp(pd, cqs[i], 16) : NULL;
		if (!qps[i])
			die("B: create");
		qp_reused |= qps[i]->qp_num == r.qpn;
	}
	ncq = hw_cqns(getpid(), cqns, 8);
	for (int i = 0; i < ncq; i++)
		cq_reused |= cqns[i] == r.cqn;
	tap(!qp_reused, "a: process B's 4 new QPs do not get QP %u while A maps its doorbell page (B: %u %u %u %u)",
	    r.qpn, qps[0]->qp_num, qps[1]->qp_num, qps[2]->qp_num, qps[3]->qp_num);
	tap(r.cqn >= 0 && ncq == 4 && !cq_reused, "a: process B's 4 new CQs do not get CQ %d while A maps its doorbell page (%d of B's CQs seen)",
	    r.cqn, ncq);

	/* B's QPs run (towards a QP the peer does not have: nothing completes) */
	for (int i = 0; i < 4; i++)
		if (to_rts(qps[i], &p, 0xfff0 + i))
			die("B: modify to RTS");
	c = 'r';
	xwrite(ba[1], &c, 1);
	xread(ab[0], &c, 1);
	usleep(500000);
	st = 0;
	for (int i = 0; i < 4; i++) {
		struct ibv_qp_attr qa = { 0 };
		struct ibv_qp_init_attr qia;
		int n = ibv_poll_cq(cqs[i], 4, wc);

		/* the card's next send PSN: a WQE sent moves it */
		if (ibv_query_qp(qps[i], &qa, IBV_QP_STATE | IBV_QP_SQ_PSN, &qia) ||
		    qa.qp_state != IBV_QPS_RTS || qa.sq_psn != 0 || n != 0) {
			fprintf(stderr, "# B QP %u: state %s, next PSN %u, %d completions (status %d)\n",
				qps[i]->qp_num, state_str(qa.qp_state), qa.sq_psn, n,
				n > 0 ? wc[0].status : 0);
			st++;
		}
	}
	tap(!st, "a: A ringing its stale doorbell pages leaves B's QPs in RTS, PSN 0, no completions (%d moved)",
	    st);

	c = 'u';
	xwrite(ba[1], &c, 1);
	xread(ab[0], &c, 1);
	close(ba[1]);
	waitpid(a, NULL, 0);
	/* the numbers come back once the last mapping is gone */
	again = make_qp(pd, cqs[0], 16);
	qp_back = again && again->qp_num == r.qpn;
	cq2 = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	ncq = hw_cqns(getpid(), cqns, 8);
	for (int i = 0; i < ncq; i++)
		cq_back |= cqns[i] == r.cqn;
	tap(qp_back && r.cqn >= 0 && cq_back, "a: after A unmapped and exited, QP %u and CQ %d are reused (QP got %u)",
	    r.qpn, r.cqn, again ? again->qp_num : 0);
	if (again)
		ibv_destroy_qp(again);
	if (cq2)
		ibv_destroy_cq(cq2);
	for (int i = 0; i < 4; i++) {
		ibv_destroy_qp(qps[i]);
		ibv_destroy_cq(cqs[i]);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

/* ---- b) ---- */

static void test_readonly(void)
{
	struct umap m0[MAX_MAPS], m1[MAX_MAPS], ro = { 0 }, db = { 0 };
	struct ibv_context *ctx = open_device(devname);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	int n0, n1, e1, e2, e3, e4;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	void *p;

	n0 = uverbs_maps(m0, MAX_MAPS);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	qp = pd && cq ? make_qp(pd, cq, 16) : NULL;
	n1 = uverbs_maps(m1, MAX_MAPS);
	if (!qp || !new_map(m0, n0, m1, n1, "r--s", &ro) || !new_map(m0, n0, m1, n1, "-w-s", &db)) {
		tap(false, "b: set-up (a QP with a read-only and a doorbell mapping)");
		return;
	}
	errno = 0;
	e1 = mprotect((void *)ro.start, ro.end - ro.start, PROT_READ | PROT_WRITE) ? errno : 0;
	p = mmap(NULL, ro.end - ro.start, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd, ro.off);
	e2 = p == MAP_FAILED ? errno : 0;
	if (p != MAP_FAILED)
		munmap(p, ro.end - ro.start);
	p = mmap(NULL, ro.end - ro.start, PROT_READ, MAP_PRIVATE, ctx->cmd_fd, ro.off);
	e3 = p == MAP_FAILED ? errno : 0;
	if (p != MAP_FAILED)
		munmap(p, ro.end - ro.start);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, ctx->cmd_fd, db.off);
	e4 = p == MAP_FAILED ? errno : 0;
	if (p != MAP_FAILED)
		munmap(p, 4096);
	tap(e1, "b: mprotect(PROT_WRITE) of a read-only mapping fails (%s)", strerror(e1));
	tap(e2, "b: a writable mapping of a read-only page is refused (%s)", strerror(e2));
	tap(e3, "b: MAP_PRIVATE of a read-only page is refused (%s)", strerror(e3));
	tap(e4, "b: MAP_PRIVATE of a doorbell page is refused (%s)", strerror(e4));
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

/* ---- c) ---- */

static void test_huge_mr(void)
{
	struct ibv_context *ctx = open_device(devname);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	size_t tib = (size_t)1 << 40;
	struct ibv_mr *mr;
	void *p;
	int e;

	p = mmap(NULL, tib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED) {
		tap(false, "c: mmap of 1 TiB with MAP_NORESERVE: %s", strerror(errno));
	} else {
		errno = 0;
		mr = ibv_reg_mr(pd, p, tib, IBV_ACCESS_LOCAL_WRITE);
		e = errno;
		tap(!mr && e, "c: a 1 TiB MR is refused (%s)", strerror(e));
		if (mr)
			ibv_dereg_mr(mr);
		munmap(p, tib);
	}
	errno = 0;
	mr = ibv_reg_mr(pd, (void *)(uintptr_t)0xfffffffffffff000ull, 0x2000,
			IBV_ACCESS_LOCAL_WRITE);
	e = errno;
	tap(!mr && e, "c: an MR whose address + length wraps is refused (%s)", strerror(e));
	if (mr)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

/* ---- d) ---- */

/* Drops CAP_IPC_LOCK (which skips RLIMIT_MEMLOCK) from this process. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].inheritable &= ~(1u << (CAP_IPC_LOCK % 32));
	return syscall(SYS_capset, &h, d);
}

struct d_report {
	int cq_n, cq_err, qp_n, qp_err, mr_err, cap_n, cap_err;
};

/* A child without CAP_IPC_LOCK and with 1 MiB of RLIMIT_MEMLOCK: CQs, QPs, an MR until ENOMEM. */
static void memlock_child(struct d_report *r)
{
	struct rlimit rl = { 1 << 20, 1 << 20 };
	struct ibv_context *ctx = open_device(devname);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq, *cq0 = NULL;
	struct ibv_mr *mr;
	void *buf;

	if (drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl))
		die("drop CAP_IPC_LOCK / setrlimit");
	/* 4096 CQEs of 32 B: 128 KiB of ring each; 1 MiB lets 7 at most */
	for (r->cq_n = 0; r->cq_n < 64; r->cq_n++) {
		cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);
		if (!cq) {
			r->cq_err = errno;
			break;
		}
		if (!cq0)
			cq0 = cq;
	}
	for (r->qp_n = 0; cq0 && r->qp_n < 64; r->qp_n++) {
		if (!make_qp(pd, cq0, 1024)) {
			r->qp_err = errno;
			break;
		}
	}
	buf = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mr = buf == MAP_FAILED ? NULL : ibv_reg_mr(pd, buf, 2 << 20, IBV_ACCESS_LOCAL_WRITE);
	r->mr_err = mr ? 0 : errno;
}

/* root, in a child so that the memory goes with it: the per-context cap on rings. */
static void ring_cap_child(struct d_report *r)
{
	struct ibv_context *ctx = open_device(devname);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	int limit = UCTX_CAP / BIG_QP_BYTES + 8;

	for (r->cap_n = 0; cq && r->cap_n < limit; r->cap_n++) {
		if (!make_qp(pd, cq, BIG_WR)) {
			r->cap_err = errno;
			break;
		}
	}
}

/*
 * Runs body in a child process and returns what it reported; a child that died before
 * reporting leaves every field -1, which no check accepts.
 */
static void in_child(void (*body)(struct d_report *r), struct d_report *r)
{
	int fds[2];
	pid_t c;

	if (pipe(fds))
		die("pipe");
	c = fork();
	if (c < 0)
		die("fork");
	if (!c) {
		close(fds[0]);
		body(r);
		xwrite(fds[1], r, sizeof(*r));
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], r, sizeof(*r)) != sizeof(*r))
		memset(r, 0xff, sizeof(*r));
	close(fds[0]);
	waitpid(c, NULL, 0);
}

static void test_memlock(void)
{
	struct d_report r = { 0 };

	in_child(memlock_child, &r);
	tap(r.cq_err == ENOMEM && r.cq_n <= 8,
	    "d: RLIMIT_MEMLOCK 1 MiB, no CAP_IPC_LOCK: the CQ after %d of 128 KiB gets ENOMEM (%s)",
	    r.cq_n, strerror(r.cq_err));
	tap(r.qp_err == ENOMEM && r.qp_n == 0,
	    "d: ... and a QP with 576 KiB of rings gets ENOMEM after %d (%s)", r.qp_n,
	    strerror(r.qp_err));
	tap(r.mr_err == ENOMEM, "d: ... and a 2 MiB MR gets ENOMEM (%s)", strerror(r.mr_err));

	in_child(ring_cap_child, &r);
	tap(r.cap_err == ENOMEM && r.cap_n >= 1 && r.cap_n <= (int)(UCTX_CAP / BIG_QP_BYTES),
	    "d: one context's rings stop at 256 MiB: QP %d of 4.5 MiB gets ENOMEM (%s)",
	    r.cap_n + 1, strerror(r.cap_err));
}

/* ---- e) ---- */

/* Objects of kind @what (qp, cq, mr, pd) in rdma resource; -1 if unreadable. */
static int res_count(const char *what)
{
	char cmd[128], line[1024];
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "/usr/sbin/rdma resource show %s 2>/dev/null", what);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "comm rdma_hostile") != NULL;
	pclose(f);
	return n;
}

static void test_kill9(void)
{
	int fds[2], before[4], during[4], after[4], st;
	const char *kinds[4] = { "qp", "cq", "mr", "pd" };
	bool clean = true;
	pid_t c;
	char ok = 0;

	for (int i = 0; i < 4; i++)
		before[i] = res_count(kinds[i]);
	if (pipe(fds))
		die("pipe");
	c = fork();
	if (c < 0)
		die("fork");
	if (!c) {
		struct ibv_context *ctx = open_device(devname);
		struct ibv_pd *pd = ibv_alloc_pd(ctx);
		static char buf[1 << 16];
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		struct path p;

		close(fds[0]);
		path_init(ctx, &p);
		for (int i = 0; mr && i < 4; i++) {
			struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
			struct ibv_qp *qp = cq ? make_qp(pd, cq, 32) : NULL;
			struct ibv_sge sge = { (uintptr_t)buf, sizeof(buf), mr->lkey };
			struct ibv_send_wr wr = {
				.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { .remote_addr = 0x10000, .rkey = 0x1234 },
			}, *bad;

			if (!qp || to_rts(qp, &p, 0xfff0 + i))
				_exit(1);
			/* the peer has no such QP: the requester retransmits until killed */
			for (int j = 0; j < 8; j++)
				if (ibv_post_send(qp, &wr, &bad))
					_exit(1);
		}
		ok = mr ? 1 : 0;
		xwrite(fds[1], &ok, 1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (read(fds[0], &ok, 1) != 1)
		ok = 0;
	close(fds[0]);
	usleep(300000);
	for (int i = 0; i < 4; i++)
		during[i] = res_count(kinds[i]);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	for (int t = 0; t < 50; t++) {
		clean = true;
		for (int i = 0; i < 4; i++) {
			after[i] = res_count(kinds[i]);
			clean &= after[i] == before[i];
		}
		if (clean)
			break;
		usleep(100000);
	}
	tap(ok && during[0] == before[0] + 4, "e: a process with 4 retransmitting QPs (%d QPs, %d CQs, %d MRs, %d PDs of ours)",
	    during[0], during[1], during[2], during[3]);
	tap(clean, "e: after kill -9 rdma resource holds what it held before (qp %d/%d cq %d/%d mr %d/%d pd %d/%d)",
	    after[0], before[0], after[1], before[1], after[2], before[2], after[3], before[3]);
}

/* ---- f) ---- */

#define F_MR_BYTES	(12u << 20)	/* the driver prefills the TLB for the first 8 MiB */
#define F_OFF		(8u << 20)	/* every access lands beyond it: a TLB miss per page */
#define F_WRITES	8
#define F_READS		2
#define F_LEN		(64u << 10)
#define F_ROUNDS	40
#define F_CANARY	0xdb
#define F_OLD		0x5a		/* the MR's contents before the WRITEs */

/* A 64-byte block of canary in @p (random data holds the canary byte now and then, not 64). */
static bool has_canary_block(const uint8_t *p, size_t len)
{
	for (size_t o = 0; o + 64 <= len; o += 64) {
		size_t k = 0;

		while (k < 64 && p[o + k] == F_CANARY)
			k++;
		if (k == 64)
			return true;
	}
	return false;
}

/* RESET -> INIT with remote write and read, then RTR -> RTS towards @dqpn on this card. */
static void f_connect(struct ibv_qp *qp, int gidx, enum ibv_mtu mtu, const union ibv_gid *gid,
		      uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("f: modify_qp RESET");
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		die("f: modify_qp INIT");
	rc_connect(qp, gidx, mtu, gid->raw, dqpn, 0, 0);
}

/* Waits (at most 5 s) for @n completions on @cq; counts them by status. */
static int f_reap(struct ibv_cq *cq, int n, int *ok, int *acc, int *flush, int *other,
		  int *other_st)
{
	uint64_t end = now_ms() + 5000;
	struct ibv_wc wc[16];
	int got = 0;

	while (got < n && now_ms() < end) {
		int k = ibv_poll_cq(cq, 16, wc);

		if (k < 0)
			die("f: poll_cq");
		for (int i = 0; i < k; i++) {
			if (wc[i].status == IBV_WC_SUCCESS)
				(*ok)++;
			else if (wc[i].status == IBV_WC_REM_ACCESS_ERR)
				(*acc)++;
			else if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
				(*flush)++;
			else {
				(*other)++;
				*other_st = wc[i].status;
			}
		}
		got += k;
		if (!k)
			usleep(200);
	}
	return got;
}

static void test_dereg_race(void)
{
	struct ibv_context *ctx = open_device(devname);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cqa = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_cq *cqb = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_qp *qa = pd && cqa ? make_qp(pd, cqa, 32) : NULL;
	struct ibv_qp *qb = pd && cqb ? make_qp(pd, cqb, 32) : NULL;
	size_t local_bytes = (size_t)(F_WRITES + F_READS) * F_LEN;
	int ok = 0, acc = 0, flush = 0, other = 0, other_st = 0, lost = 0, late = 0;
	int read_canary = 0, races = 0, reconnects = 0;
	uint8_t *tgt, *local;
	struct ibv_mr *lmr, *mr;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	uint64_t seed = 0x15f;
	int gidx;

	if (!qa || !qb)
		die("f: set-up");
	gidx = find_roce4_gid(ctx, &gid, &mtu);
	tgt = mmap(NULL, F_MR_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	local = mmap(NULL, local_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tgt == MAP_FAILED || local == MAP_FAILED)
		die("f: mmap");
	lmr = ibv_reg_mr(pd, local, local_bytes, IBV_ACCESS_LOCAL_WRITE);
	if (!lmr)
		die("f: reg local MR");
	f_connect(qa, gidx, mtu, &gid, qb->qp_num);
	f_connect(qb, gidx, mtu, &gid, qa->qp_num);

	for (int r = 0; r < F_ROUNDS; r++) {
		struct ibv_send_wr wr[F_WRITES + F_READS], *bad;
		struct ibv_sge sge[F_WRITES + F_READS];
		int n = F_WRITES + F_READS, got, acc0 = acc, flush0 = flush;

		memset(tgt, F_OLD, F_MR_BYTES);
		memset(local, 0, local_bytes);
		fill(local, 0, (size_t)F_WRITES * F_LEN, (uint64_t)r);
		mr = ibv_reg_mr(pd, tgt, F_MR_BYTES, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
		if (!mr)
			die("f: reg target MR");
		for (int i = 0; i < n; i++) {
			bool rd = i >= F_WRITES;

			sge[i] = (struct ibv_sge){ (uintptr_t)local + (size_t)i * F_LEN, F_LEN,
						   lmr->lkey };
			wr[i] = (struct ibv_send_wr){
				.wr_id = (uint64_t)i, .sg_list = &sge[i], .num_sge = 1,
				.opcode = rd ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.next = i + 1 < n ? &wr[i + 1] : NULL,
				/* READs fetch what the first WRITEs target */
				.wr.rdma = { .remote_addr = (uintptr_t)tgt + F_OFF +
						 (size_t)(rd ? i - F_WRITES : i) * F_LEN * 2,
					     .rkey = mr->rkey },
			};
		}
		if (ibv_post_send(qa, wr, &bad))
			die("f: post_send");
		/* a different moment of the transfer each round: from at once to ~8 ms in */
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		usleep((useconds_t)((seed >> 33) % 8000));
		if (ibv_dereg_mr(mr))
			die("f: dereg target MR");
		/* from here on the card must not touch these pages */
		memset(tgt, F_CANARY, F_MR_BYTES);
		got = f_reap(cqa, n, &ok, &acc, &flush, &other, &other_st);
		lost += n - got;
		usleep(20000);
		for (size_t o = 0; o < F_MR_BYTES; o++)
			if (tgt[o] != F_CANARY) {
				late++;
				fprintf(stderr, "# f: round %d: byte %zu of the deregistered MR changed to 0x%02x\n",
					r, o, tgt[o]);
				break;
			}
		for (int i = F_WRITES; i < n; i++)
			read_canary += has_canary_block(local + (size_t)i * F_LEN, F_LEN);
		races += acc > acc0 && ok > 0;
		if (acc > acc0 || flush > flush0 || qp_state(qa) != IBV_QPS_RTS ||
		    qp_state(qb) != IBV_QPS_RTS) {
			/* the access error sent both QPs to ERR: start them again */
			f_connect(qa, gidx, mtu, &gid, qb->qp_num);
			f_connect(qb, gidx, mtu, &gid, qa->qp_num);
			reconnects++;
		}
	}
	fprintf(stderr, "# f: %d rounds: %d WRs succeeded, %d remote access errors, %d flushed, %d other (last status %d), %d lost; %d rounds with both successes and errors, %d reconnects\n",
		F_ROUNDS, ok, acc, flush, other, other_st, lost, races, reconnects);
	tap(!other && !lost, "f: MR deregistered under %d WRITEs + %d READs with TLB misses, %d rounds: every WR ends in success (%d), remote access error (%d) or flush (%d)",
	    F_WRITES, F_READS, F_ROUNDS, ok, acc, flush);
	tap(acc > 0, "f: the race was met: %d WRs found the MR gone (remote access error)", acc);
	tap(!late, "f: after ibv_dereg_mr returned no byte landed in the pages (%d rounds with a late write)",
	    late);
	tap(!read_canary, "f: no READ returned what was written after the deregistration (%d)",
	    read_canary);

	/* the card still works: a fresh MR, all WRITEs in place */
	{
		struct ibv_send_wr w, *bad;
		struct ibv_sge sg = { (uintptr_t)local, F_LEN, lmr->lkey };
		int ok2 = 0, e = 0;

		memset(tgt, 0, F_MR_BYTES);
		fill(local, 0, F_LEN, 0x77);
		mr = ibv_reg_mr(pd, tgt, F_MR_BYTES, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
		if (!mr)
			die("f: reg final MR");
		w = (struct ibv_send_wr){ .wr_id = 99, .sg_list = &sg, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED,
					  .wr.rdma = { .remote_addr = (uintptr_t)tgt + F_MR_BYTES - F_LEN,
						       .rkey = mr->rkey } };
		if (ibv_post_send(qa, &w, &bad))
			die("f: post final WRITE");
		f_reap(cqa, 1, &ok2, &e, &e, &e, &other_st);
		tap(ok2 == 1 && !memcmp(tgt + F_MR_BYTES - F_LEN, local, F_LEN),
		    "f: afterwards a WRITE into a new MR's last 64 KiB completes with its data (%s)",
		    ok2 == 1 ? "success" : "failed");
		ibv_dereg_mr(mr);
	}
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(cqa);
	ibv_destroy_cq(cqb);
	ibv_dereg_mr(lmr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	munmap(tgt, F_MR_BYTES);
	munmap(local, local_bytes);
}

int main(int argc, char **argv)
{
	const char *only = "abcdef";
	int o;

	rc_prog = "rdma_hostile";
	while ((o = getopt(argc, argv, "d:p:o:")) != -1) {
		if (o == 'd')
			devname = optarg;
		else if (o == 'p')
			peer = optarg;
		else if (o == 'o')
			only = optarg;
	}
	if (!devname || !peer) {
		fprintf(stderr, "usage: rdma_hostile -d DEV -p PEER_IPV4\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	if (strchr(only, 'a'))
		test_stale_doorbell();
	if (strchr(only, 'b'))
		test_readonly();
	if (strchr(only, 'c'))
		test_huge_mr();
	if (strchr(only, 'd'))
		test_memlock();
	if (strchr(only, 'e'))
		test_kill9();
	if (strchr(only, 'f'))
		test_dereg_race();
	tap_finish();
}
