// SPDX-License-Identifier: MIT
// Containment of the RoCE responder (issue 15, defects 5, 6 and 9, and the flaky scale
// scenario): its output queue is bounded for every kind of output, RNR NAKs are merged,
// max_dest_rd_atomic is enforced; only remembered READ / atomic requests are replayed, other
// duplicates are dropped, frames from another address are dropped; a READ answer keeps the PMTU
// it started with and PATH_MTU cannot change under traffic; a duplicate SEND / WRITE is
// acknowledged whether or not it asks, at a bounded rate. Frames are built by the test and
// handed to card B as if card A (or a third party) had sent them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "rdma_rig.hpp"
#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::test {
namespace {

using Dir = RdmaPair::Dir;
using Fate = RdmaPair::Fate;
using roce::AethType;
using roce::NakCode;
using roce::Opcode;

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint32_t kPsnA = 0x100;  // A's first send PSN = B's first expected PSN
constexpr uint64_t kSrc = Node::kVa;
constexpr uint64_t kDst = Node::kVa + 0x80000;
constexpr uint32_t kBigRead = 256 * 1024;  // 256 responses: more than one responder run (64)

uint8_t op(Opcode o) { return static_cast<uint8_t>(o); }

class ContainmentResp : public ::testing::Test {
  protected:
    void start(const QpAttrs& at = {}) {
        p.setup(kQa, kQb, at);
        a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
    }
    rdma::Engine& eng_b() { return p.b.dev.rdma().engine(); }
    rdma::Qp& qp_b() { return *eng_b().qp(kQb); }
    const rdma::Counters& cnt_b() { return eng_b().counters(); }

