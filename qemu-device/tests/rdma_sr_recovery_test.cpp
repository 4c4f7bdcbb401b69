// SPDX-License-Identifier: MIT
// Selective repeat's recovery with exact PSNs (docs/selective-repeat.md 10.1): out-of-order
// WRITE placement, SR_SACK contents, selective resends, resend rounds, the probe timer, the
// window W, duplicates in the window, malformed SACKs, the sequence-NAK fallback, and a random
// loss stream with data verified.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "rdma_sr_rig.hpp"
#include "scenic/rdma_engine.hpp"
#include "scenic/rdma_sr_window.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::test::sr {
namespace {

constexpr uint8_t kSack = static_cast<uint8_t>(Opcode::kSrSack);
constexpr uint8_t kAck = static_cast<uint8_t>(Opcode::kAck);

// Drops the first `times` transmissions of PSN psn from A to B.
RdmaPair::DropFn drop_psn(uint32_t psn, int times = 1) {
    auto left = std::make_shared<int>(times);
    return [psn, left](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && roce::is_sr_data(pkt.transport.bth.opcode) &&
            pkt.transport.bth.psn == psn && *left > 0) {
            --*left;
            return true;
        }
        return false;
    };
}

void expect_sack(const RdmaPair::WireRecord& r, uint32_t psn,
                 std::vector<roce::SackEth::Range> ranges, uint32_t right_edge) {
    ASSERT_TRUE(r.sack.has_value());
    EXPECT_EQ(r.psn, psn);
    EXPECT_EQ(r.sack->n, ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
        EXPECT_EQ(r.sack->ranges[i], ranges[i]) << i;
    }
    EXPECT_EQ(r.sack->right_edge, right_edge);
}

TEST_F(RdmaSr, LostMiddle) {
    ASSERT_TRUE(p.run());
    p.drop = drop_psn(102);
    p.log.clear();
    write_8k(21);
    const auto sacks = frames(Dir::kBtoA, kSack);
    ASSERT_EQ(sacks.size(), 2u);
    expect_sack(sacks[0], 102, {{0, 1}}, 104);  // 103 opened the gap
    expect_sack(sacks[1], 102, {{0, 1}}, 108);  // 107: the 4th out of order, and AckReq
    EXPECT_EQ(sacks[0].aeth->msn, 0u);
    // 102 goes once more, after the second SACK only (108 - 102 > kSrReorder), with AckReq.
    const auto a = dir_frames(Dir::kAtoB);
    ASSERT_EQ(a.size(), 9u);
    EXPECT_EQ(a[8].psn, 102u);
    EXPECT_TRUE(a[8].ackreq);
    EXPECT_GT(a[8].t_ns, 0u);
    EXPECT_EQ(sent(102), 2u);
    const auto acks = frames(Dir::kBtoA, kAck);
    ASSERT_EQ(acks.size(), 1u);
    EXPECT_EQ(acks[0].psn, 107u);
    EXPECT_EQ(acks[0].aeth->msn, 1u);
    EXPECT_EQ(ca().retransmits, 1u);
    EXPECT_EQ(ca().sr_retransmits, 1u);
    EXPECT_EQ(ca().sr_sack_rcvd, 2u);
    EXPECT_EQ(cb().sr_sack_sent, 2u);
    EXPECT_EQ(cb().sr_ooo_placed, 5u);
    EXPECT_EQ(cb().seq_nak_sent, 0u);
    EXPECT_EQ(ca().ack_timeouts, 0u);
    EXPECT_EQ(ca().sr_fallbacks, 0u);
    EXPECT_EQ(qb().resp.epsn, 108u);
    EXPECT_EQ(qb().resp.msn, 1u);
}

