// SPDX-License-Identifier: MIT
// UD QPs and address handles (docs/verbs-completeness.md 1): AH table commands, UD sends (the
// AH's address, DETH, the MTU rule), UD receives (Q_Key, the GRH in the first 40 bytes, the
// CQE's source QP and flags), the silent drops and their counters, local errors (SQE), the
// attribute rules of MODIFY_QP, and UD through the card's loopback.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace rr = regs::rdma;
using rdma::kWcFlushErr;
using rdma::kWcLocProtErr;
using rdma::kWcLocQpOpErr;
using rdma::kWcSuccess;

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint32_t kQkey = 0x11223344;
constexpr uint32_t kAhA = 5;  // on card A, to card B
constexpr uint32_t kAhB = 9;  // on card B, to card A
constexpr uint64_t kBuf = Node::kVa + 100;
constexpr uint64_t kSrc = Node::kVa + 64 * 1024 + 3;
constexpr uint32_t kUd = static_cast<uint32_t>(admin::QpType::kUd);
constexpr size_t kGrh = SCENIC_UD_GRH_BYTES;

std::array<uint8_t, 16> ipv6_gid(uint8_t id) {
    return {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x5c, 0, 0xff, 0xfe, 0, 0, id};
}

// CREATE_AH on `n` towards `peer` (IPv4-mapped GIDs, or link-local IPv6 ones).
uint32_t create_ah(Node& n, uint32_t ah, uint32_t pdn, const Node& peer, bool ipv4 = true) {
    Sqe e{};
    const std::span<uint8_t, kAqSqeBytes> s(e);
    admin::AqSqeHdr<>(s.first<8>()).set_opcode(static_cast<uint8_t>(admin::AqOpcode::kCreateAh));
    const admin::AqCreateAh<> v(s);
    v.set_ah(ah);
    v.set_pdn(pdn);
    for (size_t i = 0; i < 6; ++i) {
        v.set_dmac(i, peer.mac[i]);
    }
    v.set_hop_limit(64);
    v.set_ipv4(ipv4 ? 1 : 0);
    const auto dgid = ipv4 ? Node::ipv4_gid(peer.mac[5]) : ipv6_gid(peer.mac[5]);
    const auto sgid = ipv4 ? Node::ipv4_gid(n.mac[5]) : ipv6_gid(n.mac[5]);
    for (size_t i = 0; i < 16; ++i) {
        v.set_dgid(i, dgid[i]);
        v.set_sgid(i, sgid[i]);
    }
    return st(n.aq.exec(e).status);
}

uint32_t destroy_ah(Node& n, uint32_t ah) {
    Sqe e{};
    const std::span<uint8_t, kAqSqeBytes> s(e);
    admin::AqSqeHdr<>(s.first<8>()).set_opcode(static_cast<uint8_t>(admin::AqOpcode::kDestroyAh));
    admin::AqDestroyAh<>(s).set_ah(ah);
    return st(n.aq.exec(e).status);
}

// A UD QP through RESET -> INIT (qkey, pkey_index) -> RTR (path_mtu) -> RTS (sq_psn); srqn >= 0:
// its receive WQEs come from that SRQ.
void ud_qp(Node& n, uint32_t qpn, uint32_t qkey, uint32_t pmtu = 1024, int srqn = -1) {
    n.create_qp(qpn, 0, 1, 8, 8, 0, 0, kUd, srqn);
    std::vector<uint32_t> v(20, 0);
    v[0] = kQpsInit;
    v[18] = qkey;
    ASSERT_EQ(n.modify(qpn, kAttrState | kAttrQkey | kAttrPkeyIndex, v), kStOk);
    ASSERT_EQ(n.modify(qpn, kAttrState | kAttrPathMtu, {kQpsRtr, 0, 0, 0, pmtu}), kStOk);
    ASSERT_EQ(n.modify(qpn, kAttrState | kAttrSqPsn, {kQpsRts, 0, 0x77}), kStOk);
}

