// SPDX-License-Identifier: MIT
// RDMA engine, error and recovery paths: protection errors, RNR, lost packets (go-back-N,
// sequence NAK, ACK timeout), random loss, duplicates, flush on ERR, retry exhaustion, TLB
// misses, CQ overrun, the completion-counter / error-CQE order.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

using Dir = RdmaPair::Dir;
using roce::Opcode;

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint64_t kSrc = Node::kVa;
constexpr uint64_t kDst = Node::kVa + 0x80000;

class RdmaRecovery : public ::testing::Test {
  protected:
    explicit RdmaRecovery(uint32_t ppm = 0, uint64_t seed = 42) : p(ppm, seed) {}
    void SetUp() override { setup(QpAttrs{}); }
    void setup(const QpAttrs& at) {
        p.setup(kQa, kQb, at);
        a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
    }
    void TearDown() override { EXPECT_EQ(p.bad_frames, 0u); }
    uint32_t ra(uint32_t off) const { return p.a.r(off); }
    uint32_t rb(uint32_t off) const { return p.b.r(off); }
    static bool is(const roce::ParsedPacket& pkt, Opcode op) {
        return pkt.transport.bth.opcode == static_cast<uint8_t>(op);
    }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

TEST_F(RdmaRecovery, BadRkeyIsRemoteAccessErrorAndNothingWritten) {
    p.a.fill_va(kSrc, 4096, 1);
    p.b.fill_va(kDst, 4096, 0x77);
    const auto before = p.b.read_va(kDst, 4096);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 4096, a_key)}, kDst,
                                b_key ^ 0x01));  // wrong tag
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 16, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.read_va(kDst, 4096), before);
    EXPECT_EQ(p.a.sq_completed(kQa), 0u);
    const auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 2u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemAccessErr);
    EXPECT_EQ(cqes[0].wqe_idx, 0u);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_WRITE);
    EXPECT_TRUE(cqes[0].flags & SCENIC_CQE_F_SQ);
    EXPECT_EQ(cqes[1].status, rdma::kWcFlushErr);  // the next one is flushed
    EXPECT_EQ(cqes[1].wqe_idx, 1u);
    EXPECT_EQ(p.a.status_state(kQa), uint32_t{kQpsErr});
    EXPECT_EQ(p.b.status_state(kQb), uint32_t{kQpsErr});  // responder QP to ERR
    EXPECT_EQ(rb(regs::rdma::kRemAccessErr), 1u);
    EXPECT_EQ(p.b.count_events(kEvQpErr), 1u);
}

TEST_F(RdmaRecovery, OutOfBoundsAndMissingAccessAreRemoteAccessErrors) {
    const uint32_t ro = p.b.reg_mr(Node::kVa + (2 << 20), 4096, rdma::kAccessRemoteRead);
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, Node::kVa + (2 << 20), ro));
    ASSERT_TRUE(p.run());
    auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemAccessErr);

    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 8192, kAll);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 8192, kAll);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc, 16, ak)}, Node::kVa + 8190, bk));
    ASSERT_TRUE(q.run());
    cqes = q.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemAccessErr);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_READ);
}

TEST_F(RdmaRecovery, KeysOfAnotherPdAreRefused) {
    // Same key, bounds and access, but the MR belongs to another protection domain.
    const uint64_t va = Node::kVa + (2 << 20);
    const uint32_t other_b = p.b.reg_mr(va, 4096, kAll, true, Node::kPd + 1);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, va, other_b));
    ASSERT_TRUE(p.run());
    auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemAccessErr);  // remote: IBV_WC_REM_ACCESS_ERR

    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t other_a = q.a.reg_mr(Node::kVa, 4096, kAll, true, Node::kPd + 1);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 8, other_a)}, Node::kVa, bk));
    ASSERT_TRUE(q.run());
    cqes = q.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcLocProtErr);  // local: IBV_WC_LOC_PROT_ERR
}

