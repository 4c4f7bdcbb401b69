// SPDX-License-Identifier: MIT
// Completion counters per SCU slot (docs/scu.md 4.4): the RDMA engine counts each completed
// WRITE / READ / SEND of a QP on its slot (requester) and each message placed (responder), and a
// slot with a status page gets that counter's 8 bytes at once. QPs of other slots, and of slot
// indices past NUM_SLOTS, leave the counters alone.
#include <gtest/gtest.h>

#include <cstring>

#include "rdma_rig.hpp"
#include "scenic/scu_slots.hpp"

namespace scenic::test {
namespace {

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;

class ScuCompletions : public ::testing::Test {
  protected:
    // QP kQa on slot `scu_a` of card a, kQb on slot `scu_b` of card b.
    void setup(uint32_t scu_a, uint32_t scu_b) {
        p.setup(kQa, kQb, {}, 10, false, scu_a, scu_b);
        ka = p.a.reg_mr(Node::kVa, 64 * 1024, kAll);
        kb = p.b.reg_mr(Node::kVa, 64 * 1024, kAll);
    }
    static const std::array<uint64_t, 7>& done(Node& n, unsigned slot) {
        return n.dev.scu().slots().counters(slot).completions;
    }

    RdmaPair p;
    uint32_t ka = 0, kb = 0;
};

TEST_F(ScuCompletions, RequesterAndResponderCountOnTheirSlots) {
    setup(2, 5);
    const uint64_t page = p.a.alloc(4096, 4096);
    scu::SlotManager& ma = p.a.dev.scu().slots();
    ASSERT_EQ(ma.set_status_page(2, page), admin::ScuStatus::kOk);

    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 3000, ka)}, Node::kVa + 8192, kb));
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 10, ka)}, Node::kVa + 8192, kb));
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_READ, {sge(Node::kVa + 16384, 2000, ka)}, Node::kVa, kb));
    p.b.post_recv(kQb, {sge(Node::kVa + 32768, 4096, kb)});
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa, 100, ka)}, 0, 0));
    // The page's 1 ms rewrite keeps a timer pending, so run() ends at its time limit.
    (void)p.run(50'000'000);
    ASSERT_EQ(p.a.sq_completed(kQa), 4u);

    EXPECT_EQ(done(p.a, 2)[scu::kRemoteWrite], 2u);
    EXPECT_EQ(done(p.a, 2)[scu::kRemoteRead], 1u);
    EXPECT_EQ(done(p.a, 2)[scu::kRemoteSend], 1u);
    EXPECT_EQ(done(p.a, 2)[scu::kRecvWrite], 0u);
    EXPECT_EQ(done(p.b, 5)[scu::kRecvWrite], 2u);  // messages, not packets
    EXPECT_EQ(done(p.b, 5)[scu::kRecvSend], 1u);
    EXPECT_EQ(done(p.b, 5)[scu::kRemoteWrite], 0u);
    EXPECT_EQ(done(p.a, 0), (std::array<uint64_t, 7>{}));  // other slots untouched
    EXPECT_EQ(done(p.b, 2), (std::array<uint64_t, 7>{}));

    // The status page has the counts already, without a flush.
    const auto at = [&](unsigned op) {
        uint64_t v = 0;
        std::memcpy(&v, p.a.bus(page + 0x40 + 8 * op), 8);
        return v;
    };
    EXPECT_EQ(at(scu::kRemoteWrite), 2u);
    EXPECT_EQ(at(scu::kRemoteRead), 1u);
    EXPECT_EQ(at(scu::kRemoteSend), 1u);
}

TEST_F(ScuCompletions, SlotIndexPastTheCardIsIgnored) {
    setup(200, 0);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 64, ka)}, Node::kVa, kb));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQa), 1u);
    for (unsigned s = 0; s < p.a.dev.scu().slots().num_slots(); ++s) {
        EXPECT_EQ(done(p.a, s)[scu::kRemoteWrite], 0u) << "slot " << s;
    }
    EXPECT_EQ(done(p.b, 0)[scu::kRecvWrite], 1u);  // slot 0 counts too
}

}  // namespace
}  // namespace scenic::test
