// SPDX-License-Identifier: MIT
// RDMA engine, congestion control (DCQCN, docs/rdma-engine.md "Congestion control"): the
// notification point's CNPs for CE-marked requests (format, one per QP per 50 us of virtual
// time), the reaction point's rate cut by hw-rtl's DCQCN rules, the pacer's send rate under
// continuous marking, the recovery to line rate by the rate-increase timer, and CNPs that must
// be dropped. The rig's RewriteFn CE-marks frames as a congested switch would.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "rdma_rig.hpp"
#include "scenic/dp/dcqcn.hpp"
#include "scenic/rdma_context.hpp"

namespace scenic::test {
namespace {

using Dir = RdmaPair::Dir;
using roce::Opcode;
using scenic::dp::Dcqcn;
namespace cc = scenic::rdma;

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint64_t kSrc = Node::kVa;
constexpr uint64_t kDst = Node::kVa;
constexpr uint64_t kMrBytes = 4 << 20;

struct CcView {
    uint32_t rate = 0, target = 0, alpha = 0, cnps = 0;
};

struct Stamp {
    uint64_t ns = 0;
    size_t bytes = 0;
};

bool is_cnp(const roce::ParsedPacket& pkt) {
    return pkt.transport.bth.opcode == static_cast<uint8_t>(Opcode::kCnp);
}

class RdmaCongestion : public ::testing::Test {
  protected:
    // timeout 0 (no local ACK timer) unless a test needs it: the rig's clock then only moves
    // for the DCQCN timers and the pacer, so virtual times are exact.
    void setup(uint32_t timeout = 0) {
        QpAttrs at;
        at.timeout = timeout;
        p.setup(kQa, kQb, at);
        a_key = p.a.reg_mr(Node::kVa, kMrBytes, kAll);
        b_key = p.b.reg_mr(Node::kVa, kMrBytes, kAll);
    }
    void TearDown() override { EXPECT_EQ(p.bad_frames, 0u); }

    CcView query_cc(Node& n, uint32_t qpn) {
        EXPECT_EQ(n.cmd(kOpQueryQpCc, {qpn}), 0u);
        return {n.res(0), n.res(1), n.res(2), n.res(3)};
    }
    void write(uint32_t bytes) {
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, bytes, a_key)}, kDst, b_key));
    }
    // Marks the next `n` A->B requests CE and records the CNPs B sends (time, frame).
    void mark_requests(size_t n) {
        to_mark = n;
        p.rewrite = [this](Dir d, const roce::ParsedPacket& pkt, std::vector<uint8_t>& f) {
            const uint64_t now = p.a.host.now;
            if (d == Dir::kAtoB && pkt.info && pkt.info->request) {
                data.push_back({now, f.size()});
                if (to_mark != 0) {
                    --to_mark;
                    marked.push_back(now);
                    RdmaPair::ce_mark(f);
                }
            } else if (d == Dir::kBtoA && is_cnp(pkt)) {
                cnps.push_back(now);
                cnp_frames.push_back(pkt.transport);
            }
        };
    }
    bool data_intact(size_t bytes, uint64_t off = 0) {
        return p.a.read_va(kSrc + off, bytes) == p.b.read_va(kDst + off, bytes);
    }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
    size_t to_mark = 0;
    std::vector<uint64_t> marked;  // arrival times of CE-marked requests at B
    std::vector<uint64_t> cnps;    // arrival times of CNPs at A
    std::vector<roce::Transport> cnp_frames;
    std::vector<Stamp> data;  // every A->B request
};

