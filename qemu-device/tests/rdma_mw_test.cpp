// SPDX-License-Identifier: MIT
// Memory windows (docs/verbs-completeness.md 5.1): ALLOC_MW / DEALLOC_MW, BIND_MW of types 1 and
// 2, remote WRITE / READ / atomics through a window's rkey checked against the window (not the
// MR), LOCAL_INV and SEND_INV, DEREG_MR refused while windows are bound, and the hostile binds
// (beyond the MR, no MW_BIND, another PD's window, a reused tag, an MW key as an lkey).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace rr = regs::rdma;
using rdma::kAccessMwBind;
using rdma::kAccessRemoteAtomic;
using rdma::kAccessRemoteRead;
using rdma::kAccessRemoteWrite;
using rdma::kWcFlushErr;
using rdma::kWcLocProtErr;
using rdma::kWcLocQpOpErr;
using rdma::kWcMwBindErr;
using rdma::kWcRemAccessErr;
using rdma::kWcRemInvReqErr;
using rdma::kWcSuccess;

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint64_t kMrVa = Node::kVa + (1 << 20);  // B's MR: 64 KiB
constexpr uint64_t kMrLen = 64 * 1024;
constexpr uint64_t kWinVa = kMrVa + 4096 + 100;  // the window: 8 KiB inside it
constexpr uint64_t kWinLen = 8192;
constexpr uint64_t kSrc = Node::kVa + 3;  // A's buffer
constexpr uint32_t kRemote = kAccessRemoteWrite | kAccessRemoteRead | kAccessRemoteAtomic;

constexpr uint32_t mw_key(uint32_t index, uint8_t tag) {
    return ((rdma::kMwIndexBit | index) << 8) | tag;
}

uint32_t alloc_mw(Node& n, uint32_t key, uint32_t pdn, uint8_t type) {
    Sqe e{};
    const std::span<uint8_t, kAqSqeBytes> s(e);
    admin::AqSqeHdr<>(s.first<8>()).set_opcode(static_cast<uint8_t>(admin::AqOpcode::kAllocMw));
    const admin::AqAllocMw<> v(s);
    v.set_key(key);
    v.set_pdn(pdn);
    v.set_type(type);
    return st(n.aq.exec(e).status);
}

uint32_t dealloc_mw(Node& n, uint32_t key) {
    Sqe e{};
    const std::span<uint8_t, kAqSqeBytes> s(e);
    admin::AqSqeHdr<>(s.first<8>()).set_opcode(static_cast<uint8_t>(admin::AqOpcode::kDeallocMw));
    admin::AqDeallocMw<>(s).set_key(key);
    return st(n.aq.exec(e).status);
}

scenic_sq_wqe bind_wqe(uint32_t new_rkey, uint64_t va, uint64_t len, uint32_t mr_lkey,
                       uint32_t access, uint8_t type) {
    scenic_bind_mw_wqe b{};
    b.opcode = SCENIC_WQE_OP_BIND_MW;
    b.new_rkey = new_rkey;
    b.va = va;
    b.length = len;
    b.mr_lkey = mr_lkey;
    b.access = static_cast<uint8_t>(access);
    b.mw_type = type;
    scenic_sq_wqe w{};
    std::memcpy(&w, &b, sizeof(b));
    return w;
}

scenic_sq_wqe key_wqe(uint8_t opcode, uint32_t rkey) {
    scenic_sq_wqe w{};
    w.opcode = opcode;
    w.rkey = rkey;
    return w;
}