    static roce::Transport request(Opcode o, uint32_t psn, bool ackreq = false) {
        roce::Transport t;
        t.bth.opcode = op(o);
        t.bth.psn = psn;
        t.bth.ackreq = ackreq;
        t.bth.dest_qp = kQb;
        return t;
    }
    static roce::Transport read_req(uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len) {
        roce::Transport t = request(Opcode::kReadRequest, psn);
        t.reth = roce::Reth{va, rkey, len};
        return t;
    }
    static roce::Transport fetch_add(uint32_t psn, uint64_t va, uint32_t rkey, uint64_t add) {
        roce::Transport t = request(Opcode::kFetchAdd, psn);
        t.atomic_eth = roce::AtomicEth{va, rkey, add, 0};
        return t;
    }
    // To B from A's address (or from `from`, a third party on the wire).
    void inject_b(const roce::Transport& t, std::span<const uint8_t> payload = {},
                  const roce::PathContext* from = nullptr) {
        const roce::PathContext pc = from ? *from : p.a.path_to(p.b);
        const auto built = roce::build_frame(pc, t, payload);
        ASSERT_TRUE(built.ok());
        p.b.dev.eth_rx(built.frame);
    }
    // Runs B's own timers (its queued output) until it has nothing left to do, without
    // delivering anything to A; returns what B sent, parsed.
    std::vector<roce::ParsedPacket> drain_b() {
        for (int i = 0; i < 100000 && p.b.host.timer && p.b.host.wire.size() < 20000; ++i) {
            p.b.host.now = std::max(p.b.host.now, *p.b.host.timer);
            p.b.host.timer.reset();
            p.b.dev.timer_fire();
        }
        std::vector<roce::ParsedPacket> out;
        frames_.insert(frames_.end(), p.b.host.wire.begin(), p.b.host.wire.end());
        p.b.host.wire.clear();
        for (size_t i = parsed_; i < frames_.size(); ++i) {
            const auto pr = roce::parse_frame(frames_[i]);
            EXPECT_TRUE(pr.ok());
            out.push_back(pr.packet);
        }
        parsed_ = frames_.size();
        return out;
    }
    static size_t count(const std::vector<roce::ParsedPacket>& v, Opcode o,
                        std::optional<AethType> type = std::nullopt) {
        return static_cast<size_t>(std::ranges::count_if(v, [&](const roce::ParsedPacket& k) {
            return k.transport.bth.opcode == op(o) &&
                   (!type || (k.transport.aeth && k.transport.aeth->type() == *type));
        }));
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

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;

  private:
    std::vector<std::vector<uint8_t>> frames_;  // kept: parsed packets point into them
    size_t parsed_ = 0;
};

// ------------------------------------------------------------------ defect 5: bounded output

TEST_F(ContainmentResp, RnrNaksBehindAReadAreMergedIntoOne) {
    start();
    // A READ answer blocks the queue (one run sends 64 of its 256 responses); then 1000 SENDs
    // arrive for an RQ with no WQE, each an RNR NAK at the same PSN.
    inject_b(read_req(kPsnA, kDst, b_key, kBigRead));
    const uint32_t next = kPsnA + kBigRead / 1024;
    for (int i = 0; i < 1000; ++i) {
        inject_b(request(Opcode::kSendOnly, next, true), std::vector<uint8_t>(8, 1));
        ASSERT_LE(qp_b().resp.outq.size(), 2u) << i;
    }
    const auto out = drain_b();
    EXPECT_EQ(count(out, Opcode::kAck, AethType::kRnrNak), 1u);
    EXPECT_EQ(cnt_b().rnr_nak_sent, 1u);
    EXPECT_EQ(cnt_b().rnr_nak_merged, 999u);
    EXPECT_EQ(count(out, Opcode::kReadResponseFirst) + count(out, Opcode::kReadResponseMiddle) +
                  count(out, Opcode::kReadResponseLast),
              kBigRead / 1024);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
}

TEST_F(ContainmentResp, FloodOfDuplicateAtomicsBehindAStalledReadStaysBounded) {
    start();
    // The READ's memory is not in the TLB and nobody fills it: its answer stalls at the head of
    // the queue, and everything behind it waits.
    p.b.auto_fill = false;
    constexpr uint64_t kCold = Node::kVa + 0x200000;
    const uint32_t cold_key = p.b.reg_mr(kCold, kBigRead, kAll, false);
    put64(p.b, kDst, 100);
    inject_b(fetch_add(kPsnA, kDst, b_key, 5));
    inject_b(read_req(kPsnA + 1, kCold, cold_key, kBigRead));
    size_t most = 0;
    for (int i = 0; i < 10000; ++i) {
        inject_b(fetch_add(kPsnA, kDst, b_key, 5));
        most = std::max(most, qp_b().resp.outq.size());
    }
    EXPECT_LE(most, 2u);  // the READ and one answer of the atomic: each replay replaces the last
    for (uint64_t pg = kCold; pg < kCold + kBigRead; pg += 4096) {
        p.b.fill_page(cold_key, pg);
    }
    const auto out = drain_b();
    EXPECT_EQ(count(out, Opcode::kReadResponseFirst) + count(out, Opcode::kReadResponseMiddle) +
                  count(out, Opcode::kReadResponseLast),
              kBigRead / 1024);
    std::vector<uint64_t> origs;
    for (const auto& k : out) {
        if (k.transport.bth.opcode == op(Opcode::kAtomicAck)) {
            EXPECT_EQ(k.transport.bth.psn, kPsnA);
            origs.push_back(k.transport.atomic_ack->orig);
        }
    }
    EXPECT_EQ(origs, (std::vector<uint64_t>{100, 100}));  // the original, then one replay
    EXPECT_EQ(get64(p.b, kDst), 105u);                    // executed once
    EXPECT_EQ(cnt_b().dup_requests, 10000u);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
}

TEST_F(ContainmentResp, FloodOfDuplicateWritesGetsATrickleOfAcks) {
    start();
    const std::vector<uint8_t> data(8, 0x5a);
    roce::Transport w = request(Opcode::kWriteOnly, kPsnA, true);
    w.reth = roce::Reth{kDst, b_key, 8};
    inject_b(w, data);
    ASSERT_EQ(count(drain_b(), Opcode::kAck, AethType::kAck), 1u);
    constexpr uint32_t kDups = 1000;
    for (uint32_t i = 0; i < kDups; ++i) {
        inject_b(w, data);  // all at one instant, each asking for an ACK
    }
    const auto out = drain_b();
    // The first duplicate after progress, then one per kReAckEvery.
    EXPECT_EQ(count(out, Opcode::kAck, AethType::kAck), 1 + kDups / rdma::kReAckEvery);
    for (const auto& k : out) {
        EXPECT_EQ(k.transport.bth.psn, kPsnA);  // the current PSN (expected - 1)
    }
    EXPECT_EQ(cnt_b().dup_requests, kDups);
}

TEST_F(ContainmentResp, MaxDestRdAtomicExceededIsInvalidRequestNak) {
    QpAttrs at;
    at.max_rd_atomic = 2;  // and max_dest_rd_atomic on both sides (rdma_rig.hpp)
    start(at);
    inject_b(read_req(kPsnA, kDst, b_key, kBigRead));
    inject_b(read_req(kPsnA + 256, kDst, b_key, 1024));
    // The status page, not QUERY_QP: an admin command runs the card's timer, which would send
    // the READ responses and free their resources before the third request.
    ASSERT_EQ(p.b.status_state(kQb), uint32_t{kQpsRts});
    p.b.host.wire.clear();
    inject_b(read_req(kPsnA + 257, kDst, b_key, 1024));  // the third one outstanding
    const auto out = drain_b();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].transport.bth.opcode, op(Opcode::kAck));
    EXPECT_EQ(out[0].transport.bth.psn, kPsnA + 257);
    ASSERT_TRUE(out[0].transport.aeth);
    EXPECT_EQ(out[0].transport.aeth->type(), AethType::kNak);
    EXPECT_EQ(out[0].transport.aeth->value(), static_cast<uint8_t>(NakCode::kInvalidRequest));
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsErr});
    p.b.service_events();
    ASSERT_EQ(p.b.count_events(kEvQpErr), 1u);
    EXPECT_EQ(p.b.events.back().a0, rdma::kQpErrReqInvalid);
}

