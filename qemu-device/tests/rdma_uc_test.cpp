// SPDX-License-Identifier: MIT
// UC QPs (docs/verbs-completeness.md 6): SEND and RDMA WRITE (with and without immediate)
// segmented under the UC opcodes without AckReq and completed when sent; the responder's UC
// rules (a PSN gap or a lost FIRST drops the message silently and counts it, the receive WQE
// is kept; no ACK or NAK ever); READ and atomics refused at the WQE; frames of the other
// transport dropped; UC through the card's loopback.
#include <gtest/gtest.h>

#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace rr = regs::rdma;
using rdma::kWcFlushErr;
using rdma::kWcLocQpOpErr;
using rdma::kWcSuccess;
using Dir = RdmaPair::Dir;

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint64_t kBuf = Node::kVa + 100;
constexpr uint64_t kDst = Node::kVa + 256 * 1024 + 5;
constexpr uint64_t kSrc = Node::kVa + 64 * 1024 + 3;
constexpr uint32_t kUc = static_cast<uint32_t>(admin::QpType::kUc);

uint32_t uc_drops(Node& n) { return n.dev.rdma().engine().counters().uc_rx_msg_drops; }

class Uc : public ::testing::Test {
  protected:
    void SetUp() override {
        for (Node* n : {&p.a, &p.b}) {
            n->create_cq(0, 10);
            n->create_cq(1, 10);
        }
        p.a.create_qp(kQa, 0, 1, 8, 8, 0, 0, kUc);
        p.b.create_qp(kQb, 0, 1, 8, 8, 0, 0, kUc);
        QpAttrs at;
        at.access = rdma::kAccessRemoteWrite;
        QpAttrs bt = at;
        bt.sq_psn = at.rq_psn;
        bt.rq_psn = at.sq_psn;
        p.a.connect(kQa, p.b, kQb, at, bt);
        p.b.connect(kQb, p.a, kQa, bt, at);
        a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
        p.record = true;
    }
    void TearDown() override {
        for (Node* n : {&p.a, &p.b}) {
            EXPECT_EQ(n->r(rr::kRxDropIcrc), 0u);
        }
        // UC never answers: B sent nothing, whatever A sent.
        EXPECT_EQ(p.b.r(rr::kTxPkts), 0u);
        EXPECT_EQ(p.b.r(rr::kAcksSent), 0u);
    }
    void a_sends(uint32_t n, uint8_t seed, uint8_t op = SCENIC_WQE_OP_SEND, uint64_t raddr = 0) {
        p.a.fill_va(kSrc, n, seed);
        scenic_sq_wqe w = make_wqe(op, {sge(kSrc, n, a_key)}, raddr, b_key);
        w.imm_data_be = __builtin_bswap32(0xabcd0000u | seed);
        w.flags = SCENIC_WQE_F_SIGNALED;
        p.a.post_send(kQa, w);
    }
    void b_recv(uint32_t len) { p.b.post_recv(kQb, {sge(kBuf, len, b_key)}); }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

TEST_F(Uc, MultiPacketSendAndWritesWithoutAcks) {
    b_recv(4096);
    a_sends(3000, 0x31);  // 3 packets at PMTU 1024
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, kWcSuccess);
    EXPECT_EQ(rc[0].opcode, SCENIC_CQE_OP_RECV);
    EXPECT_EQ(rc[0].byte_len, 3000u);
    EXPECT_EQ(rc[0].qpn, kQb);
    EXPECT_EQ(rc[0].src_qp, kQa);
    EXPECT_EQ(p.b.read_va(kBuf, 3000), p.a.read_va(kSrc, 3000));
    const auto first = p.seen(Dir::kAtoB, static_cast<roce::Opcode>(0x20));
    const auto middle = p.seen(Dir::kAtoB, static_cast<roce::Opcode>(0x21));
    const auto last = p.seen(Dir::kAtoB, static_cast<roce::Opcode>(0x22));
    ASSERT_EQ(first.size(), 1u);
    ASSERT_EQ(middle.size(), 1u);
    ASSERT_EQ(last.size(), 1u);
    EXPECT_EQ(first[0].psn, 0x100u);
    EXPECT_EQ(last[0].psn, 0x102u);
    for (const auto& r : p.log) {
        EXPECT_FALSE(r.ackreq) << "UC packets never ask for an ACK";
    }

