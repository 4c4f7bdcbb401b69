// SPDX-License-Identifier: MIT
// Defect 4 of issue 15 (card part): a TLB-miss event lost to a full event queue stalled the QP
// for ever (the miss was remembered as reported and never raised again). Now a lost miss (and
// one unserved for kMissReraiseNs) is raised again at the next lookup, which the paused QP
// retries every kTlbRetryNs; AEQ_LOST counts what the queue dropped, and every OVERFLOW entry
// the card writes makes it raise its pending misses again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

TEST(ContainmentTlb, LostMissEventsAreRaisedAgainAndEveryQpCompletes) {
    constexpr uint32_t kQps = 110;   // what the rig's ring memory holds
    constexpr uint32_t kPages = 92;  // per QP, each QP with its own source MR: 10120 misses
    constexpr uint64_t kLen = uint64_t{kPages} * 4096;
    RdmaPair p;
    p.setup_many(kQps, /*sq_log2=*/2, /*rq_log2=*/2, /*cq_log2=*/10);
    p.a.aq.setup_aeq(4);    // a small event ring: 16 entries
    p.a.auto_fill = false;  // the fake driver below serves A's misses, a few at a time
    const uint64_t src = Node::kVa;
    const uint64_t dst = Node::kVa + (4 << 20);
    p.a.fill_va(src, kLen, 0x3c);
    const uint32_t dkey = p.b.reg_mr(dst, kLen, kAll);
    std::vector<uint32_t> skeys;
    for (uint32_t i = 0; i < kQps; ++i) {
        skeys.push_back(p.a.reg_mr(src, kLen, kAll, /*fill=*/false));
    }
    for (uint32_t i = 0; i < kQps; ++i) {
        p.a.post_send(
            2 + i, make_wqe(SCENIC_WQE_OP_WRITE, {sge(src, static_cast<uint32_t>(kLen), skeys[i])},
                            dst, dkey));
    }
    // The driver: between short runs of the wire, answer the misses it popped.
    size_t served = 0;
    bool done = false;
    for (int round = 0; round < 20'000 && !done; ++round) {
        done = p.run(/*max_ns=*/10'000'000'000, /*max_steps=*/500);
        for (const Node::Event& e : p.a.events) {
            if (e.type == kEvTlbMiss) {
                p.a.fill_page(e.a0, uint64_t{e.a2} << 32 | e.a1);
                ++served;
            }
        }
        done = done && p.a.events.empty();
        p.a.events.clear();
    }
    ASSERT_TRUE(done) << "stalled; misses served: " << served;
    EXPECT_GT(p.a.aq.rc(regs::core::kAeqLost), 0u) << "the ring never overflowed";
    EXPECT_GE(p.a.r(regs::rdma::kTlbMisses), uint32_t{kQps * kPages});
    EXPECT_GE(served, size_t{kQps} * kPages);
    for (uint32_t i = 0; i < kQps; ++i) {
        EXPECT_EQ(p.a.sq_completed(2 + i), 1u) << "QP " << 2 + i;
    }
    EXPECT_TRUE(p.a.poll(0).empty());  // no error completions
    EXPECT_EQ(p.b.read_va(dst, kLen), p.a.read_va(src, kLen));
}

// A QP paused on a missing page retries only while the miss can reach the driver
// (docs/admin-queue.md 4.3): with the AEQ disabled the card goes idle instead of retrying every
// kTlbRetryNs for ever, and enabling the AEQ raises the miss again, so the send completes.
TEST(ContainmentTlb, MissWithAeqDisabledGoesIdleAndEnableResumes) {
    RdmaPair p;
    p.setup();
    p.a.auto_fill = false;
    p.a.fill_va(Node::kVa, 4096, 0x5a);
    const uint32_t skey = p.a.reg_mr(Node::kVa, 4096, kAll, /*fill=*/false);
    const uint32_t dkey = p.b.reg_mr(Node::kVa + 0x10000, 4096, kAll);
    p.a.aq.wc(regs::core::kAeqCfg, 0);
    p.a.post_send(
        2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 4096, skey)}, Node::kVa + 0x10000, dkey));
    ASSERT_TRUE(p.run(/*max_ns=*/1'000'000'000)) << "the card's timer still runs";
    EXPECT_EQ(p.a.sq_completed(2), 0u);
    EXPECT_FALSE(p.a.host.timer.has_value());

    p.a.auto_fill = true;
    p.a.aq.setup_aeq(p.a.aq.layout().aeq_log2);
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(2), 1u);
    EXPECT_TRUE(std::ranges::any_of(p.a.events, [](const Node::Event& e) {
        return e.type == kEvTlbMiss;
    })) << "the miss was not raised again after the AEQ was enabled";
    EXPECT_TRUE(p.a.poll(0).empty());  // no error completion
    EXPECT_EQ(p.b.read_va(Node::kVa + 0x10000, 4096), p.a.read_va(Node::kVa, 4096));
}

// The OVERFLOW write's re-raise (the callback the engine installs) runs from the card's timer,
// never inside the event write that wrote the OVERFLOW: there it raised misses (push() again)
// and resumed QPs in the middle of a TLB lookup, which grew the pending-miss table under the
// loop re-raising it (a use after free that the fuzzer found).
TEST(ContainmentTlb, OverflowReraiseRunsFromTheTimer) {
    Node n(1);
    n.aq.setup_aeq(4);  // 16 entries
    bool in_event = false;
    int calls = 0;
    int nested = 0;
    n.dev.core().aeq().set_on_overflow([&] {
        ++calls;
        nested += in_event ? 1 : 0;
    });
    for (int i = 0; i < 20; ++i) {  // the 16th writes OVERFLOW in the reserved slot
        in_event = true;
        n.dev.set_link(i % 2 == 0);
        in_event = false;
    }
    EXPECT_EQ(nested, 0) << "the re-raise ran inside the event write";
    ASSERT_EQ(n.aq.drain_aeq().size(), 16u);
    n.dev.timer_fire();  // the next OVERFLOW, then the re-raise
    n.dev.timer_fire();
    EXPECT_EQ(nested, 0);
    EXPECT_GE(calls, 1) << "no re-raise after the OVERFLOW";
    const auto got = n.aq.drain_aeq();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(Node::decode_aeq(got[0]).type, kEvAeqOverflow);
}

}  // namespace
}  // namespace scenic::test
