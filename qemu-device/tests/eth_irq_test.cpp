// SPDX-License-Identifier: MIT
// ETH interrupt moderation (IRQ_COAL / IRQ_TIME / IRQ_MASK) on MSI-X vector 1, with the rules
// of the RTL twin scenic::dp::IrqModerator, on a fake clock.
#include <gtest/gtest.h>

#include "eth_rig.hpp"

namespace scenic::test {
namespace {

using namespace regs;

constexpr uint64_t kUs = 1000;

TEST(EthIrq, CountThreshold) {
    EthRig rig;
    rig.up(16, 2048, 8, 1500, 4, 1000);
    for (int i = 0; i < 3; ++i) {
        rig.dev.eth_rx(make_frame(60));
    }
    EXPECT_TRUE(rig.host.irqs.empty());
    rig.dev.eth_rx(make_frame(60));
    ASSERT_EQ(rig.host.irqs.size(), 1u);
    EXPECT_EQ(rig.host.irqs[0], kVecEth);
    EXPECT_EQ(rig.r(eth::kIrqCount), 1u);
    for (int i = 0; i < 4; ++i) {  // the count restarted
        rig.dev.eth_rx(make_frame(60));
    }
    EXPECT_EQ(rig.host.irqs.size(), 2u);
}

TEST(EthIrq, TxCommandsAreEventsToo) {
    EthRig rig;
    rig.up(8, 2048, 8, 1500, 3, 1000);
    const uint64_t buf = rig.tx_buf(0, make_frame(60));
    rig.cmd(0, buf, 60);
    rig.cmd(1, buf, 13);  // refused: still consumed, still an event
    rig.w(eth::kTxTail, 2);
    EXPECT_TRUE(rig.host.irqs.empty());
    rig.dev.eth_rx(make_frame(60));
    EXPECT_EQ(rig.host.irqs.size(), 1u);
}

TEST(EthIrq, TimeoutFromTheFirstPendingEvent) {
    EthRig rig;
    rig.up(16, 2048, 8, 1500, 0, 50);  // count threshold off, 50 us
    rig.dev.eth_rx(make_frame(60));
    rig.host.run_for(rig.dev, 20 * kUs);
    rig.dev.eth_rx(make_frame(60));  // does not restart the timeout
    rig.host.run_for(rig.dev, 29 * kUs);
    EXPECT_TRUE(rig.host.irqs.empty());
    rig.host.run_for(rig.dev, 1 * kUs);
    EXPECT_EQ(rig.host.irqs.size(), 1u);
    rig.host.run_for(rig.dev, 1000 * kUs);  // nothing pending: nothing more
    EXPECT_EQ(rig.host.irqs.size(), 1u);
    EXPECT_FALSE(rig.host.timer.has_value());
}

TEST(EthIrq, TimeBelowCountFiresOnTheTimer) {
    EthRig rig;
    rig.up(16, 2048, 8, 1500, 8, 10);
    rig.dev.eth_rx(make_frame(60));
    rig.dev.eth_rx(make_frame(60));
    EXPECT_TRUE(rig.host.irqs.empty());
    rig.host.run_for(rig.dev, 10 * kUs);
    EXPECT_EQ(rig.host.irqs.size(), 1u);
}

TEST(EthIrq, TimeZeroFiresOnEveryEventWhateverTheCount) {
    EthRig rig;
    rig.up(16, 2048, 8, 1500, 16, 0);
    rig.dev.eth_rx(make_frame(60));
    rig.dev.eth_rx(make_frame(60));
    EXPECT_EQ(rig.host.irqs.size(), 2u);
}

TEST(EthIrq, MaskHoldsAndUnmaskFiresWhatIsDue) {
    EthRig rig;
    rig.up(16, 2048, 8, 1500, 0, 50);
    rig.w(eth::kIrqMask, 1);
    rig.dev.eth_rx(make_frame(60));
    rig.host.run_for(rig.dev, 500 * kUs);
    EXPECT_TRUE(rig.host.irqs.empty());  // masked: events accumulate, the timeout expired
    rig.w(eth::kIrqMask, 0);
    EXPECT_EQ(rig.host.irqs.size(), 1u);  // at once on unmask

    // unmasked before the timeout: fires when it expires, counted from the first event
    rig.w(eth::kIrqMask, 1);
    rig.dev.eth_rx(make_frame(60));
    rig.host.run_for(rig.dev, 30 * kUs);
    rig.w(eth::kIrqMask, 0);
    EXPECT_EQ(rig.host.irqs.size(), 1u);
    rig.host.run_for(rig.dev, 19 * kUs);
    EXPECT_EQ(rig.host.irqs.size(), 1u);
    rig.host.run_for(rig.dev, 1 * kUs);
    EXPECT_EQ(rig.host.irqs.size(), 2u);
}

TEST(EthIrq, NapiPatternLosesNoEvent) {
    // The driver masks in the handler and unmasks after its poll; a frame that arrives in
    // between must raise the vector at the unmask (coal 1, time 0: the defaults).
    EthRig rig;
    rig.up();
    rig.dev.eth_rx(make_frame(60));
    ASSERT_EQ(rig.host.irqs.size(), 1u);
    rig.w(eth::kIrqMask, 1);         // handler
    rig.dev.eth_rx(make_frame(60));  // during the poll
    EXPECT_EQ(rig.host.irqs.size(), 1u);
    rig.w(eth::kIrqMask, 0);  // napi_complete_done
    EXPECT_EQ(rig.host.irqs.size(), 2u);
    rig.w(eth::kIrqMask, 1);
    rig.w(eth::kIrqMask, 0);  // nothing pending: no spurious interrupt
    EXPECT_EQ(rig.host.irqs.size(), 2u);
    EXPECT_EQ(rig.r(eth::kIrqCount), 2u);
}

TEST(EthIrq, LoweringTheThresholdAppliesAtOnce) {
    EthRig rig;
    rig.up(16, 2048, 8, 1500, 10, 1000);
    for (int i = 0; i < 5; ++i) {
        rig.dev.eth_rx(make_frame(60));
    }
    EXPECT_TRUE(rig.host.irqs.empty());
    rig.w(eth::kIrqCoal, 5);
    EXPECT_EQ(rig.host.irqs.size(), 1u);
}

TEST(EthIrq, OnlyLow16BitsOfTheModerationRegistersCount) {
    EthRig rig;
    rig.up(16, 2048, 8, 1500, 0x10002, 0x10000);  // coal 2, time 0 as the 16-bit RTL sees them
    rig.dev.eth_rx(make_frame(60));
    EXPECT_EQ(rig.host.irqs.size(), 1u);
    EXPECT_EQ(rig.r(eth::kIrqCoal), 0x10002u);  // the register keeps what was written
}

TEST(EthIrq, NoMsixNoInterrupt) {
    Config config = EthRig::make_config();
    config.msix_vectors = 1;  // vector 1 does not exist
    EthRig rig(config);
    rig.up();
    rig.dev.eth_rx(make_frame(60));
    EXPECT_TRUE(rig.host.irqs.empty());
    EXPECT_EQ(rig.r(eth::kIrqCount), 0u);
    EXPECT_EQ(rig.r(eth::kRxFrames), 1u);
}

TEST(EthIrq, ResetCancelsThePendingTimeout) {
    EthRig rig;
    rig.up(16, 2048, 8, 1500, 0, 50);
    rig.dev.eth_rx(make_frame(60));
    ASSERT_TRUE(rig.host.timer.has_value());
    wr(rig.dev, core::kCtrl, core::kCtrlSoftReset.mask);
    rig.host.run_for(rig.dev, 1000 * kUs);
    EXPECT_TRUE(rig.host.irqs.empty());
}

}  // namespace
}  // namespace scenic::test
