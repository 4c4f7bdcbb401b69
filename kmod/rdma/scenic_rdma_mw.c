// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko memory windows, types 1 and 2
 * (docs/verbs-completeness.md 5.1). The kernel only allocates and frees the
 * card's MW table entries; binding and invalidation are SQ WQEs the provider
 * posts (BIND_MW, LOCAL_INV, SEND_INV), checked by the card. A window adds no
 * translations: the TLB is never touched here.
 */

#include <linux/random.h>

#include "scenic_rdma_drv.h"

/* bit 23 of a key's 24-bit index tells the card's MW table from the MR table */
#define SCENIC_MW_INDEX_BIT	0x800000u

int scenic_rdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibmw->device);
	struct scenic_rdma_mw *mw = to_smw(ibmw);
	struct scenic_aq_alloc_mw cmd = { .hdr.opcode = SCENIC_AQ_OP_ALLOC_MW };
	u32 key;
	int id, err;

	if (scenic_rdma_dead(sdev))
		return -EIO;
	if (!sdev->max_mw) {
		ibdev_dbg(ibmw->device, "alloc_mw: the card has no memory windows (RDMA.FEATURES.mw)\n");
		return -EOPNOTSUPP;
	}
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(ibmw->device, "alloc_mw: unknown command bytes\n");
		atomic64_inc(&sdev->sw.bad_requests);
		return -EINVAL;
	}
	id = ida_alloc_range(&sdev->mw_ida, 0, sdev->max_mw - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	key = (SCENIC_MW_INDEX_BIT | (u32)id) << 8 | (get_random_u32() & 0xff);
	cmd.key = cpu_to_le32(key);
	cmd.pdn = cpu_to_le32(to_spd(ibmw->pd)->pdn);
	cmd.type = ibmw->type == IB_MW_TYPE_1 ? 1 : 2;
	err = scenic_rdma_cmd(sdev, &cmd);
	if (err) {
		ida_free(&sdev->mw_ida, id);
		return err;
	}
	mw->index = id;
	ibmw->rkey = key;
	return 0;
}

int scenic_rdma_dealloc_mw(struct ib_mw *ibmw)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibmw->device);
	struct scenic_rdma_mw *mw = to_smw(ibmw);
	struct scenic_aq_dealloc_mw cmd = {
		.hdr.opcode = SCENIC_AQ_OP_DEALLOC_MW,
		/* the provider moves the tag of type 1 windows: any tag will do */
		.key = cpu_to_le32((SCENIC_MW_INDEX_BIT | mw->index) << 8),
	};
	int err;

	/* -EIO: the card is dead or was reset and has forgotten the window */
	err = scenic_rdma_cmd(sdev, &cmd);
	if (err && err != -EIO)
		return err;
	ida_free(&sdev->mw_ida, mw->index);
	return 0;
}
