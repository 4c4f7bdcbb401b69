// SPDX-License-Identifier: MIT
// The SCU admin commands through the card's admin queue (docs/scu.md 3, 5): SCU_LOAD of an image
// DMA'd from host memory, SCU_UNLOAD, SCU_QUERY_SLOT, SCU_BIND_PD; malformed commands refused
// with a documented status and syndrome and counted; the SCU AEQ event once per
// reconfiguration and on a memory-port fault, checked against the card's real MR table.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "rdma_rig.hpp"
#include "scenic/scu_passthrough.hpp"
#include "scu_rig.hpp"

namespace scenic::test {
namespace {

using admin::AqOpcode;
using admin::AqStatus;
using admin::ScuEventKind;
using admin::ScuStatus;

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) {
        v[i] = static_cast<uint8_t>(seed + i * 7);
    }
    return v;
}

constexpr uint64_t kReconfigNs = uint64_t{regs::scu::kReconfigUsDefault} * 1000;

class ScuCommands : public ::testing::Test {
  protected:
    ScuCommands() : n(1) { image_addr = n.alloc(64 * 1024, 4096); }

    // Runs the card's timer for ns.
    void run_for(uint64_t ns) {
        const uint64_t end = n.host.now + ns;
        while (n.host.timer && *n.host.timer <= end) {
            n.host.now = std::max(n.host.now, *n.host.timer);
            n.host.timer.reset();
            n.dev.timer_fire();
        }
        n.host.now = end;
    }

    CmdResult load(unsigned slot, const std::vector<uint8_t>& img, AqResult* out = nullptr,
                   uint64_t addr = 0, uint32_t len = 0) {
        std::copy(img.begin(), img.end(), n.bus(image_addr));
        Sqe e = sqe(AqOpcode::kScuLoad);
        const admin::AqScuLoad<> v{std::span<uint8_t, kAqSqeBytes>(e)};
        v.set_slot(static_cast<uint8_t>(slot));
        v.set_image_addr(addr != 0 ? addr : image_addr);
        v.set_image_len(len != 0 ? len : static_cast<uint32_t>(img.size()));
        return n.aq.exec(e, out);
    }
    CmdResult slot_cmd(AqOpcode op, unsigned slot, AqResult* out = nullptr) {
        Sqe e = sqe(op);
        e[8] = static_cast<uint8_t>(slot);
        return n.aq.exec(e, out);
    }
    CmdResult bind(unsigned slot, uint32_t pdn, bool unbind = false) {
        Sqe e = sqe(AqOpcode::kScuBindPd);
        const admin::AqScuBindPd<> v{std::span<uint8_t, kAqSqeBytes>(e)};
        v.set_slot(static_cast<uint8_t>(slot));
        v.set_pdn(pdn);
        v.set_unbind(unbind ? 1 : 0);
        return n.aq.exec(e);
    }
    admin::AcqScuQuerySlot<const uint8_t> query(unsigned slot) {
        EXPECT_TRUE(slot_cmd(AqOpcode::kScuQuerySlot, slot, &q_).ok());
        return admin::AcqScuQuerySlot<const uint8_t>(std::span<const uint8_t, kAqCqeBytes>(q_));
    }
    // The SCU events on the AEQ.
    std::vector<std::array<uint8_t, 32>> scu_events() {
        std::vector<std::array<uint8_t, 32>> out;
        for (const auto& e : n.aq.drain_aeq()) {
            if (e[0] == static_cast<uint8_t>(admin::AeqType::kScu)) {
                out.push_back(e);
            }
        }
        return out;
    }
    scu::SlotManager& mgr() { return n.dev.scu().slots(); }

    static std::vector<uint8_t> image(uint64_t build_id) {
        const std::vector<uint8_t> payload(64, 0x20);
        return make_scu_image(scu::kKindPassthrough, 1, payload, build_id);
    }

    Node n;
    uint64_t image_addr = 0;
    AqResult q_{};
};

