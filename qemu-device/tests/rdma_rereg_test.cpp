// SPDX-License-Identifier: MIT
// REREG_MR (docs/verbs-completeness.md 5.3): a translation change in the middle of a stream of
// remote READs and WRITEs (no old page touched once the command completed, the new pages read
// and written), PD and access changes under the same key, and the refusals.
#include <gtest/gtest.h>

#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint32_t kPages = 4;
constexpr uint32_t kLen = 512;                    // one packet per READ or WRITE (MTU 1024)
constexpr uint64_t kWin = Node::kVa + 64 * 1024;  // B's MR: kPages pages at this iova
constexpr uint64_t kLocal = Node::kVa;            // A's buffers

uint32_t st_of(admin::AqStatus s) { return static_cast<uint32_t>(s); }

// A REREG_MR entry; fields the mask leaves out stay 0.
Sqe rereg_entry(uint32_t key, bool trans, uint64_t iova, uint64_t len, bool pd, uint32_t pdn,
                bool acc, uint32_t access) {
    Sqe e{};
    const std::span<uint8_t, kAqSqeBytes> sp(e);
    admin::AqSqeHdr<>(sp.first<8>()).set_opcode(static_cast<uint8_t>(admin::AqOpcode::kReregMr));
    const admin::AqReregMr<> v(sp);
    v.set_key(key);
    v.set_translation(trans ? 1 : 0);
    v.set_iova(iova);
    v.set_length(len);
    v.set_pd(pd ? 1 : 0);
    v.set_pdn(pdn);
    v.set_access_change(acc ? 1 : 0);
    v.set_access(access);
    return e;
}

class Rereg : public ::testing::Test {
  protected:
    void SetUp() override {
        p.setup(kQa, kQb);
        a_key = p.a.reg_mr(kLocal, 64 * 1024, kAll);
        b_key = p.b.reg_mr(kWin, kPages * 4096, kAll);  // old pages: va_to_bus(kWin + i)
        for (uint32_t i = 0; i < kPages; ++i) {
            old_pages.push_back(Node::va_to_bus(kWin + uint64_t{i} * 4096));
            new_pages.push_back(p.b.alloc(4096));  // in the ring area: never an old page
        }
    }
    uint32_t rereg(Node& n, const Sqe& e) {
        const CmdResult r = n.aq.exec(e);
        n.last_syndrome = r.syndrome;
        return st(r.status);
    }
    // The new translation of B's MR: the same iova, kPages other pages.
    void fill_new() {
        for (uint32_t i = 0; i < kPages; ++i) {
            const uint64_t page = kWin + uint64_t{i} * 4096;
            ASSERT_EQ(p.b.cmd(kOpTlbFill, {b_key, Node::lo(page), Node::hi(page),
                                           Node::lo(new_pages[i]), Node::hi(new_pages[i])}),
                      0u);
        }
    }
    bool touches(const std::vector<uint64_t>& pages, uint64_t addr, size_t len) const {
        for (const uint64_t pg : pages) {
            if (addr < pg + 4096 && addr + len > pg) {
                return true;
            }
        }
        return false;
    }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
    std::vector<uint64_t> old_pages;
    std::vector<uint64_t> new_pages;
};

TEST_F(Rereg, TranslationChangeDuringReadsAndWritesNeverTouchesAnOldPageAfterwards) {
    constexpr uint32_t kOps = 32;  // alternating READ and WRITE, op i at window offset i * kLen
    for (uint32_t i = 0; i < kPages; ++i) {
        std::memset(p.b.bus(old_pages[i]), 0x0d, 4096);
        std::memset(p.b.bus(new_pages[i]), 0x4e, 4096);
    }
    p.a.fill_va(kLocal, kOps * kLen, 0x21);  // what the WRITEs send
    bool done = false;
    uint32_t delivered = 0;
    size_t old_after = 0;  // DMAs to old pages after the completion
    p.b.host.on_dma = [&](uint64_t addr, size_t len, bool) {
        if (done && touches(old_pages, addr, len)) {
            ++old_after;
        }
    };
    p.after = [&](RdmaPair::Dir dir, const roce::ParsedPacket&) {
        if (dir == RdmaPair::Dir::kAtoB && ++delivered == 10 && !done) {
            EXPECT_EQ(rereg(p.b, rereg_entry(b_key, true, kWin, kPages * 4096, false, 0, false, 0)),
                      0u);
            done = true;  // from here on, no old page may be touched
            fill_new();
        }
    };
    for (uint32_t i = 0; i < kOps; ++i) {
        const uint64_t local = kLocal + 32 * 1024 + uint64_t{i} * kLen;
        if (i % 2 == 0) {
            p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(local, kLen, a_key)},
                                        kWin + uint64_t{i} * kLen, b_key));
        } else {
            p.a.post_send(
                kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kLocal + uint64_t{i} * kLen, kLen, a_key)},
                              kWin + uint64_t{i} * kLen, b_key));
        }
    }
    ASSERT_TRUE(p.run());
    ASSERT_TRUE(done);
    EXPECT_EQ(p.a.sq_completed(kQa), kOps);
    EXPECT_TRUE(p.a.poll(0).empty());  // every access succeeded
    EXPECT_EQ(old_after, 0u);
    // Each READ returned old bytes (served before) or new bytes (after), never a mix; at least
    // one of each. Each WRITE landed in the old pages (before) or the new ones (after).
    uint32_t reads_old = 0, reads_new = 0, writes_old = 0, writes_new = 0;
    for (uint32_t i = 0; i < kOps; ++i) {
        const uint64_t off = uint64_t{i} * kLen;
        const uint64_t old_bus = old_pages[off / 4096] + off % 4096;
        const uint64_t new_bus = new_pages[off / 4096] + off % 4096;
        if (i % 2 == 0) {
            const auto got = p.a.read_va(kLocal + 32 * 1024 + off, kLen);
            const bool all_old = std::ranges::all_of(got, [](uint8_t c) { return c == 0x0d; });
            const bool all_new = std::ranges::all_of(got, [](uint8_t c) { return c == 0x4e; });
            EXPECT_TRUE(all_old || all_new) << "READ " << i;
            reads_old += all_old ? 1 : 0;
            reads_new += all_new ? 1 : 0;
        } else {
            const auto sent = p.a.read_va(kLocal + off, kLen);
            const std::vector<uint8_t> in_old(p.b.bus(old_bus), p.b.bus(old_bus) + kLen);
            const std::vector<uint8_t> in_new(p.b.bus(new_bus), p.b.bus(new_bus) + kLen);
            EXPECT_NE(in_old == sent, in_new == sent) << "WRITE " << i;
            writes_old += in_old == sent ? 1 : 0;
            writes_new += in_new == sent ? 1 : 0;
        }
    }
    EXPECT_GT(reads_old + writes_old, 0u);
    EXPECT_GT(reads_new, 0u);
    EXPECT_GT(writes_new, 0u);
    // Ops are served in order: nothing reached the old pages after one reached the new ones.
    EXPECT_EQ(reads_old + reads_new + writes_old + writes_new, kOps);
}