TEST_F(RdmaRecovery, BadLkeyIsLocalProtectionErrorWithNothingSent) {
    const size_t frames = p.frames;
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 64, a_key + 0x100)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    const auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcLocProtErr);
    EXPECT_EQ(p.frames, frames);
    // A READ into memory without LOCAL_WRITE is refused the same way.
    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t ro = q.a.reg_mr(Node::kVa, 4096, rdma::kAccessRemoteRead);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(Node::kVa, 8, ro)}, Node::kVa, bk));
    ASSERT_TRUE(q.run());
    const auto c2 = q.a.poll(0);
    ASSERT_EQ(c2.size(), 1u);
    EXPECT_EQ(c2[0].status, rdma::kWcLocProtErr);
}

TEST_F(RdmaRecovery, CounterIsWrittenBeforeTheErrorCqe) {
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, 0x12345));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    const auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].wqe_idx, 2u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemAccessErr);
}

TEST_F(RdmaRecovery, TooSmallReceiveBuffer) {
    p.b.post_recv(kQb, {sge(kDst, 100, b_key)});
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 3000, a_key)}));
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, rdma::kWcLocLenErr);
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, rdma::kWcRemInvReqErr);
    EXPECT_EQ(rb(regs::rdma::kRemInvReq), 1u);
}

TEST_F(RdmaRecovery, RnrWaitsForAReceive) {
    p.a.fill_va(kSrc, 5000, 3);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 5000, a_key)}));
    // Deliver a few rounds by hand-less pumping: run until B has sent its RNR NAK, then post.
    p.drop = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && pkt.transport.aeth &&
            pkt.transport.aeth->type() == roce::AethType::kRnrNak &&
            rb(regs::rdma::kRnrNakSent) == 2) {
            p.b.post_recv(kQb, {sge(kDst, 8192, b_key)});
        }
        return false;
    };
    ASSERT_TRUE(p.run());
    EXPECT_GE(ra(regs::rdma::kRnrNakRcvd), 2u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].byte_len, 5000u);
    EXPECT_EQ(p.b.read_va(kDst, 5000), p.a.read_va(kSrc, 5000));
}

TEST_F(RdmaRecovery, RnrRetryExhausted) {
    RdmaPair q;
    QpAttrs at;
    at.rnr_retry = 2;
    q.setup(kQa, kQb, at);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 4096, kAll);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa, 10, ak)}));
    ASSERT_TRUE(q.run());
    const auto sc = q.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, rdma::kWcRnrRetryExcErr);
    EXPECT_EQ(q.a.r(regs::rdma::kRnrNakRcvd), 3u);  // first try + 2 retries
}

TEST_F(RdmaRecovery, LostMiddlePacketOneSeqNakAndDataIntact) {
    const uint32_t len = 20 * 1024;  // 20 packets
    p.a.fill_va(kSrc, len, 9);
    int seen = 0;
    p.drop = [&](Dir d, const roce::ParsedPacket& pkt) {
        return d == Dir::kAtoB && is(pkt, Opcode::kWriteMiddle) && ++seen == 5;
    };
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, len, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.dropped, 1u);
    EXPECT_EQ(rb(regs::rdma::kSeqNakSent), 1u);
    EXPECT_EQ(ra(regs::rdma::kSeqNakRcvd), 1u);
    EXPECT_GT(ra(regs::rdma::kRetransmits), 0u);
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, len), p.a.read_va(kSrc, len));
}

TEST_F(RdmaRecovery, LostLastPacketRecoversByAckTimeout) {
    const uint32_t len = 4 * 1024;
    p.a.fill_va(kSrc, len, 19);
    bool dropped = false;
    p.drop = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && is(pkt, Opcode::kWriteLast) && !dropped) {
            dropped = true;
            return true;
        }
        return false;
    };
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, len, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(rb(regs::rdma::kSeqNakSent), 0u);
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), 1u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, len), p.a.read_va(kSrc, len));
}

