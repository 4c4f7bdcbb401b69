// SPDX-License-Identifier: MIT
// Defect 1 of issue 15: the card's own DMA re-entering it. A guest that places a QP's status page
// over CORE.AQ_SQ_TAIL makes the card's ACK-timeout path (run from the host timer) write the QP
// state 6 (ERR) into its own admin doorbell: with a DESTROY_QP of that QP staged in SQ slot 5, the
// card would fetch it and free the QP while set_state / enter_error / flush still used it. The
// FakeHost routes DMA that lands on the BARs back into the device, as QEMU's memory core does.
#include <gtest/gtest.h>

#include <cstddef>

#include "containment_card.hpp"

namespace scenic::test {
namespace {

constexpr uint64_t kStateOff = offsetof(scenic_qp_status, state);

// The QP's status page placed so that its state word is CORE.AQ_SQ_TAIL, a DESTROY_QP of the QP
// staged (not rung) in SQ slot 5, the QP brought to RTS with one retry-less SEND in flight, then
// the ACK timeout. Afterwards the staged entry becomes a NOP, so the test's own next command does
// not run it.
void provoke(Card& c) {
    c.host.route = &c.dev;
    const uint64_t status =
        c.host.bar0_base + regs::core::kOffset + regs::core::kAqSqTail - kStateOff;
    c.create_cq();
    ASSERT_EQ(c.create_qp(status), 0u);
    c.to_rts(/*timeout=*/1, /*retry_cnt=*/0, /*rnr_retry=*/0);
    ASSERT_EQ(c.aq.sq_tail(), kQpsErr - 1);  // the staged entry is the one a tail of 6 would run
    const uint32_t slot = c.aq.sq_tail();
    c.aq.put(encode_cmd(kOpDestroyQp, {Card::kQpn}));
    c.post_send();
    ASSERT_EQ(c.host.wire.size(), 1u);  // the SEND left; no peer answers
    c.host.run_for(c.dev, 1'000'000);
    c.aq.rewrite(slot, sqe(admin::AqOpcode::kNop));
}

void expect_qp_failed_not_freed(Card& c) {
    // The QP still exists, in ERR, and its SEND completed with RETRY_EXC_ERR.
    const auto [st, state] = c.query();
    EXPECT_EQ(st, 0u) << "the QP was destroyed by the card's own DMA";
    EXPECT_EQ(state, kQpsErr);
    const auto cqes = c.poll();
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRetryExcErr);
    EXPECT_EQ(cqes[0].qpn, Card::kQpn);
    EXPECT_EQ(cqes[0].wqe_idx, 0u);
    EXPECT_EQ(c.counters().ack_timeouts, 1u);
}

// (a) the host tells the model where its BARs are: the DMA is refused like a DMA error.
TEST(ContainmentReentry, StatusPageOverCmdOpIsRefused) {
    Card c;
    provoke(c);
    expect_qp_failed_not_freed(c);
    EXPECT_GE(c.dev.self_accesses_refused(), 1u);
    EXPECT_GE(c.counters().dma_errors, 1u);
    EXPECT_EQ(c.dev.reentries(), 0u);  // nothing reached the card a second time
}

// (b) a host that does not know the BARs (or an IOMMU mapping that hides them): the write does
// re-enter, and the card refuses a call while it is running.
TEST(ContainmentReentry, NestedCallIsRefusedWhenBarsUnknown) {
    Card c;
    c.host.announce_bars = false;
    provoke(c);
    expect_qp_failed_not_freed(c);
    EXPECT_EQ(c.dev.self_accesses_refused(), 0u);
    EXPECT_GE(c.dev.reentries(), 1u);
}

// A doorbell BAR target and a DMA read from BAR0 are refused too.
TEST(ContainmentReentry, DoorbellBarAndReadsAreRefused) {
    Card c;
    c.host.route = &c.dev;
    c.create_cq();
    // SQ ring over the doorbell BAR: fetching a WQE is a DMA read there.
    const uint64_t sq = c.host.db_base;
    ASSERT_EQ(c.cmd(kOpCreateQp, {Card::kQpn, Card::lo(sq), Card::hi(sq), Card::kLog2,
                                  Card::lo(Card::kRq), Card::hi(Card::kRq), Card::kLog2, 0, 0, 1, 0,
                                  Card::lo(Card::kStatus), Card::hi(Card::kStatus), 0, 0}),
              0u);
    c.to_rts(1, 0, 0);
    c.db_sq(1);
    EXPECT_GE(c.dev.self_accesses_refused(), 1u);
    const auto cqes = c.poll();
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcLocQpOpErr);  // the fetch failed like any DMA error
}

