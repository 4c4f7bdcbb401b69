// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: MSI-X vectors and the core's self-tests.
 *
 * Vector 0 belongs to the core block: it fires for IRQ_TEST, when a DMA
 * self-test finishes, for admin completions and for AEQ entries. The other
 * vectors are left to the function drivers.
 */

#include <linux/crc32.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/random.h>

#include "scenic.h"

/* Bytes the DMA self-test asks the card to read; not a power of two. */
#define SCENIC_DMA_TEST_LEN	4000

static irqreturn_t scenic_core_irq(int irq, void *data)
{
	struct scenic_dev *sdev = data;

	atomic_inc(&sdev->core_irq_count);
	complete(&sdev->core_irq_done);
	return IRQ_WAKE_THREAD;
}

/* Admin completions first: event callbacks may queue work that needs them. */
static irqreturn_t scenic_core_irq_thread(int irq, void *data)
{
	struct scenic_dev *sdev = data;

	scenic_aq_process_cq(sdev);
	scenic_aeq_process(sdev);
	return IRQ_HANDLED;
}

int scenic_irq_init(struct scenic_dev *sdev)
{
	struct pci_dev *pdev = sdev->pdev;
	int cap_vectors, nvec, err;

	cap_vectors = pci_msix_vec_count(pdev);
	if (cap_vectors <= 0) {
		scenic_refuse(sdev, "no MSI-X capability");
		return -ENODEV;
	}
	if (!sdev->card_vectors) {
		scenic_refuse(sdev, "card has no MSI-X vectors (CORE.MSIX_VECTORS is 0)");
		return -ENODEV;
	}

	nvec = min_t(int, cap_vectors, sdev->card_vectors);
	nvec = pci_alloc_irq_vectors(pdev, 1, nvec, PCI_IRQ_MSIX);
	if (nvec < 0) {
		scenic_refuse(sdev, "cannot allocate MSI-X vectors (%d)", nvec);
		return nvec;
	}
	sdev->num_vectors = nvec;

	snprintf(sdev->core_irq_name, sizeof(sdev->core_irq_name),
		 "scenic-core@%s", pci_name(pdev));
	init_completion(&sdev->core_irq_done);
	atomic_set(&sdev->core_irq_count, 0);
	sdev->core_irq = pci_irq_vector(pdev, SCENIC_VEC_CORE);
	err = request_threaded_irq(sdev->core_irq, scenic_core_irq,
				   scenic_core_irq_thread, 0,
				   sdev->core_irq_name, sdev);
	if (err) {
		scenic_refuse(sdev, "cannot request the core interrupt (%d)",
			      err);
		pci_free_irq_vectors(pdev);
		sdev->num_vectors = 0;
		return err;
	}
	return 0;
}

void scenic_irq_fini(struct scenic_dev *sdev)
{
	if (!sdev->num_vectors)
		return;
	free_irq(sdev->core_irq, sdev);
	pci_free_irq_vectors(sdev->pdev);
	sdev->num_vectors = 0;
}

static bool scenic_wait_core_irq(struct scenic_dev *sdev)
{
	return wait_for_completion_timeout(&sdev->core_irq_done,
					   msecs_to_jiffies(SCENIC_SELFTEST_TIMEOUT_MS));
}

/* Ask the card to raise the core vector once and wait for it. */
int scenic_irq_selftest(struct scenic_dev *sdev, char *why, size_t wlen)
{
	const struct scenic_block *core = sdev->core;
	u32 before, after;

	before = scenic_rd(core, SCENIC_CORE_IRQ_TEST_COUNT);
	reinit_completion(&sdev->core_irq_done);
	scenic_wr(core, SCENIC_CORE_IRQ_TEST, SCENIC_VEC_CORE);
	if (!scenic_wait_core_irq(sdev)) {
		snprintf(why, wlen,
			 "interrupt self-test failed: vector %u did not fire within %u ms (IRQ_TEST_COUNT %u, IRQ_TEST_ERRORS %u)",
			 SCENIC_VEC_CORE, SCENIC_SELFTEST_TIMEOUT_MS,
			 scenic_rd(core, SCENIC_CORE_IRQ_TEST_COUNT),
			 scenic_rd(core, SCENIC_CORE_IRQ_TEST_ERRORS));
		return -EIO;
	}
	after = scenic_rd(core, SCENIC_CORE_IRQ_TEST_COUNT);
	if (after != before + 1) {
		snprintf(why, wlen,
			 "interrupt self-test failed: IRQ_TEST_COUNT went from %u to %u",
			 before, after);
		return -EIO;
	}
	return 0;
}

