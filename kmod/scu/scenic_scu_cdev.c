// SPDX-License-Identifier: GPL-2.0-only
/*
 * The slot char devices /dev/scenic<c>/scu<n> (class scenic_scu): open and
 * ownership, the ioctl struct discipline of uapi/scenic_scu.h, INFO.
 */
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "scenic_scu_drv.h"

#define SCU_MINORS (SCENIC_SCU_MAX_CARDS * SCENIC_SCU_MAX_SLOTS)

static dev_t scu_devt;
/* minor -> slot; a card's entries are cleared before it is freed */
static DEFINE_MUTEX(scu_minor_lock);
static struct scenic_scu_slot *scu_minor[SCU_MINORS];

#ifdef SCENIC_HAVE_CONST_DEVNODE
static char *scenic_scu_devnode(const struct device *dev, umode_t *mode)
#else
static char *scenic_scu_devnode(struct device *dev, umode_t *mode)
#endif
{
	/* root:root 0660 (docs/scu.md 4); udev rules widen it */
	if (mode)
		*mode = 0660;
	return NULL;
}

static struct class scenic_scu_class = {
	.name = "scenic_scu",
	.devnode = scenic_scu_devnode,
};

/* The user struct's size, checked against the first version (ksize). */
int scenic_scu_copy_in(void *k, size_t ksize, void __user *u, u32 *usize)
{
	u32 comp_mask;
	int err;

	if (get_user(*usize, (u32 __user *)u))
		return -EFAULT;
	if (*usize < ksize)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	/* zero-fills nothing here (usize >= ksize); E2BIG on non-zero bytes beyond ksize */
	err = copy_struct_from_user(k, ksize, u, *usize);
	if (err)
		return err;
	memcpy(&comp_mask, (u8 *)k + 4, sizeof(comp_mask));
	return comp_mask ? -EINVAL : 0;
}

