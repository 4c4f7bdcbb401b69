// SPDX-License-Identifier: MIT
// The card side of the SCU platform (docs/scu.md 3, 4.4): BAR3's CSR windows, the per-slot
// interrupt registers and MSI-X vectors 16 + n, the passthrough's IRQ_RAISE CSR, the
// scu_reconfig_us property, and the admin commands SCU_RESET, SCU_QUERY_CAPS,
// SCU_SET_STATUS_PAGE and SCU_FLUSH_STATS with the status page the card DMAs. Hostile input:
// bad slots, offsets beyond a window or the BAR, masked lines, pages over the card's BARs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "containment_card.hpp"
#include "scenic/model.h"
#include "scenic/scu_aes_ctr.hpp"
#include "scenic/scu_hash_partition.hpp"
#include "scenic/scu_passthrough.hpp"
#include "scenic/scu_xor.hpp"
#include "scu_rig.hpp"

namespace scenic::test {
namespace {

using admin::AqOpcode;
using admin::AqStatus;
using admin::ScuStatus;
using scu::Passthrough;

constexpr uint64_t kWin = scu::kCsrWindowBytes;
constexpr uint64_t kPage = FakeHost::kBase + 0x30000;
constexpr uint64_t kCapsPage = FakeHost::kBase + 0x31000;

uint64_t csr(unsigned slot, uint32_t index) { return slot * kWin + 8 * uint64_t{index}; }
uint32_t scu_reg(uint32_t off) { return regs::scu::kOffset + off; }
uint32_t per_slot(uint32_t reg, unsigned n) {
    return scu_reg(reg + n * regs::scu::kSlotStateStride);
}

class ScuPlatform : public ::testing::Test {
  protected:
    scu::SlotManager& mgr() { return c.dev.scu().slots(); }
    uint32_t rd(uint32_t off) { return static_cast<uint32_t>(c.dev.mmio_read(off, 4)); }
    void wr(uint32_t off, uint32_t v) { c.dev.mmio_write(off, v, 4); }
    std::vector<unsigned> slot_vectors() const {
        std::vector<unsigned> v;
        for (unsigned i : c.host.irqs) {
            if (i >= regs::kVecScu) {
                v.push_back(i);
            }
        }
        return v;
    }
    CmdResult slot_cmd(AqOpcode op, unsigned slot, uint64_t addr = 0, AqResult* out = nullptr) {
        Sqe e = sqe(op);
        e[8] = static_cast<uint8_t>(slot);
        for (unsigned i = 0; i < 8; ++i) {
            e[0x10 + i] = static_cast<uint8_t>(addr >> (8 * i));
        }
        return c.aq.exec(e, out);
    }
    uint64_t le64(uint64_t addr) {
        uint64_t v = 0;
        std::memcpy(&v, &c.host.mem[addr - FakeHost::kBase], 8);
        return v;
    }
    admin::ScuStatusPage<const uint8_t> page() {
        return admin::ScuStatusPage<const uint8_t>(
            std::span<const uint8_t, 512>(&c.host.mem[kPage - FakeHost::kBase], 512));
    }
    void load_slot(unsigned slot) {
        const std::vector<uint8_t> payload(64, 0x11);
        ASSERT_EQ(mgr().load(slot, make_scu_image(scu::kKindPassthrough, 1, payload)),
                  ScuStatus::kOk);
    }

