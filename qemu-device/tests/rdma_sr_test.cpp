// SPDX-License-Identifier: MIT
// Selective repeat between two SCENIC cards (docs/selective-repeat.md 10.1): the handshake of
// section 2 with exact frames and times, standard peers, the SR data format of 3.1 and the
// go-back-N fallback of 5.10 with data verified.
#include <gtest/gtest.h>

#include <vector>

#include "rdma_sr_rig.hpp"

namespace scenic::test::sr {
namespace {

TEST_F(RdmaSr, HelloBothSides) {
    ASSERT_TRUE(p.run());
    for (const Dir d : {Dir::kAtoB, Dir::kBtoA}) {
        const Dir back = d == Dir::kAtoB ? Dir::kBtoA : Dir::kAtoB;
        const auto hellos = frames(d, kHello);
        const auto acks = frames(back, kHelloAck);
        ASSERT_EQ(hellos.size(), 1u);
        ASSERT_EQ(acks.size(), 1u);
        ASSERT_TRUE(hellos[0].sr_hello && acks[0].sr_hello);
        const roce::SrHello& h = *hellos[0].sr_hello;
        EXPECT_EQ(h.magic, roce::SrHello::kMagic);
        EXPECT_EQ(h.version, 1);
        EXPECT_EQ(h.window_log2, 9);
        EXPECT_EQ(h.max_ranges, 8);
        EXPECT_EQ(h.flags, 1);
        EXPECT_EQ(h.vendor, 0x10ee);
        EXPECT_EQ(acks[0].sr_hello->nonce, h.nonce);  // echoed
        EXPECT_EQ(acks[0].sr_hello->window_log2, 9);
    }
    EXPECT_NE(frames(Dir::kAtoB, kHello)[0].sr_hello->nonce,
              frames(Dir::kBtoA, kHello)[0].sr_hello->nonce);
    for (rdma::Counters* c : {&ca(), &cb()}) {
        EXPECT_EQ(c->sr_hello_sent, 1u);
        EXPECT_EQ(c->sr_hello_acked, 1u);
        EXPECT_EQ(c->sr_hello_unanswered, 0u);
        EXPECT_EQ(c->sr_drop_malformed, 0u);
    }
    EXPECT_EQ(qa().req.sr, rdma::SrTx::kOn);
    EXPECT_EQ(qa().req.sr_window_log2, 9);
    EXPECT_EQ(qb().resp.sr, rdma::SrRx::kAcked);  // SACKING only once SR data arrives

    p.log.clear();
    write_8k(3);
    const auto data = [&] {
        std::vector<RdmaPair::WireRecord> out;
        for (const auto& r : p.log) {
            if (r.dir == Dir::kAtoB) {
                out.push_back(r);
            }
        }
        return out;
    }();
    ASSERT_EQ(data.size(), 8u);
    for (uint32_t i = 0; i < 8; ++i) {
        const uint8_t want = i == 0   ? sr(Opcode::kWriteFirst)
                             : i == 7 ? sr(Opcode::kWriteLast)
                                      : sr(Opcode::kWriteMiddle);
        EXPECT_EQ(data[i].opcode, want) << i;
        EXPECT_EQ(data[i].psn, 100 + i);
        ASSERT_TRUE(data[i].sreth.has_value());
        EXPECT_EQ(data[i].sreth->midx, i);
        EXPECT_EQ(data[i].sreth->ver_flags, 0x10);
        EXPECT_EQ(data[i].sreth->rsn, 0u);
        EXPECT_EQ(data[i].sreth->msg_len, 0u);
        ASSERT_TRUE(data[i].reth.has_value()) << i;  // RETH on every WRITE packet
        EXPECT_EQ(data[i].reth->va, kDst);
        EXPECT_EQ(data[i].reth->dma_length, 8192u);
        EXPECT_EQ(data[i].payload, 1024u);
    }
    EXPECT_TRUE(data[7].ackreq);
    EXPECT_EQ(qb().resp.sr, rdma::SrRx::kSacking);
    EXPECT_EQ(qb().resp.epsn, 108u);
    EXPECT_EQ(qb().resp.msn, 1u);
    EXPECT_EQ(cb().seq_nak_sent, 0u);
    EXPECT_EQ(ca().retransmits, 0u);
}

// A SEND and a WRITE with immediate consume receive WQEs 0 and 1: RSN 0 and 1, SEND's msg_len.
TEST_F(RdmaSr, SendAndWriteImmCarryRsn) {
    ASSERT_TRUE(p.run());
    p.b.post_recv(kQb, {sge(kDst, 4096, b_key)});
    p.b.post_recv(kQb, {sge(kDst + 4096, 4096, b_key)});
    p.a.fill_va(kSrc, 4096, 9);
    p.log.clear();
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 3000, a_key)}));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 100, a_key)}, kDst + 8192, b_key));
    auto wi = make_wqe(SCENIC_WQE_OP_WRITE_IMM, {sge(kSrc, 10, a_key)}, kDst + 9000, b_key);
    wi.imm_data_be = __builtin_bswap32(0x1234);
    p.a.post_send(kQa, wi);
    ASSERT_TRUE(p.run());
    const std::vector<std::pair<uint8_t, uint32_t>> want = {{sr(Opcode::kSendFirst), 0},
                                                            {sr(Opcode::kSendMiddle), 0},
                                                            {sr(Opcode::kSendLast), 0},
                                                            {sr(Opcode::kWriteOnly), 1},
                                                            {sr(Opcode::kWriteOnlyImm), 1}};
    std::vector<RdmaPair::WireRecord> sent;
    for (const auto& r : p.log) {
        if (r.dir == Dir::kAtoB) {
            sent.push_back(r);
        }
    }
    ASSERT_EQ(sent.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(sent[i].opcode, want[i].first) << i;
        ASSERT_TRUE(sent[i].sreth.has_value());
        EXPECT_EQ(sent[i].sreth->rsn, want[i].second) << i;
        EXPECT_EQ(sent[i].sreth->msg_len, i < 3 ? 3000u : 0u) << i;
    }
    EXPECT_EQ(p.b.read_va(kDst, 3000), p.a.read_va(kSrc, 3000));
    const auto cqes = p.b.poll(1);
    ASSERT_EQ(cqes.size(), 2u);
    EXPECT_EQ(cqes[0].status, rdma::kWcSuccess);
    EXPECT_EQ(cqes[0].byte_len, 3000u);
    EXPECT_EQ(cqes[0].wqe_idx, 0u);
    EXPECT_EQ(cqes[1].status, rdma::kWcSuccess);
    EXPECT_EQ(cqes[1].wqe_idx, 1u);
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);
    EXPECT_EQ(qa().req.next_rsn, 2u);
}

