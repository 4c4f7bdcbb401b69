// SPDX-License-Identifier: GPL-2.0-only
/*
 * A slot's interrupt lines (docs/scu.md 4.3): vector 16 + slot, the lines'
 * eventfds, and poll()/read() of struct scenic_scu_irq_event on the owner's
 * fd. Interrupts are notifications: lines coalesce until read.
 */
#include <linux/eventfd.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "scenic_scu_drv.h"

static void scu_eventfd_signal(struct eventfd_ctx *ctx)
{
#ifdef SCENIC_HAVE_EVENTFD_SIGNAL_NO_COUNT
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

static irqreturn_t scenic_scu_irq_handler(int irq, void *data)
{
	struct scenic_scu_slot *slot = data;
	struct scenic_scu_card *card = slot->card;
	unsigned long lines;
	unsigned int l;
	u32 st;

	if (READ_ONCE(card->dead))
		return IRQ_NONE;
	st = ioread32(card->blk->base + SCENIC_SCU_SLOT_IRQ_STATUS(slot->index));
	if (!st || st == ~0U)
		return IRQ_NONE;
	/* write 1 to clear: a line that rises again after this fires again */
	iowrite32(st, card->blk->base + SCENIC_SCU_SLOT_IRQ_STATUS(slot->index));
	lines = st & GENMASK(card->irq_lines - 1, 0);

	spin_lock(&slot->irq_lock);
	/* without an owner nobody is told: the next owner starts clean */
	if (slot->irq_owner) {
		for_each_set_bit(l, &lines, card->irq_lines)
			if (slot->efd[l])
				scu_eventfd_signal(slot->efd[l]);
		slot->irq_pending |= lines;
		slot->irq_total++;
	}
	spin_unlock(&slot->irq_lock);
	wake_up_interruptible(&slot->irq_wq);
	return IRQ_HANDLED;
}

/* A new owner: nothing pending, no eventfds (the last owner's are gone). */
void scenic_scu_irq_attach(struct scenic_scu_slot *slot, struct file *file)
{
	spin_lock_irq(&slot->irq_lock);
	slot->irq_owner = file;
	slot->irq_pending = 0;
	slot->irq_total = 0;
	spin_unlock_irq(&slot->irq_lock);
}

/* The owner closes: its eventfds are released, its pending lines forgotten. */
void scenic_scu_irq_detach(struct scenic_scu_slot *slot)
{
	struct eventfd_ctx *old[SCENIC_SCU_MAX_IRQ_LINES];
	unsigned int l;

	spin_lock_irq(&slot->irq_lock);
	slot->irq_owner = NULL;
	slot->irq_pending = 0;
	for (l = 0; l < SCENIC_SCU_MAX_IRQ_LINES; l++) {
		old[l] = slot->efd[l];
		slot->efd[l] = NULL;
	}
	spin_unlock_irq(&slot->irq_lock);
	for (l = 0; l < SCENIC_SCU_MAX_IRQ_LINES; l++)
		if (old[l])
			eventfd_ctx_put(old[l]);
}

/* Caller holds card->rwsem for reading and checked scenic_scu_card_usable(). */
int scenic_scu_ioctl_set_irq(struct scenic_scu_slot *slot, void __user *arg)
{
	struct eventfd_ctx *ctx = NULL, *old;
	struct scenic_scu_irq req;
	u32 usize;
	int err;

	err = scenic_scu_copy_in(&req, sizeof(req), arg, &usize);
	if (err)
		return err;
	if (slot->irq < 0)
		return -EOPNOTSUPP;
	if (req.line >= slot->card->irq_lines || req.eventfd < -1)
		return -EINVAL;
	if (req.eventfd >= 0) {
		ctx = eventfd_ctx_fdget(req.eventfd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	spin_lock_irq(&slot->irq_lock);
	old = slot->efd[req.line];
	slot->efd[req.line] = ctx;
	spin_unlock_irq(&slot->irq_lock);
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

__poll_t scenic_scu_poll(struct file *file, struct poll_table_struct *wait)
{
	struct scenic_scu_slot *slot = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &slot->irq_wq, wait);
	if (READ_ONCE(slot->card->stopping))
		return EPOLLERR | EPOLLHUP;
	spin_lock_irq(&slot->irq_lock);
	if (slot->irq_owner == file && slot->irq_pending)
		mask |= EPOLLIN | EPOLLRDNORM;
	spin_unlock_irq(&slot->irq_lock);
	return mask;
}

static bool scu_irq_ready(struct scenic_scu_slot *slot)
{
	bool ready;

	spin_lock_irq(&slot->irq_lock);
	ready = slot->irq_pending;
	spin_unlock_irq(&slot->irq_lock);
	return ready || READ_ONCE(slot->card->stopping);
}

ssize_t scenic_scu_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct scenic_scu_slot *slot = file->private_data;
	struct scenic_scu_irq_event ev = {};
	int err;

	/* interrupts go to the owner only (docs/scu.md 6.5) */
	if (!(file->f_mode & FMODE_WRITE))
		return -EPERM;
	if (count < sizeof(ev))
		return -EINVAL;
	for (;;) {
		if (READ_ONCE(slot->card->stopping))
			return -ENODEV;
		spin_lock_irq(&slot->irq_lock);
		if (slot->irq_pending) {
			ev.pending = slot->irq_pending;
			ev.lines = slot->card->irq_lines;
			ev.total = slot->irq_total;
			slot->irq_pending = 0;
		}
		spin_unlock_irq(&slot->irq_lock);
		if (ev.pending)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(slot->irq_wq, scu_irq_ready(slot));
		if (err)
			return err;
	}
	if (copy_to_user(buf, &ev, sizeof(ev)))
		return -EFAULT;
	return sizeof(ev);
}

/* Vector 16 + slot for every slot the card has a vector for. */
int scenic_scu_irq_init(struct scenic_scu_card *card)
{
	struct scenic_aux_dev *sadev = card->sadev;
	unsigned int i;
	int irq, err;

	for (i = 0; i < card->num_slots; i++)
		card->slots[i].irq = -1;
	card->irq_lines = min_t(u32, ioread32(card->blk->base + SCENIC_SCU_IRQ_LINES),
				SCENIC_SCU_MAX_IRQ_LINES);
	if (!card->irq_lines)
		return 0;
	for (i = 0; i < card->num_slots; i++) {
		struct scenic_scu_slot *slot = &card->slots[i];

		irq = scenic_aux_irq_vector(sadev, SCENIC_VEC_SCU + i);
		if (irq < 0)
			break;	/* fewer vectors: the later slots have no interrupts */
		snprintf(slot->irq_name, sizeof(slot->irq_name), "scenic-scu%u@%s",
			 i, pci_name(sadev->pdev));
		err = request_irq(irq, scenic_scu_irq_handler, 0, slot->irq_name,
				  slot);
		if (err) {
			scenic_scu_irq_fini(card);
			return err;
		}
		slot->irq = irq;
	}
	return 0;
}

void scenic_scu_irq_fini(struct scenic_scu_card *card)
{
	unsigned int i;

	for (i = 0; i < card->num_slots; i++) {
		struct scenic_scu_slot *slot = &card->slots[i];

		if (slot->irq >= 0)
			free_irq(slot->irq, slot);
		slot->irq = -1;
	}
}
