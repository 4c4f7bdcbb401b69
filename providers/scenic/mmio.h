/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Ordering between host memory the card reads (WQEs), the card's writes we
 * read (CQEs, the status page) and the doorbell registers. Our own fences
 * (the out-of-tree build has no rdma-core util/udma_barrier.h).
 */
#ifndef __SCENIC_MMIO_H__
#define __SCENIC_MMIO_H__

#include <stdint.h>

/*
 * WQE stores must reach memory before the doorbell store that tells the card
 * to read them. The SQ ring may be mapped write-combining, whose stores x86
 * only orders with sfence.
 */
static inline void scenic_wmb_before_doorbell(void)
{
#if defined(__x86_64__) || defined(__i386__)
	asm volatile("sfence" ::: "memory");
#elif defined(__aarch64__)
	asm volatile("dmb oshst" ::: "memory");
#else
	__sync_synchronize();
#endif
}

/*
 * After seeing a CQE's owner bit (or a new counter value), the rest of what
 * the card wrote before it must not be read from an older snapshot.
 */
static inline void scenic_rmb_after_valid(void)
{
#if defined(__x86_64__) || defined(__i386__)
	asm volatile("" ::: "memory");	/* x86 does not reorder loads */
#elif defined(__aarch64__)
	asm volatile("dmb oshld" ::: "memory");
#else
	__sync_synchronize();
#endif
}

/*
 * Between a doorbell-record store and the read of the status page's db_skip:
 * a store-load barrier (uapi/scenic_rdma.h, "doorbell records").
 */
static inline void scenic_mb_before_skip_check(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* A doorbell record store: after every store the card is to see with it. */
static inline void scenic_dbrec_write32(uint32_t *rec, uint32_t val)
{
	__atomic_store_n(rec, val, __ATOMIC_RELEASE);
}

/* One 32-bit store to a doorbell register (uncached mapping). */
static inline void scenic_mmio_write32(void *addr, uint32_t val)
{
	*(volatile uint32_t *)addr = val;
}

#endif /* __SCENIC_MMIO_H__ */
