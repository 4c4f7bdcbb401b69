// SPDX-License-Identifier: MIT
// RC conformance of the RDMA engine (issue 6, behaviours 1-13), two cards back to back on a
// fault-injecting wire (rdma_rig.hpp: hook, after, log). Each test is named after the behaviour
// it proves (B01..B13, docs/conformance-model.md) and checks exact outcomes: the NAKs and PSNs
// seen on the wire, CQE statuses, byte_len and imm_data, QP states read back with QUERY_QP,
// card counters and virtual time. The reference is IBA RC as Linux rxe implements it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

using Dir = RdmaPair::Dir;
using Fate = RdmaPair::Fate;
using Rec = RdmaPair::WireRecord;
using roce::AethType;
using roce::NakCode;
using roce::Opcode;

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint32_t kPsnA = 0x100;  // A's first send PSN = B's first expected PSN
constexpr uint64_t kSrc = Node::kVa;
constexpr uint64_t kDst = Node::kVa + 0x80000;
// The card's CQE status and QP error codes (docs/admin-queue.md 6.2, 6.3), written out here
// independently of the model's headers.
constexpr uint8_t kWcSuccess = 0, kWcLocLenErr = 1, kWcFlushErr = 4, kWcRemInvReq = 6,
                  kWcRemAccess = 7, kWcRetryExc = 9, kWcRnrRetryExc = 10;
constexpr uint32_t kQpErrReqInvalid = 1, kQpErrAccess = 2;  // AEQ QP_ERROR.code

uint8_t op(Opcode o) { return static_cast<uint8_t>(o); }

// CRC-32 (reflected 0xEDB88320) one bit at a time: independent of the model's zlib engine.
uint32_t crc32_bitwise(uint32_t crc, std::span<const uint8_t> d) {
    for (const uint8_t b : d) {
        crc ^= b;
        for (int i = 0; i < 8; ++i) {
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
        }
    }
    return crc;
}

// The ICRC of an IPv4 RoCE v2 frame as rxe_icrc.c computes it: 8 bytes of 0xff for the LRH,
// then IP header .. pad with TOS, TTL, IP checksum, UDP checksum and BTH byte 4 as ones.
uint32_t independent_icrc(const std::vector<uint8_t>& f) {
    constexpr size_t kIp = 14;
    const size_t ihl = size_t{f[kIp] & 0xfu} * 4;
    const size_t tot = size_t{f[kIp + 2]} << 8 | f[kIp + 3];
    std::vector<uint8_t> m(f.begin() + kIp, f.begin() + static_cast<long>(kIp + tot - 4));
    m[1] = 0xff;
    m[8] = 0xff;
    m[10] = m[11] = 0xff;
    m[ihl + 6] = m[ihl + 7] = 0xff;
    m[ihl + 8 + 4] = 0xff;
    const std::array<uint8_t, 8> lrh{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    return ~crc32_bitwise(crc32_bitwise(0xffffffffu, lrh), m);
}

uint32_t frame_icrc(const std::vector<uint8_t>& f) {
    const size_t end = 14 + (size_t{f[16]} << 8 | f[17]);
    return uint32_t{f[end - 4]} | uint32_t{f[end - 3]} << 8 | uint32_t{f[end - 2]} << 16 |
           uint32_t{f[end - 1]} << 24;
}

void set_frame_icrc(std::vector<uint8_t>& f) {
    const uint32_t v = independent_icrc(f);
    const size_t end = 14 + (size_t{f[16]} << 8 | f[17]);
    for (size_t i = 0; i < 4; ++i) {
        f[end - 4 + i] = static_cast<uint8_t>(v >> (8 * i));
    }
}

class Conformance : public ::testing::Test {
  protected:
    void start(const QpAttrs& at = {}) {
        p.setup(kQa, kQb, at);
        a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
        p.record = true;
    }
    void TearDown() override { EXPECT_EQ(p.bad_frames, 0u); }
    uint32_t ra(uint32_t off) const { return p.a.r(off); }
    uint32_t rb(uint32_t off) const { return p.b.r(off); }

    // ACK-opcode frames of one AETH type in one direction.
    std::vector<Rec> acks(Dir d, AethType type) const {
        std::vector<Rec> out;
        for (const Rec& r : p.seen(d, Opcode::kAck)) {
            if (r.aeth && r.aeth->type() == type) {
                out.push_back(r);
            }
        }
        return out;
    }
    std::vector<Rec> naks(Dir d, NakCode code) const {
        std::vector<Rec> out;
        for (const Rec& r : acks(d, AethType::kNak)) {
            if (r.aeth->value() == static_cast<uint8_t>(code)) {
                out.push_back(r);
            }
        }
        return out;
    }
    // Every NAK (any code) and RNR NAK of one direction.
    size_t all_naks(Dir d) const {
        return acks(d, AethType::kNak).size() + acks(d, AethType::kRnrNak).size();
    }
    static std::vector<uint32_t> psns(const std::vector<Rec>& v) {
        std::vector<uint32_t> out;
        for (const Rec& r : v) {
            out.push_back(r.psn);
        }
        return out;
    }
    // A->B records of one PSN (every transmission of it).
    std::vector<Rec> sent_a(uint32_t psn) const {
        std::vector<Rec> out;
        for (const Rec& r : p.log) {
            if (r.dir == Dir::kAtoB && r.psn == psn) {
                out.push_back(r);
            }
        }
        return out;
    }
    static uint64_t get64(Node& n, uint64_t va) {
        const auto b = n.read_va(va, 8);
        uint64_t v = 0;
        std::memcpy(&v, b.data(), 8);
        return v;
    }
    static void put64(Node& n, uint64_t va, uint64_t v) {
        n.write_va(va, std::span(reinterpret_cast<const uint8_t*>(&v), 8));
    }

    // ---- frames built by the test, handed to B as if A had sent them
    void inject_b(roce::Transport t, std::span<const uint8_t> payload = {}) {
        if (t.bth.dest_qp == 0) {
            t.bth.dest_qp = kQb;
        }
        const auto built = roce::build_frame(p.a.path_to(p.b), t, payload);
        ASSERT_TRUE(built.ok());
        p.b.dev.eth_rx(built.frame);
    }
    std::vector<uint8_t> frame_to_b(roce::Transport t, std::span<const uint8_t> payload = {}) {
        t.bth.dest_qp = t.bth.dest_qp == 0 ? kQb : t.bth.dest_qp;
        auto built = roce::build_frame(p.a.path_to(p.b), t, payload);
        EXPECT_TRUE(built.ok());
        return built.frame;
    }
    // What B put on its wire since the last call (parsed), then forgotten.
    std::vector<roce::Transport> b_replies() {
        std::vector<roce::Transport> out;
        for (const auto& f : p.b.host.wire) {
            const auto pr = roce::parse_frame(f);
            EXPECT_TRUE(pr.ok());
            out.push_back(pr.packet.transport);
        }
        p.b.host.wire.clear();
        return out;
    }
    // A request of opcode o at psn with no extended header (add them to the result).
    static roce::Transport request(Opcode o, uint32_t psn, bool ackreq = false) {
        roce::Transport t;
        t.bth.opcode = op(o);
        t.bth.psn = psn;
        t.bth.ackreq = ackreq;
        return t;
    }
    static roce::Transport write_only(uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len) {
        roce::Transport t = request(Opcode::kWriteOnly, psn, true);
        t.reth = roce::Reth{va, rkey, len};
        return t;
    }
    // One Invalid Request NAK from B at `psn`, B in ERR with EV_QP_ERR (QP_REQ_ERR).
    void expect_invalid_request_from_b(uint32_t psn) {
        const auto r = b_replies();
        ASSERT_EQ(r.size(), 1u);
        EXPECT_EQ(r[0].bth.opcode, op(Opcode::kAck));
        EXPECT_EQ(r[0].bth.psn, psn);
        ASSERT_TRUE(r[0].aeth);
        EXPECT_EQ(r[0].aeth->type(), AethType::kNak);
        EXPECT_EQ(r[0].aeth->value(), static_cast<uint8_t>(NakCode::kInvalidRequest));
        EXPECT_EQ(rb(regs::rdma::kRemInvReq), 1u);
        EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsErr});
        p.b.service_events();
        ASSERT_EQ(p.b.count_events(kEvQpErr), 1u);
        EXPECT_EQ(p.b.events.back().a0, kQpErrReqInvalid);
    }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

// ------------------------------------------------------------------ 1 SEND / RECV

