// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko queue pairs. User RC QPs only: SQ and RQ
 * rings and a 4 KiB status page (send-completion counter, state) in
 * coherent memory, the QP's doorbell page in BAR4. Modify translates the
 * ib_qp_attr into the card's MODIFY_QP slots (uapi/scenic_rdma.h).
 *
 * QP1 (GSI) is the one kernel QP: software, in scenic_rdma_gsi.c.
 * User UD QPs need RDMA.FEATURES.ud; their MTU is the port's, written at
 * INIT -> RTR. A QP created with an SRQ (RDMA.FEATURES.srq) has no RQ ring:
 * the card takes its receive WQEs from the SRQ (scenic_rdma_srq.c).
 * Not supported: other kernel QPs.
 */

#include <linux/etherdevice.h>
#include <linux/log2.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "scenic_rdma_drv.h"

/* The modify mask bits the card understands. */
#define SCENIC_QP_MODIFY_MASK (IB_QP_STATE | IB_QP_CUR_STATE |		\
	IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_AV |	\
	IB_QP_PATH_MTU | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |		\
	IB_QP_RNR_RETRY | IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC |	\
	IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |	\
	IB_QP_DEST_QPN | IB_QP_QKEY)

/* IBA's UD attributes (ib_modify_qp_is_ok() checks which go with a transition) */
#define SCENIC_UD_MODIFY_MASK (IB_QP_STATE | IB_QP_CUR_STATE |		\
	IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY | IB_QP_SQ_PSN)

#define SCENIC_QKEY_CONTROLLED	0x80000000u

#define SCENIC_PSN_MASK		0xffffff
#define SCENIC_QPN_MASK		0xffffff
#define SCENIC_FLOW_LABEL_MASK	0xfffff