TEST_F(ContainmentResp, CompliantRequesterAtMaxDestRdAtomicIsNeverRefused) {
    for (const uint32_t limit : {1u, 2u}) {
        SCOPED_TRACE(limit);
        RdmaPair q;
        QpAttrs at;
        at.max_rd_atomic = limit;
        q.setup(kQa, kQb, at);
        const uint32_t ak = q.a.reg_mr(Node::kVa, 1 << 20, kAll);
        const uint32_t bk = q.b.reg_mr(Node::kVa, 1 << 20, kAll);
        q.b.fill_va(kDst, 8 * 65536, 0x21);
        for (uint32_t i = 0; i < 8; ++i) {
            q.a.put_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc + i * 65536, 65536, ak)},
                                       kDst + i * 65536, bk));
        }
        q.a.ring_sq(kQa);
        ASSERT_TRUE(q.run());
        EXPECT_EQ(q.a.sq_completed(kQa), 8u);
        EXPECT_EQ(q.a.read_va(kSrc, 8 * 65536), q.b.read_va(kDst, 8 * 65536));
        EXPECT_EQ(q.b.r(regs::rdma::kRemInvReq), 0u);
        EXPECT_EQ(q.b.query(kQb).state, uint32_t{kQpsRts});
    }
}

// ------------------------------------------------------------------ defect 6: spoofing

TEST_F(ContainmentResp, SpoofedDuplicateReadWithBadRkeyLeavesQpInRts) {
    start();
    // Anywhere in the duplicate half of the PSN space, nothing executed there: dropped.
    for (const uint32_t back : {1u, 1000u, 0x7fffffu}) {
        inject_b(read_req(roce::psn_add(kPsnA, rdma::kPsnMask + 1 - back), kDst, 0xdead00, 64));
    }
    EXPECT_TRUE(drain_b().empty());
    EXPECT_EQ(cnt_b().dup_ignored, 3u);
    EXPECT_EQ(cnt_b().rem_access_err, 0u);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
    // The connection still works.
    p.a.fill_va(kSrc, 4096, 3);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 4096, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, 4096), p.a.read_va(kSrc, 4096));
}

TEST_F(ContainmentResp, DuplicateReadIsReplayedFromTheRememberedRequestOnly) {
    start();
    p.b.fill_va(kDst, 4096, 0x40);
    inject_b(read_req(kPsnA, kDst, b_key, 4096));  // PSNs kPsnA .. +3
    ASSERT_EQ(drain_b().size(), 4u);
    // Asked again from its third PSN, with a forged rkey and va: answered from the original's.
    inject_b(read_req(kPsnA + 2, kDst + 0x40000, 0xdead00, 4096));
    const auto out = drain_b();
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].transport.bth.opcode, op(Opcode::kReadResponseFirst));
    EXPECT_EQ(out[0].transport.bth.psn, kPsnA + 2);
    EXPECT_EQ(out[1].transport.bth.opcode, op(Opcode::kReadResponseLast));
    EXPECT_EQ(out[1].transport.bth.psn, kPsnA + 3);
    const auto want = p.b.read_va(kDst + 2048, 2048);
    EXPECT_TRUE(std::equal(out[0].payload.begin(), out[0].payload.end(), want.begin()));
    EXPECT_TRUE(std::equal(out[1].payload.begin(), out[1].payload.end(), want.begin() + 1024));
    EXPECT_EQ(cnt_b().rem_access_err, 0u);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
    EXPECT_EQ(p.b.query(kQb).epsn, kPsnA + 4);
}

