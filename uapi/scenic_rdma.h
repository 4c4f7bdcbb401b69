/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * SCENIC RDMA engine: the in-memory and doorbell formats shared by the card
 * (device model, RTL), the kernel driver (kmod/rdma/) and the rdma-core
 * provider (providers/scenic). Registers are in scenic_regs.h (block RDMA).
 * All multi-byte fields are little endian unless named *_be.
 *
 * Set-up (kernel only): admin queue commands (scenic_admin.h,
 * docs/admin-queue.md).
 *
 * Data path (paper section 7.2):
 *  - SQ: a ring of 2^n SCENIC_SQ_WQE_BYTES slots in host memory. The provider
 *    writes WQEs, then writes its free-running producer index (u32) to the
 *    QP's doorbell page at SCENIC_DB_SQ. The card reads slot (idx mod 2^n).
 *  - RQ: the same with slots of 64 << rq_stride bytes and SCENIC_DB_RQ.
 *  - Send completions: the card keeps, per QP, the number of SQ WQEs it has
 *    completed successfully (u64, free-running) and writes it to the QP's
 *    status page (struct scenic_qp_status) after each completion; no CQE, no
 *    interrupt (unless the send CQ is armed). WQEs complete in SQ order.
 *  - A CQ ring of 2^n struct scenic_cqe holds receive completions, and send
 *    completions in error (including flushes). The card writes a CQE with
 *    owner bit = phase; phase is 1 on the first pass over the ring, 0 on the
 *    second, and so on: ((producer index >> n) & 1) ^ 1.
 *  - For a send-queue CQE (SCENIC_CQE_F_SQ), every WQE before wqe_idx has
 *    completed successfully: the status-page counter is written first.
 *
 * A QP starts in RESET with SQ and RQ indices 0 and sq_completed 0; every
 * transition to RESET returns them to 0 (the provider restarts its rings, the
 * kernel zeroes the doorbell records).
 *
 * Doorbell BAR (SCENIC_DB_BAR): page q (q < RDMA.MAX_QP) belongs to QP q,
 * page RDMA.MAX_QP + c to CQ c, page RDMA.MAX_QP + RDMA.MAX_CQ + s to SRQ s
 * (FEATURES.srq), SCENIC_DB_PAGE_SIZE bytes each, so that a page mapped to a
 * process holds only that process's doorbells. The BAR's size is a power of 2.
 *
 * SRQ (FEATURES.srq): a ring of 2^n receive WQEs of 64 << stride bytes, as an
 * RQ, shared by the QPs created with CREATE_QP's srq flag. The card takes the
 * WQE at its consumer index when a message needs one; the CQE then has
 * SCENIC_CQE_F_SRQ, wqe_idx the SRQ index and qpn the receiving QP.
 *
 * Memory keys: lkey/rkey = (MR index << 8) | tag; the card checks the whole key
 * and the access rights given at REG_MR and MODIFY_QP (enum scenic_access).
 * A memory window's rkey has bit 23 of the index set (RDMA.FEATURES.mw); it is
 * an rkey only, never an lkey.
 * Translations are kept per 4 KiB page of the MR's iova range in the on-card
 * TLB; the driver fills them (TLB_FILL), the card raises a TLB_MISS event
 * when one is missing.
 */
#ifndef SCENIC_RDMA_H
#define SCENIC_RDMA_H

#include <linux/types.h>

#define SCENIC_RDMA_PAGE_SHIFT		12	/* TLB page: 4 KiB */
#define SCENIC_RDMA_RSVD_QPS		2	/* QPN 0 and 1 are never allocated */
/*
 * READ/atomic requests in flight per QP, each end (max_rd_atomic and
 * max_dest_rd_atomic): the responder queues that many responses and keeps
 * that many atomic results for duplicates. 128, as rxe: at 16, 4 KiB READs
 * were bounded by 64 KiB per round trip.
 */
#define SCENIC_RDMA_MAX_RD_ATOMIC	128

