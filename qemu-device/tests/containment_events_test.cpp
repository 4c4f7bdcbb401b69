// SPDX-License-Identifier: MIT
// Defect 3 of issue 15: deferred events were never cancelled. Every RESET->RTS cycle left an ACK
// timer behind (up to hours with timeout 31), every RNR NAK added a wait, and EventQueue::cancel
// walked the whole queue. Now a QP has one event slot per kind, cancelled on RESET and destroy.
#include <gtest/gtest.h>

#include "containment_card.hpp"
#include "scenic/event_queue.hpp"

namespace scenic::test {
namespace {

constexpr size_t kBound = 16;  // events a card with one QP may hold at any time

TEST(ContainmentEvents, ModifyCyclesLeaveNoTimersBehind) {
    Card c;
    c.create_cq();
    ASSERT_EQ(c.create_qp(), 0u);
    size_t most = 0;
    for (int i = 0; i < 100'000; ++i) {
        // timeout 31: the ACK timer of the SEND would fire after ~2.4 hours
        c.to_rts(/*timeout=*/31, 7, 7);
        if (HasFatalFailure()) {
            return;
        }
        c.post_send();
        ASSERT_EQ(c.host.wire.size(), 1u) << "cycle " << i;
        c.host.wire.clear();
        ASSERT_EQ(c.modify({Card::kQpn, kAttrState, kQpsReset}), 0u);
        c.sq_pi = 0;  // the card's indices are back at 0 after RESET
        most = std::max(most, c.dev.pending_events());
    }
    EXPECT_LE(most, kBound);
    EXPECT_EQ(c.dev.pending_events(), 0u);  // RESET cancelled the last cycle's timers
    EXPECT_EQ(c.counters().tx_pkts, 100'000u);
}

TEST(ContainmentEvents, RnrNaksDoNotAccumulateWaits) {
    Card c;
    c.create_cq();
    ASSERT_EQ(c.create_qp(), 0u);
    c.to_rts(/*timeout=*/14, 7, /*rnr_retry=*/7);  // 7: retry RNR for ever
    c.post_send();
    ASSERT_EQ(c.host.wire.size(), 1u);
    roce::Transport t;
    t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kAck);
    t.bth.psn = Card::kSqPsn;
    t.aeth = roce::Aeth::rnr_nak(0, 0);  // code 0: wait 655.36 ms
    const std::vector<uint8_t> nak = Card::from_peer(t);
    for (int i = 0; i < 10'000; ++i) {
        c.dev.eth_rx(nak);
    }
    EXPECT_EQ(c.counters().rnr_nak_rcvd, 10'000u);
    EXPECT_LE(c.dev.pending_events(), kBound);
    // The wait still works: the SEND goes again once the (last) RNR timer expired.
    c.host.wire.clear();
    c.host.run_for(c.dev, 700'000'000);
    EXPECT_GE(c.host.wire.size(), 1u);
}

TEST(ContainmentEvents, DestroyCancelsTheQpsEvents) {
    Card c;
    c.create_cq();
    ASSERT_EQ(c.create_qp(), 0u);
    c.to_rts(31, 7, 7);
    c.post_send();
    EXPECT_GE(c.dev.pending_events(), 1u);  // the ACK timer
    ASSERT_EQ(c.cmd(kOpDestroyQp, {Card::kQpn}), 0u);
    EXPECT_EQ(c.dev.pending_events(), 0u);
}

// cancel() finds the event by its id (no walk over the queue) and leaves the others.
TEST(ContainmentEvents, CancelIsByIdAndKeepsOthers) {
    FakeHost host;
    EventQueue q(host);
    std::vector<EventQueue::Id> ids;
    int ran = 0;
    for (int i = 0; i < 200'000; ++i) {
        ids.push_back(q.schedule_in(1000 + static_cast<uint64_t>(i % 7), [&ran] { ++ran; }));
    }
    for (size_t i = 0; i < ids.size(); i += 2) {
        q.cancel(ids[i]);
    }
    q.cancel(ids[0]);  // twice: ignored
    EXPECT_EQ(q.size(), 100'000u);
    host.now += 2000;
    q.fire();
    EXPECT_EQ(ran, 100'000);
    EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace scenic::test
