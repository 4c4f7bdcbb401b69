// SPDX-License-Identifier: MIT
// RESIZE_CQ (docs/verbs-completeness.md 5.2): the RESIZE CQE at the old ring's producer index,
// every later CQE in the new ring from index 0, none lost or duplicated, with receives landing
// on both sides of the RESIZE CQE while SENDs are on the wire; wrapped rings; the new CI record;
// and every refusal leaving the CQ as it was.
#include <gtest/gtest.h>

#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace rr = regs::rdma;
constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint32_t kRecvCq = 1;
constexpr uint32_t kSlot = 256;  // receive buffer i at Node::kVa + i * kSlot
constexpr uint64_t kSrc = Node::kVa + 512 * 1024;

uint32_t st_of(admin::AqStatus s) { return static_cast<uint32_t>(s); }

class CqResize : public ::testing::Test {
  protected:
    // B's receive CQ has 2^cq_log2 slots.
    void start(unsigned cq_log2) {
        p.setup(kQa, kQb, {}, cq_log2);
        a_key = p.a.reg_mr(Node::kVa, 1024 * 1024, kAll);
        b_key = p.b.reg_mr(Node::kVa, 1024 * 1024, kAll);
    }
    // SEND i carries 1 + i % 200 bytes of pattern i and immediate 0x1000 + i; B receives it in
    // buffer i.
    void post(uint32_t first, uint32_t count) {
        for (uint32_t i = first; i < first + count; ++i) {
            const uint32_t len = 1 + i % 200;
            p.b.post_recv(kQb, {sge(Node::kVa + uint64_t{i} * kSlot, kSlot, b_key)});
            p.a.fill_va(kSrc + uint64_t{i} * kSlot, len, static_cast<uint8_t>(i));
            auto w =
                make_wqe(SCENIC_WQE_OP_SEND_IMM, {sge(kSrc + uint64_t{i} * kSlot, len, a_key)});
            w.imm_data_be = 0x1000 + i;
            p.a.post_send(kQa, w);
        }
    }
    // Checks that cqes are the receives first .. first + count - 1, in order, with their data.
    void check(const std::vector<scenic_cqe>& cqes, uint32_t first, uint32_t count) {
        ASSERT_EQ(cqes.size(), count);
        for (uint32_t k = 0; k < count; ++k) {
            const uint32_t i = first + k;
            const uint32_t len = 1 + i % 200;
            EXPECT_EQ(cqes[k].opcode, SCENIC_CQE_OP_RECV) << i;
            EXPECT_EQ(cqes[k].status, rdma::kWcSuccess) << i;
            EXPECT_EQ(cqes[k].wqe_idx, i);
            EXPECT_EQ(cqes[k].imm_data_be, 0x1000 + i);
            EXPECT_EQ(cqes[k].byte_len, len);
            EXPECT_EQ(p.b.read_va(Node::kVa + uint64_t{i} * kSlot, len),
                      p.a.read_va(kSrc + uint64_t{i} * kSlot, len))
                << i;
        }
    }
    // Splits a poll at the RESIZE CQE: the CQEs before it, which must be receives.
    static std::vector<scenic_cqe> before_resize(const std::vector<scenic_cqe>& all,
                                                 uint32_t new_entries, size_t& after_at) {
        std::vector<scenic_cqe> out;
        after_at = all.size();
        for (size_t k = 0; k < all.size(); ++k) {
            if (all[k].opcode == SCENIC_CQE_OP_RESIZE) {
                EXPECT_EQ(all[k].byte_len, new_entries);
                EXPECT_EQ(all[k].status, rdma::kWcSuccess);
                EXPECT_EQ(all[k].flags & SCENIC_CQE_F_SQ, 0);
                after_at = k + 1;
                break;
            }
            out.push_back(all[k]);
        }
        return out;
    }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

TEST_F(CqResize, ReceivesOnBothSidesOfTheResizeCqeWhileSendsAreOnTheWire) {
    start(5);  // 32 slots
    constexpr uint32_t kTotal = 60;
    constexpr uint32_t kAt = 9;  // the resize comes after this many SENDs reached B
    uint32_t delivered = 0;
    uint32_t resize_status = 99;
    uint64_t old_base = p.b.cq_ring(kRecvCq).base;
    p.after = [&](RdmaPair::Dir dir, const roce::ParsedPacket&) {
        if (dir == RdmaPair::Dir::kAtoB && ++delivered == kAt) {
            resize_status = p.b.resize_cq(kRecvCq, 7);  // 128 slots
        }
    };
    post(0, kTotal);
    ASSERT_TRUE(p.run());
    ASSERT_EQ(resize_status, 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), kTotal);
    const auto all = p.b.poll(kRecvCq);
    size_t after_at = 0;
    const auto old_side = before_resize(all, 128, after_at);
    ASSERT_LT(after_at, all.size() + 1);
    EXPECT_EQ(old_side.size(), kAt);  // each SEND is one packet: one CQE each
    check(old_side, 0, static_cast<uint32_t>(old_side.size()));
    const std::vector<scenic_cqe> new_side(all.begin() + static_cast<ptrdiff_t>(after_at),
                                           all.end());
    check(new_side, static_cast<uint32_t>(old_side.size()),
          kTotal - static_cast<uint32_t>(old_side.size()));
    // The new ring from index 0 with phase 1, and nothing after the RESIZE CQE in the old ring.
    const Node::CqRing& now = p.b.cq_ring(kRecvCq);
    EXPECT_NE(now.base, old_base);
    EXPECT_EQ(now.ci, kTotal - kAt);
    const auto first_new = p.b.load<scenic_cqe>(now.base);
    EXPECT_EQ(first_new.wqe_idx, kAt);
    EXPECT_EQ(first_new.flags & SCENIC_CQE_F_OWNER, SCENIC_CQE_F_OWNER);
    for (uint32_t s = kAt + 1; s < 32; ++s) {
        EXPECT_EQ(p.b.load<scenic_cqe>(old_base + uint64_t{s} * SCENIC_CQE_BYTES).flags, 0)
            << "old slot " << s;
    }
    EXPECT_EQ(p.b.r(rr::kCqOverruns), 0u);
}

