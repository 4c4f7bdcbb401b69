/* SPDX-License-Identifier: MIT */
/*
 * qp_rate: the rate of the RDMA control path on one device (tools/bench/qp-rate,
 * selftests/rdma/qp_rate.sh). Plain libibverbs, no traffic.
 *
 * On one device, one PD and one CQ: creates N RC QPs, connects them in pairs
 * (QP 2i with QP 2i+1) on the same device through RESET->INIT->RTR->RTS with
 * each other's QPN and the device's own RoCE v2 IPv4 GID, checks with
 * ibv_query_qp that every QP is in RTS with the dest QPN it was given, destroys
 * them, then registers and deregisters N MRs of 64 KiB (distinct, pre-touched
 * buffers, so that page faults are not timed). Every verb's return is checked.
 *
 * One line per phase:
 *   PHASE N=<n> total_ms=<ms> per_op_us=<us>
 * with PHASE create_qp, connect (an op is one QP's three transitions),
 * destroy_qp, reg_mr, dereg_mr and setup_<n> (create_qp + connect; an op is
 * one QP), then "verified <k>/<n> QPs in RTS with their dest QPN" and
 * "qp_rate: ok" or "qp_rate: FAILED".
 *
 * Usage: qp_rate [-d DEV] [-n N (even, default 500)] [-s MR_KIB (default 64)]
 * Exit status: 0 when everything passed, 1 when a QP was not in RTS with its
 * dest QPN, 2 when a verb failed.
 */
#include <getopt.h>
#include <sys/mman.h>

#include "rdma_common.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* A verb failed: say which (with the object's index) and stop. */
static void verb_failed(const char *verb, int i, int err)
{
	fprintf(stderr, "qp_rate: %s #%d failed: %s\n", verb, i, strerror(err));
	printf("qp_rate: FAILED (%s #%d: %s)\n", verb, i, strerror(err));
	exit(2);
}

static void phase(const char *name, int n, double t0, double t1)
{
	printf("%s N=%d total_ms=%.3f per_op_us=%.1f\n", name, n, (t1 - t0) / 1e3,
	       (t1 - t0) / n);
	fflush(stdout);
}

static int connect_qp(struct ibv_qp *qp, uint32_t dest_qpn, int gid_idx, const union ibv_gid *gid,
		      enum ibv_mtu mtu)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int e;

	e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS);
	if (e)
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = dest_qpn & 0xffffff;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = (uint8_t)gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid = *gid;
	e = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (e)
		return e;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = qp->qp_num & 0xffffff;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(int argc, char **argv)
{
	const char *devname = NULL;
	int n = 500, mr_kib = 64, opt, gid_idx, verified = 0;
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qps;
	struct ibv_mr **mrs;
	uint8_t *buf;
	size_t mr_len;
	char setup[32];
	double t0, t1, t2;

	rc_prog = "qp_rate";
	while ((opt = getopt(argc, argv, "d:n:s:")) != -1) {
		switch (opt) {
		case 'd':
			devname = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 's':
			mr_kib = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: qp_rate [-d DEV] [-n N (even)] [-s MR_KIB]\n");
			return 2;
		}
	}
	if (n < 2 || n % 2 || mr_kib < 1) {
		fprintf(stderr, "qp_rate: N must be even and >= 2, MR_KIB >= 1\n");
		return 2;
	}
	mr_len = (size_t)mr_kib << 10;

	ctx = open_device(devname);
	if (ibv_query_device(ctx, &da))
		die("ibv_query_device");
	if (n > da.max_qp || n > da.max_mr) {
		fprintf(stderr, "qp_rate: N=%d but the device has max_qp %d, max_mr %d\n", n,
			da.max_qp, da.max_mr);
		printf("qp_rate: FAILED (N above the device's limits)\n");
		return 2;
	}
	gid_idx = find_roce4_gid(ctx, &gid, &mtu);
	printf("# qp_rate: device %s, GID index %d, N=%d, MR %d KiB\n",
	       ibv_get_device_name(ctx->device), gid_idx, n, mr_kib);

	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");
	qps = calloc(n, sizeof(*qps));
	mrs = calloc(n, sizeof(*mrs));
	buf = mmap(NULL, mr_len * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!qps || !mrs || buf == MAP_FAILED)
		die("allocating");
	memset(buf, 0x5c, mr_len * n);

	t0 = now_us();
	for (int i = 0; i < n; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		qps[i] = ibv_create_qp(pd, &ia);
		if (!qps[i])
			verb_failed("ibv_create_qp", i, errno);
	}
	t1 = now_us();
	phase("create_qp", n, t0, t1);

	for (int i = 0; i < n; i++) {
		int e = connect_qp(qps[i], qps[i ^ 1]->qp_num, gid_idx, &gid, mtu);

		if (e)
			verb_failed("ibv_modify_qp (connect)", i, e);
	}
	t2 = now_us();
	phase("connect", n, t1, t2);
	snprintf(setup, sizeof(setup), "setup_%d", n);
	phase(setup, n, t0, t2);

	for (int i = 0; i < n; i++) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		uint32_t want = qps[i ^ 1]->qp_num;
		int e = ibv_query_qp(qps[i], &a, IBV_QP_STATE | IBV_QP_DEST_QPN, &ia);

		if (e)
			verb_failed("ibv_query_qp", i, e);
		if (a.qp_state == IBV_QPS_RTS && a.dest_qp_num == want)
			verified++;
		else
			printf("# QP #%d (QPN 0x%x): state %s, dest QPN 0x%x, want RTS and 0x%x\n", i,
			       qps[i]->qp_num, state_str(a.qp_state), a.dest_qp_num, want);
	}
	printf("verified %d/%d QPs in RTS with their dest QPN\n", verified, n);

	t0 = now_us();
	for (int i = 0; i < n; i++) {
		int e = ibv_destroy_qp(qps[i]);

		if (e)
			verb_failed("ibv_destroy_qp", i, e);
	}
	phase("destroy_qp", n, t0, now_us());

	t0 = now_us();
	for (int i = 0; i < n; i++) {
		mrs[i] = ibv_reg_mr(pd, buf + mr_len * i, mr_len,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ);
		if (!mrs[i])
			verb_failed("ibv_reg_mr", i, errno);
	}
	phase("reg_mr", n, t0, now_us());

	t0 = now_us();
	for (int i = 0; i < n; i++) {
		int e = ibv_dereg_mr(mrs[i]);

		if (e)
			verb_failed("ibv_dereg_mr", i, e);
	}
	phase("dereg_mr", n, t0, now_us());

	if (ibv_destroy_cq(cq) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("releasing the CQ, PD or device");
	munmap(buf, mr_len * n);
	free(qps);
	free(mrs);
	printf("qp_rate: %s\n", verified == n ? "ok" : "FAILED");
	return verified == n ? 0 : 1;
}