scenic_sq_wqe ud_wqe(uint8_t op, std::vector<scenic_sge> sges, uint32_t dest_qpn, uint32_t qkey,
                     uint32_t ah) {
    scenic_sq_wqe w = make_wqe(op, std::move(sges));
    w.dest_qpn = dest_qpn;
    w.ud.qkey = qkey;
    w.ud.ah = ah;
    return w;
}

uint16_t ipv4_checksum(const uint8_t* h) {
    uint32_t sum = 0;
    for (size_t i = 0; i < 20; i += 2) {
        sum += uint32_t{h[i]} << 8 | h[i + 1];
    }
    while ((sum >> 16) != 0) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(sum);  // 0xffff: valid
}

class Ud : public ::testing::Test {
  protected:
    void SetUp() override {
        for (Node* n : {&p.a, &p.b}) {
            n->create_cq(0, 10);
            n->create_cq(1, 10);
        }
        ud_qp(p.a, kQa, kQkey);
        ud_qp(p.b, kQb, kQkey);
        a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
        ASSERT_EQ(create_ah(p.a, kAhA, Node::kPd, p.b), kStOk);
        ASSERT_EQ(create_ah(p.b, kAhB, Node::kPd, p.a), kStOk);
    }
    void TearDown() override {
        for (Node* n : {&p.a, &p.b}) {
            EXPECT_EQ(n->r(rr::kRxDropIcrc), 0u);
        }
    }
    // A sends n bytes (pattern seed) to B's QP with the given Q_Key through AH ah.
    void a_sends(uint32_t n, uint8_t seed, uint32_t qkey = kQkey, uint32_t ah = kAhA,
                 uint8_t op = SCENIC_WQE_OP_SEND) {
        p.a.fill_va(kSrc, n, seed);
        scenic_sq_wqe w = ud_wqe(op, {}, kQb, qkey, ah);
        if (n != 0) {
            w = ud_wqe(op, {sge(kSrc, n, a_key)}, kQb, qkey, ah);
        }
        w.imm_data_be = __builtin_bswap32(0xabcd0000u | seed);
        p.a.post_send(kQa, w);
    }
    void b_recv(uint32_t len, uint64_t va = kBuf) { p.b.post_recv(kQb, {sge(va, len, b_key)}); }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

TEST_F(Ud, SendCarriesGrhSourceQpAndData) {
    b_recv(kGrh + 1000);
    a_sends(1000, 0x31, kQkey, kAhA, SCENIC_WQE_OP_SEND_IMM);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, kWcSuccess);
    EXPECT_EQ(rc[0].opcode, SCENIC_CQE_OP_RECV);
    EXPECT_EQ(rc[0].byte_len, kGrh + 1000);
    EXPECT_EQ(rc[0].src_qp, kQa);
    EXPECT_EQ(rc[0].qpn, kQb);
    EXPECT_EQ(rc[0].wqe_idx, 0u);
    EXPECT_NE(rc[0].flags & SCENIC_CQE_F_IMM, 0);
    EXPECT_EQ(rc[0].flags & SCENIC_CQE_F_NET_IPV6, 0);
    EXPECT_EQ(__builtin_bswap32(rc[0].imm_data_be), 0xabcd0031u);
    const auto got = p.b.read_va(kBuf, kGrh + 1000);
    // IPv4 GRH: 20 zero bytes, then the IPv4 header as received (checksum valid).
    EXPECT_TRUE(std::all_of(got.begin(), got.begin() + 20, [](uint8_t b) { return b == 0; }));
    EXPECT_EQ(got[20], 0x45);
    EXPECT_EQ(got[20 + 9], 17);  // UDP
    EXPECT_EQ(ipv4_checksum(&got[20]), 0xffff);
    EXPECT_EQ(std::vector<uint8_t>(got.begin() + 32, got.begin() + 36),
              (std::vector<uint8_t>{10, 0, 0, 1}));
    EXPECT_EQ(std::vector<uint8_t>(got.begin() + 36, got.begin() + 40),
              (std::vector<uint8_t>{10, 0, 0, 2}));
    EXPECT_EQ(std::vector<uint8_t>(got.begin() + kGrh, got.end()), p.a.read_va(kSrc, 1000));
    EXPECT_EQ(p.a.r(rr::kUdTxPkts), 1u);
    EXPECT_EQ(p.b.r(rr::kUdRxPkts), 1u);
    EXPECT_EQ(p.b.poll(0).size(), 0u);  // no ACK, no send CQE
    EXPECT_EQ(p.b.r(rr::kTxPkts), 0u);