class RdmaSrPeerOff : public RdmaSr {
  protected:
    RdmaSrPeerOff() : RdmaSr(sr_on, sr_off) {}
};

TEST_F(RdmaSrPeerOff, HelloUnanswered) {
    ASSERT_TRUE(p.run());
    const auto hellos = frames(Dir::kAtoB, kHello);
    ASSERT_EQ(hellos.size(), 3u);
    EXPECT_EQ(hellos[0].t_ns - t0, 0u);
    EXPECT_EQ(hellos[1].t_ns - t0, 1'000'000u);
    EXPECT_EQ(hellos[2].t_ns - t0, 11'000'000u);
    EXPECT_EQ(hellos[0].sr_hello->nonce, hellos[2].sr_hello->nonce);
    EXPECT_EQ(vendor_frames(Dir::kBtoA), 0u);  // B neither offers nor answers
    EXPECT_EQ(ca().sr_hello_sent, 3u);
    EXPECT_EQ(ca().sr_hello_unanswered, 1u);
    EXPECT_EQ(ca().sr_hello_acked, 0u);
    EXPECT_EQ(cb().sr_drop_not_negotiated, 3u);
    EXPECT_EQ(cb().seq_nak_sent, 0u);
    EXPECT_EQ(qa().req.sr, rdma::SrTx::kOffForLife);
    EXPECT_EQ(qb().resp.sr, rdma::SrRx::kOff);
    p.log.clear();
    write_8k(5);
    EXPECT_EQ(vendor_frames(Dir::kAtoB), 0u);  // go-back-N, standard opcodes
    EXPECT_EQ(frames(Dir::kAtoB, static_cast<uint8_t>(Opcode::kWriteMiddle)).size(), 6u);
    EXPECT_EQ(p.b.status_state(kQb), uint32_t{kQpsRts});
}

