// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: the admin queue client (docs/admin-queue.md 3).
 *
 * A command takes a free context (its index is the low bits of the command
 * id, a use count the upper bits), is copied to the SQ slot at the tail and
 * waits for its completion. The card completes in submission order, so the
 * completion at CQ slot i must carry the id of the command written at SQ
 * slot i; anything else is a card fault. A context is freed only after its
 * completion was consumed, so at most depth commands are between submission
 * and consumption: neither ring can overrun.
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "scenic.h"
#include "scenic_codes.h"

static unsigned int admin_depth = 256;
module_param(admin_depth, uint, 0444);
MODULE_PARM_DESC(admin_depth, "Admin queue entries, a power of two 4..1024 (default 256)");

static unsigned int admin_timeout_ms;
module_param(admin_timeout_ms, uint, 0644);
MODULE_PARM_DESC(admin_timeout_ms, "Admin command timeout in ms if longer than the card's AQ_TIMEOUT_MS (100..60000)");

#define SCENIC_AQ_MIN_TIMEOUT_MS	100
#define SCENIC_AQ_MAX_TIMEOUT_MS	60000
#define SCENIC_AQ_READY_POLL_MS		100
/* how long a waiter looks at the CQ before it sleeps */
#define SCENIC_AQ_SPIN_NS		(100 * NSEC_PER_USEC)

struct scenic_aq_name {
	u8 v;
	const char *n;
};

#define SCENIC_AQ_NAME(val, name) { .v = (val), .n = (name) },
static const struct scenic_aq_name scenic_aq_op_names[] = {
	SCENIC_AQ_OPCODE_VALUES(SCENIC_AQ_NAME)
};

static const struct scenic_aq_name scenic_aq_status_names[] = {
	SCENIC_AQ_STATUS_VALUES(SCENIC_AQ_NAME)
	SCENIC_AQ_NAME(SCENIC_AQ_HIST_TIMEOUT, "timeout")
	SCENIC_AQ_NAME(SCENIC_AQ_HIST_ABORTED, "aborted")
};

static const char *scenic_aq_name(const struct scenic_aq_name *t,
				  size_t n, u8 v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].v == v)
			return t[i].n;
	return "unknown";
}

const char *scenic_aq_op_name(u8 op)
{
	return scenic_aq_name(scenic_aq_op_names,
			      ARRAY_SIZE(scenic_aq_op_names), op);
}
EXPORT_SYMBOL_GPL(scenic_aq_op_name);

static const char *scenic_aq_status_name(u8 status)
{
	return scenic_aq_name(scenic_aq_status_names,
			      ARRAY_SIZE(scenic_aq_status_names), status);
}

/* Teardown commands succeed on a dead card: its state is gone anyway. */
static bool scenic_aq_op_is_teardown(u8 op)
{
	return op == SCENIC_AQ_OP_DESTROY_CQ || op == SCENIC_AQ_OP_DESTROY_QP ||
	       op == SCENIC_AQ_OP_DEREG_MR;
}

static u8 scenic_aq_phase(u32 index, unsigned int log2_depth)
{
	return ((index >> log2_depth) & 1) ^ 1;
}

