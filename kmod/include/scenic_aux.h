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
#include <linux/fs.h>
#include <linux/pci.h>
#include <linux/types.h>

#include "scenic_admin.h"
#include "scenic_regs.h"

struct scenic_dev;

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
 * @core: the card, for scenic_aq_exec() and the event functions below
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
	struct scenic_dev *core;
};

/**
 * struct scenic_aux_driver - a function driver
 * @adrv: the auxiliary driver to register with auxiliary_driver_register()
 * @reset_prepare: optional; called before a function-level reset, with the
 *	auxiliary device lock held: stop all DMA and register access
 * @reset_done: optional; called after the reset with the result of the
 *	core's re-initialisation (0: the card is usable again, registers are
 *	at their reset values)
 * @fatal: optional; the card failed (fault, command timeout, FLR, reload)
 *	and is in the dead state: stop using it at once, without waiting for
 *	it (its registers may not answer). Admin commands fail with -EIO. A
 *	driver whose device stays (eth) gets @reset_done once the core has
 *	recovered the card; the core deletes the others (rdma, scu) and
 *	creates them again. Called with the auxiliary device lock held
 *
 * Every driver that binds a scenic auxiliary device must embed its
 * auxiliary_driver in this structure: the core finds the callbacks with
 * container_of().
 */
struct scenic_aux_driver {
	struct auxiliary_driver adrv;
	void (*reset_prepare)(struct scenic_aux_dev *sadev);
	void (*reset_done)(struct scenic_aux_dev *sadev, int status);
	void (*fatal)(struct scenic_aux_dev *sadev);
};

/**
 * scenic_aq_exec - run one admin command (docs/admin-queue.md 3.3)
 * @sdev: the card (sadev->core)
 * @cmd: a generated request struct (struct scenic_aq_*), @len bytes, at
 *	most 128; the core fills in cmd_id and the phase, the caller the
 *	opcode and payload
 * @res: NULL, or a generated result struct (struct scenic_acq_* or
 *	struct scenic_aq_cqe) that receives the completion, @res_len bytes
 *	(at most 32), also on failure
 *
 * Sleeps: never call it from an event callback. Any number of callers may
 * run at once; it waits at most the admin timeout.
 *
 * Return: 0; the errno of the card's status (docs/admin-queue.md 6.1);
 * -ETIMEDOUT (the card is then recovered); -EIO while the card is dead or
 * being recovered, except that DESTROY_*, DEREG_MR return 0 then.
 */
int scenic_aq_exec(struct scenic_dev *sdev, const void *cmd, size_t len,
		   void *res, size_t res_len);

/* The generated name of an admin opcode ("create_qp"), or "unknown". */
const char *scenic_aq_op_name(u8 op);

/**
 * struct scenic_aux_event_ops - a function driver's asynchronous events
 * @event: one AEQ entry of a type the function owns (eth: LINK; rdma:
 *	QP_ERROR, SQ_DRAINED, CQ_ERROR, TLB_MISS, SRQ_LIMIT). Runs in the core's IRQ
 *	thread: it may take mutexes but must never wait for an admin command
 *	(queue such work on the driver's own workqueue)
 * @resync: events were lost (AEQ OVERFLOW or a seq gap): rebuild the state
 *	from the card (docs/admin-queue.md 4.4). Same context as @event
 */
struct scenic_aux_event_ops {
	void (*event)(void *priv, const struct scenic_aeqe *ev);
	void (*resync)(void *priv);
};

/* Route the function's events to @ops; unregister waits for a running one. */
int scenic_aux_events_register(struct scenic_aux_dev *sadev,
			       const struct scenic_aux_event_ops *ops,
			       void *priv);
void scenic_aux_events_unregister(struct scenic_aux_dev *sadev);
/* Handle every AEQ entry the card has written so far (destroy paths). */
void scenic_aux_events_drain(struct scenic_aux_dev *sadev);

struct devlink_info_req;

/* Adds running versions to @req with devlink_info_version_running_put(). */
typedef int (*scenic_aux_devlink_info_fn)(void *priv,
					  struct devlink_info_req *req);

/*
 * `devlink dev info` of the card also shows what @fn adds (SCU: scu.<n>).
 * @fn runs with the devlink instance lock held: it must not wait for an
 * admin command (report what the driver knows). Unregister waits for a
 * running @fn.
 */
int scenic_aux_devlink_info_register(struct scenic_aux_dev *sadev,
				     scenic_aux_devlink_info_fn fn, void *priv);
void scenic_aux_devlink_info_unregister(struct scenic_aux_dev *sadev);

/*
 * SCU slot owners and PD bindings (docs/scu.md 4.5), kept by the core so that
 * scenic_rdma.ko can check an SCU fd without depending on scenic_scu.ko.
 * scenic_scu.ko registers its file_operations (NULL at exit) and reports the
 * owner file of each slot; closing it unbinds the slot's PD.
 */
#define SCENIC_SCU_MAX_SLOTS	16

void scenic_scu_register_fops(const struct file_operations *fops);
int scenic_scu_set_owner(struct scenic_aux_dev *sadev, unsigned int slot,
			 struct file *file);
void scenic_scu_owner_closed(struct scenic_aux_dev *sadev, unsigned int slot,
			     struct file *file);
/* The SCU device goes: every owner forgotten, every binding undone. */
void scenic_scu_forget_owners(struct scenic_aux_dev *sadev);
/*
 * The slot @file owns on card @sdev, or -EINVAL (not an SCU fd), -EXDEV
 * (another card's slot), -EPERM (slot 0), -EACCES (not the owner's fd).
 */
int scenic_scu_file_slot(struct scenic_dev *sdev, struct file *file);
/*
 * SCU_BIND_PD: the slot @file owns acts in PD @pdn from now on; @pd is the
 * caller's cookie for scenic_scu_unbind_pd(). Errors of
 * scenic_scu_file_slot() or of the command. Sleeps.
 */
int scenic_scu_bind_pd(struct scenic_dev *sdev, struct file *file,
		       const void *pd, u32 pdn);
/* Unbinds every slot bound to @pd (before the PD number is reused). Sleeps. */
void scenic_scu_unbind_pd(struct scenic_dev *sdev, const void *pd);

/* Totals for `rdma statistic`. */
struct scenic_admin_totals {
	u64 cmds;
	u64 cmd_errors;
	u64 cmd_timeouts;
	u64 aeq_events;
	u64 aeq_overflows;
	u32 in_flight;
};

void scenic_aux_admin_totals(struct scenic_aux_dev *sadev,
			     struct scenic_admin_totals *t);

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
