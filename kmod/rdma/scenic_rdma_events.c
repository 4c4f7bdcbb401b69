// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko card events on MSI-X vector
 * SCENIC_VEC_RDMA. A threaded handler pops EVENT_POP until it reads 0:
 * armed-CQ notifications go to the CQ's comp_handler, QP and CQ errors to
 * the object's event handler, TLB misses are filled from the pinned MR
 * (a command, so the handler must be able to sleep).
 *
 * Numbers: destroy drains the queue (scenic_rdma_events_drain) after the
 * card forgot the object, and the number is reused only later, so an event
 * popped for a number always belongs to its current holder.
 *
 * Lost events: when EVENT_LOST went up the driver rescans what it can ask
 * the card for: QPs in ERR whose error was not reported get QP_FATAL, and
 * every CQ gets a completion callback (a spurious one is harmless, a lost
 * one stalls an event-driven consumer). TLB misses are re-raised by the
 * card until they are filled.
 */

#include <linux/interrupt.h>

#include "scenic_rdma_drv.h"

/* Events handled per interrupt before yielding the CPU once. */
#define SCENIC_RDMA_EV_BATCH	256

static void scenic_rdma_ev_cq(struct scenic_rdma_dev *sdev, u32 cqn,
			      bool error)
{
	struct scenic_rdma_cq *cq;
	struct ib_event ev;

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
		if (cq->ibcq.event_handler) {
			ev.device = &sdev->ibdev;
			ev.element.cq = &cq->ibcq;
			ev.event = IB_EVENT_CQ_ERR;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
	}
	xa_unlock(&sdev->cq_xa);
}

static bool scenic_rdma_qp_event_known(u32 type)
{
	switch (type) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_COMM_EST:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_PATH_MIG:
	case IB_EVENT_PATH_MIG_ERR:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		return true;
	default:
		return false;
	}
}