/* ---- doorbell page offsets ---- */
#define SCENIC_DB_SQ		0x00	/* QP page: u32 SQ producer index */
#define SCENIC_DB_RQ		0x08	/* QP page: u32 RQ producer index */
#define SCENIC_DB_CQ_CI		0x00	/* CQ page: u32 consumer index */
#define SCENIC_DB_CQ_ARM	0x08	/* CQ page: u32 consumer index | flags below */
#define SCENIC_DB_SRQ		0x00	/* SRQ page: u32 producer index */
#define SCENIC_DB_CQ_ARM_SOLICITED	0x80000000u	/* notify on solicited/error only */
#define SCENIC_DB_CQ_CI_MASK		0x7fffffffu

/*
 * ---- SQ WQE: 512 bytes, 64-byte header then SGEs or inline data ----
 * The card reads the header, then only num_sge SGEs (or length inline
 * bytes). Cards without RDMA.FEATURES.rq_stride take at most
 * SCENIC_SQ_MAX_SGE_V0 SGEs and SCENIC_MAX_INLINE_V0 inline bytes.
 */
#define SCENIC_SQ_WQE_BYTES	512
#define SCENIC_SQ_MAX_SGE	28	/* (512 - 64) / 16 */
#define SCENIC_MAX_INLINE	448	/* 512 - 64 */
#define SCENIC_SQ_MAX_SGE_V0	16
#define SCENIC_MAX_INLINE_V0	256

enum scenic_wqe_opcode {
	SCENIC_WQE_OP_SEND = 0,
	SCENIC_WQE_OP_SEND_IMM = 1,
	SCENIC_WQE_OP_WRITE = 2,
	SCENIC_WQE_OP_WRITE_IMM = 3,
	SCENIC_WQE_OP_READ = 4,
	SCENIC_WQE_OP_ATOMIC_CAS = 5,
	SCENIC_WQE_OP_ATOMIC_FAA = 6,
	SCENIC_WQE_OP_SEND_INV = 7,	/* SEND with IETH: rkey names the MW to invalidate */
	SCENIC_WQE_OP_LOCAL_INV = 8,	/* rkey: the type 2 MW to invalidate; sends nothing */
	SCENIC_WQE_OP_BIND_MW = 9,	/* struct scenic_bind_mw_wqe; sends nothing */
};

#define SCENIC_WQE_F_SIGNALED	0x01	/* provider bookkeeping; the card ignores it */
#define SCENIC_WQE_F_FENCE	0x02	/* wait for earlier READ/atomic responses */
#define SCENIC_WQE_F_SOLICITED	0x04	/* set SE in the last packet */
#define SCENIC_WQE_F_INLINE	0x08	/* payload follows the header, len bytes */
#define SCENIC_WQE_F_AV_INLINE	0x10	/* reserved: kernel QPs' inline AV (not yet) */

/*
 * ---- address vector (RDMA.FEATURES.ud): 48 bytes ----
 * The bytes of an AH table entry, as CREATE_AH carries them at 0x10.
 */
#define SCENIC_AV_F_IPV4	0x80000000u	/* flow: GIDs IPv4-mapped, send IPv4 */
#define SCENIC_AV_FLOW_LABEL_MASK	0x000fffffu

struct scenic_av {
	__u8 dmac[6];		/* destination MAC, wire order */
	__u8 hop_limit;
	__u8 traffic_class;
	__le32 flow;		/* SCENIC_AV_F_IPV4 | flow label */
	__le32 reserved;
	__u8 dgid[16];		/* network order */
	__u8 sgid[16];		/* network order */
};

/*
 * A UD receive buffer starts with 40 bytes of GRH: the IPv6 header as
 * received, or (IPv4) 20 zero bytes then the IPv4 header as received.
 */
#define SCENIC_UD_GRH_BYTES	40

struct scenic_sge {
	__le64 addr;		/* virtual address in the MR */
	__le32 length;
	__le32 lkey;
};

/* A UD WQE's destination, in place of remote_addr */
struct scenic_ud_dest {
	__le32 qkey;		/* bit 31 set: the QP's own Q_Key */
	__le32 ah;		/* AH table index (CREATE_AH) */
};