// A WRITE posted at once is not held back by the handshake: it begins standard.
TEST_F(RdmaSrPeerOff, MessagesBeforeTheAnswerAreStandard) {
    p.a.fill_va(kSrc, 8192, 7);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8192, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.read_va(kDst, 8192), p.a.read_va(kSrc, 8192));
    EXPECT_EQ(frames(Dir::kAtoB, static_cast<uint8_t>(Opcode::kWriteFirst)).size(), 1u);
    EXPECT_EQ(vendor_frames(Dir::kAtoB), 3u);  // the hellos only
}

class RdmaSrStandardPeer : public RdmaSr {
  protected:
    RdmaSrStandardPeer() : RdmaSr(sr_on, no_sr_card) {}
};

TEST_F(RdmaSrStandardPeer, StandardPeerDropsHello) {
    const uint32_t malformed = cb().rx_drop_malformed;
    ASSERT_TRUE(p.run());
    EXPECT_EQ(frames(Dir::kAtoB, kHello).size(), 3u);
    EXPECT_EQ(cb().rx_drop_malformed - malformed, 3u);  // its parser: unknown opcode
    EXPECT_EQ(cb().sr_drop_not_negotiated, 0u);
    EXPECT_EQ(p.log.size(), 3u);  // no NAK, nothing else on the wire
    EXPECT_EQ(p.b.status_state(kQb), uint32_t{kQpsRts});
    EXPECT_EQ(ca().sr_hello_unanswered, 1u);
    p.log.clear();
    write_8k(11);
    EXPECT_EQ(vendor_frames(Dir::kAtoB), 0u);
}

// An SR data packet to a QP that has not negotiated: dropped, counted, never answered.
TEST_F(RdmaSrPeerOff, NotNegotiatedSrPacket) {
    ASSERT_TRUE(p.run());
    const auto craft = [&](uint32_t psn) {
        roce::Transport t;
        t.bth.opcode = sr(Opcode::kWriteOnly);
        t.bth.dest_qp = kQb;
        t.bth.psn = psn;
        t.bth.ackreq = true;
        t.sreth = roce::Sreth{};
        t.reth = roce::Reth{kDst, b_key, 16};
        const std::vector<uint8_t> payload(16, 0xab);
        return roce::build_frame(p.a.path_to(p.b), t, payload).frame;
    };
    p.b.fill_va(kDst, 16, 0);
    const auto before = p.b.read_va(kDst, 16);
    const uint32_t epsn = qb().resp.epsn;
    const uint32_t dropped = cb().sr_drop_not_negotiated;
    p.b.dev.eth_rx(craft(epsn));
    EXPECT_TRUE(p.b.host.wire.empty());  // no NAK, no ACK
    EXPECT_EQ(cb().sr_drop_not_negotiated, dropped + 1);
    // Attribute on at B, but no hello reached it: still not negotiated.
    qb().sr_attr = true;
    p.b.dev.eth_rx(craft(epsn));
    EXPECT_TRUE(p.b.host.wire.empty());
    EXPECT_EQ(cb().sr_drop_not_negotiated, dropped + 2);
    EXPECT_EQ(p.b.read_va(kDst, 16), before);
    EXPECT_EQ(qb().resp.epsn, epsn);
    EXPECT_EQ(p.b.status_state(kQb), uint32_t{kQpsRts});
}