class RdmaMw : public ::testing::Test {
  protected:
    void SetUp() override {
        p.setup(kQa, kQb);
        a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        b_mr = p.b.reg_mr(kMrVa, kMrLen, kAll | kAccessMwBind);
        p.a.fill_va(kSrc, 8192, 0x31);
        p.b.fill_va(kMrVa, kMrLen, 0x90);
    }
    // B binds a window through its own QP (the one A's requests arrive on); true if it completed.
    bool bind_on_b(uint32_t rkey, uint64_t va, uint64_t len, uint32_t access, uint8_t type,
                   uint32_t mr = 0) {
        const uint64_t before = p.b.sq_completed(kQb);
        p.b.post_send(kQb, bind_wqe(rkey, va, len, mr != 0 ? mr : b_mr, access, type));
        EXPECT_TRUE(p.run());
        return p.b.sq_completed(kQb) == before + 1;
    }
    // A WRITE of n bytes from A to va through rkey; the status of its completion.
    uint8_t write(uint64_t va, uint32_t n, uint32_t rkey) {
        return op(make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, n, a_key)}, va, rkey));
    }
    uint8_t read(uint64_t va, uint32_t n, uint32_t rkey) {
        return op(make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc + 65536, n, a_key)}, va, rkey));
    }
    uint8_t op(const scenic_sq_wqe& w) {
        const uint64_t before = p.a.sq_completed(kQa);
        p.a.post_send(kQa, w);
        EXPECT_TRUE(p.run());
        if (p.a.sq_completed(kQa) == before + 1) {
            return kWcSuccess;
        }
        const auto cqes = p.a.poll(0);
        return cqes.empty() ? 0xff : cqes[0].status;
    }
    uint32_t rb(uint32_t off) const { return p.b.r(off); }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_mr = 0;
};

TEST(RdmaMwCommands, FeatureAndAllocRules) {
    Node n(1);
    EXPECT_NE(n.r(rr::kFeatures) & rr::kFeaturesMw.mask, 0u);
    EXPECT_EQ(n.r(rr::kMaxMw), rdma::kMaxMw);
    EXPECT_EQ(alloc_mw(n, (5u << 8) | 1, 7, 2), kStBadIndex);  // an MR index, not a window's
    EXPECT_EQ(alloc_mw(n, mw_key(rdma::kMaxMw, 1), 7, 2), kStBadIndex);
    EXPECT_EQ(alloc_mw(n, mw_key(3, 1), 7, 3), kStBadArg);  // types 1 and 2 only
    EXPECT_EQ(alloc_mw(n, mw_key(3, 1), 7, 0), kStBadArg);
    EXPECT_EQ(alloc_mw(n, mw_key(3, 1), 7, 2), kStOk);
    EXPECT_EQ(alloc_mw(n, mw_key(3, 9), 7, 1), kStBusy);  // same index
    EXPECT_EQ(dealloc_mw(n, mw_key(4, 1)), kStNotFound);
    EXPECT_EQ(dealloc_mw(n, (3u << 8) | 1), kStBadIndex);
    EXPECT_EQ(dealloc_mw(n, mw_key(3, 0x77)), kStOk);  // any tag of the index
    EXPECT_EQ(dealloc_mw(n, mw_key(3, 1)), kStNotFound);
    EXPECT_EQ(alloc_mw(n, mw_key(3, 2), 7, 1), kStOk);  // the index is free again
}

TEST_F(RdmaMw, Type2BindThenWriteReadAtomicThroughTheWindow) {
    const uint32_t k0 = mw_key(1, 0x10);
    ASSERT_EQ(alloc_mw(p.b, k0, Node::kPd, 2), kStOk);
    const uint32_t k = mw_key(1, 0x11);
    ASSERT_TRUE(bind_on_b(k, kWinVa, kWinLen, kRemote, 2));
    EXPECT_TRUE(p.b.poll(0).empty());  // a successful bind writes no CQE, only the counter

    ASSERT_EQ(write(kWinVa + 10, 300, k), kWcSuccess);
    EXPECT_EQ(p.b.read_va(kWinVa + 10, 300), p.a.read_va(kSrc, 300));
    // Across the whole window, to its last byte.
    ASSERT_EQ(write(kWinVa, static_cast<uint32_t>(kWinLen), k), kWcSuccess);
    EXPECT_EQ(p.b.read_va(kWinVa, kWinLen), p.a.read_va(kSrc, kWinLen));

    p.b.fill_va(kWinVa + 2000, 500, 0x44);
    ASSERT_EQ(read(kWinVa + 2000, 500, k), kWcSuccess);
    EXPECT_EQ(p.a.read_va(kSrc + 65536, 500), p.b.read_va(kWinVa + 2000, 500));

    const uint64_t word = (kWinVa + 64) & ~uint64_t{7};
    p.b.write_va(word, std::vector<uint8_t>{5, 0, 0, 0, 0, 0, 0, 0});
    scenic_sq_wqe faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kSrc + 65536, 8, a_key)}, word, k);
    faa.compare_add = 37;
    ASSERT_EQ(op(faa), kWcSuccess);
    EXPECT_EQ(p.b.read_va(word, 1)[0], 42);
    EXPECT_EQ(p.a.read_va(kSrc + 65536, 1)[0], 5);  // the original value
    // The old key (the tag before the bind) reaches nothing.
    EXPECT_EQ(write(kWinVa, 8, k0), kWcRemAccessErr);
}

