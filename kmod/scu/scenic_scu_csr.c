// SPDX-License-Identifier: GPL-2.0-only
/*
 * A slot's CSR window in BAR3 (docs/scu.md 4.3): the CSR ioctl, the owner's
 * mmap of the window, the read-only mmap of the status page, and the zap of
 * every mapping when the card fails or goes away.
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/uaccess.h>

#include "scenic_scu_drv.h"

/* Caller holds card->rwsem for reading and checked scenic_scu_card_usable(). */
int scenic_scu_ioctl_csr(struct scenic_scu_slot *slot, void __user *arg)
{
	void __iomem *reg;
	struct scenic_scu_csr csr;
	u32 usize;
	int err;

	err = scenic_scu_copy_in(&csr, sizeof(csr), arg, &usize);
	if (err)
		return err;
	if (csr.index >= SCENIC_SCU_CSR_COUNT || csr.write > 1)
		return -EINVAL;
	if (!slot->card->bar3)
		return -EOPNOTSUPP;
	reg = slot->card->bar3 + (size_t)slot->index * SCENIC_SCU_CSR_WINDOW_SIZE +
	      csr.index * 8;
	if (csr.write)
		writeq(csr.value, reg);
	else
		csr.value = readq(reg);
	return scenic_scu_copy_out(arg, &csr, sizeof(csr), usize);
}

/* SCU_RESET: the slot's SCU back to its CSRs' reset values (docs/scu.md 5). */
int scenic_scu_reset_slot(struct scenic_scu_slot *slot)
{
	struct scenic_aq_scu_reset cmd = {
		.hdr.opcode = SCENIC_AQ_OP_SCU_RESET,
		.slot = slot->index,
	};
	int err;

	/* a card without the command (block 1.1) has nothing to reset */
	if (!slot->card->v1_2)
		return 0;
	err = scenic_aq_exec(slot->card->sadev->core, &cmd, sizeof(cmd), NULL, 0);
	if (err)
		dev_dbg(slot->dev, "SCU_RESET for a new owner: %d\n", err);
	return err == -EBUSY ? -EBUSY : err ? -EIO : 0;
}

/* Splitting a mapping would let part of it outlive what we zap: refuse. */
static int scu_vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

/*
 * No fault handler: after a zap, a touch of the mapping is SIGBUS. vm_ops
 * must be set for that (a VMA without them counts as anonymous memory).
 */
static const struct vm_operations_struct scu_vm_ops = {
	.may_split = scu_vma_may_split,
};

/* Remember the inode whose mapping holds the VMA, for the zap. */
static int scu_track_inode(struct scenic_scu_slot *slot, struct inode *inode)
{
	struct scenic_scu_card *card = slot->card;
	unsigned int i;
	int err = -EBUSY;

	mutex_lock(&card->map_lock);
	for (i = 0; i < ARRAY_SIZE(card->map_inodes); i++) {
		if (card->map_inodes[i] == inode) {
			err = 0;
			break;
		}
		if (!card->map_inodes[i]) {
			ihold(inode);
			card->map_inodes[i] = inode;
			err = 0;
			break;
		}
	}
	mutex_unlock(&card->map_lock);
	return err;
}

static void scu_vm_flags(struct vm_area_struct *vma, unsigned long set,
			 unsigned long clear)
{
#ifdef SCENIC_HAVE_VM_FLAGS_CLEAR
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

int scenic_scu_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct scenic_scu_slot *slot = file->private_data;
	struct scenic_scu_card *card = slot->card;
	unsigned long len = vma->vm_end - vma->vm_start;
	int err;

	/* MAP_SHARED (VM_SHARED is cleared on a read-only file) */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	down_read(&card->rwsem);
	if (!scenic_scu_card_usable(card)) {
		err = -ENODEV;
		goto out;
	}
	err = scu_track_inode(slot, file_inode(file));
	if (err)
		goto out;
	vma->vm_ops = &scu_vm_ops;

	if (vma->vm_pgoff == SCENIC_SCU_CSR_MMAP_OFFSET >> PAGE_SHIFT) {
		phys_addr_t base;

		/* the owner only: the window is the SCU's control */
		err = -EACCES;
		if (!(file->f_mode & FMODE_WRITE))
			goto out;
		err = -EINVAL;
		if (len != SCENIC_SCU_CSR_WINDOW_SIZE)
			goto out;
		err = -EOPNOTSUPP;
		if (!card->bar3)
			goto out;
		base = pci_resource_start(card->sadev->pdev, SCENIC_SCU_BAR) +
		       (phys_addr_t)slot->index * SCENIC_SCU_CSR_WINDOW_SIZE;
		scu_vm_flags(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY, 0);
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
		err = io_remap_pfn_range(vma, vma->vm_start, base >> PAGE_SHIFT,
					 len, vma->vm_page_prot);
	} else if (vma->vm_pgoff == SCENIC_SCU_STATUS_MMAP_OFFSET >> PAGE_SHIFT) {
		/* anyone who may open the slot; read-only, written by the card */
		err = -EPERM;
		if (vma->vm_flags & VM_WRITE)
			goto out;
		err = -EINVAL;
		if (len != PAGE_SIZE)
			goto out;
		err = -EOPNOTSUPP;
		if (!slot->status_page)
			goto out;
		scu_vm_flags(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY, VM_MAYWRITE);
		/* dma_mmap_coherent() takes the offset from vm_pgoff: this page's own */
		vma->vm_pgoff = 0;
		err = dma_mmap_coherent(&card->sadev->pdev->dev, vma,
					slot->status_page, slot->status_dma,
					PAGE_SIZE);
	} else {
		err = -EINVAL;
	}
out:
	up_read(&card->rwsem);
	return err;
}

/*
 * Every mapping of every slot of the card goes: a later touch is SIGBUS.
 * Called when the card fails or is removed.
 */
void scenic_scu_zap_mappings(struct scenic_scu_card *card)
{
	unsigned int i;

	mutex_lock(&card->map_lock);
	for (i = 0; i < ARRAY_SIZE(card->map_inodes); i++)
		if (card->map_inodes[i])
			unmap_mapping_range(card->map_inodes[i]->i_mapping, 0, 0, 1);
	mutex_unlock(&card->map_lock);
}

void scenic_scu_put_inodes(struct scenic_scu_card *card)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(card->map_inodes); i++) {
		if (card->map_inodes[i])
			iput(card->map_inodes[i]);
		card->map_inodes[i] = NULL;
	}
}

/* BAR3: one 64 KiB window per slot, mapped for the CSR ioctl. */
int scenic_scu_csr_init(struct scenic_scu_card *card)
{
	struct pci_dev *pdev = card->sadev->pdev;
	resource_size_t need = (resource_size_t)card->num_slots *
			       SCENIC_SCU_CSR_WINDOW_SIZE;

	if (!(pci_resource_flags(pdev, SCENIC_SCU_BAR) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, SCENIC_SCU_BAR) < need)
		return 0;	/* no CSR windows: the ioctl and mmap say EOPNOTSUPP */
	card->bar3 = pci_iomap_range(pdev, SCENIC_SCU_BAR, 0, need);
	return card->bar3 ? 0 : -ENOMEM;
}

void scenic_scu_csr_fini(struct scenic_scu_card *card)
{
	if (card->bar3)
		pci_iounmap(card->sadev->pdev, card->bar3);
	card->bar3 = NULL;
}
