// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko shared receive queues
 * (docs/verbs-completeness.md 3). User SRQs only: a ring of 2^n receive
 * WQEs and the doorbell record in one coherent buffer that the provider maps
 * (as a QP's rings: not ib_umem), the SRQ's doorbell page in BAR4 (page
 * MAX_QP + MAX_CQ + srqn), and the card's CREATE/MODIFY/QUERY/DESTROY_SRQ.
 * The SRQ keeps its size: IB_SRQ_MAX_WR (resize) is EOPNOTSUPP. XRC SRQs
 * are EOPNOTSUPP (no XRC transport in the card).
 */

#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "scenic_rdma_drv.h"

/* The slot size of the command: 64 << n bytes holding @max_sge SGEs. */
static int scenic_rdma_srq_stride(struct scenic_rdma_dev *sdev, u32 wqe_size,
				  u32 max_sge, u8 *stride)
{
	u8 n = 0;

	while (n < SCENIC_RQ_MAX_STRIDE && (SCENIC_RQ_WQE_BYTES << n) < wqe_size)
		n++;
	if ((SCENIC_RQ_WQE_BYTES << n) != wqe_size ||
	    (n && !(sdev->features & SCENIC_RDMA_FEATURES_RQ_STRIDE_MASK)) ||
	    max_sge > SCENIC_RQ_STRIDE_SGES(n)) {
		ibdev_dbg(&sdev->ibdev, "create_srq: slots of %u bytes for %u SGEs: need 64 << n bytes holding (bytes - 16) / 16 SGEs\n",
			  wqe_size, max_sge);
		return -EINVAL;
	}
	*stride = n;
	return 0;
}

static int scenic_rdma_srq_check(struct scenic_rdma_dev *sdev,
				 const struct ib_srq_init_attr *init,
				 const struct scenic_ibv_create_srq *cmd,
				 struct scenic_rdma_srq *srq)
{
	struct ib_device *ibdev = &sdev->ibdev;
	u32 n;
	int err;

	if (cmd->comp_mask) {
		ibdev_dbg(ibdev, "create_srq: unknown comp_mask 0x%x\n",
			  cmd->comp_mask);
		return -EINVAL;
	}
	if (!scenic_rdma_zeroed(sdev, cmd->reserved_50,
				sizeof(cmd->reserved_50), "create_srq"))
		return -EINVAL;
	if (init->attr.max_wr < 1 || init->attr.max_wr > SCENIC_RDMA_MAX_SRQ_WR ||
	    init->attr.max_sge > sdev->max_rq_sge ||
	    init->attr.srq_limit > init->attr.max_wr) {
		ibdev_dbg(ibdev, "create_srq: %u WRs (1..%u), %u SGEs (<= %u), limit %u\n",
			  init->attr.max_wr, SCENIC_RDMA_MAX_SRQ_WR,
			  init->attr.max_sge, sdev->max_rq_sge,
			  init->attr.srq_limit);
		return -EINVAL;
	}
	err = scenic_rdma_srq_stride(sdev, cmd->wqe_size, init->attr.max_sge,
				     &srq->stride);
	if (err)
		return err;
	n = cmd->ring_size / cmd->wqe_size;
	if (!is_power_of_2(cmd->ring_size) || cmd->ring_size % cmd->wqe_size ||
	    cmd->ring_size > SCENIC_RDMA_MAX_SRQ_RING_BYTES ||
	    n < init->attr.max_wr || n > SCENIC_RDMA_MAX_SRQ_WR) {
		ibdev_dbg(ibdev, "create_srq: ring of %u bytes: need a power of two of %u-byte slots, at least %u and at most %u slots, %u bytes\n",
			  cmd->ring_size, cmd->wqe_size, init->attr.max_wr,
			  SCENIC_RDMA_MAX_SRQ_WR, SCENIC_RDMA_MAX_SRQ_RING_BYTES);
		return -EINVAL;
	}
	srq->entries = n;
	return 0;
}

/* Ring, then the doorbell record on a page of its own, behind one key. */
static int scenic_rdma_srq_alloc(struct scenic_rdma_dev *sdev,
				 struct scenic_rdma_ucontext *suctx,
				 struct scenic_rdma_srq *srq,
				 struct scenic_ibv_create_srq_resp *resp)
{
	size_t ring = PAGE_ALIGN((size_t)srq->entries *
				 (SCENIC_RQ_WQE_BYTES << srq->stride));
	int err;

	err = scenic_dma_buf_alloc(sdev, suctx, &srq->ring, ring + PAGE_SIZE);
	if (err)
		return err;
	err = scenic_dma_buf_expose(sdev, &suctx->ibucontext, &srq->ring,
				    SCENIC_MMAP_DMA_RW, &resp->ring_mmap_key);
	if (err)
		return err;
	resp->ring_mmap_size = ring;
	srq->db_entry = scenic_rdma_db_expose(sdev, &suctx->ibucontext,
					      sdev->max_qp + sdev->max_cq +
					      srq->srqn, &sdev->srq_ida,
					      srq->srqn, &resp->db_mmap_key);
	if (IS_ERR(srq->db_entry)) {
		err = PTR_ERR(srq->db_entry);
		srq->db_entry = NULL;
		return err;
	}
	return 0;
}

/* Frees the ring (or leaves it to the last mapping) and the number. */
static void scenic_rdma_srq_free(struct scenic_rdma_dev *sdev,
				 struct scenic_rdma_srq *srq)
{
	scenic_dma_buf_release(sdev, &srq->ring);
	if (srq->db_entry)
		rdma_user_mmap_entry_remove(srq->db_entry);
	else
		ida_free(&sdev->srq_ida, srq->srqn);
	srq->db_entry = NULL;
}

int scenic_rdma_create_srq(struct ib_srq *ibsrq,
			   struct ib_srq_init_attr *init,
			   struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibsrq->device);
	struct scenic_rdma_srq *srq = to_ssrq(ibsrq);
	struct scenic_ibv_create_srq_resp resp = {};
	struct scenic_ibv_create_srq cmd = {};
	struct scenic_rdma_ucontext *suctx;
	struct scenic_aq_create_srq create = {
		.hdr.opcode = SCENIC_AQ_OP_CREATE_SRQ,
	};
	struct scenic_aq_destroy_srq destroy = {
		.hdr.opcode = SCENIC_AQ_OP_DESTROY_SRQ,
	};
	size_t ring;
	int err, id;

	if (scenic_rdma_dead(sdev))
		return -EIO;
	if (!sdev->max_srq || !sdev->db_phys) {
		ibdev_dbg(ibsrq->device, "create_srq: the card has no SRQs (RDMA.FEATURES 0x%x)\n",
			  sdev->features);
		return -EOPNOTSUPP;
	}
	if (!udata) {
		ibdev_dbg(ibsrq->device, "create_srq: kernel SRQs are not supported\n");
		return -EOPNOTSUPP;
	}
	if (init->srq_type != IB_SRQT_BASIC) {
		ibdev_dbg(ibsrq->device, "create_srq: SRQ type %d: only basic SRQs (no XRC, no tag matching)\n",
			  init->srq_type);
		return -EOPNOTSUPP;
	}
	err = scenic_rdma_udata_cmd(sdev, udata, &cmd, sizeof(cmd),
				    offsetofend(struct scenic_ibv_create_srq,
						wqe_size));
	if (err)
		return err;
	err = scenic_rdma_srq_check(sdev, init, &cmd, srq);
	if (err)
		goto bad;
	if (udata->outlen < sizeof(resp)) {
		ibdev_dbg(ibsrq->device, "create_srq: response buffer of %zu bytes, need %zu\n",
			  udata->outlen, sizeof(resp));
		err = -EINVAL;
		goto bad;
	}
	suctx = rdma_udata_to_drv_context(udata, struct scenic_rdma_ucontext,
					  ibucontext);
	if (!suctx)
		return -EINVAL;

	id = ida_alloc_max(&sdev->srq_ida, sdev->max_srq - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	srq->srqn = id;
	err = scenic_rdma_srq_alloc(sdev, suctx, srq, &resp);
	if (err)
		goto err_bufs;

	ring = resp.ring_mmap_size;
	create.srqn = cpu_to_le32(srq->srqn);
	create.pdn = cpu_to_le32(to_spd(ibsrq->pd)->pdn);
	create.ring_addr = cpu_to_le64(srq->ring.dma_addr);
	create.log2_entries = FIELD_PREP(SCENIC_AQ_CREATE_SRQ_LOG2_ENTRIES_MASK,
					 ilog2(srq->entries));
	create.stride = FIELD_PREP(SCENIC_AQ_CREATE_SRQ_STRIDE_MASK,
				   srq->stride);
	create.limit = cpu_to_le32(init->attr.srq_limit);
	create.dbrec_addr = cpu_to_le64(srq->ring.dma_addr + ring);
	if (init->attr.srq_limit)
		set_bit(SCENIC_RDMA_SRQ_EV_ARMED, &srq->ev_flags);
	err = scenic_rdma_cmd(sdev, &create);
	if (err)
		goto err_bufs;
	err = xa_insert(&sdev->srq_xa, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_hw;

	resp.srqn = srq->srqn;
	resp.db_off = SCENIC_DB_SRQ;
	resp.entries = srq->entries;
	err = scenic_rdma_udata_resp(sdev, udata, &resp, sizeof(resp),
				     sizeof(resp));
	if (err)
		goto err_xa;
	init->attr.max_wr = srq->entries;
	init->attr.max_sge = SCENIC_RQ_STRIDE_SGES(srq->stride);
	return 0;

err_xa:
	xa_erase(&sdev->srq_xa, srq->srqn);
err_hw:
	destroy.srqn = cpu_to_le32(srq->srqn);
	scenic_rdma_cmd(sdev, &destroy);
	scenic_rdma_events_drain(sdev);
err_bufs:
	scenic_rdma_srq_free(sdev, srq);
	return err;
bad:
	atomic64_inc(&sdev->sw.bad_requests);
	return err;
}

int scenic_rdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibsrq->device);
	struct scenic_rdma_srq *srq = to_ssrq(ibsrq);
	struct scenic_aq_modify_srq c = {
		.hdr.opcode = SCENIC_AQ_OP_MODIFY_SRQ,
		.srqn = cpu_to_le32(srq->srqn),
	};

	if (scenic_rdma_dead(sdev))
		return -EIO;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		atomic64_inc(&sdev->sw.bad_requests);
		return -EINVAL;
	}
	if (mask & IB_SRQ_MAX_WR) {
		ibdev_dbg(ibsrq->device, "modify_srq %u: resizing an SRQ is not supported\n",
			  srq->srqn);
		return -EOPNOTSUPP;
	}
	if (mask & ~IB_SRQ_LIMIT) {
		atomic64_inc(&sdev->sw.bad_requests);
		return -EINVAL;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->entries) {
		ibdev_dbg(ibsrq->device, "modify_srq %u: limit %u above the %u slots\n",
			  srq->srqn, attr->srq_limit, srq->entries);
		atomic64_inc(&sdev->sw.bad_requests);
		return -EINVAL;
	}
	c.mask = cpu_to_le32(FIELD_PREP(SCENIC_AQ_MODIFY_SRQ_MASK_MASK, 1));
	c.limit = cpu_to_le32(attr->srq_limit);
	/* before the command: the card may fire as soon as it is armed */
	if (attr->srq_limit)
		set_bit(SCENIC_RDMA_SRQ_EV_ARMED, &srq->ev_flags);
	else
		clear_bit(SCENIC_RDMA_SRQ_EV_ARMED, &srq->ev_flags);
	return scenic_rdma_cmd(sdev, &c);
}

