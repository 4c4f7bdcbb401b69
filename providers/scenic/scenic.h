/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * SCENIC rdma-core provider: device, context, CQ and QP state.
 */
#ifndef __SCENIC_H__
#define __SCENIC_H__

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>

#include <infiniband/driver.h>

#include "ring.h"
#include "scenic-abi.h"

#define PCI_VENDOR_ID_XILINX 0x10ee
#define PCI_DEVICE_ID_SCENIC 0x5c01

struct scenic_dev {
	struct verbs_device vdev;
	uint32_t pg_sz;
};

struct scenic_context {
	struct verbs_context ibvctx;
	uint32_t cmds_supp_udata_mask;
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_inline_data;
	uint16_t num_scus;
	uint16_t default_scu;	/* SCU of QPs created without scenicdv */
	uint16_t sq_wqe_size;
	uint16_t rq_wqe_size;
	uint16_t cqe_size;
	uint32_t cnt_size;
	uint32_t device_caps;	/* enum scenic_query_device_caps */
	uint32_t pg_sz;
	bool qp_one_map;	/* create_qp takes COMP_MASK_ONE_MAP */
	bool rq_stride;		/* create_qp takes rq_wqe_size above 64 */
	bool ud;		/* UD QPs and user AHs */
	bool srq;		/* SRQs, QPs created with one */
};

/*
 * A shared receive queue (srq.c). The card takes WQEs in ring order, but
 * their CQEs reach many CQs and are polled in any order: a slot is reused
 * only once its CQE was polled (polled[slot]), so post_srq_recv fails with
 * ENOMEM while the slot at pi still waits for its completion.
 */
struct scenic_srq {
	struct ibv_srq ibv_srq;
	pthread_spinlock_t lock;	/* everything below */
	uint8_t *buf;		/* wqe_cnt slots of SCENIC_RQ_WQE_BYTES << stride */
	uint64_t *wr_id;	/* wqe_cnt entries */
	uint8_t *polled;	/* wqe_cnt flags: the slot may be posted again */
	uint32_t wqe_cnt;	/* power of two */
	uint32_t stride;
	uint32_t max_sge;
	uint32_t pi;		/* next slot to post, free-running */
	uint32_t srqn;
	void *ring_map;		/* the ring, then the dbrec page */
	size_t ring_map_size;
	struct scenic_srq_dbrec *dbrec;
	void *db_page;
	uint32_t db_off;
};

struct scenic_qp;

struct scenic_cq {
	struct verbs_cq verbs_cq;
	pthread_spinlock_t lock;	/* ring, the QP tables, the ex-poll state */
	struct scenic_cq_ring ring;
	void *ring_map;
	size_t ring_map_size;
	void *db_page;			/* the CQ's doorbell page */
	uint32_t db_off;		/* our doorbell group inside it */
	struct scenic_cq_dbrec *dbrec;	/* CI record, NULL: CI doorbell */
	uint32_t cqn;
	/* QPs whose send or receive queue completes here, indexed by QPN */
	struct scenic_qp **by_qpn;
	uint32_t by_qpn_cap;	/* entries in by_qpn, a power of two or 0 */
	unsigned int nqps;
	/* the QPs whose send queue completes here: the counters poll reads */
	struct scenic_qp **sq_qps;
	unsigned int n_sq_qps;
	unsigned int sq_qps_cap;
	unsigned int poll_next;	/* first QP of the next send-completion scan */
	/* ibv_cq_ex polling: the WC that start_poll/next_poll produced */
	struct ibv_wc cur_wc;
	/* resize_cq done, RESIZE CQE not polled yet: the ring that follows */
	bool resizing;
	bool resize_lost;	/* the new ring could not be mapped: poll fails */
	struct {
		void *ring_map;
		size_t ring_map_size;
		struct scenic_cq_dbrec *dbrec;
		uint32_t log2_cnt;
		uint32_t pg_sz;		/* of the dbrec mappings */
	} next;
};