    Card c;
};

// ---- BAR3 ----

TEST_F(ScuPlatform, Bar3RoutesEachWindowToItsSlot) {
    EXPECT_EQ(Device::scu_bar_size(), 16 * kWin);
    EXPECT_EQ(c.dev.scu_read(csr(3, Passthrough::kId), 8), Passthrough::kIdValue);
    c.dev.scu_write(csr(3, Passthrough::kScratch), 0x1122334455667788ULL, 8);
    c.dev.scu_write(csr(4, Passthrough::kScratch), 0xabcd, 8);
    EXPECT_EQ(c.dev.scu_read(csr(3, Passthrough::kScratch), 8), 0x1122334455667788ULL);
    EXPECT_EQ(c.dev.scu_read(csr(4, Passthrough::kScratch), 8), 0xabcdu);  // its own window
    // 32-bit halves.
    EXPECT_EQ(c.dev.scu_read(csr(3, Passthrough::kScratch), 4), 0x55667788u);
    EXPECT_EQ(c.dev.scu_read(csr(3, Passthrough::kScratch) + 4, 4), 0x11223344u);
    c.dev.scu_write(csr(3, Passthrough::kScratch) + 4, 0xdeadbeef, 4);
    EXPECT_EQ(c.dev.scu_read(csr(3, Passthrough::kScratch), 8), 0xdeadbeef55667788ULL);
    // The last register of a window is the SCU's; the next byte is the next slot's.
    EXPECT_EQ(c.dev.scu_read(csr(15, scu::kCsrRegs - 1), 8), 0u);
    EXPECT_EQ(c.dev.scu_read(csr(15, Passthrough::kId), 8), Passthrough::kIdValue);
}

TEST_F(ScuPlatform, Bar3RefusesSlotZeroOutsideAndOddAccesses) {
    // Slot 0 is fixed and never owned: 0, and writes cannot throttle the default path.
    EXPECT_EQ(c.dev.scu_read(csr(0, Passthrough::kId), 8), 0u);
    c.dev.scu_write(csr(0, Passthrough::kRateBps), 1000, 8);
    EXPECT_EQ(mgr().slot(0).csr_read(Passthrough::kRateBps), 0u);
    // Past the BAR (QEMU never sends it; the model must not care).
    EXPECT_EQ(c.dev.scu_read(16 * kWin, 8), 0u);
    EXPECT_EQ(c.dev.scu_read(~uint64_t{0} - 7, 8), 0u);
    c.dev.scu_write(~uint64_t{0} - 7, 1, 8);
    // Misaligned and odd sizes: all-ones, writes dropped.
    c.dev.scu_write(csr(2, Passthrough::kScratch), 7, 8);
    EXPECT_EQ(c.dev.scu_read(csr(2, Passthrough::kScratch) + 2, 4), 0xffffffffu);
    EXPECT_EQ(c.dev.scu_read(csr(2, Passthrough::kScratch), 2), 0xffffu);
    EXPECT_EQ(c.dev.scu_read(csr(2, Passthrough::kScratch), 1), 0xffu);
    c.dev.scu_write(csr(2, Passthrough::kScratch) + 1, 0xff, 1);
    c.dev.scu_write(csr(2, Passthrough::kScratch) + 4, 0xff, 8);
    EXPECT_EQ(c.dev.scu_read(csr(2, Passthrough::kScratch), 8), 7u);
}

TEST_F(ScuPlatform, Bar3ReadsAllOnesWhileLoading) {
    load_slot(6);
    EXPECT_EQ(c.dev.scu_read(csr(6, Passthrough::kId), 8), ~uint64_t{0});
    EXPECT_EQ(c.dev.scu_read(csr(6, Passthrough::kId), 4), 0xffffffffu);
    c.dev.scu_write(csr(6, Passthrough::kScratch), 5, 8);                           // dropped
    EXPECT_EQ(c.dev.scu_read(csr(7, Passthrough::kId), 8), Passthrough::kIdValue);  // others run
    c.host.run_for(c.dev, uint64_t{regs::scu::kReconfigUsDefault} * 1000);
    EXPECT_EQ(c.dev.scu_read(csr(6, Passthrough::kId), 8), Passthrough::kIdValue);
    EXPECT_EQ(c.dev.scu_read(csr(6, Passthrough::kScratch), 8), 0u);
}

TEST(ScuPlatformSlots, UnusedWindowsReadZero) {
    FakeHost host;
    EventQueue events(host);
    FakeCardMemory mem;
    scu::SlotManager m({4, 1000, 1U << 20, 0x00010000},
                       {host, events, mem, nullptr, nullptr, nullptr, nullptr});
    EXPECT_EQ(m.csr_window_read(csr(3, Passthrough::kId), 8), Passthrough::kIdValue);
    EXPECT_EQ(m.csr_window_read(csr(4, Passthrough::kId), 8), 0u);
    EXPECT_EQ(m.csr_window_read(csr(15, Passthrough::kId), 4), 0u);
    m.csr_window_write(csr(4, Passthrough::kScratch), 1, 8);  // ignored, nothing to crash
}

// ---- interrupts ----

TEST_F(ScuPlatform, IrqRegistersAndVectors) {
    EXPECT_EQ(rd(scu_reg(regs::scu::kIrqLines)), 4u);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotKind, 5)), scu::kKindPassthrough);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotState, 5)), 0u);
    // A line raised through the passthrough's IRQ_RAISE: vector 16 + 5, status latched.
    c.dev.scu_write(csr(5, Passthrough::kIrqRaise), 0x2, 8);
    EXPECT_EQ(slot_vectors(), std::vector<unsigned>{regs::kVecScu + 5});
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqStatus, 5)), 0x2u);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqStatus, 4)), 0u);  // only its slot
    // More lines while one is pending: no new message (the handler reads them all).
    c.dev.scu_write(csr(5, Passthrough::kIrqRaise), 0x6, 8);
    EXPECT_EQ(slot_vectors().size(), 1u);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqStatus, 5)), 0x6u);
    // Clearing a part leaves an unmasked line pending: the vector fires again (no lost line).
    wr(per_slot(regs::scu::kSlotIrqStatus, 5), 0x2);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqStatus, 5)), 0x4u);
    EXPECT_EQ(slot_vectors().size(), 2u);
    wr(per_slot(regs::scu::kSlotIrqStatus, 5), 0xffffffff);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqStatus, 5)), 0u);
    EXPECT_EQ(slot_vectors().size(), 2u);
    // A 32-bit write of IRQ_RAISE's upper half raises nothing.
    c.dev.scu_write(csr(5, Passthrough::kIrqRaise) + 4, 0xf, 4);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqStatus, 5)), 0u);
    EXPECT_EQ(c.dev.scu_read(csr(5, Passthrough::kIrqRaise), 8), 0u);  // write-only
}

