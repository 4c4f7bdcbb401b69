// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Host tests of providers/scenic/ring.c, the code the library runs: WQE
 * building from ibv_send_wr/ibv_recv_wr, queue-full and argument errors,
 * counter-to-WC conversion, CQE phase handling and CQE-to-WC conversion.
 * TAP on stdout.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scenic_admin.h>

#include "ring.h"

#define SQ_CNT 8
#define RQ_CNT 4
#define CQ_LOG2 2

static int n_test, n_fail;

static void check(int cond, const char *name)
{
	n_test++;
	if (!cond)
		n_fail++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", n_test, name);
}

static uint8_t sq_buf[SQ_CNT * SCENIC_SQ_WQE_BYTES];
static struct scenic_swqe swqe[SQ_CNT];
static uint8_t rq_buf[RQ_CNT * SCENIC_RQ_WQE_MAX_BYTES];
static uint64_t rq_wr_id[RQ_CNT];
static struct scenic_cqe cq_buf[1 << CQ_LOG2];

static struct scenic_sq new_sq(bool sig_all)
{
	struct scenic_sq sq = {
		.buf = sq_buf, .swqe = swqe, .wqe_cnt = SQ_CNT,
		.max_sge = 4, .max_inline = 64, .sig_all = sig_all,
	};

	memset(sq_buf, 0xa5, sizeof(sq_buf));	/* stale bytes must not leak */
	return sq;
}

static struct ibv_send_wr wr_of(enum ibv_wr_opcode op, uint64_t wr_id,
				struct ibv_sge *sg, int n, unsigned int flags)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = sg, .num_sge = n, .opcode = op,
		.send_flags = flags,
	};
	return wr;
}

static void test_send_wqe(void)
{
	struct ibv_sge sg[2] = { { 0x1000, 100, 0x111 }, { 0x2000, 28, 0x222 } };
	struct scenic_sq sq = new_sq(false);
	struct ibv_send_wr wr = wr_of(IBV_WR_SEND_WITH_IMM, 7, sg, 2,
				      IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
				      IBV_SEND_FENCE);
	struct scenic_sq_wqe *w = scenic_sq_slot(&sq, 0);
	uint8_t zero[24] = {};

	wr.imm_data = htobe32(0xdeadbeef);
	check(scenic_sq_post_wr(&sq, &wr) == 0 && sq.pi == 1, "SEND_IMM posts");
	check(w->opcode == SCENIC_WQE_OP_SEND_IMM, "SEND_IMM opcode");
	check(w->flags == (SCENIC_WQE_F_SIGNALED | SCENIC_WQE_F_SOLICITED |
			   SCENIC_WQE_F_FENCE), "flags: signaled, solicited, fence");
	check(w->imm_data_be == htobe32(0xdeadbeef), "immediate in wire order");
	check(le16toh(w->num_sge) == 2 && le32toh(w->length) == 128,
	      "num_sge 2, length is the sum");
	check(le64toh(w->sge[1].addr) == 0x2000 && le32toh(w->sge[1].length) == 28 &&
	      le32toh(w->sge[1].lkey) == 0x222, "SGE 1 copied little-endian");
	check(!memcmp(w->reserved, zero, sizeof(zero)) && w->rkey == 0 &&
	      w->remote_addr == 0, "reserved and unused header fields zero");
}

