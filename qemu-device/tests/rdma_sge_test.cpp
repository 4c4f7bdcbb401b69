// SPDX-License-Identifier: MIT
// Issue 18 item 4: 28 SQ SGEs and 448 inline bytes in the 512-byte SQ slot, RQ WQEs of
// 64/128/256/512 bytes (3/7/15/31 SGEs) chosen per QP at CREATE_QP, and the card's checks of
// num_sge against the slot (docs/verbs-completeness.md 4). Gathers and scatters use unaligned
// addresses and odd lengths whose pieces straddle pages (the rig's VA pages are not contiguous
// on the bus) and packets; every byte is compared with what the pieces say, and the bytes
// between and around the pieces must stay as they were.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;

// n pieces of [va, ...): piece i has length len0 + 37 * i (odd, growing) and starts gap bytes
// after the previous one ends, so that pieces neither touch nor stay aligned.
std::vector<scenic_sge> pieces(uint64_t va, unsigned n, uint32_t len0, uint32_t gap, uint32_t key) {
    std::vector<scenic_sge> out;
    uint64_t at = va;
    for (unsigned i = 0; i < n; ++i) {
        const uint32_t len = len0 + 37 * i;
        out.push_back(sge(at, len, key));
        at += len + gap;
    }
    return out;
}

uint32_t total(const std::vector<scenic_sge>& sgl) {
    uint32_t t = 0;
    for (const scenic_sge& s : sgl) {
        t += s.length;
    }
    return t;
}

// The bytes of a gather list, read piece by piece from node memory.
std::vector<uint8_t> gathered(Node& n, const std::vector<scenic_sge>& sgl) {
    std::vector<uint8_t> out;
    for (const scenic_sge& s : sgl) {
        const auto b = n.read_va(s.addr, s.length);
        out.insert(out.end(), b.begin(), b.end());
    }
    return out;
}

// Two cards, QPs on CQ 0 (send) and 1 (receive); B's RQ stride as given, A's 0.
struct Rig {
    explicit Rig(unsigned b_stride, uint32_t pmtu = 1024) {
        for (Node* n : {&p.a, &p.b}) {
            n->create_cq(0, 8);
            n->create_cq(1, 8);
        }
        p.a.create_qp(kQa, 0, 1, 6, 6);
        p.b.create_qp(kQb, 0, 1, 6, 6, 0, b_stride);
        QpAttrs at;
        at.pmtu = pmtu;
        QpAttrs bt = at;
        bt.sq_psn = at.rq_psn;
        bt.rq_psn = at.sq_psn;
        p.a.connect(kQa, p.b, kQb, at, bt);
        p.b.connect(kQb, p.a, kQa, bt, at);
        a_key = p.a.reg_mr(Node::kVa, Rig::kSpan, kAll);
        b_key = p.b.reg_mr(Node::kVa, Rig::kSpan, kAll);
        p.a.fill_va(Node::kVa, Rig::kSpan, 0x3c);
        p.b.fill_va(Node::kVa, Rig::kSpan, 0xc3);
    }
    static constexpr uint64_t kSpan = 8 * 4096;
    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

// A WRITE gathered from 28 unaligned pieces (the SQ slot's maximum) across 1 KiB packets.
TEST(RdmaSge, WriteGathersTwentyEightUnalignedPieces) {
    Rig r(0);
    RdmaPair& p = r.p;
    [[maybe_unused]] const uint32_t a_key = r.a_key;
    [[maybe_unused]] const uint32_t b_key = r.b_key;
    const auto src = pieces(Node::kVa + 4093, SCENIC_SQ_MAX_SGE, 11, 5, a_key);
    const uint32_t len = total(src);
    ASSERT_EQ(len, 28u * 11 + 37u * 27 * 28 / 2);  // 14294 bytes: 14 packets
    const uint64_t dst = Node::kVa + 3 * 4096 + 7;
    const auto before = p.b.read_va(dst - 3, len + 6);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, src, dst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_TRUE(p.a.poll(0).empty());
    EXPECT_EQ(p.b.read_va(dst, len), gathered(p.a, src));
    const auto after = p.b.read_va(dst - 3, len + 6);
    EXPECT_TRUE(std::equal(after.begin(), after.begin() + 3, before.begin()));
    EXPECT_TRUE(std::equal(after.end() - 3, after.end(), before.end() - 3));
    EXPECT_EQ(p.bad_frames, 0u);
}

// A SEND from 28 pieces lands in a 31-SGE receive WQE (RQ stride 3, 512-byte slots): the
// message fills the receive pieces in order, across packet and SGE boundaries, and the gaps
// between the receive pieces keep their bytes.
TEST(RdmaSge, SendScattersIntoThirtyOneUnalignedPieces) {
    Rig r(SCENIC_RQ_MAX_STRIDE, 256);
    RdmaPair& p = r.p;
    [[maybe_unused]] const uint32_t a_key = r.a_key;
    [[maybe_unused]] const uint32_t b_key = r.b_key;
    const auto src = pieces(Node::kVa + 1, SCENIC_SQ_MAX_SGE, 9, 3, a_key);
    const uint32_t len = total(src);
    // 31 receive pieces of 1 + 37 i bytes: 17236 bytes, more than the message
    const auto dst = pieces(Node::kVa + 4096 + 2, SCENIC_RQ_MAX_SGE, 1, 7, b_key);
    ASSERT_GT(total(dst), len);
    // a second WQE behind it: the card must find it one 512-byte slot further
    const auto dst2 = pieces(Node::kVa + 6 * 4096 + 5, 2, 100, 1, b_key);
    const auto before = p.b.read_va(Node::kVa, Rig::kSpan);
    p.b.post_recv(kQb, dst);
    p.b.post_recv(kQb, dst2);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, src));
    auto small = make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa + 7 * 4096 + 1, 150, a_key)});
    p.a.post_send(kQa, small);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    const auto cqes = p.b.poll(1);
    ASSERT_EQ(cqes.size(), 2u);
    EXPECT_EQ(cqes[0].status, rdma::kWcSuccess);
    EXPECT_EQ(cqes[0].byte_len, len);
    EXPECT_EQ(cqes[0].wqe_idx, 0u);
    EXPECT_EQ(cqes[1].status, rdma::kWcSuccess);
    EXPECT_EQ(cqes[1].byte_len, 150u);
    EXPECT_EQ(cqes[1].wqe_idx, 1u);

    // What B's memory must hold: the old bytes, with the message laid over the pieces in order.
    std::vector<uint8_t> want = before;
    const auto msg = gathered(p.a, src);
    size_t off = 0;
    for (const scenic_sge& d : dst) {
        for (uint32_t i = 0; i < d.length && off < msg.size(); ++i) {
            want[d.addr - Node::kVa + i] = msg[off++];
        }
    }
    ASSERT_EQ(off, msg.size());
    const auto msg2 = p.a.read_va(Node::kVa + 7 * 4096 + 1, 150);
    for (size_t i = 0; i < 150; ++i) {
        const scenic_sge& d = i < 100 ? dst2[0] : dst2[1];
        want[d.addr - Node::kVa + (i < 100 ? i : i - 100)] = msg2[i];
    }
    EXPECT_EQ(p.b.read_va(Node::kVa, Rig::kSpan), want);
    EXPECT_EQ(p.bad_frames, 0u);
}