TEST_F(RdmaRecovery, LostReadResponseIsReRequested) {
    const uint32_t len = 8 * 1024;
    p.b.fill_va(kDst, len, 29);
    int n = 0;
    p.drop = [&](Dir d, const roce::ParsedPacket& pkt) {
        return d == Dir::kBtoA && is(pkt, Opcode::kReadResponseMiddle) && ++n == 2;
    };
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc, len, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_GE(rb(regs::rdma::kDupRequests), 1u);  // the READ asked again from the gap
    EXPECT_EQ(p.a.read_va(kSrc, len), p.b.read_va(kDst, len));
}

TEST_F(RdmaRecovery, DuplicatesAreAnsweredWithoutExecutingTwice) {
    // Lose the first ACKs back: SEND, WRITE_IMM and FAA are retransmitted after the timeout.
    int acks = 0;
    p.drop = [&](Dir d, const roce::ParsedPacket& pkt) {
        return d == Dir::kBtoA && (is(pkt, Opcode::kAck) || is(pkt, Opcode::kAtomicAck)) &&
               ++acks <= 3;
    };
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    uint64_t zero = 0;
    p.b.write_va(kDst + 4096, std::span(reinterpret_cast<const uint8_t*>(&zero), 8));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 64, a_key)}));
    auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kSrc + 128, 8, a_key)}, kDst + 4096, b_key);
    faa.compare_add = 10;
    p.a.post_send(kQa, faa);
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE_IMM, {sge(kSrc, 32, a_key)}, kDst + 8192, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);
    EXPECT_GE(rb(regs::rdma::kDupRequests), 1u);
    EXPECT_EQ(p.b.poll(1).size(), 2u);  // one SEND, one WRITE_IMM: no second receive
    uint64_t v = 0;
    std::memcpy(&v, p.b.read_va(kDst + 4096, 8).data(), 8);
    EXPECT_EQ(v, 10u);  // FAA executed once
    std::memcpy(&v, p.a.read_va(kSrc + 128, 8).data(), 8);
    EXPECT_EQ(v, 0u);  // the original value, also for the re-answered duplicate
}

TEST_F(RdmaRecovery, RetryExhaustedCompletesWithRetryExcErr) {
    RdmaPair q;
    QpAttrs at;
    at.retry_cnt = 2;
    q.setup(kQa, kQb, at);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 4096, kAll);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    q.drop = [](Dir d, const roce::ParsedPacket&) { return d == Dir::kAtoB; };
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 8, ak)}, Node::kVa, bk));
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 8, ak)}, Node::kVa, bk));
    ASSERT_TRUE(q.run());
    const auto sc = q.a.poll(0);
    ASSERT_EQ(sc.size(), 2u);
    EXPECT_EQ(sc[0].status, rdma::kWcRetryExcErr);
    EXPECT_EQ(sc[1].status, rdma::kWcFlushErr);
    EXPECT_EQ(q.a.r(regs::rdma::kAckTimeouts), 3u);
    EXPECT_EQ(q.a.status_state(kQa), uint32_t{kQpsErr});
}

TEST_F(RdmaRecovery, FlushOnErrCompletesEverythingInOrder) {
    p.drop = [](Dir, const roce::ParsedPacket&) { return true; };  // nothing gets through
    for (int i = 0; i < 5; ++i) {
        p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 64, a_key)}));
    }
    ASSERT_EQ(p.a.set_state(kQa, kQpsErr), 0u);
    ASSERT_EQ(p.b.set_state(kQb, kQpsErr), 0u);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 64, a_key)}, kDst, b_key));
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});  // posted in ERR: flushed too
    ASSERT_TRUE(p.run());
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 6u);
    for (uint32_t i = 0; i < 6; ++i) {
        EXPECT_EQ(sc[i].wqe_idx, i);
        EXPECT_EQ(sc[i].status, rdma::kWcFlushErr);
    }
    EXPECT_EQ(sc[5].opcode, SCENIC_CQE_OP_WRITE);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 6u);
    for (uint32_t i = 0; i < 6; ++i) {
        EXPECT_EQ(rc[i].wqe_idx, i);
        EXPECT_EQ(rc[i].status, rdma::kWcFlushErr);
        EXPECT_EQ(rc[i].opcode, SCENIC_CQE_OP_RECV);
    }
    EXPECT_EQ(p.a.sq_completed(kQa), 0u);
}

