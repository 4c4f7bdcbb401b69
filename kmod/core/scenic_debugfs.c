// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: debugfs, /sys/kernel/debug/scenic/<bdf>/
 *   regs     (read-only) every register block and its readable registers
 *   scratch  (read-write) CORE.SCRATCH, to see that a reset clears it
 *   health   (read-only) recovery state and counters (scenic_health.c)
 *   inject_fatal, inject_swap_ids (write 1): FAULT_INJECT.fatal / .swap_ids
 *   inject_aq_stall, inject_aeq_stall, inject_ceq_stall (read-write 0/1):
 *	FAULT_INJECT.aq_stall / .aeq_stall / .ceq_stall (the rdma function's
 *	CEQ). The card honours FAULT_INJECT only when it allows it
 *	(model: -device scenic,fault-inject=on); the stall knobs then read back
 *	what was written, otherwise the write fails with EOPNOTSUPP.
 *   inject_hb_stall (read-write 0/1): FAULT_INJECT.hb_stall, HEARTBEAT stops
 *   inject_sticky_fatal (read-write 0/1): FAULT_INJECT.sticky_fatal, a soft
 *	reset leaves FATAL_STATUS set (only a function-level reset clears it)
 *   inject_link_down (write 1): FAULT_INJECT.link_down, the card leaves the
 *	bus for good (all-ones reads), as on a surprise removal
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "scenic.h"

static struct dentry *scenic_dbg_root;

/* Called with sdev->lock held; false if the registers must not be touched. */
static bool scenic_dbg_usable(struct scenic_dev *sdev, struct seq_file *s)
{
	if (sdev->in_reset) {
		seq_puts(s, "# card is being reset\n");
		return false;
	}
	if (sdev->broken) {
		seq_puts(s, "# card failed to come back from a reset\n");
		return false;
	}
	return true;
}

static int scenic_regs_show(struct seq_file *s, void *unused)
{
	struct scenic_dev *sdev = s->private;

	mutex_lock(&sdev->lock);
	if (scenic_dbg_usable(sdev, s))
		scenic_regblock_dump(sdev, s);
	mutex_unlock(&sdev->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scenic_regs);

static int scenic_scratch_show(struct seq_file *s, void *unused)
{
	struct scenic_dev *sdev = s->private;

	mutex_lock(&sdev->lock);
	if (scenic_dbg_usable(sdev, s))
		seq_printf(s, "0x%08x\n",
			   scenic_rd(sdev->core, SCENIC_CORE_SCRATCH));
	mutex_unlock(&sdev->lock);
	return 0;
}

static int scenic_scratch_open(struct inode *inode, struct file *file)
{
	return single_open(file, scenic_scratch_show, inode->i_private);
}

static ssize_t scenic_scratch_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct seq_file *s = file->private_data;
	struct scenic_dev *sdev = s->private;
	int err = 0;
	u32 val;

	err = kstrtou32_from_user(ubuf, count, 0, &val);
	if (err)
		return err;

	mutex_lock(&sdev->lock);
	if (sdev->in_reset || sdev->broken)
		err = -EBUSY;
	else
		scenic_wr(sdev->core, SCENIC_CORE_SCRATCH, val);
	mutex_unlock(&sdev->lock);
	return err ? err : count;
}

static const struct file_operations scenic_scratch_fops = {
	.owner = THIS_MODULE,
	.open = scenic_scratch_open,
	.read = seq_read,
	.write = scenic_scratch_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int scenic_health_dbg_show(struct seq_file *s, void *unused)
{
	scenic_health_show(s->private, s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scenic_health_dbg);

#define SCENIC_INJECT_RW_BITS	(SCENIC_CORE_FAULT_INJECT_AQ_STALL_MASK | \
				 SCENIC_CORE_FAULT_INJECT_AEQ_STALL_MASK | \
				 SCENIC_CORE_FAULT_INJECT_HB_STALL_MASK | \
				 SCENIC_CORE_FAULT_INJECT_STICKY_FATAL_MASK | \
				 SCENIC_CORE_FAULT_INJECT_CEQ_STALL_MASK)
/* bits whose effect reads back: the held ones, and link_down (all-ones) */
#define SCENIC_INJECT_CHECKED	(SCENIC_INJECT_RW_BITS | \
				 SCENIC_CORE_FAULT_INJECT_LINK_DOWN_MASK)