    // And back, B to A: the datagram's source QP is B's.
    p.a.post_recv(kQa, {sge(kBuf, kGrh + 8, a_key)});
    p.b.fill_va(kSrc, 8, 0x77);
    p.b.post_send(kQb, ud_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 8, b_key)}, kQa, kQkey, kAhB));
    ASSERT_TRUE(p.run());
    const auto ra = p.a.poll(1);
    ASSERT_EQ(ra.size(), 1u);
    EXPECT_EQ(ra[0].src_qp, kQb);
    EXPECT_EQ(ra[0].flags & SCENIC_CQE_F_IMM, 0);
    EXPECT_EQ(p.a.read_va(kBuf + kGrh, 8), p.b.read_va(kSrc, 8));
}

TEST_F(Ud, Ipv6AddressHandleGivesIpv6Grh) {
    ASSERT_EQ(create_ah(p.a, 6, Node::kPd, p.b, false), kStOk);
    b_recv(kGrh + 64);
    a_sends(64, 0x10, kQkey, 6);
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, kWcSuccess);
    EXPECT_NE(rc[0].flags & SCENIC_CQE_F_NET_IPV6, 0);
    const auto got = p.b.read_va(kBuf, kGrh + 64);
    EXPECT_EQ(got[0] >> 4, 6);
    EXPECT_EQ(got[6], 17);  // next header UDP
    const auto sgid = ipv6_gid(1);
    const auto dgid = ipv6_gid(2);
    EXPECT_TRUE(std::equal(sgid.begin(), sgid.end(), got.begin() + 8));
    EXPECT_TRUE(std::equal(dgid.begin(), dgid.end(), got.begin() + 24));
    EXPECT_EQ(std::vector<uint8_t>(got.begin() + kGrh, got.end()), p.a.read_va(kSrc, 64));
}

TEST_F(Ud, ScatterOverSeveralSgesAndZeroLength) {
    // The GRH and payload scatter like payload: 30 + 30 + the rest.
    p.b.post_recv(kQb,
                  {sge(kBuf, 30, b_key), sge(kBuf + 500, 30, b_key), sge(kBuf + 1000, 200, b_key)});
    a_sends(100, 0x55);
    b_recv(kGrh);  // a zero-length datagram needs the GRH's room only
    a_sends(0, 0);
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 2u);
    EXPECT_EQ(rc[0].byte_len, kGrh + 100);
    EXPECT_EQ(rc[1].byte_len, kGrh);
    EXPECT_EQ(rc[1].status, kWcSuccess);
    std::vector<uint8_t> got = p.b.read_va(kBuf, 30);
    const auto two = p.b.read_va(kBuf + 500, 30);
    const auto three = p.b.read_va(kBuf + 1000, 80);
    got.insert(got.end(), two.begin(), two.end());
    got.insert(got.end(), three.begin(), three.end());
    EXPECT_EQ(std::vector<uint8_t>(got.begin() + kGrh, got.end()), p.a.read_va(kSrc, 100));
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
}

TEST_F(Ud, QkeyMismatchDroppedAndCounted) {
    b_recv(kGrh + 64);
    a_sends(64, 1, kQkey + 1);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);  // the sender never knows
    EXPECT_TRUE(p.b.poll(1).empty());
    EXPECT_EQ(p.b.r(rr::kRxDropQkey), 1u);
    // The WQE stays for the next datagram that carries the right key.
    a_sends(64, 2);
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].wqe_idx, 0u);
    EXPECT_EQ(p.b.read_va(kBuf + kGrh, 64), p.a.read_va(kSrc, 64));
}