// A READ scatters the response over 28 local pieces; the bytes between them stay.
TEST(RdmaSge, ReadScattersIntoTwentyEightUnalignedPieces) {
    Rig r(0);
    RdmaPair& p = r.p;
    [[maybe_unused]] const uint32_t a_key = r.a_key;
    [[maybe_unused]] const uint32_t b_key = r.b_key;
    const auto dst = pieces(Node::kVa + 4095, SCENIC_SQ_MAX_SGE, 13, 9, a_key);
    const uint32_t len = total(dst);
    const uint64_t remote = Node::kVa + 2 * 4096 + 3;
    const auto before = p.a.read_va(Node::kVa, Rig::kSpan);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, dst, remote, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    std::vector<uint8_t> want = before;
    const auto src = p.b.read_va(remote, len);
    size_t off = 0;
    for (const scenic_sge& d : dst) {
        for (uint32_t i = 0; i < d.length; ++i) {
            want[d.addr - Node::kVa + i] = src[off++];
        }
    }
    EXPECT_EQ(p.a.read_va(Node::kVa, Rig::kSpan), want);
    EXPECT_EQ(p.bad_frames, 0u);
}

// 448 inline bytes (the whole slot after the header) arrive; 449 are a local error.
TEST(RdmaSge, InlineUpToTheSlotEnd) {
    Rig r(0);
    RdmaPair& p = r.p;
    [[maybe_unused]] const uint32_t a_key = r.a_key;
    [[maybe_unused]] const uint32_t b_key = r.b_key;
    p.b.post_recv(kQb, {sge(Node::kVa + 5, 1000, b_key)});
    scenic_sq_wqe w{};
    w.opcode = SCENIC_WQE_OP_SEND;
    w.flags = SCENIC_WQE_F_INLINE;
    w.length = SCENIC_MAX_INLINE;
    for (uint32_t i = 0; i < SCENIC_MAX_INLINE; ++i) {
        w.inline_data[i] = static_cast<uint8_t>(i * 11 + 1);
    }
    p.a.post_send(kQa, w);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].byte_len, SCENIC_MAX_INLINE);
    EXPECT_EQ(p.b.read_va(Node::kVa + 5, SCENIC_MAX_INLINE),
              std::vector<uint8_t>(w.inline_data, w.inline_data + SCENIC_MAX_INLINE));

    w.length = SCENIC_MAX_INLINE + 1;
    p.a.post_send(kQa, w);
    ASSERT_TRUE(p.run());
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, rdma::kWcLocQpOpErr);
    EXPECT_TRUE(sc[0].flags & SCENIC_CQE_F_SQ);
    EXPECT_EQ(sc[0].wqe_idx, 1u);
    EXPECT_EQ(p.b.poll(1).size(), 0u);  // nothing was sent
}

