/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SCENIC SmartNIC: scenic_rdma.ko, the ib_device of the card's offloaded
 * RoCE v2 RC engine (paper section 7.2). Private definitions shared by the
 * scenic_rdma_*.c files. The hardware formats are in uapi/scenic_rdma.h, the
 * uverbs ABI with the provider in uapi/rdma/scenic-abi.h.
 */
#ifndef _SCENIC_RDMA_DRV_H
#define _SCENIC_RDMA_DRV_H

#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/completion.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "scenic_aux.h"
#include "scenic_codes.h"
#include "scenic_rdma.h"
#include "rdma/scenic-abi.h"

struct scenic_gsi_qp;

#define SCENIC_RDMA_DRV_NAME	"scenic_rdma"
#define SCENIC_RDMA_DRV_VERSION	"1.0"

#define SCENIC_RDMA_PORT	1

/* Limits the driver adds to the card's (rings are one coherent allocation). */
#define SCENIC_RDMA_MAX_WR	8192	/* 8192 * 512 B SQ slots = 4 MiB, order 10 */
/* pages filled per TLB miss: the missing one and those after it */
#define SCENIC_RDMA_MISS_PREFETCH	64
#define SCENIC_RDMA_MIN_WR	1
#define SCENIC_RDMA_MAX_CQE	65536	/* 65536 * 32 B = 2 MiB */
#define SCENIC_RDMA_MIN_CQE	16
/* SRQ ring: at most 2^15 slots (the card's log2_entries) and 4 MiB (order 10) */
#define SCENIC_RDMA_MAX_SRQ_WR	32768
#define SCENIC_RDMA_MAX_SRQ_RING_BYTES	SZ_4M
#define SCENIC_RDMA_MAX_PD	65536
#define SCENIC_RDMA_GID_TBL_LEN	32
#define SCENIC_RDMA_MAX_MR_SIZE	BIT_ULL(40)
/*
 * Coherent memory (rings, status pages, doorbell records) one user context
 * may hold: at most this, and at most a quarter of the RAM. The same bytes
 * are charged to the process's RLIMIT_MEMLOCK (pinned_vm) as ib_umem does.
 */
#define SCENIC_RDMA_UCTX_MAX_RING_BYTES	(256ULL << 20)
#define SCENIC_RDMA_STATUS_BYTES	4096	/* the per-QP status page */
/* Response bytes a provider must take: those before the doorbell-record key */
#define SCENIC_CREATE_QP_RESP_MIN \
	offsetof(struct scenic_ibv_create_qp_resp, dbrec_mmap_key)
#define SCENIC_CREATE_CQ_RESP_MIN \
	offsetof(struct scenic_ibv_create_cq_resp, dbrec_mmap_key)
/* TLB_FILL: up to 12 pages in the entry, up to 512 in an indirect table */
#define SCENIC_RDMA_TLB_FILL_DIRECT	ARRAY_SIZE(((struct scenic_aq_tlb_fill *)0)->page)
#define SCENIC_RDMA_TLB_FILL_MAX	512
#define SCENIC_RDMA_FILL_TBL_BYTES	(SCENIC_RDMA_TLB_FILL_MAX * sizeof(__le64))
/* TLB misses queued for the fill work; the card re-raises what is dropped */
#define SCENIC_RDMA_MISS_QUEUE	64
/* TLB entries prefilled at reg_user_mr: the rest come on misses */
#define SCENIC_RDMA_PREFILL_DIV	2
/* Sanity bounds for the card's MAX_* registers. */
#define SCENIC_RDMA_CARD_MAX_OBJS	BIT(20)

/* The software GSI (QP1, scenic_rdma_gsi.c) */
#define SCENIC_GSI_QPN		1
#define SCENIC_GSI_MAX_WR	4096
#define SCENIC_GSI_MAX_SGE	4
#define SCENIC_GSI_MAX_MSG	4096	/* a MAD is 256 bytes; RoCE PMTU bound */
/* pd->local_dma_lkey: MR keys are index << 8 | tag with index >= 1 */
#define SCENIC_RDMA_LOCAL_DMA_LKEY	0

