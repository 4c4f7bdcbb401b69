// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: register block discovery.
 *
 * BAR0 holds a linked list of blocks starting at offset 0. Every block starts
 * with TYPE, VERSION (major << 16 | minor) and NEXT (BAR0 offset of the next
 * block, 0 ends the list). The walk trusts nothing the card says: the number
 * of blocks is bounded, every offset must be aligned and inside BAR0, a list
 * that comes back to a block it has visited is refused, and all-ones reads
 * mean the device is gone. Known types with an unknown major version are
 * refused; unknown types are kept (for debugfs) and otherwise ignored.
 */

#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "scenic.h"

#define SCENIC_BLK_HDR_LEN	12

struct scenic_reg_desc {
	const char *name;
	u32 offset;
};

struct scenic_block_desc {
	u32 type;
	const char *name;
	u16 major;
	const struct scenic_reg_desc *regs;
	unsigned int num_regs;
};

#define SCENIC_REG_DESC(reg, off) { #reg, off },

/* Readable registers after the common header, from the generated lists. */
static const struct scenic_reg_desc scenic_core_regs[] = {
	SCENIC_CORE_READABLE_REGS(SCENIC_REG_DESC)
};

static const struct scenic_reg_desc scenic_eth_regs[] = {
	SCENIC_ETH_READABLE_REGS(SCENIC_REG_DESC)
};

static const struct scenic_reg_desc scenic_rdma_regs[] = {
	SCENIC_RDMA_READABLE_REGS(SCENIC_REG_DESC)
};

static const struct scenic_reg_desc scenic_scu_regs[] = {
	SCENIC_SCU_READABLE_REGS(SCENIC_REG_DESC)
};

#define SCENIC_BLOCK_DESC(blk, name_) {				\
	.type = SCENIC_##blk##_BLK_TYPE,			\
	.name = #name_,						\
	.major = SCENIC_##blk##_BLK_VERSION_MAJOR,		\
	.regs = scenic_##name_##_regs,				\
	.num_regs = ARRAY_SIZE(scenic_##name_##_regs),		\
}

static const struct scenic_block_desc scenic_block_descs[] = {
	SCENIC_BLOCK_DESC(CORE, core),
	SCENIC_BLOCK_DESC(ETH, eth),
	SCENIC_BLOCK_DESC(RDMA, rdma),
	SCENIC_BLOCK_DESC(SCU, scu),
};

static const u32 scenic_func_types[SCENIC_NUM_FUNCS] = {
	[SCENIC_FUNC_ETH] = SCENIC_ETH_BLK_TYPE,
	[SCENIC_FUNC_RDMA] = SCENIC_RDMA_BLK_TYPE,
	[SCENIC_FUNC_SCU] = SCENIC_SCU_BLK_TYPE,
};

static const struct scenic_block_desc *scenic_block_desc_find(u32 type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scenic_block_descs); i++)
		if (scenic_block_descs[i].type == type)
			return &scenic_block_descs[i];
	return NULL;
}

const char *scenic_block_name(u32 type)
{
	const struct scenic_block_desc *desc = scenic_block_desc_find(type);

	return desc ? desc->name : "unknown";
}

static const struct scenic_block *
scenic_block_find(const struct scenic_block *blocks, unsigned int n, u32 type)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (blocks[i].type == type)
			return &blocks[i];
	return NULL;
}

/*
 * Walk the block list into @blocks. On failure, @why says what is wrong
 * with the card and the return value is negative.
 */
static int scenic_regblock_walk(struct scenic_dev *sdev,
				struct scenic_block *blocks,
				unsigned int *num_blocks, char *why, size_t len)
{
	const struct scenic_block_desc *desc;
	resource_size_t bar_len = sdev->bar0_len;
	unsigned int n = 0, i;
	u32 offset = 0;

	do {
		struct scenic_block *blk;
		u32 type, version, next;

		if (n == SCENIC_MAX_BLOCKS) {
			snprintf(why, len,
				 "more than %d register blocks in BAR0 (loop in the list?)",
				 SCENIC_MAX_BLOCKS);
			return -ENODEV;
		}
		if (!IS_ALIGNED(offset, 4) ||
		    offset > bar_len - SCENIC_BLK_HDR_LEN) {
			snprintf(why, len,
				 "register block at BAR0 offset 0x%x misaligned or outside BAR0",
				 offset);
			return -ENODEV;
		}
		for (i = 0; i < n; i++) {
			if (blocks[i].offset == offset) {
				snprintf(why, len,
					 "register block list loops back to BAR0 offset 0x%x",
					 offset);
				return -ENODEV;
			}
		}

		type = ioread32(sdev->bar0 + offset + SCENIC_BLK_TYPE);
		version = ioread32(sdev->bar0 + offset + SCENIC_BLK_VERSION);
		next = ioread32(sdev->bar0 + offset + SCENIC_BLK_NEXT);
		if (type == ~0U || version == ~0U || next == ~0U) {
			snprintf(why, len,
				 "BAR0 reads all-ones at offset 0x%x (device gone?)",
				 offset);
			return -ENODEV;
		}

		desc = scenic_block_desc_find(type);
		if (desc && SCENIC_BLK_VERSION_MAJOR(version) != desc->major) {
			snprintf(why, len,
				 "%s block version %u.%u unsupported (driver knows %u.x)",
				 desc->name, SCENIC_BLK_VERSION_MAJOR(version),
				 SCENIC_BLK_VERSION_MINOR(version), desc->major);
			return -ENODEV;
		}
		if (n == 0 && type != SCENIC_CORE_BLK_TYPE) {
			snprintf(why, len,
				 "no core block at BAR0 offset 0 (type 0x%08x)",
				 type);
			return -ENODEV;
		}

		blk = &blocks[n++];
		blk->type = type;
		blk->version = version;
		blk->offset = offset;
		blk->base = sdev->bar0 + offset;
		offset = next;
	} while (offset);

	/* A block extends to the next block above it, or to the end of BAR0. */
	for (i = 0; i < n; i++) {
		u32 end = bar_len;
		unsigned int j;

		for (j = 0; j < n; j++)
			if (blocks[j].offset > blocks[i].offset &&
			    blocks[j].offset < end)
				end = blocks[j].offset;
		blocks[i].len = end - blocks[i].offset;
	}

	*num_blocks = n;
	return 0;
}

