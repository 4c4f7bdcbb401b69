// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: auxiliary devices, one per function the card has
 * (scenic.eth.N, scenic.rdma.N, scenic.scu.N; N numbers the cards).
 */

#include <linux/device.h>
#include <linux/idr.h>
#include <linux/slab.h>

#include "scenic.h"

static DEFINE_IDA(scenic_card_ida);

static const struct {
	const char *name;
	u32 cap_mask;
} scenic_funcs[SCENIC_NUM_FUNCS] = {
	[SCENIC_FUNC_ETH] = { SCENIC_AUX_ETH, SCENIC_CORE_CAPS_ETH_MASK },
	[SCENIC_FUNC_RDMA] = { SCENIC_AUX_RDMA, SCENIC_CORE_CAPS_RDMA_MASK },
	[SCENIC_FUNC_SCU] = { SCENIC_AUX_SCU, SCENIC_CORE_CAPS_SCU_MASK },
};

static void scenic_aux_release(struct device *dev)
{
	struct auxiliary_device *adev = to_auxiliary_dev(dev);

	kfree(to_scenic_aux_dev(adev));
}

static int scenic_aux_add(struct scenic_dev *sdev, enum scenic_func f)
{
	struct scenic_aux_dev *sadev;
	int err;

	sadev = kzalloc(sizeof(*sadev), GFP_KERNEL);
	if (!sadev)
		return -ENOMEM;

	sadev->pdev = sdev->pdev;
	sadev->bar0 = sdev->bar0;
	sadev->blocks = sdev->blocks;
	sadev->num_blocks = sdev->num_blocks;
	sadev->num_vectors = sdev->num_vectors;
	sadev->caps = sdev->caps;
	sadev->build_id = sdev->build_id;
	sadev->platform = (sdev->id & SCENIC_CORE_ID_PLATFORM_MASK) >>
			  SCENIC_CORE_ID_PLATFORM_SHIFT;
	sadev->emulated = !!(sdev->id & SCENIC_CORE_ID_EMULATED_MASK);
	sadev->core = sdev;

	sadev->adev.name = scenic_funcs[f].name;
	sadev->adev.id = sdev->index;
	sadev->adev.dev.parent = &sdev->pdev->dev;
	sadev->adev.dev.release = scenic_aux_release;

	err = auxiliary_device_init(&sadev->adev);
	if (err) {
		kfree(sadev);
		return err;
	}
	err = auxiliary_device_add(&sadev->adev);
	if (err) {
		auxiliary_device_uninit(&sadev->adev);
		return err;
	}
	sdev->aux[f] = sadev;
	return 0;
}

static void scenic_aux_del(struct scenic_dev *sdev, enum scenic_func f)
{
	struct scenic_aux_dev *sadev = sdev->aux[f];

	if (!sadev)
		return;
	sdev->aux[f] = NULL;
	auxiliary_device_delete(&sadev->adev);
	auxiliary_device_uninit(&sadev->adev);
}

int scenic_aux_init(struct scenic_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	unsigned int f;
	int err;

	err = ida_alloc(&scenic_card_ida, GFP_KERNEL);
	if (err < 0)
		return err;
	sdev->index = err;

	for (f = 0; f < SCENIC_NUM_FUNCS; f++) {
		if (!(sdev->caps & scenic_funcs[f].cap_mask))
			continue;
		if (!sdev->func_blk[f]) {
			dev_warn(dev, "CAPS announces %s but the card has no %s block; function disabled\n",
				 scenic_funcs[f].name, scenic_funcs[f].name);
			continue;
		}
		err = scenic_aux_add(sdev, f);
		if (err) {
			dev_err(dev, "cannot create auxiliary device %s.%s.%d (%d)\n",
				KBUILD_MODNAME, scenic_funcs[f].name,
				sdev->index, err);
			scenic_aux_fini(sdev);
			return err;
		}
	}
	return 0;
}

void scenic_aux_fini(struct scenic_dev *sdev)
{
	int f;

	for (f = SCENIC_NUM_FUNCS - 1; f >= 0; f--)
		scenic_aux_del(sdev, f);
	if (sdev->index >= 0) {
		ida_free(&scenic_card_ida, sdev->index);
		sdev->index = -1;
	}
}

static const struct scenic_aux_driver *
scenic_aux_driver_of(struct scenic_aux_dev *sadev)
{
	struct device_driver *drv = sadev->adev.dev.driver;

	if (!drv)
		return NULL;
	return container_of(to_auxiliary_drv(drv), struct scenic_aux_driver,
			    adrv);
}

void scenic_aux_reset_prepare(struct scenic_dev *sdev)
{
	const struct scenic_aux_driver *sdrv;
	int f;

	for (f = SCENIC_NUM_FUNCS - 1; f >= 0; f--) {
		struct scenic_aux_dev *sadev = sdev->aux[f];

		if (!sadev)
			continue;
		device_lock(&sadev->adev.dev);
		sdrv = scenic_aux_driver_of(sadev);
		if (sdrv && sdrv->reset_prepare)
			sdrv->reset_prepare(sadev);
		device_unlock(&sadev->adev.dev);
	}
}

void scenic_aux_reset_done(struct scenic_dev *sdev, int status)
{
	const struct scenic_aux_driver *sdrv;
	unsigned int f;

	for (f = 0; f < SCENIC_NUM_FUNCS; f++) {
		struct scenic_aux_dev *sadev = sdev->aux[f];

		if (!sadev)
			continue;
		device_lock(&sadev->adev.dev);
		sdrv = scenic_aux_driver_of(sadev);
		if (sdrv && sdrv->reset_done)
			sdrv->reset_done(sadev, status);
		device_unlock(&sadev->adev.dev);
	}
}

/*
 * Recovery, step 1: the card is dead. Each bound function driver stops
 * touching it (.fatal, or .reset_prepare for a driver without one).
 */
void scenic_aux_fatal(struct scenic_dev *sdev)
{
	const struct scenic_aux_driver *sdrv;
	int f;

	for (f = SCENIC_NUM_FUNCS - 1; f >= 0; f--) {
		struct scenic_aux_dev *sadev = sdev->aux[f];

		if (!sadev)
			continue;
		device_lock(&sadev->adev.dev);
		sdrv = scenic_aux_driver_of(sadev);
		if (sdrv && sdrv->fatal)
			sdrv->fatal(sadev);
		else if (sdrv && sdrv->reset_prepare)
			sdrv->reset_prepare(sadev);
		device_unlock(&sadev->adev.dev);
	}
}

/* Recovery: delete one function's device (its driver unbinds). */
void scenic_aux_del_func(struct scenic_dev *sdev, enum scenic_func f)
{
	scenic_aux_del(sdev, f);
}

/* Recovery: re-create the functions deleted by scenic_aux_del_func(). */
int scenic_aux_add_funcs(struct scenic_dev *sdev)
{
	unsigned int f;
	int err;

	for (f = 0; f < SCENIC_NUM_FUNCS; f++) {
		if (sdev->aux[f] || !(sdev->caps & scenic_funcs[f].cap_mask) ||
		    !sdev->func_blk[f])
			continue;
		err = scenic_aux_add(sdev, f);
		if (err)
			return err;
	}
	return 0;
}

void scenic_aux_ida_destroy(void)
{
	ida_destroy(&scenic_card_ida);
}