#define SCENIC_PCI_VENDOR_XILINX	0x10ee
#define SCENIC_PCI_DEVICE		0x5c01

/* Card counter registers shown in `rdma statistic` (scenic_rdma_stats.c). */
#define SCENIC_RDMA_NUM_HW_STATS	57

/* Driver-side counters, shown with the card's in `rdma statistic`. */
struct scenic_rdma_sw_stats {
	atomic64_t cmd_errors;
	atomic64_t events;
	atomic64_t events_unknown;
	atomic64_t tlb_fills;
	atomic64_t tlb_miss_no_mr;	/* miss for a key we do not hold */
	atomic64_t tlb_miss_outside;	/* iova outside the MR */
	atomic64_t bad_requests;	/* user requests refused as invalid */
	atomic64_t gsi_tx;		/* QP1 datagrams sent */
	atomic64_t gsi_tx_errors;	/* ... not sent (no route, no memory) */
	atomic64_t gsi_rx;		/* QP1 datagrams delivered */
	atomic64_t gsi_rx_drops;	/* malformed, bad ICRC, Q_Key, no WQE */
	atomic64_t gsi_loopback;	/* sent to a SCENIC device of this host */
	atomic64_t event_resyncs;	/* rescans after lost events */
	atomic64_t ceq_overflows;	/* CEQ OVERFLOW entries */
	atomic64_t tlb_miss_dropped;	/* miss queue full (the card re-raises) */
	atomic64_t mem_refused;		/* rings or MRs beyond a user's limits */
	atomic64_t srq_limit_events;	/* IB_EVENT_SRQ_LIMIT_REACHED delivered */
};

/**
 * struct scenic_rdma_dev - one card's RDMA function
 * @ibdev: the ib_device (allocated with ib_alloc_device)
 * @sadev: the auxiliary device from scenic.ko
 * @dmadev: the PCI function, for DMA
 * @regs: the RDMA register block
 * @db_phys: BAR4 (doorbell pages) bus address; 0 when the card has none
 * @max_qp, @max_cq, @max_mr, @tlb_entries: the card's RDMA.MAX_* registers
 * @num_scus: SCU slots (SCU.NUM_SLOTS, at most SCENIC_MAX_SCUS)
 * @irq: Linux irq of MSI-X vector SCENIC_VEC_RDMA
 * @fill_tbl, @fill_tbl_dma: the indirect TLB_FILL table (coherent, one page)
 * @fill_lock: serializes the use of @fill_tbl
 * @ev_lock: serializes reading the CEQ (the IRQ thread and destroy's drain)
 * @ceq, @ceq_dma, @ceq_log2, @ceq_head: the completion event queue
 * @wq: ordered workqueue for event work that needs admin commands
 * @miss_lock, @miss, @miss_n: TLB misses waiting for @miss_work
 * @miss_work: fills them
 * @resync_work: rebuilds QP and CQ error state after lost AEQ events
 * @pd_ida, @qp_ida, @cq_ida, @mr_ida: hardware object numbers; a QP or CQ
 *	number is freed by its doorbell page's mmap entry, i.e. only after
 *	destroy and the last user mapping of the page
 * @qp_xa, @cq_xa, @mr_xa: objects by number, for events (xa_lock held
 *	while an event is delivered to a QP or CQ)
 * @netdev: the sibling scenic_eth netdev (rtnl), NULL while it is absent
 * @port_active: last port state dispatched (rtnl)
 * @registered: ib_register_device() succeeded (@reg_lock)
 * @removing: remove() started: reg_work must not register
 * @reg_lock: serializes registration against remove
 * @reg_work: registers the ib_device once the netdev exists
 * @nb: netdevice notifier
 * @dead: FLR in progress or failed: every verb fails with -EIO
 * @sw: driver counters
 * @hw_stats_lock: protects @hw_total and @hw_last
 * @hw_total: card counters folded into 64 bits
 * @hw_last: the card counters at the last fold
 * @stats_work: folds the card counters periodically
 * @gsi: the software QP1 (RCU: the UDP receive path reads it), NULL if none
 * @gsi_ok: the GSI's UDP socket exists: QP1 can be created, IB_PORT_CM_SUP
 * @gsi_node: on the list the UDP receive path searches by netdev
 */