    // RDMA WRITE with immediate (2500 bytes: FIRST, MIDDLE, LAST_WITH_IMMEDIATE).
    b_recv(0);
    a_sends(2500, 0x52, SCENIC_WQE_OP_WRITE_IMM, kDst);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, kWcSuccess);
    EXPECT_EQ(rc[0].opcode, SCENIC_CQE_OP_RECV_WRITE_IMM);
    EXPECT_EQ(rc[0].byte_len, 2500u);
    EXPECT_NE(rc[0].flags & SCENIC_CQE_F_IMM, 0);
    EXPECT_EQ(__builtin_bswap32(rc[0].imm_data_be), 0xabcd0052u);
    EXPECT_EQ(p.b.read_va(kDst, 2500), p.a.read_va(kSrc, 2500));
    ASSERT_EQ(p.seen(Dir::kAtoB, static_cast<roce::Opcode>(0x29)).size(), 1u);

    // A plain WRITE (ONLY) and a zero-length SEND: data, no receive CQE for the WRITE.
    a_sends(100, 0x63, SCENIC_WQE_OP_WRITE, kDst + 5000);
    b_recv(16);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {}));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 4u);
    EXPECT_EQ(p.b.read_va(kDst + 5000, 100), p.a.read_va(kSrc, 100));
    rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].byte_len, 0u);
    EXPECT_EQ(rc[0].opcode, SCENIC_CQE_OP_RECV);
    EXPECT_EQ(uc_drops(p.b), 0u);
}

TEST_F(Uc, PsnGapDropsTheMessageAndKeepsTheWqe) {
    bool dropped = false;
    p.drop = [&dropped](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.opcode == 0x21 && !dropped) {
            dropped = true;  // the MIDDLE of the first message
            return true;
        }
        return false;
    };
    b_recv(4096);
    a_sends(3000, 0x11);
    ASSERT_TRUE(p.run());
    EXPECT_TRUE(dropped);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);  // complete once sent: no ACK to wait for
    EXPECT_TRUE(p.b.poll(1).empty());
    EXPECT_EQ(uc_drops(p.b), 1u);
    // The next message lands in the same receive WQE (index 0).
    a_sends(700, 0x22);
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].wqe_idx, 0u);
    EXPECT_EQ(rc[0].byte_len, 700u);
    EXPECT_EQ(p.b.read_va(kBuf, 700), p.a.read_va(kSrc, 700));
    EXPECT_EQ(uc_drops(p.b), 1u);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
}

TEST_F(Uc, LostFirstDropsTheRestOfTheMessage) {
    p.drop = [](Dir d, const roce::ParsedPacket& pkt) {
        return d == Dir::kAtoB && pkt.transport.bth.opcode == 0x26;  // WRITE_FIRST
    };
    a_sends(2500, 0x44, SCENIC_WQE_OP_WRITE, kDst);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(uc_drops(p.b), 1u);  // one message, counted once (MIDDLE and LAST discarded)
    std::vector<uint8_t> zero(2500, 0);
    EXPECT_EQ(p.b.read_va(kDst, 2500), zero);
}

TEST_F(Uc, NoReceiveWqeTooLongAndBadRkeyDroppedQpStaysUp) {
    a_sends(64, 1);  // no receive WQE
    ASSERT_TRUE(p.run());
    EXPECT_EQ(uc_drops(p.b), 1u);
    b_recv(32);
    a_sends(64, 2);  // does not fit: dropped, the WQE stays
    ASSERT_TRUE(p.run());
    EXPECT_EQ(uc_drops(p.b), 2u);
    EXPECT_TRUE(p.b.poll(1).empty());
    const uint32_t access_before = p.b.r(rr::kRemAccessErr);
    p.a.fill_va(kSrc, 16, 3);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 16, a_key)}, kDst, b_key ^ 0x55));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(uc_drops(p.b), 3u);
    EXPECT_EQ(p.b.r(rr::kRemAccessErr), access_before + 1);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);
    a_sends(20, 4);  // fits the kept WQE
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].wqe_idx, 0u);
    EXPECT_EQ(p.b.read_va(kBuf, 20), p.a.read_va(kSrc, 20));
}

TEST_F(Uc, ReadAndAtomicRefusedAtTheWqeThenSqe) {
    const uint32_t sent_before = p.a.r(rr::kTxPkts);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc, 8, a_key)}, kDst, b_key));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {}));  // flushed: the SQ is in error
    ASSERT_TRUE(p.run());
    auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 2u);
    EXPECT_EQ(sc[0].status, kWcLocQpOpErr);
    EXPECT_EQ(sc[0].opcode, SCENIC_CQE_OP_READ);
    EXPECT_NE(sc[0].flags & SCENIC_CQE_F_SQ, 0);
    EXPECT_EQ(sc[1].status, kWcFlushErr);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsSqe});
    EXPECT_EQ(p.a.r(rr::kTxPkts), sent_before);
    // Back to RTS; an atomic is refused the same way.
    ASSERT_EQ(p.a.set_state(kQa, kQpsRts), kStOk);
    scenic_sq_wqe faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kSrc, 8, a_key)}, kDst, b_key);
    p.a.post_send(kQa, faa);
    ASSERT_TRUE(p.run());
    sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, kWcLocQpOpErr);
    // And after RTS again a SEND goes through.
    ASSERT_EQ(p.a.set_state(kQa, kQpsRts), kStOk);
    b_recv(64);
    a_sends(64, 9);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.poll(1).size(), 1u);
}