static void scenic_rdma_ev_qp(struct scenic_rdma_dev *sdev, u32 qpn,
			      u32 type)
{
	struct scenic_rdma_qp *qp;
	struct ib_event ev;

	if (!scenic_rdma_qp_event_known(type)) {
		ibdev_warn_ratelimited(&sdev->ibdev, "QP %u: unknown event type %u, reporting QP_FATAL\n",
				       qpn, type);
		type = IB_EVENT_QP_FATAL;
	}
	xa_lock(&sdev->qp_xa);
	qp = xa_load(&sdev->qp_xa, qpn);
	if (!qp) {
		xa_unlock(&sdev->qp_xa);
		atomic64_inc(&sdev->sw.events_unknown);
		ibdev_dbg(&sdev->ibdev, "event %u for unknown QP %u\n", type,
			  qpn);
		return;
	}
	if (type == IB_EVENT_QP_FATAL || type == IB_EVENT_QP_REQ_ERR ||
	    type == IB_EVENT_QP_ACCESS_ERR)
		WRITE_ONCE(qp->err_reported, true);
	if (qp->ibqp.event_handler) {
		ev.device = &sdev->ibdev;
		ev.element.qp = &qp->ibqp;
		ev.event = type;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	xa_unlock(&sdev->qp_xa);
	ibdev_dbg(&sdev->ibdev, "QP %u: %s\n", qpn, ib_event_msg(type));
}

static void scenic_rdma_ev_one(struct scenic_rdma_dev *sdev, u32 ev)
{
	u32 type = ev >> SCENIC_RDMA_EV_TYPE_SHIFT;
	u32 id = ev & SCENIC_RDMA_EV_ID_MASK;
	u32 a0, a1, a2;

	a0 = scenic_rdma_rd(sdev, SCENIC_RDMA_EVENT_ARG0);
	atomic64_inc(&sdev->sw.events);
	switch (type) {
	case SCENIC_RDMA_EV_CQ:
		scenic_rdma_ev_cq(sdev, id, false);
		break;
	case SCENIC_RDMA_EV_CQ_ERR:
		scenic_rdma_ev_cq(sdev, id, true);
		break;
	case SCENIC_RDMA_EV_QP_ERR:
		scenic_rdma_ev_qp(sdev, id, a0);
		break;
	case SCENIC_RDMA_EV_TLB_MISS:
		a1 = scenic_rdma_rd(sdev, SCENIC_RDMA_EVENT_ARG1);
		a2 = scenic_rdma_rd(sdev, SCENIC_RDMA_EVENT_ARG2);
		scenic_rdma_tlb_miss(sdev, a0, (u64)a2 << 32 | a1);
		break;
	default:
		atomic64_inc(&sdev->sw.events_unknown);
		ibdev_warn_ratelimited(&sdev->ibdev, "unknown card event 0x%08x\n",
				       ev);
		break;
	}
}

/* A QP in ERR without a reported error gets QP_FATAL. (ev_lock) */
static void scenic_rdma_resync_qp(struct scenic_rdma_dev *sdev,
				  struct scenic_rdma_qp *qp)
{
	struct scenic_rdma_mbox hw = { .arg = { qp->qpn }, .nargs = 1 };
	struct ib_event ev;

	if (READ_ONCE(qp->err_reported) ||
	    scenic_rdma_cmd_exec(sdev, SCENIC_RDMA_CMD_QUERY_QP, &hw) ||
	    hw.res[0] != SCENIC_QPS_ERR)
		return;
	WRITE_ONCE(qp->err_reported, true);
	ibdev_dbg(&sdev->ibdev, "QP %u in ERR after lost events: QP_FATAL\n",
		  qp->qpn);
	if (qp->ibqp.event_handler) {
		ev.device = &sdev->ibdev;
		ev.element.qp = &qp->ibqp;
		ev.event = IB_EVENT_QP_FATAL;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

/*
 * EVENT_LOST went up: rescan. Objects cannot be freed meanwhile: destroy
 * erases them from the xarray and then waits for @ev_lock in its drain.
 * (ev_lock)
 */
static void scenic_rdma_resync(struct scenic_rdma_dev *sdev, u32 lost)
{
	struct scenic_rdma_qp *qp;
	struct scenic_rdma_cq *cq;
	unsigned long i;

	atomic64_inc(&sdev->sw.event_resyncs);
	ibdev_warn_ratelimited(&sdev->ibdev, "%u card events lost (queue full): rescanning QPs and CQs\n",
			       lost - sdev->ev_lost_seen);
	sdev->ev_lost_seen = lost;

	xa_for_each(&sdev->qp_xa, i, qp)
		scenic_rdma_resync_qp(sdev, qp);
	xa_for_each(&sdev->cq_xa, i, cq) {
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
}

/* Pops and handles events until the queue is empty. (ev_lock) */
static void scenic_rdma_ev_run(struct scenic_rdma_dev *sdev)
{
	unsigned int n = 0;
	u32 ev, lost;

	lockdep_assert_held(&sdev->ev_lock);
	while (!scenic_rdma_dead(sdev)) {
		ev = scenic_rdma_rd(sdev, SCENIC_RDMA_EVENT_POP);
		if (ev == ~0U)	/* the device is gone */
			break;
		if (!ev) {
			/* empty: were events dropped since the last look? */
			lost = scenic_rdma_rd(sdev, SCENIC_RDMA_EVENT_LOST);
			if (lost == sdev->ev_lost_seen || lost == ~0U)
				break;
			scenic_rdma_resync(sdev, lost);
			cond_resched();
			continue;	/* the rescan may have raised more */
		}
		scenic_rdma_ev_one(sdev, ev);
		if (++n % SCENIC_RDMA_EV_BATCH == 0)
			cond_resched();
	}
}

static irqreturn_t scenic_rdma_irq_thread(int irq, void *data)
{
	struct scenic_rdma_dev *sdev = data;

	mutex_lock(&sdev->ev_lock);
	scenic_rdma_ev_run(sdev);
	mutex_unlock(&sdev->ev_lock);
	/* an empty queue is no spurious interrupt: a drain may have taken it */
	return IRQ_HANDLED;
}

/*
 * Called by destroy after the card forgot a QP or CQ and the object left the
 * xarray: handles every event queued so far, so none for the old object is
 * still in the queue when its number goes to a new one.
 */
void scenic_rdma_events_drain(struct scenic_rdma_dev *sdev)
{
	mutex_lock(&sdev->ev_lock);
	scenic_rdma_ev_run(sdev);
	mutex_unlock(&sdev->ev_lock);
}

int scenic_rdma_events_init(struct scenic_rdma_dev *sdev)
{
	struct device *dev = &sdev->sadev->adev.dev;
	int irq, err;

	irq = scenic_aux_irq_vector(sdev->sadev, SCENIC_VEC_RDMA);
	if (irq < 0) {
		dev_err(dev, "no MSI-X vector %d for rdma (%u allocated)\n",
			SCENIC_VEC_RDMA, sdev->sadev->num_vectors);
		return -ENODEV;
	}
	sdev->irq = irq;
	mutex_init(&sdev->ev_lock);
	/* only losses from now on count */
	sdev->ev_lost_seen = scenic_rdma_rd(sdev, SCENIC_RDMA_EVENT_LOST);
	snprintf(sdev->irq_name, sizeof(sdev->irq_name), "scenic-rdma@%s",
		 pci_name(sdev->sadev->pdev));
	/* MSI-X: the line is masked while the thread runs (ONESHOT) */
	err = request_threaded_irq(irq, NULL, scenic_rdma_irq_thread,
				   IRQF_ONESHOT, sdev->irq_name, sdev);
	if (err) {
		dev_err(dev, "cannot request interrupt %d (%d)\n", irq, err);
		return err;
	}
	return 0;
}

void scenic_rdma_events_fini(struct scenic_rdma_dev *sdev)
{
	free_irq(sdev->irq, sdev);
	mutex_destroy(&sdev->ev_lock);
}