struct scenic_rdma_dev {
	struct ib_device ibdev;
	struct scenic_aux_dev *sadev;
	struct device *dmadev;
	void __iomem *regs;
	phys_addr_t db_phys;
	u32 max_qp;
	u32 max_cq;
	u32 max_mr;
	u32 tlb_entries;
	u32 features;		/* RDMA.FEATURES */
	u32 max_ah;		/* RDMA.MAX_AH with FEATURES.ud, else 0 */
	u32 max_mw;		/* RDMA.MAX_MW with FEATURES.mw, else 0 */
	u32 max_srq;		/* RDMA.MAX_SRQ with FEATURES.srq, else 0 */
	/* what create_qp accepts, from features (uapi/scenic_rdma.h) */
	u32 max_sq_sge;
	u32 max_rq_sge;
	u32 max_inline;
	u16 num_scus;
	int irq;
	char irq_name[40];

	__le64 *fill_tbl;
	dma_addr_t fill_tbl_dma;
	struct mutex fill_lock;	/* fill_tbl */
	struct mutex ev_lock;	/* the CEQ consumer */
	struct scenic_ceqe *ceq;
	dma_addr_t ceq_dma;
	unsigned int ceq_log2;
	u32 ceq_head;
	bool ceq_running;

	struct workqueue_struct *wq;
	spinlock_t miss_lock;	/* miss, miss_n */
	struct {
		u32 key;
		u64 iova;
	} miss[SCENIC_RDMA_MISS_QUEUE];
	unsigned int miss_n;
	struct work_struct miss_work;
	struct work_struct resync_work;

	struct ida pd_ida;
	struct ida qp_ida;
	struct ida cq_ida;
	struct ida mr_ida;
	struct ida ah_ida;	/* the card's AH table: user AHs */
	struct ida mw_ida;	/* the card's MW table */
	struct ida srq_ida;	/* the card's SRQ table; freed as qp_ida */
	struct xarray qp_xa;
	struct xarray cq_xa;
	struct xarray mr_xa;
	struct xarray srq_xa;	/* for SRQ_LIMIT events, as qp_xa */

	struct net_device *netdev;
	bool port_active;
	bool registered;
	bool removing;
	struct mutex reg_lock;	/* registration state */
	struct work_struct reg_work;
	struct notifier_block nb;

	bool dead;
	struct scenic_rdma_sw_stats sw;
	spinlock_t hw_stats_lock;	/* hw_total, hw_last */
	u64 hw_total[SCENIC_RDMA_NUM_HW_STATS];
	u32 hw_last[SCENIC_RDMA_NUM_HW_STATS];
	struct delayed_work stats_work;

	struct scenic_gsi_qp __rcu *gsi;
	bool gsi_ok;
	struct list_head gsi_node;
};

struct scenic_rdma_ucontext {
	struct ib_ucontext ibucontext;
	atomic64_t ring_bytes;	/* coherent memory charged to the context */
};

struct scenic_rdma_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/* What an rdma_user_mmap_entry maps. */
enum scenic_mmap_kind {
	SCENIC_MMAP_DMA_RW,	/* coherent memory, cached, read-write */
	SCENIC_MMAP_DMA_RO,	/* coherent memory, cached, read-only */
	SCENIC_MMAP_IO_NC,	/* BAR4 doorbell page, non-cached */
};

