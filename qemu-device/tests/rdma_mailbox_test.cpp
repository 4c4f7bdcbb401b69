// SPDX-License-Identifier: MIT
// RDMA block registers and command mailbox: identity and limits, every command's refusals
// (bad index, busy, not found, bad argument, bad state, bad op), QUERY_QP, DEREG_MR, RoCE
// steering with CTRL.enable, reset, loss injection, the doorbell BAR through the C API.
#include <gtest/gtest.h>

#include <vector>

#include "eth_rig.hpp"
#include "rdma_rig.hpp"
#include "scenic/model.h"
#include "scenic/rdma_tlb.hpp"

namespace scenic::test {
namespace {

namespace rr = regs::rdma;

TEST(RdmaMailbox, IdentityAndLimits) {
    Node n(1);
    EXPECT_EQ(n.r(regs::kBlkType), rr::kType);
    EXPECT_EQ(n.r(rr::kMaxQp), 512u);
    EXPECT_EQ(n.r(rr::kMaxCq), 512u);
    EXPECT_EQ(n.r(rr::kMaxMr), 4096u);
    EXPECT_EQ(n.r(rr::kTlbEntries), 4096u);
    EXPECT_EQ(n.r(rr::kCtrl), 1u);
    EXPECT_EQ(n.r(rr::kCeqTail), 0u);  // no event yet
    EXPECT_EQ(n.aq.rc(regs::core::kAeqTail), 0u);
    // MAX_QP + MAX_CQ + MAX_SRQ pages (1280), rounded up to a power of 2 as a PCI BAR is.
    EXPECT_EQ(Device::db_size(), uint64_t{2048} * 4096);
}

TEST(RdmaMailbox, CqCommands) {
    Node n(1);
    const uint64_t ring = n.alloc(4096);
    const uint32_t lo = Node::lo(ring);
    const uint32_t hi = Node::hi(ring);
    EXPECT_EQ(n.cmd(kOpCreateCq, {512, lo, hi, 4}), uint32_t{kStBadIndex});
    EXPECT_EQ(n.cmd(kOpCreateCq, {5, lo, hi, 17}), uint32_t{kStBadArg});
    EXPECT_EQ(n.cmd(kOpCreateCq, {5, lo + 4, hi, 4}), uint32_t{kStBadArg});
    EXPECT_EQ(n.cmd(kOpCreateCq, {5, lo, hi, 4}), 0u);
    EXPECT_EQ(n.cmd(kOpCreateCq, {5, lo, hi, 4}), uint32_t{kStBusy});
    EXPECT_EQ(n.cmd(kOpDestroyCq, {6}), uint32_t{kStNotFound});
    EXPECT_EQ(n.cmd(kOpDestroyCq, {600}), uint32_t{kStBadIndex});
    n.create_cq(6, 3);
    n.create_qp(2, 5, 6);
    EXPECT_EQ(n.cmd(kOpDestroyCq, {5}), uint32_t{kStBusy});  // in use
    EXPECT_EQ(n.cmd(kOpDestroyQp, {2}), 0u);
    EXPECT_EQ(n.cmd(kOpDestroyCq, {5}), 0u);
    EXPECT_EQ(n.cmd(0xee, {}), uint32_t{kStBadOpcode});  // 0x60..0x7f is the SCU group
}

TEST(RdmaMailbox, QpCommandsAndStates) {
    Node n(1);
    n.create_cq(0, 4);
    const uint64_t ring = n.alloc(65536);
    const uint64_t st = n.alloc(4096);
    auto create = [&](uint32_t qpn, uint32_t cq) {
        return n.cmd(kOpCreateQp, {qpn, Node::lo(ring), Node::hi(ring), 4, Node::lo(ring),
                                   Node::hi(ring), 4, cq, cq, 1, 9, Node::lo(st), Node::hi(st)});
    };
    EXPECT_EQ(create(0, 0), uint32_t{kStBadIndex});  // reserved
    EXPECT_EQ(create(1, 0), uint32_t{kStBadIndex});
    EXPECT_EQ(create(512, 0), uint32_t{kStBadIndex});
    EXPECT_EQ(create(4, 3), uint32_t{kStNotFound});  // no CQ 3
    EXPECT_EQ(create(4, 0), 0u);
    EXPECT_EQ(create(4, 0), uint32_t{kStBusy});
    EXPECT_EQ(n.cmd(kOpQueryQp, {4}), 0u);
    EXPECT_EQ(n.res(0), uint32_t{kQpsReset});
    EXPECT_EQ(n.res(3), 9u);  // the SCU index
    EXPECT_EQ(n.cmd(kOpQueryQp, {5}), uint32_t{kStNotFound});

    EXPECT_EQ(n.set_state(4, kQpsRts), uint32_t{kStBadState});
    EXPECT_EQ(n.set_state(4, kQpsRtr), uint32_t{kStBadState});
    EXPECT_EQ(n.set_state(4, 7), uint32_t{kStBadArg});
    EXPECT_EQ(n.set_state(4, kQpsInit), 0u);
    EXPECT_EQ(n.modify(4, kAttrState | kAttrPathMtu, {kQpsRtr, 0, 0, 0, 300}), uint32_t{kStBadArg});
    // An unknown attribute bit is a reserved bit of attr_mask (0x0c): MALFORMED, at its byte.
    EXPECT_EQ(n.modify(4, 1u << 20, {}), uint32_t{kStMalformed});
    EXPECT_EQ(n.last_syndrome, 0x0e);
    EXPECT_EQ(n.modify(4, kAttrState | kAttrRqPsn | kAttrPathMtu | kAttrDestQpn,
                       {kQpsRtr, 77, 0, 0xabcdef, 2048}),
              0u);
    EXPECT_EQ(n.modify(4, kAttrState | kAttrSqPsn, {kQpsRts, 0, 0x123456}), 0u);
    EXPECT_EQ(n.cmd(kOpQueryQp, {4}), 0u);
    EXPECT_EQ(n.res(0), uint32_t{kQpsRts});
    EXPECT_EQ(n.res(1), 0x123456u);
    EXPECT_EQ(n.res(2), 0xabcdefu);
    EXPECT_EQ(n.load<uint32_t>(st + 8), uint32_t{kQpsRts});  // status page state
    EXPECT_EQ(n.set_state(4, kQpsSqd), 0u);
    EXPECT_EQ(n.set_state(4, kQpsInit), uint32_t{kStBadState});
    EXPECT_EQ(n.set_state(4, kQpsRts), 0u);
    EXPECT_EQ(n.set_state(4, kQpsErr), 0u);
    EXPECT_EQ(n.set_state(4, kQpsRts), uint32_t{kStBadState});
    EXPECT_EQ(n.set_state(4, kQpsReset), 0u);
    EXPECT_EQ(n.cmd(kOpDestroyQp, {4}), 0u);
    EXPECT_EQ(n.cmd(kOpDestroyQp, {4}), uint32_t{kStNotFound});
}

TEST(RdmaMailbox, MrAndTlbCommands) {
    Node n(1);
    const uint32_t key = (7u << 8) | 3;
    EXPECT_EQ(n.cmd(kOpRegMr, {4096u << 8, 1, 0, 0, 4096, 0, 0}), uint32_t{kStBadIndex});
    EXPECT_EQ(n.cmd(kOpRegMr, {key, 1, 0x1000, 0, 8192, 0, 0x20}),
              uint32_t{kStMalformed});  // an unknown access bit (0x10 is mw_bind)
    EXPECT_EQ(n.last_syndrome, 0x20);
    EXPECT_EQ(n.cmd(kOpRegMr, {key, 1, 0xfffff000, 0xffffffff, 0x2000, 0, 1}),
              uint32_t{kStBadArg});  // wraps
    EXPECT_EQ(n.cmd(kOpRegMr, {key, 1, 0x1000, 0, 8192, 0, 1}), 0u);
    EXPECT_EQ(n.cmd(kOpRegMr, {key + 1, 1, 0x1000, 0, 8192, 0, 1}),
              uint32_t{kStBusy});  // same index
    EXPECT_EQ(n.cmd(kOpTlbFill, {key + 1, 0x1000, 0, 0x5000, 0}),
              uint32_t{kStNotFound});  // whole key checked
    EXPECT_EQ(n.cmd(kOpTlbFill, {key, 0x1800, 0, 0x5000, 0}),
              uint32_t{kStBadArg});  // not page aligned
    EXPECT_EQ(n.cmd(kOpTlbFill, {key, 0x3000, 0, 0x5000, 0}),
              uint32_t{kStBadArg});  // outside the MR
    EXPECT_EQ(n.cmd(kOpTlbFill, {key, 0x2000, 0, 0x5000, 0}), 0u);
    EXPECT_EQ(n.cmd(kOpDeregMr, {key + 1}), uint32_t{kStNotFound});
    EXPECT_EQ(n.cmd(kOpDeregMr, {key}), 0u);
    EXPECT_EQ(n.cmd(kOpDeregMr, {key}), uint32_t{kStNotFound});
}

// TLB_FILL with an indirect table of DMA addresses, checked whole before anything is filled.
TEST(RdmaMailbox, TlbFillPagesIsAllOrNothing) {
    RdmaPair p;
    p.setup();
    const uint32_t all = rdma::kAccessLocalWrite | rdma::kAccessRemoteWrite;
    constexpr uint32_t kPages = 8;
    const uint32_t ak = p.a.reg_mr(Node::kVa, kPages * 4096, all);
    const uint32_t bk = p.b.reg_mr(Node::kVa, kPages * 4096, all, false);
    const uint64_t table = p.b.alloc(kTlbFillMax * 8);
    for (uint32_t i = 0; i < kPages; ++i) {
        const uint64_t dma = Node::va_to_bus(Node::kVa + uint64_t{i} * 4096);
        std::memcpy(p.b.bus(table + i * 8), &dma, 8);  // __le64 on this little-endian host
    }
    const auto fill = [&](uint32_t key, uint64_t page, uint32_t count, uint64_t tbl) {
        return p.b.cmd(kOpTlbFillPages,
                       {key, Node::lo(page), Node::hi(page), count, Node::lo(tbl), Node::hi(tbl)});
    };
    constexpr auto kBadArg = uint32_t{kStBadArg};
    EXPECT_EQ(fill(bk + 1, Node::kVa, 1, table), uint32_t{kStNotFound});
    EXPECT_EQ(fill(bk, Node::kVa, 0, table), kBadArg);
    EXPECT_EQ(fill(bk, Node::kVa, kTlbFillMax + 1, table), kBadArg);
    EXPECT_EQ(fill(bk, Node::kVa + 2048, 1, table), kBadArg);          // page not aligned
    EXPECT_EQ(fill(bk, Node::kVa, kPages + 1, table), kBadArg);        // last page outside the MR
    EXPECT_EQ(fill(bk, Node::kVa + 4096, kPages, table), kBadArg);     // likewise
    EXPECT_EQ(fill(bk, Node::kVa - 4096, 1, table), kBadArg);          // before the MR
    EXPECT_EQ(fill(bk, Node::kVa, 1, table + 4), kBadArg);             // table misaligned
    EXPECT_EQ(fill(bk, Node::kVa, 1, 0x1000), uint32_t{kStDmaError});  // table DMA fails
    const uint64_t good = Node::va_to_bus(Node::kVa + 4096);
    const uint64_t bad = good + 8;  // one entry not page aligned: nothing is filled
    std::memcpy(p.b.bus(table + 8), &bad, 8);
    EXPECT_EQ(fill(bk, Node::kVa, kPages, table), kBadArg);

    // Nothing was filled by the refused commands: a WRITE to the MR misses.
    p.a.fill_va(Node::kVa, 4096, 5);
    p.a.post_send(2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 4096, ak)}, Node::kVa, bk));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.count_events(kEvTlbMiss), 1u);
    EXPECT_EQ(p.b.read_va(Node::kVa, 4096), p.a.read_va(Node::kVa, 4096));

    // The whole table in one command: the rest of the MR is written without a miss.
    std::memcpy(p.b.bus(table + 8), &good, 8);
    const uint32_t misses = p.b.r(regs::rdma::kTlbMisses);
    ASSERT_EQ(fill(bk, Node::kVa, kPages, table), 0u);
    p.a.fill_va(Node::kVa, kPages * 4096, 9);
    p.a.post_send(
        2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, kPages * 4096, ak)}, Node::kVa, bk));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(2), 2u);
    EXPECT_EQ(p.b.r(regs::rdma::kTlbMisses), misses);
    EXPECT_EQ(p.b.read_va(Node::kVa, kPages * 4096), p.a.read_va(Node::kVa, kPages * 4096));
}

