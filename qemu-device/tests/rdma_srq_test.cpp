// SPDX-License-Identifier: MIT
// Shared receive queues (docs/verbs-completeness.md 3): the SRQ commands and their refusals,
// CREATE_QP's srq fields, the SRQ doorbell page and record, receive CQEs with F_SRQ from 64 RC
// QPs sharing one SRQ (every WQE consumed once, every byte checked), the limit event, and
// LAST_WQE_REACHED when an SRQ QP goes to ERR.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace rr = regs::rdma;
using rdma::kWcFlushErr;
using rdma::kWcSuccess;

constexpr uint32_t kSrq = 17;
constexpr uint64_t kRecvVa = Node::kVa;               // SRQ WQE i receives at kRecvVa + i * kSlot
constexpr uint64_t kSendVa = Node::kVa + 512 * 1024;  // sender's buffers
constexpr uint32_t kSlot = 2048;
constexpr uint32_t kEvSrqLimit = static_cast<uint32_t>(admin::AeqType::kSrqLimit);
constexpr uint32_t kLastWqe = static_cast<uint32_t>(admin::QpErr::kLastWqe);

struct SrqView {
    uint32_t status = 0, limit = 0, armed = 0, pi = 0, ci = 0;
};

Sqe srq_entry(admin::AqOpcode op, uint32_t srqn) {
    Sqe e{};
    const std::span<uint8_t, kAqSqeBytes> s(e);
    admin::AqSqeHdr<>(s.first<8>()).set_opcode(static_cast<uint8_t>(op));
    admin::AqQuerySrq<>(s).set_srqn(srqn);  // the srqn of all four at 0x08
    return e;
}

SrqView query_srq(Node& n, uint32_t srqn) {
    AqResult out{};
    SrqView r;
    r.status = st(n.aq.exec(srq_entry(admin::AqOpcode::kQuerySrq, srqn), &out).status);
    const admin::AcqQuerySrq<const uint8_t> v{std::span<const uint8_t, kAqCqeBytes>(out)};
    r.limit = v.limit();
    r.armed = v.armed();
    r.pi = v.pi();
    r.ci = v.ci();
    return r;
}

uint32_t modify_srq(Node& n, uint32_t srqn, uint32_t mask, uint32_t limit) {
    Sqe e = srq_entry(admin::AqOpcode::kModifySrq, srqn);
    const admin::AqModifySrq<> v{std::span<uint8_t, kAqSqeBytes>(e)};
    // The whole word, so that a bit outside the field reaches the card (MALFORMED).
    admin::detail::store<uint32_t>(std::span<uint8_t, kAqSqeBytes>(e),
                                   field_offset(admin::kAqModifySrqFields, "mask"), mask);
    v.set_limit(limit);
    return st(n.aq.exec(e).status);
}

uint32_t destroy_srq(Node& n, uint32_t srqn) {
    return st(n.aq.exec(srq_entry(admin::AqOpcode::kDestroySrq, srqn)).status);
}

// CREATE_QP with explicit srq fields (the rig's create_qp asserts success).
uint32_t create_qp_raw(Node& n, uint32_t qpn, uint32_t srq_flag, uint32_t srqn, uint64_t rq,
                       uint32_t rq_log2, uint32_t pd = Node::kPd) {
    const uint64_t sq = n.alloc(uint64_t{SCENIC_SQ_WQE_BYTES} << 4);
    const uint64_t status = n.alloc(4096);
    return n.cmd(kOpCreateQp,
                 {qpn, Node::lo(sq), Node::hi(sq), 4, Node::lo(rq), Node::hi(rq), rq_log2, 0, 1, pd,
                  0, Node::lo(status), Node::hi(status), 0, 0, 0, 0, srq_flag, srqn});
}

