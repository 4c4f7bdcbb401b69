/* SPDX-License-Identifier: GPL-2.0-only */
/* SCENIC SmartNIC: PCI core driver, private definitions. */
#ifndef _SCENIC_H
#define _SCENIC_H

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/types.h>

#include "scenic_aux.h"

#define SCENIC_DRV_NAME		"scenic"
#define SCENIC_MAX_BLOCKS	32
#define SCENIC_SELFTEST_TIMEOUT_MS	1000

struct dentry;
struct devlink;
struct seq_file;

enum scenic_func {
	SCENIC_FUNC_ETH,
	SCENIC_FUNC_RDMA,
	SCENIC_FUNC_SCU,
	SCENIC_NUM_FUNCS,
};

/* One card. Lives in the devlink private area. */
struct scenic_dev {
	struct pci_dev *pdev;
	struct devlink *devlink;
	void __iomem *bar0;
	resource_size_t bar0_len;

	/* register blocks; rewritten only by probe and reset_done */
	struct scenic_block blocks[SCENIC_MAX_BLOCKS];
	unsigned int num_blocks;
	const struct scenic_block *core;
	const struct scenic_block *func_blk[SCENIC_NUM_FUNCS];

	u32 id;
	u32 build_id;
	u32 caps;
	u32 card_vectors;	/* CORE.MSIX_VECTORS */
	unsigned int num_vectors;	/* allocated */

	char core_irq_name[32];
	int core_irq;
	struct completion core_irq_done;
	atomic_t core_irq_count;

	int index;		/* card number, the N of scenic.<fn>.N */
	struct scenic_aux_dev *aux[SCENIC_NUM_FUNCS];

	/* protects in_reset against the debugfs readers */
	struct mutex lock;
	bool in_reset;
	bool broken;		/* re-initialisation after a reset failed */

	struct dentry *dbg_dir;
};

static inline u32 scenic_rd(const struct scenic_block *blk, u32 reg)
{
	return ioread32(blk->base + reg);
}

static inline void scenic_wr(const struct scenic_block *blk, u32 reg, u32 val)
{
	iowrite32(val, blk->base + reg);
}

/* scenic_main.c */
__printf(2, 3) void scenic_refuse(struct scenic_dev *sdev, const char *fmt, ...);
const char *scenic_platform_name(u32 id);

/* scenic_regblock.c */
int scenic_regblock_setup(struct scenic_dev *sdev);
int scenic_regblock_rewalk(struct scenic_dev *sdev, char *why, size_t len);
const char *scenic_block_name(u32 type);
void scenic_regblock_dump(struct scenic_dev *sdev, struct seq_file *s);

/* scenic_irq.c */
int scenic_irq_init(struct scenic_dev *sdev);
void scenic_irq_fini(struct scenic_dev *sdev);
int scenic_irq_selftest(struct scenic_dev *sdev, char *why, size_t wlen);
int scenic_dma_selftest(struct scenic_dev *sdev, char *why, size_t wlen);

/* scenic_aux.c */
int scenic_aux_init(struct scenic_dev *sdev);
void scenic_aux_fini(struct scenic_dev *sdev);
void scenic_aux_reset_prepare(struct scenic_dev *sdev);
void scenic_aux_reset_done(struct scenic_dev *sdev, int status);
void scenic_aux_ida_destroy(void);

/* scenic_devlink.c */
struct scenic_dev *scenic_devlink_alloc(struct pci_dev *pdev);
void scenic_devlink_register(struct scenic_dev *sdev);
void scenic_devlink_unregister(struct scenic_dev *sdev);
void scenic_devlink_free(struct scenic_dev *sdev);

/* scenic_debugfs.c */
void scenic_debugfs_init(void);
void scenic_debugfs_exit(void);
void scenic_debugfs_add(struct scenic_dev *sdev);
void scenic_debugfs_remove(struct scenic_dev *sdev);

#endif /* _SCENIC_H */