int scenic_aq_init(struct scenic_dev *sdev)
{
	struct scenic_aq *aq = &sdev->aq;
	struct device *dev = &sdev->pdev->dev;
	unsigned int depth = admin_depth;
	unsigned int i;

	if (depth < 4 || depth > 1024 || !is_power_of_2(depth)) {
		dev_warn(dev, "admin_depth %u is not a power of two in 4..1024; using 256\n",
			 depth);
		depth = 256;
	}
	aq->depth = depth;
	aq->log2_depth = ilog2(depth);
	spin_lock_init(&aq->sq_lock);
	spin_lock_init(&aq->cq_lock);
	spin_lock_init(&aq->stats_lock);
	init_waitqueue_head(&aq->credit_wq);
	aq->dead = true;

	aq->sq = dma_alloc_coherent(dev, depth * sizeof(*aq->sq), &aq->sq_dma,
				    GFP_KERNEL);
	aq->cq = dma_alloc_coherent(dev, depth * sizeof(*aq->cq), &aq->cq_dma,
				    GFP_KERNEL);
	aq->ctx = kcalloc(depth, sizeof(*aq->ctx), GFP_KERNEL);
	aq->slot_ctx = kcalloc(depth, sizeof(*aq->slot_ctx), GFP_KERNEL);
	aq->busy = bitmap_zalloc(depth, GFP_KERNEL);
	if (!aq->sq || !aq->cq || !aq->ctx || !aq->slot_ctx || !aq->busy) {
		scenic_aq_fini(sdev);
		return -ENOMEM;
	}
	for (i = 0; i < depth; i++)
		init_completion(&aq->ctx[i].done);
	return 0;
}

void scenic_aq_fini(struct scenic_dev *sdev)
{
	struct scenic_aq *aq = &sdev->aq;
	struct device *dev = &sdev->pdev->dev;

	if (aq->sq)
		dma_free_coherent(dev, aq->depth * sizeof(*aq->sq), aq->sq,
				  aq->sq_dma);
	if (aq->cq)
		dma_free_coherent(dev, aq->depth * sizeof(*aq->cq), aq->cq,
				  aq->cq_dma);
	aq->sq = NULL;
	aq->cq = NULL;
	kfree(aq->ctx);
	aq->ctx = NULL;
	kfree(aq->slot_ctx);
	aq->slot_ctx = NULL;
	bitmap_free(aq->busy);
	aq->busy = NULL;
}

static u32 scenic_aq_cfg(struct scenic_aq *aq, bool polling)
{
	return FIELD_PREP(SCENIC_CORE_AQ_CFG_LOG2_DEPTH_MASK, aq->log2_depth) |
	       FIELD_PREP(SCENIC_CORE_AQ_CFG_VECTOR_MASK, SCENIC_VEC_CORE) |
	       (polling ? 0 : SCENIC_CORE_AQ_CFG_IRQ_EN_MASK) |
	       SCENIC_CORE_AQ_CFG_ENABLE_MASK;
}

/*
 * Zero the rings and program them. Every context is free again; the use
 * counts carry on, so a completion from before the reset matches no id.
 */
int scenic_aq_start(struct scenic_dev *sdev, bool polling)
{
	struct scenic_aq *aq = &sdev->aq;
	const struct scenic_block *core = sdev->core;
	unsigned long deadline;
	u32 card_ms, status;
	unsigned int i;

	/* aborted callers still hold contexts: let them leave first */
	wait_event(aq->credit_wq, !READ_ONCE(aq->held));

	spin_lock(&aq->sq_lock);
	spin_lock(&aq->cq_lock);
	memset(aq->sq, 0, aq->depth * sizeof(*aq->sq));
	memset(aq->cq, 0, aq->depth * sizeof(*aq->cq));
	aq->sq_tail = 0;
	aq->cq_head = 0;
	bitmap_zero(aq->busy, aq->depth);
	for (i = 0; i < aq->depth; i++) {
		aq->ctx[i].retired = false;
		aq->ctx[i].aborted = false;
	}
	spin_unlock(&aq->cq_lock);
	spin_unlock(&aq->sq_lock);

	card_ms = scenic_rd(core, SCENIC_CORE_AQ_TIMEOUT_MS);
	if (card_ms == ~0U)
		return -EIO;
	aq->timeout_ms = clamp_t(u32, max(card_ms, READ_ONCE(admin_timeout_ms)),
				 SCENIC_AQ_MIN_TIMEOUT_MS,
				 SCENIC_AQ_MAX_TIMEOUT_MS);

	scenic_wr(core, SCENIC_CORE_AQ_CFG, 0);
	scenic_wr(core, SCENIC_CORE_AQ_SQ_BASE_LO, lower_32_bits(aq->sq_dma));
	scenic_wr(core, SCENIC_CORE_AQ_SQ_BASE_HI, upper_32_bits(aq->sq_dma));
	scenic_wr(core, SCENIC_CORE_AQ_CQ_BASE_LO, lower_32_bits(aq->cq_dma));
	scenic_wr(core, SCENIC_CORE_AQ_CQ_BASE_HI, upper_32_bits(aq->cq_dma));
	scenic_wr(core, SCENIC_CORE_AQ_CFG, scenic_aq_cfg(aq, polling));

	deadline = jiffies + msecs_to_jiffies(SCENIC_AQ_READY_POLL_MS);
	for (;;) {
		status = scenic_rd(core, SCENIC_CORE_AQ_STATUS);
		if (status != ~0U && (status & SCENIC_CORE_AQ_STATUS_READY_MASK))
			break;
		if (time_after(jiffies, deadline)) {
			dev_err(&sdev->pdev->dev, "admin queue not ready (AQ_STATUS 0x%08x)\n",
				status);
			scenic_wr(core, SCENIC_CORE_AQ_CFG, 0);
			return -EIO;
		}
		usleep_range(20, 100);
	}

	spin_lock(&aq->sq_lock);
	aq->polling = polling;
	aq->running = true;
	WRITE_ONCE(aq->dead, false);
	spin_unlock(&aq->sq_lock);
	return 0;
}

