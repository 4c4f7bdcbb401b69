// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko card events (docs/admin-queue.md 4).
 *
 * AEQ: the core's IRQ thread calls scenic_rdma_aeq_event() for QP_ERROR
 * (LAST_WQE_REACHED among them), SQ_DRAINED, CQ_ERROR, SRQ_LIMIT and TLB_MISS
 * entries. QP, CQ and SRQ events go to the object's event handler at once;
 * a TLB miss needs commands, so it is queued for the fill work on the
 * driver's ordered workqueue (the card re-raises a miss that was dropped).
 * After lost AEQ events the resync work asks the card for every QP's and
 * CQ's error state and every armed SRQ's limit (QUERY_QP, QUERY_CQ,
 * QUERY_SRQ) and delivers what was not reported.
 *
 * CEQ: a ring of CQ notifications on vector SCENIC_VEC_RDMA; each goes to
 * the CQ's comp_handler, and an OVERFLOW calls every CQ's comp_handler
 * (a spurious call is harmless, a lost one stalls an event-driven user).
 *
 * Numbers: destroy drains both queues (scenic_rdma_events_drain) after the
 * card forgot the object, and the number is reused only later, so an event
 * for a number always belongs to its current holder.
 */

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/log2.h>
#include <linux/module.h>

#include "scenic_rdma_drv.h"

static unsigned int ceq_depth = 4096;
module_param(ceq_depth, uint, 0444);
MODULE_PARM_DESC(ceq_depth, "Completion event queue entries, a power of two 16..16384 (default 4096)");

/* Entries handled before the consumer index is written back once. */
#define SCENIC_RDMA_CEQ_BATCH	256

/* IB_EVENT_CQ_ERR, once: the AEQ handler and the resync may both see it */
static void scenic_rdma_cq_event(struct scenic_rdma_cq *cq,
				 enum ib_event_type type)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = type,
	};

	if (test_and_set_bit(SCENIC_RDMA_CQ_EV_ERR, &cq->ev_flags))
		return;
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * An error or SQ_DRAINED event, once per error and per move to SQD: an event
 * raised after an AEQ overflow is both in the ring and visible to the
 * resync's QUERY_QP, and the two run on different threads.
 */
static void scenic_rdma_qp_event(struct scenic_rdma_qp *qp,
				 enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};
	int bit = type == IB_EVENT_SQ_DRAINED ? SCENIC_RDMA_QP_EV_DRAINED :
		  type == IB_EVENT_QP_LAST_WQE_REACHED ?
		  SCENIC_RDMA_QP_EV_LAST_WQE : SCENIC_RDMA_QP_EV_ERR;

	if (test_and_set_bit(bit, &qp->ev_flags))
		return;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static void scenic_rdma_ev_cq(struct scenic_rdma_dev *sdev, u32 cqn,
			      bool error)
{
	struct scenic_rdma_cq *cq;

	/* destroy_cq erases under this lock: the CQ cannot go away here */
	xa_lock(&sdev->cq_xa);
	cq = xa_load(&sdev->cq_xa, cqn);
	if (!cq) {
		xa_unlock(&sdev->cq_xa);
		atomic64_inc(&sdev->sw.events_unknown);
		ibdev_dbg(&sdev->ibdev, "event for unknown CQ %u\n", cqn);
		return;
	}
	if (!error) {
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	} else {
		ibdev_err_ratelimited(&sdev->ibdev, "CQ %u overrun\n", cqn);
		scenic_rdma_cq_event(cq, IB_EVENT_CQ_ERR);
	}
	xa_unlock(&sdev->cq_xa);
}

static void scenic_rdma_ev_qp(struct scenic_rdma_dev *sdev, u32 qpn,
			      enum ib_event_type type)
{
	struct scenic_rdma_qp *qp;

	xa_lock(&sdev->qp_xa);
	qp = xa_load(&sdev->qp_xa, qpn);
	if (!qp) {
		xa_unlock(&sdev->qp_xa);
		atomic64_inc(&sdev->sw.events_unknown);
		ibdev_dbg(&sdev->ibdev, "event %u for unknown QP %u\n", type,
			  qpn);
		return;
	}
	scenic_rdma_qp_event(qp, type);
	xa_unlock(&sdev->qp_xa);
	ibdev_dbg(&sdev->ibdev, "QP %u: %s\n", qpn, ib_event_msg(type));
}

