// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: card health and recovery (docs/admin-queue.md section 8).
 *
 * A fault (CARD_FATAL event, FATAL_STATUS or a stopped HEARTBEAT seen by the
 * 1 s poll, an admin command timeout, a completion with the wrong id) puts
 * the card in the dead state and tells the function drivers (.fatal), then
 * reports to the devlink health reporter "card", whose recover callback
 * deletes the rdma and scu auxiliary devices, resets the card, restarts the
 * admin and event queues, lets eth re-create its rings and re-creates the
 * auxiliary devices. An FLR and `devlink dev reload` run the same steps.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/devlink.h>

#include "scenic.h"

#define SCENIC_HEALTH_POLL_MS		1000
#define SCENIC_HEALTH_HB_STALLS		3	/* unchanged HEARTBEAT reads */
#define SCENIC_HEALTH_GRACE_MS		60000
#define SCENIC_SOFT_RESET_WAIT_MS	100
/* Triggers that are not faults of the card; outside enum scenic_fatal_code. */
#define SCENIC_TRIGGER_NONE		0
#define SCENIC_TRIGGER_RELOAD		0xf0
#define SCENIC_TRIGGER_REQUEST		0xf1
#define SCENIC_TRIGGER_REMOVED		0xf2

struct scenic_health {
	struct scenic_dev *sdev;
	struct devlink_health_reporter *reporter;
	struct workqueue_struct *wq;		/* ordered: poll and recovery */
	struct delayed_work poll_work;
	struct work_struct fault_work;

	/* pending fault, set by scenic_health_report() in any context */
	spinlock_t pending_lock;
	u8 pending_code;
	u32 pending_detail;
	bool pending_flr;			/* reset_done: steps 4 to 6 */

	/*
	 * The recovery state. Lock order: devlink instance lock, then @lock
	 * (devlink holds its lock around the reporter's recover and reload).
	 */
	struct mutex lock;
	bool down;			/* dead state: between a fault and recovery */
	bool gone;			/* all-ones reads: the device was removed */
	bool stopping;			/* remove: no new recovery */
	bool self_reset;		/* our own pci_try_reset_function() runs */
	u8 trigger;			/* what put the card down last */
	u32 trigger_detail;
	u32 fatal_status;		/* FATAL_STATUS / FATAL_DETAIL at the trigger */
	u32 fatal_detail;
	ktime_t down_since;
	u64 faults;
	u64 recoveries;
	u64 recovery_failures;
	u64 ignored;			/* faults while already down */
	u64 flr_fallbacks;		/* our own function-level resets */
	u32 last_recovery_ms;

	/* heartbeat watch, poll work only */
	u32 last_hb;
	unsigned int hb_same;
	bool hb_seen_change;
};

#define SCENIC_FATAL_NAME(val, name) { .v = (val), .n = (name) },
static const struct {
	u8 v;
	const char *n;
} scenic_fatal_names[] = {
	SCENIC_FATAL_CODE_VALUES(SCENIC_FATAL_NAME)
	{ .v = SCENIC_TRIGGER_NONE, .n = "none" },
	{ .v = SCENIC_TRIGGER_RELOAD, .n = "devlink_reload" },
	{ .v = SCENIC_TRIGGER_REQUEST, .n = "devlink_recover" },
	{ .v = SCENIC_TRIGGER_REMOVED, .n = "removed" },
};

#undef SCENIC_FATAL_NAME

#define SCENIC_AEQ_TYPE_NAME(val, name) { .v = (val), .n = (name) },
static const struct {
	u8 v;
	const char *n;
} scenic_aeq_type_names[] = {
	SCENIC_AEQ_TYPE_VALUES(SCENIC_AEQ_TYPE_NAME)
};

#undef SCENIC_AEQ_TYPE_NAME

static const char *scenic_aeq_type_name(u8 type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scenic_aeq_type_names); i++)
		if (scenic_aeq_type_names[i].v == type)
			return scenic_aeq_type_names[i].n;
	return "unknown";
}

static const char *scenic_trigger_name(u8 code)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scenic_fatal_names); i++)
		if (scenic_fatal_names[i].v == code)
			return scenic_fatal_names[i].n;
	return "unknown";
}

