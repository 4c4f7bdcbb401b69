/* SPDX-License-Identifier: GPL-2.0-only */
/* SCENIC SmartNIC: PCI core driver, private definitions. */
#ifndef _SCENIC_H
#define _SCENIC_H

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/wait.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "scenic_admin.h"

#include "scenic_aux.h"

#define SCENIC_DRV_NAME		"scenic"
#define SCENIC_MAX_BLOCKS	32
#define SCENIC_SELFTEST_TIMEOUT_MS	1000

#define SCENIC_AQ_HISTORY	64	/* commands kept for debugfs and dumps */
#define SCENIC_AQ_NUM_OPS	128	/* opcodes 0x00..0x7f */

struct dentry;
struct devlink;
struct netlink_ext_ack;
struct scenic_health;
struct seq_file;

/* One command context; its index is the low bits of the command id. */
struct scenic_aq_ctx {
	struct completion done;
	struct scenic_aq_cqe cqe;	/* the completion, copied for the waiter */
	u16 cmd_id;
	u16 uses;		/* upper bits of the id: never reused after a timeout */
	u8 opcode;
	bool retired;		/* timed out: not reused until scenic_aq_start() */
	bool aborted;		/* failed with -EIO by scenic_aq_set_dead() */
};

/* One entry of the command history (debugfs admin/history, devlink dump). */
struct scenic_aq_hist {
	u64 time_ns;		/* ktime_get_real_ns() at submission */
	u32 latency_us;
	u32 arg0;		/* the first payload word */
	u16 cmd_id;
	u16 syndrome;
	u8 opcode;
	u8 status;		/* card status, or 0xff: timed out, 0xfe: aborted */
};

#define SCENIC_AQ_HIST_TIMEOUT	0xff
#define SCENIC_AQ_HIST_ABORTED	0xfe

struct scenic_aq_op_stats {
	u64 submitted;
	u64 failed;
	u64 timeouts;
	u32 max_latency_us;
};

/**
 * struct scenic_aq - the admin queue client (scenic_aq.c)
 * @sq, @cq: the rings (coherent); @sq_dma, @cq_dma their bus addresses
 * @log2_depth, @depth: entries per ring, also the number of contexts
 * @credit_wq: submitters sleep here while every context is in use;
 *	scenic_aq_start() waits here for the aborted ones to leave
 * @sq_lock: @sq_tail, @busy, @held, @slot_ctx, the contexts' flags, the SQ
 * @sq_tail: free-running producer index
 * @slot_ctx: the context of the command written at each SQ slot
 * @cq_lock: @cq_head and the CQ ring
 * @cq_head: free-running consumer index
 * @ctx: @depth command contexts
 * @busy: bitmap of contexts in use (retired ones stay set)
 * @polling: completions are polled (probe, recovery, remove)
 * @running: the rings are programmed
 * @dead: commands fail with -EIO (fatal, timeout, id mismatch, reset)
 * @timeout_ms: per-command timeout
 * @stats_lock: @op, @hist, @hist_next and the totals
 */
struct scenic_aq {
	struct scenic_aq_sqe *sq;
	struct scenic_aq_cqe *cq;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;
	unsigned int log2_depth;
	unsigned int depth;
	wait_queue_head_t credit_wq;

	spinlock_t sq_lock;	/* sq_tail, busy, held, slot_ctx, SQ ring */
	u32 sq_tail;
	u16 *slot_ctx;
	unsigned long *busy;
	unsigned int held;	/* busy contexts a caller still waits on */

	spinlock_t cq_lock;	/* cq_head, CQ ring */
	u32 cq_head;

	struct scenic_aq_ctx *ctx;
	bool polling;
	bool running;
	bool dead;
	unsigned int timeout_ms;