/*
 * Dead state: new commands fail at once, every caller waiting for a
 * completion or for a context gets -EIO. The card is not touched.
 */
void scenic_aq_set_dead(struct scenic_dev *sdev)
{
	struct scenic_aq *aq = &sdev->aq;
	unsigned int i;

	spin_lock(&aq->sq_lock);
	WRITE_ONCE(aq->dead, true);
	if (aq->ctx) {
		for_each_set_bit(i, aq->busy, aq->depth) {
			struct scenic_aq_ctx *ctx = &aq->ctx[i];

			if (ctx->retired || ctx->aborted)
				continue;
			ctx->aborted = true;
			complete(&ctx->done);
		}
	}
	spin_unlock(&aq->sq_lock);
	wake_up_all(&aq->credit_wq);
}

/* Disable the queue (its indices go to 0) and fail every caller. */
void scenic_aq_stop(struct scenic_dev *sdev)
{
	struct scenic_aq *aq = &sdev->aq;

	scenic_aq_set_dead(sdev);
	spin_lock(&aq->sq_lock);
	aq->running = false;
	spin_unlock(&aq->sq_lock);
	if (!sdev->in_reset)
		scenic_wr(sdev->core, SCENIC_CORE_AQ_CFG, 0);
}

void scenic_aq_set_polling(struct scenic_dev *sdev, bool polling)
{
	struct scenic_aq *aq = &sdev->aq;

	spin_lock(&aq->sq_lock);
	aq->polling = polling;
	if (aq->running)
		scenic_wr(sdev->core, SCENIC_CORE_AQ_CFG,
			  scenic_aq_cfg(aq, polling));
	spin_unlock(&aq->sq_lock);
	/* completions written before the switch raised no interrupt */
	if (!polling)
		scenic_aq_process_cq(sdev);
}

static void scenic_aq_fault(struct scenic_dev *sdev, u8 code, u32 detail)
{
	void (*hook)(struct scenic_dev *sdev, u8 code, u32 detail);

	scenic_aq_set_dead(sdev);
	hook = READ_ONCE(sdev->recover_hook);
	if (hook)
		hook(sdev, code, detail);
}

