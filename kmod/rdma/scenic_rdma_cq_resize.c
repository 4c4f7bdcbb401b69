// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko resize_cq (docs/verbs-completeness.md 5.2).
 * The CQ gets a new ring and CI record; RESIZE_CQ makes the card end the
 * old ring with a RESIZE CQE and continue in the new one from index 0. The
 * old ring's mmap entry is removed once the card has switched, so its memory
 * is freed only when the provider, having polled up to the RESIZE CQE,
 * unmaps it (or its process dies): no CQE is copied, none is lost.
 */

#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "scenic_rdma_drv.h"

#define SCENIC_RESIZE_CQ_RESP_MIN \
	offsetofend(struct scenic_ibv_resize_cq_resp, dbrec_mmap_key)

static int scenic_rdma_resize_check(struct scenic_rdma_dev *sdev,
				    struct scenic_rdma_cq *cq, int cqe,
				    struct ib_udata *udata)
{
	struct scenic_ibv_resize_cq cmd = {};
	int err;

	if (cq->sw || !udata) {
		ibdev_dbg(&sdev->ibdev, "resize_cq: kernel CQs are not on the card\n");
		return -EOPNOTSUPP;
	}
	if (!(sdev->features & SCENIC_RDMA_FEATURES_RESIZE_CQ_MASK)) {
		ibdev_dbg(&sdev->ibdev, "resize_cq: the card has no RESIZE_CQ\n");
		return -EOPNOTSUPP;
	}
	/* one slot of the ring stays free for the next RESIZE CQE */
	if (cqe < 1 || cqe >= SCENIC_RDMA_MAX_CQE) {
		ibdev_dbg(&sdev->ibdev, "resize_cq: %d entries (1..%u)\n",
			  cqe, SCENIC_RDMA_MAX_CQE - 1);
		return -EINVAL;
	}
	err = scenic_rdma_udata_cmd(sdev, udata, &cmd, sizeof(cmd),
				    sizeof(cmd));
	if (err)
		return err;
	if (cmd.comp_mask ||
	    !scenic_rdma_zeroed(sdev, cmd.reserved_20, sizeof(cmd.reserved_20),
				"resize_cq"))
		return -EINVAL;
	if (udata->outlen < SCENIC_RESIZE_CQ_RESP_MIN) {
		ibdev_dbg(&sdev->ibdev, "resize_cq: response buffer of %zu bytes, need %zu\n",
			  udata->outlen, SCENIC_RESIZE_CQ_RESP_MIN);
		return -EINVAL;
	}
	return 0;
}

int scenic_rdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibcq->device);
	struct scenic_rdma_cq *cq = to_scq(ibcq);
	struct scenic_ibv_resize_cq_resp resp = {};
	struct scenic_aq_resize_cq resize = {
		.hdr.opcode = SCENIC_AQ_OP_RESIZE_CQ,
	};
	struct scenic_rdma_ucontext *suctx;
	struct scenic_dma_buf ring = {}, dbrec = {};
	u32 entries;
	int err;

	if (scenic_rdma_dead(sdev))
		return -EIO;
	err = scenic_rdma_resize_check(sdev, cq, cqe, udata);
	if (err) {
		atomic64_inc(&sdev->sw.bad_requests);
		return err;
	}
	suctx = rdma_udata_to_drv_context(udata, struct scenic_rdma_ucontext,
					  ibucontext);
	if (!suctx)
		return -EINVAL;
	entries = roundup_pow_of_two(max_t(u32, cqe + 1, SCENIC_RDMA_MIN_CQE));

	mutex_lock(&cq->resize_lock);
	err = scenic_dma_buf_alloc(sdev, suctx, &ring,
				   (size_t)entries * SCENIC_CQE_BYTES);
	if (err)
		goto out;
	err = scenic_dma_buf_expose(sdev, &suctx->ibucontext, &ring,
				    SCENIC_MMAP_DMA_RO, &resp.q_mmap_key);
	if (err)
		goto err_bufs;
	err = scenic_dma_buf_alloc(sdev, suctx, &dbrec,
				   sizeof(struct scenic_cq_dbrec));
	if (err)
		goto err_bufs;
	err = scenic_dma_buf_expose(sdev, &suctx->ibucontext, &dbrec,
				    SCENIC_MMAP_DMA_RW, &resp.dbrec_mmap_key);
	if (err)
		goto err_bufs;
	resp.cq_entries = entries;
	resp.q_mmap_size = ring.size;
	/* before the card switches: a failed copy leaves the CQ as it was */
	err = scenic_rdma_udata_resp(sdev, udata, &resp, sizeof(resp),
				     SCENIC_RESIZE_CQ_RESP_MIN);
	if (err)
		goto err_bufs;

	resize.cqn = cpu_to_le32(cq->cqn);
	resize.log2_entries = FIELD_PREP(SCENIC_AQ_RESIZE_CQ_LOG2_ENTRIES_MASK,
					 ilog2(entries));
	resize.ring_addr = cpu_to_le64(ring.dma_addr);
	resize.dbrec_addr = cpu_to_le64(dbrec.dma_addr);
	/*
	 * BAD_ARG: more completions outstanding than the new ring holds;
	 * BUSY: the old ring is full, no slot for the RESIZE CQE yet.
	 */
	err = scenic_rdma_cmd(sdev, &resize);
	if (err)
		goto err_bufs;

	/* the card no longer writes the old ring: the last mapping frees it */
	scenic_dma_buf_release(sdev, &cq->ring);
	scenic_dma_buf_release(sdev, &cq->dbrec);
	cq->ring = ring;
	cq->dbrec = dbrec;
	cq->entries = entries;
	ibcq->cqe = entries - 1;
	mutex_unlock(&cq->resize_lock);
	return 0;

err_bufs:
	scenic_dma_buf_release(sdev, &dbrec);
	scenic_dma_buf_release(sdev, &ring);
out:
	mutex_unlock(&cq->resize_lock);
	return err;
}
