// SPDX-License-Identifier: MIT
// QP 1 (GSI) takes the fallback path: the engine does RC only and the driver runs QP 1 in
// software over its UDP socket, so with RDMA.CTRL.enable set a RoCE v2 frame whose BTH
// destination QP is 1 lands in the ETH RX ring and is not counted as an engine drop, while a
// frame to another QP still goes to the engine.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "eth_rig.hpp"
#include "scenic/roce/headers.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::test {
namespace {

namespace eth = regs::eth;
namespace rr = regs::rdma;

constexpr uint8_t kUdSendOnly = 0x64;

// A RoCE v2 UD SEND_ONLY (BTH, DETH, 256-byte MAD, ICRC) from kPeer to kStation.
std::vector<uint8_t> ud_frame(uint32_t dest_qp, bool good_icrc = true) {
    constexpr size_t kMad = 256;
    constexpr size_t kRoce = roce::Bth::kSize + 8 + kMad + 4;
    constexpr size_t kIp = roce::Ipv4Header::kMinSize + roce::UdpHeader::kSize + kRoce;
    std::vector<uint8_t> f(roce::EthHeader::kSize + kIp);
    const std::span<uint8_t> b(f);

    roce::EthHeader e;
    e.dst = kStation;
    e.src = kPeer;
    EXPECT_TRUE(e.encode(b));
    roce::Ipv4Header ip;
    ip.total_length = kIp;
    ip.src = {10, 0, 0, 2};
    ip.dst = {10, 0, 0, 1};
    EXPECT_TRUE(ip.encode(b.subspan(roce::EthHeader::kSize)));
    roce::UdpHeader udp;
    udp.sport = 0xc001;
    udp.length = roce::UdpHeader::kSize + kRoce;
    EXPECT_TRUE(udp.encode(b.subspan(roce::EthHeader::kSize + roce::Ipv4Header::kMinSize)));
    roce::Bth bth;
    bth.opcode = kUdSendOnly;
    bth.dest_qp = dest_qp;
    const auto t =
        b.subspan(roce::EthHeader::kSize + roce::Ipv4Header::kMinSize + roce::UdpHeader::kSize);
    EXPECT_TRUE(bth.encode(t));
    const uint8_t deth[8] = {0x80, 0x01, 0x00, 0x00, 0, 0, 0, 1};  // Q_Key 0x80010000, src QP 1
    std::copy(std::begin(deth), std::end(deth), t.begin() + roce::Bth::kSize);
    for (size_t i = 0; i < kMad; ++i) {
        t[roce::Bth::kSize + 8 + i] = static_cast<uint8_t>(i);
    }
    uint32_t crc = roce::icrc(b.subspan(roce::EthHeader::kSize));
    if (!good_icrc) {
        crc ^= 1;
    }
    for (unsigned i = 0; i < 4; ++i) {
        t[kRoce - 4 + i] = static_cast<uint8_t>(crc >> (8 * i));
    }
    return f;
}

class RdmaGsi : public ::testing::Test {
  protected:
    void SetUp() override {
        rig.up(16);
        wr(rig.dev, rr::kOffset + rr::kCtrl, 1);  // RoCE v2 frames go to the engine
    }
    uint32_t engine_drops() const {
        return rd(rig.dev, rr::kOffset + rr::kRxDropIcrc) +
               rd(rig.dev, rr::kOffset + rr::kRxDropQp) +
               rd(rig.dev, rr::kOffset + rr::kRxDropMalformed);
    }
    EthRig rig;
};

TEST_F(RdmaGsi, FrameToQp1LandsInTheRxRing) {
    const auto f = ud_frame(1);
    rig.dev.eth_rx(f);
    EXPECT_EQ(rig.r(eth::kRxFrames), 1u);
    EXPECT_EQ(rig.slot_frame(0), f);
    EXPECT_EQ(rig.tag(0).flags & 0x7u, 1u);  // valid, class RoCE
    EXPECT_EQ(engine_drops(), 0u);
    EXPECT_EQ(rd(rig.dev, rr::kOffset + rr::kRxPkts), 0u);
}

TEST_F(RdmaGsi, OtherQpsStayWithTheEngine) {
    rig.dev.eth_rx(ud_frame(5));  // UD to a QP the engine does not have: dropped there
    EXPECT_EQ(rig.r(eth::kRxFrames), 0u);
    EXPECT_EQ(rd(rig.dev, rr::kOffset + rr::kRxDropQp), 1u);
}

TEST_F(RdmaGsi, BadIcrcToQp1IsAnEngineDrop) {
    rig.dev.eth_rx(ud_frame(1, false));
    EXPECT_EQ(rig.r(eth::kRxFrames), 0u);
    EXPECT_EQ(rd(rig.dev, rr::kOffset + rr::kRxDropIcrc), 1u);
}

TEST_F(RdmaGsi, EngineDisabledEverythingTakesTheRing) {
    wr(rig.dev, rr::kOffset + rr::kCtrl, 0);
    rig.dev.eth_rx(ud_frame(1));
    rig.dev.eth_rx(ud_frame(5));
    EXPECT_EQ(rig.r(eth::kRxFrames), 2u);
}

}  // namespace
}  // namespace scenic::test