class ConformanceMtu : public Conformance, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(ConformanceMtu, B01_SendEveryPacketTypeWithImmAndZeroLength) {
    const uint32_t P = GetParam();
    QpAttrs at;
    at.pmtu = P;
    start(at);
    struct Msg {
        uint8_t wqe_op;
        uint32_t len;
        uint32_t imm_be;
    };
    const std::vector<Msg> msgs{
        {SCENIC_WQE_OP_SEND, 0, 0},                       // SEND_ONLY, no payload
        {SCENIC_WQE_OP_SEND_IMM, 0, 0x11223344},          // SEND_ONLY_IMM, no payload
        {SCENIC_WQE_OP_SEND, P, 0},                       // SEND_ONLY, exactly one PMTU
        {SCENIC_WQE_OP_SEND_IMM, 5, 0x55667788},          // SEND_ONLY_IMM with pad
        {SCENIC_WQE_OP_SEND, 2 * P + 3, 0},               // FIRST MIDDLE LAST
        {SCENIC_WQE_OP_SEND_IMM, 2 * P, 0x99aabbcc},      // FIRST LAST_IMM
        {SCENIC_WQE_OP_SEND_IMM, 3 * P + 1, 0x0a0b0c0d},  // FIRST MIDDLE MIDDLE LAST_IMM
    };
    const std::vector<Opcode> wire{Opcode::kSendOnly,    Opcode::kSendOnlyImm, Opcode::kSendOnly,
                                   Opcode::kSendOnlyImm, Opcode::kSendFirst,   Opcode::kSendMiddle,
                                   Opcode::kSendLast,    Opcode::kSendFirst,   Opcode::kSendLastImm,
                                   Opcode::kSendFirst,   Opcode::kSendMiddle,  Opcode::kSendMiddle,
                                   Opcode::kSendLastImm};
    const uint64_t slot = 4 * uint64_t{P} + 64;
    for (size_t i = 0; i < msgs.size(); ++i) {
        p.b.fill_va(kDst + i * slot, slot, 0xe0);
        p.b.post_recv(kQb, {sge(kDst + i * slot, static_cast<uint32_t>(slot), b_key)});
    }
    for (size_t i = 0; i < msgs.size(); ++i) {
        const uint64_t src = kSrc + i * slot;
        p.a.fill_va(src, msgs[i].len, static_cast<uint8_t>(i * 16));
        auto w = make_wqe(msgs[i].wqe_op, {sge(src, msgs[i].len, a_key)});
        w.imm_data_be = msgs[i].imm_be;
        p.a.post_send(kQa, w);
    }
    ASSERT_TRUE(p.run());
    std::vector<Rec> req;
    for (const Rec& r : p.log) {
        if (r.dir == Dir::kAtoB) req.push_back(r);
    }
    ASSERT_EQ(req.size(), wire.size());  // nothing resent
    for (size_t i = 0; i < wire.size(); ++i) {
        EXPECT_EQ(req[i].opcode, op(wire[i])) << i;
        EXPECT_EQ(req[i].psn, kPsnA + i) << i;
    }
    EXPECT_EQ(req[12].imm->imm, __builtin_bswap32(0x0a0b0c0du));  // the ImmDt on the wire
    EXPECT_EQ(p.a.sq_completed(kQa), msgs.size());
    EXPECT_TRUE(p.a.poll(0).empty());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), msgs.size());
    for (uint32_t i = 0; i < msgs.size(); ++i) {
        const bool imm = msgs[i].wqe_op == SCENIC_WQE_OP_SEND_IMM;
        EXPECT_EQ(rc[i].wqe_idx, i);  // receive WQEs consumed in order
        EXPECT_EQ(rc[i].status, kWcSuccess);
        EXPECT_EQ(rc[i].opcode, SCENIC_CQE_OP_RECV);
        EXPECT_EQ(rc[i].byte_len, msgs[i].len) << i;
        EXPECT_EQ((rc[i].flags & SCENIC_CQE_F_IMM) != 0, imm) << i;
        EXPECT_EQ(rc[i].imm_data_be, imm ? msgs[i].imm_be : 0u) << i;
        EXPECT_EQ(p.b.read_va(kDst + i * slot, msgs[i].len),
                  p.a.read_va(kSrc + i * slot, msgs[i].len));
        // nothing past byte_len
        EXPECT_EQ(p.b.read_va(kDst + i * slot + msgs[i].len, 1)[0],
                  static_cast<uint8_t>(0xe0 + msgs[i].len * 7 + (msgs[i].len >> 8)));
    }
}

INSTANTIATE_TEST_SUITE_P(Pmtu, ConformanceMtu, ::testing::Values(1024u, 4096u),
                         [](const auto& tpi) { return "pmtu" + std::to_string(tpi.param); });

TEST_F(Conformance, B01_TooSmallReceiveBufferInvalidRequestBothQpsErr) {
    start();
    p.b.post_recv(kQb, {sge(kDst, 100, b_key)});
    p.b.post_recv(kQb, {sge(kDst + 4096, 4096, b_key)});
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 3000, a_key)}));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 10, a_key)}));
    ASSERT_TRUE(p.run());
    // One NAK, at the PSN of the packet that did not fit (the FIRST), and nothing else.
    const auto inv = naks(Dir::kBtoA, NakCode::kInvalidRequest);
    ASSERT_EQ(inv.size(), 1u);
    EXPECT_EQ(inv[0].psn, kPsnA);
    EXPECT_EQ(all_naks(Dir::kBtoA), 1u);
    EXPECT_EQ(rb(regs::rdma::kRemInvReq), 1u);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 2u);
    EXPECT_EQ(rc[0].status, kWcLocLenErr);
    EXPECT_EQ(rc[0].wqe_idx, 0u);
    EXPECT_EQ(rc[1].status, kWcFlushErr);
    EXPECT_EQ(rc[1].wqe_idx, 1u);
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 2u);
    EXPECT_EQ(sc[0].status, kWcRemInvReq);
    EXPECT_EQ(sc[0].wqe_idx, 0u);
    EXPECT_EQ(sc[0].syndrome, roce::Aeth::nak(0, NakCode::kInvalidRequest).syndrome);
    EXPECT_EQ(sc[1].status, kWcFlushErr);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsErr});
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsErr});
    EXPECT_EQ(p.a.sq_completed(kQa), 0u);
}

// ------------------------------------------------------------------ 2 RNR

TEST_F(Conformance, B02_RnrNakCarriesMinRnrTimerAndResendsFromThatPsn) {
    QpAttrs at;
    at.min_rnr_timer = 12;  // 0.64 ms
    start(at);
    const uint64_t rnr_ns = roce::rnr_timer_ns(12);
    ASSERT_EQ(rnr_ns, 640'000u);
    p.a.fill_va(kSrc, 3000, 3);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 16, a_key)}, kDst, b_key));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 3000, a_key)}));  // 0x101..0x103
    p.after = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && pkt.transport.aeth &&
            pkt.transport.aeth->type() == AethType::kRnrNak &&
            acks(Dir::kBtoA, AethType::kRnrNak).size() == 2) {
            p.b.post_recv(kQb, {sge(kDst + 4096, 4096, b_key)});
        }
    };
    ASSERT_TRUE(p.run());
    const auto rnr = acks(Dir::kBtoA, AethType::kRnrNak);
    ASSERT_EQ(rnr.size(), 2u);
    for (const Rec& r : rnr) {
        EXPECT_EQ(r.psn, kPsnA + 1);      // the SEND's first PSN
        EXPECT_EQ(r.aeth->value(), 12u);  // the responder's min_rnr_timer code
    }
    EXPECT_EQ(acks(Dir::kBtoA, AethType::kNak).size(), 0u);  // no sequence NAK after an RNR NAK
    const auto firsts = p.seen(Dir::kAtoB, Opcode::kSendFirst);
    ASSERT_EQ(firsts.size(), 3u);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(firsts[i + 1].psn, kPsnA + 1);
        EXPECT_EQ(firsts[i + 1].t_ns, rnr[i].t_ns + rnr_ns);  // resent when the timer expired
    }
    EXPECT_EQ(sent_a(kPsnA).size(), 1u);  // the WRITE before it is not resent
    EXPECT_EQ(ra(regs::rdma::kRnrNakRcvd), 2u);
    EXPECT_EQ(rb(regs::rdma::kRnrNakSent), 2u);
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].byte_len, 3000u);
    EXPECT_EQ(p.b.read_va(kDst + 4096, 3000), p.a.read_va(kSrc, 3000));
}

