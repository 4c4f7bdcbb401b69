// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SCENIC rdma-core provider: device matching and context setup.
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
static const struct verbs_match_ent scenic_table[] = {
	VERBS_MODALIAS_MATCH("auxiliary:scenic.rdma", NULL),
	VERBS_PCI_MATCH(PCI_VENDOR_ID_XILINX, PCI_DEVICE_ID_SCENIC, NULL),
	{}
};

static void scenic_free_context(struct ibv_context *ibvctx);

static const struct verbs_context_ops scenic_ctx_ops = {
	.alloc_pd = scenic_alloc_pd,
	.create_cq = scenic_create_cq,
	.create_cq_ex = scenic_create_cq_ex,
	.create_qp = scenic_create_qp,
	.create_qp_ex = scenic_create_qp_ex,
	.dealloc_pd = scenic_dealloc_pd,
	.dereg_mr = scenic_dereg_mr,
	.destroy_cq = scenic_destroy_cq,
	.destroy_qp = scenic_destroy_qp,
	.modify_qp = scenic_modify_qp,
	.poll_cq = scenic_poll_cq,
	.post_recv = scenic_post_recv,
	.post_send = scenic_post_send,
	.query_device_ex = scenic_query_device_ex,
	.query_port = scenic_query_port,
	.query_qp = scenic_query_qp,
	.reg_mr = scenic_reg_mr,
	.req_notify_cq = scenic_req_notify_cq,
	.free_context = scenic_free_context,
};

static int scenic_set_default_scu(struct scenic_context *ctx)
{
	const char *env = getenv(SCENICDV_DEFAULT_SCU_ENV);

	ctx->default_scu = 0;
	if (!env)
		return 0;
	if (scenic_parse_scu(env, ctx->num_scus, &ctx->default_scu)) {
		verbs_err(&ctx->ibvctx, "%s=%s: not an SCU of this card (0..%u)\n",
			  SCENICDV_DEFAULT_SCU_ENV, env,
			  (ctx->num_scus ? ctx->num_scus : SCENICDV_MAX_SCUS) - 1);
		return EINVAL;
	}
	return 0;
}

/*
 * The rings' formats are fixed by uapi/scenic_rdma.h; a kernel announcing
 * other sizes speaks another version of the card, which we cannot drive.
 */
static int check_formats(struct scenic_context *ctx)
{
	if ((ctx->sq_wqe_size && ctx->sq_wqe_size != SCENIC_SQ_WQE_BYTES) ||
	    (ctx->rq_wqe_size && ctx->rq_wqe_size != SCENIC_RQ_WQE_BYTES) ||
	    (ctx->cqe_size && ctx->cqe_size != SCENIC_CQE_BYTES)) {
		verbs_err(&ctx->ibvctx,
			  "kernel ring formats (SQ %u, RQ %u, CQE %u bytes) differ from ours (%u, %u, %u)\n",
			  ctx->sq_wqe_size, ctx->rq_wqe_size, ctx->cqe_size,
			  SCENIC_SQ_WQE_BYTES, SCENIC_RQ_WQE_BYTES,
			  SCENIC_CQE_BYTES);
		return EPROTO;
	}
	return 0;
}

static struct verbs_context *scenic_alloc_context(struct ibv_device *vdev,
						  int cmd_fd,
						  void *private_data)
{
	struct scenic_alloc_ucontext_resp resp = {};
	struct scenic_alloc_ucontext cmd = {};
	struct scenic_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(vdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	if (ibv_cmd_get_context(&ctx->ibvctx, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp))) {
		verbs_err(&ctx->ibvctx, "GET_CONTEXT failed\n");
		goto err_free_ctx;
	}

	ctx->cmds_supp_udata_mask = resp.drv.cmds_supp_udata_mask;
	ctx->max_sq_wr = resp.drv.max_sq_wr;
	ctx->max_rq_wr = resp.drv.max_rq_wr;
	ctx->max_sq_sge = resp.drv.max_sq_sge;
	ctx->max_rq_sge = resp.drv.max_rq_sge;
	ctx->max_inline_data = resp.drv.max_inline_data;
	ctx->num_scus = resp.drv.num_scus;
	ctx->sq_wqe_size = resp.drv.sq_wqe_size;
	ctx->rq_wqe_size = resp.drv.rq_wqe_size;
	ctx->cqe_size = resp.drv.cqe_size;
	ctx->cnt_size = resp.drv.cnt_size;
	ctx->pg_sz = to_scenic_dev(vdev)->pg_sz;

	err = check_formats(ctx);
	if (err) {
		errno = err;
		goto err_free_ctx;
	}

	err = scenic_set_default_scu(ctx);
	if (err) {
		errno = err;
		goto err_free_ctx;
	}

	verbs_set_ops(&ctx->ibvctx, &scenic_ctx_ops);
	return &ctx->ibvctx;

err_free_ctx:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	return NULL;
}

static void scenic_free_context(struct ibv_context *ibvctx)
{
	struct scenic_context *ctx = to_scenic_context(ibvctx);

	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static struct verbs_device *scenic_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct scenic_dev *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	dev->pg_sz = sysconf(_SC_PAGESIZE);
	return &dev->vdev;
}

static void scenic_uninit_device(struct verbs_device *verbs_device)
{
	free(to_scenic_dev(&verbs_device->device));
}

static const struct verbs_device_ops scenic_dev_ops = {
	.name = "scenic",
	.match_min_abi_version = SCENIC_UVERBS_ABI_VERSION,
	.match_max_abi_version = SCENIC_UVERBS_ABI_VERSION,
	.match_table = scenic_table,
	.alloc_device = scenic_device_alloc,
	.uninit_device = scenic_uninit_device,
	.alloc_context = scenic_alloc_context,
};

bool is_scenic_dev(struct ibv_device *device)
{
	return verbs_get_device(device)->ops == &scenic_dev_ops;
}

PROVIDER_DRIVER(scenic, scenic_dev_ops);