class Srq : public ::testing::Test {
  protected:
    // n RC QP pairs (QPN 2..): A's have RQs, B's take their receives from SRQ kSrq.
    void connect(uint32_t n, unsigned srq_log2, uint32_t limit = 0) {
        for (Node* node : {&p.a, &p.b}) {
            node->create_cq(0, 12);
            node->create_cq(1, 12);
        }
        ASSERT_EQ(p.b.create_srq(kSrq, srq_log2, limit), kStOk);
        QpAttrs at;
        QpAttrs bt;
        bt.sq_psn = at.rq_psn;
        bt.rq_psn = at.sq_psn;
        for (uint32_t i = 0; i < n; ++i) {
            p.a.create_qp(2 + i, 0, 1, 2, 2);  // 4 SQ WQEs: 64 QPs fit the rig's ring memory
            p.b.create_qp(2 + i, 0, 1, 2, 0, 0, 0, 0, static_cast<int>(kSrq));
            p.a.connect(2 + i, p.b, 2 + i, at, bt);
            p.b.connect(2 + i, p.a, 2 + i, bt, at);
        }
        a_key = p.a.reg_mr(Node::kVa, 2 << 20, kAll);
        b_key = p.b.reg_mr(Node::kVa, 2 << 20, kAll);
    }
    // Posts SRQ WQE number idx (its buffer: slot idx of kRecvVa).
    void post(uint32_t idx, bool record_only = false) {
        p.b.post_srq_recv(kSrq, {sge(kRecvVa + uint64_t{idx} * kSlot, kSlot, b_key)}, record_only);
    }
    // A's QP qpn sends message m (len bytes, a pattern of qpn and m) with immediate qpn << 16 | m.
    static uint8_t seed(uint32_t qpn, uint32_t m) { return static_cast<uint8_t>(qpn * 13 + m * 5); }
    void send(uint32_t qpn, uint32_t m, uint32_t len) {
        const uint64_t va = kSendVa + (uint64_t{qpn} * 4 + m % 4) * kSlot;
        p.a.fill_va(va, len, seed(qpn, m));
        scenic_sq_wqe w = make_wqe(SCENIC_WQE_OP_SEND_IMM, {sge(va, len, a_key)});
        w.imm_data_be = __builtin_bswap32(qpn << 16 | m);
        p.a.post_send(qpn, w);
    }
    // Node::fill_va's pattern.
    static std::vector<uint8_t> expected(uint32_t qpn, uint32_t m, uint32_t len) {
        std::vector<uint8_t> v(len);
        for (size_t i = 0; i < len; ++i) {
            v[i] = static_cast<uint8_t>(seed(qpn, m) + i * 7 + (i >> 8));
        }
        return v;
    }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

TEST_F(Srq, FeatureAndTableSize) {
    EXPECT_NE(p.a.r(rr::kFeatures) & rr::kFeaturesSrq.mask, 0u);
    EXPECT_EQ(p.a.r(rr::kMaxSrq), 256u);
}

TEST_F(Srq, CommandsAndTheirRefusals) {
    EXPECT_EQ(p.b.create_srq(kSrq, 6, 5), kStOk);
    EXPECT_EQ(p.b.create_srq(kSrq, 6), kStBusy);
    EXPECT_EQ(p.b.create_srq(rdma::kMaxSrq, 6), kStBadIndex);
    EXPECT_EQ(p.b.create_srq(3, 4, 17), kStBadArg);    // limit above the size
    EXPECT_EQ(query_srq(p.b, 3).status, kStNotFound);  // a refused create leaves nothing
    SrqView v = query_srq(p.b, kSrq);
    EXPECT_EQ(v.status, kStOk);
    EXPECT_EQ(v.limit, 5u);
    EXPECT_EQ(v.armed, 1u);
    EXPECT_EQ(v.pi, 0u);
    EXPECT_EQ(v.ci, 0u);
    EXPECT_EQ(modify_srq(p.b, kSrq, 1, 65), kStBadArg);
    EXPECT_EQ(modify_srq(p.b, kSrq, 1, 0), kStOk);
    EXPECT_EQ(query_srq(p.b, kSrq).armed, 0u);
    EXPECT_EQ(modify_srq(p.b, kSrq, 2, 0), kStMalformed);  // unknown mask bit
    EXPECT_EQ(query_srq(p.b, 3).status, kStNotFound);
    EXPECT_EQ(query_srq(p.b, 256).status, kStBadIndex);
    EXPECT_EQ(destroy_srq(p.b, 3), kStNotFound);
    EXPECT_EQ(destroy_srq(p.b, kSrq), kStOk);
    EXPECT_EQ(query_srq(p.b, kSrq).status, kStNotFound);
}

TEST_F(Srq, CreateQpRefusesBadSrqFields) {
    p.b.create_cq(0, 4);
    p.b.create_cq(1, 4);
    ASSERT_EQ(p.b.create_srq(kSrq, 4), kStOk);
    ASSERT_EQ(p.b.create_srq(kSrq + 1, 4, 0, 0, Node::kPd + 1), kStOk);
    const uint64_t rq = p.b.alloc(64 * 16);
    EXPECT_EQ(create_qp_raw(p.b, 2, 1, 256, 0, 0), kStBadIndex);     // srqn out of range
    EXPECT_EQ(create_qp_raw(p.b, 2, 1, 40, 0, 0), kStNotFound);      // no such SRQ
    EXPECT_EQ(create_qp_raw(p.b, 2, 1, kSrq + 1, 0, 0), kStBadArg);  // another PD's SRQ
    EXPECT_EQ(create_qp_raw(p.b, 2, 1, kSrq, rq, 4), kStBadArg);     // an RQ and an SRQ
    EXPECT_EQ(create_qp_raw(p.b, 2, 1, kSrq, 0, 4), kStBadArg);
    EXPECT_EQ(create_qp_raw(p.b, 2, 0, kSrq, rq, 4), kStBadArg);  // srqn without the flag
    EXPECT_EQ(create_qp_raw(p.b, 2, 1, kSrq, 0, 0), kStOk);
    // A QP uses it: DESTROY_SRQ is refused until the QP is gone.
    EXPECT_EQ(destroy_srq(p.b, kSrq), kStBusy);
    ASSERT_EQ(p.b.cmd(kOpDestroyQp, {2}), kStOk);
    EXPECT_EQ(destroy_srq(p.b, kSrq), kStOk);
}

TEST_F(Srq, DoorbellBeyondTheRingIsIgnored) {
    connect(1, 3);                                    // 8 WQEs
    p.b.db(Node::srq_page(kSrq) + SCENIC_DB_SRQ, 9);  // 9 > 8 WQEs ahead of ci 0
    EXPECT_EQ(query_srq(p.b, kSrq).pi, 0u);
    p.b.db(Node::srq_page(kSrq) + SCENIC_DB_SRQ, 8);  // exactly a ring
    EXPECT_EQ(query_srq(p.b, kSrq).pi, 8u);
    p.b.db(Node::srq_page(kSrq + 1) + SCENIC_DB_SRQ, 1);       // no such SRQ
    p.b.db(Node::srq_page(rdma::kMaxSrq) + SCENIC_DB_SRQ, 1);  // past the SRQ pages
    p.b.db(uint64_t{2} * 4096 + SCENIC_DB_RQ, 1);              // an SRQ QP has no RQ
    EXPECT_EQ(query_srq(p.b, kSrq).pi, 8u);
}

// The acceptance case: one SRQ, 64 QPs, 4 messages each; every CQE has F_SRQ, its QP, an SRQ
// index never seen before, and the buffer of that index holds exactly the message named by the
// immediate.
TEST_F(Srq, SharedBy64QpsEveryWqeConsumedOnce) {
    constexpr uint32_t kQps = 64;
    constexpr uint32_t kMsgs = 4;
    connect(kQps, 9);  // 512 WQEs
    for (uint32_t i = 0; i < kQps * kMsgs; ++i) {
        post(i, i % 2 == 0);  // half only through the record
    }
    p.b.db(Node::srq_page(kSrq) + SCENIC_DB_SRQ, kQps * kMsgs);
    for (uint32_t m = 0; m < kMsgs; ++m) {
        for (uint32_t q = 2; q < 2 + kQps; ++q) {
            send(q, m, 100 + (q * 37 + m * 11) % 1900);
        }
    }
    ASSERT_TRUE(p.run());
    std::vector<scenic_cqe> cqes = p.b.poll(1);
    ASSERT_EQ(cqes.size(), size_t{kQps} * kMsgs);
    std::set<uint32_t> idx_seen;
    std::map<uint32_t, uint32_t> per_qp;
    for (const scenic_cqe& c : cqes) {
        ASSERT_EQ(c.status, kWcSuccess);
        EXPECT_EQ(c.opcode, SCENIC_CQE_OP_RECV);
        ASSERT_NE(c.flags & SCENIC_CQE_F_SRQ, 0);
        ASSERT_NE(c.flags & SCENIC_CQE_F_IMM, 0);
        ASSERT_TRUE(idx_seen.insert(c.wqe_idx).second) << "SRQ WQE " << c.wqe_idx << " twice";
        ASSERT_LT(c.wqe_idx, kQps * kMsgs);
        const uint32_t imm = __builtin_bswap32(c.imm_data_be);
        const uint32_t q = imm >> 16;
        const uint32_t m = imm & 0xffff;
        EXPECT_EQ(c.qpn, q);
        EXPECT_EQ(c.src_qp, q);
        // Messages of one QP arrive in order.
        EXPECT_EQ(per_qp[q]++, m);
        const uint32_t len = 100 + (q * 37 + m * 11) % 1900;
        ASSERT_EQ(c.byte_len, len);
        ASSERT_EQ(p.b.read_va(kRecvVa + uint64_t{c.wqe_idx} * kSlot, len), expected(q, m, len));
    }
    EXPECT_EQ(per_qp.size(), size_t{kQps});
    const SrqView v = query_srq(p.b, kSrq);
    EXPECT_EQ(v.pi, kQps * kMsgs);
    EXPECT_EQ(v.ci, kQps * kMsgs);
    EXPECT_EQ(p.b.r(rr::kRxDropIcrc), 0u);
}

// An empty SRQ makes the RC responder send RNR NAKs; posting (record only) lets it go on.
TEST_F(Srq, EmptySrqRnrThenRecordResumes) {
    connect(2, 4);
    send(2, 0, 64);
    (void)p.run(200'000);  // false: the requester keeps retrying on RNR (rnr_retry 7)
    EXPECT_GT(p.b.r(rr::kRnrNakSent), 0u);
    EXPECT_TRUE(p.b.poll(1).empty());
    post(0, true);
    ASSERT_TRUE(p.run());
    const auto c = p.b.poll(1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].wqe_idx, 0u);
    EXPECT_EQ(c[0].qpn, 2u);
    EXPECT_EQ(p.b.read_va(kRecvVa, 64), expected(2, 0, 64));
}

// The limit fires once when fewer than `limit` WQEs remain, and again only after MODIFY_SRQ.
TEST_F(Srq, LimitEventFiresOnceAndRearms) {
    connect(2, 4, 3);
    for (uint32_t i = 0; i < 6; ++i) {
        post(i);
    }
    for (uint32_t m = 0; m < 3; ++m) {
        send(2, m, 32);
    }
    ASSERT_TRUE(p.run());
    // 6 posted, 3 taken: 3 left, not below 3.
    EXPECT_EQ(p.b.count_events(kEvSrqLimit), 0u);
    send(3, 0, 32);
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.b.count_events(kEvSrqLimit), 1u);
    const auto ev = std::ranges::find_if(
        p.b.events, [](const Node::Event& e) { return e.type == kEvSrqLimit; });
    EXPECT_EQ(ev->id, kSrq);
    EXPECT_EQ(ev->a0, 2u);  // pi - ci when it fired
    EXPECT_EQ(query_srq(p.b, kSrq).armed, 0u);
    send(3, 1, 32);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.count_events(kEvSrqLimit), 1u);   // disarmed: no second event
    ASSERT_EQ(modify_srq(p.b, kSrq, 1, 2), kStOk);  // 1 left < 2: fires at the next take
    EXPECT_EQ(query_srq(p.b, kSrq).armed, 1u);
    send(2, 3, 32);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.count_events(kEvSrqLimit), 2u);
    EXPECT_EQ(p.b.poll(1).size(), 6u);
}

