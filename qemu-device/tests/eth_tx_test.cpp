// SPDX-License-Identifier: MIT
// ETH TX: command ring, doorbell, tx_en, bad commands, DMA failures, bounded batches.
#include <gtest/gtest.h>

#include <vector>

#include "eth_rig.hpp"

namespace scenic::test {
namespace {

using namespace regs;

TEST(EthTx, SendsOneFrame) {
    EthRig rig;
    rig.up();
    const auto f = make_frame(60, kPeer);
    rig.cmd(0, rig.tx_buf(0, f), 60);
    rig.w(eth::kTxTail, 1);
    ASSERT_EQ(rig.host.wire.size(), 1u);
    EXPECT_EQ(rig.host.wire[0], f);
    EXPECT_EQ(rig.r(eth::kTxHead), 1u);
    EXPECT_EQ(rig.wb_tx_head(), 1u);
    EXPECT_EQ(rig.r(eth::kTxFrames), 1u);
    EXPECT_EQ(rig.r(eth::kTxBytes), 60u);
    ASSERT_EQ(rig.host.irqs.size(), 1u);
    EXPECT_EQ(rig.host.irqs[0], kVecEth);
}

TEST(EthTx, RingWrapsAndFramesKeepTheirOrder) {
    EthRig rig;
    rig.up(8, 2048, 8);
    uint32_t tail = 0;
    std::vector<std::vector<uint8_t>> sent;
    for (uint32_t n = 0; n < 30; ++n) {
        const auto f = make_frame(60 + n, kPeer, 0x88b5, static_cast<uint8_t>(n));
        rig.cmd(tail, rig.tx_buf(tail, f), static_cast<uint32_t>(f.size()));
        sent.push_back(f);
        tail = (tail + 1) % 8;
        if (n % 3 == 2) {
            rig.w(eth::kTxTail, tail);
        }
    }
    EXPECT_EQ(rig.host.wire, sent);
    EXPECT_EQ(rig.r(eth::kTxHead), tail);
    EXPECT_EQ(rig.wb_tx_head(), tail);
}

TEST(EthTx, NothingIsFetchedWhileTxIsDisabled) {
    EthRig rig;
    rig.up();
    rig.w(eth::kCtrl, eth::kCtrlRxEn.mask);
    rig.cmd(0, rig.tx_buf(0, make_frame(60)), 60);
    rig.w(eth::kTxTail, 1);
    rig.host.run_for(rig.dev, 1'000'000);
    EXPECT_EQ(rig.host.dma_reads, 0u);
    EXPECT_EQ(rig.r(eth::kTxHead), 0u);
    rig.w(eth::kCtrl, eth::kCtrlRxEn.mask | eth::kCtrlTxEn.mask);  // enabling sends what waits
    EXPECT_EQ(rig.host.wire.size(), 1u);
    EXPECT_EQ(rig.r(eth::kTxHead), 1u);
}

TEST(EthTx, BadCommandsAreConsumedAndCounted) {
    EthRig rig;
    rig.up();
    const uint64_t buf = rig.tx_buf(0, make_frame(1600));
    rig.cmd(0, buf, 13);          // runt
    rig.cmd(1, buf, 1519);        // over MTU + 18
    rig.cmd(2, buf, 60, 4);       // reserved flags
    rig.cmd(3, buf, 0xffffffff);  // hostile length
    rig.cmd(4, buf, 1518);        // good, the largest
    rig.cmd(5, buf, 14);          // good, the smallest
    rig.w(eth::kTxTail, 6);
    EXPECT_EQ(rig.r(eth::kTxDropBadCmd), 4u);
    EXPECT_EQ(rig.r(eth::kTxFrames), 2u);
    EXPECT_EQ(rig.r(eth::kTxBytes), 1518u + 14);
    ASSERT_EQ(rig.host.wire.size(), 2u);
    EXPECT_EQ(rig.host.wire[0].size(), 1518u);
    EXPECT_EQ(rig.r(eth::kTxHead), 6u);
    EXPECT_EQ(rig.wb_tx_head(), 6u);
    EXPECT_LE(rig.host.max_dma_len, 1518u);
}

TEST(EthTx, DmaFailuresAreConsumedAndCounted) {
    EthRig rig;
    rig.up();
    rig.cmd(0, 0xdead'0000'0000, 60);               // frame not mapped
    rig.cmd(1, rig.tx_buf(1, make_frame(60)), 60);  // command not readable (below)
    rig.cmd(2, rig.tx_buf(2, make_frame(64)), 64);  // fine
    rig.host.fault = {{EthRig::kTxRing + 16, EthRig::kTxRing + 16}};
    rig.w(eth::kTxTail, 3);
    EXPECT_EQ(rig.r(eth::kTxDmaErrors), 2u);
    EXPECT_EQ(rig.r(eth::kTxFrames), 1u);
    ASSERT_EQ(rig.host.wire.size(), 1u);
    EXPECT_EQ(rig.host.wire[0].size(), 64u);
    EXPECT_EQ(rig.r(eth::kTxHead), 3u);
}

TEST(EthTx, BatchesAreBoundedAndContinueOnTheTimer) {
    EthRig rig;
    rig.up(8, 2048, 1024);
    const uint64_t buf = rig.tx_buf(0, make_frame(60));
    for (uint32_t i = 0; i < 1000; ++i) {
        rig.cmd(i, buf, 60);
    }
    rig.w(eth::kTxTail, 1000);
    EXPECT_EQ(rig.host.wire.size(), EthBlock::kTxBatch);  // the doorbell does one batch
    EXPECT_TRUE(rig.host.timer.has_value());
    EXPECT_EQ(rig.r(eth::kTxHead), EthBlock::kTxBatch);
    rig.host.run_for(rig.dev, 0);
    EXPECT_EQ(rig.host.wire.size(), 1000u);
    EXPECT_EQ(rig.r(eth::kTxHead), 1000u);
    EXPECT_EQ(rig.wb_tx_head(), 1000u);
    EXPECT_FALSE(rig.host.timer.has_value());
}

TEST(EthTx, HostileDoorbellOverAFullRingIsBounded) {
    EthRig rig;
    rig.up(8, 2048, 32768);  // 512 KiB of commands, mostly outside host memory
    rig.w(eth::kTxRingSize, 0);
    rig.w(eth::kTxRingAddrLo, static_cast<uint32_t>(FakeHost::kBase));
    rig.w(eth::kTxRingSize, 32768);
    rig.w(eth::kTxTail, 32767);
    EXPECT_LE(rig.host.dma_reads, 2 * EthBlock::kTxBatch);
    rig.host.run_for(rig.dev, 0);
    EXPECT_EQ(rig.r(eth::kTxHead), 32767u);
    EXPECT_EQ(rig.r(eth::kTxDropBadCmd) + rig.r(eth::kTxDmaErrors) + rig.r(eth::kTxFrames), 32767u);
}

TEST(EthTx, LinkDownConsumesWithoutSending) {
    EthRig rig;
    rig.up();
    rig.dev.set_link(false);
    rig.cmd(0, rig.tx_buf(0, make_frame(60)), 60);
    rig.w(eth::kTxTail, 1);
    EXPECT_TRUE(rig.host.wire.empty());
    EXPECT_EQ(rig.r(eth::kTxHead), 1u);
}

TEST(EthTx, JumboFrameAtMtu9000) {
    EthRig rig;
    rig.up(8, 9088, 8, 9000);
    const auto f = make_frame(9018, kPeer);
    rig.cmd(0, rig.tx_buf(0, f), 9018);
    rig.cmd(1, rig.tx_buf(0, f), 9019);
    rig.w(eth::kTxTail, 2);
    ASSERT_EQ(rig.host.wire.size(), 1u);
    EXPECT_EQ(rig.host.wire[0], f);
    EXPECT_EQ(rig.r(eth::kTxDropBadCmd), 1u);
}

}  // namespace
}  // namespace scenic::test