static u32 scenic_health_rd(struct scenic_dev *sdev, u32 reg)
{
	u32 val = ~0u;

	mutex_lock(&sdev->lock);
	if (!sdev->in_reset && !sdev->broken)
		val = scenic_rd(sdev->core, reg);
	mutex_unlock(&sdev->lock);
	return val;
}

/*
 * Step 1: the dead state. Commands fail at once, waiters get -EIO, the
 * functions stop touching the card, and the card stops touching host memory:
 * bus mastering stays off until scenic_health_reset_card() has reset it, so
 * engines user space still rings (doorbells are mapped) neither read WQEs nor
 * write data, CQEs or events into memory the drivers are freeing. Called with
 * h->lock held.
 */
static void scenic_health_enter_dead(struct scenic_health *h, u8 code,
				     u32 detail)
{
	struct scenic_dev *sdev = h->sdev;

	if (h->down)
		return;
	h->down = true;
	h->trigger = code;
	h->trigger_detail = detail;
	h->down_since = ktime_get();
	h->fatal_status = scenic_health_rd(sdev, SCENIC_CORE_FATAL_STATUS);
	h->fatal_detail = scenic_health_rd(sdev, SCENIC_CORE_FATAL_DETAIL);
	pci_clear_master(sdev->pdev);
	scenic_aq_set_dead(sdev);
	scenic_aux_fatal(sdev);
}

/*
 * All-ones reads of both FATAL_STATUS and HEARTBEAT: the card left the bus
 * (surprise removal, link down). Nothing to recover: the device stays dead,
 * with one log line, until it is removed. Called with h->lock held; true if
 * the card is gone.
 */
static bool scenic_health_check_gone(struct scenic_health *h)
{
	struct scenic_dev *sdev = h->sdev;
	bool ones = false;

	if (h->gone)
		return true;
	/* also after a failed recovery (broken): the BAR is still mapped */
	mutex_lock(&sdev->lock);
	if (!sdev->in_reset)
		ones = scenic_rd(sdev->core, SCENIC_CORE_FATAL_STATUS) == ~0u &&
		       scenic_rd(sdev->core, SCENIC_CORE_HEARTBEAT) == ~0u;
	mutex_unlock(&sdev->lock);
	if (!ones)
		return false;
	h->gone = true;
	h->faults++;
	if (h->down) {
		h->trigger = SCENIC_TRIGGER_REMOVED;
	} else {
		scenic_health_enter_dead(h, SCENIC_TRIGGER_REMOVED, 0);
		/* enter_dead read all-ones, which decodes to nothing */
		h->fatal_status = 0;
		h->fatal_detail = 0;
	}
	dev_err(&sdev->pdev->dev, "card reads all-ones: it was removed or its link is down; the device stays dead until it is removed\n");
	return true;
}

/* Soft reset, then the blocks and self-tests as after an FLR. */
static int scenic_health_reset_card(struct scenic_health *h, bool was_reset,
				    char *why, size_t len)
{
	struct scenic_dev *sdev = h->sdev;
	int err;

	mutex_lock(&sdev->lock);
	sdev->in_reset = true;
	mutex_unlock(&sdev->lock);
	if (!was_reset) {
		scenic_wr(sdev->core, SCENIC_CORE_CTRL,
			  SCENIC_CORE_CTRL_SOFT_RESET_MASK);
		msleep(SCENIC_SOFT_RESET_WAIT_MS);
	}

	mutex_lock(&sdev->lock);
	err = scenic_regblock_rewalk(sdev, why, len);
	if (!err && (scenic_rd(sdev->core, SCENIC_CORE_FATAL_STATUS) &
		     SCENIC_CORE_FATAL_STATUS_FATAL_MASK)) {
		snprintf(why, len, "FATAL_STATUS still set after the reset");
		err = -EIO;
	}
	sdev->in_reset = false;
	sdev->broken = !!err;
	mutex_unlock(&sdev->lock);
	if (err && !was_reset) {
		/* once: a function-level reset; our reset handlers stand aside */
		dev_warn(&sdev->pdev->dev, "soft reset did not help (%s); trying a function-level reset\n",
			 why);
		h->self_reset = true;
		h->flr_fallbacks++;
		err = pci_try_reset_function(sdev->pdev);
		h->self_reset = false;
		if (err) {
			snprintf(why, len, "function-level reset failed (%d)",
				 err);
			return err;
		}
		return scenic_health_reset_card(h, true, why, len);
	}
	if (err)
		return err;

	/* the card forgot its rings: it may master the bus again */
	pci_set_master(sdev->pdev);
	err = scenic_irq_selftest(sdev, why, len);
	if (!err)
		err = scenic_dma_selftest(sdev, why, len);
	if (err) {
		mutex_lock(&sdev->lock);
		sdev->broken = true;
		mutex_unlock(&sdev->lock);
	}
	return err;
}