TEST_F(Conformance, B02_WriteWithImmediateWithoutReceiveIsRnrNakedNothingWrittenTwice) {
    start();
    p.a.fill_va(kSrc, 64, 0x2b);
    auto w = make_wqe(SCENIC_WQE_OP_WRITE_IMM, {sge(kSrc, 64, a_key)}, kDst, b_key);
    w.imm_data_be = 0x01020304;
    p.a.post_send(kQa, w);
    p.after = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && pkt.transport.aeth &&
            pkt.transport.aeth->type() == AethType::kRnrNak) {
            p.b.post_recv(kQb, {});  // WRITE with immediate takes a WQE without buffers
        }
    };
    ASSERT_TRUE(p.run());
    EXPECT_EQ(psns(acks(Dir::kBtoA, AethType::kRnrNak)), (std::vector<uint32_t>{kPsnA}));
    EXPECT_EQ(p.seen(Dir::kAtoB, Opcode::kWriteOnlyImm).size(), 2u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].opcode, SCENIC_CQE_OP_RECV_WRITE_IMM);
    EXPECT_EQ(rc[0].byte_len, 64u);
    EXPECT_EQ(rc[0].imm_data_be, 0x01020304u);
    EXPECT_EQ(p.b.read_va(kDst, 64), p.a.read_va(kSrc, 64));
}

TEST_F(Conformance, B02_RnrRetryCountsDownThenRnrRetryExcErr) {
    QpAttrs at;
    at.rnr_retry = 3;
    start(at);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 10, a_key)}));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 10, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(acks(Dir::kBtoA, AethType::kRnrNak).size(), 4u);  // first try + 3 retries
    EXPECT_EQ(p.seen(Dir::kAtoB, Opcode::kSendOnly).size(), 4u);
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 2u);
    EXPECT_EQ(sc[0].status, kWcRnrRetryExc);
    EXPECT_EQ(sc[0].wqe_idx, 0u);
    EXPECT_EQ(sc[0].opcode, SCENIC_CQE_OP_SEND);
    EXPECT_EQ(sc[1].status, kWcFlushErr);
    EXPECT_EQ(sc[1].wqe_idx, 1u);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsErr});
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});  // RNR is no error at the responder
}

TEST_F(Conformance, B02_RnrRetrySevenNeverGivesUp) {
    start();  // rnr_retry 7, min_rnr_timer 1 (10 us)
    p.a.fill_va(kSrc, 64, 9);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 64, a_key)}));
    size_t rnr = 0;
    p.after = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && pkt.transport.aeth &&
            pkt.transport.aeth->type() == AethType::kRnrNak && ++rnr == 50) {
            p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
        }
    };
    ASSERT_TRUE(p.run());
    EXPECT_EQ(rnr, 50u);
    EXPECT_EQ(ra(regs::rdma::kRnrNakRcvd), 50u);
    EXPECT_EQ(p.seen(Dir::kAtoB, Opcode::kSendOnly).size(), 51u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_TRUE(p.a.poll(0).empty());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].byte_len, 64u);
    EXPECT_EQ(p.b.read_va(kDst, 64), p.a.read_va(kSrc, 64));
}

// ------------------------------------------------------------------ 3 loss

TEST_F(Conformance, B03_OneLostMiddlePacketExactlyOneSeqNak) {
    start();
    // WRITE 1 packet (0x100), WRITE 8 packets (0x101..0x108), WRITE 1 packet (0x109).
    p.a.fill_va(kSrc, 10 * 1024, 5);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 1024, a_key)}, kDst, b_key));
    p.a.post_send(
        kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + 1024, 8192, a_key)}, kDst + 1024, b_key));
    p.a.post_send(
        kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + 9216, 1024, a_key)}, kDst + 9216, b_key));
    bool lost = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.psn == kPsnA + 4 && !lost) {
            lost = true;
            return Fate::kDrop;
        }
        return Fate::kPass;
    };
    ASSERT_TRUE(p.run());
    const auto seq = naks(Dir::kBtoA, NakCode::kPsnSeqError);
    ASSERT_EQ(seq.size(), 1u);
    EXPECT_EQ(seq[0].psn, kPsnA + 4);     // the PSN expected
    EXPECT_EQ(all_naks(Dir::kBtoA), 1u);  // 0x105..0x109 dropped silently
    // Go-back-N: exactly 0x104..0x109 sent again, once each.
    for (uint32_t psn = kPsnA; psn <= kPsnA + 9; ++psn) {
        EXPECT_EQ(sent_a(psn).size(), psn >= kPsnA + 4 ? 2u : 1u) << psn;
    }
    EXPECT_EQ(ra(regs::rdma::kRetransmits), 6u);
    EXPECT_EQ(ra(regs::rdma::kSeqNakRcvd), 1u);
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);  // in order, no error CQE
    EXPECT_TRUE(p.a.poll(0).empty());
    EXPECT_EQ(p.b.read_va(kDst, 10 * 1024), p.a.read_va(kSrc, 10 * 1024));
    EXPECT_EQ(p.b.query(kQb).epsn, kPsnA + 10);
}

TEST_F(Conformance, B03_LostSendPacketReceiveCompletionsStayInOrder) {
    start();
    // SEND 1 packet (0x100), SEND 3 packets (0x101..0x103), SEND 1 packet (0x104); 0x102 lost.
    const uint32_t lens[] = {100, 3000, 200};
    uint64_t off = 0;
    for (uint32_t i = 0; i < 3; ++i) {
        p.b.post_recv(kQb, {sge(kDst + i * 4096, 4096, b_key)});
        p.a.fill_va(kSrc + off, lens[i], static_cast<uint8_t>(i + 1));
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc + off, lens[i], a_key)}));
        off += lens[i];
    }
    std::vector<size_t> cqes_at;  // receive CQEs written when each A->B packet was delivered
    bool lost = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.psn == kPsnA + 2 && !lost) {
            lost = true;
            return Fate::kDrop;
        }
        return Fate::kPass;
    };
    p.after = [&](Dir d, const roce::ParsedPacket&) {
        if (d == Dir::kAtoB) cqes_at.push_back(rb(regs::rdma::kCqeWritten));
    };
    ASSERT_TRUE(p.run());
    // Delivered: 0x100 (WQE 0 completes), 0x101, 0x103 and 0x104 (behind the gap: nothing),
    // then the resent 0x102, 0x103 (WQE 1 completes), 0x104 (WQE 2).
    EXPECT_EQ(cqes_at, (std::vector<size_t>{1, 1, 1, 1, 1, 2, 3}));
    EXPECT_EQ(psns(naks(Dir::kBtoA, NakCode::kPsnSeqError)), (std::vector<uint32_t>{kPsnA + 2}));
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 3u);
    off = 0;
    for (uint32_t i = 0; i < 3; ++i) {
        EXPECT_EQ(rc[i].wqe_idx, i);
        EXPECT_EQ(rc[i].status, kWcSuccess);
        EXPECT_EQ(rc[i].byte_len, lens[i]);
        EXPECT_EQ(p.b.read_va(kDst + i * 4096, lens[i]), p.a.read_va(kSrc + off, lens[i]));
        off += lens[i];
    }
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);
}

TEST_F(Conformance, B03_LostLastPacketRecoversByAckTimeoutAtExactTime) {
    QpAttrs at;
    at.timeout = 10;  // 4.096 us * 2^10
    start(at);
    const uint64_t t_ack = 4096ull << 10;
    p.a.fill_va(kSrc, 4096, 19);
    bool lost = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.opcode == op(Opcode::kWriteLast) && !lost) {
            lost = true;
            return Fate::kDrop;
        }
        return Fate::kPass;
    };
    const uint64_t t0 = p.a.host.now;
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 4096, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(all_naks(Dir::kBtoA), 0u);
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), 1u);
    // Nothing was acknowledged, so go-back-N restarts at the first PSN at t0 + 4.096 us *
    // 2^timeout. After the timeout the window is at its minimum (2) and every packet asks for an
    // ACK: the first two go out again, the re-ACK of the duplicate second one covers the third
    // (which had arrived), so the lost last one follows at that same instant.
    for (uint32_t psn = kPsnA; psn < kPsnA + 4; ++psn) {
        const auto tx = sent_a(psn);
        const bool resent = psn != kPsnA + 2;
        ASSERT_EQ(tx.size(), resent ? 2u : 1u) << psn;
        EXPECT_EQ(tx[0].t_ns, t0);
        if (resent) {
            EXPECT_EQ(tx[1].t_ns, t0 + t_ack);
        }
    }
    EXPECT_EQ(ra(regs::rdma::kRetransmits), 3u);
    EXPECT_EQ(rb(regs::rdma::kDupRequests), 2u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, 4096), p.a.read_va(kSrc, 4096));
}

// ------------------------------------------------------------------ 4 duplicates