TEST_F(CqResize, WrappedOldRingAndWrappingNewRingUseTheNewRecord) {
    start(2);  // 4 slots
    // 6 receives, consumed 3 at a time: the old ring is on its second pass (phase 0).
    for (uint32_t i = 0; i < 6; i += 3) {
        post(i, 3);
        ASSERT_TRUE(p.run());
        check(p.b.poll(kRecvCq), i, 3);
    }
    post(6, 1);  // one not consumed yet, in slot 2
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.b.resize_cq(kRecvCq, 2), 0u);  // 4 slots again, in a new ring
    // The RESIZE CQE in slot 3, still the second pass: owner 0.
    const uint64_t old_base = p.b.cq_ring(kRecvCq).base;
    EXPECT_EQ(p.b.load<scenic_cqe>(old_base + 3 * SCENIC_CQE_BYTES).opcode, SCENIC_CQE_OP_RESIZE);
    EXPECT_EQ(p.b.load<scenic_cqe>(old_base + 3 * SCENIC_CQE_BYTES).flags & SCENIC_CQE_F_OWNER, 0);
    // 4 more fill the new ring before anything is polled; then polls of 3 wrap it twice. The
    // card learns the consumer index only from the new record, so no overrun means it read it.
    post(7, 4);
    ASSERT_TRUE(p.run());
    auto all = p.b.poll(kRecvCq);
    size_t after_at = 0;
    check(before_resize(all, 4, after_at), 6, 1);
    check({all.begin() + static_cast<ptrdiff_t>(after_at), all.end()}, 7, 4);
    for (uint32_t i = 11; i < 23; i += 3) {
        post(i, 3);
        ASSERT_TRUE(p.run());
        check(p.b.poll(kRecvCq), i, 3);
    }
    EXPECT_EQ(p.b.r(rr::kCqOverruns), 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 23u);
}

TEST_F(CqResize, TwoResizesBeforeTheConsumerLooks) {
    start(4);
    post(0, 3);
    ASSERT_TRUE(p.run());
    const uint64_t first = p.b.cq_ring(kRecvCq).base;
    ASSERT_EQ(p.b.resize_cq(kRecvCq, 3), 0u);  // the middle ring: 8 slots
    post(3, 2);
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.b.resize_cq(kRecvCq, 5), 0u);  // the last: 32 slots
    post(5, 4);
    ASSERT_TRUE(p.run());
    // One poll follows both RESIZE CQEs: 3, RESIZE(8), 2, RESIZE(32), 4.
    const auto all = p.b.poll(kRecvCq);
    size_t at = 0;
    check(before_resize(all, 8, at), 0, 3);
    const std::vector<scenic_cqe> mid_and_last(all.begin() + static_cast<ptrdiff_t>(at), all.end());
    check(before_resize(mid_and_last, 32, at), 3, 2);
    check({mid_and_last.begin() + static_cast<ptrdiff_t>(at), mid_and_last.end()}, 5, 4);
    EXPECT_NE(first, p.b.cq_ring(kRecvCq).base);
    EXPECT_EQ(p.b.cq_ring(kRecvCq).log2, 5u);
    EXPECT_EQ(p.b.cq_ring(kRecvCq).ci, 4u);
}