// The first SACK (on 103) is lost: the one on 107 alone brings the single resend of 102.
TEST_F(RdmaSr, LostSack) {
    ASSERT_TRUE(p.run());
    const auto data = drop_psn(102);
    bool sack_dropped = false;
    p.drop = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && pkt.transport.bth.opcode == kSack && !sack_dropped) {
            sack_dropped = true;
            return true;
        }
        return data(d, pkt);
    };
    p.log.clear();
    write_8k(20);
    EXPECT_TRUE(sack_dropped);
    EXPECT_EQ(ca().sr_sack_rcvd, 1u);
    EXPECT_EQ(sent(102), 2u);
    EXPECT_EQ(ca().retransmits, 1u);
    EXPECT_EQ(ca().ack_timeouts, 0u);
    EXPECT_EQ(frames(Dir::kBtoA, kAck).back().psn, 107u);
}

TEST_F(RdmaSr, LostFirstOfWrite) {
    ASSERT_TRUE(p.run());
    p.drop = drop_psn(100);
    p.log.clear();
    write_8k(22);  // 101..107 land through their own RETH before FIRST
    EXPECT_EQ(cb().sr_ooo_placed, 7u);
    EXPECT_EQ(sent(100), 2u);
    for (uint32_t psn = 101; psn < 108; ++psn) {
        EXPECT_EQ(sent(psn), 1u) << psn;
    }
    EXPECT_EQ(ca().retransmits, 1u);
    const auto sacks = frames(Dir::kBtoA, kSack);
    ASSERT_GE(sacks.size(), 2u);
    expect_sack(sacks[0], 100, {{0, 1}}, 102);
    EXPECT_EQ(frames(Dir::kBtoA, kAck).back().psn, 107u);
    EXPECT_EQ(qb().resp.msn, 1u);
}

TEST_F(RdmaSr, ReorderIsNotLoss) {
    ASSERT_TRUE(p.run());
    bool held = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.psn == 103 && !held) {
            held = true;
            return RdmaPair::Fate::kHold;  // delivered right after 104
        }
        return RdmaPair::Fate::kPass;
    };
    p.log.clear();
    write_8k(23);
    EXPECT_TRUE(held);
    const auto sacks = frames(Dir::kBtoA, kSack);
    ASSERT_EQ(sacks.size(), 1u);
    expect_sack(sacks[0], 103, {{0, 1}}, 105);
    EXPECT_EQ(ca().retransmits, 0u);
    EXPECT_EQ(cb().sr_ooo_placed, 1u);
    EXPECT_EQ(frames(Dir::kBtoA, kAck).back().psn, 107u);
}

TEST_F(RdmaSr, LostLastPacket) {
    ASSERT_TRUE(p.run());
    write_8k(24);  // unharmed: the RTT sample that arms the probe timer
    ASSERT_TRUE(qa().req.sr_rtt_valid);
    p.drop = drop_psn(115);
    p.log.clear();
    write(8192, 25, 8192);
    EXPECT_EQ(sent(115), 2u);
    const auto a = dir_frames(Dir::kAtoB);
    ASSERT_EQ(a.size(), 9u);
    EXPECT_EQ(a[8].psn, 115u);
    EXPECT_TRUE(a[8].ackreq);
    // Probed after kSrProbeMinNs (2 x srtt is less on this wire), long before the ACK timeout.
    EXPECT_EQ(a[8].t_ns - a[7].t_ns, rdma::kSrProbeMinNs);
    EXPECT_EQ(ca().sr_probes, 1u);
    EXPECT_EQ(ca().ack_timeouts, 0u);
    EXPECT_EQ(ca().retransmits, 1u);
    EXPECT_EQ(frames(Dir::kBtoA, kSack).size(), 0u);  // nothing after 115 reached B
}

// 102 is lost twice. Four 8 KiB WRITEs (100..131) with a congestion window of 16: the first
// resend of 102 leaves with the SACK of 107, between new PSNs; once PSNs sent after it (the
// round's mark) are SACKed kSrReorder deep, 102 goes a third time. (With nothing sent after the
// first resend, the probe timer or the ACK timeout finds it instead.)
TEST_F(RdmaSr, LostRetransmission) {
    ASSERT_TRUE(p.run());
    p.drop = drop_psn(102, 2);
    p.log.clear();
    for (uint32_t i = 0; i < 4; ++i) {
        p.a.fill_va(kSrc + i * 8192, 8192, static_cast<uint8_t>(30 + i));
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + i * 8192, 8192, a_key)},
                                    kDst + i * 8192, b_key));
    }
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 4u);
    EXPECT_EQ(p.b.read_va(kDst, 4 * 8192), p.a.read_va(kSrc, 4 * 8192));
    EXPECT_EQ(sent(102), 3u);
    EXPECT_EQ(ca().retransmits, 2u);
    EXPECT_EQ(ca().sr_retransmits, 2u);
    EXPECT_EQ(ca().ack_timeouts, 0u);
    EXPECT_EQ(ca().sr_probes, 0u);  // the round rule found it, not a timer
    EXPECT_EQ(qb().resp.msn, 4u);
}