/* Consume the completions the card has written (IRQ thread or a poller). */
void scenic_aq_process_cq(struct scenic_dev *sdev)
{
	struct scenic_aq *aq = &sdev->aq;
	u32 mask = aq->depth - 1, start;
	struct scenic_aq_cqe *e;
	struct scenic_aq_ctx *ctx;
	u16 id = 0, want = 0;
	bool bad = false;

	spin_lock(&aq->cq_lock);
	if (!aq->running || READ_ONCE(aq->dead)) {
		spin_unlock(&aq->cq_lock);
		return;
	}
	start = aq->cq_head;
	for (;;) {
		e = &aq->cq[aq->cq_head & mask];
		if ((READ_ONCE(e->hdr.flags) & SCENIC_AQ_CQE_HDR_PHASE_MASK) !=
		    scenic_aq_phase(aq->cq_head, aq->log2_depth))
			break;
		dma_rmb();
		ctx = &aq->ctx[aq->slot_ctx[aq->cq_head & mask]];
		id = le16_to_cpu(e->hdr.cmd_id);
		want = ctx->cmd_id;
		if (id != want) {
			bad = true;
			break;
		}
		memcpy(&ctx->cqe, e, sizeof(ctx->cqe));
		aq->cq_head++;
		complete(&ctx->done);
	}
	if (aq->cq_head != start)
		scenic_wr(sdev->core, SCENIC_CORE_AQ_CQ_HEAD,
			  aq->cq_head & SCENIC_CORE_AQ_CQ_HEAD_INDEX_MASK);
	spin_unlock(&aq->cq_lock);

	if (bad) {
		spin_lock(&aq->stats_lock);
		aq->id_mismatches++;
		spin_unlock(&aq->stats_lock);
		dev_err(&sdev->pdev->dev, "admin completion %u carries command id 0x%04x, expected 0x%04x: card fault\n",
			aq->cq_head, id, want);
		scenic_aq_fault(sdev, SCENIC_FATAL_CODE_DRV_ID_MISMATCH, id);
	}
}

/* A free context for the caller, or -1. (sq_lock) */
static int scenic_aq_take_ctx(struct scenic_aq *aq)
{
	unsigned int i;

	if (READ_ONCE(aq->dead))
		return -1;
	i = find_first_zero_bit(aq->busy, aq->depth);
	if (i >= aq->depth)
		return -1;
	__set_bit(i, aq->busy);
	aq->held++;
	return i;
}

static bool scenic_aq_get_ctx(struct scenic_aq *aq, int *ci)
{
	spin_lock(&aq->sq_lock);
	*ci = scenic_aq_take_ctx(aq);
	spin_unlock(&aq->sq_lock);
	return *ci >= 0 || READ_ONCE(aq->dead);
}

static void scenic_aq_put_ctx(struct scenic_aq *aq, unsigned int ci,
			      bool retire)
{
	spin_lock(&aq->sq_lock);
	aq->held--;
	if (retire)
		aq->ctx[ci].retired = true;
	else
		__clear_bit(ci, aq->busy);
	spin_unlock(&aq->sq_lock);
	wake_up(&aq->credit_wq);
}

static void scenic_aq_account(struct scenic_aq *aq, u8 op, u16 cmd_id,
			      u8 status, u16 syndrome, u32 arg0, ktime_t start,
			      bool failed)
{
	u32 us = ktime_to_us(ktime_sub(ktime_get(), start));
	struct scenic_aq_op_stats *st = &aq->op[op % SCENIC_AQ_NUM_OPS];
	struct scenic_aq_hist *h;

	spin_lock(&aq->stats_lock);
	aq->in_flight--;
	if (failed) {
		st->failed++;
		aq->errors++;
	}
	if (status == SCENIC_AQ_HIST_TIMEOUT) {
		st->timeouts++;
		aq->timeouts++;
	}
	st->max_latency_us = max(st->max_latency_us, us);
	h = &aq->hist[aq->hist_next++ % SCENIC_AQ_HISTORY];
	h->time_ns = ktime_get_real_ns() - (u64)us * NSEC_PER_USEC;
	h->latency_us = us;
	h->arg0 = arg0;
	h->cmd_id = cmd_id;
	h->syndrome = syndrome;
	h->opcode = op;
	h->status = status;
	spin_unlock(&aq->stats_lock);
}