TEST_F(Conformance, B04_DuplicateSendAndWriteReAckedWithoutSecondCompletion) {
    start();
    p.hook = [](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket&) {
        return d == Dir::kAtoB ? Fate::kDuplicate : Fate::kPass;
    };
    p.a.fill_va(kSrc, 64, 1);
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    p.b.post_recv(kQb, {sge(kDst + 64, 64, b_key)});
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 64, a_key)}));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 64, a_key)}, kDst + 4096, b_key));
    ASSERT_TRUE(p.run());
    // ACK, re-ACK of the duplicate (expected PSN - 1), for each.
    EXPECT_EQ(psns(acks(Dir::kBtoA, AethType::kAck)),
              (std::vector<uint32_t>{kPsnA, kPsnA, kPsnA + 1, kPsnA + 1}));
    EXPECT_EQ(rb(regs::rdma::kDupRequests), 2u);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);  // one receive completion, the second WQE untouched
    EXPECT_EQ(rc[0].wqe_idx, 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    EXPECT_EQ(p.b.read_va(kDst + 4096, 64), p.a.read_va(kSrc, 64));
}

TEST_F(Conformance, B04_DuplicateReadIsReExecuted) {
    start();
    p.b.fill_va(kDst, 2048, 0x40);
    // The duplicate is executed again: it reads the memory as it is when it arrives.
    std::vector<uint8_t> first_bytes;
    int reads = 0;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && pkt.transport.bth.opcode == op(Opcode::kReadResponseFirst)) {
            first_bytes.push_back(pkt.payload[0]);
        }
        return d == Dir::kAtoB && pkt.transport.bth.opcode == op(Opcode::kReadRequest)
                   ? Fate::kDuplicate
                   : Fate::kPass;
    };
    p.after = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.opcode == op(Opcode::kReadRequest) &&
            ++reads == 1) {
            p.b.fill_va(kDst, 1, 0x01);  // between the original and the duplicate
        }
    };
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc, 2048, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(psns(p.seen(Dir::kBtoA, Opcode::kReadResponseFirst)),
              (std::vector<uint32_t>{kPsnA, kPsnA}));
    EXPECT_EQ(psns(p.seen(Dir::kBtoA, Opcode::kReadResponseLast)),
              (std::vector<uint32_t>{kPsnA + 1, kPsnA + 1}));
    EXPECT_EQ(first_bytes, (std::vector<uint8_t>{0x40, 0x01}));
    EXPECT_EQ(rb(regs::rdma::kDupRequests), 1u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.a.read_va(kSrc, 1)[0], 0x40);  // the requester took the first answer
    EXPECT_EQ(p.b.query(kQb).epsn, kPsnA + 2);
}

TEST_F(Conformance, B04_DuplicateAtomicAnsweredFromSavedResultNotExecutedTwice) {
    start();
    put64(p.b, kDst, 100);
    p.hook = [](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        return d == Dir::kAtoB && pkt.transport.bth.opcode == op(Opcode::kFetchAdd)
                   ? Fate::kDuplicate
                   : Fate::kPass;
    };
    auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kSrc, 8, a_key)}, kDst, b_key);
    faa.compare_add = 5;
    p.a.post_send(kQa, faa);
    ASSERT_TRUE(p.run());
    const auto aa = p.seen(Dir::kBtoA, Opcode::kAtomicAck);
    ASSERT_EQ(aa.size(), 2u);
    for (const Rec& r : aa) {
        EXPECT_EQ(r.psn, kPsnA);
        EXPECT_EQ(r.atomic_ack->orig, 100u);  // the saved original value, both times
    }
    EXPECT_EQ(get64(p.b, kDst), 105u);  // executed once
    EXPECT_EQ(get64(p.a, kSrc), 100u);
    EXPECT_EQ(rb(regs::rdma::kDupRequests), 1u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
}

// ------------------------------------------------------------------ 5 reordering

TEST_F(Conformance, B05_SwappedPacketsTreatedAsLossNothingPlacedOutOfOrder) {
    start();
    constexpr uint32_t kLen = 4096;  // 4 packets, 0x100..0x103
    p.a.fill_va(kSrc, kLen, 0x11);
    p.b.fill_va(kDst, kLen, 0x80);  // differs from the source in every byte
    const auto src = p.a.read_va(kSrc, kLen);
    const auto old = p.b.read_va(kDst, kLen);
    bool held = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.psn == kPsnA + 1 && !held) {
            held = true;
            return Fate::kHold;  // 0x100, 0x102, 0x101, 0x103
        }
        return Fate::kPass;
    };
    // After every delivery the target holds a prefix of whole packets and nothing beyond it.
    std::vector<size_t> prefix;
    p.after = [&](Dir d, const roce::ParsedPacket&) {
        if (d != Dir::kAtoB) return;
        const auto now = p.b.read_va(kDst, kLen);
        size_t k = 0;
        while (k < 4 &&
               std::equal(now.begin() + long(k * 1024), now.begin() + long(k * 1024 + 1024),
                          src.begin() + long(k * 1024))) {
            ++k;
        }
        EXPECT_TRUE(
            std::equal(now.begin() + long(k * 1024), now.end(), old.begin() + long(k * 1024)));
        prefix.push_back(k);
    };
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, kLen, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    ASSERT_GE(prefix.size(), 4u);
    // 0x100 placed; 0x102 (early) not placed; 0x101 placed; 0x103 (behind a new gap) not placed.
    EXPECT_EQ(std::vector<size_t>(prefix.begin(), prefix.begin() + 4),
              (std::vector<size_t>{1, 1, 2, 2}));
    EXPECT_EQ(psns(naks(Dir::kBtoA, NakCode::kPsnSeqError)),
              (std::vector<uint32_t>{kPsnA + 1, kPsnA + 2}));
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, kLen), src);
}

// ------------------------------------------------------------------ 6 peer gone

TEST_F(Conformance, B06_PeerGoneRetryExcErrAfterRetryCntPlusOneTimeoutsThenFlush) {
    QpAttrs at;
    at.retry_cnt = 3;
    at.timeout = 8;
    start(at);
    const uint64_t t_ack = 4096ull << 8;
    ASSERT_EQ(p.b.cmd(kOpDestroyQp, {kQb}), 0u);
    const uint64_t t0 = p.a.host.now;
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 8, a_key)}));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc + 64, 8, a_key)}, kDst, b_key));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE_IMM, {sge(kSrc, 8, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), 4u);  // retry_cnt + 1
    const auto tx = sent_a(kPsnA);
    ASSERT_EQ(tx.size(), 4u);  // first try + 3 retries
    for (size_t i = 0; i < tx.size(); ++i) {
        EXPECT_EQ(tx[i].t_ns, t0 + i * t_ack);
    }
    EXPECT_EQ(p.a.host.now, t0 + 4 * t_ack);             // the fourth timeout gave up
    EXPECT_EQ(rb(regs::rdma::kRxDropQp), p.log.size());  // every frame: no such QP
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 4u);
    EXPECT_EQ(sc[0].status, kWcRetryExc);
    EXPECT_EQ(sc[0].opcode, SCENIC_CQE_OP_WRITE);
    const uint8_t ops[] = {SCENIC_CQE_OP_WRITE, SCENIC_CQE_OP_SEND, SCENIC_CQE_OP_READ,
                           SCENIC_CQE_OP_WRITE};
    for (uint32_t i = 0; i < 4; ++i) {
        EXPECT_EQ(sc[i].wqe_idx, i);
        EXPECT_EQ(sc[i].opcode, ops[i]);
        EXPECT_EQ(sc[i].status, i == 0 ? kWcRetryExc : kWcFlushErr);
    }
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsErr});
    EXPECT_EQ(p.a.sq_completed(kQa), 0u);
}

TEST_F(Conformance, B06_EveryAckLostRetryExcErrResponderExecutedOnce) {
    QpAttrs at;
    at.retry_cnt = 2;
    at.timeout = 8;
    start(at);
    p.hook = [](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket&) {
        return d == Dir::kBtoA ? Fate::kDrop : Fate::kPass;
    };
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    p.a.put_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 64, a_key)}));
    p.a.put_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 64, a_key)}, kDst + 4096, b_key));
    p.a.ring_sq(kQa);  // one post list: both on the wire before any answer
    ASSERT_TRUE(p.run());
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), 3u);
    EXPECT_EQ(sent_a(kPsnA).size(), 3u);
    EXPECT_EQ(rb(regs::rdma::kDupRequests), 4u);  // both requests, twice resent
    EXPECT_EQ(p.b.poll(1).size(), 1u);            // the SEND completed once at the responder
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 2u);
    EXPECT_EQ(sc[0].status, kWcRetryExc);
    EXPECT_EQ(sc[1].status, kWcFlushErr);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsErr});
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
}

// ------------------------------------------------------------------ 7 lost READ response

class ConformanceLostReadResponse : public Conformance,
                                    public ::testing::WithParamInterface<uint32_t> {};

