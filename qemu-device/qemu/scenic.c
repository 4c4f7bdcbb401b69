/*
 * SCENIC FPGA SmartNIC: QEMU PCIe device
 *
 * Thin glue between QEMU and the SCENIC device model, a C++ library with no
 * QEMU dependency (see qemu-device/model and scenic/model.h). BAR0 MMIO,
 * the RDMA doorbell and SCU CSR BARs, bus-master DMA, MSI-X, FLR, the
 * Ethernet port (a QEMU NIC) and time are forwarded; the behaviour lives in
 * the model.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "qapi/error.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qom/object.h"

#include "scenic_regs.h"
#include "scenic/model.h"

#define TYPE_SCENIC "scenic"
OBJECT_DECLARE_SIMPLE_TYPE(ScenicState, SCENIC)

#define SCENIC_BAR0 0
#define SCENIC_PCIE_CAP_OFFSET 0x80

struct ScenicState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion db;
    MemoryRegion scu;
    NICState *nic;
    NICConf conf;
    QEMUTimer *timer;
    scenic_model *model;

    /* properties */
    bool msix;
    bool bad_block_version;
    uint32_t wire_drop_ppm;
    uint64_t wire_seed;
    char *rtl; /* blocks run as Verilated RTL: "all", "prefilter+icrc", ... */
    char *wire_faults;    /* fault-injecting wire rules (docs/fault-wire.md) */
    char *wire_fault_log; /* file every injected fault is appended to */
    bool fault_inject;    /* CORE.FAULT_INJECT honoured (recovery tests) */
    uint32_t scu_reconfig_us; /* SCU reconfiguration delay (SCU.RECONFIG_US) */
    bool sr_default;          /* new QPs offer selective repeat (docs/selective-repeat.md) */
};

/* Host side of the model */

static int scenic_host_dma_read(void *opaque, uint64_t addr, void *buf,
                                size_t len)
{
    ScenicState *s = opaque;

    return pci_dma_read(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static int scenic_host_dma_write(void *opaque, uint64_t addr, const void *buf,
                                 size_t len)
{
    ScenicState *s = opaque;

    return pci_dma_write(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static void scenic_host_msix_notify(void *opaque, unsigned vector)
{
    ScenicState *s = opaque;

    if (s->msix && vector < SCENIC_MSIX_VECTORS) {
        msix_notify(PCI_DEVICE(s), vector);
    }
}

static void scenic_host_eth_send(void *opaque, const void *frame, size_t len)
{
    ScenicState *s = opaque;

    qemu_send_packet(qemu_get_queue(s->nic), frame, len);
}

static uint64_t scenic_host_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void scenic_host_timer_schedule(void *opaque, uint64_t deadline_ns)
{
    ScenicState *s = opaque;

    timer_mod(s->timer,
              deadline_ns > INT64_MAX ? INT64_MAX : (int64_t)deadline_ns);
}

static void scenic_host_timer_cancel(void *opaque)
{
    ScenicState *s = opaque;

    timer_del(s->timer);
}

/*
 * The card's BARs where the guest mapped them: the model refuses DMA and
 * MSI-X messages that would land there (they would re-enter the device).
 */
static size_t scenic_host_bar_windows(void *opaque, uint64_t *base,
                                      uint64_t *size, size_t max)
{
    ScenicState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);
    const int bars[] = { SCENIC_BAR0, SCENIC_DB_BAR, SCENIC_MSIX_BAR,
                         SCENIC_SCU_BAR };
    size_t n = 0;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(bars) && n < max; i++) {
        pcibus_t addr = pci_get_bar_addr(pdev, bars[i]);

        if (addr == PCI_BAR_UNMAPPED || pdev->io_regions[bars[i]].size == 0) {
            continue;
        }
        base[n] = addr;
        size[n] = pdev->io_regions[bars[i]].size;
        n++;
    }
    return n;
}

static int scenic_host_msix_address(void *opaque, unsigned vector,
                                    uint64_t *addr)
{
    ScenicState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);

    if (!s->msix || vector >= SCENIC_MSIX_VECTORS || !msix_enabled(pdev)) {
        return -1;
    }
    *addr = msix_get_message(pdev, vector).address;
    return 0;
}

/*
 * QEMU guards MMIO dispatch and packet delivery against re-entry, not timer
 * callbacks: engage the device's guard here as well, so that anything the
 * model's timer work sends back into this device's regions is blocked by the
 * memory core (the model refuses nested calls too).
 */
static void scenic_timer_cb(void *opaque)
{
    ScenicState *s = opaque;
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    scenic_model_timer_fire(s->model);
    guard->engaged_in_io = engaged;
}

/* BAR0: all accesses go to the model (non-registers read 0, drop writes) */

static uint64_t scenic_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    ScenicState *s = opaque;

    return scenic_model_mmio_read(s->model, addr, size);
}