TEST_F(RdmaMw, AccessOutsideTheWindowIsARemoteAccessError) {
    const uint32_t k = mw_key(1, 0x21);
    ASSERT_EQ(alloc_mw(p.b, mw_key(1, 0x20), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(k, kWinVa, kWinLen, kRemote, 2));
    const auto before = p.b.read_va(kMrVa, kMrLen);
    // Inside the MR, one byte past the window: the window's range counts, not the MR's.
    EXPECT_EQ(write(kWinVa + kWinLen - 4, 8, k), kWcRemAccessErr);
    EXPECT_EQ(p.b.read_va(kMrVa, kMrLen), before);
    EXPECT_EQ(p.a.status_state(kQa), uint32_t{kQpsErr});
    EXPECT_EQ(rb(rr::kRemAccessErr), 1u);
}

TEST_F(RdmaMw, AccessBeforeTheWindowAndWithoutItsRightIsRefused) {
    const uint32_t k = mw_key(2, 0x31);
    ASSERT_EQ(alloc_mw(p.b, mw_key(2, 0x30), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(k, kWinVa, kWinLen, kAccessRemoteRead, 2));  // read only
    ASSERT_EQ(read(kWinVa, 64, k), kWcSuccess);
    EXPECT_EQ(read(kWinVa - 1, 64, k), kWcRemAccessErr);

    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 1 << 20, kAll);
    const uint32_t bm = q.b.reg_mr(kMrVa, kMrLen, kAll | kAccessMwBind);
    ASSERT_EQ(alloc_mw(q.b, mw_key(2, 0x30), Node::kPd, 2), kStOk);
    q.b.post_send(kQb, bind_wqe(k, kWinVa, kWinLen, bm, kAccessRemoteRead, 2));
    ASSERT_TRUE(q.run());
    ASSERT_EQ(q.b.sq_completed(kQb), 1u);
    const auto before = q.b.read_va(kWinVa, 64);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 64, ak)}, kWinVa, k));
    ASSERT_TRUE(q.run());
    const auto cqes = q.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, kWcRemAccessErr);  // the MR allows writes, the window does not
    EXPECT_EQ(q.b.read_va(kWinVa, 64), before);
}

TEST_F(RdmaMw, LocalInvalidateMakesTheRkeyStale) {
    const uint32_t k = mw_key(3, 0x41);
    ASSERT_EQ(alloc_mw(p.b, mw_key(3, 0x40), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(k, kWinVa, kWinLen, kRemote, 2));
    ASSERT_EQ(write(kWinVa, 16, k), kWcSuccess);
    p.b.post_send(kQb, key_wqe(SCENIC_WQE_OP_LOCAL_INV, k));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.sq_completed(kQb), 2u);
    EXPECT_TRUE(p.b.poll(0).empty());
    const auto before = p.b.read_va(kWinVa, 16);
    EXPECT_EQ(write(kWinVa, 16, k), kWcRemAccessErr);
    EXPECT_EQ(p.b.read_va(kWinVa, 16), before);
}

TEST_F(RdmaMw, RebindNeedsANewTagAndAnInvalidWindow) {
    const uint32_t k = mw_key(4, 0x51);
    ASSERT_EQ(alloc_mw(p.b, mw_key(4, 0x50), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(k, kWinVa, kWinLen, kRemote, 2));
    // Bound: a second bind (new tag) is refused; the QP goes to error with MW_BIND.
    EXPECT_FALSE(bind_on_b(mw_key(4, 0x52), kWinVa, 64, kRemote, 2));
    const auto cqes = p.b.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, kWcMwBindErr);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_BIND_MW);
    EXPECT_EQ(cqes[0].wqe_idx, 1u);
    EXPECT_EQ(p.b.status_state(kQb), uint32_t{kQpsErr});
}

