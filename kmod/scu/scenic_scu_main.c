// SPDX-License-Identifier: GPL-2.0-only
/*
 * scenic_scu.ko: binds scenic.scu.N and gives each SCU slot of the card a
 * char device (docs/scu.md section 4). This file: module and auxiliary
 * driver, card lifetime, card failure, SCU_QUERY_SLOT.
 */
#include <linux/io.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/devlink.h>

#include "scenic_scu_drv.h"

static void scenic_scu_card_release(struct kref *kref)
{
	struct scenic_scu_card *card =
		container_of(kref, struct scenic_scu_card, kref);
	unsigned int i;

	scenic_scu_put_inodes(card);
	for (i = 0; i < SCENIC_SCU_MAX_SLOTS; i++) {
		mutex_destroy(&card->slots[i].lock);
		mutex_destroy(&card->slots[i].load_lock);
	}
	mutex_destroy(&card->map_lock);
	kfree(card);
}

void scenic_scu_card_put(struct scenic_scu_card *card)
{
	kref_put(&card->kref, scenic_scu_card_release);
}

/* Caller holds card->rwsem for reading. */
bool scenic_scu_card_usable(struct scenic_scu_card *card)
{
	return !card->gone && !READ_ONCE(card->stopping);
}

/* Caller holds card->rwsem for reading and checked scenic_scu_card_usable(). */
int scenic_scu_query_slot(struct scenic_scu_slot *slot,
			  struct scenic_scu_query *q)
{
	struct scenic_aq_scu_query_slot cmd = {
		.hdr.opcode = SCENIC_AQ_OP_SCU_QUERY_SLOT,
		.slot = slot->index,
	};
	struct scenic_acq_scu_query_slot res = {};
	int err;

	err = scenic_aq_exec(slot->card->sadev->core, &cmd, sizeof(cmd), &res,
			     sizeof(res));
	if (err)
		return err;
	q->state = res.state;
	q->last_refusal = res.last_refusal;
	q->pd_bound = res.flags & SCENIC_ACQ_SCU_QUERY_SLOT_PD_BOUND_MASK;
	q->kind_version = le16_to_cpu(res.kind_version);
	q->kind = le32_to_cpu(res.kind);
	q->build_id = le64_to_cpu(res.build_id);
	return 0;
}

/*
 * devlink dev info: running scu.<n> = "<name> <build id>" of what the driver
 * loaded (no admin command here: the devlink lock is held).
 */
static int scenic_scu_devlink_info(void *priv, struct devlink_info_req *req)
{
	struct scenic_scu_card *card = priv;
	char key[16], val[SCENIC_SCU_NAME_LEN + 24];
	unsigned int i;
	int err = 0;

	for (i = 0; i < card->num_slots && !err; i++) {
		struct scenic_scu_slot *slot = &card->slots[i];

		mutex_lock(&slot->lock);
		if (slot->have_img)
			snprintf(val, sizeof(val), "%s %016llx", slot->img.name,
				 slot->img.build_id);
		else
			snprintf(val, sizeof(val), "passthrough %016llx", 0ULL);
		mutex_unlock(&slot->lock);
		snprintf(key, sizeof(key), "scu.%u", i);
		err = devlink_info_version_running_put(req, key, val);
	}
	return err;
}

static const struct scenic_aux_event_ops scenic_scu_event_ops = {
	.event = scenic_scu_event,
	.resync = scenic_scu_resync,
};

/* Every waiter re-checks the card's state. @failed: the card is dead too. */
static void scenic_scu_stop(struct scenic_scu_card *card, bool failed)
{
	unsigned int i;

	if (failed)
		WRITE_ONCE(card->dead, true);
	WRITE_ONCE(card->stopping, true);
	for (i = 0; i < card->num_slots; i++) {
		wake_up_all(&card->slots[i].wq);
		wake_up_all(&card->slots[i].irq_wq);
	}
}

