// SPDX-License-Identifier: MIT
// The event queues (docs/admin-queue.md 4): phase and wrap-around, the slot reserved for
// OVERFLOW, lost counts and seq gaps, a fatal error with a full ring, CEQ notifications.
#include <gtest/gtest.h>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace core = regs::core;

uint32_t seq_of(const std::array<uint8_t, 32>& e) {
    return admin::AeqeHdr<const uint8_t>(std::span<const uint8_t, 32>(e).first<16>()).seq();
}

// 16-entry AEQ; LINK events (Device::set_link) are the easiest events to make.
void small_aeq(Node& n) { n.aq.setup_aeq(4); }

TEST(AsyncEvents, WrapsAndPhaseFlips) {
    Node n(1);
    small_aeq(n);
    uint32_t expect_seq = 0;
    for (int round = 0; round < 10; ++round) {
        for (int i = 0; i < 10; ++i) {
            n.dev.set_link(i % 2 == 0);
        }
        const auto got = n.aq.drain_aeq();  // by phase: a stale entry would end the drain early
        ASSERT_EQ(got.size(), 10u) << "round " << round;
        for (const auto& e : got) {
            EXPECT_EQ(Node::decode_aeq(e).type, kEvLink);
            EXPECT_EQ(seq_of(e), expect_seq++);
        }
    }
    EXPECT_EQ(n.aq.rc(core::kAeqTail), 100u);
    EXPECT_EQ(n.aq.rc(core::kAeqLost), 0u);
}

TEST(AsyncEvents, LastSlotReservedForOverflow) {
    Node n(1);
    small_aeq(n);
    for (int i = 0; i < 20; ++i) {
        n.dev.set_link(true);
    }
    const auto got = n.aq.drain_aeq();
    ASSERT_EQ(got.size(), 16u);
    for (size_t i = 0; i < 15; ++i) {
        EXPECT_EQ(Node::decode_aeq(got[i]).type, kEvLink) << i;
    }
    const Node::Event ov = Node::decode_aeq(got[15]);
    EXPECT_EQ(ov.type, kEvAeqOverflow);
    EXPECT_EQ(ov.a0, 1u);   // the first drop, reported at once in the reserved slot
    EXPECT_EQ(ov.a1, 15u);  // its seq
    EXPECT_EQ(n.aq.rc(core::kAeqLost), 5u);
}

TEST(AsyncEvents, OverflowEntryCountsLost) {
    Node n(1);
    small_aeq(n);
    for (int i = 0; i < 20; ++i) {
        n.dev.set_link(true);
    }
    ASSERT_EQ(n.aq.drain_aeq().size(), 16u);  // returning the slots schedules the next OVERFLOW
    n.dev.timer_fire();
    const auto got = n.aq.drain_aeq();
    ASSERT_EQ(got.size(), 1u);
    const Node::Event ov = Node::decode_aeq(got[0]);
    EXPECT_EQ(ov.type, kEvAeqOverflow);
    EXPECT_EQ(ov.a0, 4u);   // events 16..19
    EXPECT_EQ(ov.a1, 16u);  // the first of them
    EXPECT_EQ(seq_of(got[0]), 20u);
}

TEST(AsyncEvents, SeqCountsDroppedEvents) {
    Node n(1);
    small_aeq(n);
    for (int i = 0; i < 20; ++i) {
        n.dev.set_link(true);
    }
    n.aq.drain_aeq();
    n.dev.timer_fire();
    n.aq.drain_aeq();
    n.dev.set_link(false);
    const auto got = n.aq.drain_aeq();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(seq_of(got[0]), 20u) << "20 events generated before it, 5 of them dropped";
}

TEST(AsyncEvents, FatalSetsRegisterWhenRingFull) {
    Node n(1, 0, 1, 0, "", /*fault_inject=*/true);
    small_aeq(n);
    for (int i = 0; i < 20; ++i) {
        n.dev.set_link(true);  // 15 events and an OVERFLOW: every slot used
    }
    n.host.irqs.clear();
    n.aq.wc(core::kFaultInject, core::kFaultInjectFatal.mask);
    const uint32_t st = n.aq.rc(core::kFatalStatus);
    EXPECT_NE(st & core::kFatalStatusFatal.mask, 0u) << "set before any event";
    EXPECT_EQ(st & core::kFatalStatusCode.mask, static_cast<uint32_t>(admin::FatalCode::kInjected));
    n.dev.timer_fire();
    EXPECT_EQ(std::ranges::count(n.host.irqs, regs::kVecCore), 1) << "the AEQ vector";
    const uint32_t hb = n.aq.rc(core::kHeartbeat);
    n.host.now += 1'000'000'000;
    EXPECT_EQ(n.aq.rc(core::kHeartbeat), hb) << "a fatal card's sequencer stopped";
}

