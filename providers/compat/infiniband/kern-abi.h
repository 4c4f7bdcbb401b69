/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Derived from rdma-core's libibverbs/kern-abi.h (rdma-core 44.0,
 * https://github.com/linux-rdma/rdma-core), under rdma-core's licence and
 * with its copyright notices, below. Kept: struct ex_hdr, the IBV_ABI_REQ /
 * IBV_KABI_RESP naming and the shape of DECLARE_DRV_CMD. Rewritten: the
 * command wrappers (rdma-core generates them from kernel-abi.h; here
 * SCENIC_DECLARE_CMD names the kernel struct core_payload). Removed: the
 * commands the provider does not send.
 *
 * Copyright (c) 2005 Topspin Communications.  All rights reserved.
 * Copyright (c) 2005, 2006 Cisco Systems.  All rights reserved.
 * Copyright (c) 2005 PathScale, Inc.  All rights reserved.
 * Copyright (c) 2026 The scenic authors
 *
 * This software is available to you under a choice of one of two
 * licenses.  You may choose to be licensed under the terms of the GNU
 * General Public License (GPL) Version 2, available from the file
 * COPYING in the main directory of this source tree, or the
 * OpenIB.org BSD license below:
 *
 *     Redistribution and use in source and binary forms, with or
 *     without modification, are permitted provided that the following
 *     conditions are met:
 *
 *      - Redistributions of source code must retain the above
 *        copyright notice, this list of conditions and the following
 *        disclaimer.
 *
 *      - Redistributions in binary form must reproduce the above
 *        copyright notice, this list of conditions and the following
 *        disclaimer in the documentation and/or other materials
 *        provided with the distribution.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
 * EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
 * MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
 * NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS
 * BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
 * ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
 * CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
 */
/*
 * The part of rdma-core 44.0's private libibverbs/kern-abi.h that the SCENIC
 * provider uses, for the out-of-tree build (see providers/README.md).
 *
 * rdma-core wraps each kernel uverbs command struct of <rdma/ib_user_verbs.h>
 * in a header (struct ib_uverbs_cmd_hdr, or struct ex_hdr for extended
 * commands); the ibv_cmd_*() functions of libibverbs take these wrappers and
 * find the provider's udata right after them. rdma-core's wrappers also carry
 * a tagless copy of the kernel fields (generated _STRUCT_* macros); we only
 * keep the named kernel struct (core_payload), which has the same layout.
 * Layouts are checked in driver-abi-check.h.
 */
#ifndef SCENIC_COMPAT_KERN_ABI_H
#define SCENIC_COMPAT_KERN_ABI_H

#include <assert.h>
#include <linux/types.h>
#include <rdma/ib_user_verbs.h>

struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

#define IBV_ABI_REQ(_enum) _ABI_REQ_STRUCT_##_enum
#define IBV_KABI_REQ(_enum) _KABI_REQ_STRUCT_##_enum
#define IBV_KABI_RESP(_enum) _KABI_RESP_STRUCT_##_enum
#define IBV_ABI_ALIGN(_enum) _ABI_ALIGN_##_enum

/* A write() command: uverbs header, then the kernel struct. */
#define SCENIC_DECLARE_CMD(_enum, _name, _kabi, _kabi_resp)                   \
	struct _name {                                                         \
		struct ib_uverbs_cmd_hdr hdr;                                  \
		struct _kabi core_payload;                                     \
	};                                                                     \
	typedef struct _name IBV_ABI_REQ(_enum);                               \
	typedef struct _kabi_resp IBV_KABI_RESP(_enum);                        \
	enum { IBV_ABI_ALIGN(_enum) = 4 };                                     \
	static_assert(sizeof(struct _name) ==                                  \
		      sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct _kabi), \
		      "bad command size")

/* An extended command: both headers, then the kernel struct. */
#define SCENIC_DECLARE_CMD_EX(_enum, _name, _kabi, _kabi_resp)                \
	struct _name {                                                         \
		struct ex_hdr hdr;                                             \
		struct _kabi core_payload;                                     \
	};                                                                     \
	typedef struct _name IBV_ABI_REQ(_enum);                               \
	typedef struct _kabi_resp IBV_KABI_RESP(_enum);                        \
	enum { IBV_ABI_ALIGN(_enum) = 8 };                                     \
	static_assert(sizeof(struct _name) ==                                  \
		      sizeof(struct ex_hdr) + sizeof(struct _kabi),            \
		      "bad command size");                                     \
	static_assert(sizeof(struct _name) % 8 == 0, "bad command alignment")

