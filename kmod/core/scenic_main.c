// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: PCI core driver. Binds the card, discovers its register
 * blocks, proves that interrupts and DMA work, and hands the Ethernet, RDMA
 * and SCU functions to their drivers as auxiliary devices.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "scenic.h"

#define SCENIC_SCRATCH_PATTERN	0x5c1ca55a

static const char * const scenic_platforms[] = {
	[1] = "U55C",
	[2] = "U280",
	[3] = "U250",
	[4] = "V80",
};

const char *scenic_platform_name(u32 id)
{
	u32 p = (id & SCENIC_CORE_ID_PLATFORM_MASK) >>
		SCENIC_CORE_ID_PLATFORM_SHIFT;

	if (p < ARRAY_SIZE(scenic_platforms) && scenic_platforms[p])
		return scenic_platforms[p];
	return "unknown";
}

/* The one line a refused card gets in the kernel log. */
void scenic_refuse(struct scenic_dev *sdev, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	dev_err(&sdev->pdev->dev, "%pV; refusing the card\n", &vaf);
	va_end(args);
}

/*
 * Probe only: registers must hold what we write. Not repeated after a reset,
 * so that SCRATCH shows whether the reset cleared it.
 */
static int scenic_scratch_test(struct scenic_dev *sdev, char *why, size_t len)
{
	static const u32 patterns[] = { SCENIC_SCRATCH_PATTERN,
					~SCENIC_SCRATCH_PATTERN };
	unsigned int i;
	u32 val;

	for (i = 0; i < ARRAY_SIZE(patterns); i++) {
		scenic_wr(sdev->core, SCENIC_CORE_SCRATCH, patterns[i]);
		val = scenic_rd(sdev->core, SCENIC_CORE_SCRATCH);
		if (val != patterns[i]) {
			snprintf(why, len,
				 "SCRATCH register reads 0x%08x after writing 0x%08x",
				 val, patterns[i]);
			return -EIO;
		}
	}
	scenic_wr(sdev->core, SCENIC_CORE_SCRATCH, 0);
	return 0;
}

/* Interrupt and DMA self-tests: at probe and after every reset. */
static int scenic_selftests(struct scenic_dev *sdev, char *why, size_t len)
{
	int err;

	err = scenic_irq_selftest(sdev, why, len);
	if (err)
		return err;
	return scenic_dma_selftest(sdev, why, len);
}

/*
 * Program the admin and event queues in polling mode, prove the admin queue
 * with a NOP, then let completions and events raise vector 0.
 */
int scenic_queues_start(struct scenic_dev *sdev, char *why, size_t len)
{
	struct scenic_aq_nop nop = { .hdr.opcode = SCENIC_AQ_OP_NOP };
	struct scenic_acq_nop res;
	int err;

	err = scenic_aq_start(sdev, true);
	if (err) {
		snprintf(why, len, "admin queue does not start (AQ_STATUS 0x%08x)",
			 scenic_rd(sdev->core, SCENIC_CORE_AQ_STATUS));
		return err;
	}
	scenic_aeq_start(sdev, true);
	err = scenic_aq_exec(sdev, &nop, sizeof(nop), &res, sizeof(res));
	if (err) {
		snprintf(why, len, "admin queue NOP failed (%d, AQ_STATUS 0x%08x)",
			 err, scenic_rd(sdev->core, SCENIC_CORE_AQ_STATUS));
		scenic_queues_stop(sdev);
		return err;
	}
	scenic_aq_set_polling(sdev, false);
	scenic_aeq_set_irq(sdev, true);
	return 0;
}

/* Fail every command and stop the queues (remove, reset). */
void scenic_queues_stop(struct scenic_dev *sdev)
{
	scenic_aq_stop(sdev);
	scenic_aeq_stop(sdev);
}