static int scenic_rdma_qp_check_init(struct scenic_rdma_dev *sdev,
				     const struct ib_qp_init_attr *init)
{
	struct ib_device *ibdev = &sdev->ibdev;

	if (init->qp_type != IB_QPT_RC &&
	    (init->qp_type != IB_QPT_UD || !sdev->max_ah) &&
	    (init->qp_type != IB_QPT_UC ||
	     !(sdev->features & SCENIC_RDMA_FEATURES_UC_MASK))) {
		ibdev_dbg(ibdev, "create_qp: QP type %d not supported by this card (RDMA.FEATURES 0x%x)\n",
			  init->qp_type, sdev->features);
		return -EOPNOTSUPP;
	}
	if (init->create_flags) {
		ibdev_dbg(ibdev, "create_qp: create_flags 0x%x not supported\n",
			  init->create_flags);
		return -EOPNOTSUPP;
	}
	if (init->srq && !sdev->max_srq) {
		ibdev_dbg(ibdev, "create_qp: this card has no SRQs\n");
		return -EOPNOTSUPP;
	}
	if (init->srq && init->srq->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (init->cap.max_send_wr > SCENIC_RDMA_MAX_WR ||
	    (!init->srq && init->cap.max_recv_wr > SCENIC_RDMA_MAX_WR) ||
	    init->cap.max_send_sge > sdev->max_sq_sge ||
	    init->cap.max_recv_sge > sdev->max_rq_sge ||
	    init->cap.max_inline_data > sdev->max_inline) {
		ibdev_dbg(ibdev, "create_qp: caps %u/%u WRs, %u/%u SGEs, %u inline exceed %u/%u, %u/%u, %u\n",
			  init->cap.max_send_wr, init->cap.max_recv_wr,
			  init->cap.max_send_sge, init->cap.max_recv_sge,
			  init->cap.max_inline_data, SCENIC_RDMA_MAX_WR,
			  SCENIC_RDMA_MAX_WR, sdev->max_sq_sge,
			  sdev->max_rq_sge, sdev->max_inline);
		return -EINVAL;
	}
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	return 0;
}

/* A ring of @bytes, a power of two of @slot-byte slots, >= @wr slots. */
static int scenic_rdma_ring_entries(struct scenic_rdma_dev *sdev,
				    const char *name, u32 bytes, u32 slot,
				    u32 wr, u32 *entries)
{
	u32 n = bytes / slot;

	if (!is_power_of_2(bytes) || bytes % slot ||
	    n < SCENIC_RDMA_MIN_WR || n > SCENIC_RDMA_MAX_WR || n < wr) {
		ibdev_dbg(&sdev->ibdev, "create_qp: %s ring of %u bytes: need a power of two of %u-byte slots, %u..%u slots and at least %u\n",
			  name, bytes, slot, SCENIC_RDMA_MIN_WR,
			  SCENIC_RDMA_MAX_WR, wr);
		return -EINVAL;
	}
	*entries = n;
	return 0;
}

static u32 scenic_rdma_rq_wqe_bytes(const struct scenic_rdma_qp *qp)
{
	return SCENIC_RQ_WQE_BYTES << qp->rq_stride;
}

/*
 * The RQ stride of @wqe_size bytes (0: the smallest), which must hold
 * @max_recv_sge SGEs; larger than 64 bytes only on cards with the feature.
 */
static int scenic_rdma_rq_stride(struct scenic_rdma_dev *sdev, u16 wqe_size,
				 u32 max_recv_sge, u8 *stride)
{
	u32 bytes = wqe_size ? wqe_size : SCENIC_RQ_WQE_BYTES;
	u8 n = 0;

	while (n < SCENIC_RQ_MAX_STRIDE && (SCENIC_RQ_WQE_BYTES << n) < bytes)
		n++;
	if ((SCENIC_RQ_WQE_BYTES << n) != bytes ||
	    (n && !(sdev->features & SCENIC_RDMA_FEATURES_RQ_STRIDE_MASK)) ||
	    max_recv_sge > SCENIC_RQ_STRIDE_SGES(n)) {
		ibdev_dbg(&sdev->ibdev, "create_qp: RQ slots of %u bytes for %u SGEs: need 64 << n bytes (n <= %u on this card) holding (bytes - 16) / 16 SGEs\n",
			  bytes, max_recv_sge,
			  sdev->features & SCENIC_RDMA_FEATURES_RQ_STRIDE_MASK ?
			  SCENIC_RQ_MAX_STRIDE : 0);
		return -EINVAL;
	}
	*stride = n;
	return 0;
}

static int scenic_rdma_qp_check_cmd(struct scenic_rdma_dev *sdev,
				    const struct scenic_ibv_create_qp *cmd,
				    const struct ib_qp_init_attr *init,
				    struct scenic_rdma_qp *qp)
{
	struct ib_device *ibdev = &sdev->ibdev;
	int err;

	if (cmd->comp_mask & ~(SCENIC_CREATE_QP_CMD_COMP_MASK_SCU |
			       SCENIC_CREATE_QP_CMD_COMP_MASK_ONE_MAP)) {
		ibdev_dbg(ibdev, "create_qp: unknown comp_mask 0x%x\n",
			  cmd->comp_mask);
		return -EINVAL;
	}
	if (!scenic_rdma_zeroed(sdev, cmd->reserved_70,
				sizeof(cmd->reserved_70), "create_qp") ||
	    !scenic_rdma_zeroed(sdev, cmd->reserved_b0,
				sizeof(cmd->reserved_b0), "create_qp"))
		return -EINVAL;
	if (cmd->flags) {
		ibdev_dbg(ibdev, "create_qp: unknown flags 0x%x\n", cmd->flags);
		return -EINVAL;
	}
	err = scenic_rdma_ring_entries(sdev, "SQ", cmd->sq_ring_size,
				       SCENIC_SQ_WQE_BYTES,
				       init->cap.max_send_wr, &qp->sq_entries);
	if (err)
		return err;
	if (init->srq) {
		/* the SRQ's ring holds the receive WQEs: no RQ */
		if (cmd->rq_ring_size || cmd->rq_wqe_size) {
			ibdev_dbg(ibdev, "create_qp: an RQ ring (%u bytes) next to an SRQ\n",
				  cmd->rq_ring_size);
			return -EINVAL;
		}
		qp->rq_stride = 0;
		qp->rq_entries = 0;
	} else {
		err = scenic_rdma_rq_stride(sdev, cmd->rq_wqe_size,
					    init->cap.max_recv_sge,
					    &qp->rq_stride);
		if (err)
			return err;
		err = scenic_rdma_ring_entries(sdev, "RQ", cmd->rq_ring_size,
					       scenic_rdma_rq_wqe_bytes(qp),
					       init->cap.max_recv_wr,
					       &qp->rq_entries);
		if (err)
			return err;
	}
	qp->scu = 0;
	if (cmd->comp_mask & SCENIC_CREATE_QP_CMD_COMP_MASK_SCU) {
		if (cmd->scu_index >= sdev->num_scus) {
			ibdev_dbg(ibdev, "create_qp: SCU %u, the card has %u\n",
				  cmd->scu_index, sdev->num_scus);
			return -EINVAL;
		}
		qp->scu = cmd->scu_index;
	}
	return 0;
}

/* The largest SQ + RQ + doorbell record put in one buffer and mapping */
#define SCENIC_QP_ONE_MAP_MAX	(PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER)

/* @view: @len bytes at @off of @buf; it owns nothing (never released) */
static void scenic_dma_buf_view(struct scenic_dma_buf *view,
				const struct scenic_dma_buf *buf, size_t off,
				size_t len)
{
	*view = (struct scenic_dma_buf){
		.cpu_addr = (u8 *)buf->cpu_addr + off,
		.dma_addr = buf->dma_addr + off,
		.size = len,
	};
}

/*
 * SQ, RQ and doorbell record in one coherent buffer behind one mmap key:
 * one allocation, one mapping entry, one mmap() in the provider.
 */
static int scenic_rdma_qp_alloc_rings(struct scenic_rdma_dev *sdev,
				      struct scenic_rdma_ucontext *suctx,
				      struct scenic_rdma_qp *qp,
				      struct scenic_ibv_create_qp_resp *resp)
{
	size_t sq = PAGE_ALIGN((size_t)qp->sq_entries * SCENIC_SQ_WQE_BYTES);
	size_t rq = PAGE_ALIGN((size_t)qp->rq_entries * scenic_rdma_rq_wqe_bytes(qp));
	int err;

	BUILD_BUG_ON(sizeof(struct scenic_qp_dbrec) > PAGE_SIZE);
	err = scenic_dma_buf_alloc(sdev, suctx, &qp->rings, sq + rq + PAGE_SIZE);
	if (err)
		return err;
	err = scenic_dma_buf_expose(sdev, &suctx->ibucontext, &qp->rings,
				    SCENIC_MMAP_DMA_RW, &resp->sq_mmap_key);
	if (err)
		return err;
	scenic_dma_buf_view(&qp->sq, &qp->rings, 0, sq);
	scenic_dma_buf_view(&qp->rq, &qp->rings, sq, rq);
	scenic_dma_buf_view(&qp->dbrec, &qp->rings, sq + rq, PAGE_SIZE);
	resp->comp_mask |= SCENIC_CREATE_QP_RESP_COMP_MASK_ONE_MAP;
	return 0;
}

static int scenic_rdma_qp_alloc_bufs(struct scenic_rdma_dev *sdev,
				     struct scenic_rdma_ucontext *suctx,
				     struct scenic_rdma_qp *qp, bool one_map,
				     struct scenic_ibv_create_qp_resp *resp)
{
	struct ib_ucontext *uctx = &suctx->ibucontext;
	int err;

	/*
	 * Only while the one buffer stays a cheap allocation: large rings
	 * keep their own buffers (the response then says so).
	 */
	if (one_map &&
	    PAGE_ALIGN((size_t)qp->sq_entries * SCENIC_SQ_WQE_BYTES) +
	    PAGE_ALIGN((size_t)qp->rq_entries * scenic_rdma_rq_wqe_bytes(qp)) +
	    PAGE_SIZE <= SCENIC_QP_ONE_MAP_MAX) {
		err = scenic_rdma_qp_alloc_rings(sdev, suctx, qp, resp);
		if (err)
			return err;
	} else {
		err = scenic_dma_buf_alloc(sdev, suctx, &qp->sq,
					   (size_t)qp->sq_entries *
					   SCENIC_SQ_WQE_BYTES);
		if (err)
			return err;
		if (qp->rq_entries) {
			err = scenic_dma_buf_alloc(sdev, suctx, &qp->rq,
						   (size_t)qp->rq_entries *
						   scenic_rdma_rq_wqe_bytes(qp));
			if (err)
				return err;
		}
		err = scenic_dma_buf_alloc(sdev, suctx, &qp->dbrec,
					   sizeof(struct scenic_qp_dbrec));
		if (err)
			return err;
		err = scenic_dma_buf_expose(sdev, uctx, &qp->sq,
					    SCENIC_MMAP_DMA_RW,
					    &resp->sq_mmap_key);
		if (err)
			return err;
		if (qp->rq_entries) {
			err = scenic_dma_buf_expose(sdev, uctx, &qp->rq,
						    SCENIC_MMAP_DMA_RW,
						    &resp->rq_mmap_key);
			if (err)
				return err;
		}
		err = scenic_dma_buf_expose(sdev, uctx, &qp->dbrec,
					    SCENIC_MMAP_DMA_RW,
					    &resp->dbrec_mmap_key);
		if (err)
			return err;
	}
	err = scenic_dma_buf_alloc(sdev, suctx, &qp->status, SCENIC_RDMA_STATUS_BYTES);
	if (err)
		return err;
	err = scenic_dma_buf_expose(sdev, uctx, &qp->status,
				    SCENIC_MMAP_DMA_RO, &resp->cnt_mmap_key);
	if (err)
		return err;
	resp->comp_mask |= SCENIC_CREATE_QP_RESP_COMP_MASK_DBREC;
	qp->db_entry = scenic_rdma_db_expose(sdev, uctx, qp->qpn,
					     &sdev->qp_ida, qp->qpn,
					     &resp->db_mmap_key);
	if (IS_ERR(qp->db_entry)) {
		err = PTR_ERR(qp->db_entry);
		qp->db_entry = NULL;
		return err;
	}
	return 0;
}

/*
 * Frees the QP's memory (or leaves it to the last mapping) and its number:
 * once the doorbell page is exposed, its entry frees the number, after the
 * last mapping of the page is gone.
 */
static void scenic_rdma_qp_free_bufs(struct scenic_rdma_dev *sdev,
				     struct scenic_rdma_qp *qp)
{
	if (qp->rings.cpu_addr) {
		/* views into rings: nothing of their own to free */
		memset(&qp->dbrec, 0, sizeof(qp->dbrec));
		memset(&qp->rq, 0, sizeof(qp->rq));
		memset(&qp->sq, 0, sizeof(qp->sq));
	}
	scenic_dma_buf_release(sdev, &qp->rings);
	scenic_dma_buf_release(sdev, &qp->dbrec);
	scenic_dma_buf_release(sdev, &qp->status);
	scenic_dma_buf_release(sdev, &qp->rq);
	scenic_dma_buf_release(sdev, &qp->sq);
	if (qp->db_entry)
		rdma_user_mmap_entry_remove(qp->db_entry);
	else
		ida_free(&sdev->qp_ida, qp->qpn);
	qp->db_entry = NULL;
}

int scenic_rdma_create_qp(struct ib_qp *ibqp,
			  struct ib_qp_init_attr *init,
			  struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibqp->device);
	struct scenic_rdma_qp *qp = to_sqp(ibqp);
	struct scenic_ibv_create_qp_resp resp = {};
	struct scenic_ibv_create_qp cmd = {};
	struct scenic_rdma_ucontext *suctx;
	struct scenic_aq_create_qp create = {
		.hdr.opcode = SCENIC_AQ_OP_CREATE_QP,
	};
	struct scenic_aq_destroy_qp destroy = {
		.hdr.opcode = SCENIC_AQ_OP_DESTROY_QP,
	};
	int err, id;

	if (scenic_rdma_dead(sdev))
		return -EIO;
	if (!udata) {
		if (init->qp_type == IB_QPT_GSI)
			return scenic_gsi_create_qp(sdev, qp, init);
		ibdev_dbg(ibqp->device, "create_qp: kernel QPs other than QP1 are not supported\n");
		return -EOPNOTSUPP;
	}
	if (!sdev->db_phys) {
		ibdev_dbg(ibqp->device, "create_qp: the card has no doorbell BAR\n");
		return -EOPNOTSUPP;
	}
	err = scenic_rdma_qp_check_init(sdev, init);
	if (err)
		goto bad;
	err = scenic_rdma_udata_cmd(sdev, udata, &cmd, sizeof(cmd),
				    offsetofend(struct scenic_ibv_create_qp,
						rq_ring_size));
	if (err)
		return err;
	err = scenic_rdma_qp_check_cmd(sdev, &cmd, init, qp);
	if (err)
		goto bad;
	if (init->qp_type != IB_QPT_RC && qp->scu) {
		ibdev_dbg(ibqp->device, "create_qp: only RC messages pass the SCUs (SCU %u asked)\n",
			  qp->scu);
		err = -EINVAL;
		goto bad;
	}
	if (udata->outlen < SCENIC_CREATE_QP_RESP_MIN) {
		ibdev_dbg(ibqp->device, "create_qp: response buffer of %zu bytes, need %zu\n",
			  udata->outlen, SCENIC_CREATE_QP_RESP_MIN);
		err = -EINVAL;
		goto bad;
	}
	suctx = rdma_udata_to_drv_context(udata, struct scenic_rdma_ucontext,
					  ibucontext);
	if (!suctx)
		return -EINVAL;

	id = ida_alloc_range(&sdev->qp_ida, SCENIC_RDMA_RSVD_QPS,
			     sdev->max_qp - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	qp->qpn = id;
	mutex_init(&qp->lock);

	err = scenic_rdma_qp_alloc_bufs(sdev, suctx, qp,
					cmd.comp_mask &
					SCENIC_CREATE_QP_CMD_COMP_MASK_ONE_MAP,
					&resp);
	if (err)
		goto err_bufs;

	create.qpn = cpu_to_le32(qp->qpn);
	create.pdn = cpu_to_le32(to_spd(ibqp->pd)->pdn);
	create.sq_addr = cpu_to_le64(qp->sq.dma_addr);
	/* an SRQ QP: rq_addr, rq_log2 and rq_stride 0 (one map: a 0-byte view) */
	create.rq_addr = cpu_to_le64(init->srq ? 0 : qp->rq.dma_addr);
	create.sq_log2 = FIELD_PREP(SCENIC_AQ_CREATE_QP_SQ_LOG2_MASK,
				    ilog2(qp->sq_entries));
	create.rq_log2 = FIELD_PREP(SCENIC_AQ_CREATE_QP_RQ_LOG2_MASK,
				    init->srq ? 0 : ilog2(qp->rq_entries));
	create.scu = qp->scu;
	if (init->qp_type == IB_QPT_UD)
		create.type = SCENIC_QP_TYPE_UD;
	else if (init->qp_type == IB_QPT_UC)
		create.type = SCENIC_QP_TYPE_UC;
	else
		create.type = SCENIC_QP_TYPE_RC;
	create.flags = FIELD_PREP(SCENIC_AQ_CREATE_QP_RQ_STRIDE_MASK,
				  qp->rq_stride);
	if (init->srq) {
		create.flags |= FIELD_PREP(SCENIC_AQ_CREATE_QP_SRQ_MASK, 1);
		create.srqn = cpu_to_le16(to_ssrq(init->srq)->srqn);
	}
	create.send_cqn = cpu_to_le32(to_scq(init->send_cq)->cqn);
	create.recv_cqn = cpu_to_le32(to_scq(init->recv_cq)->cqn);
	create.status_page_addr = cpu_to_le64(qp->status.dma_addr);
	create.dbrec_addr = cpu_to_le64(qp->dbrec.dma_addr);
	err = scenic_rdma_cmd(sdev, &create);
	if (err)
		goto err_bufs;
	err = xa_insert(&sdev->qp_xa, qp->qpn, qp, GFP_KERNEL);
	if (err)
		goto err_hw;

	resp.qp_idx = qp->qpn;
	resp.sq_mmap_size = qp->sq.size;
	resp.rq_mmap_size = qp->rq.size;
	resp.sq_db_off = SCENIC_DB_SQ;
	resp.rq_db_off = SCENIC_DB_RQ;
	resp.cnt_off = 0;
	resp.scu_index = qp->scu;
	err = scenic_rdma_udata_resp(sdev, udata, &resp, sizeof(resp),
				     SCENIC_CREATE_QP_RESP_MIN);
	if (err)
		goto err_xa;

	ibqp->qp_num = qp->qpn;
	init->cap.max_send_wr = qp->sq_entries;
	init->cap.max_recv_wr = qp->rq_entries;
	init->cap.max_recv_sge = init->srq ? 0 :
				 SCENIC_RQ_STRIDE_SGES(qp->rq_stride);
	qp->cap = init->cap;
	qp->sq_sig_type = init->sq_sig_type;
	qp->attr.qp_state = IB_QPS_RESET;
	return 0;

err_xa:
	xa_erase(&sdev->qp_xa, qp->qpn);
err_hw:
	destroy.qpn = cpu_to_le32(qp->qpn);
	scenic_rdma_cmd(sdev, &destroy);
	scenic_rdma_events_drain(sdev);
err_bufs:
	scenic_rdma_qp_free_bufs(sdev, qp);
	mutex_destroy(&qp->lock);
	return err;
bad:
	atomic64_inc(&sdev->sw.bad_requests);
	return err;
}

int scenic_rdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibqp->device);
	struct scenic_rdma_qp *qp = to_sqp(ibqp);
	struct scenic_aq_destroy_qp destroy = {
		.hdr.opcode = SCENIC_AQ_OP_DESTROY_QP,
		.qpn = cpu_to_le32(qp->qpn),
	};
	int err;

	if (qp->gsi) {
		scenic_gsi_destroy_qp(sdev, qp);
		return 0;
	}
	/* -EIO: the card is dead or was reset and has forgotten the QP */
	err = scenic_rdma_cmd(sdev, &destroy);
	if (err && err != -EIO)
		return err;
	/* takes the lock the event handler holds while it calls event_handler */
	xa_erase(&sdev->qp_xa, qp->qpn);
	/* events the card queued for this QP never reach a later holder */
	scenic_rdma_events_drain(sdev);
	scenic_rdma_qp_free_bufs(sdev, qp);
	mutex_destroy(&qp->lock);
	return 0;
}

