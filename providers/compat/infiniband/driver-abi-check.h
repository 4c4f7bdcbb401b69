/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Layout of rdma-core 44.0's private structs on LP64, as printed by a program
 * compiled against rdma-core 44.0's own libibverbs/driver.h and kern-abi.h
 * (and, for verbs_context_ops, as read by verbs_set_ops() in Debian 12's
 * libibverbs.so.1: 76 slots, the last at 0x258). If one of these fails, this
 * compat header no longer describes IBVERBS_PRIVATE_34: do not adjust the
 * numbers, fix the struct.
 */
#ifndef SCENIC_COMPAT_DRIVER_ABI_CHECK_H
#define SCENIC_COMPAT_DRIVER_ABI_CHECK_H

#include <assert.h>
#include <stddef.h>

#if defined(__LP64__)
#define SCENIC_ABI_SIZE(t, n) static_assert(sizeof(struct t) == (n), "sizeof(struct " #t ") != " #n)
#define SCENIC_ABI_OFF(t, f, n) static_assert(offsetof(struct t, f) == (n), "offsetof(" #t ", " #f ") != " #n)
SCENIC_ABI_SIZE(verbs_mr, 56);
SCENIC_ABI_OFF(verbs_mr, mr_type, 48);
SCENIC_ABI_OFF(verbs_mr, access, 52);
SCENIC_ABI_SIZE(verbs_qp, 368);
SCENIC_ABI_OFF(verbs_qp, comp_mask, 352);
SCENIC_ABI_OFF(verbs_qp, xrcd, 360);
SCENIC_ABI_SIZE(verbs_cq, 288);
SCENIC_ABI_SIZE(verbs_match_ent, 24);
SCENIC_ABI_OFF(verbs_match_ent, u, 8);
SCENIC_ABI_OFF(verbs_match_ent, vendor, 16);
SCENIC_ABI_OFF(verbs_match_ent, device, 18);
SCENIC_ABI_OFF(verbs_match_ent, kind, 20);
SCENIC_ABI_SIZE(verbs_device_ops, 72);
SCENIC_ABI_OFF(verbs_device_ops, match_min_abi_version, 8);
SCENIC_ABI_OFF(verbs_device_ops, match_table, 16);
SCENIC_ABI_OFF(verbs_device_ops, alloc_context, 40);
SCENIC_ABI_OFF(verbs_device_ops, alloc_device, 56);
SCENIC_ABI_OFF(verbs_device_ops, uninit_device, 64);
SCENIC_ABI_SIZE(verbs_device, 712);
SCENIC_ABI_OFF(verbs_device, ops, 664);
SCENIC_ABI_OFF(verbs_device, refcount, 672);
SCENIC_ABI_OFF(verbs_device, entry, 680);
SCENIC_ABI_OFF(verbs_device, sysfs, 696);
SCENIC_ABI_OFF(verbs_device, core_support, 704);
SCENIC_ABI_SIZE(verbs_context_ops, 608);
SCENIC_ABI_OFF(verbs_context_ops, alloc_pd, 40);
SCENIC_ABI_OFF(verbs_context_ops, cq_event, 96);
SCENIC_ABI_OFF(verbs_context_ops, create_cq, 120);
SCENIC_ABI_OFF(verbs_context_ops, create_cq_ex, 128);
SCENIC_ABI_OFF(verbs_context_ops, create_qp, 152);
SCENIC_ABI_OFF(verbs_context_ops, create_qp_ex, 160);
SCENIC_ABI_OFF(verbs_context_ops, dealloc_pd, 208);
SCENIC_ABI_OFF(verbs_context_ops, dereg_mr, 224);
SCENIC_ABI_OFF(verbs_context_ops, destroy_cq, 248);
SCENIC_ABI_OFF(verbs_context_ops, destroy_qp, 272);
SCENIC_ABI_OFF(verbs_context_ops, free_context, 312);
SCENIC_ABI_OFF(verbs_context_ops, modify_qp, 376);
SCENIC_ABI_OFF(verbs_context_ops, poll_cq, 424);
SCENIC_ABI_OFF(verbs_context_ops, post_recv, 432);
SCENIC_ABI_OFF(verbs_context_ops, post_send, 440);
SCENIC_ABI_OFF(verbs_context_ops, query_device_ex, 464);
SCENIC_ABI_OFF(verbs_context_ops, query_port, 480);
SCENIC_ABI_OFF(verbs_context_ops, query_qp, 488);
SCENIC_ABI_OFF(verbs_context_ops, reg_dmabuf_mr, 536);
SCENIC_ABI_OFF(verbs_context_ops, reg_mr, 544);
SCENIC_ABI_OFF(verbs_context_ops, req_notify_cq, 552);
SCENIC_ABI_OFF(verbs_context_ops, rereg_mr, 560);
SCENIC_ABI_OFF(verbs_context_ops, resize_cq, 568);
SCENIC_ABI_OFF(verbs_context_ops, unimport_pd, 600);
SCENIC_ABI_SIZE(ibv_get_context, 16);
SCENIC_ABI_SIZE(ibv_query_port, 24);
SCENIC_ABI_SIZE(ibv_alloc_pd, 16);
SCENIC_ABI_SIZE(ibv_reg_mr, 48);
SCENIC_ABI_SIZE(ibv_create_cq, 40);
SCENIC_ABI_SIZE(ibv_resize_cq, 24);
SCENIC_ABI_SIZE(ibv_rereg_mr, 56);
SCENIC_ABI_SIZE(ibv_create_qp, 64);
SCENIC_ABI_SIZE(ibv_modify_qp, 120);
SCENIC_ABI_SIZE(ibv_query_qp, 24);
SCENIC_ABI_SIZE(ibv_create_cq_ex, 56);
SCENIC_ABI_SIZE(ibv_create_qp_ex, 88);
SCENIC_ABI_SIZE(ibv_query_device_ex, 32);
SCENIC_ABI_SIZE(ib_uverbs_get_context_resp, 8);
SCENIC_ABI_SIZE(ib_uverbs_create_cq_resp, 8);
SCENIC_ABI_SIZE(ib_uverbs_create_qp_resp, 32);
SCENIC_ABI_SIZE(ib_uverbs_ex_create_cq_resp, 16);
SCENIC_ABI_SIZE(ib_uverbs_ex_create_qp_resp, 40);
SCENIC_ABI_SIZE(ib_uverbs_ex_query_device_resp, 304);
SCENIC_ABI_SIZE(verbs_context, 648);
SCENIC_ABI_SIZE(ibv_qp_ex, 352);
SCENIC_ABI_SIZE(ibv_cq_ex, 288);
SCENIC_ABI_SIZE(ibv_device, 664);
#undef SCENIC_ABI_SIZE
#undef SCENIC_ABI_OFF
#else
#error "the SCENIC provider's compat headers are checked on LP64 only"
#endif

#endif /* SCENIC_COMPAT_DRIVER_ABI_CHECK_H */