// Buffers a power of two apart, as perftest lays them out (16 regions 16 MiB apart, in 16 MRs or
// in one), 64 pages of each: the 1024 translations fit the 4096-entry TLB without one eviction,
// because the set index is hashed. Unhashed, the same page offset of every buffer shares a set
// (768 evictions).
TEST(RdmaTlb, PowerOfTwoApartBuffersDoNotEvictEachOther) {
    for (const bool one_mr : {false, true}) {
        SCOPED_TRACE(one_mr ? "one MR" : "16 MRs");
        RdmaHost host;
        rdma::Counters cnt;
        Config config;
        EventQueue timers(host);
        EventRing aeq(EventRing::Kind::kAeq, config, host, timers);
        EventRing ceq(EventRing::Kind::kCeq, config, host, timers);
        rdma::Events events(host, aeq, ceq);
        rdma::Tlb tlb(cnt, events);
        constexpr uint64_t kVa = 0x7f00'0000'0000;
        const auto key = [&](uint32_t i) { return (one_mr ? 1u : i) << 8; };
        const auto page = [&](uint32_t i, uint64_t p) {
            return kVa + uint64_t{i} * (16u << 20) + p * 4096;
        };
        for (uint32_t i = 1; i <= 16; ++i) {
            for (uint64_t p = 0; p < 64; ++p) {
                tlb.fill(key(i), page(i, p), (uint64_t{i} << 32) | (p << 12));
            }
        }
        EXPECT_EQ(cnt.tlb_evictions, 0u);
        for (uint32_t i = 1; i <= 16; ++i) {
            for (uint64_t p = 0; p < 64; ++p) {
                const auto dma = tlb.lookup(key(i), page(i, p));
                ASSERT_TRUE(dma.has_value()) << "buffer " << i << " page " << p;
                EXPECT_EQ(*dma, (uint64_t{i} << 32) | (p << 12));
            }
        }
        EXPECT_EQ(cnt.tlb_hits, 1024u);
        EXPECT_EQ(cnt.tlb_misses, 0u);
    }
}