TEST_F(RdmaMw, TagReuseAfterInvalidateIsRefused) {
    const uint32_t k = mw_key(4, 0x51);
    ASSERT_EQ(alloc_mw(p.b, mw_key(4, 0x50), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(k, kWinVa, kWinLen, kRemote, 2));
    p.b.post_send(kQb, key_wqe(SCENIC_WQE_OP_LOCAL_INV, k));
    ASSERT_TRUE(p.run());
    // The same tag again would revive the rkey a peer may still hold.
    EXPECT_FALSE(bind_on_b(k, kWinVa, kWinLen, kRemote, 2));
    const auto cqes = p.b.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, kWcMwBindErr);
}

TEST_F(RdmaMw, NewTagAfterInvalidateBindsAgain) {
    ASSERT_EQ(alloc_mw(p.b, mw_key(4, 0x50), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(mw_key(4, 0x51), kWinVa, kWinLen, kRemote, 2));
    p.b.post_send(kQb, key_wqe(SCENIC_WQE_OP_LOCAL_INV, mw_key(4, 0x51)));
    ASSERT_TRUE(p.run());
    ASSERT_TRUE(bind_on_b(mw_key(4, 0x52), kMrVa, 256, kRemote, 2));
    EXPECT_EQ(write(kMrVa, 256, mw_key(4, 0x52)), kWcSuccess);
    EXPECT_EQ(p.b.read_va(kMrVa, 256), p.a.read_va(kSrc, 256));
}

// Each hostile bind fails with MW_BIND on B's send CQ and changes nothing.
struct BadBind {
    const char* name;
    uint64_t va;
    uint64_t len;
    uint32_t access;
    uint32_t mw_pd;
    uint8_t type;
    uint32_t mr_access;  // B's MR
    uint8_t tag;
};

class RdmaMwBadBind : public ::testing::TestWithParam<BadBind> {};

TEST_P(RdmaMwBadBind, IsRefused) {
    const BadBind& c = GetParam();
    RdmaPair p;
    p.setup(kQa, kQb);
    const uint32_t ak = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
    const uint32_t bm = p.b.reg_mr(kMrVa, kMrLen, c.mr_access);
    ASSERT_EQ(alloc_mw(p.b, mw_key(9, 0x60), c.mw_pd, 2), kStOk);
    const uint32_t k = mw_key(9, c.tag);
    p.b.post_send(kQb, bind_wqe(k, c.va, c.len, bm, c.access, c.type));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.sq_completed(kQb), 0u);
    const auto cqes = p.b.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, kWcMwBindErr);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_BIND_MW);
    // Nothing was bound: the key reaches nothing, and the MR can go.
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, ak)}, kMrVa + 4096, k));
    ASSERT_TRUE(p.run());
    const auto acq = p.a.poll(0);
    ASSERT_EQ(acq.size(), 1u);
    EXPECT_NE(acq[0].status, kWcSuccess);
    EXPECT_EQ(p.b.cmd(kOpDeregMr, {bm}), kStOk);
}

INSTANTIATE_TEST_SUITE_P(
    Hostile, RdmaMwBadBind,
    ::testing::Values(
        BadBind{"BeyondTheMr", kMrVa + kMrLen - 100, 200, kRemote, Node::kPd, 2,
                kAll | kAccessMwBind, 0x61},
        BadBind{"BeforeTheMr", kMrVa - 1, 200, kRemote, Node::kPd, 2, kAll | kAccessMwBind, 0x61},
        BadBind{"WrappingLength", kMrVa + 8, ~uint64_t{0}, kRemote, Node::kPd, 2,
                kAll | kAccessMwBind, 0x61},
        BadBind{"MrWithoutMwBind", kMrVa, 200, kRemote, Node::kPd, 2, kAll, 0x61},
        BadBind{"RemoteWriteWithoutLocalWrite", kMrVa, 200, kAccessRemoteWrite, Node::kPd, 2,
                kAccessRemoteRead | kAccessMwBind, 0x61},
        BadBind{"AnotherPdsWindow", kMrVa, 200, kRemote, Node::kPd + 1, 2, kAll | kAccessMwBind,
                0x61},
        BadBind{"WrongType", kMrVa, 200, kRemote, Node::kPd, 1, kAll | kAccessMwBind, 0x61},
        BadBind{"SameTagAsAllocated", kMrVa, 200, kRemote, Node::kPd, 2, kAll | kAccessMwBind,
                0x60},
        BadBind{"LocalWriteRight", kMrVa, 200, rdma::kAccessLocalWrite, Node::kPd, 2,
                kAll | kAccessMwBind, 0x61}),
    [](const ::testing::TestParamInfo<BadBind>& i) { return std::string(i.param.name); });