static void scenic_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                              unsigned size)
{
    ScenicState *s = opaque;

    scenic_model_mmio_write(s->model, addr, val, size);
}

/* Every access reaches the model, which decides what it means (BAR0 and BAR4) */
#define SCENIC_REGION_OPS(rd, wr) {                                        \
    .read = (rd),                                                          \
    .write = (wr),                                                         \
    .endianness = DEVICE_LITTLE_ENDIAN,                                    \
    .valid = { .min_access_size = 1, .max_access_size = 8, .unaligned = true }, \
    .impl = { .min_access_size = 1, .max_access_size = 8, .unaligned = true },  \
}

static const MemoryRegionOps scenic_mmio_ops =
    SCENIC_REGION_OPS(scenic_mmio_read, scenic_mmio_write);

/* Doorbell BAR: RDMA SQ/RQ/CQ doorbells, one page per QP and per CQ */

static uint64_t scenic_db_read(void *opaque, hwaddr addr, unsigned size)
{
    ScenicState *s = opaque;

    return scenic_model_db_read(s->model, addr, size);
}

static void scenic_db_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    ScenicState *s = opaque;

    scenic_model_db_write(s->model, addr, val, size);
}

static const MemoryRegionOps scenic_db_ops =
    SCENIC_REGION_OPS(scenic_db_read, scenic_db_write);

/*
 * SCU BAR: one 64 KiB window of 64-bit CSRs per slot (docs/scu.md 3); the
 * model answers 4- and 8-byte aligned accesses and refuses the rest.
 */

static uint64_t scenic_scu_read(void *opaque, hwaddr addr, unsigned size)
{
    ScenicState *s = opaque;

    return scenic_model_scu_read(s->model, addr, size);
}

static void scenic_scu_write(void *opaque, hwaddr addr, uint64_t val,
                             unsigned size)
{
    ScenicState *s = opaque;

    scenic_model_scu_write(s->model, addr, val, size);
}

static const MemoryRegionOps scenic_scu_ops =
    SCENIC_REGION_OPS(scenic_scu_read, scenic_scu_write);

/* Ethernet port */

static bool scenic_can_receive(NetClientState *nc)
{
    ScenicState *s = qemu_get_nic_opaque(nc);

    return scenic_model_can_receive(s->model);
}

static ssize_t scenic_receive(NetClientState *nc, const uint8_t *buf,
                              size_t size)
{
    ScenicState *s = qemu_get_nic_opaque(nc);

    return scenic_model_eth_rx(s->model, buf, size);
}

static void scenic_link_status_changed(NetClientState *nc)
{
    ScenicState *s = qemu_get_nic_opaque(nc);

    scenic_model_set_link(s->model, !nc->link_down);
}

static NetClientInfo scenic_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = scenic_can_receive,
    .receive = scenic_receive,
    .link_status_changed = scenic_link_status_changed,
};

/* PCI device */