TEST_F(ContainmentResp, DuplicateAtomicNeverExecutedIsDropped) {
    start();
    put64(p.b, kDst, 7);
    inject_b(fetch_add(roce::psn_add(kPsnA, rdma::kPsnMask), kDst, b_key, 1));  // PSN - 1
    EXPECT_TRUE(drain_b().empty());
    EXPECT_EQ(cnt_b().dup_ignored, 1u);
    EXPECT_EQ(get64(p.b, kDst), 7u);
}

TEST_F(ContainmentResp, FrameFromAnotherSourceIpIsDroppedAndCounted) {
    start();
    roce::PathContext spoof = p.a.path_to(p.b);
    spoof.src_ip = {10, 0, 0, 99};
    const std::vector<uint8_t> data(8, 0x77);
    roce::Transport w = request(Opcode::kWriteOnly, kPsnA, true);
    w.reth = roce::Reth{kDst, b_key, 8};
    inject_b(w, data, &spoof);
    // The same with a bad rkey at the expected PSN would be a Remote Access NAK into ERR.
    roce::Transport bad = w;
    bad.reth->rkey = 0xdead00;
    inject_b(bad, data, &spoof);
    // Another destination address (ours is 10.0.0.2).
    roce::PathContext other_dst = p.a.path_to(p.b);
    other_dst.dst_ip = {10, 0, 0, 77};
    inject_b(bad, data, &other_dst);
    EXPECT_TRUE(drain_b().empty());
    EXPECT_EQ(cnt_b().rx_drop_path, 3u);
    EXPECT_NE(p.b.read_va(kDst, 8), data);
    EXPECT_EQ(p.b.query(kQb).epsn, kPsnA);
    EXPECT_EQ(p.b.query(kQb).state, uint32_t{kQpsRts});
    inject_b(w, data);  // from A
    EXPECT_EQ(count(drain_b(), Opcode::kAck, AethType::kAck), 1u);
    EXPECT_EQ(p.b.read_va(kDst, 8), data);
}

TEST_F(ContainmentResp, ForgedNakFromAnotherSourceIpDoesNotFailTheRequester) {
    start();
    bool forged = false;
    p.hook = [&](Dir d, std::vector<uint8_t>&, const roce::ParsedPacket& pkt) {
        if (d == Dir::kBtoA && !forged) {
            forged = true;
            // A Remote Access NAK for the WRITE in flight, from a third party.
            roce::PathContext spoof = p.b.path_to(p.a);
            spoof.src_ip = {10, 0, 0, 66};
            roce::Transport t;
            t.bth.opcode = op(Opcode::kAck);
            t.bth.psn = pkt.transport.bth.psn;
            t.bth.dest_qp = kQa;
            t.aeth = roce::Aeth::nak(0, NakCode::kRemoteAccessError);
            p.a.dev.eth_rx(roce::build_frame(spoof, t, {}).frame);
        }
        return Fate::kPass;
    };
    p.a.fill_va(kSrc, 2048, 9);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 2048, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_TRUE(forged);
    EXPECT_EQ(p.a.dev.rdma().engine().counters().rx_drop_path, 1u);
    EXPECT_TRUE(p.a.poll(0).empty());  // no error CQE
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsRts});
}