TEST_F(RdmaRecovery, ResetAndInitDropTrafficRtrOnlyReceives) {
    ASSERT_EQ(p.b.set_state(kQb, kQpsReset), 0u);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    p.run(50'000'000);
    EXPECT_GT(rb(regs::rdma::kRxDropQp), 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 0u);
}

TEST_F(RdmaRecovery, RtrReceivesButDoesNotSend) {
    RdmaPair q;
    q.setup(kQa, kQb, QpAttrs{}, 10, true);  // B stays in RTR
    const uint32_t ak = q.a.reg_mr(Node::kVa, 4096, kAll);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    q.a.fill_va(Node::kVa, 100, 4);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 100, ak)}, Node::kVa, bk));
    q.b.post_send(kQb, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 8, bk)}, Node::kVa, ak));
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.a.sq_completed(kQa), 1u);  // B executed and ACKed in RTR
    EXPECT_EQ(q.b.read_va(Node::kVa, 100), q.a.read_va(Node::kVa, 100));
    EXPECT_EQ(q.b.r(regs::rdma::kAcksSent), 1u);
    EXPECT_EQ(q.b.r(regs::rdma::kTxPkts), 1u);  // the ACK only: its SQ is not served in RTR
    EXPECT_EQ(q.b.sq_completed(kQb), 0u);
}

TEST_F(RdmaRecovery, SqdFinishesWhatIsInFlightAndFetchesNothingNew) {
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    ASSERT_EQ(p.a.set_state(kQa, kQpsSqd), 0u);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);  // the first was fetched before SQD
    ASSERT_EQ(p.a.set_state(kQa, kQpsRts), 0u);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
}

TEST_F(RdmaRecovery, SqdAsksForTheAckThatAFollowingWriteWillNotAskFor) {
    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 4096, kAll);
    const uint32_t ak2 = q.a.reg_mr(Node::kVa + 4096, 4096, kAll, false);  // not translated
    const uint32_t bk = q.b.reg_mr(Node::kVa, 8192, kAll);
    q.a.auto_fill = false;
    q.a.fill_va(Node::kVa, 8, 0x5a);
    std::vector<bool> asked;
    q.after = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB) asked.push_back(pkt.transport.bth.ackreq);
    };
    q.a.post_sends(
        kQa, {make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 8, ak)}, Node::kVa, bk),
              make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa + 4096, 8, ak2)}, Node::kVa + 64, bk)});
    // The first WRITE left the ACK request to the second, which waits for its translation;
    // in SQD the second does not begin, so the first is sent again asking for its ACK.
    ASSERT_EQ(q.a.set_state(kQa, kQpsSqd), 0u);
    ASSERT_TRUE(q.run());
    EXPECT_EQ(asked, (std::vector<bool>{false, true}));
    EXPECT_EQ(q.a.sq_completed(kQa), 1u);
    EXPECT_EQ(q.a.r(regs::rdma::kRetransmits), 1u);
    EXPECT_EQ(q.a.r(regs::rdma::kAckTimeouts), 0u);  // not left to the 4.2 ms timer
    EXPECT_EQ(q.b.read_va(Node::kVa, 8), q.a.read_va(Node::kVa, 8));
    EXPECT_EQ(q.b.r(regs::rdma::kDupRequests), 1u);
    // The driver answers the miss now; back in RTS the second WRITE goes.
    ASSERT_EQ(q.a.count_events(kEvTlbMiss), 1u);
    for (const Node::Event& e : q.a.events) {
        if (e.type == kEvTlbMiss) q.a.fill_page(e.a0, uint64_t{e.a2} << 32 | e.a1);
    }
    ASSERT_EQ(q.a.set_state(kQa, kQpsRts), 0u);
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.a.sq_completed(kQa), 2u);
}

