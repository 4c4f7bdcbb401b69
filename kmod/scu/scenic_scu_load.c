// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC_SCU_IOC_LOAD / UNLOAD (docs/scu.md 4.1 and 5): header and hash
 * checks, the image into one coherent DMA buffer, SCU_LOAD, then a bounded,
 * killable wait for the slot's RECONFIGURED event.
 */
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "scenic_scu_drv.h"

/* Beyond drain and reconfiguration: the event's trip through the AEQ. */
#define SCU_EVENT_MARGIN_MS 2000
#define SCU_DEFAULT_DRAIN_MS 100

/* The ioctl's errno for a load status (uapi/scenic_scu.h). */
static int scu_status_errno(u32 status)
{
	switch (status) {
	case SCENIC_SCU_LOAD_OK:
		return 0;
	case SCENIC_SCU_LOAD_NO_RESOURCES:
		return -ENOSPC;
	case SCENIC_SCU_LOAD_DRAIN_TIMEOUT:
		return -ETIMEDOUT;
	case SCENIC_SCU_LOAD_FIXED_SLOT:
		return -EPERM;
	case SCENIC_SCU_LOAD_TOO_LARGE:
		return -EFBIG;
	case SCENIC_SCU_LOAD_CARD_ERROR:
	case SCENIC_SCU_LOAD_RECONFIG_FAILED:
		return -EIO;
	default:
		return -ENOEXEC;
	}
}

/*
 * The card's refusal (enum scenic_scu_status) as a load status. The kernel
 * already checked everything of BAD_IMAGE but the data width.
 */
static u32 scu_card_status(u8 st)
{
	switch (st) {
	case SCENIC_SCU_STATUS_BAD_SLOT:
		return SCENIC_SCU_LOAD_FIXED_SLOT;
	case SCENIC_SCU_STATUS_TOO_LARGE:
		return SCENIC_SCU_LOAD_TOO_LARGE;
	case SCENIC_SCU_STATUS_BAD_IMAGE:
		return SCENIC_SCU_LOAD_BAD_DATA_WIDTH;
	case SCENIC_SCU_STATUS_BAD_IFACE:
		return SCENIC_SCU_LOAD_BAD_IFACE_VERSION;
	case SCENIC_SCU_STATUS_UNKNOWN_KIND:
		return SCENIC_SCU_LOAD_UNKNOWN_KIND;
	default:
		return SCENIC_SCU_LOAD_CARD_ERROR;
	}
}

void scenic_scu_event(void *priv, const struct scenic_aeqe *ev)
{
	const struct scenic_aeqe_scu *e = (const void *)ev;
	struct scenic_scu_card *card = priv;
	struct scenic_scu_slot *slot;
	unsigned long flags;

	if (ev->hdr.type != SCENIC_AEQ_TYPE_SCU || e->slot >= card->num_slots)
		return;
	if (e->kind != SCENIC_SCU_EVENT_KIND_RECONFIGURED)
		return;
	slot = &card->slots[e->slot];
	spin_lock_irqsave(&slot->ev_lock, flags);
	if (slot->pending) {
		slot->pending = false;
		slot->ev_status = e->scu_status;
		slot->ev_pause_us = le32_to_cpu(e->info);
	}
	spin_unlock_irqrestore(&slot->ev_lock, flags);
	wake_up_all(&slot->wq);
}

/* Events were lost: a waiter asks the card how its reconfiguration ended. */
void scenic_scu_resync(void *priv)
{
	struct scenic_scu_card *card = priv;
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < card->num_slots; i++) {
		struct scenic_scu_slot *slot = &card->slots[i];

		spin_lock_irqsave(&slot->ev_lock, flags);
		if (slot->pending)
			slot->ev_lost = true;
		spin_unlock_irqrestore(&slot->ev_lock, flags);
		wake_up_all(&slot->wq);
	}
}

static bool scu_wait_over(struct scenic_scu_slot *slot)
{
	unsigned long flags;
	bool over;

	spin_lock_irqsave(&slot->ev_lock, flags);
	over = !slot->pending || slot->ev_lost;
	spin_unlock_irqrestore(&slot->ev_lock, flags);
	return over || READ_ONCE(slot->card->stopping);
}

static void scu_set_pending(struct scenic_scu_slot *slot, bool on)
{
	unsigned long flags;

	spin_lock_irqsave(&slot->ev_lock, flags);
	slot->pending = on;
	slot->ev_lost = false;
	slot->ev_status = 0;
	slot->ev_pause_us = 0;
	spin_unlock_irqrestore(&slot->ev_lock, flags);
}