TEST_F(ContainmentResp, Ipv6PathChecksBothGids) {
    start();
    // B's QP re-pointed at A over IPv6 (the AV may change in RTS).
    const std::array<uint8_t, 16> gid_a{0xfe, 0x80, 0, 0,    0,    0, 0, 0,
                                        0,    0x5c, 0, 0xff, 0xfe, 0, 0, 1};
    std::array<uint8_t, 16> gid_b = gid_a;
    gid_b[15] = 2;
    std::vector<uint32_t> v(18, 0);  // a2 .. a19
    std::memcpy(&v[7], gid_a.data(), 16);
    std::memcpy(&v[11], gid_b.data(), 16);
    const auto& m = p.a.mac;
    v[15] = uint32_t{m[2]} << 24 | uint32_t{m[3]} << 16 | uint32_t{m[4]} << 8 | m[5];
    v[16] = uint32_t{m[0]} << 8 | m[1] | 64u << 16;
    v[17] = 0;  // IPv6
    ASSERT_EQ(p.b.modify(kQb, kAttrAv, v), 0u);
    roce::PathContext from_a = p.a.path_to(p.b);
    from_a.ip_version = roce::IpVersion::kV6;
    from_a.src_ip = gid_a;
    from_a.dst_ip = gid_b;
    const std::vector<uint8_t> data(8, 0x31);
    roce::Transport w = request(Opcode::kWriteOnly, kPsnA, true);
    w.reth = roce::Reth{kDst, b_key, 8};
    roce::PathContext wrong_src = from_a;
    wrong_src.src_ip[15] = 9;
    roce::PathContext wrong_dst = from_a;
    wrong_dst.dst_ip[15] = 9;
    inject_b(w, data, &wrong_src);
    inject_b(w, data, &wrong_dst);
    inject_b(w, data, nullptr);  // IPv4 from A's address: not the AV's IP version
    EXPECT_TRUE(drain_b().empty());
    EXPECT_EQ(cnt_b().rx_drop_path, 3u);
    inject_b(w, data, &from_a);
    EXPECT_EQ(count(drain_b(), Opcode::kAck, AethType::kAck), 1u);
    EXPECT_EQ(p.b.read_va(kDst, 8), data);
}

// ------------------------------------------------------------------ defect 9: PMTU

TEST_F(ContainmentResp, PathMtuChangeRefusedOnceTheQpLeftInit) {
    start();
    for (const uint32_t state : {kQpsRts, kQpsSqd}) {
        if (state == kQpsSqd) {
            ASSERT_EQ(p.b.set_state(kQb, kQpsSqd), 0u);
        }
        EXPECT_EQ(p.b.modify(kQb, kAttrPathMtu, {0, 0, 0, 0, 4096}), uint32_t{kStBadState});
        EXPECT_EQ(p.b.modify(kQb, kAttrState | kAttrPathMtu, {kQpsRts, 0, 0, 0, 256}),
                  uint32_t{kStBadState});
        EXPECT_EQ(qp_b().pmtu, 1024u);
        EXPECT_EQ(p.b.query(kQb).state, state);
    }
    // RESET -> INIT -> RTR may set it (as connect() does).
    ASSERT_EQ(p.b.set_state(kQb, kQpsReset), 0u);
    ASSERT_EQ(p.b.set_state(kQb, kQpsInit), 0u);
    EXPECT_EQ(p.b.modify(kQb, kAttrPathMtu, {0, 0, 0, 0, 4096}), 0u);
    EXPECT_EQ(qp_b().pmtu, 4096u);
}

TEST_F(ContainmentResp, ReadAnswerKeepsThePmtuItStartedWith) {
    for (const uint32_t later : {256u, 2048u, 4096u}) {
        SCOPED_TRACE(later);
        RdmaPair q;
        q.setup(kQa, kQb);
        const uint32_t bk = q.b.reg_mr(Node::kVa, 1 << 20, kAll);
        // Not a multiple of any PMTU: the last response is short.
        constexpr uint32_t kLen = 200 * 1024 + 300;
        q.b.fill_va(kDst, kLen, 0x17);
        roce::Transport t = read_req(kPsnA, kDst, bk, kLen);
        q.b.dev.eth_rx(roce::build_frame(q.a.path_to(q.b), t, {}).frame);
        ASSERT_EQ(q.b.host.wire.size(), 64u);  // the first run of responses
        // The PMTU changes under the answer, as a modify the card did not refuse would.
        q.b.dev.rdma().engine().qp(kQb)->pmtu = later;
        for (int i = 0; i < 1000 && q.b.host.timer && q.b.host.wire.size() < 1000; ++i) {
            q.b.host.now = *q.b.host.timer;
            q.b.host.timer.reset();
            q.b.dev.timer_fire();
        }
        ASSERT_EQ(q.b.host.wire.size(), 201u);
        std::vector<uint8_t> data;
        for (size_t i = 0; i < q.b.host.wire.size(); ++i) {
            const auto pr = roce::parse_frame(q.b.host.wire[i]);
            ASSERT_TRUE(pr.ok());
            const auto& bth = pr.packet.transport.bth;
            EXPECT_EQ(bth.psn, kPsnA + i);
            const Opcode o = i == 0     ? Opcode::kReadResponseFirst
                             : i == 200 ? Opcode::kReadResponseLast
                                        : Opcode::kReadResponseMiddle;
            EXPECT_EQ(bth.opcode, op(o)) << i;
            EXPECT_EQ(pr.packet.payload.size(), i == 200 ? 300u : 1024u) << i;
            data.insert(data.end(), pr.packet.payload.begin(), pr.packet.payload.end());
        }
        EXPECT_EQ(data, q.b.read_va(kDst, kLen));
        EXPECT_FALSE(q.b.host.timer);  // nothing left to send
    }
}