TEST_F(RdmaMw, BindToAnotherPdsMrIsRefused) {
    const uint32_t other =
        p.b.reg_mr(kMrVa + kMrLen, 4096, kAll | kAccessMwBind, true, Node::kPd + 1);
    ASSERT_EQ(alloc_mw(p.b, mw_key(5, 1), Node::kPd, 2), kStOk);
    EXPECT_FALSE(bind_on_b(mw_key(5, 2), kMrVa + kMrLen, 100, kRemote, 2, other));
    const auto cqes = p.b.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, kWcMwBindErr);
}

TEST_F(RdmaMw, DeregOfAnMrWithBoundWindowsIsBusy) {
    ASSERT_EQ(alloc_mw(p.b, mw_key(6, 1), Node::kPd, 2), kStOk);
    ASSERT_EQ(alloc_mw(p.b, mw_key(7, 1), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(mw_key(6, 2), kWinVa, 64, kRemote, 2));
    ASSERT_TRUE(bind_on_b(mw_key(7, 2), kWinVa, 64, kRemote, 2));
    EXPECT_EQ(p.b.cmd(kOpDeregMr, {b_mr}), kStBusy);
    // One invalidated, one deallocated: then the MR goes.
    p.b.post_send(kQb, key_wqe(SCENIC_WQE_OP_LOCAL_INV, mw_key(6, 2)));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.cmd(kOpDeregMr, {b_mr}), kStBusy);
    EXPECT_EQ(dealloc_mw(p.b, mw_key(7, 2)), kStOk);
    EXPECT_EQ(p.b.cmd(kOpDeregMr, {b_mr}), kStOk);
    // The deallocated window's rkey reaches nothing.
    EXPECT_EQ(write(kWinVa, 8, mw_key(7, 2)), kWcRemAccessErr);
}

TEST_F(RdmaMw, SendWithInvalidateInvalidatesAndReportsTheKey) {
    const uint32_t k = mw_key(8, 0x71);
    ASSERT_EQ(alloc_mw(p.b, mw_key(8, 0x70), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(k, kWinVa, kWinLen, kRemote, 2));
    ASSERT_EQ(write(kWinVa, 8, k), kWcSuccess);
    const uint32_t rbuf = p.b.reg_mr(Node::kVa, 65536, kAll);
    p.b.post_recv(kQb, {sge(Node::kVa, 4096, rbuf)});
    scenic_sq_wqe s = make_wqe(SCENIC_WQE_OP_SEND_INV, {sge(kSrc, 2000, a_key)});
    s.rkey = k;
    ASSERT_EQ(op(s), kWcSuccess);  // two packets: SEND_FIRST, SEND_LAST_WITH_INVALIDATE
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 1u);
    EXPECT_EQ(rc[0].status, kWcSuccess);
    EXPECT_EQ(rc[0].opcode, SCENIC_CQE_OP_RECV);
    EXPECT_EQ(rc[0].byte_len, 2000u);
    EXPECT_TRUE(rc[0].flags & SCENIC_CQE_F_INV);
    EXPECT_FALSE(rc[0].flags & SCENIC_CQE_F_IMM);
    EXPECT_EQ(__builtin_bswap32(rc[0].imm_data_be), k);
    EXPECT_EQ(p.b.read_va(Node::kVa, 2000), p.a.read_va(kSrc, 2000));
    EXPECT_EQ(write(kWinVa, 8, k), kWcRemAccessErr);  // invalidated
}

