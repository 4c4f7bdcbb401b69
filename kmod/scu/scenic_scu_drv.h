/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scenic_scu.ko private definitions: one card (scenic.scu.N) with its slots,
 * each a char device /dev/scenic<c>/scu<n> (docs/scu.md section 4).
 */
#ifndef _SCENIC_SCU_DRV_H
#define _SCENIC_SCU_DRV_H

#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "scenic_aux.h"
#include "scenic_scu.h"

#define SCENIC_SCU_MAX_CARDS	16
#define SCENIC_SCU_KIND_PASSTHROUGH 1
#define SCENIC_SCU_HDR_LEN	256
/* mmap offsets of INFO: the CSR window, then the status page (64K-page safe) */
#define SCENIC_SCU_CSR_MMAP_OFFSET	0
#define SCENIC_SCU_STATUS_MMAP_OFFSET	SCENIC_SCU_CSR_WINDOW_SIZE
/* steering table entries the driver records (the model's SCU.STEER_RULES) */
#define SCENIC_SCU_MAX_STEER	64
/* distinct device inodes whose mappings a zap must reach */
#define SCENIC_SCU_MAP_INODES	8

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
struct eventfd_ctx;

/* The driver's copy of one entry of the card's steering table. */
struct scenic_scu_steer_entry {
	bool used;
	u8 slot;
	struct scenic_scu_steer_rule rule;
};

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

	struct mutex lock;		/* owner, last_uid, img, loads, last_pause_ns */
	struct file *owner;
	kuid_t last_uid;		/* euid of the last owner */
	bool ever_owned;
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

	/* interrupts (scenic_scu_irq.c) */
	int irq;			/* Linux irq of vector 16 + index, or -1 */
	char irq_name[32];
	spinlock_t irq_lock;		/* irq_owner, efd, irq_pending, irq_total */
	struct file *irq_owner;
	struct eventfd_ctx *efd[SCENIC_SCU_MAX_IRQ_LINES];
	u32 irq_pending;
	u64 irq_total;
	wait_queue_head_t irq_wq;

	/* status page (scenic_scu_status.c) */
	void *status_page;
	dma_addr_t status_dma;
};

/**
 * struct scenic_scu_card - the driver's state for one scenic.scu.N
 * @kref: the auxiliary device and every open file hold a reference
 * @sadev: the core's device; valid while !@gone
 * @rwsem: readers use @sadev; remove takes it for writing and sets @gone
 * @gone: removed: everything fails with -ENODEV
 * @dead: the card failed or is being reset: ioctls fail with -ENODEV
 * @stopping: @dead, or the driver is unbinding: waiters give up
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
	bool stopping;
	const struct scenic_block *blk;
	unsigned int id;
	unsigned int minor_base;
	unsigned int num_slots;
	u32 iface_version;
	u32 max_image;
	u32 reconfig_us;
	bool v1_2;			/* SCU block 1.2: lines, BAR3, status page, SCU_RESET */
	u32 irq_lines;			/* SCU.IRQ_LINES (block 1.2), at most 4 */
	void __iomem *bar3;		/* the slots' CSR windows, or NULL */
	struct mutex map_lock;		/* map_inodes */
	struct inode *map_inodes[SCENIC_SCU_MAP_INODES];
	struct mutex steer_lock;	/* steer[], and the order of STEER commands */
	u32 steer_max;			/* SCU.STEER_RULES, 0: no steering */
	struct scenic_scu_steer_entry steer[SCENIC_SCU_MAX_STEER];
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
int scenic_scu_copy_in(void *k, size_t ksize, void __user *u, u32 *usize);
int scenic_scu_copy_out(void __user *u, const void *k, size_t ksize, u32 usize);
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

/* scenic_scu_csr.c */
int scenic_scu_reset_slot(struct scenic_scu_slot *slot);
int scenic_scu_csr_init(struct scenic_scu_card *card);
void scenic_scu_csr_fini(struct scenic_scu_card *card);
int scenic_scu_ioctl_csr(struct scenic_scu_slot *slot, void __user *arg);
int scenic_scu_mmap(struct file *file, struct vm_area_struct *vma);
void scenic_scu_zap_mappings(struct scenic_scu_card *card);
void scenic_scu_put_inodes(struct scenic_scu_card *card);

/* scenic_scu_irq.c */
int scenic_scu_irq_init(struct scenic_scu_card *card);
void scenic_scu_irq_fini(struct scenic_scu_card *card);
void scenic_scu_irq_attach(struct scenic_scu_slot *slot, struct file *file);
void scenic_scu_irq_detach(struct scenic_scu_slot *slot);
int scenic_scu_ioctl_set_irq(struct scenic_scu_slot *slot, void __user *arg);
__poll_t scenic_scu_poll(struct file *file, struct poll_table_struct *wait);
ssize_t scenic_scu_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos);

/* scenic_scu_status.c */
int scenic_scu_status_init(struct scenic_scu_card *card);
void scenic_scu_status_fini(struct scenic_scu_card *card);
int scenic_scu_ioctl_counters(struct scenic_scu_slot *slot, void __user *arg);

/* scenic_scu_steer.c */
void scenic_scu_steer_init(struct scenic_scu_card *card);
void scenic_scu_steer_forget(struct scenic_scu_slot *slot);
u32 scenic_scu_steer_used(struct scenic_scu_slot *slot);
int scenic_scu_ioctl_steer_add(struct scenic_scu_slot *slot, void __user *arg);
int scenic_scu_ioctl_steer_del(struct scenic_scu_slot *slot, void __user *arg);
ssize_t scenic_scu_steer_show(struct scenic_scu_slot *slot, char *buf);

/* scenic_scu_sysfs.c */
extern const struct attribute_group *scenic_scu_slot_groups[];

#endif /* _SCENIC_SCU_DRV_H */