static void test_rdma_atomic_wqe(void)
{
	struct ibv_sge sg = { 0x3000, 8, 0x333 };
	struct scenic_sq sq = new_sq(false);
	struct ibv_send_wr wr = wr_of(IBV_WR_RDMA_WRITE_WITH_IMM, 1, &sg, 1, 0);
	struct scenic_sq_wqe *w;

	wr.wr.rdma.rkey = 0x4455;
	wr.wr.rdma.remote_addr = 0x123456789ull;
	scenic_sq_post_wr(&sq, &wr);
	w = scenic_sq_slot(&sq, 0);
	check(w->opcode == SCENIC_WQE_OP_WRITE_IMM && le32toh(w->rkey) == 0x4455 &&
	      le64toh(w->remote_addr) == 0x123456789ull,
	      "WRITE_IMM carries rkey and remote address");
	check(w->flags == 0 && !swqe[0].signaled, "unsignaled WR: no signaled flag");

	wr = wr_of(IBV_WR_ATOMIC_CMP_AND_SWP, 2, &sg, 1, IBV_SEND_SIGNALED);
	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 9;
	wr.wr.atomic.rkey = 0x66;
	check(scenic_sq_post_wr(&sq, &wr) == 0, "CAS posts");
	w = scenic_sq_slot(&sq, 1);
	check(w->opcode == SCENIC_WQE_OP_ATOMIC_CAS && le64toh(w->compare_add) == 5 &&
	      le64toh(w->swap) == 9 && le32toh(w->rkey) == 0x66 &&
	      le64toh(w->remote_addr) == 0x8000, "CAS compare, swap, rkey, address");
	check(swqe[1].byte_len == 8 && swqe[1].wc_opcode == IBV_WC_COMP_SWAP,
	      "CAS completes as COMP_SWAP with byte_len 8");

	sg.length = 4;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	check(scenic_sq_post_wr(&sq, &wr) == EINVAL && sq.pi == 2,
	      "atomic with a 4-byte SGE: EINVAL, nothing posted");
}

static void test_inline(void)
{
	char data[80];
	struct ibv_sge sg[2] = { { (uintptr_t)data, 10, 0 },
				 { (uintptr_t)(data + 10), 20, 0 } };
	struct scenic_sq sq = new_sq(false);
	struct ibv_send_wr wr = wr_of(IBV_WR_SEND, 3, sg, 2, IBV_SEND_INLINE);
	struct scenic_sq_wqe *w = scenic_sq_slot(&sq, 0);
	int i;

	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = i;
	check(scenic_sq_post_wr(&sq, &wr) == 0, "inline SEND posts");
	check((w->flags & SCENIC_WQE_F_INLINE) && w->num_sge == 0 &&
	      le32toh(w->length) == 30 && !memcmp(w->inline_data, data, 30),
	      "inline: payload copied after the header, num_sge 0");
	sg[1].length = 60;	/* 70 > max_inline 64 */
	check(scenic_sq_post_wr(&sq, &wr) == EINVAL && sq.pi == 1,
	      "inline above max_inline: EINVAL");
	sg[1].length = 20;
	wr.opcode = IBV_WR_RDMA_READ;
	check(scenic_sq_post_wr(&sq, &wr) == EINVAL, "inline READ: EINVAL");
}

static void test_errors_and_full(void)
{
	struct ibv_sge sg[5] = {};
	struct scenic_sq sq = new_sq(false);
	struct ibv_send_wr wr = wr_of(IBV_WR_SEND, 0, sg, 5, 0);
	int i, err = 0;

	check(scenic_sq_post_wr(&sq, &wr) == EINVAL, "5 SGEs on a 4-SGE QP: EINVAL");
	wr = wr_of(IBV_WR_TSO, 0, sg, 1, 0);
	check(scenic_sq_post_wr(&sq, &wr) == EINVAL, "unsupported opcode: EINVAL");
	wr = wr_of(IBV_WR_RDMA_READ, 0, sg, 1, 0);
	for (i = 0; i < SQ_CNT && !err; i++)
		err = scenic_sq_post_wr(&sq, &wr);
	check(!err && sq.pi == SQ_CNT, "ring takes wqe_cnt WQEs");
	check(scenic_sq_post_wr(&sq, &wr) == ENOMEM && sq.pi == SQ_CNT,
	      "one more: ENOMEM");
}