TEST_P(ConformanceLostReadResponse, B07_LostReadResponseReIssuedFromFirstMissingPsn) {
    const uint32_t k = GetParam();  // which of the 4 responses is lost
    start();
    p.b.fill_va(kDst, 4096, 0x33);
    bool lost = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && pkt.info && !pkt.info->request &&
            pkt.transport.bth.psn == kPsnA + k && !lost) {
            lost = true;
            return Fate::kDrop;
        }
        return Fate::kPass;
    };
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc, 4096, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    const auto req = p.seen(Dir::kAtoB, Opcode::kReadRequest);
    ASSERT_EQ(req.size(), 2u);  // the request and exactly one re-request
    EXPECT_EQ(req[0].psn, kPsnA);
    EXPECT_EQ(req[0].reth->va, kDst);
    EXPECT_EQ(req[0].reth->dma_length, 4096u);
    EXPECT_EQ(req[1].psn, kPsnA + k);
    EXPECT_EQ(req[1].reth->va, kDst + k * 1024);
    EXPECT_EQ(req[1].reth->dma_length, 4096u - k * 1024);
    EXPECT_EQ(req[1].reth->rkey, b_key);
    // A lost last response leaves no gap to see: the ACK timeout finds it.
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), k == 3 ? 1u : 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.a.read_va(kSrc, 4096), p.b.read_va(kDst, 4096));
}

INSTANTIATE_TEST_SUITE_P(FirstMiddleLast, ConformanceLostReadResponse,
                         ::testing::Values(0u, 1u, 3u),
                         [](const auto& tpi) { return "response" + std::to_string(tpi.param); });

// ------------------------------------------------------------------ 8 ACK coalescing

// One post list of one-packet WRITEs: the last asks for an ACK (each earlier one is followed at
// once by the next), and so does every 16th (which also fills the initial window); each ACK
// completes every WRITE up to it, and no other ACK is sent.
struct WriteList {
    uint32_t writes;
    std::vector<uint32_t> asked;  // PSN offsets with AckReq
};

class ConformanceWriteList : public Conformance, public ::testing::WithParamInterface<WriteList> {};

TEST_P(ConformanceWriteList, B08_OneAckCompletesEverythingUpToItsPsn) {
    const WriteList& w = GetParam();
    start();
    std::vector<uint32_t> asked;
    std::vector<uint64_t> completed_at_ack;
    p.after = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kAtoB && pkt.transport.bth.ackreq)
            asked.push_back(pkt.transport.bth.psn - kPsnA);
        if (d == Dir::kBtoA) completed_at_ack.push_back(p.a.sq_completed(kQa));
    };
    for (uint32_t i = 0; i < w.writes; ++i) {
        p.a.put_send(kQa,
                     make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst + 8 * i, b_key));
    }
    p.a.ring_sq(kQa);  // one post list
    ASSERT_TRUE(p.run());
    EXPECT_EQ(asked, w.asked);
    std::vector<uint64_t> expect;
    for (uint32_t a : w.asked) expect.push_back(a + 1);
    EXPECT_EQ(completed_at_ack, expect);
    EXPECT_EQ(rb(regs::rdma::kAcksSent), w.asked.size());
    EXPECT_EQ(ra(regs::rdma::kRetransmits), 0u);
    EXPECT_TRUE(p.a.poll(0).empty());
}

INSTANTIATE_TEST_SUITE_P(Writes, ConformanceWriteList,
                         ::testing::Values(WriteList{5, {4}}, WriteList{20, {15, 19}}),
                         [](const auto& tpi) { return std::to_string(tpi.param.writes); });

TEST_F(Conformance, B08_ResponderAcksOnlyThePacketsThatAskForOne) {
    start();
    // A 20-packet WRITE: AckReq on the 16th (every 16th, and it fills the initial window) and on
    // the last; the responder sends exactly those two ACKs, each covering all before it.
    p.a.fill_va(kSrc, 20 * 1024, 0x44);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 20 * 1024, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    std::vector<uint32_t> asked;
    for (const Rec& r : p.log) {
        if (r.dir == Dir::kAtoB && r.ackreq) asked.push_back(r.psn);
    }
    EXPECT_EQ(asked, (std::vector<uint32_t>{kPsnA + 15, kPsnA + 19}));
    EXPECT_EQ(psns(acks(Dir::kBtoA, AethType::kAck)),
              (std::vector<uint32_t>{kPsnA + 15, kPsnA + 19}));
    EXPECT_EQ(rb(regs::rdma::kAcksSent), 2u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, 20 * 1024), p.a.read_va(kSrc, 20 * 1024));
}

TEST_F(Conformance, B08_ReadResponseAndAtomicAckImplicitlyAcknowledgeEarlierRequests) {
    start();
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    put64(p.b, kDst + 256, 7);
    p.hook = [](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        return d == Dir::kBtoA && pkt.transport.bth.opcode == op(Opcode::kAck) ? Fate::kDrop
                                                                               : Fate::kPass;
    };
    std::vector<std::pair<uint8_t, uint64_t>> at;
    p.after = [&](Dir d, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA) at.emplace_back(pkt.transport.bth.opcode, p.a.sq_completed(kQa));
    };
    p.a.post_sends(kQa,
                   {make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst + 128, b_key),
                    make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 8, a_key)}),
                    make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc + 64, 8, a_key)}, kDst + 128, b_key)});
    ASSERT_TRUE(p.run());
    auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kSrc + 72, 8, a_key)}, kDst + 256, b_key);
    faa.compare_add = 1;
    p.a.post_sends(kQa,
                   {make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst + 136, b_key), faa});
    ASSERT_TRUE(p.run());
    // WRITE + SEND + READ complete on the READ response, WRITE + FAA on the atomic ACK.
    EXPECT_EQ(at, (std::vector<std::pair<uint8_t, uint64_t>>{{op(Opcode::kReadResponseOnly), 3},
                                                             {op(Opcode::kAtomicAck), 5}}));
    EXPECT_EQ(ra(regs::rdma::kRetransmits), 0u);
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), 0u);
    EXPECT_EQ(get64(p.a, kSrc + 72), 7u);
    EXPECT_EQ(get64(p.b, kDst + 256), 8u);
}

// ------------------------------------------------------------------ 9 atomics

TEST_F(Conformance, B09_AtomicsReturnTheOriginalValueOnTheWire) {
    start();
    put64(p.b, kDst, 1000);
    auto hit = make_wqe(SCENIC_WQE_OP_ATOMIC_CAS, {sge(kSrc, 8, a_key)}, kDst, b_key);
    hit.compare_add = 1000;
    hit.swap = 2000;
    auto miss = make_wqe(SCENIC_WQE_OP_ATOMIC_CAS, {sge(kSrc + 8, 8, a_key)}, kDst, b_key);
    miss.compare_add = 1;
    miss.swap = 3;
    auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kSrc + 16, 8, a_key)}, kDst, b_key);
    faa.compare_add = 0xffff'ffff'ffff'fff0ull;  // wraps modulo 2^64
    p.a.post_send(kQa, hit);
    p.a.post_send(kQa, miss);
    p.a.post_send(kQa, faa);
    ASSERT_TRUE(p.run());
    const auto aa = p.seen(Dir::kBtoA, Opcode::kAtomicAck);
    ASSERT_EQ(aa.size(), 3u);
    EXPECT_EQ(aa[0].atomic_ack->orig, 1000u);
    EXPECT_EQ(aa[1].atomic_ack->orig, 2000u);
    EXPECT_EQ(aa[2].atomic_ack->orig, 2000u);
    EXPECT_EQ(psns(aa), (std::vector<uint32_t>{kPsnA, kPsnA + 1, kPsnA + 2}));
    EXPECT_EQ(get64(p.a, kSrc), 1000u);
    EXPECT_EQ(get64(p.a, kSrc + 8), 2000u);
    EXPECT_EQ(get64(p.a, kSrc + 16), 2000u);
    EXPECT_EQ(get64(p.b, kDst), 2000u - 16);
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);
}

TEST_F(Conformance, B09_MisalignedAtomicInvalidRequestNak) {
    start();
    put64(p.b, kDst, 0x1111);
    put64(p.b, kDst + 8, 0x2222);
    auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kSrc, 8, a_key)}, kDst + 4, b_key);
    faa.compare_add = 1;
    p.a.post_send(kQa, faa);
    ASSERT_TRUE(p.run());
    const auto inv = naks(Dir::kBtoA, NakCode::kInvalidRequest);
    ASSERT_EQ(inv.size(), 1u);
    EXPECT_EQ(inv[0].psn, kPsnA);
    EXPECT_EQ(all_naks(Dir::kBtoA), 1u);
    EXPECT_TRUE(p.seen(Dir::kBtoA, Opcode::kAtomicAck).empty());
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, kWcRemInvReq);
    EXPECT_EQ(sc[0].opcode, SCENIC_CQE_OP_ATOMIC_FAA);
    EXPECT_EQ(get64(p.b, kDst), 0x1111u);
    EXPECT_EQ(get64(p.b, kDst + 8), 0x2222u);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsErr});
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsErr});
    ASSERT_EQ(p.b.count_events(kEvQpErr), 1u);
    EXPECT_EQ(p.b.events.back().a0, kQpErrReqInvalid);
}