TEST(RdmaMailbox, DeregRemovesTranslations) {
    // After DEREG and a new registration at the same index, the old translations are gone: the
    // transfer misses (and is served once the driver fills the new ones).
    RdmaPair p;
    p.setup();
    const uint32_t all = rdma::kAccessLocalWrite | rdma::kAccessRemoteWrite;
    const uint32_t ak = p.a.reg_mr(Node::kVa, 4096, all);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 4096, all);
    ASSERT_EQ(p.b.cmd(kOpDeregMr, {bk}), 0u);
    ASSERT_EQ(
        p.b.cmd(kOpRegMr, {bk, Node::kPd, Node::lo(Node::kVa), Node::hi(Node::kVa), 4096, 0, all}),
        0u);
    p.a.fill_va(Node::kVa, 100, 3);
    p.a.post_send(2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 100, ak)}, Node::kVa, bk));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.count_events(kEvTlbMiss), 1u);
    EXPECT_EQ(p.a.sq_completed(2), 1u);
    EXPECT_EQ(p.b.read_va(Node::kVa, 100), p.a.read_va(Node::kVa, 100));
}

TEST(RdmaMailbox, SteeringFollowsCtrlEnable) {
    RdmaPair p;
    p.setup();
    const uint32_t all = rdma::kAccessLocalWrite | rdma::kAccessRemoteWrite;
    const uint32_t ak = p.a.reg_mr(Node::kVa, 4096, all);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 4096, all);
    p.b.w(rr::kCtrl, 0);  // B's RoCE frames take the fallback path (dropped there: no ring)
    p.a.post_send(2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 8, ak)}, Node::kVa, bk));
    p.run(1'000'000);
    EXPECT_GT(rd(p.b.dev, regs::eth::kOffset + regs::eth::kRxRoce), 0u);
    EXPECT_EQ(p.b.r(rr::kRxPkts), 0u);
    EXPECT_EQ(p.a.sq_completed(2), 0u);
    p.b.w(rr::kCtrl, 1);  // now the retransmission reaches the engine
    ASSERT_TRUE(p.run());
    EXPECT_GT(p.b.r(rr::kRxPkts), 0u);
    EXPECT_EQ(p.a.sq_completed(2), 1u);
}

