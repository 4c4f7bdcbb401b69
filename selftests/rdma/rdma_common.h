/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the RDMA guest test programs (rdma_verify.c, rdma_conform.c,
 * roce_raw.c, rdma_hostile.c, ...): TAP output through the kernel's kselftest.h
 * (selftests/ksft/fetch-framework; its folder is on the include path), the byte
 * pattern and hash that check data end to end, the TCP control connection
 * between the two nodes, and opening a device with its RoCE v2 IPv4 GID. Plain
 * libibverbs, no provider-specific code.
 *
 * The including program sets rc_prog (its name, for error messages) first.
 */
#ifndef SCENIC_SELFTESTS_RDMA_COMMON_H
#define SCENIC_SELFTESTS_RDMA_COMMON_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "kselftest.h"

#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

static const char *rc_prog = "rdma";

/*
 * One result, "ok N name" or "not ok N name", through ksft_test_result(): the
 * name is formatted here (kselftest.h's functions take no va_list) and the
 * line flushed at once, since a peer or a script may be reading the output.
 */
static inline void tap(bool ok, const char *fmt, ...) __printf(2, 3);
static inline void tap(bool ok, const char *fmt, ...)
{
	char name[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	ksft_test_result(ok, "%s\n", name);
	fflush(stdout);
}

/* A check that cannot run here: "ok N # SKIP name: why" (kselftest.h). */
static inline void tap_skip(const char *fmt, ...) __printf(1, 2);
static inline void tap_skip(const char *fmt, ...)
{
	char name[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	ksft_test_result_skip("%s\n", name);
	fflush(stdout);
}

/*
 * The end of a program's TAP: the plan (the checks it ran) and kselftest's
 * totals; exit 0 when none failed, 1 otherwise (ksft_finished()).
 */
static inline void tap_finish(void)
{
	ksft_set_plan(ksft_test_num());
	fflush(stdout);
	ksft_finished();
}

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", rc_prog, what, strerror(errno));
	exit(2);
}

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The byte at absolute offset @off of the pattern @seed. */
static inline uint8_t pat(uint64_t seed, uint64_t off)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ull + off;

	z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ull;
	return (uint8_t)(z ^ (z >> 32));
}

static inline void fill(uint8_t *p, uint64_t off, uint64_t len, uint64_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = pat(seed, off + i);
}

static inline uint64_t fnv(const uint8_t *p, uint64_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint64_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* ---- TCP control channel ---- */

/* Send or receive exactly @len bytes; a lost connection ends the program. */
static inline void xfer(int fd, void *p, size_t len, bool send_it)
{
	uint8_t *b = p;

	while (len) {
		ssize_t n = send_it ? send(fd, b, len, MSG_NOSIGNAL) : recv(fd, b, len, 0);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			fprintf(stderr, "%s: control connection lost\n", rc_prog);
			exit(2);
		}
		b += n;
		len -= n;
	}
}

/* The server accepts one connection on @port; the client retries for 10 s. */
static inline int tcp_connect(const char *host, int port, bool server)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (server) {
		int c;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		if (bind(fd, (void *)&sa, sizeof(sa)) || listen(fd, 1))
			die("bind/listen");
		c = accept(fd, NULL, NULL);
		if (c < 0)
			die("accept");
		close(fd);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		return c;
	}
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "%s: %s is not an IPv4 address\n", rc_prog, host);
		exit(2);
	}
	for (int tries = 0; connect(fd, (void *)&sa, sizeof(sa)); tries++) {
		if (tries == 100)
			die("connect");
		usleep(100000);
	}
	return fd;
}

/* ---- verbs set-up ---- */

/* Open @devname (NULL: the first device). */
static inline struct ibv_context *open_device(const char *devname)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;
	struct ibv_device *d = NULL;

	if (!list)
		die("ibv_get_device_list");
	for (int i = 0; list[i]; i++)
		if (!devname || !strcmp(ibv_get_device_name(list[i]), devname)) {
			d = list[i];
			break;
		}
	if (!d) {
		fprintf(stderr, "%s: no RDMA device %s\n", rc_prog, devname ? devname : "");
		exit(2);
	}
	ctx = ibv_open_device(d);
	if (!ctx)
		die("ibv_open_device");
	ibv_free_device_list(list);
	return ctx;
}

/* The index of port 1's RoCE v2 IPv4 GID (into @gid) and the port's active MTU. */
static inline int find_roce4_gid(struct ibv_context *dev, union ibv_gid *gid, enum ibv_mtu *mtu)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(dev, 1, &pa))
		die("ibv_query_port");
	*mtu = pa.active_mtu;
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(dev, 1, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
			*gid = e.gid;
			return i;
		}
	}
	fprintf(stderr, "%s: no RoCE v2 IPv4 GID on port 1\n", rc_prog);
	exit(2);
}

/* The QP's state (enum ibv_qp_state), or -errno. */
/*
 * INIT -> RTR -> RTS of an RC QP towards (dgid, dest_qpn), with the test
 * programs' usual timers: 0.6 ms RNR, 67 ms ACK timeout, 7 retries.
 */
static inline void rc_connect(struct ibv_qp *qp, int gid_idx, enum ibv_mtu mtu,
			      const uint8_t dgid[16], uint32_t dest_qpn,
			      uint32_t rq_psn, uint32_t sq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = mtu, .dest_qp_num = dest_qpn,
		.rq_psn = rq_psn, .max_dest_rd_atomic = 4, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .sgid_index = (uint8_t)gid_idx, .hop_limit = 64 } },
	};

	memcpy(a.ah_attr.grh.dgid.raw, dgid, 16);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		die("modify_qp RTR");
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify_qp RTS");
}

static inline int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -errno;
	return a.qp_state;
}

static inline const char *state_str(int st)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return st >= 0 && st <= 6 ? n[st] : "?";
}

/* One completion of @cq within @ms milliseconds, or a zeroed one with status -1. */
static inline struct ibv_wc poll_wc(struct ibv_cq *cq, uint64_t ms)
{
	uint64_t end = now_ms() + ms;
	struct ibv_wc wc;

	while (now_ms() < end) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0)
			break;
		if (n == 1)
			return wc;
		usleep(100);
	}
	memset(&wc, 0, sizeof(wc));
	wc.status = (enum ibv_wc_status)-1;
	return wc;
}

/* Writes 1 or 0 (@on) to a debugfs flag file and reads it back: 0 if it took, else -1. */
static inline int flag_file_set(const char *path, int on)
{
	char b[8] = "";
	int fd = open(path, O_RDWR);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, on ? "1\n" : "0\n", 2);
	close(fd);
	if (n != 2)
		return -1;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	return n > 0 && atoi(b) == on ? 0 : -1;
}

#endif