/*
 * QUERY_QP: the card's view of the QP in @res; @state is its state as an
 * ib_qp_state.
 */
int scenic_rdma_qp_hw_query(struct scenic_rdma_dev *sdev,
			    struct scenic_rdma_qp *qp,
			    struct scenic_acq_query_qp *res,
			    enum ib_qp_state *state)
{
	struct scenic_aq_query_qp c = {
		.hdr.opcode = SCENIC_AQ_OP_QUERY_QP,
		.qpn = cpu_to_le32(qp->qpn),
	};
	int err;

	err = scenic_rdma_cmd_res(sdev, &c, res);
	if (err)
		return err;
	if (res->state > SCENIC_QP_STATE_ERR) {
		ibdev_err_ratelimited(&sdev->ibdev, "QUERY_QP(%u): card reports state %u\n",
				      qp->qpn, res->state);
		return -EIO;
	}
	*state = scenic_qp_state_to_ib(res->state);
	return 0;
}

/*
 * The QP's state as the card last wrote it to the status page. The card
 * writes every change there before it completes the command that made it,
 * and before it reports an error it entered by itself, so this is as fresh
 * as a QUERY_QP without the command.
 */
static int scenic_rdma_qp_card_state(struct scenic_rdma_dev *sdev,
				     struct scenic_rdma_qp *qp,
				     enum ib_qp_state *state)
{
	const struct scenic_qp_status *st = qp->status.cpu_addr;
	u32 card = le32_to_cpu(READ_ONCE(st->state));