// Malformed hellos and SRETHs are dropped and counted, and change nothing.
TEST_F(RdmaSr, MalformedHelloAndSrethDropped) {
    ASSERT_TRUE(p.run());
    const uint32_t epsn = qb().resp.epsn;
    const auto send = [&](roce::Transport t, std::vector<uint8_t> payload = {}) {
        t.bth.dest_qp = kQb;
        const auto f = roce::build_frame(p.a.path_to(p.b), t, payload);
        ASSERT_TRUE(f.ok());
        p.b.dev.eth_rx(f.frame);
    };
    roce::Transport h;
    h.bth.opcode = kHello;
    for (int i = 0; i < 5; ++i) {
        roce::SrHello bad{};
        bad.magic = roce::SrHello::kMagic;
        bad.version = 1;
        bad.window_log2 = 9;
        bad.max_ranges = 8;
        switch (i) {
            case 0:
                bad.magic ^= 1;
                break;
            case 1:
                bad.version = 2;
                break;
            case 2:
                bad.window_log2 = 10;
                break;
            case 3:
                bad.max_ranges = 0;
                break;
            default:
                bad.flags = 0x80;
                break;
        }
        h.sr_hello = bad;
        send(h);
    }
    EXPECT_EQ(cb().sr_drop_malformed, 5u);
    EXPECT_TRUE(p.b.host.wire.empty());  // none answered
    roce::Transport d;
    d.bth.opcode = sr(Opcode::kWriteFirst);
    d.bth.psn = epsn;
    d.reth = roce::Reth{kDst, b_key, 4096};
    roce::Sreth s;
    s.midx = 1;  // FIRST must have midx 0
    d.sreth = s;
    send(d, std::vector<uint8_t>(1024, 1));
    s.midx = 0;
    s.ver_flags = 0x20;  // version 2
    d.sreth = s;
    send(d, std::vector<uint8_t>(1024, 1));
    s.ver_flags = 0x10;
    d.bth.opcode = sr(Opcode::kWriteOnly);
    d.sreth = s;  // ONLY that ends before the RETH's length
    send(d, std::vector<uint8_t>(1024, 1));
    EXPECT_EQ(cb().sr_drop_malformed, 8u);
    EXPECT_EQ(qb().resp.epsn, epsn);
    EXPECT_TRUE(p.b.host.wire.empty());
    EXPECT_EQ(p.b.status_state(kQb), uint32_t{kQpsRts});
}

// RESET -> RTS starts a new incarnation: a new nonce, a new hello, nothing in SR before its ack.
TEST_F(RdmaSr, ResetStartsOver) {
    ASSERT_TRUE(p.run());
    const uint32_t n1 = frames(Dir::kAtoB, kHello).at(0).sr_hello->nonce;
    ASSERT_EQ(qa().req.sr, rdma::SrTx::kOn);
    p.log.clear();
    QpAttrs at;
    at.sq_psn = 100;
    at.rq_psn = 0x200;
    QpAttrs bt = at;
    bt.sq_psn = at.rq_psn;
    bt.rq_psn = at.sq_psn;
    ASSERT_EQ(p.a.set_state(kQa, kQpsReset), 0u);
    p.a.connect(kQa, p.b, kQb, at, bt);
    EXPECT_EQ(qa().req.sr, rdma::SrTx::kOffered);
    ASSERT_TRUE(p.run());
    const auto hellos = frames(Dir::kAtoB, kHello);
    ASSERT_EQ(hellos.size(), 1u);
    EXPECT_NE(hellos[0].sr_hello->nonce, n1);
    EXPECT_EQ(frames(Dir::kBtoA, kHelloAck).at(0).sr_hello->nonce, hellos[0].sr_hello->nonce);
    EXPECT_EQ(qa().req.sr, rdma::SrTx::kOn);
    EXPECT_EQ(qa().req.next_rsn, 0u);
}

}  // namespace
}  // namespace scenic::test::sr