static int scenic_scu_probe(struct auxiliary_device *adev,
			    const struct auxiliary_device_id *id)
{
	struct scenic_aux_dev *sadev = to_scenic_aux_dev(adev);
	const struct scenic_block *blk;
	struct scenic_scu_card *card;
	unsigned int i;
	u32 n;
	int err;

	blk = scenic_aux_find_block(sadev, SCENIC_SCU_BLK_TYPE);
	if (!blk) {
		dev_err(&adev->dev, "card has no SCU block\n");
		return -ENODEV;
	}
	n = ioread32(blk->base + SCENIC_SCU_NUM_SLOTS);
	if (n == ~0U || !n) {
		dev_err(&adev->dev, "SCU.NUM_SLOTS reads 0x%08x; no slots\n", n);
		return -ENODEV;
	}
	if (adev->id >= SCENIC_SCU_MAX_CARDS) {
		dev_err(&adev->dev, "card %u: at most %u cards\n", adev->id,
			SCENIC_SCU_MAX_CARDS);
		return -ENODEV;
	}

	card = kzalloc(sizeof(*card), GFP_KERNEL);
	if (!card)
		return -ENOMEM;
	kref_init(&card->kref);
	init_rwsem(&card->rwsem);
	card->sadev = sadev;
	card->blk = blk;
	card->id = adev->id;
	card->num_slots = min_t(u32, n, SCENIC_SCU_MAX_SLOTS);
	card->iface_version = ioread32(blk->base + SCENIC_SCU_IFACE_VERSION);
	card->max_image = ioread32(blk->base + SCENIC_SCU_MAX_IMAGE);
	card->reconfig_us = ioread32(blk->base + SCENIC_SCU_RECONFIG_US);
	/* block 1.2 has interrupt lines, per-slot registers and BAR3 */
	card->v1_2 = (blk->version & 0xffff) >= 2;
	scenic_scu_steer_init(card);
	mutex_init(&card->map_lock);
	for (i = 0; i < SCENIC_SCU_MAX_SLOTS; i++) {
		struct scenic_scu_slot *slot = &card->slots[i];

		slot->card = card;
		slot->index = i;
		mutex_init(&slot->lock);
		mutex_init(&slot->load_lock);
		init_waitqueue_head(&slot->wq);
		spin_lock_init(&slot->ev_lock);
		spin_lock_init(&slot->irq_lock);
		init_waitqueue_head(&slot->irq_wq);
		slot->irq = -1;
	}
	auxiliary_set_drvdata(adev, card);

	err = scenic_aux_events_register(sadev, &scenic_scu_event_ops, card);
	if (err)
		goto err_put;
	if (card->v1_2) {
		err = scenic_scu_csr_init(card);
		if (err)
			goto err_events;
		err = scenic_scu_status_init(card);
		if (err)
			goto err_csr;
		err = scenic_scu_irq_init(card);
		if (err)
			goto err_status;
	}
	err = scenic_scu_cdev_add(card);
	if (err)
		goto err_irq;
	err = scenic_aux_devlink_info_register(sadev, scenic_scu_devlink_info,
					       card);
	if (err)
		goto err_cdev;
	dev_info(&adev->dev, "%u SCU slots, interface %u.%u, /dev/scenic%u/scu0..%u\n",
		 card->num_slots, card->iface_version >> 16,
		 card->iface_version & 0xffff, card->id, card->num_slots - 1);
	return 0;

err_cdev:
	scenic_scu_cdev_del(card);
err_irq:
	scenic_scu_irq_fini(card);
err_status:
	scenic_scu_status_fini(card);
err_csr:
	scenic_scu_csr_fini(card);
err_events:
	scenic_aux_events_unregister(sadev);
err_put:
	scenic_scu_card_put(card);
	return err;
}

static void scenic_scu_remove(struct auxiliary_device *adev)
{
	struct scenic_scu_card *card = auxiliary_get_drvdata(adev);

	scenic_aux_devlink_info_unregister(card->sadev);
	scenic_aux_events_unregister(card->sadev);
	scenic_scu_stop(card, false);
	scenic_scu_forget_owners(card->sadev);
	/* waits for every ioctl and mmap using sadev; later ones see gone */
	down_write(&card->rwsem);
	WRITE_ONCE(card->gone, true);
	up_write(&card->rwsem);
	scenic_scu_zap_mappings(card);
	scenic_scu_irq_fini(card);
	scenic_scu_status_fini(card);
	scenic_scu_csr_fini(card);
	scenic_scu_cdev_del(card);
	scenic_scu_card_put(card);
}

/*
 * FLR, card fault or reload: the slots are back to the passthrough. Ioctls
 * fail with -ENODEV from now on; after a fatal error the core deletes this
 * device and creates a new one once the card is back.
 */
