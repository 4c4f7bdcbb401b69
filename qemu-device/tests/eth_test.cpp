// SPDX-License-Identifier: MIT
// ETH block: registers, MAC filter, link, reset, hostile register values.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "eth_rig.hpp"

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

TEST(Eth, CanReceiveIsAlwaysTrue) {
    EthRig rig;
    EXPECT_TRUE(rig.dev.can_receive());  // not up: frames are dropped, not queued
    rig.up();
    for (int i = 0; i < 20; ++i) {  // the ring fills at 7
        rig.dev.eth_rx(make_frame(60));
        EXPECT_TRUE(rig.dev.can_receive());
    }
    EXPECT_EQ(rig.r(eth::kRxDropRingFull), 13u);
}

TEST(Eth, RwRegistersReadBack) {
    EthRig rig;
    rig.w(eth::kCtrl, 0xffffffff);
    EXPECT_EQ(rig.r(eth::kCtrl), 0xfu);  // only the four defined bits
    rig.w(eth::kCtrl, 0);
    rig.w(eth::kRxRingAddrLo, 0x12345640);
    rig.w(eth::kRxRingAddrHi, 0xabcdef01);
    rig.w(eth::kRxRingStride, 0x2380);
    rig.w(eth::kTxRingAddrLo, 0x76543200);
    rig.w(eth::kTxRingAddrHi, 0x1);
    rig.w(eth::kWbAddrLo, 0xc0);
    rig.w(eth::kWbAddrHi, 0x2);
    rig.w(eth::kIrqCoal, 64);
    rig.w(eth::kIrqTime, 100);
    rig.w(eth::kIrqMask, 0xfffffffe);
    EXPECT_EQ(rig.r(eth::kRxRingAddrLo), 0x12345640u);
    EXPECT_EQ(rig.r(eth::kRxRingAddrHi), 0xabcdef01u);
    EXPECT_EQ(rig.r(eth::kRxRingStride), 0x2380u);
    EXPECT_EQ(rig.r(eth::kTxRingAddrLo), 0x76543200u);
    EXPECT_EQ(rig.r(eth::kTxRingAddrHi), 0x1u);
    EXPECT_EQ(rig.r(eth::kWbAddrLo), 0xc0u);
    EXPECT_EQ(rig.r(eth::kWbAddrHi), 0x2u);
    EXPECT_EQ(rig.r(eth::kIrqCoal), 64u);
    EXPECT_EQ(rig.r(eth::kIrqTime), 100u);
    EXPECT_EQ(rig.r(eth::kIrqMask), 0u);
    // read-only registers ignore writes
    rig.w(eth::kRxTail, 5);
    rig.w(eth::kTxHead, 5);
    rig.w(eth::kRxFrames, 5);
    rig.w(eth::kMaxMtu, 5);
    EXPECT_EQ(rig.r(eth::kRxTail), 0u);
    EXPECT_EQ(rig.r(eth::kTxHead), 0u);
    EXPECT_EQ(rig.r(eth::kRxFrames), 0u);
    EXPECT_EQ(rig.r(eth::kMaxMtu), eth::kMaxMtuDefault);
}

TEST(Eth, MtuIsClampedToItsRange) {
    EthRig rig;
    rig.w(eth::kMtu, 9000);
    EXPECT_EQ(rig.r(eth::kMtu), 9000u);
    rig.w(eth::kMtu, 0);
    EXPECT_EQ(rig.r(eth::kMtu), 68u);
    rig.w(eth::kMtu, 0xffffffff);
    EXPECT_EQ(rig.r(eth::kMtu), eth::kMaxMtuDefault);
}

TEST(Eth, RingSizeWriteResetsIndices) {
    EthRig rig;
    rig.up();
    for (int i = 0; i < 3; ++i) {
        rig.dev.eth_rx(make_frame(60));
    }
    rig.w(eth::kRxHead, 2);
    EXPECT_EQ(rig.r(eth::kRxTail), 3u);
    rig.w(eth::kRxRingSize, 8);  // same value: still a reset
    EXPECT_EQ(rig.r(eth::kRxTail), 0u);
    EXPECT_EQ(rig.r(eth::kRxHead), 0u);
    rig.dev.eth_rx(make_frame(60));
    EXPECT_EQ(rig.tag(0).seq, 0u);  // the sequence restarts with the ring
}