static void scenic_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                                int len)
{
    pci_default_write_config(pdev, addr, val, len);
    if (pci_is_express(pdev)) {
        pcie_cap_flr_write_config(pdev, addr, val, len);
    }
}

static void scenic_realize(PCIDevice *pdev, Error **errp)
{
    ScenicState *s = SCENIC(pdev);
    DeviceState *dev = DEVICE(pdev);
    const scenic_host_ops ops = {
        .dma_read = scenic_host_dma_read,
        .dma_write = scenic_host_dma_write,
        .msix_notify = scenic_host_msix_notify,
        .eth_send = scenic_host_eth_send,
        .now_ns = scenic_host_now_ns,
        .timer_schedule = scenic_host_timer_schedule,
        .timer_cancel = scenic_host_timer_cancel,
        .opaque = s,
        .bar_windows = scenic_host_bar_windows,
        .msix_address = scenic_host_msix_address,
    };
    scenic_model_config cfg = {
        .msix_vectors = s->msix ? SCENIC_MSIX_VECTORS : 0,
        .bad_block_version = s->bad_block_version,
        .wire_drop_ppm = s->wire_drop_ppm,
        .wire_seed = s->wire_seed,
        .rtl_blocks = s->rtl,
        .wire_faults = s->wire_faults,
        .wire_fault_log = s->wire_fault_log,
        .fault_inject = s->fault_inject,
        .scu_reconfig_us = s->scu_reconfig_us,
        .sr_default = s->sr_default,
    };
    char err[256];
    int i;

    if (s->scu_reconfig_us < 1 || s->scu_reconfig_us > 10000000) {
        error_setg(errp, "scenic: scu-reconfig-us=%" PRIu32
                   " is outside 1..10000000", s->scu_reconfig_us);
        return;
    }
    if (scenic_model_rtl_check(s->rtl, err, sizeof(err)) != 0) {
        error_setg(errp, "scenic: rtl=%s: %s", s->rtl, err);
        return;
    }
    if (scenic_model_wire_faults_check(s->wire_faults, err,
                                       sizeof(err)) != 0) {
        error_setg(errp, "%s", err); /* names the rule and the key */
        return;
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    memcpy(cfg.mac, s->conf.macaddr.a, sizeof(cfg.mac));
    s->model = scenic_model_create(&cfg, &ops);
    if (!s->model) {
        error_setg(errp, "scenic: cannot create the device model");
        return;
    }

    pdev->config_write = scenic_write_config;

    memory_region_init_io(&s->mmio, OBJECT(s), &scenic_mmio_ops, s,
                          "scenic-mmio", SCENIC_BAR0_SIZE);
    pci_register_bar(pdev, SCENIC_BAR0,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->mmio);
    memory_region_init_io(&s->db, OBJECT(s), &scenic_db_ops, s,
                          "scenic-doorbells", scenic_model_db_size(s->model));
    pci_register_bar(pdev, SCENIC_DB_BAR,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->db);
    /* BAR3 is a 32-bit BAR: BAR2 (MSI-X) is 32-bit too, so slot 3 is free */
    memory_region_init_io(&s->scu, OBJECT(s), &scenic_scu_ops, s,
                          "scenic-scu-csr", scenic_model_scu_size(s->model));
    pci_register_bar(pdev, SCENIC_SCU_BAR,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_32, &s->scu);

    if (pci_is_express(pdev)) {
        if (pcie_endpoint_cap_init(pdev, SCENIC_PCIE_CAP_OFFSET) < 0) {
            error_setg(errp, "scenic: cannot add the PCI Express capability");
            goto err_model;
        }
        pcie_cap_flr_init(pdev);
    }

    if (s->msix) {
        if (msix_init_exclusive_bar(pdev, SCENIC_MSIX_VECTORS,
                                    SCENIC_MSIX_BAR, errp)) {
            goto err_pcie;
        }
        for (i = 0; i < SCENIC_MSIX_VECTORS; i++) {
            msix_vector_use(pdev, i);
        }
    }

    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, scenic_timer_cb, s);
    s->nic = qemu_new_nic(&scenic_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    scenic_model_set_link(s->model, !qemu_get_queue(s->nic)->link_down);
    return;

err_pcie:
    if (pci_is_express(pdev)) {
        pcie_cap_exit(pdev);
    }
err_model:
    scenic_model_destroy(s->model);
    s->model = NULL;
}

static void scenic_exit(PCIDevice *pdev)
{
    ScenicState *s = SCENIC(pdev);

    timer_free(s->timer);
    s->timer = NULL;
    qemu_del_nic(s->nic);
    if (s->msix) {
        msix_unuse_all_vectors(pdev);
        msix_uninit_exclusive_bar(pdev);
    }
    if (pci_is_express(pdev)) {
        pcie_cap_exit(pdev);
    }
    scenic_model_destroy(s->model);
    s->model = NULL;
}

/* Device reset; function-level reset (pcie_cap_flr_write_config) too */
static void scenic_qdev_reset(DeviceState *dev)
{
    ScenicState *s = SCENIC(dev);

    scenic_model_reset(s->model);
}

static const VMStateDescription scenic_vmstate = {
    .name = "scenic",
    .unmigratable = 1,
};

static Property scenic_properties[] = {
    DEFINE_NIC_PROPERTIES(ScenicState, conf),
    DEFINE_PROP_BOOL("msix", ScenicState, msix, true),
    DEFINE_PROP_BOOL("x-bad-block-version", ScenicState, bad_block_version,
                     false),
    /* loss injection on the wire: received frames dropped per million */
    DEFINE_PROP_UINT32("wire-drop-ppm", ScenicState, wire_drop_ppm, 0),
    DEFINE_PROP_UINT64("wire-seed", ScenicState, wire_seed, 1),
    /* co-simulation: blocks run as Verilated RTL ("all", "prefilter+icrc") */
    DEFINE_PROP_STRING("rtl", ScenicState, rtl),
    /* fault-injecting wire: "rx:drop:nth=3;tx:ecn:ppm=1000" (docs/fault-wire.md) */
    DEFINE_PROP_STRING("wire-faults", ScenicState, wire_faults),
    DEFINE_PROP_STRING("wire-fault-log", ScenicState, wire_fault_log),
    /* card faults on request (FAULT_INJECT, docs/recovery.md) */
    DEFINE_PROP_BOOL("fault-inject", ScenicState, fault_inject, false),
    /* selective repeat offered and answered by every new QP (docs/selective-repeat.md 8) */
    DEFINE_PROP_BOOL("sr-default", ScenicState, sr_default, false),
    /* SCU reconfiguration delay in microseconds (docs/scu.md 5) */
    DEFINE_PROP_UINT32("scu-reconfig-us", ScenicState, scu_reconfig_us,
                       SCENIC_SCU_RECONFIG_US_DEFAULT),
    DEFINE_PROP_END_OF_LIST(),
};

static void scenic_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = scenic_realize;
    k->exit = scenic_exit;
    k->vendor_id = SCENIC_PCI_VENDOR_ID;
    k->device_id = SCENIC_PCI_DEVICE_ID;
    k->subsystem_vendor_id = SCENIC_PCI_SUBSYS_VENDOR_ID;
    k->subsystem_id = SCENIC_PCI_SUBSYS_ID;
    k->revision = 0;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;

    dc->desc = "SCENIC FPGA SmartNIC (device model)";
    dc->reset = scenic_qdev_reset;
    dc->vmsd = &scenic_vmstate;
    device_class_set_props(dc, scenic_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo scenic_info = {
    .name = TYPE_SCENIC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(ScenicState),
    .class_init = scenic_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void scenic_register_types(void)
{
    type_register_static(&scenic_info);
}

type_init(scenic_register_types)