static int scenic_aq_wait(struct scenic_dev *sdev, struct scenic_aq_ctx *ctx)
{
	struct scenic_aq *aq = &sdev->aq;
	unsigned long timeout = msecs_to_jiffies(aq->timeout_ms);
	unsigned long deadline = jiffies + timeout;

	if (!READ_ONCE(aq->polling)) {
		/*
		 * Most commands complete within microseconds: look at the
		 * CQ for a moment before paying for an interrupt and a
		 * wake-up.
		 */
		u64 spin_end = ktime_get_ns() + SCENIC_AQ_SPIN_NS;

		do {
			scenic_aq_process_cq(sdev);
			if (try_wait_for_completion(&ctx->done))
				return 0;
			cpu_relax();
		} while (ktime_get_ns() < spin_end);
		return wait_for_completion_timeout(&ctx->done, timeout) ?
		       0 : -ETIMEDOUT;
	}
	for (;;) {
		scenic_aq_process_cq(sdev);
		if (try_wait_for_completion(&ctx->done))
			return 0;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		usleep_range(20, 100);
	}
}

int scenic_aq_exec(struct scenic_dev *sdev, const void *cmd, size_t len,
		   void *res, size_t res_len)
{
	const struct scenic_aq_sqe_hdr *hdr = cmd;
	struct scenic_aq *aq = &sdev->aq;
	struct device *dev = &sdev->pdev->dev;
	u32 mask = aq->depth - 1, slot, arg0 = 0;
	struct scenic_aq_ctx *ctx;
	u8 op = hdr->opcode, status;
	struct scenic_aq_sqe *e;
	u16 syndrome;
	ktime_t start;
	__le32 w0;
	int ci, err;

	if (WARN_ON_ONCE(len < sizeof(*hdr) || len > sizeof(*e) ||
			 res_len > sizeof(ctx->cqe)))
		return -EINVAL;
	if (len >= sizeof(*hdr) + sizeof(w0)) {
		memcpy(&w0, (const u8 *)cmd + sizeof(*hdr), sizeof(w0));
		arg0 = le32_to_cpu(w0);
	}

	if (!scenic_aq_get_ctx(aq, &ci)) {
		spin_lock(&aq->stats_lock);
		aq->credit_waits++;
		spin_unlock(&aq->stats_lock);
		if (!wait_event_timeout(aq->credit_wq,
					scenic_aq_get_ctx(aq, &ci),
					msecs_to_jiffies(aq->timeout_ms))) {
			dev_err_ratelimited(dev, "admin %s: no free context within %u ms\n",
					    scenic_aq_op_name(op),
					    aq->timeout_ms);
			return -EBUSY;
		}
	}
	if (ci < 0)	/* dead */
		return scenic_aq_op_is_teardown(op) ? 0 : -EIO;
	ctx = &aq->ctx[ci];

	spin_lock(&aq->sq_lock);
	if (READ_ONCE(aq->dead) || !aq->running) {
		spin_unlock(&aq->sq_lock);
		scenic_aq_put_ctx(aq, ci, false);
		return scenic_aq_op_is_teardown(op) ? 0 : -EIO;
	}
	ctx->uses++;
	ctx->cmd_id = (ctx->uses << aq->log2_depth) | ci;
	ctx->opcode = op;
	reinit_completion(&ctx->done);
	slot = aq->sq_tail & mask;
	e = &aq->sq[slot];
	memcpy(e, cmd, len);
	memset((u8 *)e + len, 0, sizeof(*e) - len);
	e->hdr.cmd_id = cpu_to_le16(ctx->cmd_id);
	e->hdr.flags = FIELD_PREP(SCENIC_AQ_SQE_HDR_PHASE_MASK,
				  scenic_aq_phase(aq->sq_tail,
						  aq->log2_depth));
	aq->slot_ctx[slot] = ci;
	aq->sq_tail++;
	/* the entry before the doorbell */
	dma_wmb();
	scenic_wr(sdev->core, SCENIC_CORE_AQ_SQ_TAIL,
		  aq->sq_tail & SCENIC_CORE_AQ_SQ_TAIL_INDEX_MASK);
	spin_unlock(&aq->sq_lock);

	start = ktime_get();
	spin_lock(&aq->stats_lock);
	aq->cmds++;
	aq->op[op % SCENIC_AQ_NUM_OPS].submitted++;
	aq->in_flight++;
	spin_unlock(&aq->stats_lock);

	err = scenic_aq_wait(sdev, ctx);
	if (err) {
		scenic_aq_account(aq, op, ctx->cmd_id, SCENIC_AQ_HIST_TIMEOUT,
				  0, arg0, start, true);
		scenic_aq_put_ctx(aq, ci, true);
		dev_err(dev, "admin %s (0x%x, id 0x%04x) timed out after %u ms (AQ_STATUS 0x%08x SQ_HEAD %u CQ_TAIL %u); recovering\n",
			scenic_aq_op_name(op), arg0, ctx->cmd_id,
			aq->timeout_ms,
			scenic_rd(sdev->core, SCENIC_CORE_AQ_STATUS),
			scenic_rd(sdev->core, SCENIC_CORE_AQ_SQ_HEAD),
			scenic_rd(sdev->core, SCENIC_CORE_AQ_CQ_TAIL));
		scenic_aq_fault(sdev, SCENIC_FATAL_CODE_DRV_TIMEOUT, op);
		return -ETIMEDOUT;
	}
	if (ctx->aborted) {
		scenic_aq_account(aq, op, ctx->cmd_id, SCENIC_AQ_HIST_ABORTED,
				  0, arg0, start, true);
		scenic_aq_put_ctx(aq, ci, false);
		return scenic_aq_op_is_teardown(op) ? 0 : -EIO;
	}

	status = ctx->cqe.hdr.status;
	syndrome = le16_to_cpu(ctx->cqe.hdr.syndrome);
	if (res)
		memcpy(res, &ctx->cqe, res_len);
	err = scenic_aq_status_to_errno(status);
	scenic_aq_account(aq, op, ctx->cmd_id, status, syndrome, arg0, start,
			  err != 0);
	scenic_aq_put_ctx(aq, ci, false);

	if (err) {
		WARN_ONCE(status == SCENIC_AQ_STATUS_MALFORMED,
			  "scenic: admin %s refused as malformed at offset 0x%x\n",
			  scenic_aq_op_name(op), syndrome);
		dev_dbg(dev, "admin %s (0x%x) failed: %s, syndrome 0x%x\n",
			scenic_aq_op_name(op), arg0,
			scenic_aq_status_name(status), syndrome);
	}
	return err;
}
EXPORT_SYMBOL_GPL(scenic_aq_exec);