TEST_F(Ud, ControlledQkeySendsTheQpsOwn) {
    b_recv(kGrh + 16);
    a_sends(16, 3, 0x80000000u);  // bit 31: the QP's Q_Key (kQkey) goes on the wire
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.b.poll(1).size(), 1u);
    EXPECT_EQ(p.b.r(rr::kRxDropQkey), 0u);
}

TEST_F(Ud, NoReceiveWqeDroppedNeverNaked) {
    a_sends(64, 1);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.r(rr::kUdRxNoWqe), 1u);
    EXPECT_EQ(p.b.r(rr::kRnrNakSent), 0u);
    EXPECT_EQ(p.b.r(rr::kTxPkts), 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
}

TEST_F(Ud, TooLongDroppedWqeKept) {
    b_recv(kGrh + 63);
    a_sends(64, 1);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.r(rr::kUdRxTooLong), 1u);
    EXPECT_TRUE(p.b.poll(1).empty());
    a_sends(63, 2);
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].wqe_idx, 0u);
    EXPECT_EQ(rc[0].byte_len, kGrh + 63);
}

TEST_F(Ud, LongerThanMtuSendsNothingCompletesOk) {
    b_recv(kGrh + 2048);
    size_t sent = 0;
    p.a.host.on_send = [&sent](std::span<const uint8_t>) { ++sent; };
    a_sends(1025, 1);  // the QP's MTU is 1024
    ASSERT_TRUE(p.run());
    EXPECT_EQ(sent, 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_TRUE(p.a.poll(0).empty());
    EXPECT_EQ(p.a.r(rr::kUdTxOversize), 1u);
    a_sends(1024, 2);  // exactly the MTU goes
    ASSERT_TRUE(p.run());
    EXPECT_EQ(sent, 1u);
    ASSERT_EQ(p.b.poll(1).size(), 1u);
    // The MTU of a UD QP follows the port's in any state.
    ASSERT_EQ(p.a.modify(kQa, kAttrPathMtu, {0, 0, 0, 0, 4096}), kStOk);
    a_sends(1025, 3);
    b_recv(kGrh + 2048);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(sent, 2u);
    EXPECT_EQ(p.b.poll(1).size(), 1u);
}

// A local error completes the WQE in error and moves the SQ to SQE; later WQEs are flushed,
// the RQ keeps receiving, and MODIFY_QP SQE -> RTS resumes sending.
void expect_sqe_after(RdmaPair& p, const scenic_sq_wqe& bad, uint8_t status) {
    p.a.post_send(kQa, bad);
    ASSERT_TRUE(p.run());
    auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, status);
    EXPECT_NE(sc[0].flags & SCENIC_CQE_F_SQ, 0);
    EXPECT_EQ(p.a.query(kQa).state, uint32_t{kQpsSqe});
    EXPECT_EQ(p.a.status_state(kQa), uint32_t{kQpsSqe});
}

TEST_F(Ud, BadAhIndexIsLocalQpOpErrorThenSqe) {
    const uint64_t sent_before = p.a.r(rr::kTxPkts);
    expect_sqe_after(p, ud_wqe(SCENIC_WQE_OP_SEND, {}, kQb, kQkey, 0), kWcLocQpOpErr);
    p.a.post_send(kQa, ud_wqe(SCENIC_WQE_OP_SEND, {}, kQb, kQkey, kAhA));  // flushed in SQE
    ASSERT_TRUE(p.run());
    auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, kWcFlushErr);
    EXPECT_EQ(p.a.r(rr::kTxPkts), sent_before);
    // The RQ of a QP in SQE still receives.
    p.a.post_recv(kQa, {sge(kBuf, kGrh + 8, a_key)});
    p.b.fill_va(kSrc, 8, 9);
    p.b.post_send(kQb, ud_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 8, b_key)}, kQa, kQkey, kAhB));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.poll(1).size(), 1u);
    // Back to RTS: sending works again.
    ASSERT_EQ(p.a.set_state(kQa, kQpsRts), kStOk);
    b_recv(kGrh + 8);
    a_sends(8, 4);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.poll(1).size(), 1u);
}

