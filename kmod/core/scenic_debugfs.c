// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: debugfs, /sys/kernel/debug/scenic/<bdf>/
 *   regs     (read-only) every register block and its readable registers
 *   scratch  (read-write) CORE.SCRATCH, to see that a reset clears it
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
}

void scenic_debugfs_remove(struct scenic_dev *sdev)
{
	debugfs_remove_recursive(sdev->dbg_dir);
	sdev->dbg_dir = NULL;
}