void scenic_aux_admin_totals(struct scenic_aux_dev *sadev,
			     struct scenic_admin_totals *t)
{
	struct scenic_dev *sdev = sadev->core;
	struct scenic_aq *aq = &sdev->aq;

	spin_lock(&aq->stats_lock);
	t->cmds = aq->cmds;
	t->cmd_errors = aq->errors;
	t->cmd_timeouts = aq->timeouts;
	t->in_flight = aq->in_flight;
	spin_unlock(&aq->stats_lock);
	t->aeq_events = atomic64_read(&sdev->aeq.events);
	t->aeq_overflows = atomic64_read(&sdev->aeq.overflows);
}
EXPORT_SYMBOL_GPL(scenic_aux_admin_totals);

unsigned int scenic_aq_history(struct scenic_dev *sdev,
			       struct scenic_aq_hist *out, unsigned int max)
{
	struct scenic_aq *aq = &sdev->aq;
	unsigned int n, first, i;

	spin_lock(&aq->stats_lock);
	n = min_t(unsigned int, aq->hist_next, SCENIC_AQ_HISTORY);
	n = min(n, max);
	first = aq->hist_next - n;
	for (i = 0; i < n; i++)
		out[i] = aq->hist[(first + i) % SCENIC_AQ_HISTORY];
	spin_unlock(&aq->stats_lock);
	return n;
}