TEST_F(Ud, AhIndicesOutOfRangeOrFreeRefused) {
    for (const uint32_t ah : {uint32_t{rr::kMaxAhDefault}, 0xffffffffu, 4000u}) {
        ASSERT_EQ(p.a.set_state(kQa, kQpsRts), kStOk);
        expect_sqe_after(p, ud_wqe(SCENIC_WQE_OP_SEND, {}, kQb, kQkey, ah), kWcLocQpOpErr);
    }
    EXPECT_EQ(p.a.r(rr::kUdTxPkts), 0u);
}

TEST_F(Ud, OtherPdsAhRefused) {
    ASSERT_EQ(create_ah(p.a, 7, Node::kPd + 1, p.b), kStOk);
    expect_sqe_after(p, ud_wqe(SCENIC_WQE_OP_SEND, {}, kQb, kQkey, 7), kWcLocQpOpErr);
    EXPECT_EQ(p.a.r(rr::kUdTxPkts), 0u);
}

TEST_F(Ud, RcOpcodesAndInlineAvRefused) {
    expect_sqe_after(p, ud_wqe(SCENIC_WQE_OP_WRITE, {}, kQb, kQkey, kAhA), kWcLocQpOpErr);
    ASSERT_EQ(p.a.set_state(kQa, kQpsRts), kStOk);
    scenic_sq_wqe w = ud_wqe(SCENIC_WQE_OP_SEND, {}, kQb, kQkey, kAhA);
    w.flags = SCENIC_WQE_F_AV_INLINE;  // a user QP never has the kernel's inline AV
    expect_sqe_after(p, w, kWcLocQpOpErr);
    ASSERT_EQ(p.a.set_state(kQa, kQpsRts), kStOk);
    // An lkey of another PD: local protection error.
    const uint32_t other = p.a.reg_mr(Node::kVa + (2 << 20), 4096, kAll, true, Node::kPd + 1);
    expect_sqe_after(
        p, ud_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa + (2 << 20), 8, other)}, kQb, kQkey, kAhA),
        kWcLocProtErr);
    EXPECT_EQ(p.a.r(rr::kUdTxPkts), 0u);
}

TEST_F(Ud, AhCommandChecks) {
    EXPECT_EQ(create_ah(p.a, 0, Node::kPd, p.b), kStBadIndex);
    EXPECT_EQ(create_ah(p.a, rr::kMaxAhDefault, Node::kPd, p.b), kStBadIndex);
    EXPECT_EQ(create_ah(p.a, kAhA, Node::kPd, p.b), kStBusy);
    EXPECT_EQ(destroy_ah(p.a, 0), kStBadIndex);
    EXPECT_EQ(destroy_ah(p.a, 100), kStNotFound);
    EXPECT_EQ(destroy_ah(p.a, kAhA), kStOk);
    EXPECT_EQ(destroy_ah(p.a, kAhA), kStNotFound);
    // A destroyed AH is refused like any invalid index.
    expect_sqe_after(p, ud_wqe(SCENIC_WQE_OP_SEND, {}, kQb, kQkey, kAhA), kWcLocQpOpErr);
    EXPECT_EQ(create_ah(p.a, kAhA, Node::kPd, p.b), kStOk);  // and the index is free again
}

TEST_F(Ud, ModifyQpAttributesPerTransport) {
    // RC-only attributes on a UD QP, and the UD ones on an RC QP, are MALFORMED.
    EXPECT_EQ(p.a.modify(kQa, kAttrDestQpn, {0, kQb}), kStMalformed);
    EXPECT_EQ(p.a.modify(kQa, kAttrAv, {}), kStMalformed);
    EXPECT_EQ(p.a.modify(kQa, kAttrAccess, {}), kStMalformed);
    std::vector<uint32_t> v(20, 0);
    v[19] = 1;  // pkey_index 1: the port has one P_Key
    EXPECT_EQ(p.a.modify(kQa, kAttrPkeyIndex, v), kStBadArg);
    p.a.create_qp(10, 0, 1);  // RC
    EXPECT_EQ(p.a.modify(10, kAttrQkey, std::vector<uint32_t>(20, 0)), kStMalformed);
    // CREATE_QP: an unknown type, and a UD QP with an SCU slot (refused at those fields).
    const uint64_t sp = p.a.alloc(4096);
    const auto create = [&](uint32_t scu, uint32_t type) {
        return p.a.cmd(kOpCreateQp, {11, 0, 0, 4, 0, 0, 4, 0, 1, Node::kPd, scu, Node::lo(sp),
                                     Node::hi(sp), 0, 0, 0, type});
    };
    EXPECT_EQ(create(0, 3), kStBadArg);  // 2 is UC (rdma_uc_test.cpp)
    EXPECT_EQ(p.a.last_syndrome, field_offset(admin::kAqCreateQpFields, "type"));
    EXPECT_EQ(create(1, kUd), kStBadArg);
    EXPECT_EQ(p.a.last_syndrome, field_offset(admin::kAqCreateQpFields, "scu"));
    EXPECT_EQ(create(0, kUd), kStOk);
}