	spinlock_t stats_lock;	/* everything below */
	struct scenic_aq_op_stats op[SCENIC_AQ_NUM_OPS];
	u64 cmds;
	u64 errors;
	u64 timeouts;
	u64 credit_waits;
	u64 id_mismatches;
	u32 in_flight;
	struct scenic_aq_hist hist[SCENIC_AQ_HISTORY];
	unsigned int hist_next;
};

/* One AEQ event as the driver handled it (devlink health dump). */
struct scenic_aeq_hist {
	u64 time_ns;		/* ktime_get_real_ns() when handled */
	u32 seq;
	u32 obj;		/* qpn, cqn, key, detail, lost count, speed */
	u8 type;		/* enum scenic_aeq_type */
	u8 code;		/* QP/CQ error or fatal code, link up */
};

#define SCENIC_AEQ_HISTORY	32

/**
 * struct scenic_aeq - the asynchronous event queue consumer (scenic_aeq.c)
 * @ring, @dma: the ring (coherent)
 * @log2_depth, @depth: entries
 * @head: free-running consumer index
 * @next_seq: the seq the next event must carry (valid once @seq_valid)
 * @lock: the consumer (the IRQ thread and drains)
 * @ops_lock: @ops and @priv against dispatch
 * @ops, @priv: the owner of each function's events
 */
struct scenic_aeq {
	struct scenic_aeqe *ring;
	dma_addr_t dma;
	unsigned int log2_depth;
	unsigned int depth;
	u32 head;
	u32 next_seq;
	bool seq_valid;
	bool running;
	struct mutex lock;	/* consumer state above */
	struct mutex ops_lock;	/* ops, priv */
	const struct scenic_aux_event_ops *ops[3];
	void *priv[3];
	atomic64_t events;
	atomic64_t overflows;
	atomic64_t lost;
	atomic64_t unknown;
	spinlock_t hist_lock;	/* hist, hist_next */
	struct scenic_aeq_hist hist[SCENIC_AEQ_HISTORY];
	unsigned int hist_next;
};

enum scenic_func {
	SCENIC_FUNC_ETH,
	SCENIC_FUNC_RDMA,
	SCENIC_FUNC_SCU,
	SCENIC_NUM_FUNCS,
};

/* One card. Lives in the devlink private area. */
/* One SCU slot's owner file and bound PD (scenic_scu_bind.c). */
struct scenic_scu_binding {
	struct file *owner;	/* scenic_scu.ko's owner fd, or NULL */
	const void *pd;		/* scenic_rdma.ko's PD, or NULL: unbound */
	u32 pdn;
};

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

	/* the functions' additions to `devlink dev info` (scenic_devlink.c) */
	struct mutex info_lock;	/* info_fn, info_priv */
	scenic_aux_devlink_info_fn info_fn[SCENIC_NUM_FUNCS];
	void *info_priv[SCENIC_NUM_FUNCS];

	/* protects in_reset against the debugfs readers */
	struct mutex lock;
	bool in_reset;
	bool broken;		/* re-initialisation after a reset failed */

	struct dentry *dbg_dir;

	struct scenic_aq aq;
	struct scenic_aeq aeq;
	/*
	 * Set by the recovery code (scenic_health.c): called without locks from
	 * a command waiter or the core IRQ thread when the card must be
	 * recovered (enum scenic_fatal_code: a card code or a DRV_* code).
	 * It must not wait for a command.
	 */
	void (*recover_hook)(struct scenic_dev *sdev, u8 code, u32 detail);
	struct scenic_health *health;	/* scenic_health.c */
	/* SCU slot owners and PD bindings, under scenic_scu_bind.c's lock */
	struct scenic_scu_binding scu_bind[SCENIC_SCU_MAX_SLOTS];
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
int scenic_queues_start(struct scenic_dev *sdev, char *why, size_t len);
void scenic_queues_stop(struct scenic_dev *sdev);

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

