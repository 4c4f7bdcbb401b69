// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCU slot owners and their PD bindings (docs/scu.md 4.5). scenic_scu.ko
 * records which file owns a slot; scenic_rdma.ko asks whether an fd a process
 * handed it is such an owner of the same card and binds the slot's memory
 * port to a PD with SCU_BIND_PD. The core keeps the table so that neither
 * function driver depends on the other.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "scenic.h"

/* every card's table and scu_fops; held across the admin commands */
static DEFINE_MUTEX(scu_bind_lock);
static const struct file_operations *scu_fops;

void scenic_scu_register_fops(const struct file_operations *fops)
{
	mutex_lock(&scu_bind_lock);
	scu_fops = fops;
	mutex_unlock(&scu_bind_lock);
}
EXPORT_SYMBOL_GPL(scenic_scu_register_fops);

/* SCU_BIND_PD; @pd NULL unbinds. Caller holds scu_bind_lock. */
static int scu_send_bind(struct scenic_dev *sdev, unsigned int slot,
			 const void *pd, u32 pdn)
{
	struct scenic_aq_scu_bind_pd cmd = {
		.hdr.opcode = SCENIC_AQ_OP_SCU_BIND_PD,
		.slot = slot,
		.flags = pd ? 0 : SCENIC_AQ_SCU_BIND_PD_UNBIND_MASK,
		.pdn = cpu_to_le32(pd ? pdn : 0),
	};
	struct scenic_scu_binding *b = &sdev->scu_bind[slot];
	int err;

	/* the command completes once the slot's memory requests drained */
	err = scenic_aq_exec(sdev, &cmd, sizeof(cmd), NULL, 0);
	if (err && pd)
		return err;
	/* an unbind the card could not take still forgets the PD here */
	b->pd = pd;
	b->pdn = pd ? pdn : 0;
	return err;
}

int scenic_scu_set_owner(struct scenic_aux_dev *sadev, unsigned int slot,
			 struct file *file)
{
	struct scenic_dev *sdev = sadev->core;

	if (slot == 0 || slot >= SCENIC_SCU_MAX_SLOTS)
		return -EINVAL;
	mutex_lock(&scu_bind_lock);
	sdev->scu_bind[slot].owner = file;
	mutex_unlock(&scu_bind_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(scenic_scu_set_owner);

void scenic_scu_owner_closed(struct scenic_aux_dev *sadev, unsigned int slot,
			     struct file *file)
{
	struct scenic_dev *sdev = sadev->core;
	struct scenic_scu_binding *b;

	if (slot == 0 || slot >= SCENIC_SCU_MAX_SLOTS)
		return;
	mutex_lock(&scu_bind_lock);
	b = &sdev->scu_bind[slot];
	if (b->owner == file) {
		b->owner = NULL;
		if (b->pd)
			scu_send_bind(sdev, slot, NULL, 0);
	}
	mutex_unlock(&scu_bind_lock);
}
EXPORT_SYMBOL_GPL(scenic_scu_owner_closed);

void scenic_scu_forget_owners(struct scenic_aux_dev *sadev)
{
	struct scenic_dev *sdev = sadev->core;
	unsigned int i;

	mutex_lock(&scu_bind_lock);
	for (i = 1; i < SCENIC_SCU_MAX_SLOTS; i++) {
		sdev->scu_bind[i].owner = NULL;
		if (sdev->scu_bind[i].pd)
			scu_send_bind(sdev, i, NULL, 0);
	}
	mutex_unlock(&scu_bind_lock);
}
EXPORT_SYMBOL_GPL(scenic_scu_forget_owners);

/* Caller holds scu_bind_lock. */
static int scu_file_slot(struct scenic_dev *sdev, struct file *file)
{
	unsigned int minor, slot;

	if (!scu_fops || file->f_op != scu_fops)
		return -EINVAL;		/* not an SCU slot's fd */
	minor = iminor(file_inode(file));
	if (minor / SCENIC_SCU_MAX_SLOTS != sdev->index)
		return -EXDEV;		/* a slot of another card */
	slot = minor % SCENIC_SCU_MAX_SLOTS;
	if (slot == 0)
		return -EPERM;		/* the fixed passthrough has no memory port */
	if (sdev->scu_bind[slot].owner != file)
		return -EACCES;		/* an observer's fd */
	return slot;
}

int scenic_scu_file_slot(struct scenic_dev *sdev, struct file *file)
{
	int ret;

	mutex_lock(&scu_bind_lock);
	ret = scu_file_slot(sdev, file);
	mutex_unlock(&scu_bind_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(scenic_scu_file_slot);

int scenic_scu_bind_pd(struct scenic_dev *sdev, struct file *file,
		       const void *pd, u32 pdn)
{
	int slot, err;

	if (!pd)
		return -EINVAL;
	mutex_lock(&scu_bind_lock);
	slot = scu_file_slot(sdev, file);
	if (slot < 0) {
		err = slot;
		goto out;
	}
	err = scu_send_bind(sdev, slot, pd, pdn);
out:
	mutex_unlock(&scu_bind_lock);
	return err;
}
EXPORT_SYMBOL_GPL(scenic_scu_bind_pd);

void scenic_scu_unbind_pd(struct scenic_dev *sdev, const void *pd)
{
	unsigned int i;

	mutex_lock(&scu_bind_lock);
	for (i = 1; i < SCENIC_SCU_MAX_SLOTS; i++)
		if (sdev->scu_bind[i].pd == pd)
			scu_send_bind(sdev, i, NULL, 0);
	mutex_unlock(&scu_bind_lock);
}
EXPORT_SYMBOL_GPL(scenic_scu_unbind_pd);