	if (card > SCENIC_QP_STATE_ERR) {
		ibdev_err_ratelimited(&sdev->ibdev, "QP %u: status page holds state %u\n",
				      qp->qpn, card);
		return -EIO;
	}
	*state = scenic_qp_state_to_ib(card);
	return 0;
}

/* The address vector fields of MODIFY_QP from a RoCE v2 address vector. */
static int scenic_rdma_qp_av(struct scenic_rdma_dev *sdev,
			     const struct rdma_ah_attr *ah,
			     struct scenic_aq_modify_qp *c)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;
	bool v4;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH)) {
		ibdev_dbg(&sdev->ibdev, "modify_qp: address vector is not RoCE with a GRH\n");
		return -EINVAL;
	}
	grh = rdma_ah_read_grh(ah);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr) {
		ibdev_dbg(&sdev->ibdev, "modify_qp: no source GID attribute\n");
		return -EINVAL;
	}
	if (sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		ibdev_dbg(&sdev->ibdev, "modify_qp: GID type %d, only RoCE v2 is supported\n",
			  sgid_attr->gid_type);
		return -EINVAL;
	}
	v4 = ipv6_addr_v4mapped((const struct in6_addr *)sgid_attr->gid.raw);
	if (v4 != ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw)) {
		ibdev_dbg(&sdev->ibdev, "modify_qp: source %pI6 and destination %pI6 are not the same IP version\n",
			  sgid_attr->gid.raw, grh->dgid.raw);
		return -EINVAL;
	}
	if (!is_valid_ether_addr(ah->roce.dmac)) {
		ibdev_dbg(&sdev->ibdev, "modify_qp: destination MAC %pM unresolved\n",
			  ah->roce.dmac);
		return -EINVAL;
	}

	memcpy(c->dgid, grh->dgid.raw, sizeof(c->dgid));
	memcpy(c->sgid, sgid_attr->gid.raw, sizeof(c->sgid));
	memcpy(c->dmac, ah->roce.dmac, sizeof(c->dmac));
	c->hop_limit = grh->hop_limit;
	c->traffic_class = grh->traffic_class;
	c->flow = cpu_to_le32(FIELD_PREP(SCENIC_AQ_MODIFY_QP_FLOW_LABEL_MASK,
					 grh->flow_label &
					 SCENIC_FLOW_LABEL_MASK) |
			      FIELD_PREP(SCENIC_AQ_MODIFY_QP_IPV4_MASK, v4));
	return 0;
}