struct scenic_sq_wqe {
	__u8 opcode;		/* enum scenic_wqe_opcode */
	__u8 flags;		/* SCENIC_WQE_F_* */
	__le16 num_sge;		/* 0 .. SCENIC_SQ_MAX_SGE; 0 with F_INLINE */
	__be32 imm_data_be;	/* SEND_IMM / WRITE_IMM, as on the wire */
	__le32 length;		/* total payload bytes (sum of SGEs, or inline) */
	union {
		__le32 rkey;	/* WRITE / READ / atomics */
		__le32 dest_qpn; /* UD: bits 23:0 */
	};
	union {
		__le64 remote_addr; /* WRITE / READ / atomics (8-byte aligned) */
		struct scenic_ud_dest ud; /* UD QPs: SEND / SEND_IMM only */
	};
	__le64 compare_add;	/* CAS compare value, or FAA addend */
	__le64 swap;		/* CAS swap value */
	__u8 reserved[24];	/* zero */
	union {
		struct scenic_sge sge[SCENIC_SQ_MAX_SGE];
		__u8 inline_data[SCENIC_MAX_INLINE];
	};
};

/*
 * BIND_MW (RDMA.FEATURES.mw): the 64-byte header of an SQ slot read as this.
 * Executes in SQ order when the card reaches it (with F_FENCE after earlier
 * READ/atomics completed); fails with SCENIC_CQE_STATUS_MW_BIND.
 */
struct scenic_bind_mw_wqe {
	__u8 opcode;		/* SCENIC_WQE_OP_BIND_MW */
	__u8 flags;		/* SCENIC_WQE_F_* */
	__le16 reserved0;
	__le32 reserved1;
	__le32 reserved2;
	__le32 new_rkey;	/* the MW's index with its new tag */
	__le64 va;		/* start of the window, inside the MR */
	__le64 length;		/* 0: type 1 unbound */
	__le32 mr_lkey;		/* the MR, with enum scenic_access mw_bind */
	__u8 access;		/* enum scenic_access: remote bits only */
	__u8 mw_type;		/* 1 or 2 */
	__u8 reserved[26];
};

/*
 * ---- RQ WQE: 64 << rq_stride bytes, chosen per QP at CREATE_QP ----
 * A 16-byte header, then (stride - 16) / 16 SGEs: 3, 7, 15 or 31. The card
 * reads the header, then only num_sge SGEs; num_sge above what the QP's
 * stride holds completes the WQE with a local QP operation error.
 */
#define SCENIC_RQ_WQE_BYTES	64	/* rq_stride 0, the only stride of V0 cards */
#define SCENIC_RQ_WQE_MAX_BYTES	512	/* rq_stride 3 */
#define SCENIC_RQ_MAX_STRIDE	3
#define SCENIC_RQ_WQE_HDR_BYTES	16
#define SCENIC_RQ_STRIDE_SGES(stride)	\
	((((__u32)SCENIC_RQ_WQE_BYTES << (stride)) - SCENIC_RQ_WQE_HDR_BYTES) / 16)
#define SCENIC_RQ_MAX_SGE_V0	3
#define SCENIC_RQ_MAX_SGE	31

struct scenic_rq_wqe {
	__le16 num_sge;		/* 0 .. SCENIC_RQ_STRIDE_SGES(the QP's rq_stride) */
	__u8 reserved[14];
	struct scenic_sge sge[SCENIC_RQ_MAX_SGE];	/* only the stride's first ones exist */
};

/* ---- CQE: 32 bytes ---- */
#define SCENIC_CQE_BYTES	32

enum scenic_cqe_opcode {
	SCENIC_CQE_OP_SEND = 0,		/* SQ: SEND / SEND_IMM */
	SCENIC_CQE_OP_WRITE = 1,	/* SQ: WRITE / WRITE_IMM */
	SCENIC_CQE_OP_READ = 2,
	SCENIC_CQE_OP_ATOMIC_CAS = 3,
	SCENIC_CQE_OP_ATOMIC_FAA = 4,
	SCENIC_CQE_OP_RECV = 5,		/* RQ: SEND / SEND_IMM received */
	SCENIC_CQE_OP_RECV_WRITE_IMM = 6, /* RQ: WRITE_IMM consumed a receive WQE */
	SCENIC_CQE_OP_BIND_MW = 7,	/* SQ: BIND_MW */
	SCENIC_CQE_OP_LOCAL_INV = 8,	/* SQ: LOCAL_INV */
	/*
	 * RESIZE_CQ (FEATURES.resize_cq): the last CQE of the old ring;
	 * byte_len = the new ring's entries. Later CQEs are in the new ring
	 * from index 0, phase 1; the consumer index restarts at 0.
	 */
	SCENIC_CQE_OP_RESIZE = 9,
};