TEST_F(RdmaSr, ManyGaps) {
    ASSERT_TRUE(p.run());
    p.drop = [](Dir d, const roce::ParsedPacket& pkt) {
        const uint32_t psn = pkt.transport.bth.psn;
        static std::vector<bool> gone(200, false);
        if (d != Dir::kAtoB || !roce::is_sr_data(pkt.transport.bth.opcode) || psn < 102 ||
            psn > 130 || psn % 2 != 0 || gone[psn]) {
            return false;
        }
        gone[psn] = true;
        return true;
    };
    p.log.clear();
    write(40 * 1024, 26);  // 100..139
    // The SACK sent when 119 opened a 9th gap lists the first 8 and ends at the 9th (118).
    bool eight = false;
    for (const auto& s : frames(Dir::kBtoA, kSack)) {
        ASSERT_TRUE(s.sack);
        EXPECT_LE(s.sack->n, 8u);
        if (s.sack->n == 8 && !eight) {
            eight = true;
            expect_sack(s, 102, {{0, 1}, {2, 1}, {4, 1}, {6, 1}, {8, 1}, {10, 1}, {12, 1}, {14, 1}},
                        118);
        }
    }
    EXPECT_TRUE(eight);
    for (uint32_t psn = 100; psn < 140; ++psn) {
        const bool lost = psn >= 102 && psn <= 130 && psn % 2 == 0;
        EXPECT_EQ(sent(psn), lost ? 2u : 1u) << psn;  // each lost PSN resent exactly once
    }
    EXPECT_EQ(ca().retransmits, 15u);
    EXPECT_EQ(ca().ack_timeouts, 0u);
    EXPECT_EQ(qb().resp.msn, 1u);
}

TEST_F(RdmaSr, PsnWrap) {
    ASSERT_TRUE(p.run());
    QpAttrs at;
    at.sq_psn = 0xfffff8;
    at.rq_psn = 0x200;
    QpAttrs bt = at;
    bt.sq_psn = at.rq_psn;
    bt.rq_psn = at.sq_psn;
    ASSERT_EQ(p.a.set_state(kQa, kQpsReset), 0u);
    ASSERT_EQ(p.b.set_state(kQb, kQpsReset), 0u);
    p.a.connect(kQa, p.b, kQb, at, bt);
    p.b.connect(kQb, p.a, kQa, bt, at);
    ASSERT_TRUE(p.run());
    ASSERT_EQ(qa().req.sr, rdma::SrTx::kOn);
    const auto base = drop_psn(0xfffffe);
    const auto other = drop_psn(0x000001);
    p.drop = [&](Dir d, const roce::ParsedPacket& pkt) { return base(d, pkt) || other(d, pkt); };
    p.log.clear();
    write(16 * 1024, 27);  // 0xfffff8 .. 0x000007
    const auto sacks = frames(Dir::kBtoA, kSack);
    ASSERT_GE(sacks.size(), 2u);
    expect_sack(sacks[0], 0xfffffe, {{0, 1}}, 0x000000);  // 0xffffff opened it
    bool both = false;
    for (const auto& s : sacks) {
        if (s.psn == 0xfffffe && s.sack->n == 2) {
            both = true;
            EXPECT_EQ(s.sack->ranges[1], (roce::SackEth::Range{3, 1}));
        }
    }
    EXPECT_TRUE(both);
    EXPECT_EQ(rdma::srwin::slot(0xfffffe, 512), 510u);  // bitmap indices of the two lost PSNs
    EXPECT_EQ(rdma::srwin::slot(0x000001, 512), 1u);
    EXPECT_EQ(sent(0xfffffe), 2u);
    EXPECT_EQ(sent(0x000001), 2u);
    EXPECT_EQ(ca().retransmits, 2u);
    EXPECT_EQ(qb().resp.epsn, 0x000008u);
    EXPECT_EQ(qb().resp.msn, 1u);
}

