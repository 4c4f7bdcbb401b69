// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SCENIC verbs that are plain kernel commands: query_device_ex, query_port,
 * alloc/dealloc PD, reg/dereg MR (the kernel driver pins the memory and fills
 * the card's TLB), and scenicdv_create_qp_ex's entry point. CQs are in cq.c,
 * QPs in qp.c, the ibv_wr_* API in wr.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dv.h"
#include "scenic.h"
#include "verbs.h"

int scenic_query_device_ex(struct ibv_context *ibvctx,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct scenic_context *ctx = to_scenic_context(ibvctx);
	struct scenic_query_device_ex_resp resp = {};
	size_t resp_size = sizeof(resp);
	int err;

	if (!(ctx->cmds_supp_udata_mask & SCENIC_USER_CMDS_SUPP_UDATA_QUERY_DEVICE))
		resp_size = sizeof(resp.ibv_resp);

	err = ibv_cmd_query_device_any(ibvctx, input, attr, attr_size,
				       &resp.ibv_resp, &resp_size);
	if (err) {
		verbs_err(verbs_get_ctx(ibvctx), "ibv_cmd_query_device_any failed\n");
		return err;
	}

	if (resp_size >= sizeof(resp)) {
		ctx->device_caps = resp.drv.device_caps;
		if (resp.drv.num_scus)
			ctx->num_scus = resp.drv.num_scus;
	}
	return 0;
}

int scenic_query_port(struct ibv_context *ibvctx, uint8_t port,
		      struct ibv_port_attr *port_attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibvctx, port, port_attr, &cmd, sizeof(cmd));
}

struct ibv_pd *scenic_alloc_pd(struct ibv_context *ibvctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_alloc_pd(ibvctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	return pd;
}

/*
 * An address handle is an entry of the card's AH table, which the kernel
 * fills from its GID table and neighbour resolution: UD WQEs carry its index.
 */
struct ibv_ah *scenic_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct scenic_context *ctx = to_scenic_context(pd->context);
	struct scenic_create_ah_resp resp = {};
	struct scenic_ah *ah;
	int err;

	if (!ctx->ud) {
		errno = EOPNOTSUPP;	/* the card has no UD (RDMA.FEATURES.ud) */
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	ah->index = resp.drv.ah_index;
	return &ah->ibv_ah;
}

int scenic_destroy_ah(struct ibv_ah *ibvah)
{
	struct scenic_ah *ah = (struct scenic_ah *)ibvah;
	int err;

	err = ibv_cmd_destroy_ah(ibvah);
	if (err)
		return err;
	free(ah);
	return 0;
}

int scenic_dealloc_pd(struct ibv_pd *ibvpd)
{
	int err;

	err = ibv_cmd_dealloc_pd(ibvpd);
	if (err)
		return err;
	free(ibvpd);
	return 0;
}

struct ibv_mr *scenic_reg_mr(struct ibv_pd *ibvpd, void *addr, size_t len,
			     uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_reg_mr(ibvpd, addr, len, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * dma-buf memory: the kernel takes the pages from the exporter, the card
 * sees them through the same TLB as any MR. No driver data either way.
 */
struct ibv_mr *scenic_reg_dmabuf_mr(struct ibv_pd *ibvpd, uint64_t offset,
				    size_t len, uint64_t iova, int fd,
				    int access)
{
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_reg_dmabuf_mr(ibvpd, offset, len, iova, fd, access, vmr);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * rereg_mr in place (docs/verbs-completeness.md 5.3): the key stays, the
 * kernel changes translation, PD or access and the card drops the MR's old
 * translations before the call returns. A refused command changes nothing
 * (the kernel swaps pages only once the card accepted it).
 */
int scenic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		    void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int err;

	err = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		errno = err;
		return IBV_REREG_MR_ERR_CMD;
	}
	return 0;
}

int scenic_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(vmr);
	return 0;
}

/*
 * Memory windows (docs/verbs-completeness.md 5.1): the kernel allocates the
 * card's MW table entry; binding is an SQ WQE the card checks.
 */
struct ibv_mw *scenic_alloc_mw(struct ibv_pd *ibvpd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_alloc_mw(ibvpd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return mw;
}

int scenic_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;
	free(mw);
	return 0;
}

/*
 * ibv_bind_mw (type 1): a BIND_MW WQE with the next tag of the window's
 * rkey; the new key is the window's once the WQE is posted (IBA: the bind
 * completes in SQ order, later WQEs see it).
 */
int scenic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind)
{
	const struct ibv_mw_bind_info *info = &mw_bind->bind_info;
	struct ibv_send_wr wr = {}, *bad;
	int err;

	if (!mw || mw->type != IBV_MW_TYPE_1 || mw->pd != qp->pd ||
	    (info->length && (!info->mr || info->mr->pd != qp->pd)))
		return EINVAL;
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = *info;
	err = scenic_post_send(qp, &wr, &bad);
	if (err)
		return err;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

/* --- scenicdv --- */

struct ibv_qp *scenicdv_create_qp_ex(struct ibv_context *ibvctx,
				     struct ibv_qp_init_attr_ex *attr_ex,
				     struct scenicdv_qp_init_attr *scenic_attr,
				     uint32_t inlen)
{
	struct scenicdv_qp_init_attr local = {};
	bool ours = is_scenic_dev(ibvctx->device);
	int err;

	err = scenic_check_create_qp_attr(ours, attr_ex, scenic_attr, inlen,
					  ours ? to_scenic_context(ibvctx)->num_scus : 0,
					  &local);
	if (err) {
		if (ours)
			verbs_err(verbs_get_ctx(ibvctx),
				  "scenicdv_create_qp_ex: invalid attributes (%s)\n",
				  strerror(err));
		errno = err;
		return NULL;
	}
	return scenic_create_qp_common(ibvctx, attr_ex, local.scu_index);
}