TEST_F(Ud, HostileFramesDroppedAndCounted) {
    // A well-formed UD frame built here, then variants of it.
    roce::Transport t;
    t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kUdSendOnly);
    t.bth.dest_qp = kQb;
    t.bth.pkey = 0xffff;
    t.deth = roce::Deth{kQkey, 42};
    const std::vector<uint8_t> payload(16, 0x5a);
    const auto good = roce::build_frame(p.a.path_to(p.b), t, payload);
    ASSERT_TRUE(good.ok());
    b_recv(kGrh + 16);
    // To a QP that does not exist, and to an RC QP: RX_DROP_QP.
    auto to_qp = [&](uint32_t qpn) {
        roce::Transport u = t;
        u.bth.dest_qp = qpn;
        return roce::build_frame(p.a.path_to(p.b), u, payload).frame;
    };
    p.b.create_qp(12, 0, 1);
    p.b.dev.eth_rx(to_qp(40));
    p.b.dev.eth_rx(to_qp(12));
    EXPECT_EQ(p.b.r(rr::kRxDropQp), 2u);
    // A truncated DETH: an RC SEND_ONLY of 4 bytes relabelled UD, ICRC made valid again.
    roce::Transport rc;
    rc.bth.opcode = static_cast<uint8_t>(roce::Opcode::kSendOnly);
    rc.bth.dest_qp = kQb;
    rc.bth.pkey = 0xffff;
    std::vector<uint8_t> f =
        roce::build_frame(p.a.path_to(p.b), rc, std::vector<uint8_t>(4, 1)).frame;
    f[14 + 20 + 8] = static_cast<uint8_t>(roce::Opcode::kUdSendOnly);
    const uint32_t crc = roce::icrc(std::span(f).subspan(14));
    for (size_t i = 0; i < 4; ++i) {
        f[f.size() - 4 + i] = static_cast<uint8_t>(crc >> (8 * i));
    }
    p.b.dev.eth_rx(f);
    EXPECT_EQ(p.b.r(rr::kRxDropMalformed), 1u);
    // A wrong P_Key.
    roce::Transport bad_pkey = t;
    bad_pkey.bth.pkey = 0x1234;
    p.b.dev.eth_rx(roce::build_frame(p.a.path_to(p.b), bad_pkey, payload).frame);
    EXPECT_EQ(p.b.r(rr::kRxDropPkey), 1u);
    EXPECT_TRUE(p.b.poll(1).empty());
    // The good one lands, with the DETH's source QP.
    p.b.dev.eth_rx(good.frame);
    const auto rc_cqe = p.b.poll(1);
    ASSERT_EQ(rc_cqe.size(), 1u);
    EXPECT_EQ(rc_cqe[0].src_qp, 42u);
    EXPECT_TRUE(p.b.host.wire.empty());  // nothing answered any of them
}