/* Steps 3 to 6. Called with h->lock held and the card in the dead state. */
static int scenic_health_recover_locked(struct scenic_health *h,
					bool was_reset)
{
	struct scenic_dev *sdev = h->sdev;
	struct device *dev = &sdev->pdev->dev;
	ktime_t start = ktime_get();
	char why[192] = "";
	int err;

	if (scenic_health_check_gone(h))
		return -ENODEV;
	scenic_aux_del_func(sdev, SCENIC_FUNC_SCU);
	scenic_aux_del_func(sdev, SCENIC_FUNC_RDMA);
	scenic_queues_stop(sdev);

	err = scenic_health_reset_card(h, was_reset, why, sizeof(why));
	/* polling, a NOP, then interrupts */
	if (!err)
		err = scenic_queues_start(sdev, why, sizeof(why));
	/* eth stays bound: it re-creates its rings, or learns it stays down */
	scenic_aux_reset_done(sdev, err);
	if (err) {
		pci_clear_master(sdev->pdev);	/* it stays dead */
		h->recovery_failures++;
		dev_err(dev, "recovery from %s failed: %s; the card stays down until `devlink dev reload` or `devlink health recover`\n",
			scenic_trigger_name(h->trigger), why);
		return err;
	}

	err = scenic_aux_add_funcs(sdev);
	if (err)
		dev_err(dev, "recovery: cannot re-create the auxiliary devices (%d)\n",
			err);
	h->down = false;
	h->hb_same = 0;
	h->hb_seen_change = false;
	h->recoveries++;
	h->last_recovery_ms = ktime_ms_delta(ktime_get(), start);
	if (was_reset)
		dev_info(dev, "reset done: %u register blocks, interrupt and DMA self-tests passed\n",
			 sdev->num_blocks);
	dev_info(dev, "recovered from %s in %u ms (recovery %llu)\n",
		 scenic_trigger_name(h->trigger), h->last_recovery_ms,
		 h->recoveries);
	return 0;
}

/*
 * The hook of the admin queue and event code (sdev->recover_hook): any
 * context, never waits. The first fault wins; later ones while the card is
 * down are only counted.
 */
static void scenic_health_report(struct scenic_dev *sdev, u8 code, u32 detail)
{
	struct scenic_health *h = sdev->health;
	unsigned long flags;
	bool queue = false;

	if (!h)
		return;
	spin_lock_irqsave(&h->pending_lock, flags);
	if (READ_ONCE(h->down) || h->pending_code || READ_ONCE(h->stopping)) {
		h->ignored++;
	} else {
		h->pending_code = code;
		h->pending_detail = detail;
		queue = true;
	}
	spin_unlock_irqrestore(&h->pending_lock, flags);
	if (queue)
		queue_work(h->wq, &h->fault_work);
}