/* Range checks ib_modify_qp_is_ok() does not do. */
static int scenic_rdma_qp_check_attr(struct scenic_rdma_dev *sdev,
				     const struct ib_qp_attr *attr, int mask)
{
	struct ib_device *ibdev = &sdev->ibdev;

	if ((mask & IB_QP_PORT) && attr->port_num != SCENIC_RDMA_PORT) {
		ibdev_dbg(ibdev, "modify_qp: port %u\n", attr->port_num);
		return -EINVAL;
	}
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index) {
		ibdev_dbg(ibdev, "modify_qp: pkey index %u\n", attr->pkey_index);
		return -EINVAL;
	}
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)) {
		ibdev_dbg(ibdev, "modify_qp: path MTU %d\n", attr->path_mtu);
		return -EINVAL;
	}
	if (((mask & IB_QP_TIMEOUT) && attr->timeout > 31) ||
	    ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7) ||
	    ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7) ||
	    ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)) {
		ibdev_dbg(ibdev, "modify_qp: timeout %u retry %u rnr_retry %u min_rnr_timer %u out of range\n",
			  attr->timeout, attr->retry_cnt, attr->rnr_retry,
			  attr->min_rnr_timer);
		return -EINVAL;
	}
	/*
	 * The initiator depth (max_rd_atomic) is clamped to what the card
	 * holds: fewer outstanding READs/atomics than the responder allows is
	 * always safe, and perftest asks for the peer's maximum (rxe: 128).
	 * The responder depth is a promise to the peer: above the card's, refuse.
	 */
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SCENIC_RDMA_MAX_RD_ATOMIC) {
		ibdev_dbg(ibdev, "modify_qp: max_dest_rd_atomic %u above %u\n",
			  attr->max_dest_rd_atomic, SCENIC_RDMA_MAX_RD_ATOMIC);
		return -EINVAL;
	}
	if (((mask & IB_QP_SQ_PSN) && attr->sq_psn > SCENIC_PSN_MASK) ||
	    ((mask & IB_QP_RQ_PSN) && attr->rq_psn > SCENIC_PSN_MASK) ||
	    ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SCENIC_QPN_MASK)) {
		ibdev_dbg(ibdev, "modify_qp: PSN or QPN wider than 24 bits\n");
		return -EINVAL;
	}
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC))) {
		ibdev_dbg(ibdev, "modify_qp: access flags 0x%x\n",
			  attr->qp_access_flags);
		return -EINVAL;
	}
	return 0;
}