static int scenic_inject_get(struct scenic_dev *sdev, u32 mask, u64 *val)
{
	int err = 0;

	mutex_lock(&sdev->lock);
	if (sdev->in_reset || sdev->broken)
		err = -EBUSY;
	else
		*val = !!(scenic_rd(sdev->core, SCENIC_CORE_FAULT_INJECT) & mask);
	mutex_unlock(&sdev->lock);
	return err;
}

/* @mask is a write-1-to-set bit, or one of the held (rw) stall bits. */
static int scenic_inject_set(struct scenic_dev *sdev, u32 mask, u64 val)
{
	bool held = mask & SCENIC_INJECT_RW_BITS;
	u32 cur, set;
	int err = 0;

	mutex_lock(&sdev->lock);
	if (sdev->in_reset || sdev->broken) {
		err = -EBUSY;
		goto out;
	}
	cur = scenic_rd(sdev->core, SCENIC_CORE_FAULT_INJECT) &
	      SCENIC_INJECT_RW_BITS;
	if (held)
		set = val ? cur | mask : cur & ~mask;
	else if (val)
		set = cur | mask;
	else
		goto out;
	scenic_wr(sdev->core, SCENIC_CORE_FAULT_INJECT, set);
	/* a card that does not allow injection reads 0 */
	if ((mask & SCENIC_INJECT_CHECKED) && val &&
	    !(scenic_rd(sdev->core, SCENIC_CORE_FAULT_INJECT) & mask))
		err = -EOPNOTSUPP;
out:
	mutex_unlock(&sdev->lock);
	return err;
}

static int scenic_inject_fatal_get(void *data, u64 *val)
{
	return scenic_inject_get(data, SCENIC_CORE_FAULT_INJECT_FATAL_MASK, val);
}