// NP alone (A never sees the CNPs): a burst of 64 CE-marked packets at one instant gets one
// CNP; a marked packet 49.999 us after it none; one at 50 us the second.
TEST_F(RdmaCongestion, CeMarkedRequestsGetOneCnpPerQpPerInterval) {
    setup();
    mark_requests(SIZE_MAX);
    p.drop = [this](Dir d, const roce::ParsedPacket& pkt) {
        if (d != Dir::kBtoA || !is_cnp(pkt)) return false;
        cnps.push_back(p.b.host.now);
        cnp_frames.push_back(pkt.transport);
        return true;
    };
    p.a.fill_va(kSrc, 64 * 1024, 3);
    write(64 * 1024);
    ASSERT_TRUE(p.run());
    ASSERT_EQ(data.size(), 64u);
    EXPECT_EQ(p.b.r(regs::rdma::kEcnCeRcvd), 64u);
    EXPECT_EQ(p.b.r(regs::rdma::kCnpSent), 1u);
    ASSERT_EQ(cnp_frames.size(), 1u);
    const roce::Bth& bth = cnp_frames[0].bth;
    EXPECT_EQ(bth.opcode, 0x81);
    EXPECT_EQ(bth.dest_qp, kQa);
    EXPECT_TRUE(bth.becn);
    EXPECT_FALSE(bth.fecn);
    EXPECT_EQ(bth.psn, 0u);
    EXPECT_EQ(bth.pkey, 0xffff);
    EXPECT_EQ(cnps[0], marked[0]);
    EXPECT_TRUE(data_intact(64 * 1024));  // the marked packets were processed normally
    EXPECT_EQ(p.a.r(regs::rdma::kCnpRcvd), 0u);
    EXPECT_EQ(query_cc(p.a, kQa).rate, cc::kLineRateKbps);  // no CNP reached A: not cut

    const uint64_t t0 = cnps[0];
    ASSERT_EQ(p.a.host.now, t0);  // no timer ran: the clock did not move
    for (Node* n : {&p.a, &p.b}) n->host.now = t0 + cc::kCnpIntervalNs - 1;
    write(1024);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.r(regs::rdma::kEcnCeRcvd), 65u);
    EXPECT_EQ(p.b.r(regs::rdma::kCnpSent), 1u);
    for (Node* n : {&p.a, &p.b}) n->host.now = t0 + cc::kCnpIntervalNs;
    write(1024);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.r(regs::rdma::kEcnCeRcvd), 66u);
    EXPECT_EQ(p.b.r(regs::rdma::kCnpSent), 2u);
    ASSERT_EQ(cnps.size(), 2u);
    EXPECT_EQ(cnps[1], t0 + cc::kCnpIntervalNs);
    EXPECT_EQ(p.a.r(regs::rdma::kRxDropQp), 0u);
}