/* The MODIFY_QP command for @attr/@mask. */
static int scenic_rdma_qp_build_modify(struct scenic_rdma_dev *sdev,
				       struct scenic_rdma_qp *qp,
				       const struct ib_qp_attr *attr, int mask,
				       struct scenic_aq_modify_qp *c)
{
	u32 m = 0;
	u8 access = 0;
	int err;

	c->hdr.opcode = SCENIC_AQ_OP_MODIFY_QP;
	c->qpn = cpu_to_le32(qp->qpn);
	if (mask & IB_QP_STATE) {
		err = scenic_qp_state_from_ib(attr->qp_state);
		if (err < 0)
			return err;
		m |= SCENIC_MODIFY_QP_ATTR_STATE;
		c->state = err;
	}
	if (mask & IB_QP_DEST_QPN) {
		m |= SCENIC_MODIFY_QP_ATTR_DEST_QPN;
		c->dest_qpn = cpu_to_le32(FIELD_PREP(SCENIC_AQ_MODIFY_QP_DEST_QPN_MASK,
						     attr->dest_qp_num));
	}
	if (mask & IB_QP_SQ_PSN) {
		m |= SCENIC_MODIFY_QP_ATTR_SQ_PSN;
		c->sq_psn = cpu_to_le32(FIELD_PREP(SCENIC_AQ_MODIFY_QP_SQ_PSN_MASK,
						   attr->sq_psn));
	}
	if (mask & IB_QP_RQ_PSN) {
		m |= SCENIC_MODIFY_QP_ATTR_RQ_PSN;
		c->rq_psn = cpu_to_le32(FIELD_PREP(SCENIC_AQ_MODIFY_QP_RQ_PSN_MASK,
						   attr->rq_psn));
	}
	if (mask & IB_QP_PATH_MTU) {
		m |= SCENIC_MODIFY_QP_ATTR_PATH_MTU;
		c->path_mtu = cpu_to_le16(ib_mtu_enum_to_int(attr->path_mtu));
	}
	if (mask & IB_QP_TIMEOUT) {
		m |= SCENIC_MODIFY_QP_ATTR_TIMEOUT;
		c->timeout = FIELD_PREP(SCENIC_AQ_MODIFY_QP_TIMEOUT_MASK,
					attr->timeout);
	}
	if (mask & IB_QP_RETRY_CNT) {
		m |= SCENIC_MODIFY_QP_ATTR_RETRY_CNT;
		c->retry_cnt = FIELD_PREP(SCENIC_AQ_MODIFY_QP_RETRY_CNT_MASK,
					  attr->retry_cnt);
	}
	if (mask & IB_QP_RNR_RETRY) {
		m |= SCENIC_MODIFY_QP_ATTR_RNR_RETRY;
		c->rnr_retry = FIELD_PREP(SCENIC_AQ_MODIFY_QP_RNR_RETRY_MASK,
					  attr->rnr_retry);
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		m |= SCENIC_MODIFY_QP_ATTR_MIN_RNR_TIMER;
		c->min_rnr_timer = FIELD_PREP(SCENIC_AQ_MODIFY_QP_MIN_RNR_TIMER_MASK,
					      attr->min_rnr_timer);
	}
	if (mask & IB_QP_ACCESS_FLAGS) {
		m |= SCENIC_MODIFY_QP_ATTR_ACCESS;
		if (attr->qp_access_flags & IB_ACCESS_REMOTE_WRITE)
			access |= SCENIC_ACCESS_REMOTE_WRITE;
		if (attr->qp_access_flags & IB_ACCESS_REMOTE_READ)
			access |= SCENIC_ACCESS_REMOTE_READ;
		if (attr->qp_access_flags & IB_ACCESS_REMOTE_ATOMIC)
			access |= SCENIC_ACCESS_REMOTE_ATOMIC;
		c->access = FIELD_PREP(SCENIC_AQ_MODIFY_QP_ACCESS_MASK, access);
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		m |= SCENIC_MODIFY_QP_ATTR_MAX_RD_ATOMIC;
		c->max_rd_atomic = min_t(u32, attr->max_rd_atomic,
					 SCENIC_RDMA_MAX_RD_ATOMIC);
	}
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		m |= SCENIC_MODIFY_QP_ATTR_MAX_DEST_RD_ATOMIC;
		c->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	}
	if (mask & IB_QP_AV) {
		err = scenic_rdma_qp_av(sdev, &attr->ah_attr, c);
		if (err)
			return err;
		m |= SCENIC_MODIFY_QP_ATTR_AV;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD) {
		if (mask & IB_QP_QKEY) {
			m |= SCENIC_MODIFY_QP_ATTR_QKEY;
			c->qkey = cpu_to_le32(attr->qkey);
		}
		if (mask & IB_QP_PKEY_INDEX)
			m |= SCENIC_MODIFY_QP_ATTR_PKEY_INDEX;	/* 0, checked */
		/* a datagram is one packet of at most the port's MTU */
		if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RTR) {
			struct net_device *ndev = READ_ONCE(sdev->netdev);
			enum ib_mtu mtu = ndev ? iboe_get_mtu(READ_ONCE(ndev->mtu)) :
						 IB_MTU_1024;

			m |= SCENIC_MODIFY_QP_ATTR_PATH_MTU;
			c->path_mtu = cpu_to_le16(ib_mtu_enum_to_int(mtu));
		}
	}
	c->attr_mask = cpu_to_le32(FIELD_PREP(SCENIC_AQ_MODIFY_QP_ATTR_MASK_MASK,
					      m));
	return 0;
}

