// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Compile-time checks of <rdma/scenic-abi.h> and uapi/scenic_rdma.h: every struct a multiple of
 * 8 bytes, comp_mask first, 64-bit fields 8-byte aligned (with -Wpadded the
 * build also fails on implicit padding).
 */
#include <stddef.h>
#include <rdma/scenic-abi.h>
#include "scenic_io_defs.h"

#define ABI_STRUCT(s)                                                          \
	_Static_assert(sizeof(struct s) % 8 == 0, #s " size");                 \
	_Static_assert(offsetof(struct s, comp_mask) == 0, #s " comp_mask")

ABI_STRUCT(scenic_ibv_alloc_ucontext_cmd);
ABI_STRUCT(scenic_ibv_alloc_ucontext_resp);
ABI_STRUCT(scenic_ibv_ex_query_device_resp);
ABI_STRUCT(scenic_ibv_create_cq);
ABI_STRUCT(scenic_ibv_create_cq_resp);
ABI_STRUCT(scenic_ibv_create_qp);
ABI_STRUCT(scenic_ibv_create_qp_resp);
ABI_STRUCT(scenic_ibv_create_srq);
ABI_STRUCT(scenic_ibv_create_srq_resp);
_Static_assert(offsetof(struct scenic_ibv_create_srq_resp, ring_mmap_key) % 8 == 0 &&
	       offsetof(struct scenic_ibv_create_srq_resp, db_mmap_key) % 8 == 0,
	       "srq mmap keys");

_Static_assert(offsetof(struct scenic_ibv_create_cq_resp, q_mmap_key) % 8 == 0,
	       "cq q_mmap_key");
_Static_assert(offsetof(struct scenic_ibv_create_qp_resp, sq_mmap_key) % 8 == 0,
	       "qp sq_mmap_key");
_Static_assert(offsetof(struct scenic_ibv_create_qp_resp, cnt_mmap_key) % 8 == 0,
	       "qp cnt_mmap_key");
/* the doorbell-record keys grew the responses at their ends (old providers stop before) */
_Static_assert(offsetof(struct scenic_ibv_create_cq_resp, dbrec_mmap_key) == 40,
	       "cq dbrec_mmap_key");
_Static_assert(offsetof(struct scenic_ibv_create_qp_resp, dbrec_mmap_key) == 72,
	       "qp dbrec_mmap_key");

_Static_assert(sizeof(struct scenic_cqe) == SCENIC_CQE_SIZE, "CQE size (ABI vs data path)");
_Static_assert(sizeof(struct scenic_cqe) == SCENIC_CQE_BYTES, "CQE size");
_Static_assert(sizeof(struct scenic_sq_wqe) == SCENIC_SQ_WQE_BYTES, "SQ WQE size");
_Static_assert(offsetof(struct scenic_sq_wqe, sge) == 64, "SQ WQE header");
_Static_assert(offsetof(struct scenic_ibv_create_qp, rq_wqe_size) == 20 &&
	       sizeof(struct scenic_ibv_create_qp) == 24, "create_qp rq_wqe_size (was reserved_a0)");
_Static_assert(sizeof(struct scenic_rq_wqe) == SCENIC_RQ_WQE_MAX_BYTES, "RQ WQE, largest stride");
_Static_assert(offsetof(struct scenic_rq_wqe, sge) == SCENIC_RQ_WQE_HDR_BYTES, "RQ WQE header");
_Static_assert(SCENIC_RQ_STRIDE_SGES(0) == SCENIC_RQ_MAX_SGE_V0 && SCENIC_RQ_STRIDE_SGES(1) == 7 &&
	       SCENIC_RQ_STRIDE_SGES(2) == 15 &&
	       SCENIC_RQ_STRIDE_SGES(SCENIC_RQ_MAX_STRIDE) == SCENIC_RQ_MAX_SGE,
	       "RQ strides: 3, 7, 15, 31 SGEs");
_Static_assert(64 + SCENIC_SQ_MAX_SGE * 16 == SCENIC_SQ_WQE_BYTES &&
	       64 + SCENIC_MAX_INLINE == SCENIC_SQ_WQE_BYTES, "SQ: 28 SGEs or 448 inline bytes");
_Static_assert(offsetof(struct scenic_qp_status, sq_completed) == 0, "status page counter");
_Static_assert(offsetof(struct scenic_qp_status, db_skip) == 12, "status page db_skip");
_Static_assert(sizeof(struct scenic_qp_status) == 64, "status page header");
_Static_assert(sizeof(struct scenic_qp_dbrec) == 8 && sizeof(struct scenic_cq_dbrec) == 8,
	       "doorbell records");
_Static_assert(offsetof(struct scenic_cqe, flags) == 22, "CQE flags byte");

int main(void)
{
	return 0;
}
