// SPDX-License-Identifier: MIT
// The card's transmit arbiter (rdma_tx_arbiter): many QPs share a wire whose buffer holds a
// limited burst (as the host's UDP buffers on the emulated rig do) without one QP taking it.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "rdma_rig.hpp"
#include "scenic/rdma_engine.hpp"

namespace scenic::test {
namespace {

double jain(const std::vector<double>& x) {
    const double s = std::accumulate(x.begin(), x.end(), 0.0);
    const double s2 = std::inner_product(x.begin(), x.end(), x.begin(), 0.0);
    return s * s / (static_cast<double>(x.size()) * s2);
}

// 32 QPs, each with 8 x 16 KiB WRITEs queued, over a wire that drops what exceeds a 160-frame
// burst: every QP gets its share of the wire (Jain's index over the bytes each has completed
// when the first QP is done >= 0.99), the card never has more than kCardWindowBytes of new
// PSNs in flight, and everything completes with intact data.
TEST(RdmaArbiter, QpsShareABurstLimitedWireFairly) {
    RdmaPair p;
    constexpr uint32_t kQps = 32;
    constexpr uint32_t kWrites = 8;
    constexpr uint32_t kLen = 16 * 1024;
    p.setup_many(kQps, 4, 2);  // 16 SQ / 4 RQ slots: 32 QPs fit the rig's rings
    const uint32_t ak = p.a.reg_mr(Node::kVa, kQps * kLen, kAll);
    const uint32_t bk = p.b.reg_mr(Node::kVa, kQps * kLen, kAll);
    p.a.fill_va(Node::kVa, kQps * kLen, 7);
    for (uint32_t n = 0; n < kQps; ++n) {  // QP by QP: the first ones would take the wire
        const uint64_t va = Node::kVa + uint64_t{n} * kLen;
        for (uint32_t i = 0; i < kWrites; ++i) {
            p.a.post_send(2 + n, make_wqe(SCENIC_WQE_OP_WRITE, {sge(va, kLen, ak)}, va, bk));
        }
    }
    // The wire holds a burst of 160 frames per direction and step; the rest is dropped.
    size_t burst = 0;
    RdmaPair::Dir last = RdmaPair::Dir::kBtoA;
    uint64_t last_t = 0;
    const rdma::Engine& eng = p.a.dev.rdma().engine();
    uint32_t max_in_flight = 0;
    std::vector<double> done_at_first(kQps, 0.0);
    bool first_done = false;
    p.hook = [&](RdmaPair::Dir d, std::vector<uint8_t>&, const roce::ParsedPacket&) {
        if (d != last || p.a.host.now != last_t) {
            burst = 0;
        }
        last = d;
        last_t = p.a.host.now;
        max_in_flight = std::max(max_in_flight, eng.arbiter_in_flight());
        return ++burst > 160 ? RdmaPair::Fate::kDrop : RdmaPair::Fate::kPass;
    };
    p.after = [&](RdmaPair::Dir, const roce::ParsedPacket&) {
        if (first_done) {
            return;
        }
        for (uint32_t n = 0; n < kQps; ++n) {
            if (p.a.sq_completed(2 + n) == kWrites) {
                first_done = true;
            }
        }
        if (first_done) {
            for (uint32_t n = 0; n < kQps; ++n) {
                done_at_first[n] = static_cast<double>(p.a.sq_completed(2 + n));
            }
        }
    };
    ASSERT_TRUE(p.run(20'000'000'000));
    for (uint32_t n = 0; n < kQps; ++n) {
        EXPECT_EQ(p.a.sq_completed(2 + n), kWrites) << "QP " << 2 + n;
    }
    EXPECT_EQ(p.b.read_va(Node::kVa, kQps * kLen), p.a.read_va(Node::kVa, kQps * kLen));
    EXPECT_LE(max_in_flight, rdma::kCardWindowBytes);
    ASSERT_TRUE(first_done);
    const double j = jain(done_at_first);
    EXPECT_GE(j, 0.99) << "completed WRITEs per QP when the first QP was done, Jain " << j;
    EXPECT_EQ(p.a.r(regs::rdma::kAckTimeouts), 0u);
}

// A QP whose every frame is lost (its peer gone) fills the card's window; another QP's WRITE
// queued behind it still completes at once (its packets ask for ACKs when the card's window is
// full, and the lost QP's share is released at its ACK timeout), long before the lost QP's
// retries are exhausted (retry_cnt 7: eight timeout periods).
TEST(RdmaArbiter, ARetransmittingQpDoesNotStallTheOthers) {
    RdmaPair p;
    p.setup_many(2);
    const uint32_t ak = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
    // First QP 2's congestion window grows past the card's window on a clean wire.
    for (int i = 0; i < 8; ++i) {
        p.a.post_send(2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 65536, ak)}, Node::kVa, bk));
    }
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(2), 8u);
    ASSERT_GE(p.a.dev.rdma().engine().qp(2)->req.cwnd * 1024, rdma::kCardWindowBytes);
    const uint32_t timeouts = p.a.r(regs::rdma::kAckTimeouts);
    p.hook = [](RdmaPair::Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        return d == RdmaPair::Dir::kAtoB && pkt.transport.bth.dest_qp == 2 ? RdmaPair::Fate::kDrop
                                                                           : RdmaPair::Fate::kPass;
    };
    const uint64_t t0 = p.a.host.now;
    uint64_t done3 = 0;
    p.after = [&](RdmaPair::Dir, const roce::ParsedPacket&) {
        if (done3 == 0 && p.a.sq_completed(3) == 1) {
            done3 = p.a.host.now;
        }
    };
    // Now QP 2 fills the card's window with a 64 KiB WRITE that never arrives; QP 3 waits
    // behind it.
    p.a.post_send(2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 65536, ak)}, Node::kVa, bk));
    p.a.post_send(3, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa + 65536, 16384, ak)},
                              Node::kVa + 65536, bk));
    ASSERT_TRUE(p.run());
    const uint64_t timeout = 4096ull << QpAttrs{}.timeout;
    ASSERT_NE(done3, 0u);
    EXPECT_LT(done3 - t0, timeout / 4);  // it never waits for an ACK timeout of its own
    EXPECT_EQ(p.b.read_va(Node::kVa + 65536, 16384), p.a.read_va(Node::kVa + 65536, 16384));
    EXPECT_EQ(p.a.r(regs::rdma::kAckTimeouts) - timeouts, 8u);  // QP 2: 7 retries, RETRY_EXC
    EXPECT_EQ(p.a.query(2).state, uint32_t{kQpsErr});
}

