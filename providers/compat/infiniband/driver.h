/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Derived from rdma-core's libibverbs/driver.h (rdma-core 44.0,
 * https://github.com/linux-rdma/rdma-core), under rdma-core's licence and
 * with its copyright notices, below. Kept: the declarations the SCENIC
 * provider uses, with rdma-core's names, field order and several macros
 * (verbs_log, VERBS_*_MATCH, PROVIDER_DRIVER, verbs_init_and_alloc_context)
 * as they are there. Removed: everything else (XRC, flow, DM, counters,
 * ioctl and sysfs helpers, ...); ops we do not implement became void pointer
 * slots; struct list_node replaces ccan/list.h; the layout checks of
 * driver-abi-check.h were added.
 *
 * Copyright (c) 2004, 2005 Topspin Communications.  All rights reserved.
 * Copyright (c) 2005, 2006 Cisco Systems, Inc.  All rights reserved.
 * Copyright (c) 2005 PathScale, Inc.  All rights reserved.
 * Copyright (c) 2020 Intel Corporation. All rights reserved.
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
 * The part of rdma-core 44.0's private libibverbs/driver.h (IBVERBS_PRIVATE_34)
 * that the SCENIC provider uses, for the out-of-tree build against
 * Debian 12's libibverbs.so.1 (see providers/README.md).
 *
 * libibverbs reads and writes these structs inside our objects, so their
 * layout must be rdma-core 44.0's exactly: driver-abi-check.h pins every size
 * and offset we rely on (numbers taken from rdma-core 44.0's own headers, and
 * the size of verbs_context_ops also from verbs_set_ops() in the installed
 * library), so a mismatch fails the build. Field order and names follow
 * rdma-core so that the numbers can be compared line by line.
 */
#ifndef SCENIC_COMPAT_DRIVER_H
#define SCENIC_COMPAT_DRIVER_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <infiniband/kern-abi.h>

/* The private ABI this header describes (verbs_register_driver_34). */
#define IBVERBS_PABI_VERSION 34

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((uint8_t *)(ptr) - offsetof(type, member)))
#endif

/* ccan/list.h's list_node (the layout only: we never walk these lists). */
struct list_node {
	struct list_node *next, *prev;
};

/* ---- logging (IBV_SHOW_WARNINGS / VERBS_LOG_LEVEL) ---- */
enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

#define verbs_log(ctx, level, format, arg...)                                  \
	do {                                                                   \
		int tmp_errno_ = errno;                                        \
		__verbs_log(ctx, level, "%s: %s:%d: " format,                  \
			    (ctx)->context.device->name, __func__, __LINE__,   \
			    ##arg);                                            \
		errno = tmp_errno_;                                            \
	} while (0)

#define verbs_err(ctx, format, arg...) verbs_log(ctx, VERBS_LOG_ERR, format, ##arg)
#define verbs_warn(ctx, format, arg...) verbs_log(ctx, VERBS_LOG_WARN, format, ##arg)
#define verbs_debug(ctx, format, arg...) verbs_log(ctx, VERBS_LOG_DEBUG, format, ##arg)

/* ---- objects libibverbs shares with providers ---- */
enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

struct verbs_xrcd;

enum verbs_qp_mask {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,	/* ibv_qp_to_qp_ex() returns &qp_ex */
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* ---- device matching and registration ---- */
enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

#define VERBS_PCI_MATCH(_vendor, _device, _data)                               \
	{                                                                      \
		.driver_data = (void *)(_data), .vendor = (_vendor),           \
		.device = (_device), .kind = VERBS_MATCH_PCI,                  \
	}

#define VERBS_MODALIAS_MATCH(_mod_str, _data)                                  \
	{                                                                      \
		.driver_data = (void *)(_data), .u.modalias = (_mod_str),      \
		.kind = VERBS_MATCH_MODALIAS,                                  \
	}

struct verbs_sysfs_dev;	/* only passed by pointer; we never read it */
struct verbs_device;

struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device; /* must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

static inline struct verbs_device *verbs_get_device(const struct ibv_device *dev)
{
	return container_of(dev, struct verbs_device, device);
}

/*
 * Every op a provider can supply, sorted by name as in rdma-core 44.0. The ops
 * we do not implement stay NULL and libibverbs' defaults answer EOPNOTSUPP.
 * Ops whose argument types we never use are declared with generic pointers:
 * only the slot (8 bytes) matters for the layout.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	void *alloc_dm;
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	void *alloc_null_mr;
	void *alloc_parent_domain;
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	void *alloc_td;
	void *async_event;
	void *attach_counters_point_flow;
	void *attach_mcast;
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	void *close_xrcd;
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	void *create_counters;
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	void *create_flow;
	void *create_flow_action_esp;
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	void *create_rwq_ind_table;
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	void *create_srq_ex;
	void *create_wq;
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	void *dealloc_td;
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	void *destroy_counters;
	int (*destroy_cq)(struct ibv_cq *cq);
	void *destroy_flow;
	void *destroy_flow_action;
	int (*destroy_qp)(struct ibv_qp *qp);
	void *destroy_rwq_ind_table;
	int (*destroy_srq)(struct ibv_srq *srq);
	void *destroy_wq;
	void *detach_mcast;
	void (*free_context)(struct ibv_context *context);
	void *free_dm;
	void *get_srq_num;
	void *import_dm;
	void *import_mr;
	void *import_pd;
	void *modify_cq;
	void *modify_flow_action_esp;
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	void *modify_qp_rate_limit;
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	void *modify_wq;
	void *open_qp;
	void *open_xrcd;
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	void *post_srq_ops;
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	void *query_ece;
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	void *query_qp_data_in_order;
	void *query_rt_values;
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	void *read_counters;
	void *reg_dm_mr;
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova,
					int fd, int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	void *set_ece;
	void *unimport_dm;
	void *unimport_mr;
	void *unimport_pd;
};

/* ---- libibverbs functions (all @IBVERBS_PRIVATE_34) ---- */
#define ___make_verbs_register_driver(x) verbs_register_driver_##x
#define __make_verbs_register_driver(x) ___make_verbs_register_driver(x)
#define verbs_register_driver __make_verbs_register_driver(IBVERBS_PABI_VERSION)

void verbs_register_driver(const struct verbs_device_ops *ops);

/* Registers the provider when libibverbs dlopen()s us. */
#define PROVIDER_DRIVER(provider_name, drv_struct)                             \
	extern const struct verbs_device_ops verbs_provider_##provider_name   \
		__attribute__((alias(#drv_struct)));                           \
	static __attribute__((constructor)) void                               \
	provider_name##_register_driver(void)                                  \
	{                                                                      \
		verbs_register_driver(&drv_struct);                            \
	}

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);

#define verbs_init_and_alloc_context(ibdev, cmd_fd, drv_ctx_ptr, ctx_memb,     \
				     driver_id)                                \
	((typeof(drv_ctx_ptr))_verbs_init_and_alloc_context(                   \
		ibdev, cmd_fd, sizeof(*drv_ctx_ptr),                           \
		&((typeof(drv_ctx_ptr))NULL)->ctx_memb, (driver_id)))

void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe,
		      struct ibv_resize_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

#include "driver-abi-check.h"

#endif /* SCENIC_COMPAT_DRIVER_H */