TEST_F(ScuCommands, LoadQueryUnloadThroughTheAdminQueue) {
    AqResult res{};
    ASSERT_EQ(load(2, image(0x5eed), &res), (CmdResult{AqStatus::kOk, 0}));
    const admin::AcqScuLoad<const uint8_t> r(std::span<const uint8_t, kAqCqeBytes>{res});
    EXPECT_EQ(r.scu_status(), 0u);
    EXPECT_EQ(r.kind(), scu::kKindPassthrough);
    EXPECT_EQ(r.reconfig_us(), regs::scu::kReconfigUsDefault);
    EXPECT_EQ(query(2).state(), static_cast<uint8_t>(admin::ScuSlotState::kLoading));
    EXPECT_EQ(n.dev.mmio_read(regs::scu::kOffset + regs::scu::kSlotBusy, 4), 1u << 2);
    EXPECT_TRUE(scu_events().empty());

    run_for(kReconfigNs);
    auto q = query(2);
    EXPECT_EQ(q.state(), static_cast<uint8_t>(admin::ScuSlotState::kRunning));
    EXPECT_EQ(q.build_id(), 0x5eedu);
    EXPECT_EQ(q.kind(), scu::kKindPassthrough);
    EXPECT_EQ(q.kind_version(), 1u);
    EXPECT_EQ(n.dev.mmio_read(regs::scu::kOffset + regs::scu::kSlotBusy, 4), 0u);
    EXPECT_EQ(n.dev.mmio_read(regs::scu::kOffset + regs::scu::kSlotLoaded, 4), 1u << 2);
    auto ev = scu_events();
    ASSERT_EQ(ev.size(), 1u);
    const admin::AeqeScu<const uint8_t> e(std::span<const uint8_t, 32>{ev[0]});
    EXPECT_EQ(e.slot(), 2u);
    EXPECT_EQ(e.kind(), static_cast<uint8_t>(ScuEventKind::kReconfigured));
    EXPECT_EQ(e.scu_status(), 0u);
    EXPECT_EQ(e.info(), regs::scu::kReconfigUsDefault);
    EXPECT_EQ(e.count(), 1u);

    ASSERT_TRUE(slot_cmd(AqOpcode::kScuUnload, 2).ok());
    run_for(kReconfigNs);
    EXPECT_EQ(query(2).build_id(), 0u);
    EXPECT_EQ(n.dev.mmio_read(regs::scu::kOffset + regs::scu::kSlotLoaded, 4), 0u);
    ev = scu_events();
    ASSERT_EQ(ev.size(), 1u);  // one per reconfiguration
    EXPECT_EQ(admin::AeqeScu<const uint8_t>(std::span<const uint8_t, 32>{ev[0]}).count(), 2u);
    run_for(10 * kReconfigNs);
    EXPECT_TRUE(scu_events().empty());
}

TEST_F(ScuCommands, RefusalsHaveDocumentedStatusAndAreCounted) {
    const uint16_t kSlot = field_offset(admin::kAqScuLoadFields, "slot");
    const uint16_t kAddr = field_offset(admin::kAqScuLoadFields, "image_addr");
    const uint16_t kLen = field_offset(admin::kAqScuLoadFields, "image_len");
    const std::vector<uint8_t> img = image(1);

    EXPECT_EQ(load(0, img), (CmdResult{AqStatus::kBadIndex, kSlot}));   // slot 0 is fixed
    EXPECT_EQ(load(16, img), (CmdResult{AqStatus::kBadIndex, kSlot}));  // out of range
    EXPECT_EQ(slot_cmd(AqOpcode::kScuUnload, 0).status, AqStatus::kBadIndex);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuQuerySlot, 16).status, AqStatus::kBadIndex);
    EXPECT_EQ(bind(0, 7).status, AqStatus::kBadIndex);
    EXPECT_EQ(mgr().refused(AqStatus::kBadIndex), 5u);

    EXPECT_EQ(load(3, img, nullptr, image_addr + 4), (CmdResult{AqStatus::kBadArg, kAddr}));
    EXPECT_EQ(load(3, img, nullptr, 0, (1U << 20) + 8), (CmdResult{AqStatus::kBadArg, kLen}));
    EXPECT_EQ(query(3).last_refusal(), static_cast<uint8_t>(ScuStatus::kTooLarge));
    EXPECT_EQ(load(3, img, nullptr, 0, 100), (CmdResult{AqStatus::kBadArg, kLen}));
    // Outside host memory: the image cannot be read.
    EXPECT_EQ(load(3, img, nullptr, 0x10'0000'0000), (CmdResult{AqStatus::kDmaError, kAddr}));
    EXPECT_EQ(query(3).last_refusal(), static_cast<uint8_t>(ScuStatus::kDmaError));

    std::vector<uint8_t> bad = img;
    bad[0] = 'x';
    EXPECT_EQ(load(3, bad), (CmdResult{AqStatus::kBadArg, kAddr}));
    EXPECT_EQ(query(3).last_refusal(), static_cast<uint8_t>(ScuStatus::kBadImage));
    bad = img;
    bad[scu::image::kKind] = 0x42;
    fix_scu_image_crc(bad);
    EXPECT_EQ(load(3, bad), (CmdResult{AqStatus::kBadArg, kAddr}));
    EXPECT_EQ(query(3).last_refusal(), static_cast<uint8_t>(ScuStatus::kUnknownKind));
    EXPECT_EQ(mgr().refused(AqStatus::kBadArg), 5u);
    EXPECT_EQ(mgr().refused(AqStatus::kDmaError), 1u);

    ASSERT_TRUE(load(3, img).ok());
    EXPECT_EQ(load(3, image(2)).status, AqStatus::kBusy);
    EXPECT_EQ(slot_cmd(AqOpcode::kScuUnload, 3).status, AqStatus::kBusy);
    EXPECT_EQ(mgr().refused(AqStatus::kBusy), 2u);
    // A reserved byte set: refused by the admin queue before the SCU sees it.
    Sqe e = sqe(AqOpcode::kScuQuerySlot);
    e[9] = 1;
    EXPECT_EQ(n.aq.exec(e).status, AqStatus::kMalformed);

    run_for(kReconfigNs);
    EXPECT_EQ(query(3).build_id(), 1u);  // the refusals changed nothing
    EXPECT_EQ(scu_events().size(), 1u);
}