// An SRQ QP that goes to ERR flushes no SRQ WQE (the others are for the other QPs) and raises
// LAST_WQE_REACHED once; the other QP keeps receiving from the SRQ.
TEST_F(Srq, ErrorRaisesLastWqeAndLeavesTheSrq) {
    connect(2, 4);
    for (uint32_t i = 0; i < 4; ++i) {
        post(i);
    }
    ASSERT_EQ(p.b.set_state(2, kQpsErr), kStOk);
    p.b.service_events();
    size_t last = 0;
    for (const Node::Event& e : p.b.events) {
        if (e.type == kEvQpErr && e.id == 2) {
            EXPECT_EQ(e.a0, kLastWqe);
            ++last;
        }
    }
    EXPECT_EQ(last, 1u);
    EXPECT_TRUE(p.b.poll(1).empty());
    EXPECT_EQ(query_srq(p.b, kSrq).ci, 0u);
    send(3, 0, 200);
    ASSERT_TRUE(p.run());
    const auto c = p.b.poll(1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].qpn, 3u);
    EXPECT_EQ(c[0].wqe_idx, 0u);
    EXPECT_EQ(p.b.read_va(kRecvVa, 200), expected(3, 0, 200));
    // Nothing more for QP 2 when the SRQ's record moves (no flush of the SRQ's WQEs).
    post(4);
    ASSERT_EQ(p.b.set_state(2, kQpsReset), kStOk);
    EXPECT_TRUE(p.b.poll(1).empty());
}