TEST(ConformanceAtomics, B09_ConcurrentFetchAddFromSeveralQpsGiveTheExactSum) {
    RdmaPair q;
    constexpr uint32_t kQps = 8;
    constexpr uint32_t kPerQp = 40;
    q.setup_many(kQps);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 64 * 1024, kAll);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    const uint64_t counter = Node::kVa + 0x100;
    const uint64_t zero = 0;
    q.b.write_va(counter, std::span(reinterpret_cast<const uint8_t*>(&zero), 8));
    auto add_of = [](uint32_t n, uint32_t i) { return uint64_t{n} * 1000 + i + 1; };
    uint64_t sum = 0;
    for (uint32_t i = 0; i < kPerQp; ++i) {
        for (uint32_t n = 0; n < kQps; ++n) {  // interleaved over the QPs
            auto w = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA,
                              {sge(Node::kVa + 4096 + (n * kPerQp + i) * 8, 8, ak)}, counter, bk);
            w.compare_add = add_of(n, i);
            sum += w.compare_add;
            q.a.post_send(2 + n, w);
        }
    }
    ASSERT_TRUE(q.run());
    uint64_t total = 0;
    std::memcpy(&total, q.b.read_va(counter, 8).data(), 8);
    EXPECT_EQ(total, sum);
    // The original values prove one serial order: sorted, each is the previous plus its add.
    std::vector<std::pair<uint64_t, uint64_t>> orig_add;
    for (uint32_t n = 0; n < kQps; ++n) {
        EXPECT_EQ(q.a.sq_completed(2 + n), kPerQp);
        for (uint32_t i = 0; i < kPerQp; ++i) {
            uint64_t v = 0;
            std::memcpy(&v, q.a.read_va(Node::kVa + 4096 + (n * kPerQp + i) * 8, 8).data(), 8);
            orig_add.emplace_back(v, add_of(n, i));
        }
    }
    std::ranges::sort(orig_add);
    uint64_t expect = 0;
    for (const auto& [orig, add] : orig_add) {
        EXPECT_EQ(orig, expect);
        expect = orig + add;
    }
    EXPECT_EQ(expect, sum);
    EXPECT_EQ(q.bad_frames, 0u);
}

// ------------------------------------------------------------------ 10 access errors

enum class AccessCase { kBadRkey, kOutOfBounds, kNoRemoteWrite };

class ConformanceAccess : public Conformance, public ::testing::WithParamInterface<AccessCase> {};

TEST_P(ConformanceAccess, B10_RemoteAccessErrorNakNothingWrittenBothErrEvent) {
    start();
    const uint64_t ro_va = Node::kVa + (2 << 20);
    const uint32_t ro = p.b.reg_mr(ro_va, 8192, rdma::kAccessRemoteRead);
    uint64_t va = kDst;
    uint32_t key = b_key;
    switch (GetParam()) {
        case AccessCase::kBadRkey:
            key = b_key ^ 0x01;  // wrong tag
            break;
        case AccessCase::kOutOfBounds:
            va = Node::kVa + (1 << 20) - 1024;  // 2048 bytes from 1 KiB before the MR's end
            break;
        case AccessCase::kNoRemoteWrite:
            va = ro_va;
            key = ro;
            break;
    }
    p.a.fill_va(kSrc, 2048, 1);
    p.b.fill_va(va, 2048, 0x77);
    const auto before = p.b.read_va(va, 2048);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 2048, a_key)}, va, key));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    const auto acc = naks(Dir::kBtoA, NakCode::kRemoteAccessError);
    ASSERT_EQ(acc.size(), 1u);
    EXPECT_EQ(acc[0].psn, kPsnA);
    EXPECT_EQ(all_naks(Dir::kBtoA), 1u);
    EXPECT_EQ(p.b.read_va(va, 2048), before);
    EXPECT_EQ(rb(regs::rdma::kRemAccessErr), 1u);
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 2u);
    EXPECT_EQ(sc[0].status, kWcRemAccess);
    EXPECT_EQ(sc[1].status, kWcFlushErr);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsErr});
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsErr});
    ASSERT_EQ(p.b.count_events(kEvQpErr), 1u);
    EXPECT_EQ(p.b.events.back().id, kQb);
    EXPECT_EQ(p.b.events.back().a0, kQpErrAccess);
}

INSTANTIATE_TEST_SUITE_P(Cases, ConformanceAccess,
                         ::testing::Values(AccessCase::kBadRkey, AccessCase::kOutOfBounds,
                                           AccessCase::kNoRemoteWrite),
                         [](const auto& tpi) {
                             switch (tpi.param) {
                                 case AccessCase::kBadRkey:
                                     return std::string("BadRkey");
                                 case AccessCase::kOutOfBounds:
                                     return std::string("OutOfBounds");
                                 default:
                                     return std::string("NoRemoteWrite");
                             }
                         });

TEST_F(Conformance, B10_ReadAndAtomicWithBadRkeyRemoteAccessError) {
    // READ: bad rkey; in a second pair, FAA on an MR without REMOTE_ATOMIC.
    start();
    p.a.fill_va(kSrc, 64, 0x10);
    const auto before = p.a.read_va(kSrc, 64);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc, 64, a_key)}, kDst, b_key + 0x100));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(psns(naks(Dir::kBtoA, NakCode::kRemoteAccessError)), (std::vector<uint32_t>{kPsnA}));
    EXPECT_TRUE(p.seen(Dir::kBtoA, Opcode::kReadResponseOnly).empty());
    EXPECT_EQ(p.a.read_va(kSrc, 64), before);
    auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, kWcRemAccess);
    EXPECT_EQ(sc[0].opcode, SCENIC_CQE_OP_READ);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsErr});
    ASSERT_EQ(p.b.count_events(kEvQpErr), 1u);
    EXPECT_EQ(p.b.events.back().a0, kQpErrAccess);

    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 4096, kAll);
    const uint32_t rw =
        q.b.reg_mr(Node::kVa, 4096, rdma::kAccessRemoteWrite | rdma::kAccessRemoteRead);
    put64(q.b, Node::kVa, 41);
    auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(Node::kVa, 8, ak)}, Node::kVa, rw);
    faa.compare_add = 1;
    q.a.post_send(kQa, faa);
    ASSERT_TRUE(q.run());
    EXPECT_EQ(get64(q.b, Node::kVa), 41u);
    sc = q.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, kWcRemAccess);
    EXPECT_EQ(sc[0].opcode, SCENIC_CQE_OP_ATOMIC_FAA);
    EXPECT_EQ(q.b.r(regs::rdma::kRemAccessErr), 1u);
    EXPECT_EQ(q.b.query(kQb).state, uint32_t{kQpsErr});
}

TEST_F(Conformance, B10_PermissionRevokedRtsToRtsWhileWritesStream) {
    start();
    constexpr uint32_t kN = 10;
    p.a.fill_va(kSrc, 256, 0x21);
    for (uint32_t i = 0; i < kN; ++i) p.b.fill_va(kDst + i * 4096, 256, 0x90);
    const auto old = p.b.read_va(kDst, 256);
    int delivered = 0;
    p.after = [&](Dir d, const roce::ParsedPacket&) {
        if (d == Dir::kAtoB && ++delivered == 4) {
            // RTS -> RTS with the QP's REMOTE_WRITE taken away, WRITEs 5.. still on the wire.
            EXPECT_EQ(
                p.b.modify(kQb, kAttrAccess,
                           {0, 0, 0, 0, 0, 0, rdma::kAccessRemoteRead | rdma::kAccessRemoteAtomic}),
                0u);
        }
    };
    for (uint32_t i = 0; i < kN; ++i) {
        p.a.post_send(
            kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 256, a_key)}, kDst + i * 4096, b_key));
    }
    ASSERT_TRUE(p.run());
    const auto acc = naks(Dir::kBtoA, NakCode::kRemoteAccessError);
    ASSERT_EQ(acc.size(), 1u);
    EXPECT_EQ(acc[0].psn, kPsnA + 4);  // the first WRITE after the revocation
    for (uint32_t i = 0; i < kN; ++i) {
        EXPECT_EQ(p.b.read_va(kDst + i * 4096, 256), i < 4 ? p.a.read_va(kSrc, 256) : old) << i;
    }
    EXPECT_EQ(p.a.sq_completed(kQa), 4u);
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), kN - 4);
    EXPECT_EQ(sc[0].status, kWcRemAccess);
    EXPECT_EQ(sc[0].wqe_idx, 4u);
    for (uint32_t i = 1; i < sc.size(); ++i) {
        EXPECT_EQ(sc[i].status, kWcFlushErr);
        EXPECT_EQ(sc[i].wqe_idx, 4 + i);
    }
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsErr});
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsErr});
    ASSERT_EQ(p.b.count_events(kEvQpErr), 1u);
    EXPECT_EQ(p.b.events.back().a0, kQpErrAccess);
}

