// SPDX-License-Identifier: MIT
// ETH RX: tag format, one DMA per frame, ring wrap and full ring, writeback, drop reasons.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "eth_rig.hpp"

namespace scenic::test {
namespace {

using namespace regs;

constexpr uint16_t kValid = 0x0001;

TEST(EthRx, TagAndFrameInOneDmaWrite) {
    EthRig rig;
    rig.up();
    rig.w(eth::kWbAddrLo, 0);  // no writeback: the slot write is the only DMA
    rig.w(eth::kWbAddrHi, 0);
    const auto f = make_frame(60);
    rig.dev.eth_rx(f);
    EXPECT_EQ(rig.host.dma_writes, 1u);
    EXPECT_EQ(rig.host.max_dma_len, 8u + 60);
    const RxTag t = rig.tag(0);
    EXPECT_EQ(t.len, 60);
    EXPECT_EQ(t.flags, kValid | 2 << 1);  // class OTHER
    EXPECT_EQ(t.seq, 0u);
    EXPECT_EQ(rig.slot_frame(0), f);
    EXPECT_EQ(rig.r(eth::kRxTail), 1u);
    EXPECT_EQ(rig.r(eth::kRxFrames), 1u);
    EXPECT_EQ(rig.r(eth::kRxBytes), 60u);
    ASSERT_EQ(rig.host.irqs.size(), 1u);  // defaults coal 1, time 0: one interrupt per frame
    EXPECT_EQ(rig.host.irqs[0], kVecEth);
    EXPECT_EQ(rig.r(eth::kIrqCount), 1u);
}

TEST(EthRx, PrefilterClassInTheTagAndRoceCounted) {
    EthRig rig;
    rig.up(16);
    rig.dev.eth_rx(make_ipv4(17, 4791));  // RoCE v2
    rig.dev.eth_rx(make_ipv4(6));         // TCP
    rig.dev.eth_rx(make_ipv4(17, 53));    // UDP, not RoCE
    rig.dev.eth_rx(make_frame(60));       // not IP
    EXPECT_EQ(rig.tag(0).flags, kValid | 0 << 1);
    EXPECT_EQ(rig.tag(1).flags, kValid | 1 << 1);
    EXPECT_EQ(rig.tag(2).flags, kValid | 2 << 1);
    EXPECT_EQ(rig.tag(3).flags, kValid | 2 << 1);
    EXPECT_EQ(rig.r(eth::kRxRoce), 1u);
    EXPECT_EQ(rig.r(eth::kRxFrames), 4u);
    for (uint32_t i = 0; i < 4; ++i) {
        EXPECT_EQ(rig.tag(i).seq, i);
    }
}

TEST(EthRx, WritebackContents) {
    EthRig rig;
    std::fill_n(rig.mem(EthRig::kWb), 64, 0xaa);
    rig.up();
    rig.dev.eth_rx(make_frame(60));
    rig.dev.eth_rx(make_frame(61));
    EXPECT_EQ(rig.wb_rx_tail(), 2u);
    EXPECT_EQ(rig.wb_tx_head(), 0u);
    for (int i = 8; i < 64; ++i) {  // the reserved words are never written
        EXPECT_EQ(rig.mem(EthRig::kWb)[i], 0xaa) << i;
    }
}

TEST(EthRx, RingWraps) {
    EthRig rig;
    rig.up(8);
    uint32_t head = 0;
    for (uint32_t n = 0; n < 20; ++n) {
        const auto f = make_frame(60 + n, kStation, 0x88b5, static_cast<uint8_t>(n));
        rig.dev.eth_rx(f);
        const uint32_t slot = n % 8;
        EXPECT_EQ(rig.slot_frame(slot), f) << n;
        EXPECT_EQ(rig.tag(slot).seq, n);
        EXPECT_EQ(rig.r(eth::kRxTail), (n + 1) % 8);
        EXPECT_EQ(rig.wb_rx_tail(), (n + 1) % 8);
        head = (head + 1) % 8;  // the driver consumes at once
        rig.w(eth::kRxHead, head);
    }
    EXPECT_EQ(rig.r(eth::kRxFrames), 20u);
    EXPECT_EQ(rig.r(eth::kRxDropRingFull), 0u);
}

TEST(EthRx, FullRingDropsThenRecoversAfterHeadAdvance) {
    EthRig rig;
    rig.up(8);
    for (int i = 0; i < 7; ++i) {
        rig.dev.eth_rx(make_frame(60));
    }
    EXPECT_EQ(rig.r(eth::kRxTail), 7u);  // one slot stays empty
    const unsigned writes = rig.host.dma_writes;
    const size_t irqs = rig.host.irqs.size();
    rig.dev.eth_rx(make_frame(60));
    rig.dev.eth_rx(make_frame(60));
    EXPECT_EQ(rig.r(eth::kRxDropRingFull), 2u);
    EXPECT_EQ(rig.host.dma_writes, writes);
    EXPECT_EQ(rig.host.irqs.size(), irqs);
    EXPECT_EQ(rig.r(eth::kRxTail), 7u);

    rig.w(eth::kRxHead, 3);  // the driver returns three slots
    for (int i = 0; i < 3; ++i) {
        rig.dev.eth_rx(make_frame(70));
    }
    EXPECT_EQ(rig.r(eth::kRxTail), 2u);
    rig.dev.eth_rx(make_frame(70));
    EXPECT_EQ(rig.r(eth::kRxDropRingFull), 3u);
    EXPECT_EQ(rig.r(eth::kRxFrames), 10u);
    EXPECT_EQ(rig.tag(1).len, 70);
    EXPECT_EQ(rig.tag(1).seq, 9u);
}

TEST(EthRx, JumboFramesAtMtu9000) {
    EthRig rig;
    rig.up(8, 9088, 8, 9000);
    const auto f = make_frame(9018);
    rig.dev.eth_rx(f);
    EXPECT_EQ(rig.slot_frame(0), f);
    rig.dev.eth_rx(make_frame(9019));
    EXPECT_EQ(rig.r(eth::kRxDropOversize), 1u);
    EXPECT_EQ(rig.r(eth::kRxFrames), 1u);
}

// Every drop reason: counted in its register, nothing written, no tail move, no interrupt.
TEST(EthRx, EveryDropReasonIsCountedAndWritesNothing) {
    struct Case {
        const char* what;
        uint32_t reg;
        std::function<void(EthRig&)> setup;
        std::vector<uint8_t> frame;
    };
    const auto rx_on = eth::kCtrlRxEn.mask | eth::kCtrlTxEn.mask;
    const std::vector<Case> cases = {
        {"runt 13", eth::kRxDropRunt, [](EthRig&) {}, make_frame(13)},
        {"runt 0", eth::kRxDropRunt, [](EthRig&) {}, {}},
        {"over MTU + 18", eth::kRxDropOversize, [](EthRig&) {}, make_frame(1519)},
        {"over the slot", eth::kRxDropOversize,
         [](EthRig& r) {
             r.w(eth::kRxRingSize, 0);
             r.w(eth::kRxRingStride, 128);
             r.w(eth::kRxRingSize, 8);
         },
         make_frame(121)},
        {"filter", eth::kRxDropFilter, [](EthRig&) {}, make_frame(60, kPeer)},
        {"multicast", eth::kRxDropFilter, [](EthRig&) {}, make_frame(60, kMulticast)},
        {"rx_en off", eth::kRxDropDisabled, [&](EthRig& r) { r.w(eth::kCtrl, rx_on & ~1u); },
         make_frame(60)},
        {"ring unset", eth::kRxDropDisabled, [](EthRig& r) { r.w(eth::kRxRingSize, 0); },
         make_frame(60)},
        {"link down", eth::kRxDropDisabled, [](EthRig& r) { r.dev.set_link(false); },
         make_frame(60)},
        {"ring full", eth::kRxDropRingFull, [](EthRig& r) { r.w(eth::kRxHead, 1); },
         make_frame(60)},
        {"dma error", eth::kRxDmaErrors,
         [](EthRig& r) {
             r.host.fault = {{EthRig::kRxRing + 100, EthRig::kRxRing + 100}};
         },
         make_frame(200)},
    };
    for (const Case& c : cases) {
        EthRig rig;
        rig.up();
        c.setup(rig);
        const unsigned writes = rig.host.dma_writes;
        rig.dev.eth_rx(c.frame);
        EXPECT_EQ(rig.r(c.reg), 1u) << c.what;
        const bool dma_tried = c.reg == eth::kRxDmaErrors;
        EXPECT_EQ(rig.host.dma_writes, writes + (dma_tried ? 1 : 0)) << c.what;
        EXPECT_EQ(rig.r(eth::kRxTail), 0u) << c.what;
        EXPECT_EQ(rig.r(eth::kRxFrames), 0u) << c.what;
        EXPECT_EQ(rig.r(eth::kRxBytes), 0u) << c.what;
        EXPECT_TRUE(rig.host.irqs.empty()) << c.what;
        EXPECT_EQ(rig.wb_rx_tail(), 0u) << c.what;
        uint32_t drops = 0;
        for (uint32_t reg = eth::kRxDropRingFull; reg <= eth::kRxDmaErrors; reg += 4) {
            drops += rig.r(reg);
        }
        EXPECT_EQ(drops, 1u) << c.what << ": counted once, in one register";
    }
}

TEST(EthRx, DmaErrorReusesTheSlot) {
    EthRig rig;
    rig.up();
    rig.host.fail_writes = true;
    rig.dev.eth_rx(make_frame(60));
    rig.host.fail_writes = false;
    rig.dev.eth_rx(make_frame(61));
    EXPECT_EQ(rig.r(eth::kRxDmaErrors), 1u);
    EXPECT_EQ(rig.tag(0).len, 61);
    EXPECT_EQ(rig.tag(0).seq, 0u);
    EXPECT_EQ(rig.r(eth::kRxTail), 1u);
}

}  // namespace
}  // namespace scenic::test