/*
 * Let the card read a buffer and checksum it: its CRC-32 must be ours, in
 * DMA_TEST_CRC and (little endian) in memory right after the buffer.
 */
int scenic_dma_selftest(struct scenic_dev *sdev, char *why, size_t wlen)
{
	const struct scenic_block *core = sdev->core;
	struct device *dev = &sdev->pdev->dev;
	size_t len = SCENIC_DMA_TEST_LEN;
	u32 expect, reg_crc, mem_crc, ctrl;
	dma_addr_t dma;
	__le32 *crc_slot;
	u8 *buf;
	int err = -EIO;

	buf = dma_alloc_coherent(dev, len + sizeof(*crc_slot), &dma,
				 GFP_KERNEL);
	if (!buf) {
		snprintf(why, wlen, "DMA self-test failed: out of memory");
		return -ENOMEM;
	}
	get_random_bytes(buf, len);
	expect = crc32_le(~0U, buf, len) ^ ~0U;
	crc_slot = (__le32 *)(buf + len);
	*crc_slot = cpu_to_le32(~expect);

	scenic_wr(core, SCENIC_CORE_DMA_TEST_ADDR_LO, lower_32_bits(dma));
	scenic_wr(core, SCENIC_CORE_DMA_TEST_ADDR_HI, upper_32_bits(dma));
	scenic_wr(core, SCENIC_CORE_DMA_TEST_LEN, len);
	reinit_completion(&sdev->core_irq_done);
	scenic_wr(core, SCENIC_CORE_DMA_TEST_CTRL,
		  SCENIC_CORE_DMA_TEST_CTRL_START_MASK);
	if (!scenic_wait_core_irq(sdev)) {
		snprintf(why, wlen,
			 "DMA self-test failed: no completion interrupt within %u ms (DMA_TEST_CTRL 0x%08x)",
			 SCENIC_SELFTEST_TIMEOUT_MS,
			 scenic_rd(core, SCENIC_CORE_DMA_TEST_CTRL));
		goto out;
	}

	ctrl = scenic_rd(core, SCENIC_CORE_DMA_TEST_CTRL);
	reg_crc = scenic_rd(core, SCENIC_CORE_DMA_TEST_CRC);
	dma_rmb();
	mem_crc = le32_to_cpu(READ_ONCE(*crc_slot));
	if (!(ctrl & SCENIC_CORE_DMA_TEST_CTRL_DONE_MASK) ||
	    (ctrl & SCENIC_CORE_DMA_TEST_CTRL_ERROR_MASK)) {
		snprintf(why, wlen,
			 "DMA self-test failed: DMA_TEST_CTRL 0x%08x (done %u error %u)",
			 ctrl, !!(ctrl & SCENIC_CORE_DMA_TEST_CTRL_DONE_MASK),
			 !!(ctrl & SCENIC_CORE_DMA_TEST_CTRL_ERROR_MASK));
		goto out;
	}
	if (reg_crc != expect || mem_crc != expect) {
		snprintf(why, wlen,
			 "DMA self-test failed: CRC-32 of %zu bytes is 0x%08x, card says 0x%08x (register) and 0x%08x (memory)",
			 len, expect, reg_crc, mem_crc);
		goto out;
	}
	err = 0;
out:
	/* Do not leave the card pointing at memory we free. */
	scenic_wr(core, SCENIC_CORE_DMA_TEST_LEN, 0);
	scenic_wr(core, SCENIC_CORE_DMA_TEST_ADDR_LO, 0);
	scenic_wr(core, SCENIC_CORE_DMA_TEST_ADDR_HI, 0);
	dma_free_coherent(dev, len + sizeof(*crc_slot), buf, dma);
	return err;
}