static void scenic_health_fault_work(struct work_struct *work)
{
	struct scenic_health *h = container_of(work, struct scenic_health,
					       fault_work);
	struct scenic_dev *sdev = h->sdev;
	struct device *dev = &sdev->pdev->dev;
	bool flr;
	char msg[96];
	u32 detail;
	int err;
	u8 code;

	spin_lock_irq(&h->pending_lock);
	code = h->pending_code;
	detail = h->pending_detail;
	flr = h->pending_flr;
	h->pending_flr = false;
	spin_unlock_irq(&h->pending_lock);

	mutex_lock(&h->lock);
	if (h->stopping) {
		mutex_unlock(&h->lock);
		return;
	}
	if (flr) {
		/* reset_prepare did steps 1 and 3; the card is reset */
		scenic_health_recover_locked(h, true);
		mutex_unlock(&h->lock);
		return;
	}
	if (!code) {
		mutex_unlock(&h->lock);
		return;
	}
	/* a timeout or a fatal read may be the first sign of a removed card */
	if (scenic_health_check_gone(h)) {
		mutex_unlock(&h->lock);
		spin_lock_irq(&h->pending_lock);
		h->pending_code = 0;
		spin_unlock_irq(&h->pending_lock);
		return;
	}
	h->faults++;
	scenic_health_enter_dead(h, code, detail);
	mutex_unlock(&h->lock);
	spin_lock_irq(&h->pending_lock);
	h->pending_code = 0;
	spin_unlock_irq(&h->pending_lock);

	dev_err(dev, "card fault: %s (detail 0x%x, FATAL_STATUS 0x%08x, FATAL_DETAIL 0x%08x)\n",
		scenic_trigger_name(code), detail, h->fatal_status,
		h->fatal_detail);
	snprintf(msg, sizeof(msg), "card fault %s detail 0x%x",
		 scenic_trigger_name(code), detail);
	/* with auto_recover devlink runs the reporter's recover (steps 3-6) */
	err = devlink_health_report(h->reporter, msg, NULL);
	mutex_lock(&h->lock);
	if (h->down && !h->gone)
		dev_err(dev, "card fault %s not recovered automatically (%s): the card stays down until `devlink health recover` or `devlink dev reload`\n",
			scenic_trigger_name(code),
			err == -ECANCELED ? "a second fault within the grace period" :
			err ? "recovery failed" : "auto_recover is off");
	mutex_unlock(&h->lock);
}

static void scenic_health_poll(struct work_struct *work)
{
	struct scenic_health *h = container_of(to_delayed_work(work),
					       struct scenic_health, poll_work);
	struct scenic_dev *sdev = h->sdev;
	u32 st, hb;

	if (READ_ONCE(h->down) || READ_ONCE(h->gone))
		goto again;
	mutex_lock(&sdev->lock);
	if (sdev->in_reset || sdev->broken) {
		mutex_unlock(&sdev->lock);
		goto again;
	}
	st = scenic_rd(sdev->core, SCENIC_CORE_FATAL_STATUS);
	hb = scenic_rd(sdev->core, SCENIC_CORE_HEARTBEAT);
	mutex_unlock(&sdev->lock);

	if (st == ~0u && hb == ~0u) {
		/* the poll stops here: nothing to watch on a removed card */
		mutex_lock(&h->lock);
		if (!h->stopping)
			scenic_health_check_gone(h);
		mutex_unlock(&h->lock);
		return;
	}
	if (st & SCENIC_CORE_FATAL_STATUS_FATAL_MASK) {
		scenic_health_report(sdev,
				     FIELD_GET(SCENIC_CORE_FATAL_STATUS_CODE_MASK, st),
				     scenic_rd(sdev->core, SCENIC_CORE_FATAL_DETAIL));
		goto again;
	}
	/* armed once the counter was seen moving, so a card that never ran is not "wedged" */
	if (hb != h->last_hb) {
		if (h->hb_same || h->last_hb)
			h->hb_seen_change = true;
		h->last_hb = hb;
		h->hb_same = 0;
	} else if (h->hb_seen_change &&
		   ++h->hb_same >= SCENIC_HEALTH_HB_STALLS) {
		h->hb_same = 0;
		scenic_health_report(sdev, SCENIC_FATAL_CODE_DRV_HEARTBEAT, hb);
	}
again:
	if (!READ_ONCE(h->stopping))
		queue_delayed_work(h->wq, &h->poll_work,
				   msecs_to_jiffies(SCENIC_HEALTH_POLL_MS));
}