int scenic_scu_copy_out(void __user *u, const void *k, size_t ksize, u32 usize)
{
	return copy_to_user(u, k, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

/* Caller holds card->rwsem for reading and checked scenic_scu_card_usable(). */
int scenic_scu_fill_info(struct scenic_scu_slot *slot, struct file *file,
			 struct scenic_scu_info *info)
{
	struct scenic_scu_card *card = slot->card;
	struct scenic_scu_query q;
	int err;

	err = scenic_scu_query_slot(slot, &q);
	if (err)
		return err;
	info->card = card->id;
	info->slot = slot->index;
	info->num_slots = card->num_slots;
	info->irq_lines = slot->irq >= 0 ? card->irq_lines : 0;
	if (card->bar3) {
		info->csr_size = SCENIC_SCU_CSR_WINDOW_SIZE;
		info->csr_mmap_offset = SCENIC_SCU_CSR_MMAP_OFFSET;
	}
	if (slot->status_page) {
		info->status_size = PAGE_SIZE;
		info->status_mmap_offset = SCENIC_SCU_STATUS_MMAP_OFFSET;
	}
	info->state = q.state;
	info->iface_version = card->iface_version;
	info->kind = q.kind;
	info->kind_version = q.kind_version;
	info->build_id = q.build_id;
	info->reconfig_delay_us = card->reconfig_us;
	info->qp_policy = SCENIC_SCU_QP_SAME_UID;
	info->steer_rules_used = scenic_scu_steer_used(slot);
	info->steer_rules_max = card->steer_max;
	if (slot->index == 0)
		info->flags |= SCENIC_SCU_INFO_FIXED;
	if (q.pd_bound)
		info->flags |= SCENIC_SCU_INFO_PD_BOUND;

	mutex_lock(&slot->lock);
	if (slot->owner)
		info->flags |= SCENIC_SCU_INFO_OWNED;
	if (file && slot->owner == file)
		info->flags |= SCENIC_SCU_INFO_OWNER_IS_ME;
	/* the card keeps no name or hash: ours, if it still runs what we loaded */
	if (slot->have_img && slot->img.kind == q.kind &&
	    slot->img.kind_version == q.kind_version &&
	    slot->img.build_id == q.build_id) {
		memcpy(info->name, slot->img.name, SCENIC_SCU_NAME_LEN);
		memcpy(info->image_sha256, slot->img.sha256,
		       SCENIC_SCU_SHA256_LEN);
	} else if (q.kind == SCENIC_SCU_KIND_PASSTHROUGH && !q.build_id) {
		strscpy(info->name, "passthrough", sizeof(info->name));
	}
	info->loads = slot->loads;
	info->last_pause_ns = slot->last_pause_ns;
	mutex_unlock(&slot->lock);
	return 0;
}

static int scu_ioctl_info(struct scenic_scu_slot *slot, struct file *file,
			  void __user *arg)
{
	struct scenic_scu_info info;
	u32 usize;
	int err;

	err = scenic_scu_copy_in(&info, sizeof(info), arg, &usize);
	if (err)
		return err;
	memset(&info, 0, sizeof(info));
	info.size = usize;
	err = scenic_scu_fill_info(slot, file, &info);
	if (err)
		return err;
	return scenic_scu_copy_out(arg, &info, sizeof(info), usize);
}

static long scenic_scu_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct scenic_scu_slot *slot = file->private_data;
	struct scenic_scu_card *card = slot->card;
	void __user *uarg = (void __user *)arg;
	bool owner = file->f_mode & FMODE_WRITE;
	long err;

	switch (cmd) {
	case SCENIC_SCU_IOC_INFO:
	case SCENIC_SCU_IOC_COUNTERS:
		break;
	case SCENIC_SCU_IOC_LOAD:
	case SCENIC_SCU_IOC_UNLOAD:
	case SCENIC_SCU_IOC_SET_IRQ:
	case SCENIC_SCU_IOC_CSR:
	case SCENIC_SCU_IOC_STEER_ADD:
	case SCENIC_SCU_IOC_STEER_DEL:
	case SCENIC_SCU_IOC_SET_POLICY:
		/* an observer's fd is not open for writing, as for write(2) */
		if (!owner)
			return -EBADF;
		break;
	default:
		return -ENOTTY;
	}

	if (cmd == SCENIC_SCU_IOC_LOAD || cmd == SCENIC_SCU_IOC_UNLOAD)
		return scenic_scu_ioctl_load(slot, uarg,
					     cmd == SCENIC_SCU_IOC_UNLOAD);

	down_read(&card->rwsem);
	if (!scenic_scu_card_usable(card)) {
		err = -ENODEV;
		goto out;
	}
	switch (cmd) {
	case SCENIC_SCU_IOC_INFO:
		err = scu_ioctl_info(slot, file, uarg);
		break;
	case SCENIC_SCU_IOC_COUNTERS:
		err = scenic_scu_ioctl_counters(slot, uarg);
		break;
	case SCENIC_SCU_IOC_CSR:
		err = scenic_scu_ioctl_csr(slot, uarg);
		break;
	case SCENIC_SCU_IOC_SET_IRQ:
		err = scenic_scu_ioctl_set_irq(slot, uarg);
		break;
	case SCENIC_SCU_IOC_STEER_ADD:
		err = scenic_scu_ioctl_steer_add(slot, uarg);
		break;
	case SCENIC_SCU_IOC_STEER_DEL:
		err = scenic_scu_ioctl_steer_del(slot, uarg);
		break;
	default:
		/* QP policy: not enforced by the card yet (docs/scu.md 4.6) */
		err = -EOPNOTSUPP;
		break;
	}
out:
	up_read(&card->rwsem);
	return err;
}

static int scenic_scu_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);
	struct scenic_scu_slot *slot;
	struct scenic_scu_card *card;
	int err = 0;

	if (minor >= SCU_MINORS)
		return -ENODEV;
	mutex_lock(&scu_minor_lock);
	slot = scu_minor[minor];
	if (slot)
		kref_get(&slot->card->kref);
	mutex_unlock(&scu_minor_lock);
	if (!slot)
		return -ENODEV;
	card = slot->card;

	down_read(&card->rwsem);
	if (!scenic_scu_card_usable(card)) {
		err = -ENODEV;
		goto out;
	}
	if (file->f_mode & FMODE_WRITE) {
		/* slot 0 is the fixed passthrough: nobody owns it */
		if (slot->index == 0) {
			err = -EPERM;
			goto out;
		}
		bool reset = false;

		mutex_lock(&slot->lock);
		if (slot->owner) {
			err = -EBUSY;
		} else {
			slot->owner = file;
			scenic_scu_set_owner(card->sadev, slot->index, file);
			reset = slot->ever_owned &&
				!uid_eq(slot->last_uid, current_euid());
			slot->ever_owned = true;
			slot->last_uid = current_euid();
			scenic_scu_irq_attach(slot, file);
		}
		mutex_unlock(&slot->lock);
		/* another user's SCU state (keys in CSRs) does not pass on */
		if (reset) {
			err = scenic_scu_reset_slot(slot);
			if (err) {
				mutex_lock(&slot->lock);
				scenic_scu_irq_detach(slot);
				slot->owner = NULL;
				mutex_unlock(&slot->lock);
				scenic_scu_owner_closed(card->sadev, slot->index,
							file);
			}
		}
	}