TEST_F(RdmaSr, WindowEdge) {
    ASSERT_TRUE(p.run());
    // W = 64 as if B's hello had offered window_log2 6; cwnd out of the way.
    qa().req.sr_window_log2 = 6;
    qb().resp.sr_window_log2 = 6;
    qa().req.cwnd = 512;
    qa().req.ssthresh = 512;
    p.drop = drop_psn(100);
    bool checked = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && !checked && roce::psn_diff(pkt.transport.bth.psn, 100) > 0) {
            // The first answer past 100: until now snd_una was 100, so nothing beyond 163 left.
            checked = true;
            EXPECT_EQ(qa().req.snd_una, 100u);
            EXPECT_EQ(qa().req.max_sent, 164u);
        }
        return RdmaPair::Fate::kPass;
    };
    p.log.clear();
    write(100 * 1024, 28);  // 100..199
    EXPECT_TRUE(checked);
    // Hand-made SR packets at epsn + 64 (outside) and epsn + 63 (inside).
    p.hook = nullptr;
    const uint32_t epsn = qb().resp.epsn;
    ASSERT_EQ(epsn, 200u);
    const auto craft = [&](uint32_t psn, uint8_t fill) {
        roce::Transport t;
        t.bth.opcode = sr(Opcode::kWriteOnly);
        t.bth.dest_qp = kQb;
        t.bth.psn = psn;
        t.sreth = roce::Sreth{};
        t.reth = roce::Reth{kDst + 0x40000, b_key, 16};
        return roce::build_frame(p.a.path_to(p.b), t, std::vector<uint8_t>(16, fill)).frame;
    };
    p.b.fill_va(kDst + 0x40000, 16, 0);
    const std::vector<uint8_t> zero = p.b.read_va(kDst + 0x40000, 16);
    p.b.dev.eth_rx(craft(epsn + 64, 0x5a));
    EXPECT_EQ(cb().sr_drop_window, 1u);
    EXPECT_EQ(p.b.read_va(kDst + 0x40000, 16), zero);
    const uint32_t placed = cb().sr_ooo_placed;
    p.b.dev.eth_rx(craft(epsn + 63, 0x5b));
    EXPECT_EQ(cb().sr_ooo_placed, placed + 1);
    EXPECT_EQ(p.b.read_va(kDst + 0x40000, 16), std::vector<uint8_t>(16, 0x5b));
    EXPECT_EQ(qb().resp.epsn, epsn);
}

TEST_F(RdmaSr, DuplicateInWindow) {
    ASSERT_TRUE(p.run());
    p.drop = drop_psn(102);
    bool dup = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.psn == 104 && !dup) {
            dup = true;
            return RdmaPair::Fate::kDuplicate;
        }
        return RdmaPair::Fate::kPass;
    };
    write_8k(29);
    EXPECT_TRUE(dup);
    EXPECT_EQ(cb().sr_dup_ooo, 1u);
    EXPECT_EQ(cb().sr_ooo_placed, 5u);  // 104 once
    EXPECT_EQ(ca().retransmits, 1u);
}