TEST_F(Uc, OtherTransportsFramesDropped) {
    // A UC SEND_ONLY to an RC QP, an RC SEND_ONLY and an RC ACK to the UC QP: RX_DROP_QP.
    p.b.create_qp(12, 0, 1);
    p.b.post_recv(12, {sge(kBuf, 64, b_key)});
    b_recv(64);
    auto frame = [&](uint8_t op, uint32_t qpn, uint32_t psn) {
        roce::Transport t;
        t.bth.opcode = op;
        t.bth.dest_qp = qpn;
        t.bth.pkey = 0xffff;
        t.bth.psn = psn;
        if (op == static_cast<uint8_t>(roce::Opcode::kAck)) {
            t.aeth = roce::Aeth{};
            return roce::build_frame(p.a.path_to(p.b), t, {}).frame;
        }
        return roce::build_frame(p.a.path_to(p.b), t, std::vector<uint8_t>(8, 1)).frame;
    };
    const uint32_t before = p.b.r(rr::kRxDropQp);
    p.b.dev.eth_rx(frame(0x24, 12, 0));
    p.b.dev.eth_rx(frame(static_cast<uint8_t>(roce::Opcode::kSendOnly), kQb, 0x100));
    p.b.dev.eth_rx(frame(static_cast<uint8_t>(roce::Opcode::kAck), kQb, 0x200));
    EXPECT_EQ(p.b.r(rr::kRxDropQp), before + 3);
    // A reserved UC opcode (0x2c) is malformed.
    const uint32_t malformed = p.b.r(rr::kRxDropMalformed);
    roce::Transport rsv;
    rsv.bth.opcode = 0x04;
    rsv.bth.dest_qp = kQb;
    rsv.bth.pkey = 0xffff;
    std::vector<uint8_t> f =
        roce::build_frame(p.a.path_to(p.b), rsv, std::vector<uint8_t>(8, 1)).frame;
    f[14 + 20 + 8] = 0x2c;
    const uint32_t crc = roce::icrc(std::span(f).subspan(14));
    for (size_t i = 0; i < 4; ++i) {
        f[f.size() - 4 + i] = static_cast<uint8_t>(crc >> (8 * i));
    }
    p.b.dev.eth_rx(f);
    EXPECT_EQ(p.b.r(rr::kRxDropMalformed), malformed + 1);
    EXPECT_TRUE(p.b.poll(1).empty());
    // The right frame lands.
    p.b.dev.eth_rx(frame(0x24, kQb, 0x100));
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].byte_len, 8u);
    EXPECT_TRUE(p.b.host.wire.empty());
}

TEST(UcLoopback, TwoQpsOfOneCardThroughTheLoopback) {
    Node n{1};
    size_t wire = 0;
    n.host.on_send = [&wire](std::span<const uint8_t>) { ++wire; };
    n.create_cq(0, 8);
    n.create_cq(1, 8);
    n.create_qp(kQa, 0, 1, 8, 8, 0, 0, kUc);
    n.create_qp(kQb, 0, 1, 8, 8, 0, 0, kUc);
    QpAttrs at;
    QpAttrs bt = at;
    bt.sq_psn = at.rq_psn;
    bt.rq_psn = at.sq_psn;
    n.connect(kQa, n, kQb, at, bt);
    n.connect(kQb, n, kQa, bt, at);
    const uint32_t key = n.reg_mr(Node::kVa, 1 << 20, kAll);
    n.post_recv(kQb, {sge(kBuf, 5000, key)});
    n.fill_va(kSrc, 5000, 0x42);
    n.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 5000, key)}));
    for (int i = 0; i < 1000 && n.host.timer; ++i) {
        n.host.now = std::max(*n.host.timer, n.host.now);
        n.host.timer.reset();
        n.dev.timer_fire();
    }
    const auto rc = n.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, kWcSuccess);
    EXPECT_EQ(rc[0].byte_len, 5000u);
    EXPECT_EQ(n.read_va(kBuf, 5000), n.read_va(kSrc, 5000));
    EXPECT_EQ(wire, 0u);
    EXPECT_EQ(n.r(rr::kLoopbackFrames), 5u);
    EXPECT_EQ(n.sq_completed(kQa), 1u);
}

TEST(UcFeatures, RegistersAdvertiseUcAndScuRefused) {
    Node n{1};
    EXPECT_NE(n.r(rr::kFeatures) & rr::kFeaturesUc.mask, 0u);
    n.create_cq(0, 4);
    const uint64_t ring = n.alloc(4096);
    const uint64_t status = n.alloc(4096);
    // An SCU slot on a UC QP, and an unknown type: BAD_ARG.
    EXPECT_NE(
        n.cmd(kOpCreateQp, {2, Node::lo(ring), Node::hi(ring), 2, Node::lo(ring), Node::hi(ring), 2,
                            0, 0, Node::kPd, 1, Node::lo(status), Node::hi(status), 0, 0, 0, kUc}),
        0u);
    EXPECT_NE(
        n.cmd(kOpCreateQp, {2, Node::lo(ring), Node::hi(ring), 2, Node::lo(ring), Node::hi(ring), 2,
                            0, 0, Node::kPd, 0, Node::lo(status), Node::hi(status), 0, 0, 0, 3}),
        0u);
}

}  // namespace
}  // namespace scenic::test