TEST_F(ScuPlatform, MaskedLinesLatchAndFireOnUnmask) {
    wr(per_slot(regs::scu::kSlotIrqMask, 9), 0xffffffff);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqMask, 9)), 0xfu);  // 4 lines
    c.dev.scu_write(csr(9, Passthrough::kIrqRaise), 0x1, 8);
    EXPECT_TRUE(slot_vectors().empty());
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqStatus, 9)), 0x1u);
    wr(per_slot(regs::scu::kSlotIrqMask, 9), 0xe);  // line 1..3 masked, line 0 free
    EXPECT_EQ(slot_vectors(), std::vector<unsigned>{regs::kVecScu + 9});
    wr(per_slot(regs::scu::kSlotIrqMask, 9), 0x0);  // already pending: no second message
    EXPECT_EQ(slot_vectors().size(), 1u);
    // IRQ_EVERY through the wrapper: line 0 every 2 packets.
    wr(per_slot(regs::scu::kSlotIrqStatus, 9), 0xf);
    c.dev.scu_write(csr(9, Passthrough::kIrqEvery), 2, 8);
    for (uint32_t i = 0; i < 2; ++i) {
        scu::Meta m;
        m.qpn = 3;
        m.psn = i;
        ASSERT_TRUE(mgr().submit(9, scu::Dir::kRx, m, std::vector<uint8_t>(64)));
    }
    EXPECT_EQ(slot_vectors().size(), 2u);
}

TEST_F(ScuPlatform, PerSlotRegistersOutOfRangeAndReset) {
    // Between the arrays and past slot 15: nothing there.
    EXPECT_EQ(rd(scu_reg(regs::scu::kSlotState + 16 * regs::scu::kSlotStateStride)), 0u);
    wr(scu_reg(regs::scu::kSlotIrqMask + 16 * regs::scu::kSlotStateStride), 0xf);
    load_slot(2);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotState, 2)),
              static_cast<uint32_t>(admin::ScuSlotState::kLoading));
    wr(per_slot(regs::scu::kSlotIrqMask, 3), 0x3);
    c.dev.scu_write(csr(3, Passthrough::kIrqRaise), 0x1, 8);
    c.dev.reset();
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotState, 2)), 0u);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqMask, 3)), 0u);
    EXPECT_EQ(rd(per_slot(regs::scu::kSlotIrqStatus, 3)), 0u);
}

TEST(ScuPlatformIrq, NoVectorWithoutEnoughMsix) {
    FakeHost host;
    Config cfg;
    cfg.msix_vectors = regs::kVecScu + 2;  // slots 0 and 1 only
    Device dev(cfg, host);
    dev.scu_write(csr(1, Passthrough::kIrqRaise), 1, 8);
    dev.scu_write(csr(2, Passthrough::kIrqRaise), 1, 8);
    EXPECT_EQ(host.irqs, std::vector<unsigned>{regs::kVecScu + 1});
    EXPECT_EQ(dev.mmio_read(per_slot(regs::scu::kSlotIrqStatus, 2), 4), 1u);  // still latched
    dev.scu_write(csr(3, Passthrough::kIrqRaise), 1U << 4, 8);                // no line 4
    EXPECT_EQ(dev.mmio_read(per_slot(regs::scu::kSlotIrqStatus, 3), 4), 0u);
}