static void scenic_print_identity(struct scenic_dev *sdev)
{
	const struct scenic_block *eth = sdev->func_blk[SCENIC_FUNC_ETH];
	char blocks[160], mac[24];
	unsigned int i;
	size_t n = 0;

	for (i = 0; i < sdev->num_blocks; i++) {
		const struct scenic_block *blk = &sdev->blocks[i];
		const char *name = scenic_block_name(blk->type);

		if (strcmp(name, "unknown"))
			n += scnprintf(blocks + n, sizeof(blocks) - n, "%s%s %u.%u",
				       i ? ", " : "", name,
				       SCENIC_BLK_VERSION_MAJOR(blk->version),
				       SCENIC_BLK_VERSION_MINOR(blk->version));
		else
			n += scnprintf(blocks + n, sizeof(blocks) - n,
				       "%s0x%08x %u.%u (ignored)", i ? ", " : "",
				       blk->type,
				       SCENIC_BLK_VERSION_MAJOR(blk->version),
				       SCENIC_BLK_VERSION_MINOR(blk->version));
	}

	if (eth) {
		u32 hi = scenic_rd(eth, SCENIC_ETH_MAC_HI);
		u32 lo = scenic_rd(eth, SCENIC_ETH_MAC_LO);
		u8 addr[ETH_ALEN] = { hi >> 8, hi, lo >> 24, lo >> 16,
				      lo >> 8, lo };

		snprintf(mac, sizeof(mac), "%pM", addr);
	} else {
		strscpy(mac, "none", sizeof(mac));
	}

	dev_info(&sdev->pdev->dev,
		 "SCENIC %s (%s) build %08x: %s; %u SCU slots; %u MSI-X vectors; MAC %s\n",
		 scenic_platform_name(sdev->id),
		 (sdev->id & SCENIC_CORE_ID_EMULATED_MASK) ? "emulated" : "hardware",
		 sdev->build_id, blocks,
		 (sdev->caps & SCENIC_CORE_CAPS_SCU_MASK) ?
		 (sdev->caps & SCENIC_CORE_CAPS_NUM_SCU_MASK) >>
		 SCENIC_CORE_CAPS_NUM_SCU_SHIFT : 0,
		 sdev->num_vectors, mac);
}

static int scenic_map_bar0(struct scenic_dev *sdev)
{
	struct pci_dev *pdev = sdev->pdev;
	int err;

	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 0) < SCENIC_BAR0_SIZE) {
		scenic_refuse(sdev, "BAR0 is not %u KiB of memory",
			      SCENIC_BAR0_SIZE / 1024);
		return -ENODEV;
	}
	/* Block offsets are 32 bits: more than 4 GiB of BAR0 is unreachable. */
	sdev->bar0_len = min_t(resource_size_t, pci_resource_len(pdev, 0),
			       U32_MAX);

	err = pci_request_mem_regions(pdev, SCENIC_DRV_NAME);
	if (err) {
		dev_err(&pdev->dev, "cannot request the memory BARs (%d)\n",
			err);
		return err;
	}
	sdev->bar0 = pci_iomap(pdev, 0, sdev->bar0_len);
	if (!sdev->bar0) {
		dev_err(&pdev->dev, "cannot map BAR0\n");
		pci_release_mem_regions(pdev);
		return -ENOMEM;
	}
	return 0;
}

static void scenic_unmap_bar0(struct scenic_dev *sdev)
{
	pci_iounmap(sdev->pdev, sdev->bar0);
	sdev->bar0 = NULL;
	pci_release_mem_regions(sdev->pdev);
}

static int scenic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct scenic_dev *sdev;
	char why[192];
	int err;

	sdev = scenic_devlink_alloc(pdev);
	if (!sdev)
		return -ENOMEM;
	sdev->index = -1;
	mutex_init(&sdev->lock);

	err = pci_enable_device_mem(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot enable the PCI device (%d)\n", err);
		goto err_free;
	}

	err = scenic_map_bar0(sdev);
	if (err)
		goto err_disable;

	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		scenic_refuse(sdev, "no 64-bit DMA (%d)", err);
		err = -ENODEV;
		goto err_unmap;
	}

	err = scenic_regblock_setup(sdev);
	if (err)
		goto err_unmap;

	err = scenic_aq_init(sdev);
	if (!err)
		err = scenic_aeq_init(sdev);
	if (err) {
		scenic_refuse(sdev, "no memory for the admin and event queues");
		goto err_queues;
	}

	err = scenic_irq_init(sdev);
	if (err) {
		err = -ENODEV;
		goto err_queues;
	}

	err = scenic_scratch_test(sdev, why, sizeof(why));
	if (!err)
		err = scenic_selftests(sdev, why, sizeof(why));
	if (!err)
		err = scenic_queues_start(sdev, why, sizeof(why));
	if (err) {
		scenic_refuse(sdev, "%s", why);
		err = -ENODEV;
		goto err_irq;
	}

	pci_set_drvdata(pdev, sdev);
	scenic_print_identity(sdev);
	scenic_debugfs_add(sdev);
	scenic_aq_debugfs_add(sdev);

	err = scenic_aux_init(sdev);
	if (err)
		goto err_debugfs;

	/* without it the card works, but is not recovered */
	if (scenic_health_init(sdev))
		dev_warn(&pdev->dev, "no health monitoring: faults and resets leave the card down\n");
	scenic_devlink_register(sdev);
	return 0;