/*
 * A mappable object. DMA memory is freed in mmap_free, i.e. only after the
 * last user mapping is gone, never while a process can still touch it.
 */
struct scenic_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	struct scenic_rdma_dev *sdev;
	enum scenic_mmap_kind kind;
	void *cpu_addr;		/* DMA kinds */
	dma_addr_t dma_addr;
	phys_addr_t phys;	/* IO kind */
	size_t size;
	/* a doorbell page owns its QP/CQ number: freed with the last mapping */
	struct ida *ida;
	u32 id;
	/* DMA kinds of a user context: charged to it and to @mm's pinned_vm */
	struct mm_struct *mm;
	size_t charged;
};

/* Coherent memory shared with the card and mapped to user space. */
struct scenic_dma_buf {
	void *cpu_addr;
	dma_addr_t dma_addr;
	size_t size;
	struct scenic_mmap_entry *entry;	/* owns the memory once inserted */
	struct scenic_rdma_ucontext *uctx;	/* charged to it; NULL: kernel */
	struct mm_struct *mm;			/* pinned_vm charged (mmgrab) */
};

/* A kernel CQ (the GSI's): work completions in host memory only. */
struct scenic_sw_cq {
	spinlock_t lock;	/* everything below */
	struct ib_wc *wc;	/* entries slots */
	u32 head;		/* next to poll */
	u32 count;		/* completions queued */
	u8 notify;		/* 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP armed */
};

struct scenic_rdma_cq {
	struct ib_cq ibcq;
	struct scenic_sw_cq *sw;	/* kernel CQ: not on the card */
	u32 cqn;
	u32 entries;
	struct scenic_dma_buf ring;
	struct scenic_dma_buf dbrec;	/* struct scenic_cq_dbrec */
	struct rdma_user_mmap_entry *db_entry;
	unsigned long ev_flags;	/* SCENIC_RDMA_CQ_EV_*, atomic bit ops */
	struct mutex resize_lock;	/* ring, dbrec, entries against resize_cq */
};

/*
 * Async events delivered once (scenic_rdma_events.c): the AEQ handler and
 * the resync work may both see one, so each path delivers only if its
 * test_and_set_bit() found the bit clear.
 */
enum {
	SCENIC_RDMA_CQ_EV_ERR,		/* IB_EVENT_CQ_ERR was delivered */
};

enum {
	/* an error event was delivered (or the user asked for ERR) since RESET */
	SCENIC_RDMA_QP_EV_ERR,
	/* SQ_DRAINED was delivered since the last move to SQD or RESET */
	SCENIC_RDMA_QP_EV_DRAINED,
	/* LAST_WQE_REACHED (SRQ QPs) was delivered since RESET */
	SCENIC_RDMA_QP_EV_LAST_WQE,
};

/*
 * A user SRQ (scenic_rdma_srq.c): its ring and doorbell record in one
 * coherent buffer mapped to the user, as a QP's rings; its doorbell page
 * owns the SRQ number.
 */
struct scenic_rdma_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	u32 entries;
	u8 stride;		/* slots of SCENIC_RQ_WQE_BYTES << stride */
	struct scenic_dma_buf ring;	/* the slots, then a dbrec page */
	struct rdma_user_mmap_entry *db_entry;
	unsigned long ev_flags;	/* SCENIC_RDMA_SRQ_EV_*, atomic bit ops */
};

enum {
	/*
	 * A limit was set and its event not delivered yet: the AEQ handler
	 * and the resync (after lost events) deliver only if they clear it.
	 */
	SCENIC_RDMA_SRQ_EV_ARMED,
};