TEST_F(RdmaMw, SendWithInvalidateOfAnInvalidKeyIsAnInvalidRequest) {
    const uint32_t rbuf = p.b.reg_mr(Node::kVa, 65536, kAll);
    p.b.post_recv(kQb, {sge(Node::kVa, 4096, rbuf)});
    scenic_sq_wqe s = make_wqe(SCENIC_WQE_OP_SEND_INV, {sge(kSrc, 100, a_key)});
    s.rkey = b_mr;  // an MR: no fast-register MRs, so never invalidated
    EXPECT_EQ(op(s), kWcRemInvReqErr);
    for (const scenic_cqe& c : p.b.poll(1)) {
        EXPECT_NE(c.status, kWcSuccess);  // the receive never completed successfully
    }
}

TEST_F(RdmaMw, LocalInvalidateOfAType1WindowFails) {
    ASSERT_EQ(alloc_mw(p.b, mw_key(10, 1), Node::kPd, 1), kStOk);
    p.b.post_send(kQb, key_wqe(SCENIC_WQE_OP_LOCAL_INV, mw_key(10, 1)));
    ASSERT_TRUE(p.run());
    const auto cqes = p.b.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, kWcLocQpOpErr);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_LOCAL_INV);
}

TEST_F(RdmaMw, Type1StartsEmptyBindsRebindsAndUnbinds) {
    const uint32_t k0 = mw_key(11, 1);
    ASSERT_EQ(alloc_mw(p.b, k0, Node::kPd, 1), kStOk);
    // Valid from ALLOC_MW on, but with length 0: only zero-length accesses pass.
    ASSERT_EQ(write(kWinVa, 0, k0), kWcSuccess);
    EXPECT_EQ(write(kWinVa, 8, k0), kWcRemAccessErr);

    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 1 << 20, kAll);
    const uint32_t bm = q.b.reg_mr(kMrVa, kMrLen, kAll | kAccessMwBind);
    q.a.fill_va(kSrc, 4096, 0x5);
    ASSERT_EQ(alloc_mw(q.b, k0, Node::kPd, 1), kStOk);
    const uint32_t k1 = mw_key(11, 2);
    q.b.post_send(kQb, bind_wqe(k1, kWinVa, 1024, bm, kRemote, 1));
    ASSERT_TRUE(q.run());
    ASSERT_EQ(q.b.sq_completed(kQb), 1u);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 1024, ak)}, kWinVa, k1));
    ASSERT_TRUE(q.run());
    ASSERT_EQ(q.a.sq_completed(kQa), 1u);
    EXPECT_EQ(q.b.read_va(kWinVa, 1024), q.a.read_va(kSrc, 1024));
    // A type 1 window may be bound again while bound (the tag moves), then unbound (length 0).
    const uint32_t k2 = mw_key(11, 3);
    q.b.post_send(kQb, bind_wqe(k2, kMrVa, 64, bm, kAccessRemoteRead, 1));
    ASSERT_TRUE(q.run());
    ASSERT_EQ(q.b.sq_completed(kQb), 2u);
    EXPECT_EQ(q.b.cmd(kOpDeregMr, {bm}), kStBusy);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc + 8192, 64, ak)}, kMrVa, k2));
    ASSERT_TRUE(q.run());
    ASSERT_EQ(q.a.sq_completed(kQa), 2u);
    EXPECT_EQ(q.a.read_va(kSrc + 8192, 64), q.b.read_va(kMrVa, 64));
    const uint32_t k3 = mw_key(11, 4);
    q.b.post_send(kQb, bind_wqe(k3, 0, 0, 0, 0, 1));
    ASSERT_TRUE(q.run());
    ASSERT_EQ(q.b.sq_completed(kQb), 3u);
    EXPECT_EQ(q.b.cmd(kOpDeregMr, {bm}), kStOk);  // unbinding released the MR
    // The previous key is stale.
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kSrc + 8192, 64, ak)}, kMrVa, k2));
    ASSERT_TRUE(q.run());
    const auto cqes = q.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, kWcRemAccessErr);
}