/* devlink health reporter "card" */

static int scenic_health_recover_cb(struct devlink_health_reporter *reporter,
				    void *priv_ctx,
				    struct netlink_ext_ack *extack)
{
	struct scenic_health *h = devlink_health_reporter_priv(reporter);
	int err;

	mutex_lock(&h->lock);
	if (h->stopping) {
		mutex_unlock(&h->lock);
		return -ENODEV;
	}
	/* a manual recover of an error state the card already left */
	scenic_health_enter_dead(h, SCENIC_TRIGGER_REQUEST, 0);
	err = scenic_health_recover_locked(h, false);
	mutex_unlock(&h->lock);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "card recovery failed, see the kernel log");
	return err;
}

static void scenic_fmsg_regs(struct devlink_fmsg *fmsg, u32 st, u32 detail)
{
	u8 code = FIELD_GET(SCENIC_CORE_FATAL_STATUS_CODE_MASK, st);

	devlink_fmsg_u32_pair_put(fmsg, "fatal_status", st);
	devlink_fmsg_bool_pair_put(fmsg, "fatal",
				   !!(st & SCENIC_CORE_FATAL_STATUS_FATAL_MASK));
	devlink_fmsg_string_pair_put(fmsg, "code", scenic_trigger_name(code));
	devlink_fmsg_u32_pair_put(fmsg, "block",
				  FIELD_GET(SCENIC_CORE_FATAL_STATUS_BLOCK_MASK, st));
	devlink_fmsg_u32_pair_put(fmsg, "fatal_detail", detail);
}

static void scenic_fmsg_counters(struct devlink_fmsg *fmsg,
				 struct scenic_health *h)
{
	struct scenic_aq *aq = &h->sdev->aq;
	unsigned long flags;
	u64 cmds, errors, timeouts, mismatches;
	u32 in_flight;

	spin_lock_irqsave(&aq->stats_lock, flags);
	cmds = aq->cmds;
	errors = aq->errors;
	timeouts = aq->timeouts;
	mismatches = aq->id_mismatches;
	in_flight = aq->in_flight;
	spin_unlock_irqrestore(&aq->stats_lock, flags);

	devlink_fmsg_u64_pair_put(fmsg, "admin_cmds", cmds);
	devlink_fmsg_u64_pair_put(fmsg, "admin_cmd_errors", errors);
	devlink_fmsg_u64_pair_put(fmsg, "admin_cmd_timeouts", timeouts);
	devlink_fmsg_u64_pair_put(fmsg, "admin_id_mismatches", mismatches);
	devlink_fmsg_u32_pair_put(fmsg, "admin_in_flight", in_flight);
	devlink_fmsg_u64_pair_put(fmsg, "aeq_events",
				  atomic64_read(&h->sdev->aeq.events));
	devlink_fmsg_u64_pair_put(fmsg, "aeq_overflows",
				  atomic64_read(&h->sdev->aeq.overflows));
	devlink_fmsg_u64_pair_put(fmsg, "faults", h->faults);
	devlink_fmsg_u64_pair_put(fmsg, "recoveries", h->recoveries);
	devlink_fmsg_u64_pair_put(fmsg, "recovery_failures",
				  h->recovery_failures);
	devlink_fmsg_u64_pair_put(fmsg, "faults_while_down", h->ignored);
	devlink_fmsg_u64_pair_put(fmsg, "flr_fallbacks", h->flr_fallbacks);
	devlink_fmsg_u32_pair_put(fmsg, "last_recovery_ms",
				  h->last_recovery_ms);
}

static int scenic_health_diagnose(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg,
				  struct netlink_ext_ack *extack)
{
	struct scenic_health *h = devlink_health_reporter_priv(reporter);
	struct scenic_dev *sdev = h->sdev;
	u32 st, detail, hb, aq_st, sq_head, sq_tail, cq_head, cq_tail;

