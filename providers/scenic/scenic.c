// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Copyright (c) 2026 The scenic authors
 *
 * How libibverbs reaches this provider:
 *  - loading the library runs PROVIDER_DRIVER's constructor, which hands
 *    scenic_provider to libibverbs;
 *  - libibverbs claims an ib_device for us when it matches scenic_match and
 *    speaks SCENIC_UVERBS_ABI_VERSION, and calls scenic_new_device() for it;
 *  - ibv_open_device() lands in scenic_open(): GET_CONTEXT returns the
 *    kernel's queue limits and ring formats, which must be the ones this
 *    provider was built for, and the default SCU is read from the
 *    environment, before the verbs are installed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dv.h"
#include "scenic.h"
#include "verbs.h"

/*
 * The ib_device hangs off the "rdma" auxiliary device that scenic.ko creates
 * (modalias auxiliary:scenic.rdma); the PCI entry matches a driver that
 * registers the ib_device on the PCI function itself. rdma_driver_id has no
 * SCENIC value (it is an upstream enum), so the kernel reports
 * RDMA_DRIVER_UNKNOWN and matching goes by modalias.
 */
static const struct verbs_match_ent scenic_match[] = {
	VERBS_MODALIAS_MATCH("auxiliary:scenic.rdma", NULL),
	VERBS_PCI_MATCH(PCI_VENDOR_ID_XILINX, PCI_DEVICE_ID_SCENIC, NULL),
	{}
};

/* One per ib_device; the rings are mapped in units of the host page. */
static struct verbs_device *scenic_new_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct scenic_dev *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return NULL;
	dev->pg_sz = sysconf(_SC_PAGESIZE);
	return &dev->vdev;
}

static void scenic_drop_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct scenic_dev, vdev));
}