int scenic_rdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibsrq->device);
	struct scenic_rdma_srq *srq = to_ssrq(ibsrq);
	struct scenic_aq_query_srq c = {
		.hdr.opcode = SCENIC_AQ_OP_QUERY_SRQ,
		.srqn = cpu_to_le32(srq->srqn),
	};
	struct scenic_acq_query_srq res;
	int err;

	if (scenic_rdma_dead(sdev))
		return -EIO;
	err = scenic_rdma_cmd_res(sdev, &c, &res);
	if (err)
		return err;
	attr->max_wr = srq->entries;
	attr->max_sge = SCENIC_RQ_STRIDE_SGES(srq->stride);
	/* the card's limit: 0 once the event fired (IBA: the SRQ is disarmed) */
	attr->srq_limit = FIELD_GET(SCENIC_ACQ_QUERY_SRQ_ARMED_MASK,
				    le32_to_cpu(res.flags)) ?
			  le32_to_cpu(res.limit) : 0;
	return 0;
}

int scenic_rdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibsrq->device);
	struct scenic_rdma_srq *srq = to_ssrq(ibsrq);
	struct scenic_aq_destroy_srq destroy = {
		.hdr.opcode = SCENIC_AQ_OP_DESTROY_SRQ,
		.srqn = cpu_to_le32(srq->srqn),
	};
	int err;

	/* the core refuses while QPs use it; the card would say BUSY too */
	err = scenic_rdma_cmd(sdev, &destroy);
	if (err && err != -EIO)
		return err;
	xa_erase(&sdev->srq_xa, srq->srqn);
	scenic_rdma_events_drain(sdev);
	scenic_rdma_srq_free(sdev, srq);
	return 0;
}