static void test_retire(void)
{
	struct ibv_sge sg = { 0x1000, 64, 1 };
	struct scenic_sq sq = new_sq(false);
	struct ibv_wc wc[8];
	int i, n;

	/* wr_id i, signaled when even; READs so that byte_len is reported */
	for (i = 0; i < 6; i++) {
		struct ibv_send_wr wr = wr_of(i % 2 ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
					      i, &sg, 1, i % 2 ? 0 : IBV_SEND_SIGNALED);
		scenic_sq_post_wr(&sq, &wr);
	}
	n = scenic_sq_retire(&sq, 4, 77, wc, 8);
	check(n == 2 && wc[0].wr_id == 0 && wc[1].wr_id == 2 && sq.ci == 4,
	      "counter 4: WCs for signaled 0 and 2, unsignaled skipped");
	check(wc[0].opcode == IBV_WC_RDMA_READ && wc[0].byte_len == 64 &&
	      wc[0].status == IBV_WC_SUCCESS && wc[0].qp_num == 77,
	      "READ WC: opcode, byte_len, status, qp_num");
	check(scenic_sq_retire(&sq, 3, 77, wc, 8) == 0 && sq.ci == 4,
	      "counter behind ci (after an error CQE): nothing");
	check(scenic_sq_retire(&sq, 9, 77, wc, 8) == 0 && sq.ci == 4,
	      "counter beyond pi: nothing");
	n = scenic_sq_retire(&sq, 6, 77, wc, 1);
	check(n == 1 && wc[0].wr_id == 4 && sq.ci == 6,
	      "trailing unsignaled WQE retired without a WC slot");

	sq = new_sq(true);
	for (i = 0; i < 3; i++) {
		struct ibv_send_wr wr = wr_of(IBV_WR_SEND, 10 + i, &sg, 1, 0);
		scenic_sq_post_wr(&sq, &wr);
	}
	n = scenic_sq_retire(&sq, 3, 1, wc, 2);
	check(n == 2 && sq.ci == 2 && wc[1].wr_id == 11,
	      "sq_sig_all: every WQE reported; stops at nwc");
	n = scenic_sq_retire(&sq, 3, 1, wc, 2);
	check(n == 1 && wc[0].wr_id == 12 && wc[0].opcode == IBV_WC_SEND,
	      "next poll continues where the last stopped");
	check(scenic_sq_idx_pending(&sq, 2) == false && scenic_sq_free(&sq) == SQ_CNT,
	      "retired WQEs free their slots");
}

static void test_cq_phase(void)
{
	struct scenic_cq_ring r = { .cqe = cq_buf, .log2_cnt = CQ_LOG2 };
	int i;

	memset(cq_buf, 0, sizeof(cq_buf));
	check(scenic_cq_peek(&r) == NULL, "zeroed ring: no CQE (first pass wants owner 1)");
	for (i = 0; i < 4; i++)
		cq_buf[i].flags = SCENIC_CQE_F_OWNER;
	for (i = 0; i < 4 && scenic_cq_peek(&r); i++)
		r.ci++;
	check(i == 4, "first pass: 4 CQEs with owner 1");
	check(scenic_cq_peek(&r) == NULL, "second pass: stale owner-1 CQE not taken");
	cq_buf[0].flags = 0;
	check(scenic_cq_peek(&r) == &cq_buf[0], "second pass: owner 0 is new");
	r.ci = 8;
	cq_buf[0].flags = SCENIC_CQE_F_OWNER;
	check(scenic_cq_peek(&r) == &cq_buf[0], "third pass: owner 1 again");
}

static void test_cqe_to_wc(void)
{
	struct scenic_cqe cqe = {
		.wqe_idx = htole32(3), .qpn = htole32(12), .byte_len = htole32(4096),
		.imm_data_be = htobe32(0x1234), .src_qp = htole32(99),
		.status = SCENIC_CQE_STATUS_SUCCESS, .opcode = SCENIC_CQE_OP_RECV_WRITE_IMM,
		.flags = SCENIC_CQE_F_OWNER | SCENIC_CQE_F_IMM,
	};
	struct scenic_swqe s = { .wr_id = 5, .byte_len = 8, .wc_opcode = IBV_WC_FETCH_ADD };
	struct ibv_wc wc;

	scenic_cqe_to_recv_wc(&cqe, 42, &wc);
	check(wc.wr_id == 42 && wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      wc.byte_len == 4096 && wc.qp_num == 12 && wc.src_qp == 99 &&
	      (wc.wc_flags & IBV_WC_WITH_IMM) && wc.imm_data == htobe32(0x1234),
	      "RQ CQE: WRITE_IMM receive with immediate, length, QPNs");
	cqe.opcode = SCENIC_CQE_OP_RECV;
	cqe.flags = SCENIC_CQE_F_OWNER;
	scenic_cqe_to_recv_wc(&cqe, 43, &wc);
	check(wc.opcode == IBV_WC_RECV && !(wc.wc_flags & IBV_WC_WITH_IMM),
	      "RQ CQE: plain receive has no immediate");
	cqe.flags = SCENIC_CQE_F_OWNER | SCENIC_CQE_F_SQ;
	/* the card's code (7), not the ibv value (10) */
	cqe.status = SCENIC_CQE_STATUS_REM_ACCESS;
	cqe.vendor_err = htole32(6);
	scenic_cqe_to_send_wc(&cqe, &s, &wc);
	check(wc.wr_id == 5 && wc.status == IBV_WC_REM_ACCESS_ERR &&
	      wc.opcode == IBV_WC_FETCH_ADD && wc.vendor_err == 6 && wc.qp_num == 12,
	      "SQ error CQE: status, vendor_err, the WQE's wr_id and opcode");
	cqe.status = SCENIC_CQE_STATUS_FLUSHED;
	scenic_cqe_to_recv_wc(&cqe, 44, &wc);
	check(wc.status == IBV_WC_WR_FLUSH_ERR,
	      "RQ CQE: the card's FLUSHED is IBV_WC_WR_FLUSH_ERR");
	cqe.status = 0x7f;
	scenic_cqe_to_recv_wc(&cqe, 45, &wc);
	check(wc.status == IBV_WC_GENERAL_ERR,
	      "RQ CQE: an unknown card status is IBV_WC_GENERAL_ERR");
}

