// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko completion queues. A CQ is a ring of 2^n
 * CQEs in coherent memory that the card writes and the provider polls
 * (mapped read-only), plus a doorbell page in BAR4 for the consumer index
 * and arming; resize_cq is in scenic_rdma_cq_resize.c. Kernel CQs (QP1's)
 * live in host memory only (scenic_rdma_gsi.c) and cannot be resized.
 */

#include <linux/log2.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "scenic_rdma_drv.h"

static int scenic_rdma_cq_check_cmd(struct scenic_rdma_dev *sdev,
				    const struct scenic_ibv_create_cq *cmd)
{
	if (cmd->comp_mask) {
		ibdev_dbg(&sdev->ibdev, "create_cq: unknown comp_mask 0x%x\n",
			  cmd->comp_mask);
		return -EINVAL;
	}
	if (!scenic_rdma_zeroed(sdev, cmd->reserved_60,
				sizeof(cmd->reserved_60), "create_cq"))
		return -EINVAL;
	if (cmd->cq_entry_size != SCENIC_CQE_SIZE) {
		ibdev_dbg(&sdev->ibdev, "create_cq: cq_entry_size %u, the card writes %u\n",
			  cmd->cq_entry_size, SCENIC_CQE_SIZE);
		return -EINVAL;
	}
	if (cmd->flags & ~SCENIC_CREATE_CQ_WITH_COMPLETION_CHANNEL) {
		ibdev_dbg(&sdev->ibdev, "create_cq: unknown flags 0x%x\n",
			  cmd->flags);
		return -EINVAL;
	}
	return 0;
}

#ifdef SCENIC_HAVE_CREATE_CQ_ATTRS
int scenic_rdma_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs)
#else
int scenic_rdma_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
#endif
{
#ifdef SCENIC_HAVE_CREATE_CQ_ATTRS
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
#endif
	struct scenic_rdma_dev *sdev = to_sdev(ibcq->device);
	struct scenic_rdma_cq *cq = to_scq(ibcq);
	struct scenic_ibv_create_cq_resp resp = {};
	struct scenic_ibv_create_cq cmd = {};
	struct scenic_aq_create_cq create = {
		.hdr.opcode = SCENIC_AQ_OP_CREATE_CQ,
	};
	struct scenic_aq_destroy_cq destroy = {
		.hdr.opcode = SCENIC_AQ_OP_DESTROY_CQ,
	};
	struct scenic_rdma_ucontext *suctx;
	struct ib_ucontext *uctx;
	u32 entries;
	int err, id;

	if (scenic_rdma_dead(sdev))
		return -EIO;
	if (!udata)
		return scenic_sw_cq_create(sdev, cq, attr);
	if (!sdev->db_phys) {
		ibdev_dbg(ibcq->device, "create_cq: the card has no doorbell BAR\n");
		return -EOPNOTSUPP;
	}
	if (attr->flags) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(ibcq->device, "create_cq: unsupported flags 0x%x\n",
			  attr->flags);
		return -EOPNOTSUPP;
	}
	if (attr->cqe < 1 || attr->cqe > SCENIC_RDMA_MAX_CQE) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(ibcq->device, "create_cq: %u entries (1..%u)\n",
			  attr->cqe, SCENIC_RDMA_MAX_CQE);
		return -EINVAL;
	}
	err = scenic_rdma_udata_cmd(sdev, udata, &cmd, sizeof(cmd),
				    offsetofend(struct scenic_ibv_create_cq,
						cq_entry_size));
	if (err)
		return err;
	err = scenic_rdma_cq_check_cmd(sdev, &cmd);
	if (err) {
		atomic64_inc(&sdev->sw.bad_requests);
		return err;
	}
	if (udata->outlen < SCENIC_CREATE_CQ_RESP_MIN) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(ibcq->device, "create_cq: response buffer of %zu bytes, need %zu\n",
			  udata->outlen, SCENIC_CREATE_CQ_RESP_MIN);
		return -EINVAL;
	}
	suctx = rdma_udata_to_drv_context(udata, struct scenic_rdma_ucontext,
					  ibucontext);
	if (!suctx)
		return -EINVAL;
	uctx = &suctx->ibucontext;

	entries = roundup_pow_of_two(max_t(u32, attr->cqe, SCENIC_RDMA_MIN_CQE));
	id = ida_alloc_max(&sdev->cq_ida, sdev->max_cq - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	cq->cqn = id;
	cq->entries = entries;
	mutex_init(&cq->resize_lock);

	err = scenic_dma_buf_alloc(sdev, suctx, &cq->ring,
				   (size_t)entries * SCENIC_CQE_BYTES);
	if (err)
		goto err_ida;
	err = scenic_dma_buf_expose(sdev, uctx, &cq->ring, SCENIC_MMAP_DMA_RO,
				    &resp.q_mmap_key);
	if (err)
		goto err_ring;
	err = scenic_dma_buf_alloc(sdev, suctx, &cq->dbrec,
				   sizeof(struct scenic_cq_dbrec));
	if (err)
		goto err_ring;
	err = scenic_dma_buf_expose(sdev, uctx, &cq->dbrec, SCENIC_MMAP_DMA_RW,
				    &resp.dbrec_mmap_key);
	if (err)
		goto err_ring;
	resp.comp_mask |= SCENIC_CREATE_CQ_RESP_COMP_MASK_DBREC;
	cq->db_entry = scenic_rdma_db_expose(sdev, uctx,
					     sdev->max_qp + cq->cqn,
					     &sdev->cq_ida, cq->cqn,
					     &resp.db_mmap_key);
	if (IS_ERR(cq->db_entry)) {
		err = PTR_ERR(cq->db_entry);
		cq->db_entry = NULL;
		goto err_ring;
	}

	create.cqn = cpu_to_le32(cq->cqn);
	create.log2_entries = FIELD_PREP(SCENIC_AQ_CREATE_CQ_LOG2_ENTRIES_MASK,
					 ilog2(entries));
	create.ring_addr = cpu_to_le64(cq->ring.dma_addr);
	create.dbrec_addr = cpu_to_le64(cq->dbrec.dma_addr);
	err = scenic_rdma_cmd(sdev, &create);
	if (err)
		goto err_db;
	err = xa_insert(&sdev->cq_xa, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_hw;

	resp.cq_idx = cq->cqn;
	resp.q_mmap_size = cq->ring.size;
	resp.db_off = 0;	/* a page per CQ: CI and arm at their SCENIC_DB_CQ_* offsets */
	resp.cq_entries = entries;
	err = scenic_rdma_udata_resp(sdev, udata, &resp, sizeof(resp),
				     SCENIC_CREATE_CQ_RESP_MIN);
	if (err)
		goto err_xa;
	ibcq->cqe = entries;
	return 0;

err_xa:
	xa_erase(&sdev->cq_xa, cq->cqn);
err_hw:
	destroy.cqn = cpu_to_le32(cq->cqn);
	scenic_rdma_cmd(sdev, &destroy);
	scenic_rdma_events_drain(sdev);
err_db:
	scenic_dma_buf_release(sdev, &cq->dbrec);
	scenic_dma_buf_release(sdev, &cq->ring);
	/* the doorbell entry owns the number now */
	rdma_user_mmap_entry_remove(cq->db_entry);
	return err;
err_ring:
	scenic_dma_buf_release(sdev, &cq->dbrec);
	scenic_dma_buf_release(sdev, &cq->ring);
err_ida:
	ida_free(&sdev->cq_ida, cq->cqn);
	return err;
}

int scenic_rdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibcq->device);
	struct scenic_rdma_cq *cq = to_scq(ibcq);
	struct scenic_aq_destroy_cq destroy = {
		.hdr.opcode = SCENIC_AQ_OP_DESTROY_CQ,
		.cqn = cpu_to_le32(cq->cqn),
	};
	int err;

	if (cq->sw) {
		scenic_sw_cq_destroy(cq);
		return 0;
	}
	/* -EIO: the card is dead or was reset and has forgotten the CQ */
	err = scenic_rdma_cmd(sdev, &destroy);
	if (err && err != -EIO)
		return err;
	/* takes the lock the event handler holds while it calls comp_handler */
	xa_erase(&sdev->cq_xa, cq->cqn);
	/* events the card queued for this CQ never reach a later holder */
	scenic_rdma_events_drain(sdev);
	scenic_dma_buf_release(sdev, &cq->dbrec);
	scenic_dma_buf_release(sdev, &cq->ring);
	/* frees the number once no mapping of its doorbell page is left */
	rdma_user_mmap_entry_remove(cq->db_entry);
	return 0;
}

/*
 * rdma resource show cq -dd: the card's number of the CQ (its doorbell page),
 * which the restrack id is not.
 */
int scenic_rdma_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct scenic_rdma_cq *cq = to_scq(ibcq);
	struct nlattr *nest;

	if (cq->sw)
		return 0;
	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "hw_cqn", cq->cqn)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* Kernel CQs only; user CQs are armed through their doorbell. */
int scenic_rdma_req_notify_cq(struct ib_cq *ibcq,
			      enum ib_cq_notify_flags flags)
{
	struct scenic_rdma_cq *cq = to_scq(ibcq);

	if (!cq->sw)
		return -EOPNOTSUPP;
	return scenic_sw_cq_req_notify(cq, flags);
}