// MAC filter: station, broadcast always; multicast with allmulti; everything with promisc.
TEST(Eth, MacFilterModes) {
    EthRig rig;
    rig.up(32);
    auto accepted = [&](const std::array<uint8_t, 6>& dst) {
        const uint32_t before = rig.r(eth::kRxFrames);
        rig.dev.eth_rx(make_frame(64, dst));
        return rig.r(eth::kRxFrames) == before + 1;
    };
    const std::array<uint8_t, 6> ipv4_mc{0x01, 0x00, 0x5e, 0x00, 0x00, 0x01};
    EXPECT_TRUE(accepted(kStation));
    EXPECT_TRUE(accepted(kBroadcast));
    EXPECT_FALSE(accepted(kPeer));
    EXPECT_FALSE(accepted(kMulticast));
    EXPECT_FALSE(accepted(ipv4_mc));
    EXPECT_EQ(rig.r(eth::kRxDropFilter), 3u);

    rig.w(eth::kCtrl, eth::kCtrlRxEn.mask | eth::kCtrlTxEn.mask | eth::kCtrlAllmulti.mask);
    EXPECT_TRUE(accepted(kMulticast));
    EXPECT_TRUE(accepted(ipv4_mc));
    EXPECT_FALSE(accepted(kPeer));

    rig.w(eth::kCtrl, eth::kCtrlRxEn.mask | eth::kCtrlTxEn.mask | eth::kCtrlPromisc.mask);
    EXPECT_TRUE(accepted(kPeer));
    EXPECT_TRUE(accepted(kMulticast));
    EXPECT_TRUE(accepted(kStation));
    EXPECT_EQ(rig.r(eth::kRxDropFilter), 4u);
}

