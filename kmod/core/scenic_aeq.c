// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: the asynchronous event queue consumer
 * (docs/admin-queue.md 4.4). The core IRQ thread reads entries by phase,
 * checks that seq has no gap and hands each entry to the function driver
 * that owns its type. An OVERFLOW entry or a seq gap means events were
 * lost: the core checks FATAL_STATUS and asks every function driver to
 * resynchronise. Callbacks never wait for an admin command: this thread is
 * also the one that completes them.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/module.h>

#include "scenic.h"

static unsigned int aeq_depth = 1024;
module_param(aeq_depth, uint, 0444);
MODULE_PARM_DESC(aeq_depth, "Asynchronous event queue entries, a power of two 16..4096 (default 1024)");

/* Entries handled before the consumer index is written back once. */
#define SCENIC_AEQ_BATCH	64

int scenic_aeq_init(struct scenic_dev *sdev)
{
	struct scenic_aeq *aeq = &sdev->aeq;
	unsigned int depth = aeq_depth;

	if (depth < 16 || depth > 4096 || !is_power_of_2(depth)) {
		dev_warn(&sdev->pdev->dev, "aeq_depth %u is not a power of two in 16..4096; using 1024\n",
			 depth);
		depth = 1024;
	}
	aeq->depth = depth;
	aeq->log2_depth = ilog2(depth);
	mutex_init(&aeq->lock);
	mutex_init(&aeq->ops_lock);
	spin_lock_init(&aeq->hist_lock);
	aeq->ring = dma_alloc_coherent(&sdev->pdev->dev,
				       depth * sizeof(*aeq->ring), &aeq->dma,
				       GFP_KERNEL);
	return aeq->ring ? 0 : -ENOMEM;
}

void scenic_aeq_fini(struct scenic_dev *sdev)
{
	struct scenic_aeq *aeq = &sdev->aeq;

	if (aeq->ring)
		dma_free_coherent(&sdev->pdev->dev,
				  aeq->depth * sizeof(*aeq->ring), aeq->ring,
				  aeq->dma);
	aeq->ring = NULL;
	mutex_destroy(&aeq->ops_lock);
	mutex_destroy(&aeq->lock);
}

static u32 scenic_aeq_cfg(struct scenic_aeq *aeq, bool irq)
{
	return FIELD_PREP(SCENIC_CORE_AEQ_CFG_LOG2_DEPTH_MASK,
			  aeq->log2_depth) |
	       FIELD_PREP(SCENIC_CORE_AEQ_CFG_VECTOR_MASK, SCENIC_VEC_CORE) |
	       (irq ? SCENIC_CORE_AEQ_CFG_IRQ_EN_MASK : 0) |
	       SCENIC_CORE_AEQ_CFG_ENABLE_MASK;
}

int scenic_aeq_start(struct scenic_dev *sdev, bool polling)
{
	struct scenic_aeq *aeq = &sdev->aeq;
	const struct scenic_block *core = sdev->core;

	mutex_lock(&aeq->lock);
	memset(aeq->ring, 0, aeq->depth * sizeof(*aeq->ring));
	aeq->head = 0;
	aeq->seq_valid = false;
	scenic_wr(core, SCENIC_CORE_AEQ_CFG, 0);
	scenic_wr(core, SCENIC_CORE_AEQ_BASE_LO, lower_32_bits(aeq->dma));
	scenic_wr(core, SCENIC_CORE_AEQ_BASE_HI, upper_32_bits(aeq->dma));
	scenic_wr(core, SCENIC_CORE_AEQ_CFG, scenic_aeq_cfg(aeq, !polling));
	aeq->running = true;
	mutex_unlock(&aeq->lock);
	return 0;
}

void scenic_aeq_stop(struct scenic_dev *sdev)
{
	struct scenic_aeq *aeq = &sdev->aeq;

	mutex_lock(&aeq->lock);
	aeq->running = false;
	if (!sdev->in_reset)
		scenic_wr(sdev->core, SCENIC_CORE_AEQ_CFG, 0);
	mutex_unlock(&aeq->lock);
}

void scenic_aeq_set_irq(struct scenic_dev *sdev, bool on)
{
	struct scenic_aeq *aeq = &sdev->aeq;

	mutex_lock(&aeq->lock);
	if (aeq->running)
		scenic_wr(sdev->core, SCENIC_CORE_AEQ_CFG,
			  scenic_aeq_cfg(aeq, on));
	mutex_unlock(&aeq->lock);
}

/* The function of an auxiliary device, from its name (not sdev->aux[]: cleared before remove). */
int scenic_aux_func_of(struct scenic_aux_dev *sadev)
{
	static const char * const names[SCENIC_NUM_FUNCS] = {
		[SCENIC_FUNC_ETH] = SCENIC_AUX_ETH,
		[SCENIC_FUNC_RDMA] = SCENIC_AUX_RDMA,
		[SCENIC_FUNC_SCU] = SCENIC_AUX_SCU,
	};
	int f;

	for (f = 0; f < SCENIC_NUM_FUNCS; f++)
		if (sadev->adev.name && !strcmp(sadev->adev.name, names[f]))
			return f;
	return -EINVAL;
}