/*
 * scenic_aq.c: the admin queue. scenic_aq_exec() is in scenic_aux.h.
 *
 * scenic_aq_init()/scenic_aq_fini(): allocate and free the rings (probe and
 * remove). scenic_aq_start(sdev, polling) zeroes the rings and programs
 * them (after probe's self-tests and after every reset); with @polling
 * false, completions raise vector 0. scenic_aq_stop() disables the queue
 * and fails every waiter with -EIO; scenic_aq_set_dead() does the latter
 * only (the card is not touched) and makes new commands fail at once.
 * scenic_aq_set_polling() switches between polling and interrupts.
 * scenic_aq_stats_show()/scenic_aq_history_show() print the statistics and
 * the last SCENIC_AQ_HISTORY commands (debugfs, devlink health dump);
 * scenic_aq_history() copies the history, oldest first, and returns the
 * number of entries.
 */
int scenic_aq_init(struct scenic_dev *sdev);
void scenic_aq_fini(struct scenic_dev *sdev);
int scenic_aq_start(struct scenic_dev *sdev, bool polling);
void scenic_aq_stop(struct scenic_dev *sdev);
void scenic_aq_set_dead(struct scenic_dev *sdev);
void scenic_aq_set_polling(struct scenic_dev *sdev, bool polling);
void scenic_aq_process_cq(struct scenic_dev *sdev);
void scenic_aq_stats_show(struct scenic_dev *sdev, struct seq_file *s);
void scenic_aq_history_show(struct scenic_dev *sdev, struct seq_file *s);
unsigned int scenic_aq_history(struct scenic_dev *sdev,
			       struct scenic_aq_hist *out, unsigned int max);
void scenic_aq_debugfs_add(struct scenic_dev *sdev);

/*
 * scenic_aeq.c: the asynchronous event queue, started and stopped with the
 * admin queue. scenic_aeq_process() runs in the core IRQ thread.
 */
int scenic_aeq_init(struct scenic_dev *sdev);
void scenic_aeq_fini(struct scenic_dev *sdev);
int scenic_aeq_start(struct scenic_dev *sdev, bool polling);
void scenic_aeq_stop(struct scenic_dev *sdev);
void scenic_aeq_set_irq(struct scenic_dev *sdev, bool on);
void scenic_aeq_process(struct scenic_dev *sdev);
unsigned int scenic_aeq_history(struct scenic_dev *sdev,
				struct scenic_aeq_hist *out, unsigned int max);

/* scenic_aux.c */
int scenic_aux_init(struct scenic_dev *sdev);
void scenic_aux_fini(struct scenic_dev *sdev);
void scenic_aux_reset_prepare(struct scenic_dev *sdev);
void scenic_aux_reset_done(struct scenic_dev *sdev, int status);
void scenic_aux_fatal(struct scenic_dev *sdev);
void scenic_aux_del_func(struct scenic_dev *sdev, enum scenic_func f);
int scenic_aux_add_funcs(struct scenic_dev *sdev);
void scenic_aux_ida_destroy(void);

/*
 * scenic_health.c: health poll, devlink health reporter "card", recovery
 * (docs/admin-queue.md section 8). stop: no new recovery (remove, before
 * devlink_unregister); fini: the reporter goes (after it).
 */
int scenic_health_init(struct scenic_dev *sdev);
void scenic_health_stop(struct scenic_dev *sdev);
void scenic_health_fini(struct scenic_dev *sdev);
void scenic_health_reset_prepare(struct scenic_dev *sdev);
void scenic_health_reset_done(struct scenic_dev *sdev);
int scenic_health_reload_down(struct scenic_dev *sdev,
			      struct netlink_ext_ack *extack);
int scenic_health_reload_up(struct scenic_dev *sdev,
			    struct netlink_ext_ack *extack);
void scenic_health_show(struct scenic_dev *sdev, struct seq_file *s);

/* scenic_aeq.c: the function of an auxiliary device, or -EINVAL */
int scenic_aux_func_of(struct scenic_aux_dev *sadev);

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
