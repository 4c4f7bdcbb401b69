// SPDX-License-Identifier: MIT
// The completion event queue (docs/admin-queue.md 4.2, 4.3): phase and wrap-around, and the
// OVERFLOW entry in the reserved last slot.
#include <gtest/gtest.h>

#include <algorithm>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace rr = regs::rdma;

// Card A with a 16-entry CEQ and one unpolled CQE in its receive CQ (a SEND from B): each arm of
// that CQ then notifies at once (the CQE is past the consumer index), so every arm is one
// CQ_NOTIFY. (A successful send writes no CQE, only the status page.)
class CompletionEvents : public ::testing::Test {
  protected:
    void SetUp() override {
        Node& n = p.a;
        AqDriver::Layout l = n.aq.layout();
        // A depth only changes while the ring is disabled; setup() programs all three again.
        n.aq.wc(regs::core::kAqCfg, 0);
        n.aq.wc(regs::core::kAeqCfg, 0);
        n.aq.wr(rr::kCeqCfg, 0);
        l.ceq_log2 = 4;
        n.aq.setup(l);
        p.setup();
        const uint32_t a_key = p.a.reg_mr(Node::kVa, 4096, kAll);
        const uint32_t b_key = p.b.reg_mr(Node::kVa, 4096, kAll);
        p.a.post_recv(2, {sge(Node::kVa, 64, a_key)});
        p.b.post_send(3, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa, 64, b_key)}));
        ASSERT_TRUE(p.run());
        ASSERT_EQ(p.b.sq_completed(3), 1u);
        ASSERT_EQ(ceq_reg(rr::kCeqTail), 0u) << "nothing was armed";
    }
    uint32_t ceq_reg(uint32_t off) {
        return static_cast<uint32_t>(p.a.dev.mmio_read(rr::kOffset + off, 4));
    }
    static admin::Ceqe<const uint8_t> view(const std::array<uint8_t, 8>& e) {
        return admin::Ceqe<const uint8_t>{std::span<const uint8_t, 8>(e)};
    }
    static constexpr uint32_t kCq = 1;  // QP 2's receive CQ on card A
    // Card A allows fault injection (FAULT_INJECT.ceq_stall).
    RdmaPair p{0, 1, 0, "", "", [](Config& c) { c.fault_inject = true; }};
};

TEST_F(CompletionEvents, WrapsAndPhaseFlips) {
    uint32_t index = 0;
    for (int round = 0; round < 10; ++round) {
        for (int i = 0; i < 10; ++i) {
            p.a.arm(kCq);
        }
        p.a.dev.timer_fire();
        const auto got = p.a.aq.drain_ceq();  // by phase: a stale entry would end it early
        ASSERT_EQ(got.size(), 10u) << "round " << round;
        for (const auto& e : got) {
            EXPECT_EQ(kCeq | view(e).type(), kEvCq);
            EXPECT_EQ(view(e).cqn(), kCq);
            EXPECT_EQ(view(e).phase(), ((index >> 4) & 1) ^ 1) << "entry " << index;
            ++index;
        }
    }
    EXPECT_EQ(ceq_reg(rr::kCeqTail), 100u);
    EXPECT_EQ(ceq_reg(rr::kCeqHead), 100u);
    EXPECT_EQ(ceq_reg(rr::kCeqLost), 0u);
}

TEST_F(CompletionEvents, OverflowEntry) {
    for (int i = 0; i < 20; ++i) {
        p.a.arm(kCq);
    }
    p.a.dev.timer_fire();
    EXPECT_EQ(ceq_reg(rr::kCeqLost), 5u);
    auto got = p.a.aq.drain_ceq();
    ASSERT_EQ(got.size(), 16u);
    for (size_t i = 0; i < 15; ++i) {
        EXPECT_EQ(kCeq | view(got[i]).type(), kEvCq) << i;
    }
    EXPECT_EQ(kCeq | view(got[15]).type(), kEvCeqOverflow);
    EXPECT_EQ(view(got[15]).cqn(), 1u);  // the first drop, reported at once in the reserved slot
    // Returning the slots lets the card write the next OVERFLOW before any new notification.
    p.a.dev.timer_fire();
    p.a.arm(kCq);
    p.a.dev.timer_fire();
    got = p.a.aq.drain_ceq();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(kCeq | view(got[0]).type(), kEvCeqOverflow);
    EXPECT_EQ(view(got[0]).cqn(), 4u);  // notifications 17..20
    EXPECT_EQ(kCeq | view(got[1]).type(), kEvCq);
    EXPECT_EQ(view(got[1]).cqn(), kCq);
    EXPECT_EQ(ceq_reg(rr::kCeqLost), 5u);
}

// FAULT_INJECT.ceq_stall (selftests/rdma/event_overflow.sh, the CEQ part): the CEQ is treated as
// full, so notifications are dropped and counted; released, the card writes the OVERFLOW it owes
// from its timer (never inside the MMIO write) with the number lost, raises the rdma vector once,
// and notifications flow again. A function-level reset clears the stall.
TEST_F(CompletionEvents, CeqStallDropsAndReleaseWritesTheOverflow) {
    namespace core = regs::core;
    p.a.aq.wc(core::kFaultInject, core::kFaultInjectCeqStall.mask);
    EXPECT_EQ(p.a.aq.rc(core::kFaultInject), core::kFaultInjectCeqStall.mask);
    for (int i = 0; i < 3; ++i) {
        p.a.arm(kCq);
    }
    p.a.dev.timer_fire();
    EXPECT_EQ(ceq_reg(rr::kCeqLost), 3u);
    EXPECT_TRUE(p.a.aq.drain_ceq().empty()) << "stalled: nothing written";
    p.a.host.irqs.clear();
    p.a.aq.wc(core::kFaultInject, 0);
    EXPECT_EQ(p.a.aq.rc(core::kFaultInject), 0u);
    EXPECT_TRUE(p.a.aq.drain_ceq().empty()) << "no DMA inside the MMIO write";
    p.a.dev.timer_fire();
    auto got = p.a.aq.drain_ceq();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(kCeq | view(got[0]).type(), kEvCeqOverflow);
    EXPECT_EQ(view(got[0]).cqn(), 3u);  // the three notifications of the stall
    EXPECT_EQ(std::ranges::count(p.a.host.irqs, regs::kVecRdma), 1) << "the rdma vector, once";
    p.a.arm(kCq);
    p.a.dev.timer_fire();
    got = p.a.aq.drain_ceq();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(kCeq | view(got[0]).type(), kEvCq);
    EXPECT_EQ(view(got[0]).cqn(), kCq);
    // Held across nothing but a reset: an FLR clears it.
    p.a.aq.wc(core::kFaultInject, core::kFaultInjectCeqStall.mask);
    p.a.dev.reset();
    EXPECT_EQ(p.a.aq.rc(core::kFaultInject), 0u);
}

}  // namespace
}  // namespace scenic::test