// ------------------------------------------------------------------ 11 malformed requests

TEST_F(Conformance, B11_MiddleWithoutFirstInvalidRequest) {
    start();
    roce::Transport t = request(Opcode::kWriteMiddle, kPsnA);
    const std::vector<uint8_t> payload(1024, 0x5a);
    inject_b(t, payload);
    expect_invalid_request_from_b(kPsnA);
}

TEST_F(Conformance, B11_SendLastWithoutFirstInvalidRequest) {
    start();
    p.b.post_recv(kQb, {sge(kDst, 4096, b_key)});
    roce::Transport t = request(Opcode::kSendLast, kPsnA, true);
    const std::vector<uint8_t> payload(16, 0x5a);
    inject_b(t, payload);
    expect_invalid_request_from_b(kPsnA);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);  // the receive WQE is flushed, not consumed by the bad packet
    EXPECT_EQ(rc[0].status, kWcFlushErr);
}

TEST_F(Conformance, B11_SendMiddleInsideAWriteInvalidRequest) {
    start();
    roce::Transport first = request(Opcode::kWriteFirst, kPsnA);
    first.reth = roce::Reth{kDst, b_key, 3072};
    const std::vector<uint8_t> payload(1024, 0x5a);
    inject_b(first, payload);
    EXPECT_TRUE(b_replies().empty());  // accepted, no ACK asked for
    roce::Transport mid = request(Opcode::kSendMiddle, kPsnA + 1);
    inject_b(mid, payload);
    expect_invalid_request_from_b(kPsnA + 1);
}

TEST_F(Conformance, B11_WritePayloadBeyondRethLengthInvalidRequest) {
    start();
    p.b.fill_va(kDst, 256, 0x10);
    const auto before = p.b.read_va(kDst, 256);
    const std::vector<uint8_t> payload(200, 0x5a);
    inject_b(write_only(kPsnA, kDst, b_key, 100), payload);
    expect_invalid_request_from_b(kPsnA);
    EXPECT_EQ(p.b.read_va(kDst, 256), before);
}

TEST_F(Conformance, B11_WriteOnlyBeyondPmtuInvalidRequest) {
    start();  // PMTU 1024
    p.b.fill_va(kDst, 2048, 0x10);
    const auto before = p.b.read_va(kDst, 2048);
    const std::vector<uint8_t> payload(2048, 0x5a);
    inject_b(write_only(kPsnA, kDst, b_key, 2048), payload);
    expect_invalid_request_from_b(kPsnA);
    EXPECT_EQ(p.b.read_va(kDst, 2048), before);
}

TEST_F(Conformance, B11_SendBeyondPmtuInvalidRequest) {
    start();  // PMTU 1024
    p.b.post_recv(kQb, {sge(kDst, 4096, b_key)});
    roce::Transport t = request(Opcode::kSendOnly, kPsnA, true);
    const std::vector<uint8_t> payload(2048, 0x5a);
    inject_b(t, payload);
    expect_invalid_request_from_b(kPsnA);
}

TEST_F(Conformance, B11_SendFirstShorterThanPmtuInvalidRequest) {
    start();  // PMTU 1024: a FIRST carries exactly one PMTU
    p.b.post_recv(kQb, {sge(kDst, 4096, b_key)});
    roce::Transport t = request(Opcode::kSendFirst, kPsnA);
    const std::vector<uint8_t> payload(512, 0x5a);
    inject_b(t, payload);
    expect_invalid_request_from_b(kPsnA);
}

TEST_F(Conformance, B11_ReservedRcOpcodeInvalidRequest) {
    start();
    // An RC opcode IBA reserves (0x18): built as a SEND_ONLY, then the opcode rewritten.
    roce::Transport t = request(Opcode::kSendOnly, kPsnA);
    auto f = frame_to_b(t);
    f[42] = 0x18;
    set_frame_icrc(f);
    p.b.dev.eth_rx(f);
    expect_invalid_request_from_b(kPsnA);
}

TEST_F(Conformance, B11_UdOpcodeToRcQpDroppedSilently) {
    start();
    // UD SEND_ONLY (0x64) to an RC QP: a transport mismatch, dropped at dispatch (IBA 9.6.1.1,
    // rxe's check_type_state) and counted as a frame for no QP of its transport, never NAKed.
    roce::Transport t = request(Opcode::kSendOnly, kPsnA);
    const std::vector<uint8_t> deth(8, 0);
    auto f = frame_to_b(t, deth);
    f[42] = 0x64;
    set_frame_icrc(f);
    const uint32_t before = rb(regs::rdma::kRxDropQp);
    p.b.dev.eth_rx(f);
    EXPECT_TRUE(b_replies().empty());
    EXPECT_EQ(rb(regs::rdma::kRxDropQp), before + 1);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
}

// ------------------------------------------------------------------ 12 silent drops

TEST_F(Conformance, B12_BadIcrcDroppedCountedNoNak) {
    start();
    auto f = frame_to_b(write_only(kPsnA, kDst, b_key, 64), std::vector<uint8_t>(64, 0x42));
    f[f.size() - 10] ^= 0x01;  // a payload bit: the ICRC no longer matches
    p.b.fill_va(kDst, 64, 0x10);
    const auto before = p.b.read_va(kDst, 64);
    p.b.dev.eth_rx(f);
    EXPECT_TRUE(b_replies().empty());
    EXPECT_EQ(rb(regs::rdma::kRxDropIcrc), 1u);
    EXPECT_EQ(rb(regs::rdma::kRxPkts), 0u);
    EXPECT_EQ(p.b.read_va(kDst, 64), before);
    EXPECT_EQ(p.b.query(kQb).epsn, kPsnA);
}

TEST_F(Conformance, B12_UnknownDestinationQpDroppedCountedNoNak) {
    start();
    auto t = write_only(kPsnA, kDst, b_key, 64);
    t.bth.dest_qp = 77;
    inject_b(t, std::vector<uint8_t>(64, 0x42));
    EXPECT_TRUE(b_replies().empty());
    EXPECT_EQ(rb(regs::rdma::kRxDropQp), 1u);
    EXPECT_EQ(rb(regs::rdma::kRxPkts), 0u);
}

class ConformancePkey : public Conformance,
                        public ::testing::WithParamInterface<std::pair<uint16_t, bool>> {};

TEST_P(ConformancePkey, B12_PkeyMismatchDroppedCountedNoNak) {
    const auto [pkey, accepted] = GetParam();
    start();
    auto t = write_only(kPsnA, kDst, b_key, 64);
    t.bth.pkey = pkey;
    const std::vector<uint8_t> payload(64, 0x42);
    inject_b(t, payload);
    const auto r = b_replies();
    if (accepted) {
        ASSERT_EQ(r.size(), 1u);  // the ACK
        EXPECT_EQ(r[0].aeth->type(), AethType::kAck);
        EXPECT_EQ(r[0].bth.pkey, roce::kDefaultPkey);
        EXPECT_EQ(rb(regs::rdma::kRxDropPkey), 0u);
        EXPECT_EQ(p.b.read_va(kDst, 64), payload);
    } else {
        EXPECT_TRUE(r.empty());
        EXPECT_EQ(rb(regs::rdma::kRxDropPkey), 1u);
        EXPECT_EQ(rb(regs::rdma::kRxPkts), 0u);
        EXPECT_EQ(p.b.query(kQb).epsn, kPsnA);
    }
}

// QP P_Key 0xffff (full member of the default partition).
INSTANTIATE_TEST_SUITE_P(Keys, ConformancePkey,
                         ::testing::Values(std::make_pair(uint16_t{0xffff}, true),
                                           std::make_pair(uint16_t{0x7fff}, true),  // limited
                                           std::make_pair(uint16_t{0x1234}, false),
                                           std::make_pair(uint16_t{0x8001}, false),
                                           std::make_pair(uint16_t{0x8000}, false),  // invalid
                                           std::make_pair(uint16_t{0x0000}, false)),
                         [](const auto& tpi) {
                             char b[16];
                             std::snprintf(b, sizeof b, "pkey%04x", tpi.param.first);
                             return std::string(b);
                         });