TEST_F(RdmaRecovery, TlbMissEventFillAndCompletion) {
    RdmaPair q;
    q.setup(kQa, kQb);
    // Neither side fills translations up front: the requester pauses on its source pages, the
    // responder drops until the driver filled the target pages; go-back-N recovers.
    const uint32_t len = 5 * 4096 + 100;
    const uint32_t ak = q.a.reg_mr(Node::kVa, 8 * 4096, kAll, false);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 8 * 4096, kAll, false);
    q.a.fill_va(Node::kVa + 50, len, 5);
    q.a.post_send(
        kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa + 50, len, ak)}, Node::kVa + 30, bk));
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.a.sq_completed(kQa), 1u);
    EXPECT_EQ(q.b.read_va(Node::kVa + 30, len), q.a.read_va(Node::kVa + 50, len));
    EXPECT_EQ(q.a.count_events(kEvTlbMiss), 6u);  // once per page
    EXPECT_EQ(q.b.count_events(kEvTlbMiss), 6u);
    EXPECT_GT(q.b.r(regs::rdma::kRxDropTlbMiss), 0u);
    EXPECT_GE(q.a.r(regs::rdma::kTlbMisses), 6u);
    EXPECT_GT(q.a.r(regs::rdma::kTlbHits), 0u);
    EXPECT_EQ(q.bad_frames, 0u);
}

// Responder misses: a WRITE request that misses gets an RNR NAK and is resent after the timer;
// a READ response that misses stalls until the fill and goes on. Neither waits for the ACK
// timeout, and no sequence NAK is sent for the packets behind a miss.
TEST_F(RdmaRecovery, ResponderTlbMissesRecoverWithoutAckTimeout) {
    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t len = 6 * 4096;
    const uint32_t ak = q.a.reg_mr(Node::kVa, 16 * 4096, kAll);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 16 * 4096, kAll, false);
    q.a.fill_va(Node::kVa, len, 3);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, len, ak)}, Node::kVa, bk));
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.a.sq_completed(kQa), 1u);
    EXPECT_EQ(q.b.read_va(Node::kVa, len), q.a.read_va(Node::kVa, len));
    EXPECT_EQ(q.b.r(regs::rdma::kRnrNakSent), 6u);  // one per missing page, each resent
    EXPECT_EQ(q.a.r(regs::rdma::kRnrNakRcvd), 6u);
    EXPECT_EQ(q.b.r(regs::rdma::kSeqNakSent), 0u);

    // READ back from pages 6..11 of B, not translated yet.
    q.b.fill_va(Node::kVa + len, len, 9);
    q.a.post_send(
        kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(Node::kVa + len, len, ak)}, Node::kVa + len, bk));
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.a.sq_completed(kQa), 2u);
    EXPECT_EQ(q.a.read_va(Node::kVa + len, len), q.b.read_va(Node::kVa + len, len));
    EXPECT_EQ(q.b.count_events(kEvTlbMiss), 12u);
    EXPECT_EQ(q.b.r(regs::rdma::kRnrNakSent), 6u);   // READs stall, they are not NAKed
    EXPECT_EQ(q.a.r(regs::rdma::kAckTimeouts), 0u);  // nothing waited for the 4.2 ms timer

    // READ into pages of A that are not translated: A asks only once the destination is, so
    // no response is lost to a miss and nothing is asked twice.
    const uint64_t dst = Node::kVa + 16 * 4096;
    const uint32_t ak2 = q.a.reg_mr(dst, 8 * 4096, kAll, false);
    const uint32_t a_misses = q.a.r(regs::rdma::kTlbMisses);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(dst, len, ak2)}, Node::kVa + len, bk));
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.a.sq_completed(kQa), 3u);
    EXPECT_EQ(q.a.read_va(dst, len), q.b.read_va(Node::kVa + len, len));
    EXPECT_EQ(q.a.r(regs::rdma::kTlbMisses) - a_misses, 6u);  // one per page, before asking
    EXPECT_EQ(q.b.r(regs::rdma::kDupRequests), 0u);           // nothing was asked twice
    EXPECT_EQ(q.a.r(regs::rdma::kAckTimeouts), 0u);
}