	st = scenic_health_rd(sdev, SCENIC_CORE_FATAL_STATUS);
	detail = scenic_health_rd(sdev, SCENIC_CORE_FATAL_DETAIL);
	hb = scenic_health_rd(sdev, SCENIC_CORE_HEARTBEAT);
	aq_st = scenic_health_rd(sdev, SCENIC_CORE_AQ_STATUS);
	sq_head = scenic_health_rd(sdev, SCENIC_CORE_AQ_SQ_HEAD);
	sq_tail = scenic_health_rd(sdev, SCENIC_CORE_AQ_SQ_TAIL);
	cq_head = scenic_health_rd(sdev, SCENIC_CORE_AQ_CQ_HEAD);
	cq_tail = scenic_health_rd(sdev, SCENIC_CORE_AQ_CQ_TAIL);

	mutex_lock(&h->lock);
	devlink_fmsg_string_pair_put(fmsg, "state",
				     h->gone ? "removed" :
				     h->down ? "down" : "running");
	devlink_fmsg_string_pair_put(fmsg, "last_trigger",
				     scenic_trigger_name(h->trigger));
	scenic_fmsg_regs(fmsg, st, detail);
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat", hb);
	devlink_fmsg_pair_nest_start(fmsg, "admin_queue");
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_bool_pair_put(fmsg, "ready",
				   !!(aq_st & SCENIC_CORE_AQ_STATUS_READY_MASK));
	devlink_fmsg_bool_pair_put(fmsg, "halted",
				   !!(aq_st & SCENIC_CORE_AQ_STATUS_HALTED_MASK));
	devlink_fmsg_u32_pair_put(fmsg, "halt_reason",
				  FIELD_GET(SCENIC_CORE_AQ_STATUS_HALT_REASON_MASK, aq_st));
	devlink_fmsg_u32_pair_put(fmsg, "sq_head", sq_head);
	devlink_fmsg_u32_pair_put(fmsg, "sq_tail", sq_tail);
	devlink_fmsg_u32_pair_put(fmsg, "cq_head", cq_head);
	devlink_fmsg_u32_pair_put(fmsg, "cq_tail", cq_tail);
	devlink_fmsg_bool_pair_put(fmsg, "dead", READ_ONCE(sdev->aq.dead));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
	scenic_fmsg_counters(fmsg, h);
	mutex_unlock(&h->lock);
	return 0;
}

static int scenic_health_dump(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg, void *priv_ctx,
			      struct netlink_ext_ack *extack)
{
	struct scenic_health *h = devlink_health_reporter_priv(reporter);
	struct scenic_aeq_hist *ev;
	struct scenic_aq_hist *hist;
	unsigned int i, n, nev;

	hist = kcalloc(SCENIC_AQ_HISTORY, sizeof(*hist), GFP_KERNEL);
	ev = kcalloc(SCENIC_AEQ_HISTORY, sizeof(*ev), GFP_KERNEL);
	if (!hist || !ev) {
		kfree(hist);
		kfree(ev);
		return -ENOMEM;
	}
	n = scenic_aq_history(h->sdev, hist, SCENIC_AQ_HISTORY);
	nev = scenic_aeq_history(h->sdev, ev, SCENIC_AEQ_HISTORY);

	mutex_lock(&h->lock);
	devlink_fmsg_string_pair_put(fmsg, "trigger",
				     scenic_trigger_name(h->trigger));
	devlink_fmsg_u32_pair_put(fmsg, "trigger_detail", h->trigger_detail);
	scenic_fmsg_regs(fmsg, h->fatal_status, h->fatal_detail);
	mutex_unlock(&h->lock);

	devlink_fmsg_arr_pair_nest_start(fmsg, "commands");
	for (i = 0; i < n; i++) {
		devlink_fmsg_obj_nest_start(fmsg);
		devlink_fmsg_u64_pair_put(fmsg, "time_ns", hist[i].time_ns);
		devlink_fmsg_u32_pair_put(fmsg, "opcode", hist[i].opcode);
		devlink_fmsg_u32_pair_put(fmsg, "cmd_id", hist[i].cmd_id);
		devlink_fmsg_u32_pair_put(fmsg, "arg0", hist[i].arg0);
		devlink_fmsg_string_pair_put(fmsg, "result",
					     hist[i].status == SCENIC_AQ_HIST_TIMEOUT ? "timeout" :
					     hist[i].status == SCENIC_AQ_HIST_ABORTED ? "aborted" :
					     hist[i].status ? "error" : "ok");
		devlink_fmsg_u32_pair_put(fmsg, "status", hist[i].status);
		devlink_fmsg_u32_pair_put(fmsg, "syndrome", hist[i].syndrome);
		devlink_fmsg_u32_pair_put(fmsg, "latency_us",
					  hist[i].latency_us);
		devlink_fmsg_obj_nest_end(fmsg);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);