struct scenic_rdma_qp {
	struct ib_qp ibqp;
	u32 qpn;
	u16 scu;
	struct scenic_dma_buf sq;
	struct scenic_dma_buf rq;
	struct scenic_dma_buf status;
	struct scenic_dma_buf dbrec;	/* struct scenic_qp_dbrec */
	/*
	 * One map: SQ, RQ and dbrec are views into this buffer (they own
	 * nothing); unused (cpu_addr NULL) otherwise.
	 */
	struct scenic_dma_buf rings;
	struct rdma_user_mmap_entry *db_entry;
	u32 sq_entries;
	u32 rq_entries;
	u8 rq_stride;		/* RQ slots of SCENIC_RQ_WQE_BYTES << rq_stride */
	struct ib_qp_cap cap;
	enum ib_sig_type sq_sig_type;
	struct mutex lock;	/* modify / query against each other */
	/* attributes last set, for query_qp (ah_attr without its sgid_attr) */
	struct ib_qp_attr attr;
	struct scenic_gsi_qp *gsi;	/* QP1: the software GSI, not on the card */
	unsigned long ev_flags;	/* SCENIC_RDMA_QP_EV_*, atomic bit ops */
};

/* A kernel address handle (the GSI's): RoCE v2 over IPv4. */
struct scenic_rdma_ah {
	struct ib_ah ibah;
	u32 index;		/* user AH: its AH table entry; 0: kernel AH */
	__be32 saddr;
	__be32 daddr;
	u8 ttl;
	u8 tos;
	u32 flow_label;
};

struct scenic_rdma_mr {
	struct ib_mr ibmr;
	u32 index;
	u32 key;
	u64 iova;
	u64 length;
	struct ib_umem *umem;
	dma_addr_t *pages;	/* DMA address of each 4 KiB page of the iova range */
	unsigned long npages;
	u64 first_page;		/* iova of pages[0] (4 KiB aligned) */
	int access;		/* IB_ACCESS_* it was registered (or reregistered) with */
	refcount_t users;	/* the MR itself + TLB fills in flight */
	struct completion released;
};

static inline struct scenic_rdma_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct scenic_rdma_dev, ibdev);
}

static inline struct scenic_rdma_ucontext *to_suctx(struct ib_ucontext *uc)
{
	return container_of(uc, struct scenic_rdma_ucontext, ibucontext);
}

static inline struct scenic_rdma_pd *to_spd(struct ib_pd *pd)
{
	return container_of(pd, struct scenic_rdma_pd, ibpd);
}

static inline struct scenic_rdma_cq *to_scq(struct ib_cq *cq)
{
	return container_of(cq, struct scenic_rdma_cq, ibcq);
}

static inline struct scenic_rdma_qp *to_sqp(struct ib_qp *qp)
{
	return container_of(qp, struct scenic_rdma_qp, ibqp);
}

static inline struct scenic_rdma_srq *to_ssrq(struct ib_srq *srq)
{
	return container_of(srq, struct scenic_rdma_srq, ibsrq);
}

static inline struct scenic_rdma_ah *to_sah(struct ib_ah *ah)
{
	return container_of(ah, struct scenic_rdma_ah, ibah);
}

static inline struct scenic_rdma_mr *to_smr(struct ib_mr *mr)
{
	return container_of(mr, struct scenic_rdma_mr, ibmr);
}

/* A memory window: its index in the card's MW table (key bit 31 set) */
struct scenic_rdma_mw {
	struct ib_mw ibmw;
	u32 index;
};

static inline struct scenic_rdma_mw *to_smw(struct ib_mw *mw)
{
	return container_of(mw, struct scenic_rdma_mw, ibmw);
}

static inline struct scenic_mmap_entry *
to_smmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct scenic_mmap_entry, rdma_entry);
}

static inline u32 scenic_rdma_rd(const struct scenic_rdma_dev *sdev, u32 reg)
{
	return readl(sdev->regs + reg);
}

static inline void scenic_rdma_wr(const struct scenic_rdma_dev *sdev, u32 reg,
				  u32 val)
{
	writel(val, sdev->regs + reg);
}

/* Checked at the start of every verb that touches the card. */
static inline bool scenic_rdma_dead(const struct scenic_rdma_dev *sdev)
{
	return READ_ONCE(sdev->dead);
}