TEST_F(ScuCommands, MemoryPortAgainstTheCardsMrTable) {
    const uint32_t own = n.reg_mr(Node::kVa, 8192, rdma::kAccessLocalWrite);
    const uint32_t other = n.reg_mr(Node::kVa + 8192, 4096, rdma::kAccessLocalWrite, true, 9);
    const std::vector<uint8_t> data = pattern(256, 5);
    n.write_va(Node::kVa + 100, data);
    scu::Slot& s = mgr().slot(4);
    std::vector<uint8_t> buf(256);

    EXPECT_EQ(s.mem_read(own, Node::kVa, buf), scu::MemStatus::kKeyPd);  // unbound
    ASSERT_TRUE(bind(4, Node::kPd).ok());
    EXPECT_EQ(query(4).pd_bound(), 1u);
    EXPECT_EQ(query(4).pdn(), Node::kPd);
    EXPECT_EQ(s.mem_read(other, Node::kVa + 8192, buf), scu::MemStatus::kKeyPd);  // wrong PD
    EXPECT_EQ(s.mem_read(own ^ 0x01, Node::kVa, buf), scu::MemStatus::kKeyPd);    // wrong key
    EXPECT_EQ(s.mem_read(own, Node::kVa + 8000, buf), scu::MemStatus::kBounds);   // past the end
    EXPECT_EQ(buf, std::vector<uint8_t>(256, 0));
    EXPECT_EQ(mgr().counters(4).mem_faults, 4u);
    // Rate-limited: the unbound request's, then one for the three after the queries re-armed it.
    auto ev = scu_events();
    ASSERT_EQ(ev.size(), 2u);
    for (size_t i = 0; i < ev.size(); ++i) {
        const admin::AeqeScu<const uint8_t> e(std::span<const uint8_t, 32>{ev[i]});
        EXPECT_EQ(e.slot(), 4u);
        EXPECT_EQ(e.kind(), static_cast<uint8_t>(ScuEventKind::kFault));
        EXPECT_EQ(e.info(), static_cast<uint32_t>(scu::MemStatus::kKeyPd));
        EXPECT_EQ(e.count(), i + 1);  // the slot's faults when it was raised
    }

    ASSERT_EQ(s.mem_read(own, Node::kVa + 100, buf), scu::MemStatus::kOk);
    EXPECT_EQ(buf, data);
    const std::vector<uint8_t> w = pattern(64, 9);
    ASSERT_EQ(s.mem_write(own, Node::kVa + 4096 + 10, w), scu::MemStatus::kOk);
    EXPECT_EQ(n.read_va(Node::kVa + 4096 + 10, 64), w);  // crossed into the swapped page map

    ASSERT_TRUE(bind(4, 0, true).ok());
    EXPECT_EQ(query(4).pd_bound(), 0u);
    EXPECT_EQ(s.mem_read(own, Node::kVa, buf), scu::MemStatus::kKeyPd);
    EXPECT_EQ(scu_events().size(), 1u);  // re-armed by the queries
}

TEST_F(ScuCommands, CardResetReturnsSlotsToThePassthrough) {
    ASSERT_TRUE(load(5, image(9)).ok());
    run_for(kReconfigNs);
    ASSERT_EQ(query(5).build_id(), 9u);
    mgr().csr_window_write(5 * uint64_t{scu::kCsrWindowBytes} + 8 * scu::Passthrough::kScratch, 42,
                           8);
    n.dev.reset();
    EXPECT_EQ(n.dev.mmio_read(regs::scu::kOffset + regs::scu::kSlotLoaded, 4), 0u);
    EXPECT_EQ(mgr().query(5)->build_id, 0u);
    EXPECT_EQ(mgr().csr_window_read(
                  5 * uint64_t{scu::kCsrWindowBytes} + 8 * scu::Passthrough::kScratch, 8),
              0u);
}

}  // namespace
}  // namespace scenic::test
