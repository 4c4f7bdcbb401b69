// SPDX-License-Identifier: MIT
// A card with its ETH rings programmed as scenic_eth.ko does (docs/eth-path.md, bring-up
// order), in FakeHost memory, plus frame builders for the ETH tests.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fake_host.hpp"
#include "scenic/regs.hpp"

namespace scenic::test {

inline constexpr std::array<uint8_t, 6> kStation{0x02, 0x5c, 0x00, 0x00, 0x00, 0x01};
inline constexpr std::array<uint8_t, 6> kPeer{0x02, 0x5c, 0x00, 0x00, 0x00, 0x02};
inline constexpr std::array<uint8_t, 6> kBroadcast{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
inline constexpr std::array<uint8_t, 6> kMulticast{0x33, 0x33, 0x00, 0x00, 0x00, 0x01};

// Ethernet frame of len bytes to dst with an ethertype and a payload pattern.
inline std::vector<uint8_t> make_frame(size_t len, const std::array<uint8_t, 6>& dst = kStation,
                                       uint16_t ethertype = 0x88b5, uint8_t fill = 0) {
    std::vector<uint8_t> f(len);
    for (size_t i = 0; i < len; ++i) {
        f[i] = static_cast<uint8_t>(fill + i);
    }
    if (len >= 14) {
        std::copy(dst.begin(), dst.end(), f.begin());
        std::copy(kPeer.begin(), kPeer.end(), f.begin() + 6);
        f[12] = static_cast<uint8_t>(ethertype >> 8);
        f[13] = static_cast<uint8_t>(ethertype);
    }
    return f;
}

// IPv4 frame with protocol proto (17: UDP to dport, 6: TCP).
inline std::vector<uint8_t> make_ipv4(uint8_t proto, uint16_t dport = 0, size_t len = 128) {
    auto f = make_frame(len, kStation, 0x0800);
    std::fill(f.begin() + 14, f.end(), 0);
    f[14] = 0x45;
    f[23] = proto;
    f[36] = static_cast<uint8_t>(dport >> 8);
    f[37] = static_cast<uint8_t>(dport);
    return f;
}

struct RxTag {
    uint16_t len;
    uint16_t flags;
    uint32_t seq;
};

class EthRig {
  public:
    static constexpr uint64_t kRxRing = FakeHost::kBase;              // up to 160 KiB
    static constexpr uint64_t kTxRing = FakeHost::kBase + 0x28000;    // up to 16 KiB
    static constexpr uint64_t kWb = FakeHost::kBase + 0x2c000;        // 64 bytes
    static constexpr uint64_t kTxFrames = FakeHost::kBase + 0x2d000;  // 76 KiB of TX frames

    explicit EthRig(Config config = make_config()) : dev(config, host) {}

    static Config make_config() {
        Config c;
        c.mac = kStation;
        return c;
    }

    uint32_t r(uint32_t off) const { return rd(dev, regs::eth::kOffset + off); }
    void w(uint32_t off, uint32_t v) { wr(dev, regs::eth::kOffset + off, v); }

    // ndo_open's order: masked, disabled, MTU, moderation, writeback, RX ring, TX ring, enable.
    void up(uint32_t rx_size = 8, uint32_t stride = 2048, uint32_t tx_size = 8, uint32_t mtu = 1500,
            uint32_t coal = 1, uint32_t time = 0) {
        namespace eth = regs::eth;
        w(eth::kIrqMask, 1);
        w(eth::kCtrl, 0);
        w(eth::kMtu, mtu);
        w(eth::kIrqCoal, coal);
        w(eth::kIrqTime, time);
        w(eth::kWbAddrLo, static_cast<uint32_t>(kWb));
        w(eth::kWbAddrHi, static_cast<uint32_t>(kWb >> 32));
        w(eth::kRxRingSize, 0);
        w(eth::kRxRingAddrLo, static_cast<uint32_t>(kRxRing));
        w(eth::kRxRingAddrHi, static_cast<uint32_t>(kRxRing >> 32));
        w(eth::kRxRingStride, stride);
        w(eth::kRxRingSize, rx_size);
        w(eth::kRxHead, 0);
        w(eth::kTxRingSize, 0);
        w(eth::kTxRingAddrLo, static_cast<uint32_t>(kTxRing));
        w(eth::kTxRingAddrHi, static_cast<uint32_t>(kTxRing >> 32));
        w(eth::kTxRingSize, tx_size);
        w(eth::kCtrl, eth::kCtrlRxEn.mask | eth::kCtrlTxEn.mask);
        w(eth::kIrqMask, 0);
        stride_ = stride;
    }

    uint8_t* mem(uint64_t addr) { return host.mem.data() + (addr - FakeHost::kBase); }
    uint32_t le32(uint64_t addr) {
        uint32_t v = 0;
        std::memcpy(&v, mem(addr), 4);
        return v;
    }
    void put32(uint64_t addr, uint32_t v) { std::memcpy(mem(addr), &v, 4); }
    void put64(uint64_t addr, uint64_t v) { std::memcpy(mem(addr), &v, 8); }

    uint64_t slot(uint32_t i) const { return kRxRing + uint64_t{i} * stride_; }
    RxTag tag(uint32_t i) {
        RxTag t{};
        std::memcpy(&t.len, mem(slot(i)), 2);
        std::memcpy(&t.flags, mem(slot(i)) + 2, 2);
        std::memcpy(&t.seq, mem(slot(i)) + 4, 4);
        return t;
    }
    std::vector<uint8_t> slot_frame(uint32_t i) {
        const RxTag t = tag(i);
        const uint8_t* p = mem(slot(i)) + 8;
        return {p, p + t.len};
    }
    uint32_t wb_rx_tail() { return le32(kWb); }
    uint32_t wb_tx_head() { return le32(kWb + 4); }

    // TX command idx: send len bytes at addr.
    void cmd(uint32_t idx, uint64_t addr, uint32_t len, uint32_t flags = 0) {
        const uint64_t c = kTxRing + uint64_t{idx} * 16;
        put64(c, addr);
        put32(c + 8, len);
        put32(c + 12, flags);
    }
    // Puts frame into TX buffer memory n (2 KiB each) and returns its bus address.
    uint64_t tx_buf(unsigned n, const std::vector<uint8_t>& frame, size_t room = 2048) {
        const uint64_t a = kTxFrames + n * room;
        std::copy(frame.begin(), frame.end(), mem(a));
        return a;
    }

    FakeHost host;
    Device dev;

  private:
    uint32_t stride_ = 2048;
};

}  // namespace scenic::test