	/* obj: qpn, cqn, key, fatal detail, lost count or link speed */
	devlink_fmsg_arr_pair_nest_start(fmsg, "events");
	for (i = 0; i < nev; i++) {
		devlink_fmsg_obj_nest_start(fmsg);
		devlink_fmsg_u64_pair_put(fmsg, "time_ns", ev[i].time_ns);
		devlink_fmsg_u32_pair_put(fmsg, "seq", ev[i].seq);
		devlink_fmsg_string_pair_put(fmsg, "type",
					     scenic_aeq_type_name(ev[i].type));
		devlink_fmsg_string_pair_put(fmsg, "code_name",
					     ev[i].type == SCENIC_AEQ_TYPE_CARD_FATAL ?
					     scenic_trigger_name(ev[i].code) : "-");
		devlink_fmsg_u32_pair_put(fmsg, "code", ev[i].code);
		devlink_fmsg_u32_pair_put(fmsg, "obj", ev[i].obj);
		devlink_fmsg_obj_nest_end(fmsg);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
	kfree(ev);
	kfree(hist);
	return 0;
}

static const struct devlink_health_reporter_ops scenic_health_card_ops = {
	.name = "card",
	.recover = scenic_health_recover_cb,
	.diagnose = scenic_health_diagnose,
	.dump = scenic_health_dump,
};

/* devlink dev reload action driver_reinit: steps 1 and 3, then 4 to 6 */
int scenic_health_reload_down(struct scenic_dev *sdev,
			      struct netlink_ext_ack *extack)
{
	struct scenic_health *h = sdev->health;

	if (!h)
		return -EOPNOTSUPP;
	mutex_lock(&h->lock);
	if (h->gone || h->stopping) {
		mutex_unlock(&h->lock);
		NL_SET_ERR_MSG_MOD(extack, "the card is gone or being removed");
		return -ENODEV;
	}
	scenic_health_enter_dead(h, SCENIC_TRIGGER_RELOAD, 0);
	/* a pending fault is part of this reload */
	spin_lock_irq(&h->pending_lock);
	h->pending_code = 0;
	spin_unlock_irq(&h->pending_lock);
	scenic_aux_del_func(sdev, SCENIC_FUNC_SCU);
	scenic_aux_del_func(sdev, SCENIC_FUNC_RDMA);
	mutex_unlock(&h->lock);
	return 0;
}

int scenic_health_reload_up(struct scenic_dev *sdev,
			    struct netlink_ext_ack *extack)
{
	struct scenic_health *h = sdev->health;
	int err;

	if (!h)
		return -EOPNOTSUPP;
	mutex_lock(&h->lock);
	err = scenic_health_recover_locked(h, false);
	mutex_unlock(&h->lock);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "card recovery failed, see the kernel log");
		return err;
	}
	devlink_health_reporter_state_update(h->reporter,
					     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
	return 0;
}

/* FLR: steps 1 and 3 before the reset; reset_done queues 4 to 6. */
void scenic_health_reset_prepare(struct scenic_dev *sdev)
{
	struct scenic_health *h = sdev->health;

	if (!h || h->self_reset)
		return;
	cancel_delayed_work_sync(&h->poll_work);
	mutex_lock(&h->lock);
	scenic_health_enter_dead(h, SCENIC_FATAL_CODE_DRV_FLR, 0);
	/* the FLR's own recovery replaces any fault seen before it */
	spin_lock_irq(&h->pending_lock);
	h->pending_code = 0;
	spin_unlock_irq(&h->pending_lock);
	scenic_aux_del_func(sdev, SCENIC_FUNC_SCU);
	scenic_aux_del_func(sdev, SCENIC_FUNC_RDMA);
	scenic_queues_stop(sdev);
	mutex_unlock(&h->lock);

	mutex_lock(&sdev->lock);
	sdev->in_reset = true;
	mutex_unlock(&sdev->lock);
	synchronize_irq(sdev->core_irq);
}

