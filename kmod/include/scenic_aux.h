/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SCENIC SmartNIC: the interface between the PCI core driver (scenic.ko)
 * and the function drivers that bind its auxiliary devices
 * (scenic.eth.N, scenic.rdma.N, scenic.scu.N).
 */
#ifndef _SCENIC_AUX_H
#define _SCENIC_AUX_H

#include <linux/auxiliary_bus.h>
#include <linux/errno.h>
#include <linux/pci.h>
#include <linux/types.h>

#include "scenic_regs.h"

/* Auxiliary device names; the bus shows them as "scenic.<name>.<card>". */
#define SCENIC_AUX_ETH	"eth"
#define SCENIC_AUX_RDMA	"rdma"
#define SCENIC_AUX_SCU	"scu"

/* A register block found in BAR0 (see docs/register-map.md). */
struct scenic_block {
	u32 type;		/* SCENIC_*_BLK_TYPE */
	u32 version;		/* major << 16 | minor */
	u32 offset;		/* BAR0 offset of the block */
	u32 len;		/* bytes up to the next block or the end of BAR0 */
	void __iomem *base;	/* BAR0 mapping + offset */
};

/**
 * struct scenic_aux_dev - what a function driver gets from the core
 * @adev: the auxiliary device; container_of() it with to_scenic_aux_dev()
 * @pdev: the card's PCI function (use &pdev->dev for DMA mappings)
 * @bar0: BAR0 mapping, SCENIC_BAR0_SIZE bytes
 * @blocks: the register blocks found on the card, in list order
 * @num_blocks: number of entries in @blocks
 * @num_vectors: MSI-X vectors allocated; vector 0 (SCENIC_VEC_CORE) belongs
 *	to the core driver, vectors 1..num_vectors-1 to the functions
 * @caps: CORE.CAPS as read at probe
 * @build_id: CORE.BUILD_ID
 * @platform: CORE.ID.platform (1 = U55C, 2 = U280, 3 = U250, 4 = V80)
 * @emulated: CORE.ID.emulated (the card is the QEMU device model)
 *
 * The core owns this structure and keeps it valid until it deletes the
 * auxiliary device. The blocks are re-read after a function-level reset; the
 * core refuses to bring the card back if their layout changed.
 */
struct scenic_aux_dev {
	struct auxiliary_device adev;
	struct pci_dev *pdev;
	void __iomem *bar0;
	const struct scenic_block *blocks;
	unsigned int num_blocks;
	unsigned int num_vectors;
	u32 caps;
	u32 build_id;
	u8 platform;
	bool emulated;
};

/**
 * struct scenic_aux_driver - a function driver
 * @adrv: the auxiliary driver to register with auxiliary_driver_register()
 * @reset_prepare: optional; called before a function-level reset, with the
 *	auxiliary device lock held: stop all DMA and register access
 * @reset_done: optional; called after the reset with the result of the
 *	core's re-initialisation (0: the card is usable again, registers are
 *	at their reset values)
 *
 * Every driver that binds a scenic auxiliary device must embed its
 * auxiliary_driver in this structure: the core finds the callbacks with
 * container_of().
 */
struct scenic_aux_driver {
	struct auxiliary_driver adrv;
	void (*reset_prepare)(struct scenic_aux_dev *sadev);
	void (*reset_done)(struct scenic_aux_dev *sadev, int status);
};

static inline struct scenic_aux_dev *
to_scenic_aux_dev(struct auxiliary_device *adev)
{
	return container_of(adev, struct scenic_aux_dev, adev);
}

/* The first block of @type, or NULL if the card has none. */
static inline const struct scenic_block *
scenic_aux_find_block(const struct scenic_aux_dev *sadev, u32 type)
{
	unsigned int i;

	for (i = 0; i < sadev->num_blocks; i++)
		if (sadev->blocks[i].type == type)
			return &sadev->blocks[i];
	return NULL;
}

/* The Linux irq number of MSI-X vector @nr (1..num_vectors-1), or -EINVAL. */
static inline int scenic_aux_irq_vector(const struct scenic_aux_dev *sadev,
					unsigned int nr)
{
	if (nr == SCENIC_VEC_CORE || nr >= sadev->num_vectors)
		return -EINVAL;
	return pci_irq_vector(sadev->pdev, nr);
}

#endif /* _SCENIC_AUX_H */
