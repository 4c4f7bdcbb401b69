// SPDX-License-Identifier: MIT
// ETH block: MAC from the configuration, link state from the wire, frames counted and dropped.
#include <gtest/gtest.h>

#include <vector>

#include "fake_host.hpp"

namespace scenic::test {
namespace {

using namespace regs;

TEST(Eth, MacLayout) {
    FakeHost host;
    Config config;
    config.mac = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
    Device dev(config, host);
    EXPECT_EQ(rd(dev, eth::kOffset + eth::kMacHi), 0x5254u);
    EXPECT_EQ(rd(dev, eth::kOffset + eth::kMacLo), 0x00123456u);
}

TEST(Eth, LinkFollowsTheWireAndSurvivesReset) {
    FakeHost host;
    Device dev(Config{}, host);
    const uint32_t link = eth::kOffset + eth::kLink;
    EXPECT_EQ(rd(dev, link), eth::kLinkDefault);
    dev.set_link(false);
    EXPECT_EQ(rd(dev, link) & eth::kLinkUp.mask, 0u);
    EXPECT_EQ((rd(dev, link) & eth::kLinkSpeedGbps.mask) >> eth::kLinkSpeedGbps.shift, 100u);
    dev.reset();
    EXPECT_EQ(rd(dev, link) & eth::kLinkUp.mask, 0u);
    dev.set_link(true);
    EXPECT_EQ(rd(dev, link), eth::kLinkDefault);
}

TEST(Eth, ReceivedFramesAreCountedAndDropped) {
    FakeHost host;
    Device dev(Config{}, host);
    EXPECT_TRUE(dev.can_receive());
    const std::vector<uint8_t> frame(60, 0xab);
    dev.eth_rx(frame);
    dev.eth_rx(std::span<const uint8_t>{});
    EXPECT_EQ(dev.eth().rx_frames(), 2u);
    EXPECT_EQ(dev.eth().rx_dropped(), 2u);
    EXPECT_EQ(host.dma_writes, 0u);
    EXPECT_TRUE(host.irqs.empty());
    EXPECT_TRUE(host.wire.empty());
}

}  // namespace
}  // namespace scenic::test
