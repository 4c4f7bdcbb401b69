/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * uverbs ABI between the scenic_rdma kernel driver and the rdma-core provider
 * (providers/scenic). Rules (the same as include/uapi/rdma/efa-abi.h):
 *
 *  - every struct is a multiple of 8 bytes and every __u64 sits on an 8-byte
 *    offset; padding is explicit (reserved_<bit offset>) and must be zero;
 *  - every command and every response starts with comp_mask; a side that sees
 *    a comp_mask bit it does not know fails with EINVAL (commands) or ignores
 *    the extension (responses);
 *  - structs only grow at the end; the kernel copies min(inlen, sizeof) and
 *    checks that the bytes beyond what it knows are zero.
 *
 * Data path (paper section 7.2): the send queue (SQ) and receive queue (RQ) rings
 * and the CQ ring live in kernel-allocated DMA memory that user space mmaps;
 * the doorbells are registers in BAR0 (a page per QP doorbell group, mapped
 * non-cached); the card writes per-QP completion counters into a writeback page
 * that the provider polls. Every mapping is an rdma_user_mmap_entry: the create
 * responses return the mmap offset ("key") and size to pass to mmap() on the
 * uverbs file, and the byte offset of the object inside that page.
 *
 * Isolation: rings and doorbell pages belong to one ucontext (a doorbell page
 * never holds another context's doorbells). Ring, doorbell and doorbell-record
 * pages map read-write; the CQ ring and the counter page map read-only (the kernel
 * refuses VM_WRITE); doorbell pages are non-cached, the rest cached
 * (DMA-coherent memory). The counter page may hold other contexts' counters
 * (the RTL writes one array, base + qpn * 8): cnt_off and cnt_size let the
 * kernel choose the layout without an ABI change.
 *
 * The card does not know the uverbs command ids: DECLARE_DRV_CMD in the
 * provider binds each struct below to its IB_USER_VERBS_CMD_*.
 */
#ifndef SCENIC_ABI_USER_H
#define SCENIC_ABI_USER_H

#include <linux/types.h>

/*
 * ib_device_ops.uverbs_abi_ver; the provider matches on it. CQE status and
 * the status page's state are the card's codes (uapi/scenic_admin.h).
 */
#define SCENIC_UVERBS_ABI_VERSION 2

/* Number of SCU slots the ABI can name; a card reports how many it has. */
#define SCENIC_MAX_SCUS 16

/*
 * Size of one CQ entry (layout: struct scenic_cqe in uapi/scenic_rdma.h).
 * A CQ holds receive completions and completions in error only: successful
 * send completions are reported through the per-QP completion counters.
 */
#define SCENIC_CQE_SIZE 32

/* IB_USER_VERBS_CMD_GET_CONTEXT */
struct scenic_ibv_alloc_ucontext_cmd {
	__u32 comp_mask;
	__u8 reserved_20[4];
};

/* Commands whose udata the kernel understands (resp.cmds_supp_udata_mask). */
enum scenic_ibv_user_cmds_supp_udata {
	SCENIC_USER_CMDS_SUPP_UDATA_QUERY_DEVICE = 1 << 0,
	SCENIC_USER_CMDS_SUPP_UDATA_CREATE_CQ = 1 << 1,
	SCENIC_USER_CMDS_SUPP_UDATA_CREATE_QP = 1 << 2,
};

enum {
	/* create_qp takes SCENIC_CREATE_QP_CMD_COMP_MASK_ONE_MAP */
	SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_QP_ONE_MAP = 1 << 0,
	/*
	 * create_qp takes rq_wqe_size 64 << n (n 0..SCENIC_RQ_MAX_STRIDE), and
	 * the card takes the SQ limits of uapi/scenic_rdma.h (28 SGEs, 448
	 * inline bytes); without it RQ slots are rq_wqe_size (64) bytes and the
	 * SQ limits are the _V0 ones. max_*_sge and max_inline_data say which.
	 */
	SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_RQ_STRIDE = 1 << 1,
	/*
	 * UD QPs and user AHs (RDMA.FEATURES.ud): create_qp takes IBV_QPT_UD,
	 * create_ah answers struct scenic_ibv_create_ah_resp
	 */
	SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_UD = 1 << 2,
	/*
	 * SRQs (RDMA.FEATURES.srq): create_srq takes struct scenic_ibv_create_srq,
	 * create_qp takes an SRQ (then rq_ring_size and rq_wqe_size are 0)
	 */
	SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_SRQ = 1 << 3,
};

struct scenic_ibv_alloc_ucontext_resp {
	__u32 comp_mask;	/* SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_* */
	__u32 cmds_supp_udata_mask;
	__u32 max_sq_wr;
	__u32 max_rq_wr;
	__u16 max_sq_sge;
	__u16 max_rq_sge;
	__u32 max_inline_data;	/* bytes of inline payload in one send WQE */
	__u16 num_scus;		/* valid SCU indices are 0 .. num_scus - 1 */
	__u16 sq_wqe_size;	/* bytes per SQ ring slot */
	__u16 rq_wqe_size;	/* bytes per RQ ring slot (the smallest, with RQ_STRIDE) */
	__u16 cqe_size;		/* SCENIC_CQE_SIZE */
	__u32 cnt_size;		/* bytes from one QP's counter to the next */
	__u8 reserved_120[4];
};

/* IB_USER_VERBS_EX_CMD_QUERY_DEVICE response extension */
enum scenic_query_device_caps {
	SCENIC_QUERY_DEVICE_CAPS_RC = 1 << 0,
	SCENIC_QUERY_DEVICE_CAPS_RDMA_READ = 1 << 1,
	SCENIC_QUERY_DEVICE_CAPS_RDMA_WRITE = 1 << 2,
	SCENIC_QUERY_DEVICE_CAPS_SEND = 1 << 3,
	SCENIC_QUERY_DEVICE_CAPS_SCU = 1 << 4,	/* QPs can be steered to SCUs */
	SCENIC_QUERY_DEVICE_CAPS_COMPLETION_COUNTERS = 1 << 5,
	SCENIC_QUERY_DEVICE_CAPS_UD = 1 << 6,	/* UD QPs, user AHs */
};

/* create_ah: the AH's entry in the card's AH table, for UD WQEs */
struct scenic_ibv_create_ah_resp {
	__u32 ah_index;
	__u32 reserved;
};

struct scenic_ibv_ex_query_device_resp {
	__u32 comp_mask;
	__u32 device_caps;	/* enum scenic_query_device_caps */
	__u32 max_sq_wr;
	__u32 max_rq_wr;
	__u16 max_sq_sge;
	__u16 max_rq_sge;
	__u32 max_inline_data;
	__u16 num_scus;
	__u16 scu_mask;		/* bit n: SCU n holds a loaded offload */
	__u8 reserved_e0[4];
};

/* IB_USER_VERBS_CMD_CREATE_CQ / IB_USER_VERBS_EX_CMD_CREATE_CQ */
enum {
	SCENIC_CREATE_CQ_WITH_COMPLETION_CHANNEL = 1 << 0,
};

struct scenic_ibv_create_cq {
	__u32 comp_mask;
	__u32 cq_entry_size;	/* must equal resp cqe_size of GET_CONTEXT */
	__u32 flags;		/* SCENIC_CREATE_CQ_* */
	__u8 reserved_60[4];
};

enum {
	/* dbrec_mmap_key is valid: keep the CI in the record (uapi/scenic_rdma.h) */
	SCENIC_CREATE_CQ_RESP_COMP_MASK_DBREC = 1 << 0,
};

struct scenic_ibv_create_cq_resp {
	__u32 comp_mask;	/* SCENIC_CREATE_CQ_RESP_COMP_MASK_* */
	__u32 cq_idx;		/* hardware CQ number */
	__aligned_u64 q_mmap_key;	/* CQ ring, cached, read-only */
	__aligned_u64 q_mmap_size;
	__aligned_u64 db_mmap_key;	/* arm doorbell page, non-cached */
	__u32 db_off;		/* offset of the CQ's doorbells in the page: CI at
				 * db_off + SCENIC_DB_CQ_CI, arm at + SCENIC_DB_CQ_ARM */
	__u32 cq_entries;	/* ring slots (power of two) */
	__aligned_u64 dbrec_mmap_key;	/* struct scenic_cq_dbrec, cached, read-write */
};

/*
 * IB_USER_VERBS_CMD_RESIZE_CQ (RDMA.FEATURES.resize_cq): the kernel gives the
 * CQ a new ring and CI record; the card ends the old ring with a CQE of
 * opcode SCENIC_CQE_OP_RESIZE, after which the provider polls the new ring
 * from index 0 (phase 1) and unmaps the old ring and record (their memory is
 * freed when the last mapping goes). The doorbell page stays.
 */
struct scenic_ibv_resize_cq {
	__u32 comp_mask;
	__u8 reserved_20[4];
};

struct scenic_ibv_resize_cq_resp {
	__u32 comp_mask;
	__u32 cq_entries;	/* new ring slots (power of two) */
	__aligned_u64 q_mmap_key;	/* new CQ ring, cached, read-only */
	__aligned_u64 q_mmap_size;
	__aligned_u64 dbrec_mmap_key;	/* new struct scenic_cq_dbrec, read-write */
};

/* IB_USER_VERBS_CMD_CREATE_QP / IB_USER_VERBS_EX_CMD_CREATE_QP */
enum {
	/* scu_index is valid; without it the kernel uses SCU 0 */
	SCENIC_CREATE_QP_CMD_COMP_MASK_SCU = 1 << 0,
	/*
	 * Put the SQ, the RQ and the doorbell record behind one mmap key
	 * (SCENIC_CREATE_QP_RESP_COMP_MASK_ONE_MAP): one mmap() and one
	 * munmap() per QP instead of three. Only when the ucontext response
	 * announced SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_QP_ONE_MAP. The
	 * kernel may still map them separately (large rings): the response's
	 * comp_mask says which.
	 */
	SCENIC_CREATE_QP_CMD_COMP_MASK_ONE_MAP = 1 << 1,
};

struct scenic_ibv_create_qp {
	__u32 comp_mask;	/* SCENIC_CREATE_QP_CMD_COMP_MASK_* */
	__u32 sq_ring_size;	/* bytes; entries * sq_wqe_size, power of two */
	__u32 rq_ring_size;	/* bytes; entries * rq_wqe_size, power of two */
	__u16 scu_index;	/* SCU the QP's flows are steered to */
	__u8 reserved_70[2];
	__u32 flags;		/* none defined yet, must be zero */
	/*
	 * Bytes per RQ slot: 0 (= 64) or 64 << n, n <= SCENIC_RQ_MAX_STRIDE,
	 * holding (rq_wqe_size - 16) / 16 SGEs; more than 64 only with
	 * SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_RQ_STRIDE
	 */
	__u16 rq_wqe_size;
	__u8 reserved_b0[2];
};

enum {
	/*
	 * dbrec_mmap_key is valid: keep the producer indices in the record and
	 * ring a doorbell only when the status page's db_skip asks for it
	 */
	SCENIC_CREATE_QP_RESP_COMP_MASK_DBREC = 1 << 0,
	/*
	 * sq_mmap_key maps sq_mmap_size + rq_mmap_size + one page, read-write:
	 * the SQ at 0, the RQ at sq_mmap_size, the doorbell record at
	 * sq_mmap_size + rq_mmap_size (both sizes are multiples of the page
	 * size); rq_mmap_key and dbrec_mmap_key are 0. Set with DBREC.
	 */
	SCENIC_CREATE_QP_RESP_COMP_MASK_ONE_MAP = 1 << 1,
};

struct scenic_ibv_create_qp_resp {
	__u32 comp_mask;	/* SCENIC_CREATE_QP_RESP_COMP_MASK_* */
	__u32 qp_idx;		/* hardware QP number (== ibv qp_num) */
	__aligned_u64 sq_mmap_key;	/* SQ ring, write-combined/cached */
	__aligned_u64 sq_mmap_size;
	__aligned_u64 rq_mmap_key;	/* RQ ring */
	__aligned_u64 rq_mmap_size;
	__aligned_u64 db_mmap_key;	/* doorbell page, non-cached */
	__aligned_u64 cnt_mmap_key;	/* completion-counter writeback page, read-only */
	__u32 sq_db_off;	/* byte offsets inside the doorbell page */
	__u32 rq_db_off;
	__u32 cnt_off;		/* byte offset of this QP's counters in their page */
	__u16 scu_index;	/* SCU the kernel bound the QP to */
	__u8 reserved_230[2];
	__aligned_u64 dbrec_mmap_key;	/* struct scenic_qp_dbrec, cached, read-write */
};

/*
 * IB_USER_VERBS_CMD_CREATE_SRQ. The ring holds ring_size / wqe_size receive
 * WQEs (struct scenic_rq_wqe), a power of two; wqe_size is 64 << n
 * (n <= SCENIC_RQ_MAX_STRIDE) and holds (wqe_size - 16) / 16 SGEs.
 */
struct scenic_ibv_create_srq {
	__u32 comp_mask;	/* none defined yet, must be zero */
	__u32 ring_size;	/* bytes, a power of two */
	__u16 wqe_size;		/* bytes per slot */
	__u8 reserved_50[6];
};

/*
 * ring_mmap_key maps ring_mmap_size + one page, read-write: the ring at 0,
 * struct scenic_srq_dbrec at ring_mmap_size (a multiple of the page size).
 * db_mmap_key maps the SRQ's doorbell page (non-cached): the producer index
 * at db_off + SCENIC_DB_SRQ.
 */
struct scenic_ibv_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;		/* the card's SRQ number */
	__aligned_u64 ring_mmap_key;
	__aligned_u64 ring_mmap_size;
	__aligned_u64 db_mmap_key;
	__u32 db_off;
	__u32 entries;		/* ring slots (power of two) */
};

#endif /* SCENIC_ABI_USER_H */