// A QP alone on the card may have more than the turn-sized card window in flight
// (kSoloWindowBytes: one stream does not stop and wait for every ACK). Once a second QP sends,
// the card's window is kCardWindowBytes again: the newcomer's new PSNs never leave above it,
// and both QPs complete with intact data.
TEST(RdmaArbiter, ALoneQpGetsTheSoloWindowASecondQpSharesTheCardWindow) {
    RdmaPair p;
    p.setup_many(2);
    constexpr uint32_t kLen = 65536;
    constexpr uint32_t kWrites = 16;
    const uint32_t ak = p.a.reg_mr(Node::kVa, 2 * kWrites * kLen, kAll);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 2 * kWrites * kLen, kAll);
    p.a.fill_va(Node::kVa, 2 * kWrites * kLen, 5);
    rdma::Engine& eng = p.a.dev.rdma().engine();
    uint32_t max_in_flight = 0;
    // In flight as QP 3 sends while QP 2 has PSNs in flight too (no loss: every PSN is new).
    uint32_t max_at_qp3 = 0;
    p.a.host.on_send = [&](std::span<const uint8_t> frame) {
        const roce::ParseResult pr = roce::parse_frame(frame);
        ASSERT_TRUE(pr.ok());
        const uint32_t now = eng.arbiter_in_flight();
        max_in_flight = std::max(max_in_flight, now);
        if (pr.packet.transport.bth.dest_qp == 3 && eng.qp(2)->req.charged != 0) {
            max_at_qp3 = std::max(max_at_qp3, now);
        }
    };
    auto write = [&](uint32_t qpn, uint32_t i) {
        const uint64_t va = Node::kVa + uint64_t{i} * kLen;
        p.a.post_send(qpn, make_wqe(SCENIC_WQE_OP_WRITE, {sge(va, kLen, ak)}, va, bk));
    };
    for (uint32_t i = 0; i < kWrites; ++i) {
        write(2, i);
    }
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(2), kWrites);
    EXPECT_GT(max_in_flight, rdma::kCardWindowBytes);
    EXPECT_LE(max_in_flight, rdma::kSoloWindowBytes);

    for (uint32_t i = 0; i < kWrites; ++i) {
        write(2, i);
        write(3, kWrites + i);
    }
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(2), 2 * kWrites);
    EXPECT_EQ(p.a.sq_completed(3), kWrites);
    ASSERT_NE(max_at_qp3, 0u);
    EXPECT_LT(max_at_qp3, rdma::kCardWindowBytes + QpAttrs{}.pmtu);
    EXPECT_EQ(p.b.read_va(Node::kVa, 2 * kWrites * kLen),
              p.a.read_va(Node::kVa, 2 * kWrites * kLen));
    EXPECT_EQ(p.a.r(regs::rdma::kAckTimeouts), 0u);
}

}  // namespace
}  // namespace scenic::test