static void scenic_regblock_read_core(struct scenic_dev *sdev)
{
	sdev->id = scenic_rd(sdev->core, SCENIC_CORE_ID);
	sdev->build_id = scenic_rd(sdev->core, SCENIC_CORE_BUILD_ID);
	sdev->caps = scenic_rd(sdev->core, SCENIC_CORE_CAPS);
	sdev->card_vectors = scenic_rd(sdev->core, SCENIC_CORE_MSIX_VECTORS);
}

/* Probe time: discover the blocks, refuse a card we do not understand. */
int scenic_regblock_setup(struct scenic_dev *sdev)
{
	char why[128];
	unsigned int f;
	int err;

	err = scenic_regblock_walk(sdev, sdev->blocks, &sdev->num_blocks,
				   why, sizeof(why));
	if (err) {
		scenic_refuse(sdev, "%s", why);
		return err;
	}

	sdev->core = &sdev->blocks[0];
	for (f = 0; f < SCENIC_NUM_FUNCS; f++)
		sdev->func_blk[f] = scenic_block_find(sdev->blocks,
						      sdev->num_blocks,
						      scenic_func_types[f]);
	scenic_regblock_read_core(sdev);
	if (sdev->id == ~0U || sdev->caps == ~0U) {
		scenic_refuse(sdev, "core registers read all-ones (device gone?)");
		return -ENODEV;
	}
	return 0;
}

/*
 * After a reset: the card must describe itself exactly as it did at probe,
 * since the function drivers hold pointers to the blocks.
 */
int scenic_regblock_rewalk(struct scenic_dev *sdev, char *why, size_t len)
{
	struct scenic_block *blocks;
	unsigned int n, i;
	u32 caps;
	int err;

	blocks = kcalloc(SCENIC_MAX_BLOCKS, sizeof(*blocks), GFP_KERNEL);
	if (!blocks) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}

	err = scenic_regblock_walk(sdev, blocks, &n, why, len);
	if (err)
		goto out;

	err = -ENODEV;
	if (n != sdev->num_blocks) {
		snprintf(why, len, "card now has %u register blocks, had %u",
			 n, sdev->num_blocks);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (blocks[i].type != sdev->blocks[i].type ||
		    blocks[i].offset != sdev->blocks[i].offset ||
		    SCENIC_BLK_VERSION_MAJOR(blocks[i].version) !=
		    SCENIC_BLK_VERSION_MAJOR(sdev->blocks[i].version)) {
			snprintf(why, len,
				 "register block %u changed (type 0x%08x version 0x%08x at 0x%x)",
				 i, blocks[i].type, blocks[i].version,
				 blocks[i].offset);
			goto out;
		}
	}
	caps = scenic_rd(sdev->core, SCENIC_CORE_CAPS);
	if (caps != sdev->caps) {
		snprintf(why, len, "CAPS changed from 0x%08x to 0x%08x",
			 sdev->caps, caps);
		goto out;
	}
	err = 0;
out:
	kfree(blocks);
	return err;
}

/* One "<block>.<REG> <BAR0 offset> <value>" line. */
static void scenic_regblock_dump_reg(struct seq_file *s,
				     const struct scenic_block *blk,
				     const char *blk_name, const char *reg_name,
				     u32 reg)
{
	char name[48];

	snprintf(name, sizeof(name), "%s.%s", blk_name, reg_name);
	seq_printf(s, "%-24s 0x%04x 0x%08x\n", name, blk->offset + reg,
		   scenic_rd(blk, reg));
}

/* debugfs "regs": every block and its readable registers. */
void scenic_regblock_dump(struct scenic_dev *sdev, struct seq_file *s)
{
	unsigned int i, r;

	for (i = 0; i < sdev->num_blocks; i++) {
		const struct scenic_block *blk = &sdev->blocks[i];
		const struct scenic_block_desc *desc;
		const char *name = scenic_block_name(blk->type);

		desc = scenic_block_desc_find(blk->type);
		seq_printf(s, "block %s type 0x%08x version %u.%u offset 0x%04x len 0x%04x\n",
			   name, blk->type, SCENIC_BLK_VERSION_MAJOR(blk->version),
			   SCENIC_BLK_VERSION_MINOR(blk->version), blk->offset,
			   blk->len);
		scenic_regblock_dump_reg(s, blk, name, "TYPE", SCENIC_BLK_TYPE);
		scenic_regblock_dump_reg(s, blk, name, "VERSION",
					 SCENIC_BLK_VERSION);
		scenic_regblock_dump_reg(s, blk, name, "NEXT", SCENIC_BLK_NEXT);
		if (!desc)
			continue;
		for (r = 0; r < desc->num_regs; r++)
			scenic_regblock_dump_reg(s, blk, name, desc->regs[r].name,
						 desc->regs[r].offset);
	}
}