err_debugfs:
	scenic_debugfs_remove(sdev);
	pci_set_drvdata(pdev, NULL);
	scenic_queues_stop(sdev);
err_irq:
	scenic_irq_fini(sdev);
err_queues:
	scenic_aeq_fini(sdev);
	scenic_aq_fini(sdev);
err_unmap:
	pci_clear_master(pdev);
	scenic_unmap_bar0(sdev);
err_disable:
	pci_disable_device(pdev);
err_free:
	mutex_destroy(&sdev->lock);
	scenic_devlink_free(sdev);
	return err;
}

static void scenic_remove(struct pci_dev *pdev)
{
	struct scenic_dev *sdev = pci_get_drvdata(pdev);

	scenic_health_stop(sdev);
	scenic_devlink_unregister(sdev);
	scenic_health_fini(sdev);
	scenic_aux_fini(sdev);
	scenic_debugfs_remove(sdev);
	scenic_queues_stop(sdev);
	scenic_irq_fini(sdev);
	scenic_aeq_fini(sdev);
	scenic_aq_fini(sdev);
	pci_set_drvdata(pdev, NULL);
	pci_clear_master(pdev);
	scenic_unmap_bar0(sdev);
	pci_disable_device(pdev);
	mutex_destroy(&sdev->lock);
	scenic_devlink_free(sdev);
}

/* Function-level reset: stop everything, then check the card came back. */
static void scenic_reset_prepare(struct pci_dev *pdev)
{
	struct scenic_dev *sdev = pci_get_drvdata(pdev);

	if (!sdev)
		return;
	if (sdev->health) {
		/* the card is recovered like after a fault (scenic_health.c) */
		scenic_health_reset_prepare(sdev);
		return;
	}
	scenic_aux_reset_prepare(sdev);
	scenic_queues_stop(sdev);
	mutex_lock(&sdev->lock);
	sdev->in_reset = true;
	mutex_unlock(&sdev->lock);
	synchronize_irq(sdev->core_irq);
}

static void scenic_reset_done(struct pci_dev *pdev)
{
	struct scenic_dev *sdev = pci_get_drvdata(pdev);
	char why[192];
	int err;

	if (!sdev)
		return;
	if (sdev->health) {
		scenic_health_reset_done(sdev);
		return;
	}

	mutex_lock(&sdev->lock);
	err = scenic_regblock_rewalk(sdev, why, sizeof(why));
	if (!err)
		err = scenic_selftests(sdev, why, sizeof(why));
	sdev->in_reset = false;
	if (!err)
		err = scenic_queues_start(sdev, why, sizeof(why));
	sdev->broken = !!err;
	mutex_unlock(&sdev->lock);

	if (err)
		dev_err(&pdev->dev, "reset failed: %s; card unusable until it is bound again\n",
			why);
	else
		dev_info(&pdev->dev, "reset done: %u register blocks, interrupt and DMA self-tests passed\n",
			 sdev->num_blocks);
	scenic_aux_reset_done(sdev, err);
}

static const struct pci_error_handlers scenic_err_handlers = {
	.reset_prepare = scenic_reset_prepare,
	.reset_done = scenic_reset_done,
};

static const struct pci_device_id scenic_pci_ids[] = {
	{ PCI_DEVICE(SCENIC_PCI_VENDOR_ID, SCENIC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, scenic_pci_ids);

static struct pci_driver scenic_pci_driver = {
	.name = SCENIC_DRV_NAME,
	.id_table = scenic_pci_ids,
	.probe = scenic_probe,
	.remove = scenic_remove,
	.err_handler = &scenic_err_handlers,
};

static int __init scenic_init(void)
{
	int err;

	scenic_debugfs_init();
	err = pci_register_driver(&scenic_pci_driver);
	if (err)
		scenic_debugfs_exit();
	return err;
}

static void __exit scenic_exit(void)
{
	pci_unregister_driver(&scenic_pci_driver);
	scenic_debugfs_exit();
	scenic_aux_ida_destroy();
}

module_init(scenic_init);
module_exit(scenic_exit);

MODULE_DESCRIPTION("SCENIC FPGA SmartNIC PCI core driver");
MODULE_LICENSE("GPL");