TEST_F(Conformance, B12_ResponseWithForeignPkeyDroppedAtTheRequester) {
    start();
    // The ACK's P_Key rewritten (ICRC recomputed): the requester drops it, counts it, and
    // recovers through the ACK timeout; the second, untouched ACK completes the WRITE.
    bool rewritten = false;
    p.hook = [&](Dir d, std::vector<uint8_t>& f, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && pkt.transport.bth.opcode == op(Opcode::kAck) && !rewritten) {
            rewritten = true;
            f[44] = 0x12;  // BTH bytes 2-3: P_Key 0x1234
            f[45] = 0x34;
            set_frame_icrc(f);
        }
        return Fate::kPass;
    };
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(ra(regs::rdma::kRxDropPkey), 1u);
    EXPECT_EQ(ra(regs::rdma::kAckTimeouts), 1u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
}

TEST_P(ConformanceMtu, B12_IcrcAtEveryPayloadLengthUpToPmtu) {
    const uint32_t P = GetParam();
    QpAttrs at;
    at.pmtu = P;
    start(at);
    p.record = false;
    size_t writes = 0;
    size_t asked = 0;
    size_t acks = 0;
    size_t bad = 0;
    std::vector<uint32_t> pads(4, 0);
    p.hook = [&](Dir d, std::vector<uint8_t>& f, const roce::ParsedPacket& pkt) {
        (d == Dir::kAtoB ? writes : acks) += 1;
        asked += d == Dir::kAtoB && pkt.transport.bth.ackreq;
        bad += independent_icrc(f) != frame_icrc(f);
        if (pkt.transport.bth.opcode == op(Opcode::kWriteOnly)) {
            EXPECT_EQ(pkt.transport.bth.pad, (4 - pkt.payload.size() % 4) % 4);
            ++pads[pkt.transport.bth.pad];
        }
        return Fate::kPass;
    };
    p.a.fill_va(kSrc, P, 0x3c);
    for (uint32_t len = 0; len <= P;) {
        for (int n = 0; n < 128 && len <= P; ++n, ++len) {
            p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, len, a_key)}, kDst, b_key));
        }
        ASSERT_TRUE(p.run());
    }
    EXPECT_EQ(p.a.sq_completed(kQa), P + 1);
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(writes, size_t{P} + 1);  // every WRITE was checked, and every ACK
    EXPECT_EQ(acks, asked);
    EXPECT_EQ(pads, (std::vector<uint32_t>{P / 4 + 1, P / 4, P / 4, P / 4}));
    EXPECT_EQ(p.b.read_va(kDst, P), p.a.read_va(kSrc, P));
}

// ------------------------------------------------------------------ 13 QP states

// The provider counts send completions from 0 again after RESET: the card's count in the status
// page must say so, or a WQE posted after the reset reads as done before the card ran it.
TEST_F(Conformance, B13_ResetClearsTheSendCompletionCount) {
    start();
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 64, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQa), 1u);
    ASSERT_EQ(p.a.set_state(kQa, kQpsReset), 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 0u);
}

TEST_F(Conformance, B13_ResetAndInitDropTrafficCounted) {
    start();
    p.b.fill_va(kDst, 64, 0x10);
    const auto before = p.b.read_va(kDst, 64);
    const std::vector<uint8_t> payload(64, 0x42);
    ASSERT_EQ(p.b.set_state(kQb, kQpsReset), 0u);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsReset});
    inject_b(write_only(kPsnA, kDst, b_key, 64), payload);
    EXPECT_TRUE(b_replies().empty());
    EXPECT_EQ(rb(regs::rdma::kRxDropQp), 1u);
    ASSERT_EQ(p.b.set_state(kQb, kQpsInit), 0u);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsInit});
    inject_b(write_only(kPsnA, kDst, b_key, 64), payload);
    EXPECT_TRUE(b_replies().empty());
    EXPECT_EQ(rb(regs::rdma::kRxDropQp), 2u);
    EXPECT_EQ(rb(regs::rdma::kRxPkts), 0u);
    EXPECT_EQ(p.b.read_va(kDst, 64), before);
}

TEST_F(Conformance, B13_ErrDropsArrivingTrafficAndFlushesBothQueues) {
    start();
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    p.b.post_recv(kQb, {sge(kDst, 64, b_key)});
    p.b.post_send(kQb, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, b_key)}, kDst, a_key));
    p.b.host.wire.clear();  // the WRITE B just sent: not part of this test
    ASSERT_EQ(p.b.set_state(kQb, kQpsErr), 0u);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsErr});
    const std::vector<uint8_t> payload(64, 0x42);
    inject_b(write_only(kPsnA, kDst, b_key, 64), payload);
    EXPECT_TRUE(b_replies().empty());
    EXPECT_EQ(rb(regs::rdma::kRxDropQp), 1u);
    const auto sc = p.b.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, kWcFlushErr);
    EXPECT_EQ(sc[0].wqe_idx, 0u);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 2u);
    EXPECT_EQ(rc[0].status, kWcFlushErr);
    EXPECT_EQ(rc[1].status, kWcFlushErr);
    EXPECT_EQ(rc[1].wqe_idx, 1u);
}

TEST_F(Conformance, B13_RtrReceivesAndAcksSendsNothingUntilRts) {
    p.setup(kQa, kQb, QpAttrs{}, 10, true);  // B stays in RTR
    a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
    b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
    p.record = true;
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRtr});
    p.a.fill_va(kSrc, 100, 4);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 100, a_key)}, kDst, b_key));
    p.b.fill_va(kSrc, 8, 6);
    p.b.post_send(kQb, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, b_key)}, kDst, a_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    std::vector<Rec> from_b;
    for (const Rec& r : p.log) {
        if (r.dir == Dir::kBtoA) from_b.push_back(r);
    }
    ASSERT_EQ(from_b.size(), 1u);  // the ACK only
    EXPECT_EQ(from_b[0].opcode, op(Opcode::kAck));
    EXPECT_EQ(p.b.sq_completed(kQb), 0u);
    // RTS: the WRITE posted in RTR goes out.
    ASSERT_EQ(p.b.modify(kQb, kAttrState | kAttrSqPsn, {kQpsRts, 0, QpAttrs{}.rq_psn}), 0u);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.sq_completed(kQb), 1u);
    EXPECT_EQ(p.a.read_va(kDst, 8), p.b.read_va(kSrc, 8));
}

TEST_F(Conformance, B13_SqdFinishesInFlightStartsNothingNewThenRtsResumes) {
    start();
    // Three 8-packet WRITEs: the first two fill the initial window (16 PSNs) and are sent, the
    // third is fetched but not begun when the SQ is drained.
    p.a.fill_va(kSrc, 3 * 8192, 0x61);
    for (uint32_t i = 0; i < 3; ++i) {
        p.a.put_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + i * 8192, 8192, a_key)},
                                   kDst + i * 8192, b_key));
    }
    p.a.ring_sq(kQa);  // one post list
    ASSERT_EQ(p.a.set_state(kQa, kQpsSqd), 0u);
    auto drained = [&] {
        p.a.service_events();
        return std::ranges::count_if(
            p.a.events, [](const Node::Event& e) { return e.type == kEvSqDrained && e.id == kQa; });
    };
    EXPECT_EQ(drained(), 0);  // two messages in flight
    // (completed WQEs, SQ_DRAINED events) after every answer: the event with the last ACK.
    std::vector<std::pair<uint64_t, long>> at;
    p.after = [&](Dir d, const roce::ParsedPacket&) {
        if (d == Dir::kBtoA) at.emplace_back(p.a.sq_completed(kQa), drained());
    };
    ASSERT_TRUE(p.run());
    ASSERT_FALSE(at.empty());
    EXPECT_EQ(at.back(), (std::pair<uint64_t, long>{2, 1}));
    for (size_t i = 0; i + 1 < at.size(); ++i) {
        EXPECT_EQ(at[i].second, 0) << i;
    }
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsSqd});
    for (const Rec& r : p.log) {
        if (r.dir == Dir::kAtoB) {
            EXPECT_LT(r.psn, kPsnA + 16) << "the third WRITE started";
        }
    }
    ASSERT_EQ(p.a.set_state(kQa, kQpsRts), 0u);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);
    EXPECT_EQ(drained(), 1);
    EXPECT_EQ(p.b.read_va(kDst, 3 * 8192), p.a.read_va(kSrc, 3 * 8192));
}

TEST_F(Conformance, B13_SqdWithNothingInFlightIsDrainedAtOnce) {
    start();
    ASSERT_EQ(p.a.set_state(kQa, kQpsSqd), 0u);
    p.a.service_events();
    ASSERT_EQ(p.a.events.size(), 1u);
    EXPECT_EQ(p.a.events[0].type, kEvSqDrained);
    // A WR posted in SQD waits for RTS.
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_TRUE(p.log.empty());
    ASSERT_EQ(p.a.set_state(kQa, kQpsRts), 0u);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.a.events.size(), 1u);
}

}  // namespace
}  // namespace scenic::test