TEST(AsyncEvents, FatalEventTakesTheReservedSlot) {
    Node n(1, 0, 1, 0, "", /*fault_inject=*/true);
    small_aeq(n);
    for (int i = 0; i < 15; ++i) {
        n.dev.set_link(true);  // every slot but the reserved one
    }
    n.aq.wc(core::kFaultInject, core::kFaultInjectFatal.mask);
    n.dev.timer_fire();
    const auto got = n.aq.drain_aeq();
    ASSERT_EQ(got.size(), 16u);
    const Node::Event f = Node::decode_aeq(got[15]);
    EXPECT_EQ(f.type, kEvFatal);
    EXPECT_EQ(f.a0, static_cast<uint32_t>(admin::FatalCode::kInjected));
}

// FAULT_INJECT.aeq_stall drops events like a full ring; when it is released, the OVERFLOW the
// card owes is written at once, even if no new event comes to push it out: a QP error lost in
// the stall is otherwise never resynchronised (selftests/rdma/event_overflow.sh, second stall).
TEST(AsyncEvents, UnstallWritesTheOverflowWithoutANewEvent) {
    Node n(1, 0, 1, 0, "", /*fault_inject=*/true);
    small_aeq(n);
    n.dev.set_link(true);
    n.aq.wc(core::kFaultInject, core::kFaultInjectAeqStall.mask);
    n.dev.set_link(false);
    n.dev.set_link(true);
    n.dev.timer_fire();
    EXPECT_EQ(n.aq.rc(core::kAeqLost), 2u);
    ASSERT_EQ(n.aq.drain_aeq().size(), 1u) << "only the LINK before the stall";
    n.dev.timer_fire();  // the HEAD write's flush runs while still stalled: nothing written
    EXPECT_TRUE(n.aq.drain_aeq().empty());
    n.host.irqs.clear();
    n.aq.wc(core::kFaultInject, 0);
    EXPECT_TRUE(n.aq.drain_aeq().empty()) << "no DMA inside the MMIO write";
    n.dev.timer_fire();
    const auto got = n.aq.drain_aeq();
    ASSERT_EQ(got.size(), 1u);
    const Node::Event ov = Node::decode_aeq(got[0]);
    EXPECT_EQ(ov.type, kEvAeqOverflow);
    EXPECT_EQ(ov.a0, 2u);  // both LINKs of the stall
    EXPECT_EQ(ov.a1, 1u);  // the first of them
    EXPECT_EQ(seq_of(got[0]), 3u);
    EXPECT_EQ(std::ranges::count(n.host.irqs, regs::kVecCore), 1) << "the AEQ vector, once";
}

// A miss dropped while an OVERFLOW is pending is raised again right after that OVERFLOW is
// written (not only at the requester's next retry).
TEST(AsyncEvents, TlbMissReraisedAfterOverflow) {
    RdmaPair p;
    p.setup();
    p.a.aq.setup_aeq(4);
    p.a.auto_fill = false;
    const uint32_t key = p.a.reg_mr(Node::kVa, 4096, kAll, /*fill=*/false);
    const uint32_t dkey = p.b.reg_mr(Node::kVa, 4096, kAll);
    for (int i = 0; i < 17; ++i) {
        p.a.dev.set_link(true);  // 15 events, an OVERFLOW in the reserved slot, one more lost
    }
    p.a.post_send(2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 64, key)}, Node::kVa, dkey));
    EXPECT_EQ(p.a.aq.rc(core::kAeqLost), 3u);  // two LINKs and the miss
    ASSERT_EQ(p.a.aq.drain_aeq().size(), 16u);
    p.a.dev.timer_fire();  // same instant: no TLB retry is due, only the OVERFLOW
    const auto got = p.a.aq.drain_aeq();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(Node::decode_aeq(got[0]).type, kEvAeqOverflow);
    EXPECT_EQ(Node::decode_aeq(got[0]).a0, 2u);
    const Node::Event miss = Node::decode_aeq(got[1]);
    EXPECT_EQ(miss.type, kEvTlbMiss);
    EXPECT_EQ(miss.a0, key);
    EXPECT_EQ(uint64_t{miss.a2} << 32 | miss.a1, Node::kVa);
}

}  // namespace
}  // namespace scenic::test