TEST(UdLoopback, TwoQpsOfOneCardThroughTheLoopback) {
    Node n{1};
    size_t wire = 0;
    n.host.on_send = [&wire](std::span<const uint8_t>) { ++wire; };
    n.create_cq(0, 8);
    n.create_cq(1, 8);
    ud_qp(n, kQa, kQkey);
    ud_qp(n, kQb, kQkey);
    const uint32_t key = n.reg_mr(Node::kVa, 1 << 20, kAll);
    ASSERT_EQ(create_ah(n, kAhA, Node::kPd, n), kStOk);  // to the card's own MAC / GID
    n.post_recv(kQb, {sge(kBuf, kGrh + 512, key)});
    n.fill_va(kSrc, 512, 0x42);
    n.post_send(kQa, ud_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 512, key)}, kQb, kQkey, kAhA));
    for (int i = 0; i < 1000 && n.host.timer; ++i) {
        n.host.now = std::max(*n.host.timer, n.host.now);
        n.host.timer.reset();
        n.dev.timer_fire();
    }
    const auto rc = n.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, kWcSuccess);
    EXPECT_EQ(rc[0].src_qp, kQa);
    EXPECT_EQ(n.read_va(kBuf + kGrh, 512), n.read_va(kSrc, 512));
    EXPECT_EQ(wire, 0u);
    EXPECT_EQ(n.r(rr::kLoopbackFrames), 1u);
    EXPECT_EQ(n.r(rr::kUdTxPkts), 1u);
    EXPECT_EQ(n.r(rr::kUdRxPkts), 1u);
    EXPECT_EQ(n.sq_completed(kQa), 1u);
}

// Two UD QPs of card B share one SRQ: each datagram takes the SRQ's next WQE, the CQE names the
// receiving QP, the SRQ index and F_SRQ; with the SRQ empty a datagram is dropped and counted.
TEST(UdSrq, TwoUdQpsShareOneSrq) {
    RdmaPair p;
    for (Node* n : {&p.a, &p.b}) {
        n->create_cq(0, 8);
        n->create_cq(1, 8);
    }
    constexpr uint32_t kSrqn = 4;
    constexpr uint32_t kQc = 5;
    ASSERT_EQ(p.b.create_srq(kSrqn, 3), kStOk);
    ud_qp(p.a, kQa, kQkey);
    ud_qp(p.b, kQb, kQkey, 1024, kSrqn);
    ud_qp(p.b, kQc, kQkey, 1024, kSrqn);
    const uint32_t a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
    const uint32_t b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
    ASSERT_EQ(create_ah(p.a, kAhA, Node::kPd, p.b), kStOk);
    for (uint32_t i = 0; i < 2; ++i) {
        p.b.post_srq_recv(kSrqn, {sge(kBuf + i * 4096, kGrh + 1000, b_key)});
    }
    const std::array<uint32_t, 3> dest{kQc, kQb, kQc};
    for (uint32_t i = 0; i < dest.size(); ++i) {
        p.a.fill_va(kSrc + i * 4096, 300 + i, static_cast<uint8_t>(0x10 * i));
        p.a.post_send(kQa, ud_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc + i * 4096, 300 + i, a_key)},
                                  dest[i], kQkey, kAhA));
    }
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 2u);  // the third found the SRQ empty
    for (uint32_t i = 0; i < 2; ++i) {
        EXPECT_EQ(rc[i].status, kWcSuccess);
        EXPECT_EQ(rc[i].qpn, dest[i]);
        EXPECT_EQ(rc[i].wqe_idx, i);
        EXPECT_NE(rc[i].flags & SCENIC_CQE_F_SRQ, 0);
        EXPECT_EQ(rc[i].src_qp, kQa);
        EXPECT_EQ(rc[i].byte_len, kGrh + 300 + i);
        EXPECT_EQ(p.b.read_va(kBuf + i * 4096 + kGrh, 300 + i),
                  p.a.read_va(kSrc + i * 4096, 300 + i));
    }
    EXPECT_EQ(p.b.r(rr::kUdRxNoWqe), 1u);
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);
}

TEST(UdFeatures, RegistersAdvertiseUd) {
    Node n{1};
    EXPECT_NE(n.r(rr::kFeatures) & rr::kFeaturesUd.mask, 0u);
    EXPECT_EQ(n.r(rr::kMaxAh), 4096u);
}

}  // namespace
}  // namespace scenic::test