TEST_F(RdmaMw, AWindowKeyIsNeverAnLkey) {
    ASSERT_EQ(alloc_mw(p.a, mw_key(12, 1), Node::kPd, 1), kStOk);
    const uint32_t am = p.a.reg_mr(Node::kVa + (2 << 20), 4096, kAll | kAccessMwBind);
    p.a.post_send(kQa, bind_wqe(mw_key(12, 2), Node::kVa + (2 << 20), 4096, am, kRemote, 1));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQa), 1u);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 65536, kAll);
    EXPECT_EQ(op(make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa + (2 << 20), 8, mw_key(12, 2))},
                          Node::kVa, bk)),
              kWcLocProtErr);
}

TEST_F(RdmaMw, Type2WindowServesOnlyItsQp) {
    // A second QP pair between the same cards, same PD: the window bound through kQb does not
    // answer requests arriving on kQb + 10.
    p.a.create_qp(kQa + 10, 0, 1);
    p.b.create_qp(kQb + 10, 0, 1);
    QpAttrs at;
    QpAttrs bt;
    bt.sq_psn = at.rq_psn;
    bt.rq_psn = at.sq_psn;
    p.a.connect(kQa + 10, p.b, kQb + 10, at, bt);
    p.b.connect(kQb + 10, p.a, kQa + 10, bt, at);
    const uint32_t k = mw_key(13, 2);
    ASSERT_EQ(alloc_mw(p.b, mw_key(13, 1), Node::kPd, 2), kStOk);
    ASSERT_TRUE(bind_on_b(k, kWinVa, kWinLen, kRemote, 2));
    p.a.post_send(kQa + 10, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 8, a_key)}, kWinVa, k));
    ASSERT_TRUE(p.run());
    const auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, kWcRemAccessErr);
    EXPECT_EQ(write(kWinVa, 8, k), kWcSuccess);  // through its own QP it works
}

TEST_F(RdmaMw, BindAfterAWriteCompletesInSqOrder) {
    // A WRITE then a BIND in one post: the status-page counter reaches 2 only when both did.
    ASSERT_EQ(alloc_mw(p.b, mw_key(14, 1), Node::kPd, 2), kStOk);
    const uint32_t ak = p.b.reg_mr(Node::kVa, 65536, kAll);
    const uint32_t ar = p.a.reg_mr(Node::kVa + (3 << 20), 65536, kAll);
    (void)ar;
    p.b.post_sends(
        kQb, {make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 4096, ak)}, Node::kVa + (3 << 20), ar),
              bind_wqe(mw_key(14, 2), kWinVa, 64, b_mr, kRemote, 2)});
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.sq_completed(kQb), 2u);
    EXPECT_TRUE(p.b.poll(0).empty());
    EXPECT_EQ(write(kWinVa, 64, mw_key(14, 2)), kWcSuccess);
}

TEST_F(RdmaMw, BindAndLocalInvAfterAReadAndAnAtomicComplete) {
    // A READ (and a FAA) completes with its response, not with an ACK: the memory-window WQEs
    // behind it must complete then, with no further traffic.
    ASSERT_EQ(alloc_mw(p.b, mw_key(15, 1), Node::kPd, 2), kStOk);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 65536, kAll);
    const uint32_t ar = p.a.reg_mr(Node::kVa + (3 << 20), 65536, kAll);
    p.b.post_sends(
        kQb, {make_wqe(SCENIC_WQE_OP_READ, {sge(Node::kVa, 4096, bk)}, Node::kVa + (3 << 20), ar),
              bind_wqe(mw_key(15, 2), kWinVa, 64, b_mr, kRemote, 2)});
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.sq_completed(kQb), 2u);
    EXPECT_EQ(p.b.read_va(Node::kVa, 4096), p.a.read_va(Node::kVa + (3 << 20), 4096));
    scenic_sq_wqe faa =
        make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(Node::kVa, 8, bk)}, Node::kVa + (3 << 20), ar);
    faa.compare_add = 1;
    p.b.post_sends(kQb, {faa, key_wqe(SCENIC_WQE_OP_LOCAL_INV, mw_key(15, 2))});
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.sq_completed(kQb), 4u);
    EXPECT_TRUE(p.b.poll(0).empty());
    EXPECT_EQ(write(kWinVa, 8, mw_key(15, 2)), kWcRemAccessErr);  // the LOCAL_INV ran
}

}  // namespace
}  // namespace scenic::test