static void scenic_release(struct scenic_context *ctx)
{
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static void scenic_close(struct ibv_context *ibvctx)
{
	scenic_release(to_scenic_context(ibvctx));
}

static const struct verbs_context_ops scenic_verbs = {
	.alloc_mw = scenic_alloc_mw,
	.alloc_pd = scenic_alloc_pd,
	.bind_mw = scenic_bind_mw,
	.create_ah = scenic_create_ah,
	.destroy_ah = scenic_destroy_ah,
	.create_cq = scenic_create_cq,
	.create_cq_ex = scenic_create_cq_ex,
	.create_qp = scenic_create_qp,
	.create_qp_ex = scenic_create_qp_ex,
	.create_srq = scenic_create_srq,
	.dealloc_mw = scenic_dealloc_mw,
	.dealloc_pd = scenic_dealloc_pd,
	.dereg_mr = scenic_dereg_mr,
	.destroy_cq = scenic_destroy_cq,
	.destroy_qp = scenic_destroy_qp,
	.destroy_srq = scenic_destroy_srq,
	.free_context = scenic_close,
	.modify_qp = scenic_modify_qp,
	.modify_srq = scenic_modify_srq,
	.poll_cq = scenic_poll_cq,
	.post_recv = scenic_post_recv,
	.post_send = scenic_post_send,
	.post_srq_recv = scenic_post_srq_recv,
	.query_device_ex = scenic_query_device_ex,
	.query_port = scenic_query_port,
	.query_qp = scenic_query_qp,
	.query_srq = scenic_query_srq,
	.reg_dmabuf_mr = scenic_reg_dmabuf_mr,
	.reg_mr = scenic_reg_mr,
	.req_notify_cq = scenic_req_notify_cq,
	.rereg_mr = scenic_rereg_mr,
	.resize_cq = scenic_resize_cq,
};

static bool scenic_env_is_zero(const char *name)
{
	const char *val = getenv(name);

	return val && !strcmp(val, "0");
}

/*
 * Keep the kernel's limits. The rings' formats are fixed by
 * uapi/scenic_rdma.h: a kernel announcing other sizes (0 means "not said")
 * drives another version of the card, which this provider cannot.
 */
static int scenic_take_limits(struct scenic_context *ctx,
			      const struct scenic_ibv_alloc_ucontext_resp *k)
{
	bool sq_ok = !k->sq_wqe_size || k->sq_wqe_size == SCENIC_SQ_WQE_BYTES;
	bool rq_ok = !k->rq_wqe_size || k->rq_wqe_size == SCENIC_RQ_WQE_BYTES;
	bool cqe_ok = !k->cqe_size || k->cqe_size == SCENIC_CQE_BYTES;

	ctx->cmds_supp_udata_mask = k->cmds_supp_udata_mask;
	/* SCENIC_QP_ONE_MAP=0: three maps per QP as before (for comparisons) */
	ctx->qp_one_map = (k->comp_mask & SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_QP_ONE_MAP) &&
			  !scenic_env_is_zero("SCENIC_QP_ONE_MAP");
	ctx->rq_stride = k->comp_mask & SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_RQ_STRIDE;
	ctx->ud = k->comp_mask & SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_UD;
	ctx->srq = k->comp_mask & SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_SRQ;
	ctx->max_sq_wr = k->max_sq_wr;
	ctx->max_rq_wr = k->max_rq_wr;
	ctx->max_sq_sge = k->max_sq_sge;
	ctx->max_rq_sge = k->max_rq_sge;
	ctx->max_inline_data = k->max_inline_data;
	ctx->num_scus = k->num_scus;
	ctx->sq_wqe_size = k->sq_wqe_size;
	ctx->rq_wqe_size = k->rq_wqe_size;
	ctx->cqe_size = k->cqe_size;
	ctx->cnt_size = k->cnt_size;

	if (sq_ok && rq_ok && cqe_ok)
		return 0;
	verbs_err(&ctx->ibvctx,
		  "kernel ring formats (SQ %u, RQ %u, CQE %u bytes) differ from ours (%u, %u, %u)\n",
		  k->sq_wqe_size, k->rq_wqe_size, k->cqe_size,
		  SCENIC_SQ_WQE_BYTES, SCENIC_RQ_WQE_BYTES, SCENIC_CQE_BYTES);
	return EPROTO;
}

/* SCU of the QPs created through the plain verbs: SCENIC_DEFAULT_SCU, or 0. */
static int scenic_pick_default_scu(struct scenic_context *ctx)
{
	const char *val = getenv(SCENICDV_DEFAULT_SCU_ENV);
	unsigned int last;

	ctx->default_scu = 0;
	if (!val || !scenic_parse_scu(val, ctx->num_scus, &ctx->default_scu))
		return 0;

	last = (ctx->num_scus ? ctx->num_scus : SCENICDV_MAX_SCUS) - 1;
	verbs_err(&ctx->ibvctx, "%s=%s: not an SCU of this card (0..%u)\n",
		  SCENICDV_DEFAULT_SCU_ENV, val, last);
	return EINVAL;
}

static struct verbs_context *scenic_open(struct ibv_device *ibdev, int cmd_fd,
					 void *private_data)
{
	struct scenic_alloc_ucontext_resp resp = {};
	struct scenic_alloc_ucontext cmd = {};
	struct scenic_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	if (ibv_cmd_get_context(&ctx->ibvctx, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp))) {
		verbs_err(&ctx->ibvctx, "GET_CONTEXT failed\n");
		scenic_release(ctx);
		return NULL;
	}
	ctx->pg_sz = to_scenic_dev(ibdev)->pg_sz;

	err = scenic_take_limits(ctx, &resp.drv);
	if (!err)
		err = scenic_pick_default_scu(ctx);
	if (err) {
		scenic_release(ctx);
		errno = err;
		return NULL;
	}

	verbs_set_ops(&ctx->ibvctx, &scenic_verbs);
	return &ctx->ibvctx;
}

static const struct verbs_device_ops scenic_provider = {
	.name = "scenic",
	.match_min_abi_version = SCENIC_UVERBS_ABI_VERSION,
	.match_max_abi_version = SCENIC_UVERBS_ABI_VERSION,
	.match_table = scenic_match,
	.alloc_device = scenic_new_device,
	.uninit_device = scenic_drop_device,
	.alloc_context = scenic_open,
};

/* scenicdv entry points refuse contexts of other providers. */
bool is_scenic_dev(struct ibv_device *device)
{
	return verbs_get_device(device)->ops == &scenic_provider;
}

PROVIDER_DRIVER(scenic, scenic_provider);