/* CQE status: enum scenic_cqe_status (scenic_admin.h), the card's codes. */
#define SCENIC_CQE_F_OWNER	0x01	/* phase bit, see above */
#define SCENIC_CQE_F_SQ		0x02	/* send-queue completion (error or flush) */
#define SCENIC_CQE_F_IMM	0x04	/* imm_data_be valid */
#define SCENIC_CQE_F_SOLICITED	0x08
#define SCENIC_CQE_F_NET_IPV6	0x10	/* UD receive: the GRH is an IPv6 header */
#define SCENIC_CQE_F_SRQ	0x20	/* receive: the WQE came from the QP's SRQ */
#define SCENIC_CQE_F_INV	0x40	/* SEND_INV received: imm_data_be = the rkey, big endian */

struct scenic_cqe {
	__le32 wqe_idx;		/* free-running SQ or RQ index of the WQE */
	__le32 qpn;
	__le32 byte_len;	/* RQ: bytes received (WRITE_IMM: its length) */
	__be32 imm_data_be;
	__le32 src_qp;		/* RQ: the requester's QPN (UD: DETH source QP) */
	__u8 status;		/* enum scenic_cqe_status */
	__u8 opcode;		/* enum scenic_cqe_opcode */
	__u8 flags;		/* SCENIC_CQE_F_*; written last (with the owner bit) */
	__u8 syndrome;		/* NAK syndrome or internal reason, for debugging */
	__le32 vendor_err;
	__le32 reserved;
};

/* ---- per-QP status page (4 KiB, read-only to user space) ---- */
struct scenic_qp_status {
	__le64 sq_completed;	/* SQ WQEs completed successfully, free-running */
	__le32 state;		/* enum scenic_qp_state, written when the card changes it */
	__le32 db_skip;		/* SCENIC_QP_DB_SKIP_*: doorbells the card does not need */
	__le32 reserved[12];
};

/*
 * ---- doorbell records (QPs and CQs created with a record page) ----
 * The indices are also kept in host memory, where the card reads them when it
 * needs them, so that the fast path needs no doorbell write (each one is a
 * trap into the emulator, or a PCIe write on the card):
 *  - RQ: the card reads rq_pi when it has used every receive WQE it knew of.
 *    SCENIC_QP_DB_SKIP_RQ is set except in RESET and ERR (where the card must
 *    flush what is posted, so the doorbell is needed).
 *  - SQ: SCENIC_QP_DB_SKIP_SQ is set while the QP is in RTS with WQEs in
 *    flight: the card reads sq_pi again when their answers (ACK, NAK, READ or
 *    atomic response) or a retransmission timer come.
 *  - CQ: the card reads ci when the ring looks full, before it declares an
 *    overrun; the arm doorbell is still written.
 * The provider writes the record, then a full barrier, then reads db_skip and
 * rings the doorbell when the bit is clear; the card writes db_skip, then a
 * full barrier, then reads the record. One of the two sees the other, so a
 * posted WQE never waits for a doorbell that nobody writes.
 */
#define SCENIC_QP_DB_SKIP_SQ	0x1
#define SCENIC_QP_DB_SKIP_RQ	0x2

struct scenic_qp_dbrec {
	__le32 sq_pi;		/* as written to SCENIC_DB_SQ */
	__le32 rq_pi;		/* as written to SCENIC_DB_RQ */
};

/* SRQ: the card reads pi when the SRQ looks empty. */
struct scenic_srq_dbrec {
	__le32 pi;		/* as written to SCENIC_DB_SRQ */
	__le32 reserved;
};

struct scenic_cq_dbrec {
	__le32 ci;		/* as written to SCENIC_DB_CQ_CI */
	__le32 reserved;
};

#endif /* SCENIC_RDMA_H */