void scenic_aq_history_show(struct scenic_dev *sdev, struct seq_file *s)
{
	struct scenic_aq_hist *h;
	unsigned int n, i;

	h = kcalloc(SCENIC_AQ_HISTORY, sizeof(*h), GFP_KERNEL);
	if (!h)
		return;
	n = scenic_aq_history(sdev, h, SCENIC_AQ_HISTORY);
	seq_puts(s, "time_ns opcode cmd_id status syndrome arg0 latency_us\n");
	for (i = 0; i < n; i++)
		seq_printf(s, "%llu %s 0x%04x %s 0x%x 0x%x %u\n", h[i].time_ns,
			   scenic_aq_op_name(h[i].opcode), h[i].cmd_id,
			   scenic_aq_status_name(h[i].status), h[i].syndrome,
			   h[i].arg0, h[i].latency_us);
	kfree(h);
}

void scenic_aq_stats_show(struct scenic_dev *sdev, struct seq_file *s)
{
	struct scenic_aq *aq = &sdev->aq;
	struct scenic_aq_op_stats st;
	unsigned int op;

	spin_lock(&aq->stats_lock);
	seq_printf(s, "depth %u\ntimeout_ms %u\nstate %s\ncmds %llu\nerrors %llu\ntimeouts %llu\nid_mismatches %llu\nin_flight %u\ncredit_waits %llu\n",
		   aq->depth, aq->timeout_ms,
		   READ_ONCE(aq->dead) ? "dead" : aq->polling ? "polling" : "interrupts",
		   aq->cmds, aq->errors, aq->timeouts, aq->id_mismatches,
		   aq->in_flight, aq->credit_waits);
	spin_unlock(&aq->stats_lock);
	seq_printf(s, "aeq_events %lld\naeq_overflows %lld\naeq_lost %lld\naeq_unknown %lld\n",
		   atomic64_read(&sdev->aeq.events),
		   atomic64_read(&sdev->aeq.overflows),
		   atomic64_read(&sdev->aeq.lost),
		   atomic64_read(&sdev->aeq.unknown));
	seq_puts(s, "opcode submitted failed timeouts max_latency_us\n");
	for (op = 0; op < SCENIC_AQ_NUM_OPS; op++) {
		spin_lock(&aq->stats_lock);
		st = aq->op[op];
		spin_unlock(&aq->stats_lock);
		if (st.submitted)
			seq_printf(s, "%s %llu %llu %llu %u\n",
				   scenic_aq_op_name(op), st.submitted,
				   st.failed, st.timeouts, st.max_latency_us);
	}
}

static int scenic_aq_stats_dbg_show(struct seq_file *s, void *unused)
{
	scenic_aq_stats_show(s->private, s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scenic_aq_stats_dbg);

static int scenic_aq_history_dbg_show(struct seq_file *s, void *unused)
{
	scenic_aq_history_show(s->private, s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scenic_aq_history_dbg);

/* debugfs scenic/<pci>/admin/{stats,history}; removed with the card's dir */
void scenic_aq_debugfs_add(struct scenic_dev *sdev)
{
	struct dentry *dir;

	if (IS_ERR_OR_NULL(sdev->dbg_dir))
		return;
	dir = debugfs_create_dir("admin", sdev->dbg_dir);
	debugfs_create_file("stats", 0400, dir, sdev,
			    &scenic_aq_stats_dbg_fops);
	debugfs_create_file("history", 0400, dir, sdev,
			    &scenic_aq_history_dbg_fops);
}