// ---- scu-reconfig-us ----

TEST(ScuPlatformConfig, ReconfigDelayIsADeviceProperty) {
    FakeHost host;
    Config cfg;
    cfg.scu_reconfig_us = 100;
    Device dev(cfg, host);
    EXPECT_EQ(dev.mmio_read(scu_reg(regs::scu::kReconfigUs), 4), 100u);
    const std::vector<uint8_t> payload(16, 1);
    ASSERT_EQ(dev.scu().slots().load(1, make_scu_image(scu::kKindPassthrough, 1, payload)),
              ScuStatus::kOk);
    host.run_for(dev, 99'000);
    EXPECT_EQ(dev.mmio_read(per_slot(regs::scu::kSlotState, 1), 4), 2u);
    host.run_for(dev, 1'000);
    EXPECT_EQ(dev.mmio_read(per_slot(regs::scu::kSlotState, 1), 4), 0u);

    cfg.scu_reconfig_us = 0;
    EXPECT_THROW(Device(cfg, host), std::invalid_argument);
    cfg.scu_reconfig_us = Config::kMaxScuReconfigUs + 1;
    EXPECT_THROW(Device(cfg, host), std::invalid_argument);
}

TEST(ScuPlatformConfig, CApiDefaultsAndBar3) {
    scenic_host_ops ops{};
    scenic_model_config cfg{};
    cfg.msix_vectors = 32;
    scenic_model* m = scenic_model_create(&cfg, &ops);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(scenic_model_mmio_read(m, scu_reg(regs::scu::kReconfigUs), 4),
              regs::scu::kReconfigUsDefault);
    EXPECT_EQ(scenic_model_scu_size(m), regs::kScuBarSize);
    EXPECT_EQ(scenic_model_scu_read(m, csr(1, Passthrough::kId), 8), Passthrough::kIdValue);
    scenic_model_scu_write(m, csr(1, Passthrough::kScratch), 99, 8);
    EXPECT_EQ(scenic_model_scu_read(m, csr(1, Passthrough::kScratch), 8), 99u);
    scenic_model_destroy(m);
    cfg.scu_reconfig_us = 20'000'000;
    EXPECT_EQ(scenic_model_create(&cfg, &ops), nullptr);
    EXPECT_EQ(scenic_model_scu_read(nullptr, 0, 8), 0u);
}

// ---- admin commands ----

TEST_F(ScuPlatform, ScuResetPulsesTheSlot) {
    c.dev.scu_write(csr(4, Passthrough::kScratch), 42, 8);
    c.dev.scu_write(csr(4, Passthrough::kRateBps), 1000, 8);
    ASSERT_TRUE(slot_cmd(AqOpcode::kScuReset, 4).ok());
    EXPECT_EQ(c.dev.scu_read(csr(4, Passthrough::kScratch), 8), 0u);
    EXPECT_EQ(c.dev.scu_read(csr(4, Passthrough::kRateBps), 8), 0u);

    const uint64_t refused = mgr().refused(AqStatus::kBadIndex);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuReset, 0).status, AqStatus::kBadIndex);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuReset, 16).status, AqStatus::kBadIndex);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuReset, 255).status, AqStatus::kBadIndex);
    EXPECT_EQ(mgr().refused(AqStatus::kBadIndex), refused + 3);
    load_slot(4);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuReset, 4).status, AqStatus::kBusy);
    EXPECT_EQ(mgr().query(4)->last_refusal, ScuStatus::kBusy);
}

