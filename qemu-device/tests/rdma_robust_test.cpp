// SPDX-License-Identifier: MIT
// Robustness (issue 6): WRITE, READ and SEND streams on a wire that drops 5%, duplicates 1% and
// reorders 1% of the RoCE frames each card receives (the fault-injecting wire, as the VM lane
// rdma-robust runs it) complete with intact data and no hang, and the requester's resend point
// never runs ahead of what it has sent.
#include <gtest/gtest.h>

#include <string>

#include "rdma_rig.hpp"
#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::test {
namespace {

constexpr uint32_t kMsgs = 96;
constexpr uint32_t kLen = 65536;

class RdmaRobust : public ::testing::TestWithParam<uint8_t> {};

TEST_P(RdmaRobust, StreamUnderDropDupReorderCompletesIntact) {
    for (const uint64_t seed : {1, 2, 3, 4}) {
        SCOPED_TRACE(seed);
        const std::string f = "rx:drop:ppm=50000;rx:dup:ppm=10000;rx:reorder:ppm=10000";
        RdmaPair p(0, seed, 0, f, f);
        QpAttrs at;
        at.timeout = 14;  // perftest's
        p.setup(2, 3, at);
        const uint32_t ak = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        const uint32_t bk = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
        const uint8_t op = GetParam();
        Node& src = op == SCENIC_WQE_OP_READ ? p.b : p.a;
        Node& dst = op == SCENIC_WQE_OP_READ ? p.a : p.b;
        bool ahead = false;
        p.after = [&](RdmaPair::Dir, const roce::ParsedPacket&) {
            const auto& r = p.a.dev.rdma().engine().qp(2)->req;
            ahead = ahead || roce::psn_diff(r.tx_psn, r.max_sent) > 0;
        };
        // Eight messages outstanding at a time, as perftest keeps its queue full.
        for (uint32_t g = 0; g < kMsgs / 8; ++g) {
            for (uint32_t k = 0; k < 8; ++k) {
                const uint64_t s = Node::kVa + k * kLen;
                const uint64_t d = Node::kVa + 0x80000 + k * kLen;
                src.fill_va(op == SCENIC_WQE_OP_READ ? d : s, kLen,
                            static_cast<uint8_t>(g * 8 + k));
                if (op == SCENIC_WQE_OP_SEND) {
                    p.b.post_recv(3, {sge(d, kLen, bk)});
                    p.a.post_send(2, make_wqe(op, {sge(s, kLen, ak)}));
                } else {
                    p.a.post_send(2, make_wqe(op, {sge(s, kLen, ak)}, d, bk));
                }
            }
            ASSERT_TRUE(p.run(60'000'000'000ull)) << "group " << g;
            ASSERT_EQ(p.a.sq_completed(2), (g + 1) * 8) << "group " << g << " did not complete";
            for (uint32_t k = 0; k < 8; ++k) {
                const uint64_t s = Node::kVa + k * kLen;
                const uint64_t d = Node::kVa + 0x80000 + k * kLen;
                const uint64_t from = op == SCENIC_WQE_OP_READ ? d : s;
                const uint64_t to = op == SCENIC_WQE_OP_READ ? s : d;
                ASSERT_EQ(dst.read_va(to, kLen), src.read_va(from, kLen))
                    << "group " << g << " " << k;
            }
        }
        EXPECT_FALSE(ahead);
        EXPECT_GT(p.a.r(regs::rdma::kWireDrops) + p.b.r(regs::rdma::kWireDrops), 0u);
        EXPECT_GT(p.a.r(regs::rdma::kWireDups) + p.b.r(regs::rdma::kWireDups), 0u);
        EXPECT_GT(p.a.r(regs::rdma::kWireReorders) + p.b.r(regs::rdma::kWireReorders), 0u);
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, RdmaRobust,
                         ::testing::Values(uint8_t{SCENIC_WQE_OP_WRITE},
                                           uint8_t{SCENIC_WQE_OP_READ},
                                           uint8_t{SCENIC_WQE_OP_SEND}),
                         [](const auto& info) {
                             switch (info.param) {
                                 case SCENIC_WQE_OP_WRITE:
                                     return std::string("Write");
                                 case SCENIC_WQE_OP_READ:
                                     return std::string("Read");
                                 default:
                                     return std::string("Send");
                             }
                         });

}  // namespace
}  // namespace scenic::test