/* Remember what was set, for query_qp. */
static void scenic_rdma_qp_save_attr(struct scenic_rdma_qp *qp,
				     const struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *s = &qp->attr;

	if (mask & IB_QP_STATE)
		s->qp_state = attr->qp_state;
	if (mask & IB_QP_DEST_QPN)
		s->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_PATH_MTU)
		s->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		s->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		s->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		s->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		s->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_ACCESS_FLAGS)
		s->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)	/* as the card holds it */
		s->max_rd_atomic = min_t(u8, attr->max_rd_atomic,
					 SCENIC_RDMA_MAX_RD_ATOMIC);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		s->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_QKEY)
		s->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		s->ah_attr = attr->ah_attr;
		/* the core keeps the reference and fills it in on query */
		s->ah_attr.grh.sgid_attr = NULL;
	}
}

int scenic_rdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibqp->device);
	struct scenic_rdma_qp *qp = to_sqp(ibqp);
	struct scenic_aq_modify_qp c = {};
	enum ib_qp_state cur, next;
	bool drained;
	int err;

	if (qp->gsi)
		return scenic_gsi_modify_qp(sdev, qp, attr, mask);
	if (scenic_rdma_dead(sdev))
		return -EIO;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(ibqp->device, "modify_qp: unknown command bytes\n");
		err = -EOPNOTSUPP;
		goto bad;
	}
	if (mask & ~SCENIC_QP_MODIFY_MASK) {
		ibdev_dbg(ibqp->device, "modify_qp: unsupported attributes 0x%x\n",
			  mask & ~SCENIC_QP_MODIFY_MASK);
		err = -EOPNOTSUPP;
		goto bad;
	}
	err = scenic_rdma_qp_check_attr(sdev, attr, mask);
	if (err)
		goto bad;
	/* IBA: only a privileged consumer may use a controlled Q_Key */
	if ((mask & IB_QP_QKEY) && (attr->qkey & SCENIC_QKEY_CONTROLLED) &&
	    !capable(CAP_NET_RAW)) {
		err = -EPERM;
		goto bad;
	}

	mutex_lock(&qp->lock);
	/* the card moves QPs to SQE or ERR by itself: take its state */
	err = scenic_rdma_qp_card_state(sdev, qp, &cur);
	if (err)
		goto out;
	/* the transition is checked from the card's state, not a claimed one */
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		ibdev_dbg(ibqp->device, "modify_qp %u: cur_qp_state %d, the QP is in %d\n",
			  qp->qpn, attr->cur_qp_state, cur);
		atomic64_inc(&sdev->sw.bad_requests);
		err = -EINVAL;
		goto out;
	}
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	/*
	 * The IBA sets the path MTU in INIT->RTR only: a change under a
	 * running QP would change the packet size of responses in flight.
	 */
	if ((mask & IB_QP_PATH_MTU) &&
	    (cur != IB_QPS_INIT || next != IB_QPS_RTR)) {
		ibdev_dbg(ibqp->device, "modify_qp %u: path MTU may be set in INIT->RTR only, not %d -> %d\n",
			  qp->qpn, cur, next);
		atomic64_inc(&sdev->sw.bad_requests);
		err = -EINVAL;
		goto out;
	}
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		ibdev_dbg(ibqp->device, "modify_qp %u: invalid transition %d -> %d with mask 0x%x\n",
			  qp->qpn, cur, next, mask);
		atomic64_inc(&sdev->sw.bad_requests);
		err = -EINVAL;
		goto out;
	}
	err = scenic_rdma_qp_build_modify(sdev, qp, attr, mask, &c);
	if (err) {
		atomic64_inc(&sdev->sw.bad_requests);
		goto out;
	}
	/*
	 * Each move to SQD gets its own SQ_DRAINED. Cleared before the
	 * command: the card may drain and raise the event before it returns.
	 */
	drained = next == IB_QPS_SQD &&
		  test_and_clear_bit(SCENIC_RDMA_QP_EV_DRAINED, &qp->ev_flags);
	err = scenic_rdma_cmd(sdev, &c);
	if (err) {
		if (drained)
			set_bit(SCENIC_RDMA_QP_EV_DRAINED, &qp->ev_flags);
		goto out;
	}
	/* RESET returned the card's indices to 0: the records follow */
	if (next == IB_QPS_RESET)
		memset(qp->dbrec.cpu_addr, 0, sizeof(struct scenic_qp_dbrec));
	/* no error event for an ERR the user asked for (event resync) */
	if (next == IB_QPS_ERR)
		set_bit(SCENIC_RDMA_QP_EV_ERR, &qp->ev_flags);
	if (next == IB_QPS_RESET) {
		clear_bit(SCENIC_RDMA_QP_EV_ERR, &qp->ev_flags);
		clear_bit(SCENIC_RDMA_QP_EV_DRAINED, &qp->ev_flags);
		clear_bit(SCENIC_RDMA_QP_EV_LAST_WQE, &qp->ev_flags);
	}
	scenic_rdma_qp_save_attr(qp, attr, mask);