static void test_rq(void)
{
	struct ibv_sge sg[4] = { { 0x10, 1, 2 }, { 0x20, 3, 4 } };
	struct scenic_rq rq = { .buf = rq_buf, .wr_id = rq_wr_id, .wqe_cnt = RQ_CNT,
				.max_sge = 3 };
	struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = sg, .num_sge = 2 };
	struct scenic_rq_wqe *w = (struct scenic_rq_wqe *)rq_buf;
	int i, err = 0;

	memset(rq_buf, 0xa5, sizeof(rq_buf));
	check(scenic_rq_post_wr(&rq, &wr) == 0 && le16toh(w->num_sge) == 2 &&
	      le64toh(w->sge[1].addr) == 0x20 && le32toh(w->sge[1].lkey) == 4 &&
	      w->reserved[0] == 0 && rq_wr_id[0] == 9, "RQ WQE built, wr_id kept");
	wr.num_sge = 4;
	check(scenic_rq_post_wr(&rq, &wr) == EINVAL, "RQ: too many SGEs: EINVAL");
	wr.num_sge = 1;
	for (i = 1; i < RQ_CNT && !err; i++)
		err = scenic_rq_post_wr(&rq, &wr);
	check(!err && scenic_rq_post_wr(&rq, &wr) == ENOMEM && rq.pi == RQ_CNT,
	      "RQ full: ENOMEM");
}

/* The 512-byte SQ slot holds 28 SGEs or 448 inline bytes, and nothing beyond them is written */
static void test_sq_limits(void)
{
	static char data[SCENIC_MAX_INLINE + 1];
	struct ibv_sge sg[SCENIC_SQ_MAX_SGE + 1];
	struct scenic_sq sq = new_sq(false);
	struct ibv_send_wr wr = wr_of(IBV_WR_SEND, 4, sg, SCENIC_SQ_MAX_SGE, 0);
	struct scenic_sq_wqe *w = scenic_sq_slot(&sq, 0);
	bool ok = true;
	int i;

	sq.max_sge = SCENIC_SQ_MAX_SGE + 1;	/* the slot, not the QP, is the limit here */
	sq.max_inline = SCENIC_MAX_INLINE;
	for (i = 0; i <= SCENIC_SQ_MAX_SGE; i++)
		sg[i] = (struct ibv_sge){ 0x2001 + i * 5, i + 3, 0x200 | i };
	check(scenic_sq_post_wr(&sq, &wr) == 0, "SQ: 28 SGEs posted");
	for (i = 0; i < SCENIC_SQ_MAX_SGE; i++)
		ok = ok && le64toh(w->sge[i].addr) == 0x2001u + i * 5 &&
		     le32toh(w->sge[i].length) == (uint32_t)i + 3;
	check(ok && le16toh(w->num_sge) == SCENIC_SQ_MAX_SGE &&
	      le32toh(w->length) == 28 * 3 + 27 * 28 / 2 &&
	      sq_buf[SCENIC_SQ_WQE_BYTES] == (uint8_t)0xa5,
	      "SQ: 28 SGEs fill the slot exactly, the next slot untouched");
	wr.num_sge = SCENIC_SQ_MAX_SGE + 1;
	check(scenic_sq_post_wr(&sq, &wr) == EINVAL, "SQ: 29 SGEs: EINVAL");
	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = (char)(i * 13);
	sg[0] = (struct ibv_sge){ (uintptr_t)data, 1, 0 };
	sg[1] = (struct ibv_sge){ (uintptr_t)(data + 1), SCENIC_MAX_INLINE - 1, 0 };
	wr = wr_of(IBV_WR_SEND, 5, sg, 2, IBV_SEND_INLINE);
	w = scenic_sq_slot(&sq, sq.pi);
	check(scenic_sq_post_wr(&sq, &wr) == 0 && le32toh(w->length) == SCENIC_MAX_INLINE &&
	      !memcmp(w->inline_data, data, SCENIC_MAX_INLINE),
	      "SQ: 448 inline bytes posted");
	sg[1].length = SCENIC_MAX_INLINE;
	check(scenic_sq_post_wr(&sq, &wr) == EINVAL, "SQ: 449 inline bytes: EINVAL");
}