struct scenic_qp {
	struct verbs_qp verbs_qp;
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	struct scenic_sq sq;
	struct scenic_rq rq;
	void *rings_map;	/* one map: SQ, RQ and dbrec; or NULL */
	size_t rings_map_size;
	void *sq_map;
	size_t sq_map_size;
	void *rq_map;
	size_t rq_map_size;
	void *db_page;
	uint32_t sq_db_off;
	uint32_t rq_db_off;
	void *cnt_page;
	const struct scenic_qp_status *status;	/* card-written, read-only */
	struct scenic_qp_dbrec *dbrec;	/* PI records, NULL: always ring */
	struct scenic_cq *send_cq;
	struct scenic_cq *recv_cq;
	struct scenic_srq *srq;		/* receives from it, no RQ; or NULL */
	/*
	 * Under send_cq->lock: sq.ci as the last counter scan left it, valid
	 * when the counter was equal to it, so that a poll skips a QP whose
	 * counter has not moved without taking its sq_lock. Any other change
	 * of sq.ci clears sq_seen_valid.
	 */
	uint32_t sq_seen;
	bool sq_seen_valid;
	/*
	 * Under the CQ's lock: after a reset to RESET, the CQEs the QP left in
	 * its CQ up to ring index end (free-running, exclusive) belong to the
	 * old incarnation and are dropped by poll (scenic_cq_forget_qp).
	 */
	struct scenic_stale {
		uint32_t end;
		bool valid;
	} send_stale, recv_stale;
	enum ibv_qp_state state;	/* as last set by modify_qp */
	uint16_t scu_index;
	/* ibv_wr_* between wr_start and wr_complete (sq_lock held) */
	int wr_err;
	uint32_t wr_start_pi;
	bool wr_open;			/* a WQE started, data not yet set */
};

/* One of the mappings a create response describes; NULL (errno set) if it fails. */
static inline void *scenic_map_or_null(size_t len, int prot, int fd, uint64_t key)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, key);

	return p == MAP_FAILED ? NULL : p;
}

static inline struct scenic_dev *to_scenic_dev(struct ibv_device *ibvdev)
{
	return container_of(ibvdev, struct scenic_dev, vdev.device);
}

static inline struct scenic_context *to_scenic_context(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct scenic_context, ibvctx.context);
}

static inline struct scenic_cq *to_scenic_cq(struct ibv_cq *ibvcq)
{
	return container_of(ibvcq, struct scenic_cq, verbs_cq.cq);
}

static inline struct scenic_cq *cq_ex_to_scenic_cq(struct ibv_cq_ex *ibvcqx)
{
	return container_of(ibvcqx, struct scenic_cq, verbs_cq.cq_ex);
}

static inline struct scenic_qp *to_scenic_qp(struct ibv_qp *ibvqp)
{
	return container_of(ibvqp, struct scenic_qp, verbs_qp.qp);
}

static inline struct scenic_srq *to_scenic_srq(struct ibv_srq *ibvsrq)
{
	return container_of(ibvsrq, struct scenic_srq, ibv_srq);
}

static inline struct scenic_qp *qp_ex_to_scenic_qp(struct ibv_qp_ex *ibvqpx)
{
	return container_of(ibvqpx, struct scenic_qp, verbs_qp.qp_ex);
}

bool is_scenic_dev(struct ibv_device *device);

/* cq.c: QPs register with their CQs so that poll_cq sees their counters. */
int scenic_cq_attach_qp(struct scenic_cq *cq, struct scenic_qp *qp);
void scenic_cq_detach_qp(struct scenic_cq *cq, struct scenic_qp *qp);
/*
 * cq_resize.c: the RESIZE CQE is at the ring's head (cq->lock held): switch
 * to the next ring (1), skip a RESIZE CQE nobody asked for (0), or -EIO if
 * the next ring was never mapped.
 */
int scenic_cq_cross_resize(struct scenic_cq *cq);
/*
 * After the QP went to RESET: its CQEs now in @cq are stale (IBA: a reset
 * QP's completions are gone); poll drops them. Scans up to a RESIZE CQE.
 */
void scenic_cq_forget_qp(struct scenic_cq *cq, struct scenic_qp *qp);
/* Unmaps a next ring a destroyed CQ never reached. */
void scenic_cq_unmap_next(struct scenic_cq *cq, uint32_t pg_sz);
/* QPNs a CQ's table covers: the card's are below max_qp (512). */
#define SCENIC_CQ_MAX_QPN (1u << 16)

/*
 * srq.c: the wr_id of the SRQ WQE at free-running index idx, whose CQE was
 * just polled, and its slot freed; false if idx is not a posted slot
 * awaiting its completion (the CQE is then dropped). With no locks held but
 * the CQ's.
 */
bool scenic_srq_complete(struct scenic_srq *srq, uint32_t idx,
			 uint64_t *wr_id);

/* qp.c / wr.c */
void scenic_qp_fill_wr_ops(struct scenic_qp *qp, uint64_t send_ops_flags);
uint64_t scenic_supported_send_ops(void);
void scenic_qp_ring_sq_db(struct scenic_qp *qp);
struct ibv_qp *scenic_create_qp_common(struct ibv_context *ibvctx,
				       struct ibv_qp_init_attr_ex *attr_ex,
				       uint16_t scu_index);

#endif /* __SCENIC_H__ */
