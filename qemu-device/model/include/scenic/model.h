/* SPDX-License-Identifier: MIT */
/*
 * C interface of the SCENIC device model, for the QEMU glue (qemu-device/qemu/scenic.c).
 *
 * The model is a C++ library with no QEMU dependency. This header is plain C so that QEMU's
 * C build can use it; no C++ exception ever crosses it (a failing call is logged and ignored,
 * scenic_model_create returns NULL).
 *
 * The host side (what the card is plugged into) is a table of C callbacks, the size of the
 * SimBricks device interface: DMA, MSI-X, Ethernet transmit and one timer.
 */
#ifndef SCENIC_MODEL_H
#define SCENIC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scenic_model scenic_model;

typedef struct scenic_host_ops {
    /* Read len bytes of host memory at bus address addr. Returns 0, or -1 if the access failed. */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
    /* Write len bytes to host memory at bus address addr. Returns 0, or -1 if it failed. */
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf, size_t len);
    /* Raise MSI-X vector `vector` (always < the configured msix_vectors). */
    void (*msix_notify)(void *opaque, unsigned vector);
    /* Put one Ethernet frame (no FCS) on the wire. */
    void (*eth_send)(void *opaque, const void *frame, size_t len);
    /* Current time in nanoseconds (guest virtual time in QEMU). */
    uint64_t (*now_ns)(void *opaque);
    /* Call scenic_model_timer_fire() at absolute time deadline_ns; replaces any earlier request. */
    void (*timer_schedule)(void *opaque, uint64_t deadline_ns);
    /* Forget the pending timer request, if any. */
    void (*timer_cancel)(void *opaque);
    void *opaque;
    /* Optional (NULL: unknown). Where the card's BARs are mapped in the bus address space now:
     * fills up to max windows (base, size) and returns how many. DMA and MSI-X messages that
     * overlap one are refused by the model (a DMA error), never sent into the card itself. */
    size_t (*bar_windows)(void *opaque, uint64_t *base, uint64_t *size, size_t max);
    /* Optional (NULL: unknown). The address MSI-X vector `vector` writes its message to: returns
     * 0 and sets *addr, or -1 if it is not known. */
    int (*msix_address)(void *opaque, unsigned vector, uint64_t *addr);
} scenic_host_ops;

typedef struct scenic_model_config {
    uint8_t mac[6];         /* station MAC address (ETH.MAC_LO/MAC_HI) */
    unsigned msix_vectors;  /* 0: card without MSI-X; at most SCENIC_MSIX_VECTORS */
    bool bad_block_version; /* ETH block reports major version 0x7f: drivers must refuse */
    uint32_t wire_drop_ppm; /* loss injection: received frames dropped per million (0: none) */
    uint64_t wire_seed;     /* seed of the loss injector's PRNG (replayable drops) */
    /* Blocks run as Verilated RTL instead of their C++ twins: "all", or a list separated by ','
     * or '+' ("prefilter+icrc"); NULL, "" or "none": none. An unknown name fails the creation. */
    const char *rtl_blocks;
    /* Fault-injecting wire rules (docs/fault-wire.md), e.g. "tx:drop:nth=3;rx:ecn:ppm=1000";
     * NULL or "": none. A malformed spec fails the creation (scenic_model_wire_faults_check). */
    const char *wire_faults;
    /* NULL or "": no log file; else every injected fault is appended there as one line. */
    const char *wire_fault_log;
    /* CORE.FAULT_INJECT is honoured (forced card fatal, admin-queue stall, AEQ stall, wrong
     * completion id: docs/admin-queue.md 2); false: it reads 0 and ignores writes. */
    bool fault_inject;
    /* SCU reconfiguration delay in microseconds (SCU.RECONFIG_US), 1..10000000; 0: the default
     * (8000, the paper's 8 ms). */
    uint32_t scu_reconfig_us;
    /* Selective repeat (docs/selective-repeat.md): new QPs offer and answer it; false: every QP
     * runs go-back-N as before (the per-QP attribute of the driver is not plumbed yet). */
    bool sr_default;
} scenic_model_config;

/* Checks an rtl_blocks list: returns 0 if every name is known, else -1 with a message naming the
 * unknown block and the known ones in err (err_len bytes, NUL-terminated). */
int scenic_model_rtl_check(const char *rtl_blocks, char *err, size_t err_len);

/* Checks a wire_faults spec: returns 0 if it is well formed, else -1 with a message naming the
 * bad rule and key in err (err_len bytes, NUL-terminated). */
int scenic_model_wire_faults_check(const char *wire_faults, char *err, size_t err_len);

/* Returns NULL if the configuration is invalid or on allocation failure. ops is copied. */
scenic_model *scenic_model_create(const scenic_model_config *cfg, const scenic_host_ops *ops);
void scenic_model_destroy(scenic_model *m);

/* BAR0 access. Any offset and size is accepted: only naturally aligned 4-byte accesses reach a
 * register, everything else reads 0 and writes are ignored. */
uint64_t scenic_model_mmio_read(scenic_model *m, uint64_t offset, unsigned size);
void scenic_model_mmio_write(scenic_model *m, uint64_t offset, uint64_t value, unsigned size);

/* The RDMA doorbell BAR (SCENIC_DB_BAR): scenic_model_db_size() bytes, one SCENIC_DB_PAGE_SIZE
 * page per QP then one per CQ (uapi/scenic_rdma.h). Reads return 0; 4- and 8-byte writes at the
 * SCENIC_DB_* offsets ring a doorbell, anything else is ignored and counted. */
uint64_t scenic_model_db_size(scenic_model *m);
uint64_t scenic_model_db_read(scenic_model *m, uint64_t offset, unsigned size);
void scenic_model_db_write(scenic_model *m, uint64_t offset, uint64_t value, unsigned size);

/* The SCU CSR BAR (SCENIC_SCU_BAR): scenic_model_scu_size() bytes, one 64 KiB window of 64-bit
 * registers per slot (docs/scu.md 3). 8-byte and 4-byte naturally aligned accesses reach the
 * slot's SCU (all-ones while it reconfigures); slot 0 and windows past NUM_SLOTS read 0; other
 * sizes and offsets read all-ones and ignore writes. */
uint64_t scenic_model_scu_size(scenic_model *m);
uint64_t scenic_model_scu_read(scenic_model *m, uint64_t offset, unsigned size);
void scenic_model_scu_write(scenic_model *m, uint64_t offset, uint64_t value, unsigned size);

/* Every call below that arrives while the model is already running (the card's own DMA or
 * MSI-X routed back into it, a frame looped back from the wire) is not executed nested: MMIO,
 * doorbells, frames and link changes are refused, a reset and a timer that fires are deferred
 * until the outer call returns. */

/* Device (function-level) reset: every register back to its reset value. */
void scenic_model_reset(scenic_model *m);

/* A frame arrived from the wire. Returns the number of bytes consumed (len: taken or dropped). */
size_t scenic_model_eth_rx(scenic_model *m, const void *frame, size_t len);
bool scenic_model_can_receive(scenic_model *m);
void scenic_model_set_link(scenic_model *m, bool up);

/* The timer requested through timer_schedule expired. */
void scenic_model_timer_fire(scenic_model *m);

/* Containment counters: calls refused because the model was running (re-entry), and DMA
 * accesses / MSI-X messages refused because they landed on the card's own BARs. */
uint64_t scenic_model_reentries(scenic_model *m);
uint64_t scenic_model_self_accesses_refused(scenic_model *m);

#ifdef __cplusplus
}
#endif

#endif /* SCENIC_MODEL_H */
