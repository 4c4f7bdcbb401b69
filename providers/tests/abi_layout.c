// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compile-time checks of <rdma/scenic-abi.h> and scenic_io_defs.h: every struct a multiple of
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

_Static_assert(offsetof(struct scenic_ibv_create_cq_resp, q_mmap_key) % 8 == 0,
	       "cq q_mmap_key");
_Static_assert(offsetof(struct scenic_ibv_create_qp_resp, sq_mmap_key) % 8 == 0,
	       "qp sq_mmap_key");
_Static_assert(offsetof(struct scenic_ibv_create_qp_resp, cnt_mmap_key) % 8 == 0,
	       "qp cnt_mmap_key");

_Static_assert(sizeof(struct scenic_io_cqe) == SCENIC_CQE_SIZE, "CQE size");
_Static_assert(sizeof(struct scenic_io_qp_counter) == 8, "counter (scenic_cq_counter writes 8 bytes)");

int main(void)
{
	return 0;
}