/* 512-byte slots: 31 SGEs, the second WQE at byte 512, nothing written beyond the SGEs used */
static void test_rq_stride(void)
{
	struct ibv_sge sg[SCENIC_RQ_MAX_SGE + 1];
	struct scenic_rq rq = { .buf = rq_buf, .wr_id = rq_wr_id, .wqe_cnt = RQ_CNT,
				.max_sge = SCENIC_RQ_MAX_SGE + 1,
				.stride = SCENIC_RQ_MAX_STRIDE };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = sg, .num_sge = SCENIC_RQ_MAX_SGE };
	struct scenic_rq_wqe *w0 = (struct scenic_rq_wqe *)rq_buf;
	struct scenic_rq_wqe *w1 = (struct scenic_rq_wqe *)(rq_buf + SCENIC_RQ_WQE_MAX_BYTES);
	bool ok = true;
	int i;

	check(scenic_rq_stride_for(0) == 0 && scenic_rq_stride_for(3) == 0 &&
	      scenic_rq_stride_for(4) == 1 && scenic_rq_stride_for(16) == 3 &&
	      scenic_rq_stride_for(31) == 3 && scenic_rq_stride_for(32) == -1,
	      "RQ stride: the smallest slot for 0, 3, 4, 16, 31 SGEs; none for 32");
	for (i = 0; i <= SCENIC_RQ_MAX_SGE; i++)
		sg[i] = (struct ibv_sge){ 0x1000 + i * 3, i + 1, 0x100 | i };
	memset(rq_buf, 0xa5, sizeof(rq_buf));
	check(scenic_rq_post_wr(&rq, &wr) == 0, "RQ stride 3: 31 SGEs posted");
	for (i = 0; i < SCENIC_RQ_MAX_SGE; i++)
		ok = ok && le64toh(w0->sge[i].addr) == 0x1000u + i * 3 &&
		     le32toh(w0->sge[i].length) == (uint32_t)i + 1 &&
		     le32toh(w0->sge[i].lkey) == (0x100u | i);
	check(ok && le16toh(w0->num_sge) == SCENIC_RQ_MAX_SGE && w0->reserved[13] == 0,
	      "RQ stride 3: every SGE in place");
	wr.num_sge = 2;
	check(scenic_rq_post_wr(&rq, &wr) == 0 && le16toh(w1->num_sge) == 2 &&
	      le64toh(w1->sge[1].addr) == 0x1003 && w1->sge[2].addr == 0xa5a5a5a5a5a5a5a5ull,
	      "RQ stride 3: the next WQE one 512-byte slot further, only its SGEs written");
	wr.num_sge = SCENIC_RQ_MAX_SGE + 1;
	check(scenic_rq_post_wr(&rq, &wr) == EINVAL, "RQ stride 3: 32 SGEs: EINVAL");
	rq.stride = 1;
	wr.num_sge = 8;
	check(scenic_rq_post_wr(&rq, &wr) == EINVAL,
	      "RQ stride 1: 8 SGEs do not fit its 128-byte slot: EINVAL");
}