TEST(RdmaMailbox, ResetClearsTheEngine) {
    Node n(1);
    n.create_cq(0, 4);
    n.create_qp(2, 0, 0);
    n.w(rr::kCtrl, 1);
    n.dev.reset();
    EXPECT_EQ(n.r(rr::kCtrl), 0u);
    n.aq.setup(n.aq.layout());  // the admin queue is reset too: the driver sets it up again
    EXPECT_EQ(n.cmd(kOpQueryQp, {2}), uint32_t{kStNotFound});
    EXPECT_EQ(n.cmd(kOpDestroyCq, {0}), uint32_t{kStNotFound});
    EXPECT_EQ(n.r(rr::kCqeWritten), 0u);
}

TEST(RdmaMailbox, WireLossDropsEverythingAtOneMillionPpm) {
    Node n(1, 1'000'000, 5);
    for (int i = 0; i < 10; ++i) {
        n.dev.eth_rx(make_frame(64));
    }
    EXPECT_EQ(n.r(rr::kWireDrops), 10u);
    EXPECT_EQ(rd(n.dev, regs::eth::kOffset + regs::eth::kRxDropDisabled), 0u);  // never reached ETH
}

TEST(RdmaMailbox, WireLossIsReplayableFromTheSeed) {
    auto pattern = [](uint64_t seed) {
        Node n(1, 100'000, seed);
        std::vector<uint32_t> drops;
        for (int i = 0; i < 200; ++i) {
            n.dev.eth_rx(make_frame(64));
            drops.push_back(n.r(rr::kWireDrops));
        }
        return drops;
    };
    EXPECT_EQ(pattern(9), pattern(9));
    EXPECT_NE(pattern(9), pattern(10));
    EXPECT_GT(pattern(9).back(), 5u);
    EXPECT_LT(pattern(9).back(), 50u);
}

TEST(RdmaMailbox, CApiDoorbellBarAndLossConfig) {
    scenic_model_config cfg{};
    cfg.msix_vectors = 32;
    cfg.wire_drop_ppm = 2'000'000;  // > 10^6: refused
    scenic_host_ops ops{};
    EXPECT_EQ(scenic_model_create(&cfg, &ops), nullptr);
    cfg.wire_drop_ppm = 1'000'000;
    scenic_model* m = scenic_model_create(&cfg, &ops);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(scenic_model_db_size(m), uint64_t{2048} * 4096);
    EXPECT_EQ(scenic_model_db_read(m, 0, 4), 0u);
    scenic_model_db_write(m, 2 * 4096, 5, 4);  // no such QP: ignored, no crash
    scenic_model_db_write(m, ~uint64_t{0}, 5, 8);
    const auto f = make_frame(64);
    scenic_model_eth_rx(m, f.data(), f.size());
    EXPECT_EQ(scenic_model_mmio_read(m, rr::kOffset + rr::kWireDrops, 4), 1u);
    scenic_model_destroy(m);
}

}  // namespace
}  // namespace scenic::test