// 4.4: WRITE a to [0, 4K) and WRITE b to [2K, 6K) under the same R_Key; a's PSN 101 is lost.
// b's packets carry the fence on a's last PSN (103) and are not placed before a is complete,
// so a's late resend cannot overwrite b: the memory ends as b over a.
TEST_F(RdmaSr, OrderFenceOverlap) {
    ASSERT_TRUE(p.run());
    p.drop = drop_psn(101);
    p.log.clear();
    p.a.fill_va(kSrc, 4096, 41);
    p.a.fill_va(kSrc + 0x10000, 4096, 42);
    p.b.fill_va(kDst, 6144, 0);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 4096, a_key)}, kDst, b_key));
    p.a.post_send(
        kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + 0x10000, 4096, a_key)}, kDst + 2048, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    for (const auto& r : dir_frames(Dir::kAtoB)) {
        ASSERT_TRUE(r.sreth);
        EXPECT_EQ(r.sreth->ofv(), r.psn >= 104) << r.psn;
        if (r.psn >= 104) {
            EXPECT_EQ(r.sreth->ofp, 103u);
        }
    }
    EXPECT_GT(cb().sr_drop_fence, 0u);
    auto want = p.a.read_va(kSrc, 2048);
    const auto b_data = p.a.read_va(kSrc + 0x10000, 4096);
    want.insert(want.end(), b_data.begin(), b_data.end());
    EXPECT_EQ(p.b.read_va(kDst, 6144), want);
}

// WRITEs to disjoint ranges carry no fence: the second is placed while the first has a gap.
TEST_F(RdmaSr, DisjointWritesNotFenced) {
    ASSERT_TRUE(p.run());
    p.drop = drop_psn(101);
    p.log.clear();
    p.a.fill_va(kSrc, 8192, 43);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 4096, a_key)}, kDst, b_key));
    p.a.post_send(
        kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + 4096, 4096, a_key)}, kDst + 4096, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.read_va(kDst, 8192), p.a.read_va(kSrc, 8192));
    EXPECT_EQ(cb().sr_drop_fence, 0u);
    EXPECT_EQ(cb().sr_ooo_placed, 6u);  // 102..107
    EXPECT_EQ(ca().retransmits, 1u);
}

// A WRITE_WITH_IMMEDIATE behind a loss: its earlier packets are placed out of order, its last
// one (which needs the receive WQE) only in order; the receive CQE comes once, after the gap
// closed, with the immediate and the message length.
TEST_F(RdmaSr, WriteImmCompletesInOrder) {
    ASSERT_TRUE(p.run());
    p.b.post_recv(kQb, {sge(kDst + 0x10000, 16, b_key)});
    p.drop = drop_psn(101);
    p.a.fill_va(kSrc, 8192, 44);
    auto wi = make_wqe(SCENIC_WQE_OP_WRITE_IMM, {sge(kSrc, 8192, a_key)}, kDst, b_key);
    wi.imm_data_be = __builtin_bswap32(0xabcd);
    p.a.post_send(kQa, wi);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.read_va(kDst, 8192), p.a.read_va(kSrc, 8192));
    EXPECT_EQ(cb().sr_ooo_placed, 5u);  // 102..106; 107 (LAST_WITH_IMMEDIATE) in order
    EXPECT_GE(cb().sr_drop_order, 1u);
    const auto cqes = p.b.poll(1);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcSuccess);
    EXPECT_EQ(cqes[0].byte_len, 8192u);
    EXPECT_EQ(qb().resp.msn, 1u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
}

// SENDs are not placed out of order in this slice: behind a loss they are dropped, and with
// nothing placed after the gap the responder falls back to the sequence NAK (5.10): resent at
// once, no ACK timeout; the receive CQEs come in order with intact data.
TEST_F(RdmaSr, SendBehindLossKeepsOrder) {
    ASSERT_TRUE(p.run());
    p.b.post_recv(kQb, {sge(kDst, 4096, b_key)});
    p.b.post_recv(kQb, {sge(kDst + 4096, 4096, b_key)});
    p.drop = drop_psn(101);
    p.a.fill_va(kSrc, 8192, 45);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 4096, a_key)}));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc + 4096, 4096, a_key)}));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.read_va(kDst, 8192), p.a.read_va(kSrc, 8192));
    const auto cqes = p.b.poll(1);
    ASSERT_EQ(cqes.size(), 2u);
    EXPECT_EQ(cqes[0].wqe_idx, 0u);
    EXPECT_EQ(cqes[1].wqe_idx, 1u);
    EXPECT_EQ(cqes[0].byte_len, 4096u);
    EXPECT_EQ(cb().sr_ooo_placed, 0u);
    EXPECT_GT(cb().sr_drop_order, 0u);
    EXPECT_EQ(cb().seq_nak_sent, 1u);
    EXPECT_EQ(ca().sr_fallbacks, 1u);
    EXPECT_EQ(ca().ack_timeouts, 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
}