// A WQE the QP took when it went to ERR is flushed with F_SRQ and its SRQ index, before the
// LAST_WQE event.
TEST_F(Srq, HeldWqeIsFlushedThenLastWqe) {
    connect(1, 4);
    post(0);
    post(1);
    // The first packet of a 3-packet SEND takes a WQE; the rest never arrives.
    int seen = 0;
    p.drop = [&](RdmaPair::Dir d, const roce::ParsedPacket&) {
        return d == RdmaPair::Dir::kAtoB && seen++ >= 1;
    };
    send(2, 0, 3000);
    (void)p.run(100'000);  // false: the requester keeps retransmitting
    EXPECT_EQ(query_srq(p.b, kSrq).ci, 1u);
    ASSERT_EQ(p.b.set_state(2, kQpsErr), kStOk);
    p.b.service_events();
    const auto c = p.b.poll(1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status, kWcFlushErr);
    EXPECT_EQ(c[0].wqe_idx, 0u);
    EXPECT_EQ(c[0].qpn, 2u);
    EXPECT_NE(c[0].flags & SCENIC_CQE_F_SRQ, 0);
    EXPECT_EQ(std::ranges::count_if(
                  p.b.events,
                  [](const Node::Event& e) { return e.type == kEvQpErr && e.a0 == kLastWqe; }),
              1);
    EXPECT_EQ(query_srq(p.b, kSrq).ci, 1u);  // WQE 1 stays in the SRQ
}

}  // namespace
}  // namespace scenic::test