/* scenic_rdma_cmd.c: admin commands through the core's admin queue */
int scenic_rdma_cmd_exec(struct scenic_rdma_dev *sdev, const void *cmd,
			 size_t len, void *res, size_t res_len);
/* @c: a request struct with hdr.opcode set; @r: its result struct */
#define scenic_rdma_cmd(sdev, c) ({					\
	typeof(c) _c = (c);						\
	scenic_rdma_cmd_exec(sdev, _c, sizeof(*_c), NULL, 0);		\
})
#define scenic_rdma_cmd_res(sdev, c, r) ({				\
	typeof(c) _c = (c);						\
	typeof(r) _r = (r);						\
	scenic_rdma_cmd_exec(sdev, _c, sizeof(*_c), _r, sizeof(*_r));	\
})

/* scenic_rdma_verbs.c: device, port, ucontext, PD, mmap */
int scenic_rdma_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr,
			     struct ib_udata *udata);
int scenic_rdma_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr);
int scenic_rdma_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable);
enum rdma_link_layer scenic_rdma_get_link_layer(struct ib_device *ibdev,
						u32 port);
int scenic_rdma_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey);
int scenic_rdma_alloc_ucontext(struct ib_ucontext *uctx,
			       struct ib_udata *udata);
void scenic_rdma_dealloc_ucontext(struct ib_ucontext *uctx);
void scenic_rdma_disassociate_ucontext(struct ib_ucontext *uctx);
int scenic_rdma_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void scenic_rdma_mmap_free(struct rdma_user_mmap_entry *rdma_entry);
int scenic_rdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int scenic_rdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int scenic_rdma_udata_cmd(struct scenic_rdma_dev *sdev, struct ib_udata *udata,
			  void *cmd, size_t size, size_t min_size);
int scenic_rdma_udata_resp(struct scenic_rdma_dev *sdev,
			   struct ib_udata *udata, void *resp,
			   size_t size, size_t min_size);
bool scenic_rdma_zeroed(struct scenic_rdma_dev *sdev, const void *p,
			size_t len, const char *what);

int scenic_dma_buf_alloc(struct scenic_rdma_dev *sdev,
			 struct scenic_rdma_ucontext *suctx,
			 struct scenic_dma_buf *buf, size_t size);
int scenic_dma_buf_expose(struct scenic_rdma_dev *sdev,
			  struct ib_ucontext *uctx, struct scenic_dma_buf *buf,
			  enum scenic_mmap_kind kind, u64 *key);
void scenic_dma_buf_release(struct scenic_rdma_dev *sdev,
			    struct scenic_dma_buf *buf);
struct rdma_user_mmap_entry *
scenic_rdma_db_expose(struct scenic_rdma_dev *sdev, struct ib_ucontext *uctx,
		      u32 page, struct ida *ida, u32 id, u64 *key);

/* scenic_rdma_cq.c */
#ifdef SCENIC_HAVE_CREATE_CQ_ATTRS
int scenic_rdma_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs);
#else
int scenic_rdma_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata);
#endif
int scenic_rdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
/* scenic_rdma_cq_resize.c */
int scenic_rdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int scenic_rdma_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int scenic_rdma_req_notify_cq(struct ib_cq *ibcq,
			      enum ib_cq_notify_flags flags);

/* scenic_rdma_qp.c */
int scenic_rdma_create_qp(struct ib_qp *ibqp,
			  struct ib_qp_init_attr *init_attr,
			  struct ib_udata *udata);
int scenic_rdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata);
int scenic_rdma_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int scenic_rdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_qp_init_attr *init_attr);
int scenic_rdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int scenic_rdma_qp_hw_query(struct scenic_rdma_dev *sdev,
			    struct scenic_rdma_qp *qp,
			    struct scenic_acq_query_qp *res,
			    enum ib_qp_state *state);