// A READ behind a lost WRITE packet: the READ request at d > 0 is dropped (in order only), the
// WRITE's resend lets it execute, and it returns the written data.
TEST_F(RdmaSr, ReadBehindLossSeesTheWrite) {
    ASSERT_TRUE(p.run());
    p.drop = drop_psn(101);
    p.a.fill_va(kSrc, 4096, 46);
    p.a.fill_va(kSrc + 0x10000, 4096, 0);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 4096, a_key)}, kDst, b_key));
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc + 0x10000, 4096, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    EXPECT_EQ(p.a.read_va(kSrc + 0x10000, 4096), p.a.read_va(kSrc, 4096));
    EXPECT_EQ(p.b.status_state(kQb), uint32_t{kQpsRts});
}

// A has PSNs 100..107 outstanding (every data frame lost so far) when the SACKs arrive.
class RdmaSrOutstanding : public RdmaSr {
  protected:
    void SetUp() override {
        RdmaSr::SetUp();
        ASSERT_TRUE(p.run());
        p.drop = [](Dir d, const roce::ParsedPacket& pkt) {
            return d == Dir::kAtoB && roce::is_sr_data(pkt.transport.bth.opcode);
        };
        p.a.fill_va(kSrc, 8192, 31);
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8192, a_key)}, kDst, b_key));
        ASSERT_FALSE(p.run(1'000'000));  // 1 ms, well before the ACK timeout
        p.drop = nullptr;
        ASSERT_EQ(qa().req.max_sent, 108u);
        ASSERT_EQ(qa().req.snd_una, 100u);
    }
    void to_a(uint32_t psn, const roce::SackEth& k) {
        roce::Transport t;
        t.bth.opcode = kSack;
        t.bth.dest_qp = kQa;
        t.bth.psn = psn;
        t.aeth = roce::Aeth::ack(0);
        t.sack = k;
        const auto f = roce::build_frame(p.b.path_to(p.a), t, {});
        ASSERT_TRUE(f.ok());
        p.a.dev.eth_rx(f.frame);
    }
    static roce::SackEth sack(std::vector<roce::SackEth::Range> ranges, uint32_t right_edge) {
        roce::SackEth k;
        k.n = static_cast<uint8_t>(ranges.size());
        std::copy(ranges.begin(), ranges.end(), k.ranges.begin());
        k.right_edge = right_edge;
        return k;
    }
};

TEST_F(RdmaSrOutstanding, MalformedSackIgnored) {
    const size_t wire = p.a.host.wire.size();
    to_a(100, sack({{0, 3}, {2, 1}}, 106));  // overlapping
    to_a(100, sack({{1, 1}}, 106));          // start_0 != 0: epsn itself received?
    to_a(100, sack({{0, 1}}, 0x200));        // right_edge beyond max_sent
    to_a(101, sack({{0, 1}}, 109));          // right_edge beyond max_sent
    EXPECT_EQ(ca().sr_drop_malformed, 4u);
    EXPECT_EQ(ca().sr_sack_rcvd, 0u);
    EXPECT_EQ(qa().req.snd_una, 100u);
    EXPECT_TRUE(qa().req.sr_sacked.none());
    EXPECT_FALSE(qa().req.sr_resend_due);
    EXPECT_EQ(p.a.host.wire.size(), wire);  // nothing resent
    EXPECT_EQ(p.a.status_state(kQa), uint32_t{kQpsRts});
    // The QP goes on: the ACK timeout resends from 100 and the WRITE completes intact.
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, 8192), p.a.read_va(kSrc, 8192));
    EXPECT_EQ(ca().ack_timeouts, 1u);
}