TEST_F(RdmaRecovery, TlbEvictsLeastRecentlyUsed) {
    // 5000 pages through a 4096-entry TLB: evictions are counted, data stays right.
    RdmaPair q;
    q.setup(kQa, kQb);
    // Page 0 is filled first; four later pages of its set push it out.
    const uint32_t ak = q.a.reg_mr(Node::kVa, uint64_t{5000} * 4096, kAll);
    EXPECT_GT(q.a.r(regs::rdma::kTlbEvictions), 0u);
    const uint32_t misses = q.a.r(regs::rdma::kTlbMisses);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    q.a.fill_va(Node::kVa, 64, 1);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 64, ak)}, Node::kVa, bk));
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.a.sq_completed(kQa), 1u);
    EXPECT_EQ(q.b.read_va(Node::kVa, 64), q.a.read_va(Node::kVa, 64));
    EXPECT_EQ(q.a.r(regs::rdma::kTlbMisses), misses + 1);  // the evicted page, refilled
    EXPECT_EQ(q.a.count_events(kEvTlbMiss), 1u);
}

TEST_F(RdmaRecovery, CqOverrunRaisesCqErr) {
    RdmaPair q;
    for (Node* n : {&q.a, &q.b}) {
        n->create_cq(0, 4);
        n->create_cq(1, 1);  // 2 entries, never polled
    }
    q.a.create_qp(kQa, 0, 1);
    q.b.create_qp(kQb, 0, 1);
    QpAttrs bt;
    bt.sq_psn = QpAttrs{}.rq_psn;
    bt.rq_psn = QpAttrs{}.sq_psn;
    q.a.connect(kQa, q.b, kQb, QpAttrs{}, bt);
    q.b.connect(kQb, q.a, kQa, bt, QpAttrs{});
    const uint32_t ak = q.a.reg_mr(Node::kVa, 4096, kAll);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    for (int i = 0; i < 4; ++i) {
        q.b.post_recv(kQb, {sge(Node::kVa, 64, bk)});
        q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa, 8, ak)}));
    }
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.b.r(regs::rdma::kCqOverruns), 1u);
    EXPECT_EQ(q.b.count_events(kEvCqErr), 1u);
    EXPECT_EQ(q.b.poll(1).size(), 2u);
}

class RdmaLossy : public RdmaRecovery, public ::testing::WithParamInterface<uint64_t> {
  protected:
    // 1% (and 5%) of received frames dropped on both cards, from a few seeds.
    RdmaLossy() : RdmaRecovery(GetParam() >= 100 ? 50'000 : 10'000, GetParam()) {}
};