TEST_F(Rereg, AccessAndPdChangesApplyToTheNextAccess) {
    // Access: remote write taken away, READ still allowed.
    ASSERT_EQ(rereg(p.b, rereg_entry(b_key, false, 0, 0, false, 0, true,
                                     rdma::kAccessLocalWrite | rdma::kAccessRemoteRead)),
              0u);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kLocal, 64, a_key)}, kWin, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kLocal, 64, a_key)}, kWin, b_key));
    ASSERT_TRUE(p.run());
    auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemAccessErr);

    // PD: B's QP is in PD 7, the MR moves to PD 9: even READ is refused; back to 7: allowed.
    RdmaPair q;
    q.setup(kQa, kQb);
    const uint32_t qa_key = q.a.reg_mr(kLocal, 4096, kAll);
    const uint32_t qb_key = q.b.reg_mr(kWin, 4096, kAll);
    ASSERT_EQ(rereg(q.b, rereg_entry(qb_key, false, 0, 0, true, 9, false, 0)), 0u);
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kLocal, 64, qa_key)}, kWin, qb_key));
    ASSERT_TRUE(q.run());
    cqes = q.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemAccessErr);
    EXPECT_EQ(q.b.dev.rdma().engine().mem().find(qb_key)->pdn, 9u);
}

TEST_F(Rereg, RefusalsChangeNothing) {
    using S = admin::AqStatus;
    Node& b = p.b;
    const auto& f = admin::kAqReregMrFields;
    EXPECT_EQ(rereg(b, rereg_entry(rdma::kMaxMr << 8, true, kWin, 4096, false, 0, false, 0)),
              st_of(S::kBadIndex));
    EXPECT_EQ(rereg(b, rereg_entry(b_key ^ 1, true, kWin, 4096, false, 0, false, 0)),
              st_of(S::kNotFound));  // wrong tag
    EXPECT_EQ(rereg(b, rereg_entry(b_key, false, 0, 0, false, 0, false, 0)), st_of(S::kBadArg));
    EXPECT_EQ(rereg(b, rereg_entry(b_key, true, ~0ull - 10, 4096, false, 0, false, 0)),
              st_of(S::kBadArg));
    EXPECT_EQ(b.last_syndrome, field_offset(f, "length"));
    EXPECT_EQ(rereg(b, rereg_entry(b_key, false, kWin, 0, true, 3, false, 0)),
              st_of(S::kMalformed));  // iova without the translation bit
    EXPECT_EQ(b.last_syndrome, field_offset(f, "iova"));
    EXPECT_EQ(rereg(b, rereg_entry(b_key, false, 0, 0, false, 3, true, 1)),
              st_of(S::kMalformed));  // pdn without the pd bit
    // A window bound to the MR: BUSY (the bind count as BIND_MW leaves it; rdma_mw_test binds
    // for real).
    b.dev.rdma().engine().mem().find_index(b_key >> 8)->mw_binds = 1;
    EXPECT_EQ(rereg(b, rereg_entry(b_key, false, 0, 0, true, 3, false, 0)), st_of(S::kBusy));
    b.dev.rdma().engine().mem().find_index(b_key >> 8)->mw_binds = 0;
    const rdma::Mr* mr = b.dev.rdma().engine().mem().find(b_key);
    ASSERT_NE(mr, nullptr);
    EXPECT_EQ(mr->pdn, Node::kPd);
    EXPECT_EQ(mr->iova, kWin);
    EXPECT_EQ(mr->access, kAll);
    // The old translation still works after the refusals.
    p.b.fill_va(kWin, 64, 0x77);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kLocal, 64, a_key)}, kWin, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.read_va(kLocal, 64), p.b.read_va(kWin, 64));
}

}  // namespace
}  // namespace scenic::test