// An MSI-X message whose address the guest pointed at BAR0 (here at CORE.CTRL's soft reset) is
// not sent.
TEST(ContainmentReentry, MsixIntoOwnBarIsRefused) {
    Card c;
    c.host.route = &c.dev;
    c.host.msix_addr[regs::kVecRdma] = c.host.bar0_base + regs::rdma::kOffset + regs::rdma::kCtrl;
    c.create_cq();
    ASSERT_EQ(c.create_qp(), 0u);
    c.dev.db_write(uint64_t{regs::rdma::kMaxQpDefault} * 4096 + SCENIC_DB_CQ_ARM, 0, 4);
    c.to_rts(1, 0, 0);
    c.post_send();
    c.host.run_for(c.dev, 1'000'000);  // retry exceeded: an error CQE on the armed CQ
    EXPECT_GE(c.dev.self_accesses_refused(), 1u);
    EXPECT_EQ(c.r(regs::rdma::kCtrl) & regs::rdma::kCtrlEnable.mask, regs::rdma::kCtrlEnable.mask)
        << "the message (vector number as data) reached RDMA.CTRL";
}

// (c) even a destroy that reaches the engine while it holds the QP (no entry guard in the way)
// does not free it under the caller: it is freed when the call into the card returns.
TEST(ContainmentReentry, DestroyUnderTheCallerIsDeferred) {
    Card c;
    c.create_cq();
    ASSERT_EQ(c.create_qp(), 0u);
    c.to_rts(1, 0, 0);
    bool destroyed = false;
    c.host.on_dma_write = [&](uint64_t addr, std::span<const uint8_t> src) {
        uint32_t v = 0;
        if (addr == Card::kStatus + kStateOff && src.size() == 4 &&
            (std::memcpy(&v, src.data(), 4), v == kQpsErr) && !destroyed) {
            destroyed = true;
            const Sqe e = encode_cmd(kOpDestroyQp, {Card::kQpn});
            std::array<uint8_t, kAqResultBytes> res{};
            EXPECT_TRUE(c.dev.rdma().engine().command(e, res).ok());
        }
    };
    c.post_send();
    c.host.run_for(c.dev, 1'000'000);  // ASan: no use after free in set_state / flush
    EXPECT_TRUE(destroyed);
    EXPECT_EQ(c.query().first, static_cast<uint32_t>(kStNotFound));
    EXPECT_EQ(c.dev.pending_events(), 0u);  // nothing of the QP left behind
}

// A reset requested from inside the card (an FLR written through its own DMA) waits for the
// outer call: the card is reset, the caller finished first.
TEST(ContainmentReentry, ResetFromInsideIsDeferred) {
    Card c;
    c.create_cq();
    ASSERT_EQ(c.create_qp(), 0u);
    c.to_rts(1, 0, 0);
    bool reset_seen = false;
    c.host.on_dma_write = [&](uint64_t addr, std::span<const uint8_t>) {
        if (addr == Card::kStatus + kStateOff && !reset_seen) {
            reset_seen = true;
            c.dev.reset();
        }
    };
    c.post_send();
    c.host.run_for(c.dev, 1'000'000);
    EXPECT_TRUE(reset_seen);
    EXPECT_EQ(c.r(regs::rdma::kCtrl), 0u);  // reset happened
    c.aq.setup(c.aq.layout());              // the driver sets the admin queue up again
    EXPECT_EQ(c.query().first, static_cast<uint32_t>(kStNotFound));
}

}  // namespace
}  // namespace scenic::test