TEST_F(ScuPlatform, QueryCapsWritesTheKindCatalogue) {
    std::fill_n(&c.host.mem[kCapsPage - FakeHost::kBase], 4096, 0xee);
    AqResult res{};
    ASSERT_TRUE(slot_cmd(AqOpcode::kScuQueryCaps, 0, kCapsPage, &res).ok());
    const admin::AcqScuQueryCaps<const uint8_t> r(std::span<const uint8_t, kAqCqeBytes>{res});
    EXPECT_EQ(r.num_slots(), 16u);
    EXPECT_EQ(r.irq_lines(), 4u);
    EXPECT_EQ(r.kinds(), 4u);  // the passthrough, aes-ctr, hash-partition and the XOR test kind
    EXPECT_EQ(r.iface_version(), regs::scu::kIfaceVersionDefault);
    EXPECT_EQ(r.max_image(), regs::scu::kMaxImageDefault);
    EXPECT_EQ(r.reconfig_us(), regs::scu::kReconfigUsDefault);
    EXPECT_EQ(r.csr_window(), regs::scu::kCsrWindowDefault);
    const admin::ScuCapsKind<const uint8_t> k(
        std::span<const uint8_t, 48>(&c.host.mem[kCapsPage - FakeHost::kBase], 48));
    EXPECT_EQ(k.kind(), scu::kKindPassthrough);
    EXPECT_EQ(k.kind_version(), 1u);
    std::string name;
    for (size_t i = 0; i < 32 && k.name(i) != 0; ++i) {
        name += static_cast<char>(k.name(i));
    }
    EXPECT_EQ(name, "passthrough");
    const admin::ScuCapsKind<const uint8_t> a(
        std::span<const uint8_t, 48>(&c.host.mem[kCapsPage - FakeHost::kBase + 48], 48));
    EXPECT_EQ(a.kind(), scu::kKindAesCtr);
    EXPECT_EQ(a.kind_version(), 1u);
    name.clear();
    for (size_t i = 0; i < 32 && a.name(i) != 0; ++i) {
        name += static_cast<char>(a.name(i));
    }
    EXPECT_EQ(name, "aes128-ctr");
    const admin::ScuCapsKind<const uint8_t> h(
        std::span<const uint8_t, 48>(&c.host.mem[kCapsPage - FakeHost::kBase + 96], 48));
    EXPECT_EQ(h.kind(), scu::kKindHashPartition);
    EXPECT_EQ(h.kind_version(), 1u);
    name.clear();
    for (size_t i = 0; i < 32 && h.name(i) != 0; ++i) {
        name += static_cast<char>(h.name(i));
    }
    EXPECT_EQ(name, "hash-partition");
    const admin::ScuCapsKind<const uint8_t> x(
        std::span<const uint8_t, 48>(&c.host.mem[kCapsPage - FakeHost::kBase + 144], 48));
    EXPECT_EQ(x.kind(), scu::kKindXorTest);
    EXPECT_EQ(x.kind_version(), 1u);
    name.clear();
    for (size_t i = 0; i < 32 && x.name(i) != 0; ++i) {
        name += static_cast<char>(x.name(i));
    }
    EXPECT_EQ(name, "xor-test");
    // The rest is zeroed.
    EXPECT_TRUE(std::all_of(&c.host.mem[kCapsPage - FakeHost::kBase + 192],
                            &c.host.mem[kCapsPage - FakeHost::kBase + 4096],
                            [](uint8_t b) { return b == 0; }));

    EXPECT_EQ(slot_cmd(AqOpcode::kScuQueryCaps, 0, 0).status, AqStatus::kBadArg);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuQueryCaps, 0, kCapsPage + 8).status, AqStatus::kBadArg);
    // Over the card's own BARs: refused like any failed DMA, never written into the card.
    EXPECT_EQ(slot_cmd(AqOpcode::kScuQueryCaps, 0, c.host.bar0_base).status, AqStatus::kDmaError);
    c.host.route = &c.dev;
    EXPECT_EQ(slot_cmd(AqOpcode::kScuQueryCaps, 0, c.host.scu_base).status, AqStatus::kDmaError);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuQueryCaps, 0, c.host.scu_base + 0x30000).status,
              AqStatus::kDmaError);
}