/* IB_EVENT_SRQ_LIMIT_REACHED: the card fires once per arming (MODIFY_SRQ) */
static void scenic_rdma_ev_srq_limit(struct scenic_rdma_dev *sdev, u32 srqn)
{
	struct scenic_rdma_srq *srq;
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	/* destroy_srq erases under this lock: the SRQ cannot go away here */
	xa_lock(&sdev->srq_xa);
	srq = xa_load(&sdev->srq_xa, srqn);
	if (!srq) {
		xa_unlock(&sdev->srq_xa);
		atomic64_inc(&sdev->sw.events_unknown);
		ibdev_dbg(&sdev->ibdev, "limit event for unknown SRQ %u\n", srqn);
		return;
	}
	ev.element.srq = &srq->ibsrq;
	/* once per arming: the resync may have delivered it already */
	if (test_and_clear_bit(SCENIC_RDMA_SRQ_EV_ARMED, &srq->ev_flags)) {
		atomic64_inc(&sdev->sw.srq_limit_events);
		if (srq->ibsrq.event_handler)
			srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	xa_unlock(&sdev->srq_xa);
}

static void scenic_rdma_ev_tlb_miss(struct scenic_rdma_dev *sdev, u32 key,
				    u64 iova)
{
	bool queued = false;

	spin_lock(&sdev->miss_lock);
	if (sdev->miss_n < SCENIC_RDMA_MISS_QUEUE) {
		sdev->miss[sdev->miss_n].key = key;
		sdev->miss[sdev->miss_n].iova = iova;
		sdev->miss_n++;
		queued = true;
	}
	spin_unlock(&sdev->miss_lock);
	if (queued)
		queue_work(sdev->wq, &sdev->miss_work);
	else
		atomic64_inc(&sdev->sw.tlb_miss_dropped);
}

/* AEQ entries of the RDMA function; the core's IRQ thread, no commands. */
static void scenic_rdma_aeq_event(void *priv, const struct scenic_aeqe *ev)
{
	struct scenic_rdma_dev *sdev = priv;

	atomic64_inc(&sdev->sw.events);
	switch (ev->hdr.type) {
	case SCENIC_AEQ_TYPE_QP_ERROR: {
		const struct scenic_aeqe_qp_error *e = (const void *)ev;

		scenic_rdma_ev_qp(sdev, le32_to_cpu(e->qpn),
				  scenic_qp_err_to_ib_event(e->code));
		break;
	}
	case SCENIC_AEQ_TYPE_SQ_DRAINED: {
		const struct scenic_aeqe_sq_drained *e = (const void *)ev;

		scenic_rdma_ev_qp(sdev, le32_to_cpu(e->qpn),
				  IB_EVENT_SQ_DRAINED);
		break;
	}
	case SCENIC_AEQ_TYPE_CQ_ERROR: {
		const struct scenic_aeqe_cq_error *e = (const void *)ev;

		scenic_rdma_ev_cq(sdev, le32_to_cpu(e->cqn), true);
		break;
	}
	case SCENIC_AEQ_TYPE_SRQ_LIMIT: {
		const struct scenic_aeqe_srq_limit *e = (const void *)ev;

		scenic_rdma_ev_srq_limit(sdev, le32_to_cpu(e->srqn));
		break;
	}
	case SCENIC_AEQ_TYPE_TLB_MISS: {
		const struct scenic_aeqe_tlb_miss *e = (const void *)ev;

		scenic_rdma_ev_tlb_miss(sdev, le32_to_cpu(e->key),
					le64_to_cpu(e->iova));
		break;
	}
	default:
		atomic64_inc(&sdev->sw.events_unknown);
		ibdev_warn_ratelimited(&sdev->ibdev, "unexpected AEQ event type 0x%02x\n",
				       ev->hdr.type);
		break;
	}
}

static void scenic_rdma_aeq_resync(void *priv)
{
	struct scenic_rdma_dev *sdev = priv;

	queue_work(sdev->wq, &sdev->resync_work);
}

static const struct scenic_aux_event_ops scenic_rdma_event_ops = {
	.event = scenic_rdma_aeq_event,
	.resync = scenic_rdma_aeq_resync,
};

static void scenic_rdma_miss_work(struct work_struct *work)
{
	struct scenic_rdma_dev *sdev = container_of(work, struct scenic_rdma_dev,
						    miss_work);
	u32 key;
	u64 iova;

	for (;;) {
		spin_lock(&sdev->miss_lock);
		if (!sdev->miss_n) {
			spin_unlock(&sdev->miss_lock);
			return;
		}
		sdev->miss_n--;
		key = sdev->miss[sdev->miss_n].key;
		iova = sdev->miss[sdev->miss_n].iova;
		spin_unlock(&sdev->miss_lock);
		if (!scenic_rdma_dead(sdev))
			scenic_rdma_tlb_miss(sdev, key, iova);
	}
}

/* A QP in ERR or drained whose event was not delivered gets it now. */
static void scenic_rdma_resync_qp(struct scenic_rdma_dev *sdev,
				  struct scenic_rdma_qp *qp)
{
	struct scenic_acq_query_qp res;
	enum ib_qp_state state;

	if (qp->gsi || scenic_rdma_qp_hw_query(sdev, qp, &res, &state))
		return;
	/*
	 * last_err 0: the card raised no event for this ERR (a requester
	 * error reported by its CQE, or a flush): none is due now either.
	 */
	if (state == IB_QPS_ERR && res.last_err &&
	    !test_bit(SCENIC_RDMA_QP_EV_ERR, &qp->ev_flags)) {
		ibdev_dbg(&sdev->ibdev, "QP %u in ERR after lost events\n",
			  qp->qpn);
		scenic_rdma_qp_event(qp, scenic_qp_err_to_ib_event(res.last_err));
	}
	if (FIELD_GET(SCENIC_ACQ_QUERY_QP_SQ_DRAINED_MASK, res.flags) &&
	    !test_bit(SCENIC_RDMA_QP_EV_DRAINED, &qp->ev_flags))
		scenic_rdma_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

/* An SRQ whose limit fired while its event was lost gets it now. */
static void scenic_rdma_resync_srq(struct scenic_rdma_dev *sdev,
				   struct scenic_rdma_srq *srq)
{
	struct scenic_aq_query_srq c = {
		.hdr.opcode = SCENIC_AQ_OP_QUERY_SRQ,
		.srqn = cpu_to_le32(srq->srqn),
	};
	struct scenic_acq_query_srq res;
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (!test_bit(SCENIC_RDMA_SRQ_EV_ARMED, &srq->ev_flags) ||
	    scenic_rdma_cmd_res(sdev, &c, &res))
		return;
	if (!res.limit || FIELD_GET(SCENIC_ACQ_QUERY_SRQ_ARMED_MASK,
				    le32_to_cpu(res.flags)))
		return;
	if (test_and_clear_bit(SCENIC_RDMA_SRQ_EV_ARMED, &srq->ev_flags)) {
		atomic64_inc(&sdev->sw.srq_limit_events);
		if (srq->ibsrq.event_handler)
			srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
}

static void scenic_rdma_resync_cq(struct scenic_rdma_dev *sdev,
				  struct scenic_rdma_cq *cq)
{
	struct scenic_aq_query_cq c = {
		.hdr.opcode = SCENIC_AQ_OP_QUERY_CQ,
		.cqn = cpu_to_le32(cq->cqn),
	};
	struct scenic_acq_query_cq res;

	if (cq->sw || test_bit(SCENIC_RDMA_CQ_EV_ERR, &cq->ev_flags) ||
	    scenic_rdma_cmd_res(sdev, &c, &res))
		return;
	if (FIELD_GET(SCENIC_ACQ_QUERY_CQ_OVERRUN_MASK,
		      le32_to_cpu(res.flags)))
		scenic_rdma_cq_event(cq, IB_EVENT_CQ_ERR);
}

/*
 * AEQ events were lost: ask the card. Objects cannot be freed meanwhile:
 * destroy erases them from the xarray and then waits for @ev_lock in its
 * drain.
 */
static void scenic_rdma_resync_work(struct work_struct *work)
{
	struct scenic_rdma_dev *sdev = container_of(work, struct scenic_rdma_dev,
						    resync_work);
	struct scenic_rdma_qp *qp;
	struct scenic_rdma_srq *srq;
	struct scenic_rdma_cq *cq;
	unsigned long i;

	atomic64_inc(&sdev->sw.event_resyncs);
	mutex_lock(&sdev->ev_lock);
	xa_for_each(&sdev->qp_xa, i, qp) {
		if (scenic_rdma_dead(sdev))
			break;
		scenic_rdma_resync_qp(sdev, qp);
	}
	xa_for_each(&sdev->cq_xa, i, cq) {
		if (scenic_rdma_dead(sdev))
			break;
		scenic_rdma_resync_cq(sdev, cq);
	}
	xa_for_each(&sdev->srq_xa, i, srq) {
		if (scenic_rdma_dead(sdev))
			break;
		scenic_rdma_resync_srq(sdev, srq);
	}
	mutex_unlock(&sdev->ev_lock);
}

static void scenic_rdma_ceq_overflow(struct scenic_rdma_dev *sdev, u32 lost)
{
	struct scenic_rdma_cq *cq;
	unsigned long i;

	atomic64_inc(&sdev->sw.ceq_overflows);
	ibdev_warn_ratelimited(&sdev->ibdev, "%u CQ notifications lost (CEQ full): notifying every CQ\n",
			       lost);
	xa_lock(&sdev->cq_xa);
	xa_for_each(&sdev->cq_xa, i, cq)
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	xa_unlock(&sdev->cq_xa);
}

/* Handles every CEQ entry the card has written. (ev_lock) */
static void scenic_rdma_ceq_run(struct scenic_rdma_dev *sdev)
{
	u32 mask = BIT(sdev->ceq_log2) - 1, n = 0;
	struct scenic_ceqe *e;
	u8 ft, phase;
	u32 cqn;

	lockdep_assert_held(&sdev->ev_lock);
	while (sdev->ceq_running) {
		e = &sdev->ceq[sdev->ceq_head & mask];
		phase = ((sdev->ceq_head >> sdev->ceq_log2) & 1) ^ 1;
		ft = READ_ONCE(e->flags_type);
		if (FIELD_GET(SCENIC_CEQE_PHASE_MASK, ft) != phase)
			break;
		dma_rmb();
		cqn = le32_to_cpu(e->cqn);
		sdev->ceq_head++;
		switch (FIELD_GET(SCENIC_CEQE_TYPE_MASK, ft)) {
		case SCENIC_CEQ_TYPE_CQ_NOTIFY:
			scenic_rdma_ev_cq(sdev, cqn, false);
			break;
		case SCENIC_CEQ_TYPE_OVERFLOW:
			scenic_rdma_ceq_overflow(sdev, cqn);
			break;
		default:
			atomic64_inc(&sdev->sw.events_unknown);
			ibdev_warn_ratelimited(&sdev->ibdev, "unknown CEQ entry type 0x%02x\n",
					       (u32)FIELD_GET(SCENIC_CEQE_TYPE_MASK, ft));
			break;
		}
		if (++n % SCENIC_RDMA_CEQ_BATCH == 0) {
			scenic_rdma_wr(sdev, SCENIC_RDMA_CEQ_HEAD,
				       sdev->ceq_head &
				       SCENIC_RDMA_CEQ_HEAD_INDEX_MASK);
			cond_resched();
		}
	}
	if (n && sdev->ceq_running)
		scenic_rdma_wr(sdev, SCENIC_RDMA_CEQ_HEAD,
			       sdev->ceq_head & SCENIC_RDMA_CEQ_HEAD_INDEX_MASK);
}

static irqreturn_t scenic_rdma_irq_thread(int irq, void *data)
{
	struct scenic_rdma_dev *sdev = data;

	mutex_lock(&sdev->ev_lock);
	scenic_rdma_ceq_run(sdev);
	mutex_unlock(&sdev->ev_lock);
	/* an empty queue is no spurious interrupt: a drain may have taken it */
	return IRQ_HANDLED;
}

/*
 * Called by destroy after the card forgot a QP or CQ and the object left the
 * xarray: handles every event queued so far, so none for the old object is
 * still in a queue when its number goes to a new one.
 */
void scenic_rdma_events_drain(struct scenic_rdma_dev *sdev)
{
	scenic_aux_events_drain(sdev->sadev);
	mutex_lock(&sdev->ev_lock);
	scenic_rdma_ceq_run(sdev);
	mutex_unlock(&sdev->ev_lock);
}

/* Zero and program the CEQ; it raises SCENIC_VEC_RDMA. */
int scenic_rdma_events_start(struct scenic_rdma_dev *sdev)
{
	mutex_lock(&sdev->ev_lock);
	memset(sdev->ceq, 0, sizeof(*sdev->ceq) << sdev->ceq_log2);
	sdev->ceq_head = 0;
	scenic_rdma_wr(sdev, SCENIC_RDMA_CEQ_CFG, 0);
	scenic_rdma_wr(sdev, SCENIC_RDMA_CEQ_BASE_LO,
		       lower_32_bits(sdev->ceq_dma));
	scenic_rdma_wr(sdev, SCENIC_RDMA_CEQ_BASE_HI,
		       upper_32_bits(sdev->ceq_dma));
	scenic_rdma_wr(sdev, SCENIC_RDMA_CEQ_CFG,
		       FIELD_PREP(SCENIC_RDMA_CEQ_CFG_LOG2_DEPTH_MASK,
				  sdev->ceq_log2) |
		       FIELD_PREP(SCENIC_RDMA_CEQ_CFG_VECTOR_MASK,
				  SCENIC_VEC_RDMA) |
		       SCENIC_RDMA_CEQ_CFG_IRQ_EN_MASK |
		       SCENIC_RDMA_CEQ_CFG_ENABLE_MASK);
	sdev->ceq_running = true;
	mutex_unlock(&sdev->ev_lock);
	return 0;
}

/* The card stops writing the CEQ (not touched once the card is dead). */
void scenic_rdma_events_stop(struct scenic_rdma_dev *sdev)
{
	mutex_lock(&sdev->ev_lock);
	if (sdev->ceq_running && !scenic_rdma_dead(sdev))
		scenic_rdma_wr(sdev, SCENIC_RDMA_CEQ_CFG, 0);
	sdev->ceq_running = false;
	mutex_unlock(&sdev->ev_lock);
}

int scenic_rdma_events_init(struct scenic_rdma_dev *sdev)
{
	struct device *dev = &sdev->sadev->adev.dev;
	unsigned int depth = ceq_depth;
	int irq, err;

	if (depth < 16 || depth > 16384 || !is_power_of_2(depth)) {
		dev_warn(dev, "ceq_depth %u is not a power of two in 16..16384; using 4096\n",
			 depth);
		depth = 4096;
	}
	irq = scenic_aux_irq_vector(sdev->sadev, SCENIC_VEC_RDMA);
	if (irq < 0) {
		dev_err(dev, "no MSI-X vector %d for rdma (%u allocated)\n",
			SCENIC_VEC_RDMA, sdev->sadev->num_vectors);
		return -ENODEV;
	}
	sdev->irq = irq;
	mutex_init(&sdev->ev_lock);
	spin_lock_init(&sdev->miss_lock);
	INIT_WORK(&sdev->miss_work, scenic_rdma_miss_work);
	INIT_WORK(&sdev->resync_work, scenic_rdma_resync_work);
	sdev->ceq_log2 = ilog2(depth);
	sdev->ceq = dma_alloc_coherent(sdev->dmadev, sizeof(*sdev->ceq) * depth,
				       &sdev->ceq_dma, GFP_KERNEL);
	if (!sdev->ceq) {
		err = -ENOMEM;
		goto err_lock;
	}
	sdev->wq = alloc_ordered_workqueue("scenic_rdma_ev@%s", 0,
					   pci_name(sdev->sadev->pdev));
	if (!sdev->wq) {
		err = -ENOMEM;
		goto err_ceq;
	}
	snprintf(sdev->irq_name, sizeof(sdev->irq_name), "scenic-rdma@%s",
		 pci_name(sdev->sadev->pdev));
	/* MSI-X: the line is masked while the thread runs (ONESHOT) */
	err = request_threaded_irq(irq, NULL, scenic_rdma_irq_thread,
				   IRQF_ONESHOT, sdev->irq_name, sdev);
	if (err) {
		dev_err(dev, "cannot request interrupt %d (%d)\n", irq, err);
		goto err_wq;
	}
	scenic_rdma_events_start(sdev);
	err = scenic_aux_events_register(sdev->sadev, &scenic_rdma_event_ops,
					 sdev);
	if (err)
		goto err_irq;
	return 0;

err_irq:
	scenic_rdma_events_stop(sdev);
	free_irq(sdev->irq, sdev);
err_wq:
	destroy_workqueue(sdev->wq);
err_ceq:
	dma_free_coherent(sdev->dmadev, sizeof(*sdev->ceq) << sdev->ceq_log2,
			  sdev->ceq, sdev->ceq_dma);
err_lock:
	mutex_destroy(&sdev->ev_lock);
	return err;
}

void scenic_rdma_events_fini(struct scenic_rdma_dev *sdev)
{
	scenic_aux_events_unregister(sdev->sadev);
	scenic_rdma_events_stop(sdev);
	free_irq(sdev->irq, sdev);
	destroy_workqueue(sdev->wq);
	dma_free_coherent(sdev->dmadev, sizeof(*sdev->ceq) << sdev->ceq_log2,
			  sdev->ceq, sdev->ceq_dma);
	mutex_destroy(&sdev->ev_lock);
}