static int scenic_inject_fatal_set(void *data, u64 val)
{
	return scenic_inject_set(data, SCENIC_CORE_FAULT_INJECT_FATAL_MASK, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(scenic_inject_fatal_fops, scenic_inject_fatal_get,
			 scenic_inject_fatal_set, "%llu\n");

static int scenic_inject_swap_ids_get(void *data, u64 *val)
{
	return scenic_inject_get(data, SCENIC_CORE_FAULT_INJECT_SWAP_IDS_MASK, val);
}

static int scenic_inject_swap_ids_set(void *data, u64 val)
{
	return scenic_inject_set(data, SCENIC_CORE_FAULT_INJECT_SWAP_IDS_MASK, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(scenic_inject_swap_ids_fops, scenic_inject_swap_ids_get,
			 scenic_inject_swap_ids_set, "%llu\n");

static int scenic_inject_aq_stall_get(void *data, u64 *val)
{
	return scenic_inject_get(data, SCENIC_CORE_FAULT_INJECT_AQ_STALL_MASK, val);
}

static int scenic_inject_aq_stall_set(void *data, u64 val)
{
	return scenic_inject_set(data, SCENIC_CORE_FAULT_INJECT_AQ_STALL_MASK, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(scenic_inject_aq_stall_fops, scenic_inject_aq_stall_get,
			 scenic_inject_aq_stall_set, "%llu\n");

static int scenic_inject_aeq_stall_get(void *data, u64 *val)
{
	return scenic_inject_get(data, SCENIC_CORE_FAULT_INJECT_AEQ_STALL_MASK, val);
}

static int scenic_inject_aeq_stall_set(void *data, u64 val)
{
	return scenic_inject_set(data, SCENIC_CORE_FAULT_INJECT_AEQ_STALL_MASK, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(scenic_inject_aeq_stall_fops, scenic_inject_aeq_stall_get,
			 scenic_inject_aeq_stall_set, "%llu\n");

static int scenic_inject_ceq_stall_get(void *data, u64 *val)
{
	return scenic_inject_get(data, SCENIC_CORE_FAULT_INJECT_CEQ_STALL_MASK, val);
}

static int scenic_inject_ceq_stall_set(void *data, u64 val)
{
	return scenic_inject_set(data, SCENIC_CORE_FAULT_INJECT_CEQ_STALL_MASK, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(scenic_inject_ceq_stall_fops, scenic_inject_ceq_stall_get,
			 scenic_inject_ceq_stall_set, "%llu\n");

static int scenic_inject_hb_stall_get(void *data, u64 *val)
{
	return scenic_inject_get(data, SCENIC_CORE_FAULT_INJECT_HB_STALL_MASK, val);
}

static int scenic_inject_hb_stall_set(void *data, u64 val)
{
	return scenic_inject_set(data, SCENIC_CORE_FAULT_INJECT_HB_STALL_MASK, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(scenic_inject_hb_stall_fops, scenic_inject_hb_stall_get,
			 scenic_inject_hb_stall_set, "%llu\n");

static int scenic_inject_sticky_fatal_get(void *data, u64 *val)
{
	return scenic_inject_get(data, SCENIC_CORE_FAULT_INJECT_STICKY_FATAL_MASK, val);
}

static int scenic_inject_sticky_fatal_set(void *data, u64 val)
{
	return scenic_inject_set(data, SCENIC_CORE_FAULT_INJECT_STICKY_FATAL_MASK, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(scenic_inject_sticky_fatal_fops,
			 scenic_inject_sticky_fatal_get,
			 scenic_inject_sticky_fatal_set, "%llu\n");

static int scenic_inject_link_down_get(void *data, u64 *val)
{
	return scenic_inject_get(data, SCENIC_CORE_FAULT_INJECT_LINK_DOWN_MASK, val);
}

static int scenic_inject_link_down_set(void *data, u64 val)
{
	return scenic_inject_set(data, SCENIC_CORE_FAULT_INJECT_LINK_DOWN_MASK, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(scenic_inject_link_down_fops, scenic_inject_link_down_get,
			 scenic_inject_link_down_set, "%llu\n");

void scenic_debugfs_init(void)
{
	scenic_dbg_root = debugfs_create_dir(SCENIC_DRV_NAME, NULL);
}

void scenic_debugfs_exit(void)
{
	debugfs_remove_recursive(scenic_dbg_root);
	scenic_dbg_root = NULL;
}

void scenic_debugfs_add(struct scenic_dev *sdev)
{
	sdev->dbg_dir = debugfs_create_dir(pci_name(sdev->pdev),
					   scenic_dbg_root);
	debugfs_create_file("regs", 0400, sdev->dbg_dir, sdev,
			    &scenic_regs_fops);
	debugfs_create_file("scratch", 0600, sdev->dbg_dir, sdev,
			    &scenic_scratch_fops);
	debugfs_create_file("health", 0400, sdev->dbg_dir, sdev,
			    &scenic_health_dbg_fops);
	debugfs_create_file_unsafe("inject_fatal", 0600, sdev->dbg_dir, sdev,
				   &scenic_inject_fatal_fops);
	debugfs_create_file_unsafe("inject_swap_ids", 0600, sdev->dbg_dir,
				   sdev, &scenic_inject_swap_ids_fops);
	debugfs_create_file_unsafe("inject_aq_stall", 0600, sdev->dbg_dir,
				   sdev, &scenic_inject_aq_stall_fops);
	debugfs_create_file_unsafe("inject_aeq_stall", 0600, sdev->dbg_dir,
				   sdev, &scenic_inject_aeq_stall_fops);
	debugfs_create_file_unsafe("inject_ceq_stall", 0600, sdev->dbg_dir,
				   sdev, &scenic_inject_ceq_stall_fops);
	debugfs_create_file_unsafe("inject_hb_stall", 0600, sdev->dbg_dir,
				   sdev, &scenic_inject_hb_stall_fops);
	debugfs_create_file_unsafe("inject_sticky_fatal", 0600, sdev->dbg_dir,
				   sdev, &scenic_inject_sticky_fatal_fops);
	debugfs_create_file_unsafe("inject_link_down", 0600, sdev->dbg_dir,
				   sdev, &scenic_inject_link_down_fops);
}

void scenic_debugfs_remove(struct scenic_dev *sdev)
{
	debugfs_remove_recursive(sdev->dbg_dir);
	sdev->dbg_dir = NULL;
}