/* The image from user space into a coherent buffer, checked there. */
static int scu_fetch_image(struct scenic_scu_slot *slot,
			   const struct scenic_scu_load *ld,
			   struct scenic_scu_image *img, void **buf,
			   dma_addr_t *dma, u32 *status)
{
	struct scenic_scu_card *card = slot->card;
	struct device *ddev = &card->sadev->pdev->dev;
	struct device *dev = slot->dev;
	const void __user *uimg = u64_to_user_ptr(ld->image_ptr);
	u8 hdr[SCENIC_SCU_HDR_LEN];

	if (ld->image_len > SCENIC_SCU_MAX_IMAGE_LEN ||
	    ld->image_len > card->max_image) {
		dev_dbg(dev, "image refused: %llu bytes, card takes %u\n",
			ld->image_len, card->max_image);
		*status = SCENIC_SCU_LOAD_TOO_LARGE;
		return 0;
	}
	if (ld->image_len < SCENIC_SCU_HDR_LEN) {
		dev_dbg(dev, "image refused: %llu bytes, shorter than a header\n",
			ld->image_len);
		*status = SCENIC_SCU_LOAD_BAD_HEADER;
		return 0;
	}
	/* a bad header costs no large allocation */
	if (copy_from_user(hdr, uimg, sizeof(hdr)))
		return -EFAULT;
	*status = scenic_scu_image_check_header(hdr, ld->image_len,
						card->iface_version, img, dev);
	if (*status)
		return 0;

	*buf = dma_alloc_coherent(ddev, ld->image_len, dma, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	if (copy_from_user(*buf, uimg, ld->image_len))
		return -EFAULT;
	/* again on the bytes the card will read: user space may have changed them */
	*status = scenic_scu_image_check_header(*buf, ld->image_len,
						card->iface_version, img, dev);
	if (!*status)
		*status = scenic_scu_image_check_payload(*buf, img, dev);
	return 0;
}

/* Send the command; on a refusal, ask the card why. */
static int scu_send(struct scenic_scu_slot *slot, const struct scenic_scu_load *ld,
		    dma_addr_t dma, bool unload, u32 *status)
{
	struct scenic_dev *core = slot->card->sadev->core;
	struct scenic_acq_scu_load res = {};
	struct scenic_scu_query q;
	int err;

	if (unload) {
		struct scenic_aq_scu_unload cmd = {
			.hdr.opcode = SCENIC_AQ_OP_SCU_UNLOAD,
			.slot = slot->index,
		};

		err = scenic_aq_exec(core, &cmd, sizeof(cmd), &res, sizeof(res));
	} else {
		struct scenic_aq_scu_load cmd = {
			.hdr.opcode = SCENIC_AQ_OP_SCU_LOAD,
			.slot = slot->index,
			.image_addr = cpu_to_le64(dma),
			.image_len = cpu_to_le32(ld->image_len),
		};

		err = scenic_aq_exec(core, &cmd, sizeof(cmd), &res, sizeof(res));
	}
	if (!err)
		return 0;
	if (err == -EIO || err == -ETIMEDOUT || READ_ONCE(slot->card->dead)) {
		*status = SCENIC_SCU_LOAD_CARD_ERROR;
		return err == -ETIMEDOUT ? -EIO : err;
	}
	if (err == -EBUSY) {
		/* a reconfiguration whose event we gave up on is still running */
		*status = SCENIC_SCU_LOAD_CARD_ERROR;
		return -EBUSY;
	}
	if (scenic_scu_query_slot(slot, &q)) {
		*status = SCENIC_SCU_LOAD_CARD_ERROR;
		return -EIO;
	}
	*status = scu_card_status(q.last_refusal);
	dev_dbg(slot->dev, "card refused the %s: %d, scu_status %u\n",
		unload ? "unload" : "load", err, q.last_refusal);
	return scu_status_errno(*status);
}

/* Wait for the RECONFIGURED event; bounded and killable. */
static int scu_wait(struct scenic_scu_slot *slot, const struct scenic_scu_load *ld,
		    const struct scenic_scu_image *img, bool unload,
		    u32 *status, u64 *pause_ns)
{
	struct scenic_scu_card *card = slot->card;
	unsigned int drain = ld->drain_timeout_ms ?: SCU_DEFAULT_DRAIN_MS;
	unsigned long t = msecs_to_jiffies(drain + card->reconfig_us / 1000 +
					   SCU_EVENT_MARGIN_MS);
	struct scenic_scu_query q;
	unsigned long flags;
	bool lost, pending;
	long left;
	u8 st;

	left = wait_event_killable_timeout(slot->wq, scu_wait_over(slot), t);
	spin_lock_irqsave(&slot->ev_lock, flags);
	pending = slot->pending;
	lost = slot->ev_lost;
	st = slot->ev_status;
	*pause_ns = (u64)slot->ev_pause_us * NSEC_PER_USEC;
	slot->pending = false;
	spin_unlock_irqrestore(&slot->ev_lock, flags);

	*status = SCENIC_SCU_LOAD_CARD_ERROR;
	if (READ_ONCE(card->stopping))
		return -ENODEV;
	if (left < 0 && pending)
		return -EINTR;
	if (pending && !lost) {
		dev_warn(slot->dev, "no end of the reconfiguration within %u ms\n",
			 jiffies_to_msecs(t));
		return -EIO;
	}
	if (lost) {
		/* the event is gone: the slot says whether the new SCU runs */
		*pause_ns = 0;
		if (scenic_scu_query_slot(slot, &q))
			return -EIO;
		if (q.state != SCENIC_SCU_SLOT_STATE_RUNNING ||
		    q.kind != (unload ? SCENIC_SCU_KIND_PASSTHROUGH : img->kind) ||
		    (!unload && q.build_id != img->build_id))
			return -EIO;
		st = SCENIC_SCU_STATUS_OK;
	}
	if (st != SCENIC_SCU_STATUS_OK) {
		*status = SCENIC_SCU_LOAD_RECONFIG_FAILED;
		return -EIO;
	}
	*status = SCENIC_SCU_LOAD_OK;
	return 0;
}

static int scu_do_load(struct scenic_scu_slot *slot, struct scenic_scu_load *ld,
		       bool unload)
{
	struct scenic_scu_card *card = slot->card;
	struct scenic_scu_image img = {};
	dma_addr_t dma = 0;
	void *buf = NULL;
	u32 status = SCENIC_SCU_LOAD_OK;
	u64 pause_ns = 0;
	int err = 0;

	if (!unload) {
		err = scu_fetch_image(slot, ld, &img, &buf, &dma, &status);
		if (err || status || (ld->flags & SCENIC_SCU_LOAD_DRY_RUN))
			goto out;
	}

	scu_set_pending(slot, true);
	err = scu_send(slot, ld, dma, unload, &status);
	/* the card has read the image when the command completes */
	if (buf)
		dma_free_coherent(&card->sadev->pdev->dev, ld->image_len, buf,
				  dma);
	buf = NULL;
	if (err) {
		scu_set_pending(slot, false);
		goto out;
	}
	/* an accepted UNLOAD took the slot's steering rules on the card */
	if (unload)
		scenic_scu_steer_forget(slot);
	err = scu_wait(slot, ld, &img, unload, &status, &pause_ns);
	if (err)
		goto out;

	ld->pause_ns = pause_ns;
	mutex_lock(&slot->lock);
	slot->img = img;
	slot->have_img = !unload;
	slot->loads++;
	slot->last_pause_ns = pause_ns;
	mutex_unlock(&slot->lock);
	dev_dbg(slot->dev, "%s %s: pause %llu ns\n", unload ? "unloaded" : "loaded",
		unload ? "" : img.name, pause_ns);
out:
	if (buf)
		dma_free_coherent(&card->sadev->pdev->dev, ld->image_len, buf,
				  dma);
	ld->status = status;
	if (err)
		return err;
	return scu_status_errno(status);
}

int scenic_scu_ioctl_load(struct scenic_scu_slot *slot, void __user *arg,
			  bool unload)
{
	const u32 known_flags = SCENIC_SCU_LOAD_DRY_RUN | SCENIC_SCU_LOAD_FORCE;
	struct scenic_scu_card *card = slot->card;
	u64 start = ktime_get_ns();
	struct scenic_scu_load ld;
	u32 usize;
	int err;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < sizeof(ld))
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(&ld, sizeof(ld), arg, usize);
	if (err)
		return err;
	if (ld.comp_mask || (ld.flags & ~known_flags) ||
	    memchr_inv(ld.reserved_120, 0, sizeof(ld.reserved_120)) ||
	    memchr_inv(ld.reserved_1c0, 0, sizeof(ld.reserved_1c0)))
		return -EINVAL;
	/* UNLOAD: no image, and nothing to dry-run */
	if (unload && (ld.image_ptr || ld.image_len ||
		       (ld.flags & SCENIC_SCU_LOAD_DRY_RUN)))
		return -EINVAL;
	ld.status = 0;
	ld.pause_ns = 0;
	ld.total_ns = 0;

	if (mutex_lock_killable(&slot->load_lock))
		return -EINTR;
	down_read(&card->rwsem);
	if (scenic_scu_card_usable(card))
		err = scu_do_load(slot, &ld, unload);
	else
		err = -ENODEV;
	up_read(&card->rwsem);
	mutex_unlock(&slot->load_lock);

	ld.total_ns = ktime_get_ns() - start;
	/* the status is written back on failure too */
	if (copy_to_user(arg, &ld, sizeof(ld)))
		return -EFAULT;
	return err;
}
