/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scenic_scu.ko private definitions: one card (scenic.scu.N) with its slots,
 * each a char device /dev/scenic<c>/scu<n> (docs/scu.md section 4).
 */
#ifndef _SCENIC_SCU_DRV_H
#define _SCENIC_SCU_DRV_H

#include <linux/cdev.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "scenic_aux.h"
#include "scenic_scu.h"

#define SCENIC_SCU_MAX_SLOTS	16
#define SCENIC_SCU_MAX_CARDS	16
#define SCENIC_SCU_KIND_PASSTHROUGH 1
#define SCENIC_SCU_HDR_LEN	256

/* What an image header says, after scenic_scu_image_check(). */
struct scenic_scu_image {
	u32 iface;
	u32 kind;
	u16 kind_version;
	u16 flags;
	u64 build_id;
	char name[SCENIC_SCU_NAME_LEN + 1];
	u8 sha256[SCENIC_SCU_SHA256_LEN];
	u32 payload_offset;
	u64 payload_size;
};

struct scenic_scu_card;

/**
 * struct scenic_scu_slot - one slot and its char device
 * @card: the card (its kref keeps this alive while a file is open)
 * @index: slot number
 * @cdev: cdev_alloc()ed: it may outlive the card's memory (__fput puts it last)
 * @dev: the class device scenic<c>!scu<n>
 * @lock: @owner, @last_uid, @img, @loads, @last_pause_ns
 * @owner: the file that opened the slot for writing, or NULL
 * @load_lock: one LOAD/UNLOAD at a time
 * @wq: woken by the RECONFIGURED event, a resync and a card failure
 * @ev_lock: @pending, @ev_lost, @ev_status, @ev_pause_us (event callback)
 * @pending: a LOAD/UNLOAD waits for its RECONFIGURED event
 * @ev_status, @ev_pause_us: that event's result
 * @ev_lost: events were lost while waiting: ask the card
 * @img: what the driver loaded last (the card keeps no name or hash)
 * @have_img: @img describes the running SCU (not after an unload)
 */
struct scenic_scu_slot {
	struct scenic_scu_card *card;
	unsigned int index;
	struct cdev *cdev;
	struct device *dev;

	struct mutex lock;		/* owner, img, loads, last_pause_ns */
	struct file *owner;
	struct mutex load_lock;		/* one LOAD/UNLOAD at a time */
	wait_queue_head_t wq;
	spinlock_t ev_lock;		/* the ev_* fields and pending */
	bool pending;
	bool ev_lost;
	u8 ev_status;
	u32 ev_pause_us;

	struct scenic_scu_image img;
	bool have_img;
	u64 loads;
	u64 last_pause_ns;
};

/**
 * struct scenic_scu_card - the driver's state for one scenic.scu.N
 * @kref: the auxiliary device and every open file hold a reference
 * @sadev: the core's device; valid while !@gone
 * @rwsem: readers use @sadev; remove takes it for writing and sets @gone
 * @gone: removed: everything fails with -ENODEV
 * @dead: the card failed or is being reset: ioctls fail with -ENODEV
 * @blk: the SCU register block
 * @id: the card number <c>
 * @minor_base: first minor of the card's slots
 * @num_slots: SCU.NUM_SLOTS, at most SCENIC_SCU_MAX_SLOTS
 * @iface_version, @max_image, @reconfig_us: SCU block registers at probe
 */
struct scenic_scu_card {
	struct kref kref;
	struct scenic_aux_dev *sadev;
	struct rw_semaphore rwsem;
	bool gone;
	bool dead;
	const struct scenic_block *blk;
	unsigned int id;
	unsigned int minor_base;
	unsigned int num_slots;
	u32 iface_version;
	u32 max_image;
	u32 reconfig_us;
	struct scenic_scu_slot slots[SCENIC_SCU_MAX_SLOTS];
};

/* A slot as SCU_QUERY_SLOT reports it. */
struct scenic_scu_query {
	u8 state;
	u8 last_refusal;
	bool pd_bound;
	u16 kind_version;
	u32 kind;
	u64 build_id;
};

/* scenic_scu_main.c */
void scenic_scu_card_put(struct scenic_scu_card *card);
bool scenic_scu_card_usable(struct scenic_scu_card *card);
int scenic_scu_query_slot(struct scenic_scu_slot *slot,
			  struct scenic_scu_query *q);

/* scenic_scu_cdev.c */
int scenic_scu_fill_info(struct scenic_scu_slot *slot, struct file *file,
			 struct scenic_scu_info *info);
int scenic_scu_cdev_init(void);
void scenic_scu_cdev_exit(void);
int scenic_scu_cdev_add(struct scenic_scu_card *card);
void scenic_scu_cdev_del(struct scenic_scu_card *card);

/* scenic_scu_image.c */
u32 scenic_scu_image_check_header(const u8 *hdr, u64 image_len,
				  u32 card_iface, struct scenic_scu_image *img,
				  struct device *dev);
u32 scenic_scu_image_check_payload(const u8 *image,
				   const struct scenic_scu_image *img,
				   struct device *dev);

/* scenic_scu_load.c */
int scenic_scu_ioctl_load(struct scenic_scu_slot *slot, void __user *arg,
			  bool unload);
void scenic_scu_event(void *priv, const struct scenic_aeqe *ev);
void scenic_scu_resync(void *priv);

/* scenic_scu_sysfs.c */
extern const struct attribute_group *scenic_scu_slot_groups[];

#endif /* _SCENIC_SCU_DRV_H */
