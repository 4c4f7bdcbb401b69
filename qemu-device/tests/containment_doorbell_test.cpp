// SPDX-License-Identifier: MIT
// Defect 7 of issue 15: a backward SQ doorbell (an index behind sq_next) was accepted, and the
// ERR flush then walked ~2^32 slots in QEMU's main loop. Producer indices are accepted only in
// [sq_next, oldest + size] (modulo 2^32), from the doorbell register and from the record.
#include <gtest/gtest.h>

#include <cstddef>

#include "containment_card.hpp"

namespace scenic::test {
namespace {

// Flushes until the card has nothing left to do; the number of CQEs it wrote.
size_t flush_all(Card& c, std::vector<scenic_cqe>& out) {
    for (int i = 0; i < 1000; ++i) {
        c.host.run_for(c.dev, 1000);
        for (const auto& e : c.poll()) {
            out.push_back(e);
        }
    }
    for (const auto& e : c.poll()) {
        out.push_back(e);
    }
    return out.size();
}

TEST(ContainmentDoorbell, BackwardSqDoorbellIsRefusedAndFlushEnds) {
    Card c;
    c.create_cq();
    ASSERT_EQ(c.create_qp(), 0u);
    c.to_rts(/*timeout=*/31, 7, 7);
    for (int i = 0; i < 5; ++i) {
        c.post_send();  // fetched and sent: sq_next = 5
    }
    ASSERT_EQ(c.host.wire.size(), 5u);
    const uint32_t ignored = c.counters().db_ignored;
    c.db_sq(3);             // behind sq_next
    c.db_sq(0xffff'fff0u);  // far behind (would be ~2^32 slots ahead of sq_next)
    EXPECT_EQ(c.counters().db_ignored, ignored + 2);
    ASSERT_EQ(c.modify({Card::kQpn, kAttrState, kQpsErr}), 0u);
    std::vector<scenic_cqe> cqes;
    EXPECT_EQ(flush_all(c, cqes), 5u);  // the five SENDs, flushed
    for (const auto& e : cqes) {
        EXPECT_EQ(e.status, rdma::kWcFlushErr);
    }
    EXPECT_EQ(c.counters().cq_overruns, 0u) << "the flush ran past the posted WQEs";
    EXPECT_LE(c.dev.pending_events(), 2u);
    // In ERR a doorbell flushes at once; a backward one is still refused.
    c.db_sq(2);
    EXPECT_EQ(c.counters().db_ignored, ignored + 3);
    EXPECT_EQ(flush_all(c, cqes), 5u);
}

TEST(ContainmentDoorbell, BackwardSqRecordIsRefused) {
    Card c;
    c.create_cq();
    ASSERT_EQ(c.create_qp(Card::kStatus, Card::kDbrec), 0u);
    c.to_rts(31, 7, 7);
    for (int i = 0; i < 4; ++i) {
        c.post_send();
    }
    ASSERT_EQ(c.host.wire.size(), 4u);
    // The record claims an index behind what the card fetched; ERR reads it.
    const uint32_t back = 1;
    std::memcpy(&c.host.mem[Card::kDbrec - FakeHost::kBase], &back, 4);
    const uint32_t ignored = c.counters().db_ignored;
    ASSERT_EQ(c.modify({Card::kQpn, kAttrState, kQpsErr}), 0u);
    EXPECT_GT(c.counters().db_ignored, ignored);
    std::vector<scenic_cqe> cqes;
    EXPECT_EQ(flush_all(c, cqes), 4u);
    EXPECT_EQ(c.counters().cq_overruns, 0u);
}

TEST(ContainmentDoorbell, RqDoorbellBehindTheWqeInUseIsRefused) {
    Card c;
    c.create_cq();
    ASSERT_EQ(c.create_qp(), 0u);
    c.to_rts(31, 7, 7);
    // Two receive WQEs (one 64-byte SGE each at an unused spot of host memory).
    for (uint32_t i = 0; i < 2; ++i) {
        scenic_rq_wqe wqe{};
        wqe.num_sge = 1;
        wqe.sge[0] = {FakeHost::kBase + 0x20000, 64, 0};
        std::memcpy(&c.host.mem[Card::kRq + i * SCENIC_RQ_WQE_BYTES - FakeHost::kBase], &wqe,
                    SCENIC_RQ_WQE_BYTES);
    }
    c.dev.db_write(uint64_t{Card::kQpn} * 4096 + SCENIC_DB_RQ, 2, 4);
    const uint32_t ignored = c.counters().db_ignored;
    c.dev.db_write(uint64_t{Card::kQpn} * 4096 + SCENIC_DB_RQ, 0xffff'ffffu, 4);
    EXPECT_EQ(c.counters().db_ignored, ignored + 1);
    ASSERT_EQ(c.modify({Card::kQpn, kAttrState, kQpsErr}), 0u);
    std::vector<scenic_cqe> cqes;
    EXPECT_EQ(flush_all(c, cqes), 2u);
}

TEST(ContainmentDoorbell, CqConsumerIndexPastTheCqesIsRefused) {
    Card c;
    c.create_cq();
    const uint32_t ignored = c.counters().db_ignored;
    // No CQE written yet: any consumer index but 0 claims CQEs that do not exist.
    c.dev.db_write(uint64_t{regs::rdma::kMaxQpDefault} * 4096 + SCENIC_DB_CQ_CI, 5, 4);
    c.dev.db_write(uint64_t{regs::rdma::kMaxQpDefault} * 4096 + SCENIC_DB_CQ_ARM, 7, 4);
    EXPECT_EQ(c.counters().db_ignored, ignored + 2);
    // The CQ still works: an error completion lands in slot 0.
    ASSERT_EQ(c.create_qp(), 0u);
    c.to_rts(1, 0, 0);
    c.post_send();
    c.host.run_for(c.dev, 1'000'000);
    const auto cqes = c.poll();
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRetryExcErr);
    EXPECT_EQ(c.counters().cq_overruns, 0u);
}

}  // namespace
}  // namespace scenic::test