/* scenic_rdma_srq.c */
int scenic_rdma_create_srq(struct ib_srq *ibsrq,
			   struct ib_srq_init_attr *init,
			   struct ib_udata *udata);
int scenic_rdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int scenic_rdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int scenic_rdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* scenic_rdma_gsi.c: QP1 in software over a kernel UDP socket */
void scenic_gsi_init(struct scenic_rdma_dev *sdev);
void scenic_gsi_fini(struct scenic_rdma_dev *sdev);
int scenic_sw_cq_create(struct scenic_rdma_dev *sdev, struct scenic_rdma_cq *cq,
			const struct ib_cq_init_attr *attr);
void scenic_sw_cq_destroy(struct scenic_rdma_cq *cq);
int scenic_rdma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int scenic_sw_cq_req_notify(struct scenic_rdma_cq *cq,
			    enum ib_cq_notify_flags flags);
int scenic_gsi_create_qp(struct scenic_rdma_dev *sdev, struct scenic_rdma_qp *qp,
			 struct ib_qp_init_attr *init);
void scenic_gsi_destroy_qp(struct scenic_rdma_dev *sdev,
			   struct scenic_rdma_qp *qp);
int scenic_gsi_modify_qp(struct scenic_rdma_dev *sdev, struct scenic_rdma_qp *qp,
			 struct ib_qp_attr *attr, int mask);
int scenic_gsi_query_qp(struct scenic_rdma_qp *qp, struct ib_qp_attr *attr,
			int mask, struct ib_qp_init_attr *init);
int scenic_rdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr);
int scenic_rdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
int scenic_rdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			  struct ib_udata *udata);
int scenic_rdma_destroy_ah(struct ib_ah *ibah, u32 flags);
struct ib_mr *scenic_rdma_get_dma_mr(struct ib_pd *ibpd, int access);
int scenic_rdma_dereg_any_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* scenic_rdma_mr.c */
struct ib_mr *scenic_rdma_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 iova, int access,
				      struct ib_udata *udata);
struct ib_mr *scenic_rdma_rereg_user_mr(struct ib_mr *ibmr, int flags,
					u64 start, u64 length, u64 iova,
					int access, struct ib_pd *ibpd,
					struct ib_udata *udata);
#ifdef SCENIC_HAVE_REG_DMABUF_ATTRS
struct ib_mr *scenic_rdma_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 iova, int fd,
					     int access,
					     struct uverbs_attr_bundle *attrs);
#else
struct ib_mr *scenic_rdma_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 iova, int fd,
					     int access,
					     struct ib_udata *udata);
#endif
int scenic_rdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int scenic_rdma_dealloc_mw(struct ib_mw *ibmw);
int scenic_rdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
void scenic_rdma_tlb_miss(struct scenic_rdma_dev *sdev, u32 key, u64 iova);
int scenic_rdma_tlb_fill(struct scenic_rdma_dev *sdev, u32 key, u64 iova,
			 const dma_addr_t *pages, unsigned int count);

/* scenic_rdma_events.c */
int scenic_rdma_events_init(struct scenic_rdma_dev *sdev);
void scenic_rdma_events_fini(struct scenic_rdma_dev *sdev);
void scenic_rdma_events_drain(struct scenic_rdma_dev *sdev);
void scenic_rdma_events_stop(struct scenic_rdma_dev *sdev);
int scenic_rdma_events_start(struct scenic_rdma_dev *sdev);

/* scenic_rdma_dv.c: driver-specific uverbs methods */
extern const struct uapi_definition scenic_rdma_uapi_defs[];

/* scenic_rdma_stats.c */
void scenic_rdma_stats_init(struct scenic_rdma_dev *sdev);
void scenic_rdma_stats_fini(struct scenic_rdma_dev *sdev);
struct rdma_hw_stats *scenic_rdma_alloc_hw_port_stats(struct ib_device *ibdev,
						      u32 port);
int scenic_rdma_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index);

#endif /* _SCENIC_RDMA_DRV_H */
