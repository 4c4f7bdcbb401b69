// SPDX-License-Identifier: MIT
// FAULT_INJECT bits for the driver's recovery tests (docs/admin-queue.md 2 and 8): a heartbeat
// that stops, a card that drops off the bus (all-ones reads), and a fatal error that a soft reset
// cannot clear but a function-level reset can.
#include <gtest/gtest.h>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace core = regs::core;

constexpr uint64_t kSecond = 1'000'000'000;

TEST(FaultInject, HbStallHoldsHeartbeatThenCountsOn) {
    Node n(1, 0, 1, 0, "", /*fault_inject=*/true);
    n.host.now += kSecond;
    const uint32_t before = n.aq.rc(core::kHeartbeat);
    EXPECT_GT(before, 0u) << "the heartbeat runs";
    n.aq.wc(core::kFaultInject, core::kFaultInjectHbStall.mask);
    EXPECT_EQ(n.aq.rc(core::kFaultInject), core::kFaultInjectHbStall.mask) << "held bit reads back";
    const uint32_t held = n.aq.rc(core::kHeartbeat);
    EXPECT_GE(held, before);
    n.host.now += 5 * kSecond;
    EXPECT_EQ(n.aq.rc(core::kHeartbeat), held) << "stalled for 5 s of card time";
    EXPECT_EQ(n.aq.rc(core::kFatalStatus), 0u) << "a stalled heartbeat is not a card fatal";

    n.aq.wc(core::kFaultInject, 0);
    EXPECT_EQ(n.aq.rc(core::kHeartbeat), held) << "counts on from the held value, no jump";
    n.host.now += kSecond;
    const uint32_t after = n.aq.rc(core::kHeartbeat);
    EXPECT_EQ(after, held + kSecond / CoreBlock::kHeartbeatNs);

    // A soft reset clears the stall like every other injected fault.
    n.aq.wc(core::kFaultInject, core::kFaultInjectHbStall.mask);
    n.aq.wc(core::kCtrl, core::kCtrlSoftReset.mask);
    EXPECT_EQ(n.aq.rc(core::kFaultInject), 0u);
    const uint32_t hb0 = n.aq.rc(core::kHeartbeat);
    n.host.now += kSecond;
    EXPECT_GT(n.aq.rc(core::kHeartbeat), hb0);
}

TEST(FaultInject, NewBitsIgnoredWithoutTheProperty) {
    Node n(1);
    n.host.now += kSecond;
    n.aq.wc(core::kFaultInject, core::kFaultInjectHbStall.mask | core::kFaultInjectLinkDown.mask |
                                    core::kFaultInjectStickyFatal.mask);
    EXPECT_EQ(n.aq.rc(core::kFaultInject), 0u);
    EXPECT_EQ(n.aq.rc(core::kId), core::kIdDefault) << "still on the bus";
    const uint32_t hb = n.aq.rc(core::kHeartbeat);
    n.host.now += kSecond;
    EXPECT_GT(n.aq.rc(core::kHeartbeat), hb);
}

TEST(FaultInject, LinkDownReadsAllOnesIgnoresWritesNoDmaNoIrq) {
    Node n(1, 0, 1, 0, "", /*fault_inject=*/true);
    n.aq.wc(core::kScratch, 0x1234'5678);
    ASSERT_EQ(n.aq.rc(core::kScratch), 0x1234'5678u);
    n.host.irqs.clear();
    n.aq.wc(core::kFaultInject, core::kFaultInjectLinkDown.mask);

    // Every block, every width, reads all-ones.
    for (const uint32_t off :
         {core::kOffset + core::kId, core::kOffset + core::kFatalStatus,
          core::kOffset + core::kHeartbeat, core::kOffset + core::kFaultInject,
          core::kOffset + core::kScratch, regs::eth::kOffset, regs::rdma::kOffset}) {
        EXPECT_EQ(n.dev.mmio_read(off, 4), 0xffff'ffffu) << std::hex << off;
    }
    EXPECT_EQ(n.dev.mmio_read(core::kOffset + core::kId, 2), 0xffffu);
    EXPECT_EQ(n.dev.mmio_read(core::kOffset + core::kId, 8), ~uint64_t{0});

    // Writes are ignored: a fatal, a soft reset, an AQ doorbell.
    n.aq.wc(core::kFaultInject, core::kFaultInjectFatal.mask);
    n.aq.wc(core::kCtrl, core::kCtrlSoftReset.mask);
    n.aq.wc(core::kAqSqTail, 1);

    // Events the card raises reach neither host memory nor an MSI-X vector.
    const uint64_t dmas = n.host.dmas;
    n.dev.set_link(false);
    n.dev.set_link(true);
    n.host.now += kSecond;
    n.dev.timer_fire();
    EXPECT_TRUE(n.aq.drain_aeq().empty()) << "no AEQ entry written";
    EXPECT_TRUE(n.host.irqs.empty()) << "no MSI-X message";
    EXPECT_EQ(n.host.dmas, dmas) << "no DMA reached the host";

    // No reset brings it back (only a new card: a new QEMU process).
    n.dev.reset();
    EXPECT_EQ(n.dev.mmio_read(core::kOffset + core::kId, 4), 0xffff'ffffu);
}

TEST(FaultInject, StickyFatalSurvivesSoftResetNotFlr) {
    Node n(1, 0, 1, 0, "", /*fault_inject=*/true);
    n.aq.wc(core::kFaultInject, core::kFaultInjectStickyFatal.mask);
    n.aq.wc(core::kFaultInject, core::kFaultInjectStickyFatal.mask | core::kFaultInjectFatal.mask);
    const uint32_t st = n.aq.rc(core::kFatalStatus);
    ASSERT_NE(st & core::kFatalStatusFatal.mask, 0u);
    EXPECT_EQ((st & core::kFatalStatusCode.mask) >> core::kFatalStatusCode.shift,
              static_cast<uint32_t>(admin::FatalCode::kInjected));

    // A soft reset resets the queues but the fault stays, and so does the bit.
    n.aq.wc(core::kScratch, 0xabcd);
    n.aq.wc(core::kCtrl, core::kCtrlSoftReset.mask);
    EXPECT_EQ(n.aq.rc(core::kScratch), core::kScratchDefault) << "the soft reset happened";
    EXPECT_EQ(n.aq.rc(core::kAqCfg), 0u);
    EXPECT_EQ(n.aq.rc(core::kFatalStatus), st) << "FATAL_STATUS survived the soft reset";
    EXPECT_EQ(n.aq.rc(core::kFaultInject), core::kFaultInjectStickyFatal.mask);
    n.aq.wc(core::kCtrl, core::kCtrlSoftReset.mask);
    EXPECT_EQ(n.aq.rc(core::kFatalStatus), st) << "and every soft reset after it";

    // A function-level reset clears it.
    n.dev.reset();
    EXPECT_EQ(n.aq.rc(core::kFatalStatus), 0u);
    EXPECT_EQ(n.aq.rc(core::kFaultInject), 0u);
    const uint32_t hb = n.aq.rc(core::kHeartbeat);
    n.host.now += kSecond;
    EXPECT_GT(n.aq.rc(core::kHeartbeat), hb) << "the sequencer runs again";

    // Without the bit, a soft reset clears a fatal as before.
    n.aq.wc(core::kFaultInject, core::kFaultInjectFatal.mask);
    ASSERT_NE(n.aq.rc(core::kFatalStatus), 0u);
    n.aq.wc(core::kCtrl, core::kCtrlSoftReset.mask);
    EXPECT_EQ(n.aq.rc(core::kFatalStatus), 0u);
}

}  // namespace
}  // namespace scenic::test