/* Memory windows: SEND_INV, LOCAL_INV and BIND_MW WQEs, and the receive of a SEND_INV */
static void test_mw_wqes(void)
{
	struct ibv_sge sg = { 0x1000, 64, 1 };
	struct scenic_sq sq = new_sq(false);
	struct ibv_send_wr wr = wr_of(IBV_WR_SEND_WITH_INV, 1, &sg, 1, IBV_SEND_SIGNALED);
	struct ibv_mr mr = { .lkey = 0x1234 };
	struct ibv_mw mw = { .rkey = 0x80000311, .type = IBV_MW_TYPE_2 };
	const struct scenic_bind_mw_wqe *b;
	struct scenic_sq_wqe *w;
	struct scenic_cqe cqe = { 0 };
	struct ibv_wc wc;

	wr.invalidate_rkey = 0x80000310;
	w = scenic_sq_slot(&sq, 0);
	check(!scenic_sq_post_wr(&sq, &wr) && w->opcode == SCENIC_WQE_OP_SEND_INV &&
	      le32toh(w->rkey) == 0x80000310 && le32toh(w->length) == 64 &&
	      sq.swqe[0].wc_opcode == IBV_WC_SEND, "SEND_WITH_INV: opcode, rkey, data, WC opcode");
	wr = wr_of(IBV_WR_LOCAL_INV, 2, NULL, 0, IBV_SEND_SIGNALED);
	wr.invalidate_rkey = 0x80000311;
	w = scenic_sq_slot(&sq, 1);
	check(!scenic_sq_post_wr(&sq, &wr) && w->opcode == SCENIC_WQE_OP_LOCAL_INV &&
	      le32toh(w->rkey) == 0x80000311 && w->length == 0 &&
	      sq.swqe[1].wc_opcode == IBV_WC_LOCAL_INV, "LOCAL_INV: opcode, rkey, no data");
	wr = wr_of(IBV_WR_BIND_MW, 3, NULL, 0, IBV_SEND_SIGNALED);
	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0x80000312;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x7000;
	wr.bind_mw.bind_info.length = 0x2000;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE;
	b = (const struct scenic_bind_mw_wqe *)scenic_sq_slot(&sq, 2);
	check(!scenic_sq_post_wr(&sq, &wr) && b->opcode == SCENIC_WQE_OP_BIND_MW &&
	      le32toh(b->new_rkey) == 0x80000312 && le64toh(b->va) == 0x7000 &&
	      le64toh(b->length) == 0x2000 && le32toh(b->mr_lkey) == 0x1234 &&
	      b->access == SCENIC_ACCESS_REMOTE_READ && b->mw_type == 2 &&
	      sq.swqe[2].wc_opcode == IBV_WC_BIND_MW,
	      "BIND_MW: the bind WQE's fields (LOCAL_WRITE dropped), WC opcode");
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_ZERO_BASED;
	check(scenic_sq_post_wr(&sq, &wr) == EOPNOTSUPP && sq.pi == 3,
	      "BIND_MW zero-based: EOPNOTSUPP, nothing posted");
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_MW_BIND;
	check(scenic_sq_post_wr(&sq, &wr) == EINVAL && sq.pi == 3,
	      "BIND_MW with a non-window right: EINVAL");

	cqe.opcode = SCENIC_CQE_OP_RECV;
	cqe.flags = SCENIC_CQE_F_OWNER | SCENIC_CQE_F_INV;
	cqe.imm_data_be = htobe32(0x80000312);
	scenic_cqe_to_recv_wc(&cqe, 9, &wc);
	check((wc.wc_flags & IBV_WC_WITH_INV) && !(wc.wc_flags & IBV_WC_WITH_IMM) &&
	      wc.invalidated_rkey == 0x80000312, "RQ CQE with F_INV: IBV_WC_WITH_INV and the key");
}

int main(void)
{
	test_mw_wqes();
	test_send_wqe();
	test_rdma_atomic_wqe();
	test_inline();
	test_errors_and_full();
	test_retire();
	test_cq_phase();
	test_cqe_to_wc();
	test_rq();
	test_rq_stride();
	test_sq_limits();
	check(scenic_roundup_pow2(1) == 1 && scenic_roundup_pow2(5) == 8 &&
	      scenic_roundup_pow2(0x80000001u) == 0, "power-of-two rounding");
	printf("1..%d\n", n_test);
	return n_fail != 0;
}