static void scenic_scu_fatal(struct scenic_aux_dev *sadev)
{
	struct scenic_scu_card *card = auxiliary_get_drvdata(&sadev->adev);

	scenic_scu_stop(card, true);
	scenic_scu_zap_mappings(card);
	dev_err(&sadev->adev.dev, "card failure: SCU slots unusable; they come back with the card\n");
}

static void scenic_scu_reset_prepare(struct scenic_aux_dev *sadev)
{
	struct scenic_scu_card *card = auxiliary_get_drvdata(&sadev->adev);

	scenic_scu_stop(card, true);
	scenic_scu_zap_mappings(card);
}

static const struct auxiliary_device_id scenic_scu_id_table[] = {
	{ .name = "scenic." SCENIC_AUX_SCU },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, scenic_scu_id_table);

static struct scenic_aux_driver scenic_scu_driver = {
	.adrv = {
		.name = "scu",
		.probe = scenic_scu_probe,
		.remove = scenic_scu_remove,
		.id_table = scenic_scu_id_table,
	},
	.reset_prepare = scenic_scu_reset_prepare,
	.fatal = scenic_scu_fatal,
};

/* The sizes docs/scu.md 4 and every user of uapi/scenic_scu.h rely on. */
static void scenic_scu_abi_checks(void)
{
	BUILD_BUG_ON(sizeof(struct scenic_scu_info) != 192);
	BUILD_BUG_ON(sizeof(struct scenic_scu_load) != 64);
	BUILD_BUG_ON(sizeof(struct scenic_scu_irq) != 16);
	BUILD_BUG_ON(sizeof(struct scenic_scu_irq_event) != 16);
	BUILD_BUG_ON(sizeof(struct scenic_scu_csr) != 24);
	BUILD_BUG_ON(sizeof(struct scenic_scu_counters) != 224);
	BUILD_BUG_ON(sizeof(struct scenic_scu_steer_rule) != 96);
	BUILD_BUG_ON(sizeof(struct scenic_scu_steer_del) != 16);
	BUILD_BUG_ON(sizeof(struct scenic_scu_policy) != 16);
	BUILD_BUG_ON(offsetof(struct scenic_scu_info, build_id) != 0x28);
	BUILD_BUG_ON(offsetof(struct scenic_scu_info, csr_mmap_offset) != 0x78);
	BUILD_BUG_ON(offsetof(struct scenic_scu_info, reserved_5c0) != 0xb8);
	BUILD_BUG_ON(offsetof(struct scenic_scu_load, status) != 0x20);
	BUILD_BUG_ON(offsetof(struct scenic_scu_load, total_ns) != 0x30);
	BUILD_BUG_ON(offsetof(struct scenic_scu_counters, rx_pkts_in) != 0x40);
	BUILD_BUG_ON(offsetof(struct scenic_scu_steer_rule, src_ip) != 0x20);
	/* SCU_STEER_ADD carries the rule at the ABI's offsets (docs/scu.md 3) */
	BUILD_BUG_ON(offsetof(struct scenic_scu_steer_rule, flags) !=
		     offsetof(struct scenic_aq_scu_steer_add, flags));
	BUILD_BUG_ON(offsetof(struct scenic_scu_steer_rule, dst_port_mask) !=
		     offsetof(struct scenic_aq_scu_steer_add, dst_port_mask));
	BUILD_BUG_ON(offsetof(struct scenic_scu_steer_rule, dst_ip_mask) !=
		     offsetof(struct scenic_aq_scu_steer_add, dst_ip_mask));
	BUILD_BUG_ON(sizeof(struct scenic_scu_steer_rule) !=
		     offsetof(struct scenic_aq_scu_steer_add, slot));
}

static int __init scenic_scu_init(void)
{
	int err;

	scenic_scu_abi_checks();

	err = scenic_scu_cdev_init();
	if (err)
		return err;
	err = auxiliary_driver_register(&scenic_scu_driver.adrv);
	if (err)
		scenic_scu_cdev_exit();
	return err;
}
module_init(scenic_scu_init);

static void __exit scenic_scu_exit(void)
{
	auxiliary_driver_unregister(&scenic_scu_driver.adrv);
	scenic_scu_cdev_exit();
}
module_exit(scenic_scu_exit);

MODULE_DESCRIPTION("SCENIC SmartNIC SCU slot driver");
MODULE_AUTHOR("The SCENIC authors");
MODULE_LICENSE("GPL");
