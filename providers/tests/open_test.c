// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Unit tests of opening a SCENIC device (providers/scenic/scenic.c) without a
 * kernel: the libibverbs calls scenic.c makes are replaced by the fakes below,
 * GET_CONTEXT answers what the test sets, and the test checks the context the
 * provider builds (limits, default SCU, verbs installed) or the errno of a
 * refused open, and that every failed open releases the context. Prints TAP.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/driver.h>

#include "scenic-abi.h"
#include "scenic.h"
#include "scenicdv.h"

/* PROVIDER_DRIVER's global name for scenic.c's verbs_device_ops */
extern const struct verbs_device_ops verbs_provider_scenic;

static struct scenic_ibv_alloc_ucontext_resp kernel_resp;
static int get_context_err;
static int uninit_calls;
static const struct verbs_context_ops *installed_ops;

/* ---- fakes of the libibverbs functions scenic.c calls ---- */
void verbs_register_driver(const struct verbs_device_ops *ops)
{
}

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id)
{
	char *obj = calloc(1, alloc_size);
	struct verbs_context *vctx;

	if (!obj)
		return NULL;
	vctx = (struct verbs_context *)(obj + (size_t)context_offset);
	vctx->context.device = device;
	return obj;
}

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size)
{
	struct scenic_alloc_ucontext_resp *full = (void *)resp;

	if (resp_size < sizeof(*full))
		return EINVAL;
	if (get_context_err)
		return errno = get_context_err;
	full->drv = kernel_resp;
	return 0;
}

void verbs_uninit_context(struct verbs_context *context)
{
	uninit_calls++;
}

void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops)
{
	installed_ops = ops;
}

void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt,
		 ...)
{
}

/* ---- checks ---- */
static int n, failed;

static void check(long got, long want, const char *name)
{
	n++;
	if (got == want) {
		printf("ok %d - %s\n", n, name);
	} else {
		failed++;
		printf("not ok %d - %s # got %ld, want %ld\n", n, name, got,
		       want);
	}
}

static const struct scenic_ibv_alloc_ucontext_resp good_resp = {
	.cmds_supp_udata_mask = 0x3,
	.max_sq_wr = 256,
	.max_rq_wr = 128,
	.max_sq_sge = 16,
	.max_rq_sge = 3,
	.max_inline_data = 256,
	.num_scus = 4,
	.sq_wqe_size = SCENIC_SQ_WQE_BYTES,
	.rq_wqe_size = SCENIC_RQ_WQE_BYTES,
	.cqe_size = SCENIC_CQE_BYTES,
	.cnt_size = 8,
};

static struct verbs_context *open_dev(struct ibv_device *dev)
{
	installed_ops = NULL;
	uninit_calls = 0;
	errno = 0;
	return verbs_provider_scenic.alloc_context(dev, 3, NULL);
}

static void close_dev(struct verbs_context *vctx, const char *what)
{
	char name[128];

	uninit_calls = 0;
	installed_ops->free_context(&vctx->context);
	snprintf(name, sizeof(name), "%s: free_context releases the context",
		 what);
	check(uninit_calls, 1, name);
}

/* An open that must fail with @err, release what it took, install nothing. */
static void refused(struct ibv_device *dev, int err, const char *what)
{
	struct verbs_context *vctx = open_dev(dev);
	char name[128];

	snprintf(name, sizeof(name), "%s: open fails", what);
	check(vctx == NULL, 1, name);
	snprintf(name, sizeof(name), "%s: errno", what);
	check(errno, err, name);
	snprintf(name, sizeof(name), "%s: context released once", what);
	check(uninit_calls, 1, name);
	snprintf(name, sizeof(name), "%s: no verbs installed", what);
	check(installed_ops != NULL, 0, name);
}

int main(void)
{
	struct verbs_device *vdev = verbs_provider_scenic.alloc_device(NULL);
	struct scenic_context *ctx;
	struct verbs_context *vctx;
	struct ibv_device *dev;

	if (!vdev) {
		printf("Bail out! alloc_device failed\n");
		return 1;
	}
	vdev->ops = &verbs_provider_scenic;
	dev = &vdev->device;
	strcpy(dev->name, "scenic_0");
	unsetenv(SCENICDV_DEFAULT_SCU_ENV);

	kernel_resp = good_resp;
	vctx = open_dev(dev);
	check(vctx != NULL, 1, "open: the kernel's formats are ours");
	if (vctx) {
		ctx = to_scenic_context(&vctx->context);
		check(installed_ops != NULL && installed_ops->post_send != NULL,
		      1, "open: verbs installed");
		check(ctx->max_sq_wr, 256, "open: max_sq_wr from GET_CONTEXT");
		check(ctx->max_rq_wr, 128, "open: max_rq_wr");
		check(ctx->max_sq_sge, 16, "open: max_sq_sge");
		check(ctx->max_rq_sge, 3, "open: max_rq_sge");
		check(ctx->max_inline_data, 256, "open: max_inline_data");
		check(ctx->num_scus, 4, "open: num_scus");
		check(ctx->cnt_size, 8, "open: cnt_size");
		check(ctx->cmds_supp_udata_mask, 0x3, "open: cmds_supp_udata_mask");
		check(ctx->default_scu, 0, "open: default SCU 0 without the variable");
		check(ctx->pg_sz, to_scenic_dev(dev)->pg_sz, "open: page size of the device");
		close_dev(vctx, "open");
	}

	setenv(SCENICDV_DEFAULT_SCU_ENV, "3", 1);
	vctx = open_dev(dev);
	check(vctx ? to_scenic_context(&vctx->context)->default_scu : -1, 3,
	      "SCENIC_DEFAULT_SCU=3 on a card with 4 SCUs");
	if (vctx)
		close_dev(vctx, "SCENIC_DEFAULT_SCU=3");
	setenv(SCENICDV_DEFAULT_SCU_ENV, "4", 1);
	refused(dev, EINVAL, "SCENIC_DEFAULT_SCU=4 on a card with 4 SCUs");
	setenv(SCENICDV_DEFAULT_SCU_ENV, "two", 1);
	refused(dev, EINVAL, "SCENIC_DEFAULT_SCU=two");
	unsetenv(SCENICDV_DEFAULT_SCU_ENV);

	kernel_resp.sq_wqe_size = 0;
	kernel_resp.rq_wqe_size = 0;
	kernel_resp.cqe_size = 0;
	vctx = open_dev(dev);
	check(vctx != NULL, 1, "formats the kernel does not state (0) are accepted");
	if (vctx)
		close_dev(vctx, "unstated formats");

	kernel_resp = good_resp;
	kernel_resp.sq_wqe_size = SCENIC_SQ_WQE_BYTES * 2;
	refused(dev, EPROTO, "another SQ WQE size");
	kernel_resp = good_resp;
	kernel_resp.rq_wqe_size = SCENIC_RQ_WQE_BYTES + 8;
	refused(dev, EPROTO, "another RQ WQE size");
	kernel_resp = good_resp;
	kernel_resp.cqe_size = SCENIC_CQE_BYTES * 2;
	setenv(SCENICDV_DEFAULT_SCU_ENV, "9", 1);
	refused(dev, EPROTO, "another CQE size (checked before the SCU)");
	unsetenv(SCENICDV_DEFAULT_SCU_ENV);

	kernel_resp = good_resp;
	get_context_err = EIO;
	refused(dev, EIO, "GET_CONTEXT fails");
	get_context_err = 0;

	check(is_scenic_dev(dev), 1, "is_scenic_dev on our device");
	verbs_provider_scenic.uninit_device(vdev);

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
