/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Binds the structs of <rdma/scenic-abi.h> to the uverbs commands: each
 * command is rdma-core's wrapper of the kernel struct followed by our udata.
 */
#ifndef __SCENIC_ABI_H__
#define __SCENIC_ABI_H__

#include <infiniband/kern-abi.h>
#include <rdma/scenic-abi.h>

DECLARE_DRV_CMD(scenic_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		scenic_ibv_alloc_ucontext_cmd, scenic_ibv_alloc_ucontext_resp);
DECLARE_DRV_CMD(scenic_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		scenic_ibv_create_cq, scenic_ibv_create_cq_resp);
DECLARE_DRV_CMD(scenic_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		scenic_ibv_create_cq, scenic_ibv_create_cq_resp);
DECLARE_DRV_CMD(scenic_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		scenic_ibv_resize_cq, scenic_ibv_resize_cq_resp);
DECLARE_DRV_CMD(scenic_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		scenic_ibv_create_qp, scenic_ibv_create_qp_resp);
DECLARE_DRV_CMD(scenic_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		scenic_ibv_create_srq, scenic_ibv_create_srq_resp);
DECLARE_DRV_CMD(scenic_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, scenic_ibv_create_ah_resp);
DECLARE_DRV_CMD(scenic_query_device_ex, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
		empty, scenic_ibv_ex_query_device_resp);

#endif /* __SCENIC_ABI_H__ */