// RP: each CNP cuts Rc by alpha/2 (dp::Dcqcn::cut_rate), Rt = the old Rc, alpha per the CNP rule.
TEST_F(RdmaCongestion, CnpCutsTheRateByTheDcqcnRule) {
    setup();
    mark_requests(1);
    write(1024);
    ASSERT_FALSE(p.run(1000));  // stop before the first rate-increase tick (55 us)
    const uint64_t t0 = p.a.host.now;
    EXPECT_EQ(p.b.r(regs::rdma::kCnpSent), 1u);
    EXPECT_EQ(p.a.r(regs::rdma::kCnpRcvd), 1u);
    EXPECT_EQ(p.a.r(regs::rdma::kCcRateCuts), 1u);
    const uint32_t rc1 =
        static_cast<uint32_t>(Dcqcn::cut_rate(cc::kLineRateKbps, Dcqcn::kAlphaOne, 100'000));
    const uint32_t alpha1 = Dcqcn::alpha_on_cnp(Dcqcn::kAlphaOne, 8);
    CcView v = query_cc(p.a, kQa);
    EXPECT_EQ(v.rate, 50'000'000u);  // alpha = 1: halved
    EXPECT_EQ(v.rate, rc1);
    EXPECT_EQ(v.target, cc::kLineRateKbps);
    EXPECT_EQ(v.alpha, alpha1);
    EXPECT_EQ(v.cnps, 1u);
    EXPECT_EQ(query_cc(p.b, kQb).rate, cc::kLineRateKbps);  // B's own sending is not cut

    // 50 us later (before any timer): the next marked request gets a CNP, the second cut.
    for (Node* n : {&p.a, &p.b}) n->host.now = t0 + cc::kCnpIntervalNs;
    mark_requests(1);
    write(1024);
    ASSERT_FALSE(p.run(1000));
    v = query_cc(p.a, kQa);
    EXPECT_EQ(v.rate, Dcqcn::cut_rate(rc1, alpha1, 100'000));
    EXPECT_EQ(v.target, rc1);
    EXPECT_EQ(v.alpha, Dcqcn::alpha_on_cnp(alpha1, 8));
    EXPECT_EQ(v.cnps, 2u);
    EXPECT_EQ(p.a.r(regs::rdma::kCcRateCuts), 2u);
    ASSERT_TRUE(p.run());
    EXPECT_TRUE(data_intact(1024));
}

// After one CNP (Rc = line/2, Rt = line) every rate-increase period moves Rc half way to Rt
// (fast recovery, then additive increase capped at line rate), until it is within one kb/s
// of the line rate and the limiter is released.
TEST_F(RdmaCongestion, RecoversToLineRateAfterTheExpectedNumberOfTimerPeriods) {
    setup();
    mark_requests(1);
    write(1024);
    ASSERT_FALSE(p.run(1000));
    const uint64_t t0 = p.a.host.now;
    uint64_t rc = query_cc(p.a, kQa).rate;
    std::vector<uint64_t> expected;  // Rc after each period
    for (int k = 0; k < 100 && cc::kLineRateKbps - rc > 1; ++k) {
        rc = (cc::kLineRateKbps + rc) / 2;
        expected.push_back(rc);
    }
    const size_t n = expected.size();
    ASSERT_EQ(n, 26u);  // 50e6 kb/s gap, halved (rounding up) 26 times down to 1
    for (size_t k = 1; k < n; ++k) {
        ASSERT_FALSE(p.run(t0 + k * cc::kCcRatePeriodNs + 1000 - p.a.host.now));
        const CcView v = query_cc(p.a, kQa);
        ASSERT_EQ(v.rate, expected[k - 1]) << "period " << k;
        ASSERT_EQ(v.target, cc::kLineRateKbps);
    }
    ASSERT_FALSE(p.run(t0 + n * cc::kCcRatePeriodNs + 1000 - p.a.host.now));
    const CcView v = query_cc(p.a, kQa);
    EXPECT_EQ(v.rate, cc::kLineRateKbps);
    EXPECT_EQ(v.target, cc::kLineRateKbps);
    EXPECT_EQ(v.alpha, Dcqcn::kAlphaOne);
    EXPECT_TRUE(p.run());  // released: the DCQCN timers stop
    EXPECT_LE(p.a.host.now, t0 + (n + 1) * cc::kCcRatePeriodNs);
    // And a new stream is not paced: every packet leaves at one instant.
    data.clear();
    write(64 * 1024);
    ASSERT_TRUE(p.run());
    ASSERT_EQ(data.size(), 64u);
    EXPECT_EQ(data.front().ns, data.back().ns);
}

// A long WRITE stream with every request CE-marked: CNPs exactly as the 50 us rule predicts
// from the marked arrival times, the pacer's send rate far below line rate (while an unmarked
// stream leaves at once), data intact, then recovery to line rate once marking stops.
TEST_F(RdmaCongestion, ContinuousMarkingCutsTheSendRateThenItRecovers) {
    constexpr uint32_t kBytes = 2 << 20;
    setup(10);  // with the local ACK timer (4.2 ms): the pacer must not trip it
    p.a.fill_va(kSrc, kBytes, 9);

    // Unmarked first: line rate, not paced.
    mark_requests(0);
    write(kBytes);
    ASSERT_TRUE(p.run());
    ASSERT_EQ(data.size(), kBytes / 1024);
    EXPECT_EQ(data.front().ns, data.back().ns);
    EXPECT_EQ(p.b.r(regs::rdma::kCnpSent), 0u);
    EXPECT_EQ(query_cc(p.a, kQa).rate, cc::kLineRateKbps);
    const uint32_t timeouts_before = p.a.r(regs::rdma::kAckTimeouts);

    p.b.fill_va(kDst, kBytes, 0);
    data.clear();
    mark_requests(SIZE_MAX);
    write(kBytes);
    ASSERT_TRUE(p.run(100'000'000'000ull, 20'000'000));
    ASSERT_EQ(p.a.poll(0).size(), 0u);  // no error CQE
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    EXPECT_TRUE(data_intact(kBytes));
    EXPECT_EQ(p.a.r(regs::rdma::kAckTimeouts), timeouts_before);
    EXPECT_EQ(p.a.r(regs::rdma::kRetransmits), 0u);

    // CNPs: the NP rule applied to the recorded arrival times of the marked requests.
    std::vector<uint64_t> want;
    for (uint64_t t : marked) {
        if (want.empty() || t - want.back() >= cc::kCnpIntervalNs) want.push_back(t);
    }
    EXPECT_EQ(cnps, want);
    EXPECT_EQ(p.b.r(regs::rdma::kCnpSent), want.size());
    EXPECT_EQ(p.a.r(regs::rdma::kCnpRcvd), want.size());
    EXPECT_EQ(p.b.r(regs::rdma::kEcnCeRcvd), marked.size());
    for (const roce::Transport& t : cnp_frames) {
        EXPECT_EQ(t.bth.dest_qp, kQa);
        EXPECT_TRUE(t.bth.becn);
    }
    // At the 100 Mb/s floor a CNP no longer cuts: fewer cuts than CNPs, and at least the 10
    // halvings from 100 Gb/s to the floor.
    const uint32_t cuts = p.a.r(regs::rdma::kCcRateCuts);
    EXPECT_GE(cuts, 10u);
    EXPECT_LT(cuts, want.size());

    // Send rate of the marked stream, bytes per virtual ns, against line rate (12.5 B/ns).
    uint64_t bytes = 0;
    for (const Stamp& s : data) bytes += s.bytes;
    const uint64_t span = data.back().ns - data.front().ns;
    ASSERT_GT(span, 0u);
    const double rate = static_cast<double>(bytes) / static_cast<double>(span);
    EXPECT_LT(rate / 12.5, 0.01);     // under 1% of line rate
    EXPECT_GT(rate / 0.0125, 0.999);  // never below the 100 Mb/s floor

    // Marking stopped with the stream, and run() went on until the card was idle: the rate
    // timer alone brought the QP back to line rate (limiter released, DCQCN timers stopped).
    // Slowest path: from the floor, F-1 fast-recovery steps, additive steps of 40 Mb/s up to
    // line rate, then the halving of the last gap (at most 27 steps); fastest: the 26 halvings
    // from line/2.
    EXPECT_EQ(query_cc(p.a, kQa).rate, cc::kLineRateKbps);
    const uint64_t slowest =
        cc::kCcFastRecovery + (cc::kLineRateKbps - cc::kCcRateMinKbps) / cc::kCcRateAiKbps + 1 + 27;
    const uint64_t idle_after = p.a.host.now - cnps.back();
    EXPECT_GE(idle_after, 26 * cc::kCcRatePeriodNs);
    EXPECT_LE(idle_after, (slowest + 1) * cc::kCcRatePeriodNs);
}

// The NP reads the ECN field of IPv6 too (traffic class bits 1:0).
TEST_F(RdmaCongestion, CeMarkedIpv6RequestGetsACnp) {
    setup();
    roce::PathContext path;
    path.src_mac = p.a.mac;
    path.dst_mac = p.b.mac;
    path.ip_version = roce::IpVersion::kV6;
    path.src_ip = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    path.dst_ip = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    path.ecn = 3;  // CE
    // B's QP takes only frames of its address vector's path: re-point it at these GIDs.
    std::vector<uint32_t> av(18, 0);  // a2 .. a19; a19 bit 31 clear: IPv6
    std::memcpy(&av[7], path.src_ip.data(), 16);
    std::memcpy(&av[11], path.dst_ip.data(), 16);
    ASSERT_EQ(p.b.modify(kQb, kAttrAv, av), 0u);
    roce::Transport t;
    t.bth.opcode = static_cast<uint8_t>(Opcode::kWriteOnly);
    t.bth.dest_qp = kQb;
    t.bth.psn = QpAttrs{}.sq_psn;  // the PSN B expects from A
    t.bth.ackreq = true;
    t.reth = roce::Reth{kDst, b_key, 16};
    const std::vector<uint8_t> payload(16, 0xab);
    auto built = roce::build_frame(path, t, payload);
    ASSERT_TRUE(built.ok());
    p.b.dev.eth_rx(built.frame);
    EXPECT_EQ(p.b.r(regs::rdma::kEcnCeRcvd), 1u);
    EXPECT_EQ(p.b.r(regs::rdma::kCnpSent), 1u);
    EXPECT_EQ(p.b.read_va(kDst, 16), payload);  // and the WRITE was executed
    size_t cnp_frames_out = 0;
    for (const auto& f : p.b.host.wire) {
        const roce::ParseResult pr = roce::parse_frame(f);
        ASSERT_TRUE(pr.ok());
        if (is_cnp(pr.packet)) {
            ++cnp_frames_out;
            EXPECT_EQ(pr.packet.transport.bth.dest_qp, kQa);
        }
    }
    EXPECT_EQ(cnp_frames_out, 1u);
    p.b.host.wire.clear();
}

// CE-marked READ responses are counted at the requester but answered with no CNP: the RP paces
// requests, so a CNP for the responder's flow would have nothing to slow down.
TEST_F(RdmaCongestion, CeMarkedResponsesAreCountedButGetNoCnp) {
    setup();
    p.b.fill_va(kDst, 8192, 5);
    size_t responses = 0;
    p.rewrite = [&](Dir d, const roce::ParsedPacket& pkt, std::vector<uint8_t>& f) {
        if (d == Dir::kBtoA && pkt.info && pkt.info->cls == roce::OpClass::kReadResponse) {
            ++responses;
            RdmaPair::ce_mark(f);
        }
    };
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc, 8192, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(responses, 8u);  // 8 KiB at PMTU 1024
    EXPECT_EQ(p.a.r(regs::rdma::kEcnCeRcvd), 8u);
    EXPECT_EQ(p.a.r(regs::rdma::kCnpSent), 0u);
    EXPECT_EQ(p.b.r(regs::rdma::kCnpRcvd), 0u);
    EXPECT_EQ(p.b.r(regs::rdma::kEcnCeRcvd), 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_TRUE(data_intact(8192));
}

// A CNP slows its own QP only: on the same card another QP's stream still leaves unpaced.
TEST_F(RdmaCongestion, CnpSlowsOnlyItsOwnQp) {
    constexpr uint32_t kQa2 = 4;
    constexpr uint32_t kQb2 = 5;
    constexpr uint32_t kBytes = 256 * 1024;
    constexpr uint64_t kOff = 1 << 20;  // the second QP's buffers
    setup();
    QpAttrs at;
    at.timeout = 0;
    QpAttrs bt = at;
    bt.sq_psn = at.rq_psn;
    bt.rq_psn = at.sq_psn;
    p.a.create_qp(kQa2, 0, 1);
    p.b.create_qp(kQb2, 0, 1);
    p.a.connect(kQa2, p.b, kQb2, at, bt);
    p.b.connect(kQb2, p.a, kQa2, bt, at);
    p.a.fill_va(kSrc, 2 * kOff, 11);
    std::vector<uint64_t> t1, t2;  // send times of each QP's requests
    p.rewrite = [&](Dir d, const roce::ParsedPacket& pkt, std::vector<uint8_t>& f) {
        if (d != Dir::kAtoB || !pkt.info || !pkt.info->request) return;
        if (pkt.transport.bth.dest_qp == kQb) {
            t1.push_back(p.a.host.now);
            RdmaPair::ce_mark(f);
        } else {
            t2.push_back(p.a.host.now);
        }
    };
    write(kBytes);
    p.a.post_send(
        kQa2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + kOff, kBytes, a_key)}, kDst + kOff, b_key));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(t1.size(), kBytes / 1024);
    ASSERT_EQ(t2.size(), kBytes / 1024);
    EXPECT_EQ(t2.front(), t2.back());  // never paced
    EXPECT_GT(t1.back(), t1.front());  // paced after the first CNP
    EXPECT_GT(query_cc(p.a, kQa).cnps, 0u);
    EXPECT_EQ(query_cc(p.a, kQa2).cnps, 0u);
    EXPECT_EQ(query_cc(p.a, kQa2).rate, cc::kLineRateKbps);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.a.sq_completed(kQa2), 1u);
    EXPECT_TRUE(data_intact(kBytes));
    EXPECT_TRUE(data_intact(kBytes, kOff));
}

// A CNP for a QP that does not exist or is not in RTS changes nothing and counts as a drop.
TEST_F(RdmaCongestion, CnpForUnknownQpOrQpNotInRtsIsDroppedAndCounted) {
    setup();
    p.a.create_qp(4, 0, 1);
    p.b.create_qp(5, 0, 1);
    p.a.connect(4, p.b, 5, QpAttrs{}, QpAttrs{}, true);  // stays in RTR
    roce::PathContext path;
    path.src_mac = p.b.mac;
    path.dst_mac = p.a.mac;
    path.src_ip = {10, 0, 0, 2};
    path.dst_ip = {10, 0, 0, 1};
    auto cnp_to = [&](uint32_t qpn) {
        roce::Transport t;
        t.bth.opcode = static_cast<uint8_t>(Opcode::kCnp);
        t.bth.becn = true;
        t.bth.dest_qp = qpn;
        auto built = roce::build_frame(path, t, {});
        EXPECT_TRUE(built.ok());
        p.a.dev.eth_rx(built.frame);
    };
    cnp_to(77);  // no such QP
    cnp_to(4);   // RTR
    EXPECT_EQ(p.a.r(regs::rdma::kRxDropQp), 2u);
    EXPECT_EQ(p.a.r(regs::rdma::kCnpRcvd), 0u);
    EXPECT_EQ(p.a.r(regs::rdma::kCcRateCuts), 0u);
    EXPECT_EQ(p.a.r(regs::rdma::kRxDropMalformed), 0u);
    EXPECT_EQ(query_cc(p.a, 4).rate, cc::kLineRateKbps);
    EXPECT_EQ(query_cc(p.a, 4).cnps, 0u);
    cnp_to(kQa);  // the same frame for the RTS QP is taken
    EXPECT_EQ(p.a.r(regs::rdma::kRxDropQp), 2u);
    EXPECT_EQ(p.a.r(regs::rdma::kCnpRcvd), 1u);
    EXPECT_EQ(query_cc(p.a, kQa).rate, 50'000'000u);
    EXPECT_EQ(p.a.cmd(kOpQueryQpCc, {77}), uint32_t{kStNotFound});
    EXPECT_EQ(p.a.cmd(kOpQueryQpCc, {cc::kMaxQp}), uint32_t{kStBadIndex});
}

}  // namespace
}  // namespace scenic::test
