// SPDX-License-Identifier: MIT
// A hostile guest and a hostile wire: random mailbox commands, random doorbells, WQEs full of
// random bytes, rings at bad addresses, corrupted and random frames. The model must neither
// crash nor loop: every run of the pump is bounded and must come back idle.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

TEST(RdmaFuzz, RandomMailboxDoorbellsWqesAndFrames) {
    std::mt19937_64 rng(1234);
    auto rnd = [&](uint64_t n) { return n == 0 ? 0 : rng() % n; };
    for (int round = 0; round < 12; ++round) {
        RdmaPair p;
        p.setup();
        const uint32_t all = 0xf;
        const uint32_t ak = p.a.reg_mr(Node::kVa, 1 << 20, all);
        const uint32_t bk = p.b.reg_mr(Node::kVa, 1 << 20, all);
        std::vector<std::vector<uint8_t>> captured;
        p.drop = [&](RdmaPair::Dir, const roce::ParsedPacket&) { return rnd(20) == 0; };
        for (int step = 0; step < 300; ++step) {
            Node& n = rnd(2) ? p.a : p.b;
            switch (rnd(8)) {
                case 0: {  // random command with random (or plausible) arguments
                    std::vector<uint32_t> args(24);
                    for (auto& a : args) {
                        a = rnd(3) == 0 ? static_cast<uint32_t>(rng())
                                        : static_cast<uint32_t>(rnd(600));
                    }
                    n.cmd(static_cast<uint32_t>(rnd(12)), args);
                    break;
                }
                case 1:  // random doorbell anywhere in the BAR, any size
                    n.dev.db_write(rnd(Device::db_size() + 8192), rng(),
                                   static_cast<unsigned>(1u << rnd(4)));
                    break;
                case 2: {  // a WQE of random bytes (sometimes a valid opcode and keys)
                    scenic_sq_wqe w{};
                    auto* raw = reinterpret_cast<uint8_t*>(&w);
                    for (size_t i = 0; i < sizeof w; ++i) raw[i] = static_cast<uint8_t>(rng());
                    if (rnd(2)) {
                        w.opcode = static_cast<uint8_t>(rnd(7));
                        w.num_sge = static_cast<uint16_t>(rnd(3));
                        w.flags &= ~SCENIC_WQE_F_INLINE;
                        w.length = 0;
                        for (unsigned i = 0; i < w.num_sge; ++i) {
                            w.sge[i] =
                                sge(Node::kVa + rnd(1 << 20), static_cast<uint32_t>(rnd(20000)),
                                    rnd(4) ? (&n == &p.a ? ak : bk) : static_cast<uint32_t>(rng()));
                            w.length += w.sge[i].length;
                        }
                        w.rkey = rnd(4) ? (&n == &p.a ? bk : ak) : static_cast<uint32_t>(rng());
                        w.remote_addr = Node::kVa + rnd(1 << 21);
                    }
                    n.post_send(&n == &p.a ? 2 : 3, w);
                    break;
                }
                case 3:
                    n.post_recv(&n == &p.a ? 2 : 3,
                                {sge(Node::kVa + rnd(1 << 20), static_cast<uint32_t>(rnd(9000)),
                                     &n == &p.a ? ak : bk)});
                    break;
                case 4: {  // a corrupted copy of a frame the engine sent, or random bytes
                    std::vector<uint8_t> f;
                    if (!p.a.host.wire.empty() && rnd(2)) {
                        f = p.a.host.wire.front();
                        for (int k = 0; k < 3; ++k)
                            f[rnd(f.size())] ^= static_cast<uint8_t>(1 + rnd(255));
                    } else {
                        f.resize(rnd(200));
                        for (auto& b : f) b = static_cast<uint8_t>(rng());
                    }
                    n.dev.eth_rx(f);
                    break;
                }
                case 5: {  // random register writes in the RDMA block
                    n.w(static_cast<uint32_t>(rnd(0x200) & ~3u), static_cast<uint32_t>(rng()));
                    n.w(regs::rdma::kCtrl, 1);
                    break;
                }
                case 6:
                    ASSERT_TRUE(p.run(20'000'000'000, 200'000)) << "not idle, round " << round;
                    p.a.poll(0);
                    p.a.poll(1);
                    p.b.poll(0);
                    p.b.poll(1);
                    break;
                default:
                    n.service_events();  // the guest drains its event queues
                    break;
            }
        }
        // Whatever state the guest left behind, the cards go idle.
        ASSERT_TRUE(p.run(20'000'000'000, 200'000)) << "not idle at the end, round " << round;
    }
}

TEST(RdmaFuzz, RingsAtBadAddressesAndHugeLengths) {
    RdmaPair p;
    p.setup();
    const uint32_t ak = p.a.reg_mr(Node::kVa, 4096, 0xf);
    // A CQ and a QP whose rings are not host memory at all: DMA fails, nothing crashes.
    ASSERT_EQ(p.a.cmd(kOpCreateCq, {9, 0x1000, 0xdead, 4}), 0u);
    ASSERT_EQ(p.a.cmd(kOpCreateQp, {7, 0, 0x7777, 5, 0, 0x7777, 5, 9, 9, 7, 0, 0x40, 0x7777}), 0u);
    ASSERT_EQ(p.a.set_state(7, kQpsInit), 0u);
    ASSERT_EQ(p.a.modify(7, kAttrState, {kQpsRtr}), 0u);
    ASSERT_EQ(p.a.modify(7, kAttrState, {kQpsRts}), 0u);
    p.a.db(7 * 4096 + SCENIC_DB_SQ, 31);
    p.a.db(7 * 4096 + SCENIC_DB_RQ, 31);
    // A WQE claiming 2 GiB through one SGE, and one whose SGEs do not add up.
    auto w = make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 0x80000000u, ak)}, Node::kVa, 1);
    p.a.post_send(2, w);
    w.length = 5;
    p.a.post_send(2, w);
    ASSERT_TRUE(p.run());
    EXPECT_GT(p.a.host.dma_faults, 0u);
    const auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 2u);
    EXPECT_EQ(cqes[0].status, rdma::kWcLocProtErr);  // beyond the MR: local protection error
    EXPECT_EQ(cqes[1].status, rdma::kWcFlushErr);
}

}  // namespace
}  // namespace scenic::test