TEST_F(ScuPlatform, StatusPageWrittenUnderSeq) {
    std::fill_n(&c.host.mem[kPage - FakeHost::kBase], 4096, 0xee);
    std::vector<std::pair<uint64_t, size_t>> writes;  // (first 8 bytes, length) per DMA there
    c.host.on_dma_write = [&](uint64_t addr, std::span<const uint8_t> src) {
        if (addr >= kPage && addr < kPage + 4096) {
            uint64_t v = 0;
            std::memcpy(&v, src.data(), std::min<size_t>(8, src.size()));
            writes.emplace_back(addr == kPage ? v : ~uint64_t{0}, src.size());
        }
    };
    ASSERT_TRUE(slot_cmd(AqOpcode::kScuSetStatusPage, 3, kPage).ok());
    ASSERT_EQ(writes.size(), 3u);
    EXPECT_EQ(writes[0], (std::pair<uint64_t, size_t>{1, 8}));  // odd first
    EXPECT_EQ(writes[1].second, 4096u - 8);                     // the whole page once
    EXPECT_EQ(writes[2], (std::pair<uint64_t, size_t>{2, 8}));  // even when done
    EXPECT_EQ(page().seq(), 2u);
    EXPECT_EQ(page().state(), 0u);
    EXPECT_EQ(page().kind(), scu::kKindPassthrough);
    EXPECT_EQ(page().counters(0), 0u);
    EXPECT_EQ(c.host.mem[kPage - FakeHost::kBase + 4095], 0u);

    for (uint32_t i = 0; i < 5; ++i) {
        scu::Meta m;
        m.psn = i;
        ASSERT_TRUE(mgr().submit(3, scu::Dir::kTx, m, std::vector<uint8_t>(100)));
    }
    c.dev.scu_write(csr(3, Passthrough::kIrqRaise), 1, 8);
    writes.clear();
    ASSERT_TRUE(slot_cmd(AqOpcode::kScuFlushStats, 3).ok());
    ASSERT_EQ(writes.size(), 3u);
    EXPECT_EQ(writes[1].second, 512u - 8);  // the counters, not the whole page
    EXPECT_EQ(page().seq(), 4u);
    EXPECT_EQ(page().counters(4), 5u);    // tx_pkts_in
    EXPECT_EQ(page().counters(5), 500u);  // tx_bytes_in
    EXPECT_EQ(page().counters(6), 5u);    // tx_pkts_out
    EXPECT_EQ(page().counters(0), 0u);    // rx_pkts_in
    EXPECT_EQ(page().counters(18), 1u);   // irqs

    // Every millisecond without being asked; nothing for slots without a page.
    c.host.run_for(c.dev, scu::SlotManager::kStatusPeriodNs);
    EXPECT_EQ(page().seq(), 6u);
    // Cleared: no more writes.
    ASSERT_TRUE(slot_cmd(AqOpcode::kScuSetStatusPage, 3, 0).ok());
    writes.clear();
    c.host.run_for(c.dev, 3 * scu::SlotManager::kStatusPeriodNs);
    EXPECT_TRUE(writes.empty());
    EXPECT_EQ(slot_cmd(AqOpcode::kScuFlushStats, 3).status, AqStatus::kBadArg);
    EXPECT_EQ(mgr().query(3)->last_refusal, ScuStatus::kBadAddr);
}

TEST_F(ScuPlatform, StatusPageRefusals) {
    const uint64_t bad_arg = mgr().refused(AqStatus::kBadArg);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuSetStatusPage, 16, kPage).status, AqStatus::kBadIndex);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuFlushStats, 200).status, AqStatus::kBadIndex);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuSetStatusPage, 1, kPage + 0x800).status, AqStatus::kBadArg);
    EXPECT_EQ(mgr().query(1)->last_refusal, ScuStatus::kBadAddr);
    EXPECT_EQ(mgr().refused(AqStatus::kBadArg), bad_arg + 1);
    // Over BAR0, the doorbells or BAR3 itself: DMA_ERROR, and the old page stays. The host
    // routes such DMA into the card, as QEMU's memory core would: only the card's refusal
    // (bar_windows) stops it.
    c.host.route = &c.dev;
    ASSERT_TRUE(slot_cmd(AqOpcode::kScuSetStatusPage, 1, kPage).ok());
    for (const uint64_t bar : {c.host.bar0_base, c.host.db_base, c.host.scu_base}) {
        EXPECT_EQ(slot_cmd(AqOpcode::kScuSetStatusPage, 1, bar).status, AqStatus::kDmaError);
        EXPECT_EQ(mgr().status_page(1), kPage);
    }
    EXPECT_EQ(mgr().query(1)->last_refusal, ScuStatus::kDmaError);
    // Not host memory at all.
    EXPECT_EQ(slot_cmd(AqOpcode::kScuSetStatusPage, 2, 0x1000).status, AqStatus::kDmaError);
    EXPECT_EQ(mgr().status_page(2), 0u);
    // A card reset forgets the pages.
    c.dev.reset();
    EXPECT_EQ(mgr().status_page(1), 0u);
}

}  // namespace
}  // namespace scenic::test