out:
	up_read(&card->rwsem);
	if (err) {
		scenic_scu_card_put(card);
		return err;
	}
	file->private_data = slot;
	return nonseekable_open(inode, file);
}

static int scenic_scu_release(struct inode *inode, struct file *file)
{
	struct scenic_scu_slot *slot = file->private_data;
	struct scenic_scu_card *card = slot->card;
	bool was_owner;

	mutex_lock(&slot->lock);
	was_owner = slot->owner == file;
	if (was_owner) {
		scenic_scu_irq_detach(slot);
		slot->owner = NULL;
	}
	mutex_unlock(&slot->lock);
	/* the slot's PD goes with its owner (docs/scu.md 4.5); after remove
	 * the core forgot the card's owners already
	 */
	if (was_owner) {
		down_read(&card->rwsem);
		if (!card->gone)
			scenic_scu_owner_closed(card->sadev, slot->index, file);
		up_read(&card->rwsem);
	}
	scenic_scu_card_put(card);
	return 0;
}

static const struct file_operations scenic_scu_fops = {
	.owner = THIS_MODULE,
	.open = scenic_scu_open,
	.release = scenic_scu_release,
	.unlocked_ioctl = scenic_scu_ioctl,
	.mmap = scenic_scu_mmap,
	.poll = scenic_scu_poll,
	.read = scenic_scu_read,
	.compat_ioctl = compat_ptr_ioctl,
};

static void scu_slot_del(struct scenic_scu_slot *slot)
{
	if (slot->dev)
		device_destroy(&scenic_scu_class, slot->dev->devt);
	slot->dev = NULL;
	if (slot->cdev)
		cdev_del(slot->cdev);
	slot->cdev = NULL;
}

int scenic_scu_cdev_add(struct scenic_scu_card *card)
{
	struct device *parent = &card->sadev->adev.dev;
	unsigned int i;
	int err;

	card->minor_base = card->id * SCENIC_SCU_MAX_SLOTS;
	mutex_lock(&scu_minor_lock);
	for (i = 0; i < card->num_slots; i++)
		if (scu_minor[card->minor_base + i]) {
			mutex_unlock(&scu_minor_lock);
			return -EBUSY;
		}
	for (i = 0; i < card->num_slots; i++)
		scu_minor[card->minor_base + i] = &card->slots[i];
	mutex_unlock(&scu_minor_lock);

	for (i = 0; i < card->num_slots; i++) {
		struct scenic_scu_slot *slot = &card->slots[i];
		dev_t devt = MKDEV(MAJOR(scu_devt), card->minor_base + i);
		struct device *dev;

		/* allocated: __fput puts the cdev after release() dropped the card */
		slot->cdev = cdev_alloc();
		if (!slot->cdev) {
			err = -ENOMEM;
			goto err;
		}
		slot->cdev->owner = THIS_MODULE;
		slot->cdev->ops = &scenic_scu_fops;
		err = cdev_add(slot->cdev, devt, 1);
		if (err) {
			kobject_put(&slot->cdev->kobj);
			slot->cdev = NULL;
			goto err;
		}
		/* "!" becomes "/" in devtmpfs: /dev/scenic<c>/scu<n> */
		dev = device_create_with_groups(&scenic_scu_class, parent, devt,
						slot, scenic_scu_slot_groups,
						"scenic%u!scu%u", card->id, i);
		if (IS_ERR(dev)) {
			err = PTR_ERR(dev);
			goto err;
		}
		slot->dev = dev;
	}
	return 0;

err:
	scenic_scu_cdev_del(card);
	return err;
}

void scenic_scu_cdev_del(struct scenic_scu_card *card)
{
	unsigned int i;

	mutex_lock(&scu_minor_lock);
	for (i = 0; i < card->num_slots; i++)
		if (scu_minor[card->minor_base + i] == &card->slots[i])
			scu_minor[card->minor_base + i] = NULL;
	mutex_unlock(&scu_minor_lock);
	for (i = 0; i < card->num_slots; i++)
		scu_slot_del(&card->slots[i]);
}

int scenic_scu_cdev_init(void)
{
	int err;

	err = alloc_chrdev_region(&scu_devt, 0, SCU_MINORS, "scenic_scu");
	if (err)
		return err;
	err = class_register(&scenic_scu_class);
	if (err) {
		unregister_chrdev_region(scu_devt, SCU_MINORS);
		return err;
	}
	scenic_scu_register_fops(&scenic_scu_fops);
	return 0;
}

void scenic_scu_cdev_exit(void)
{
	scenic_scu_register_fops(NULL);
	class_unregister(&scenic_scu_class);
	unregister_chrdev_region(scu_devt, SCU_MINORS);
}