void scenic_health_reset_done(struct scenic_dev *sdev)
{
	struct scenic_health *h = sdev->health;

	if (!h || h->self_reset)
		return;
	spin_lock_irq(&h->pending_lock);
	h->pending_flr = true;
	spin_unlock_irq(&h->pending_lock);
	queue_work(h->wq, &h->fault_work);
	queue_delayed_work(h->wq, &h->poll_work,
			   msecs_to_jiffies(SCENIC_HEALTH_POLL_MS));
}

/* Debugfs: the state in one line per value. */
void scenic_health_show(struct scenic_dev *sdev, struct seq_file *s)
{
	struct scenic_health *h = sdev->health;

	if (!h)
		return;
	mutex_lock(&h->lock);
	seq_printf(s, "state %s\n", h->gone ? "removed" :
		   h->down ? "down" : "running");
	seq_printf(s, "last_trigger %s\n", scenic_trigger_name(h->trigger));
	seq_printf(s, "faults %llu\n", h->faults);
	seq_printf(s, "recoveries %llu\n", h->recoveries);
	seq_printf(s, "recovery_failures %llu\n", h->recovery_failures);
	seq_printf(s, "faults_while_down %llu\n", h->ignored);
	seq_printf(s, "flr_fallbacks %llu\n", h->flr_fallbacks);
	seq_printf(s, "last_recovery_ms %u\n", h->last_recovery_ms);
	mutex_unlock(&h->lock);
}

int scenic_health_init(struct scenic_dev *sdev)
{
	struct scenic_health *h;
	int err;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->sdev = sdev;
	spin_lock_init(&h->pending_lock);
	mutex_init(&h->lock);
	INIT_DELAYED_WORK(&h->poll_work, scenic_health_poll);
	INIT_WORK(&h->fault_work, scenic_health_fault_work);
	h->wq = alloc_ordered_workqueue("scenic-health-%s", 0,
					pci_name(sdev->pdev));
	if (!h->wq) {
		err = -ENOMEM;
		goto err_free;
	}
	h->reporter = devlink_health_reporter_create(sdev->devlink,
						     &scenic_health_card_ops,
						     SCENIC_HEALTH_GRACE_MS, h);
	if (IS_ERR(h->reporter)) {
		err = PTR_ERR(h->reporter);
		dev_err(&sdev->pdev->dev, "cannot create the devlink health reporter (%d)\n",
			err);
		goto err_wq;
	}
	sdev->health = h;
	sdev->recover_hook = scenic_health_report;
	queue_delayed_work(h->wq, &h->poll_work,
			   msecs_to_jiffies(SCENIC_HEALTH_POLL_MS));
	return 0;

err_wq:
	destroy_workqueue(h->wq);
err_free:
	mutex_destroy(&h->lock);
	kfree(h);
	return err;
}

/*
 * Remove, before devlink_unregister(): no fault is handled and no recovery
 * or reload runs after this.
 */
void scenic_health_stop(struct scenic_dev *sdev)
{
	struct scenic_health *h = sdev->health;

	if (!h)
		return;
	WRITE_ONCE(sdev->recover_hook, NULL);
	mutex_lock(&h->lock);
	WRITE_ONCE(h->stopping, true);
	mutex_unlock(&h->lock);
	cancel_delayed_work_sync(&h->poll_work);
	cancel_work_sync(&h->fault_work);
}

void scenic_health_fini(struct scenic_dev *sdev)
{
	struct scenic_health *h = sdev->health;

	if (!h)
		return;
	scenic_health_stop(sdev);
	devlink_health_reporter_destroy(h->reporter);
	destroy_workqueue(h->wq);
	sdev->health = NULL;
	mutex_destroy(&h->lock);
	kfree(h);
}