TEST(Eth, InvalidRingRegistersDisableTheRing) {
    struct Case {
        const char* what;
        uint32_t size;
        uint32_t stride;
        uint64_t addr;
    };
    const uint64_t ok = EthRig::kRxRing;
    const Case cases[] = {
        {"size 0", 0, 2048, ok},           {"size 4", 4, 2048, ok},
        {"size 12", 12, 2048, ok},         {"size 65536", 65536, 2048, ok},
        {"size ~0", 0xffffffff, 2048, ok}, {"stride 0", 8, 0, ok},
        {"stride 32", 8, 32, ok},          {"stride 100", 8, 100, ok},
        {"addr +8", 8, 2048, ok + 8},      {"addr wraps", 8, 2048, 0xffffffff'ffffff00},
    };
    for (const Case& c : cases) {
        EthRig rig;
        rig.up();
        rig.w(eth::kRxRingSize, 0);
        rig.w(eth::kRxRingAddrLo, static_cast<uint32_t>(c.addr));
        rig.w(eth::kRxRingAddrHi, static_cast<uint32_t>(c.addr >> 32));
        rig.w(eth::kRxRingStride, c.stride);
        rig.w(eth::kRxRingSize, c.size);
        rig.w(eth::kRxHead, 0xffffffff);
        const unsigned writes = rig.host.dma_writes;
        rig.dev.eth_rx(make_frame(60));
        EXPECT_EQ(rig.host.dma_writes, writes) << c.what;
        EXPECT_EQ(rig.r(eth::kRxDropDisabled), 1u) << c.what;
        EXPECT_EQ(rig.r(eth::kRxTail), 0u) << c.what;
    }
    // TX: an invalid ring is never read
    const Case tx_cases[] = {
        {"tx size 0", 0, 0, EthRig::kTxRing},         {"tx size 6", 6, 0, EthRig::kTxRing},
        {"tx size 2^16", 65536, 0, EthRig::kTxRing},  {"tx addr +16", 8, 0, EthRig::kTxRing + 16},
        {"tx addr wraps", 8, 0, 0xffffffff'ffffffc0},
    };
    for (const Case& c : tx_cases) {
        EthRig rig;
        rig.up();
        rig.w(eth::kTxRingSize, 0);
        rig.w(eth::kTxRingAddrLo, static_cast<uint32_t>(c.addr));
        rig.w(eth::kTxRingAddrHi, static_cast<uint32_t>(c.addr >> 32));
        rig.w(eth::kTxRingSize, c.size);
        rig.w(eth::kTxTail, 3);
        rig.host.run_for(rig.dev, 1'000'000);
        EXPECT_EQ(rig.host.dma_reads, 0u) << c.what;
        EXPECT_EQ(rig.r(eth::kTxHead), 0u) << c.what;
    }
}

TEST(Eth, IndicesAreReducedModuloTheRingSize) {
    EthRig rig;
    rig.up(8, 2048, 8);
    rig.w(eth::kRxHead, 13);
    EXPECT_EQ(rig.r(eth::kRxHead), 5u);
    rig.w(eth::kCtrl, 0);  // tx off: nothing fetched
    rig.w(eth::kTxTail, 0xfffffffb);
    EXPECT_EQ(rig.r(eth::kTxTail), 3u);
}

TEST(Eth, UnalignedWritebackIsNotWritten) {
    EthRig rig;
    rig.up();
    rig.w(eth::kWbAddrLo, static_cast<uint32_t>(EthRig::kWb + 4));
    rig.dev.eth_rx(make_frame(60));
    EXPECT_EQ(rig.r(eth::kRxFrames), 1u);
    EXPECT_EQ(rig.host.dma_writes, 1u);  // the slot only
}

TEST(Eth, DeviceResetStopsEverything) {
    EthRig rig;
    rig.up(8, 2048, 256, 1500, 0, 100);
    for (uint32_t i = 0; i < 200; ++i) {
        rig.cmd(i, rig.tx_buf(0, make_frame(60)), 60);
    }
    rig.dev.eth_rx(make_frame(60));  // a moderation timer is pending (coal off, 100 us)
    rig.w(eth::kTxTail, 200);        // one batch sent, the rest continues on the timer
    EXPECT_EQ(rig.host.wire.size(), EthBlock::kTxBatch);
    rig.dev.reset();
    EXPECT_FALSE(rig.host.timer.has_value());
    const unsigned reads = rig.host.dma_reads;
    const unsigned writes = rig.host.dma_writes;
    rig.host.run_for(rig.dev, 10'000'000);
    rig.dev.eth_rx(make_frame(60));
    EXPECT_EQ(rig.host.wire.size(), EthBlock::kTxBatch);
    EXPECT_EQ(rig.host.dma_reads, reads);
    EXPECT_EQ(rig.host.dma_writes, writes);
    EXPECT_TRUE(rig.host.irqs.empty());
    EXPECT_EQ(rig.r(eth::kRxDropDisabled), 1u);  // counters restarted from 0
    EXPECT_EQ(rig.r(eth::kTxFrames), 0u);
    EXPECT_EQ(rig.r(eth::kIrqMask), 1u);

    // brought up again, the card works as after power-on: batches continue, moderation times out
    rig.host.wire.clear();
    rig.up(8, 2048, 256, 1500, 0, 100);
    rig.w(eth::kTxTail, 200);
    rig.host.run_for(rig.dev, 0);
    EXPECT_EQ(rig.host.wire.size(), 200u);
    EXPECT_EQ(rig.r(eth::kTxHead), 200u);
    rig.host.run_for(rig.dev, 100'000);
    EXPECT_EQ(rig.host.irqs.size(), 1u);  // the 200 TX events, on the 100 us timeout
}

TEST(Eth, SoftResetResetsTheEthBlock) {
    EthRig rig;
    rig.up();
    rig.dev.eth_rx(make_frame(60));
    ASSERT_EQ(rig.r(eth::kRxFrames), 1u);
    wr(rig.dev, core::kCtrl, core::kCtrlSoftReset.mask);
    EXPECT_EQ(rig.r(eth::kRxFrames), 0u);
    EXPECT_EQ(rig.r(eth::kRxRingSize), 0u);
    EXPECT_EQ(rig.r(eth::kCtrl), 0u);
}

// A hostile guest: random writes to every ETH register, random frames and doorbells. The model
// must not crash, every DMA stays bounded, and the rings never index outside their size.
TEST(Eth, RandomRegisterWritesAndFrames) {
    std::mt19937 rng(1234);
    for (int round = 0; round < 20; ++round) {
        EthRig rig;
        rig.up(8, 2048, 8);
        for (int i = 0; i < 2000; ++i) {
            const uint32_t off = 0xc + 4 * (rng() % ((0xb8 - 0xc) / 4));
            uint32_t v = static_cast<uint32_t>(rng());
            switch (rng() % 4) {
                case 0:
                    v &= 0xff;
                    break;
                case 1:
                    v = static_cast<uint32_t>(FakeHost::kBase) + (v & 0x3ffc0);
                    break;
                default:
                    break;
            }
            rig.w(off, v);
            if (rng() % 3 == 0) {
                auto f = make_frame(rng() % 10000, rng() % 2 ? kStation : kBroadcast);
                rig.dev.eth_rx(f);
            }
            if (rng() % 5 == 0) {
                rig.host.run_for(rig.dev, rng() % 200'000);
            }
            const uint32_t size = rig.r(eth::kRxRingSize);
            if (valid_ring_size(size)) {
                ASSERT_LT(rig.r(eth::kRxTail), size);
                ASSERT_LT(rig.r(eth::kRxHead), size);
            }
            ASSERT_LE(rig.host.max_dma_len, 8u + 9000 + 18);
            ASSERT_LE(rig.r(eth::kMtu), eth::kMaxMtuDefault);
        }
    }
}

}  // namespace
}  // namespace scenic::test