// 5.10: a standard sequence NAK to an SR requester rewinds, and the resend passes what the
// responder holds according to the SACKs.
TEST_F(RdmaSrOutstanding, StandardNakFallback) {
    to_a(100, sack({{0, 2}}, 103));  // 102 held; 100, 101 missing but not yet deemed lost
    EXPECT_FALSE(qa().req.sr_resend_due);
    const size_t before = p.a.host.wire.size();
    roce::Transport t;
    t.bth.opcode = kAck;
    t.bth.dest_qp = kQa;
    t.bth.psn = 100;
    t.aeth = roce::Aeth::nak(0, roce::NakCode::kPsnSeqError);
    p.a.dev.eth_rx(roce::build_frame(p.b.path_to(p.a), t, {}).frame);
    EXPECT_EQ(ca().sr_fallbacks, 1u);
    std::vector<uint32_t> psns;
    for (size_t i = before; i < p.a.host.wire.size(); ++i) {
        const auto pr = roce::parse_frame(p.a.host.wire[i], roce::OpcodeSet::kRcAndSr);
        ASSERT_TRUE(pr.ok());
        psns.push_back(pr.packet.transport.bth.psn);
    }
    EXPECT_EQ(psns, (std::vector<uint32_t>{100, 101, 103, 104, 105, 106, 107}));
}

// The robustness stream of rdma_robust_test.cpp with SR on: 96 x 64 KiB WRITEs, 4 seeds, 5%
// drop + 1% duplicate + 1% reorder on both cards' receive side; data verified, no hang, and
// selective resends no more than 1.2 x the frames the wire dropped.
TEST(RdmaSrRobust, RandomLossVerified) {
    constexpr uint32_t kMsgs = 96;
    constexpr uint32_t kLen = 65536;
    for (const uint64_t seed : {1, 2, 3, 4}) {
        SCOPED_TRACE(seed);
        const std::string f = "rx:drop:ppm=50000;rx:dup:ppm=10000;rx:reorder:ppm=10000";
        RdmaPair p(0, seed, 0, f, f, sr_on, sr_on);
        QpAttrs at;
        at.timeout = 14;
        p.setup(2, 3, at);
        const uint32_t ak = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        const uint32_t bk = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
        ASSERT_TRUE(p.run(100'000'000));
        ASSERT_EQ(p.a.dev.rdma().engine().qp(2)->req.sr, rdma::SrTx::kOn);
        for (uint32_t g = 0; g < kMsgs / 8; ++g) {
            for (uint32_t k = 0; k < 8; ++k) {
                const uint64_t s = Node::kVa + k * kLen;
                const uint64_t d = Node::kVa + 0x80000 + k * kLen;
                p.a.fill_va(s, kLen, static_cast<uint8_t>(g * 8 + k + 1));
                p.a.post_send(2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(s, kLen, ak)}, d, bk));
            }
            ASSERT_TRUE(p.run(60'000'000'000ull)) << "group " << g;
            ASSERT_EQ(p.a.sq_completed(2), (g + 1) * 8) << "group " << g;
            for (uint32_t k = 0; k < 8; ++k) {
                ASSERT_EQ(p.b.read_va(Node::kVa + 0x80000 + k * kLen, kLen),
                          p.a.read_va(Node::kVa + k * kLen, kLen))
                    << "group " << g << " " << k;
            }
        }
        const auto& ca = p.a.dev.rdma().counters();
        const auto& cb = p.b.dev.rdma().counters();
        const uint32_t drops = p.a.r(regs::rdma::kWireDrops) + p.b.r(regs::rdma::kWireDrops);
        EXPECT_GT(drops, 0u);
        EXPECT_GT(cb.sr_ooo_placed, 0u);
        EXPECT_GT(ca.sr_sack_rcvd, 0u);
        EXPECT_LE(ca.sr_retransmits, drops * 12 / 10);
        RecordProperty("seed" + std::to_string(seed),
                       "drops " + std::to_string(drops) + " retransmits " +
                           std::to_string(ca.retransmits) + " sr_retransmits " +
                           std::to_string(ca.sr_retransmits) + " timeouts " +
                           std::to_string(ca.ack_timeouts));
    }
}

}  // namespace
}  // namespace scenic::test::sr