/* For commands without a response. */
struct empty {};

SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_GET_CONTEXT, ibv_get_context,
		   ib_uverbs_get_context, ib_uverbs_get_context_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_PORT, ibv_query_port,
		   ib_uverbs_query_port, ib_uverbs_query_port_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_ALLOC_PD, ibv_alloc_pd,
		   ib_uverbs_alloc_pd, ib_uverbs_alloc_pd_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_REG_MR, ibv_reg_mr, ib_uverbs_reg_mr,
		   ib_uverbs_reg_mr_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_ALLOC_MW, ibv_alloc_mw,
		   ib_uverbs_alloc_mw, ib_uverbs_alloc_mw_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_CQ, ibv_create_cq,
		   ib_uverbs_create_cq, ib_uverbs_create_cq_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_REREG_MR, ibv_rereg_mr,
		   ib_uverbs_rereg_mr, ib_uverbs_rereg_mr_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_RESIZE_CQ, ibv_resize_cq,
		   ib_uverbs_resize_cq, ib_uverbs_resize_cq_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_QP, ibv_create_qp,
		   ib_uverbs_create_qp, ib_uverbs_create_qp_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_AH, ibv_create_ah,
		   ib_uverbs_create_ah, ib_uverbs_create_ah_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_MODIFY_QP, ibv_modify_qp,
		   ib_uverbs_modify_qp, empty);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_QP, ibv_query_qp,
		   ib_uverbs_query_qp, ib_uverbs_query_qp_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_SRQ, ibv_create_srq,
		   ib_uverbs_create_srq, ib_uverbs_create_srq_resp);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_MODIFY_SRQ, ibv_modify_srq,
		   ib_uverbs_modify_srq, empty);
SCENIC_DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_SRQ, ibv_query_srq,
		   ib_uverbs_query_srq, ib_uverbs_query_srq_resp);
SCENIC_DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_CREATE_CQ, ibv_create_cq_ex,
		      ib_uverbs_ex_create_cq, ib_uverbs_ex_create_cq_resp);
SCENIC_DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_CREATE_QP, ibv_create_qp_ex,
		      ib_uverbs_ex_create_qp, ib_uverbs_ex_create_qp_resp);
SCENIC_DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_QUERY_DEVICE, ibv_query_device_ex,
		      ib_uverbs_ex_query_device, ib_uverbs_ex_query_device_resp);

/*
 * A provider command: rdma-core's command wrapper followed by the driver's
 * udata struct, and the kernel response followed by the driver's response.
 * (rdma-core 44 adds an anonymous copy of the driver fields in a union; we
 * name the payload drv instead.)
 */
#define DECLARE_DRV_CMD(_name, _enum, _kabi_req, _kabi_resp)                   \
	struct _name {                                                         \
		IBV_ABI_REQ(_enum) ibv_cmd;                                    \
		struct _kabi_req drv;                                          \
	};                                                                     \
	struct _name##_resp {                                                  \
		IBV_KABI_RESP(_enum) ibv_resp;                                 \
		struct _kabi_resp drv;                                         \
	};                                                                     \
	static_assert(sizeof(struct _name) ==                                  \
		      sizeof(IBV_ABI_REQ(_enum)) + sizeof(struct _kabi_req),   \
		      "implicit padding in " #_name);                          \
	static_assert(sizeof(struct _name) % IBV_ABI_ALIGN(_enum) == 0,        \
		      "bad alignment of " #_name);                             \
	static_assert(sizeof(struct _name##_resp) ==                           \
		      sizeof(IBV_KABI_RESP(_enum)) + sizeof(struct _kabi_resp),\
		      "implicit padding in " #_name "_resp");                  \
	static_assert(sizeof(struct _name##_resp) % IBV_ABI_ALIGN(_enum) == 0, \
		      "bad alignment of " #_name "_resp")

#endif /* SCENIC_COMPAT_KERN_ABI_H */