TEST_F(CqResize, RefusalsChangeNothing) {
    start(4);  // 16 slots
    using S = admin::AqStatus;
    post(0, 10);
    ASSERT_TRUE(p.run());  // 10 outstanding
    Node& b = p.b;
    const uint64_t ring = b.alloc(4096);
    EXPECT_EQ(b.resize_cq(rr::kMaxCqDefault, 5, ring), st_of(S::kBadIndex));
    EXPECT_EQ(b.resize_cq(7, 5, ring), st_of(S::kNotFound));
    EXPECT_EQ(b.resize_cq(kRecvCq, 17, ring), st_of(S::kBadArg));
    EXPECT_EQ(b.resize_cq(kRecvCq, 5, ring + 16), st_of(S::kBadArg));              // unaligned
    EXPECT_EQ(b.resize_cq(kRecvCq, 5, ring, ring + 4096 + 4), st_of(S::kBadArg));  // record
    EXPECT_EQ(b.resize_cq(kRecvCq, 3, ring), st_of(S::kBadArg));  // 8 < 10 outstanding
    EXPECT_EQ(b.last_syndrome, field_offset(admin::kAqResizeCqFields, "log2_entries"));
    // A ring or a record in one of the card's BARs.
    b.host.bars = {{0xfe00'0000, 0x10'0000}, {0xf000'0000, 0x100'0000}};
    EXPECT_EQ(b.resize_cq(kRecvCq, 5, 0xfe00'0000 + 0x1000), st_of(S::kBadArg));
    EXPECT_EQ(b.last_syndrome, field_offset(admin::kAqResizeCqFields, "ring_addr"));
    EXPECT_EQ(b.resize_cq(kRecvCq, 8, 0xefff'f000), st_of(S::kBadArg));  // 8 KiB: into the BAR
    EXPECT_EQ(b.resize_cq(kRecvCq, 5, ring, 0xf000'0040), st_of(S::kBadArg));
    EXPECT_EQ(b.last_syndrome, field_offset(admin::kAqResizeCqFields, "dbrec_addr"));
    b.host.bars.clear();
    // 16 outstanding: no slot for the RESIZE CQE.
    post(10, 6);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(b.resize_cq(kRecvCq, 6, ring), st_of(S::kBusy));
    // Nothing changed: the 16 are in the old ring, no RESIZE CQE anywhere.
    const auto cqes = b.poll(kRecvCq);
    check(cqes, 0, 16);
    EXPECT_EQ(b.load<scenic_cqe>(ring).flags, 0);
    // The CQ goes on in the old ring.
    post(16, 2);
    ASSERT_TRUE(p.run());
    check(b.poll(kRecvCq), 16, 2);
}

TEST_F(CqResize, OverrunCqIsRefused) {
    start(2);    // 4 slots
    post(0, 5);  // the fifth overruns the CQ
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.r(rr::kCqOverruns), 1u);
    EXPECT_EQ(p.b.resize_cq(kRecvCq, 6), st_of(admin::AqStatus::kBadState));
}

TEST_F(CqResize, ArmedCqNotifiesForTheNewRing) {
    start(4);
    post(0, 2);
    ASSERT_TRUE(p.run());
    check(p.b.poll(kRecvCq), 0, 2);
    p.b.arm(kRecvCq);
    const size_t before = p.b.count_events(kEvCq);
    ASSERT_EQ(p.b.resize_cq(kRecvCq, 5), 0u);
    p.b.service_events();
    EXPECT_EQ(p.b.count_events(kEvCq), before);  // the RESIZE CQE is no completion
    post(2, 1);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.count_events(kEvCq), before + 1);  // the arm survived the resize
    auto all = p.b.poll(kRecvCq);
    size_t after_at = 0;
    EXPECT_TRUE(before_resize(all, 32, after_at).empty());
    check({all.begin() + static_cast<ptrdiff_t>(after_at), all.end()}, 2, 1);
}

}  // namespace
}  // namespace scenic::test