int scenic_aux_events_register(struct scenic_aux_dev *sadev,
			       const struct scenic_aux_event_ops *ops,
			       void *priv)
{
	struct scenic_aeq *aeq = &sadev->core->aeq;
	int f = scenic_aux_func_of(sadev);

	if (f < 0)
		return f;
	mutex_lock(&aeq->ops_lock);
	aeq->ops[f] = ops;
	aeq->priv[f] = priv;
	mutex_unlock(&aeq->ops_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(scenic_aux_events_register);

void scenic_aux_events_unregister(struct scenic_aux_dev *sadev)
{
	struct scenic_aeq *aeq = &sadev->core->aeq;
	int f = scenic_aux_func_of(sadev);

	if (f < 0)
		return;
	mutex_lock(&aeq->ops_lock);
	aeq->ops[f] = NULL;
	aeq->priv[f] = NULL;
	mutex_unlock(&aeq->ops_lock);
}
EXPORT_SYMBOL_GPL(scenic_aux_events_unregister);

void scenic_aux_events_drain(struct scenic_aux_dev *sadev)
{
	scenic_aeq_process(sadev->core);
}
EXPORT_SYMBOL_GPL(scenic_aux_events_drain);

static int scenic_aeq_owner(u8 type)
{
	switch (type) {
	case SCENIC_AEQ_TYPE_LINK:
		return SCENIC_FUNC_ETH;
	case SCENIC_AEQ_TYPE_QP_ERROR:
	case SCENIC_AEQ_TYPE_SQ_DRAINED:
	case SCENIC_AEQ_TYPE_CQ_ERROR:
	case SCENIC_AEQ_TYPE_TLB_MISS:
	case SCENIC_AEQ_TYPE_SRQ_LIMIT:
		return SCENIC_FUNC_RDMA;
	case SCENIC_AEQ_TYPE_SCU:
		return SCENIC_FUNC_SCU;
	default:
		return -1;
	}
}

static void scenic_aeq_fatal(struct scenic_dev *sdev, u8 code, u32 detail)
{
	void (*hook)(struct scenic_dev *sdev, u8 code, u32 detail);

	dev_err(&sdev->pdev->dev, "card fatal error: code %u detail 0x%08x\n",
		code, detail);
	scenic_aq_set_dead(sdev);
	hook = READ_ONCE(sdev->recover_hook);
	if (hook)
		hook(sdev, code, detail);
}

/* Events were lost: check for a fatal error, then let every owner resync. */
static void scenic_aeq_resync(struct scenic_dev *sdev, u32 lost)
{
	struct scenic_aeq *aeq = &sdev->aeq;
	u32 fs;
	int f;

	atomic64_inc(&aeq->overflows);
	atomic64_add(lost, &aeq->lost);
	dev_warn_ratelimited(&sdev->pdev->dev, "%u card events lost (AEQ full or stalled): resynchronising\n",
			     lost);
	fs = scenic_rd(sdev->core, SCENIC_CORE_FATAL_STATUS);
	if (fs != ~0U && (fs & SCENIC_CORE_FATAL_STATUS_FATAL_MASK)) {
		scenic_aeq_fatal(sdev,
				 FIELD_GET(SCENIC_CORE_FATAL_STATUS_CODE_MASK, fs),
				 scenic_rd(sdev->core, SCENIC_CORE_FATAL_DETAIL));
		return;
	}
	mutex_lock(&aeq->ops_lock);
	for (f = 0; f < SCENIC_NUM_FUNCS; f++)
		if (aeq->ops[f] && aeq->ops[f]->resync)
			aeq->ops[f]->resync(aeq->priv[f]);
	mutex_unlock(&aeq->ops_lock);
}

/* The last SCENIC_AEQ_HISTORY events, kept across recoveries for the dump. */
static void scenic_aeq_record(struct scenic_aeq *aeq,
			      const struct scenic_aeqe *ev)
{
	struct scenic_aeq_hist h = {
		.time_ns = ktime_get_real_ns(),
		.seq = le32_to_cpu(ev->hdr.seq),
		.type = ev->hdr.type,
	};
	const void *p = ev;
	unsigned long flags;

	switch (h.type) {
	case SCENIC_AEQ_TYPE_LINK:
		h.code = ((const struct scenic_aeqe_link *)p)->up &
			 SCENIC_AEQE_LINK_UP_MASK;
		h.obj = le16_to_cpu(((const struct scenic_aeqe_link *)p)->speed_gbps);
		break;
	case SCENIC_AEQ_TYPE_QP_ERROR:
		h.code = ((const struct scenic_aeqe_qp_error *)p)->code;
		h.obj = le32_to_cpu(((const struct scenic_aeqe_qp_error *)p)->qpn);
		break;
	case SCENIC_AEQ_TYPE_SQ_DRAINED:
		h.obj = le32_to_cpu(((const struct scenic_aeqe_sq_drained *)p)->qpn);
		break;
	case SCENIC_AEQ_TYPE_CQ_ERROR:
		h.code = ((const struct scenic_aeqe_cq_error *)p)->code;
		h.obj = le32_to_cpu(((const struct scenic_aeqe_cq_error *)p)->cqn);
		break;
	case SCENIC_AEQ_TYPE_TLB_MISS:
		h.obj = le32_to_cpu(((const struct scenic_aeqe_tlb_miss *)p)->key);
		break;
	case SCENIC_AEQ_TYPE_SRQ_LIMIT:
		h.obj = le32_to_cpu(((const struct scenic_aeqe_srq_limit *)p)->srqn);
		break;
	case SCENIC_AEQ_TYPE_CARD_FATAL:
		h.code = ((const struct scenic_aeqe_card_fatal *)p)->code;
		h.obj = le32_to_cpu(((const struct scenic_aeqe_card_fatal *)p)->detail);
		break;
	case SCENIC_AEQ_TYPE_OVERFLOW:
		h.obj = le32_to_cpu(((const struct scenic_aeqe_overflow *)p)->lost);
		break;
	}
	spin_lock_irqsave(&aeq->hist_lock, flags);
	aeq->hist[aeq->hist_next++ % SCENIC_AEQ_HISTORY] = h;
	spin_unlock_irqrestore(&aeq->hist_lock, flags);
}

/* Copies the history, oldest first; returns the number of entries. */
unsigned int scenic_aeq_history(struct scenic_dev *sdev,
				struct scenic_aeq_hist *out, unsigned int max)
{
	struct scenic_aeq *aeq = &sdev->aeq;
	unsigned int i, n, first;
	unsigned long flags;

	spin_lock_irqsave(&aeq->hist_lock, flags);
	n = min3(aeq->hist_next, (unsigned int)SCENIC_AEQ_HISTORY, max);
	first = aeq->hist_next - n;
	for (i = 0; i < n; i++)
		out[i] = aeq->hist[(first + i) % SCENIC_AEQ_HISTORY];
	spin_unlock_irqrestore(&aeq->hist_lock, flags);
	return n;
}

static void scenic_aeq_dispatch(struct scenic_dev *sdev,
				const struct scenic_aeqe *ev)
{
	struct scenic_aeq *aeq = &sdev->aeq;
	u32 seq = le32_to_cpu(ev->hdr.seq);
	u8 type = ev->hdr.type;
	int f;

	scenic_aeq_record(aeq, ev);
	if (type == SCENIC_AEQ_TYPE_OVERFLOW) {
		const struct scenic_aeqe_overflow *o = (const void *)ev;

		/* its seq is the next event's */
		aeq->next_seq = seq;
		aeq->seq_valid = true;
		scenic_aeq_resync(sdev, le32_to_cpu(o->lost));
		return;
	}
	if (aeq->seq_valid && seq != aeq->next_seq) {
		u32 lost = seq - aeq->next_seq;

		aeq->next_seq = seq;
		scenic_aeq_resync(sdev, lost);
	}
	aeq->next_seq = seq + 1;
	aeq->seq_valid = true;
	atomic64_inc(&aeq->events);

	if (type == SCENIC_AEQ_TYPE_CARD_FATAL) {
		const struct scenic_aeqe_card_fatal *cf = (const void *)ev;

		scenic_aeq_fatal(sdev, cf->code, le32_to_cpu(cf->detail));
		return;
	}
	f = scenic_aeq_owner(type);
	if (f < 0) {
		atomic64_inc(&aeq->unknown);
		dev_warn_ratelimited(&sdev->pdev->dev, "unknown card event type 0x%02x (seq %u) skipped\n",
				     type, seq);
		return;
	}
	mutex_lock(&aeq->ops_lock);
	if (aeq->ops[f] && aeq->ops[f]->event)
		aeq->ops[f]->event(aeq->priv[f], ev);
	mutex_unlock(&aeq->ops_lock);
}

/* Handle every entry the card has written; the IRQ thread and drains. */
void scenic_aeq_process(struct scenic_dev *sdev)
{
	struct scenic_aeq *aeq = &sdev->aeq;
	u32 mask = aeq->depth - 1, n = 0;
	struct scenic_aeqe ev, *e;
	u8 phase;

	mutex_lock(&aeq->lock);
	while (aeq->running) {
		e = &aeq->ring[aeq->head & mask];
		phase = ((aeq->head >> aeq->log2_depth) & 1) ^ 1;
		if ((READ_ONCE(e->hdr.flags) & SCENIC_AEQE_HDR_PHASE_MASK) !=
		    phase)
			break;
		dma_rmb();
		memcpy(&ev, e, sizeof(ev));
		aeq->head++;
		scenic_aeq_dispatch(sdev, &ev);
		if (++n % SCENIC_AEQ_BATCH == 0)
			scenic_wr(sdev->core, SCENIC_CORE_AEQ_HEAD,
				  aeq->head & SCENIC_CORE_AEQ_HEAD_INDEX_MASK);
	}
	if (n && aeq->running)
		scenic_wr(sdev->core, SCENIC_CORE_AEQ_HEAD,
			  aeq->head & SCENIC_CORE_AEQ_HEAD_INDEX_MASK);
	mutex_unlock(&aeq->lock);
}