TEST_P(RdmaLossy, LossEndToEndWithVerifiedData) {
    // Per round, disjoint buffers: WRITE s -> d, SEND s -> d + 0x20000, READ d + 0x40000 ->
    // s + 0x40000, and one FAA on a shared counter.
    const uint32_t len = 16 * 1024;
    constexpr int kRounds = 6;
    for (int round = 0; round < kRounds; ++round) {
        const uint64_t s = kSrc + uint64_t(round) * len;
        const uint64_t d = kDst + uint64_t(round) * len;
        p.a.fill_va(s, len, static_cast<uint8_t>(round));
        p.b.fill_va(d + 0x40000, len, static_cast<uint8_t>(round + 100));
        p.b.post_recv(kQb, {sge(d + 0x20000, len, b_key)});
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(s, len, a_key)}, d, b_key));
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(s, len, a_key)}));
        p.a.post_send(
            kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(s + 0x40000, len, a_key)}, d + 0x40000, b_key));
        auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kSrc + 0x7f000, 8, a_key)},
                            kDst + 0x7f000, b_key);
        faa.compare_add = 1;
        p.a.post_send(kQa, faa);
    }
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 4u * kRounds);
    EXPECT_TRUE(p.a.poll(0).empty());
    EXPECT_EQ(p.b.poll(1).size(), size_t{kRounds});
    for (int round = 0; round < kRounds; ++round) {
        const uint64_t s = kSrc + uint64_t(round) * len;
        const uint64_t d = kDst + uint64_t(round) * len;
        EXPECT_EQ(p.b.read_va(d, len), p.a.read_va(s, len)) << round;
        EXPECT_EQ(p.b.read_va(d + 0x20000, len), p.a.read_va(s, len)) << round;
        EXPECT_EQ(p.a.read_va(s + 0x40000, len), p.b.read_va(d + 0x40000, len)) << round;
    }
    uint64_t v = 0;
    std::memcpy(&v, p.b.read_va(kDst + 0x7f000, 8).data(), 8);
    EXPECT_EQ(v, uint64_t{kRounds});  // each FAA exactly once
    EXPECT_GT(ra(regs::rdma::kWireDrops) + rb(regs::rdma::kWireDrops), 0u);
    EXPECT_GT(ra(regs::rdma::kRetransmits) + rb(regs::rdma::kDupRequests), 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RdmaLossy, ::testing::Values(1, 2, 3, 4, 100, 101));

}  // namespace
}  // namespace scenic::test

namespace scenic::test {
namespace {

// Many 64 KiB READs in flight at 1% loss (ib_read_bw's pattern): requests lost, responses
// lost, re-requests from the middle of earlier ones. Every READ completes with the right data;
// a duplicate READ is answered only up to what the responder has seen, so its expected PSN
// never falls behind the requester (that was a deadlock ending in RETRY_EXC_ERR).
class RdmaLossyReads : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RdmaLossyReads, ManyLargeReadsComplete) {
    RdmaPair p(10'000, GetParam());
    QpAttrs at;
    at.timeout = 14;  // perftest's
    p.setup(kQa, kQb, at);
    const uint32_t ak = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
    constexpr uint32_t kLen = 65536;
    constexpr int kReads = 128;
    for (int i = 0; i < kReads; ++i) {
        const uint64_t src = Node::kVa + uint64_t(i % 4) * kLen;
        const uint64_t dst = Node::kVa + 0x80000 + uint64_t(i % 4) * kLen;
        if (i < 4) {
            p.b.fill_va(src, kLen, static_cast<uint8_t>(i + 1));
        }
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(dst, kLen, ak)}, src, bk));
        if (i % 64 == 63) {
            ASSERT_TRUE(p.run(20'000'000'000ull, 20'000'000));
        }
    }
    ASSERT_TRUE(p.run(20'000'000'000ull, 20'000'000));
    EXPECT_EQ(p.a.sq_completed(kQa), uint64_t{kReads});
    EXPECT_TRUE(p.a.poll(0).empty());
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(p.a.read_va(Node::kVa + 0x80000 + uint64_t(i) * kLen, kLen),
                  p.b.read_va(Node::kVa + uint64_t(i) * kLen, kLen));
    }
    EXPECT_GT(p.a.r(regs::rdma::kWireDrops) + p.b.r(regs::rdma::kWireDrops), 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RdmaLossyReads, ::testing::Range<uint64_t>(1, 5));

}  // namespace
}  // namespace scenic::test