out:
	mutex_unlock(&qp->lock);
	return err;
bad:
	atomic64_inc(&sdev->sw.bad_requests);
	return err;
}

int scenic_rdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_qp_init_attr *init)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibqp->device);
	struct scenic_rdma_qp *qp = to_sqp(ibqp);
	struct scenic_acq_query_qp res;
	enum ib_qp_state state;
	int err;

	if (qp->gsi)
		return scenic_gsi_query_qp(qp, attr, mask, init);
	if (scenic_rdma_dead(sdev))
		return -EIO;
	mutex_lock(&qp->lock);
	err = scenic_rdma_qp_hw_query(sdev, qp, &res, &state);
	if (!err) {
		*attr = qp->attr;
		attr->qp_state = state;
		attr->cur_qp_state = state;
		attr->sq_psn = FIELD_GET(SCENIC_ACQ_QUERY_QP_SEND_PSN_MASK,
					 le32_to_cpu(res.send_psn));
		attr->rq_psn = FIELD_GET(SCENIC_ACQ_QUERY_QP_EXPECTED_PSN_MASK,
					 le32_to_cpu(res.expected_psn));
		qp->attr.qp_state = state;
	}
	mutex_unlock(&qp->lock);
	if (err)
		return err;

	attr->port_num = SCENIC_RDMA_PORT;
	attr->pkey_index = 0;
	attr->cap = qp->cap;
	attr->sq_draining = attr->qp_state == IB_QPS_SQD;
	attr->path_mig_state = IB_MIG_MIGRATED;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_type;
	return 0;
}

/*
 * rdma resource show qp -dd: the card's own view of the QP (QUERY_QP), so
 * that the SCU a QP was steered to can be checked on the card, not in the
 * driver's copy; and its DCQCN rate (QUERY_QP_CC).
 */
int scenic_rdma_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibqp->device);
	struct scenic_rdma_qp *qp = to_sqp(ibqp);
	struct scenic_aq_query_qp_cc ccq = {
		.hdr.opcode = SCENIC_AQ_OP_QUERY_QP_CC,
		.qpn = cpu_to_le32(qp->qpn),
	};
	struct scenic_acq_query_qp_cc cc;
	struct scenic_acq_query_qp res;
	enum ib_qp_state state;
	struct nlattr *nest;
	int err;

	if (qp->gsi || scenic_rdma_dead(sdev))
		return 0;
	mutex_lock(&qp->lock);
	err = scenic_rdma_qp_hw_query(sdev, qp, &res, &state);
	if (!err)
		err = scenic_rdma_cmd_res(sdev, &ccq, &cc);
	mutex_unlock(&qp->lock);
	if (err)
		return 0;	/* the generic attributes still print */
	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "card_state", state) ||
	    rdma_nl_put_driver_u32_hex(msg, "card_sq_psn",
				       le32_to_cpu(res.send_psn)) ||
	    rdma_nl_put_driver_u32_hex(msg, "card_rq_psn",
				       le32_to_cpu(res.expected_psn)) ||
	    rdma_nl_put_driver_u32(msg, "scu", res.scu) ||
	    rdma_nl_put_driver_u32(msg, "cc_rate_kbps",
				   le32_to_cpu(cc.rate_kbps)) ||
	    rdma_nl_put_driver_u32(msg, "cc_target_kbps",
				   le32_to_cpu(cc.target_kbps)) ||
	    rdma_nl_put_driver_u32_hex(msg, "cc_alpha",
				       le32_to_cpu(cc.alpha)) ||
	    rdma_nl_put_driver_u32(msg, "cnps_rcvd",
				   le32_to_cpu(cc.cnps_rcvd))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}