// num_sge 29 in an SQ WQE would read past the 512-byte slot: a local QP operation error CQE,
// nothing on the wire.
TEST(RdmaSge, SqCountBeyondTheSlotIsALocalError) {
    Rig r(0);
    RdmaPair& p = r.p;
    [[maybe_unused]] const uint32_t a_key = r.a_key;
    [[maybe_unused]] const uint32_t b_key = r.b_key;
    auto w = make_wqe(SCENIC_WQE_OP_WRITE, pieces(Node::kVa, SCENIC_SQ_MAX_SGE, 4, 0, a_key),
                      Node::kVa, b_key);
    w.num_sge = SCENIC_SQ_MAX_SGE + 1;
    const size_t frames = p.frames;
    p.a.post_send(kQa, w);
    ASSERT_TRUE(p.run());
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, rdma::kWcLocQpOpErr);
    EXPECT_TRUE(sc[0].flags & SCENIC_CQE_F_SQ);
    EXPECT_EQ(sc[0].wqe_idx, 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 0u);
    EXPECT_EQ(p.frames, frames);
}

// A receive WQE naming more SGEs than its QP's stride holds (8 in a 128-byte slot of 7) is never
// read past its slot: the receive completes with a local QP operation error and the requester
// gets a NAK (remote operation error), so the SEND fails at both ends. The WQE behind it, in the
// next slot, is not taken for the bad WQE's SGEs.
TEST(RdmaSge, RqCountBeyondTheStrideIsALocalError) {
    Rig r(1);
    RdmaPair& p = r.p;
    [[maybe_unused]] const uint32_t a_key = r.a_key;
    [[maybe_unused]] const uint32_t b_key = r.b_key;
    const auto sgl = pieces(Node::kVa + 1, 8, 10, 1, b_key);
    p.b.post_recv(kQb, sgl, 8);  // the slot holds the first 7; num_sge says 8
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa, 20, a_key)}));
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, rdma::kWcLocQpOpErr);
    EXPECT_EQ(rc[0].wqe_idx, 0u);
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, rdma::kWcRemOpErr);
    EXPECT_EQ(p.a.sq_completed(kQa), 0u);
}

// The same count in a 256-byte slot (15 SGEs) is fine, and stride 0 still takes 3.
TEST(RdmaSge, EachStrideTakesItsOwnCount) {
    for (unsigned stride = 0; stride <= SCENIC_RQ_MAX_STRIDE; ++stride) {
        Rig t(stride);
        const unsigned n = SCENIC_RQ_STRIDE_SGES(stride);
        const auto sgl = pieces(Node::kVa + 3, n, 2, 2, t.b_key);
        const auto src = pieces(Node::kVa + 11, 1, total(sgl), 0, t.a_key);
        t.p.b.post_recv(kQb, sgl);
        t.p.b.post_recv(kQb, sgl, static_cast<int>(n + 1));
        t.p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, src));
        t.p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, src));
        ASSERT_TRUE(t.p.run());
        const auto rc = t.p.b.poll(1);
        ASSERT_EQ(rc.size(), 2u) << "stride " << stride;
        EXPECT_EQ(rc[0].status, rdma::kWcSuccess) << "stride " << stride;
        EXPECT_EQ(rc[0].byte_len, total(sgl));
        EXPECT_EQ(t.p.b.read_va(Node::kVa + 3, 2), t.p.a.read_va(Node::kVa + 11, 2));
        EXPECT_EQ(rc[1].status, rdma::kWcLocQpOpErr) << "stride " << stride;
        EXPECT_EQ(rc[1].wqe_idx, 1u);
    }
}

// CREATE_QP takes rq_stride 0..3 and refuses 4..7 (BAD_ARG, syndrome the flags byte).
TEST(RdmaSgeCreate, RqStrideAboveThreeIsRefused) {
    Node n(1);
    n.create_cq(0, 4);
    const uint64_t ring = n.alloc(512 * 4);
    const uint64_t status = n.alloc(4096);
    for (uint32_t stride = 0; stride < 8; ++stride) {
        const uint32_t qpn = 2 + stride;
        const uint32_t st = n.cmd(
            kOpCreateQp, {qpn, Node::lo(ring), Node::hi(ring), 2, Node::lo(ring), Node::hi(ring), 2,
                          0, 0, Node::kPd, 0, Node::lo(status), Node::hi(status), 0, 0, stride});
        if (stride <= SCENIC_RQ_MAX_STRIDE) {
            EXPECT_EQ(st, kStOk) << stride;
        } else {
            EXPECT_EQ(st, kStBadArg) << stride;
            EXPECT_EQ(n.last_syndrome, field_offset(admin::kAqCreateQpFields, "rq_stride"));
        }
    }
}

}  // namespace
}  // namespace scenic::test