TEST_F(ContainmentResp, ZeroLengthReadIsOneEmptyResponse) {
    start();
    inject_b(read_req(kPsnA, kDst, b_key, 0));
    const auto out = drain_b();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].transport.bth.opcode, op(Opcode::kReadResponseOnly));
    EXPECT_TRUE(out[0].payload.empty());
    EXPECT_EQ(p.b.query(kQb).epsn, kPsnA + 1);
}

// ------------------------------------------------------------------ the scale scenario

// conform_rev's "scale" (an rxe requester): the ACK of one of two 64-packet WRITEs is lost,
// then the re-ACK of its duplicate; rxe's requester then resends without AckReq (after a partial
// ACK it waits for its timer and resends), which only an ACK of a duplicate without AckReq ends.
// A's resends here have their AckReq bit cleared (ICRC recomputed), as rxe's.
TEST(ContainmentRespReAck, DuplicatesWithoutAckReqAreAckedAfterALostReAck) {
    // B's first ACK (PSN 0x10f: AckReq on the 16th packet, which fills A's first window) is
    // lost, and so is the next one, the re-ACK of the first duplicate after A's ACK timeout
    // (the first rule's drop never reaches the second rule).
    RdmaPair p(0, 1, 0, "", "tx:drop:opcode=0x11:nth=1;tx:drop:opcode=0x11:nth=1");
    QpAttrs at;
    at.timeout = 10;
    at.retry_cnt = 7;
    p.setup(kQa, kQb, at);
    const uint32_t ak = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
    p.a.fill_va(kSrc, 2 * 65536, 0x61);
    const uint32_t a_max = kPsnA + 128;
    uint32_t seen_max = kPsnA;  // highest PSN + 1 sent so far
    size_t stripped = 0;
    p.hook = [&](Dir d, std::vector<uint8_t>& f, const roce::ParsedPacket& pkt) {
        if (d != Dir::kAtoB) {
            return Fate::kPass;
        }
        const uint32_t psn = pkt.transport.bth.psn;
        if (roce::psn_diff(psn, seen_max) >= 0) {
            seen_max = roce::psn_add(psn, 1);
            return Fate::kPass;
        }
        // A resend: no AckReq, ICRC recomputed.
        constexpr size_t kBth = 14 + 20 + 8;
        f[kBth + 8] &= 0x7f;
        const size_t ip_len = size_t{f[16]} << 8 | f[17];
        const uint32_t c = roce::icrc(std::span(f).subspan(14, ip_len));
        for (size_t i = 0; i < 4; ++i) {
            f[14 + ip_len - 4 + i] = static_cast<uint8_t>(c >> (8 * i));
        }
        ++stripped;
        return Fate::kPass;
    };
    p.a.put_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 65536, ak)}, kDst, bk));
    p.a.put_send(kQa,
                 make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + 65536, 65536, ak)}, kDst + 65536, bk));
    p.a.ring_sq(kQa);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(seen_max, a_max);
    EXPECT_GT(stripped, 0u);
    EXPECT_EQ(p.b.dev.wire_fault_log().size(), 2u);  // both ACK drops fired
    EXPECT_TRUE(p.a.poll(0).empty()) << "a WQE failed (retry exceeded?)";
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsRts});
    EXPECT_EQ(p.b.read_va(kDst, 2 * 65536), p.a.read_va(kSrc, 2 * 65536));
    EXPECT_EQ(p.b.poll(1).size(), 0u);
}

}  // namespace
}  // namespace scenic::test
