// SPDX-License-Identifier: MIT
// Frames and a virtual-time rig for scenic::sw::Switch's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "scenic/roce/packet.hpp"
#include "scenic/sw/core.hpp"

namespace scenic::sw::test {

using Frame = std::vector<uint8_t>;

inline constexpr uint64_t kT0 = 1'000'000'000;  // the rig's origin: 1 s of CLOCK_MONOTONIC

// Node n's MAC, as the runner assigns them.
inline roce::Mac mac(unsigned n) { return {0x52, 0x54, 0x00, 0x5c, 0x00, static_cast<uint8_t>(n)}; }

// A RoCE v2 SEND_ONLY frame from node src to node dst of exactly `len` bytes (len >= 82),
// IP ECN field `ecn`.
inline Frame roce_frame(unsigned src, unsigned dst, size_t len, uint8_t ecn,
                        roce::IpVersion ip = roce::IpVersion::kV4) {
    roce::PathContext path;
    path.src_mac = mac(src);
    path.dst_mac = mac(dst);
    path.ip_version = ip;
    path.src_ip = {10, 0, 0, static_cast<uint8_t>(src)};
    path.dst_ip = {10, 0, 0, static_cast<uint8_t>(dst)};
    path.ecn = ecn;
    roce::Transport t;
    t.bth.opcode = 0x04;  // RC SEND_ONLY
    t.bth.dest_qp = 0x11;
    t.bth.psn = 0x100;
    const size_t overhead =
        ip == roce::IpVersion::kV4 ? 14 + 20 + 8 + 12 + 4 : 14 + 40 + 8 + 12 + 4;
    // Payloads are padded to 4 bytes: the rest of len is Ethernet padding after the IP packet.
    const std::vector<uint8_t> payload((len - overhead) & ~size_t{3}, 0xab);
    auto built = roce::build_frame(path, t, payload);
    EXPECT_TRUE(built.ok()) << roce::to_string(built.error);
    built.frame.resize(len, 0);
    return built.frame;
}

// A non-IP frame (local experimental EtherType 0x88b5) of `len` bytes.
inline Frame plain_frame(const roce::Mac& src, const roce::Mac& dst, size_t len) {
    Frame f(len, 0x5a);
    std::copy(dst.begin(), dst.end(), f.begin());
    std::copy(src.begin(), src.end(), f.begin() + 6);
    f[12] = 0x88;
    f[13] = 0xb5;
    return f;
}
inline Frame plain_frame(unsigned src, unsigned dst, size_t len) {
    return plain_frame(mac(src), mac(dst), len);
}

// IP ECN bits of an IPv4 frame without VLAN tag.
inline uint8_t ecn_of(const Frame& f) { return f[15] & 3; }

struct Sent {
    unsigned port;
    Frame frame;
};

// One switch in virtual time; everything it sends is captured.
class Rig {
  public:
    explicit Rig(const SwitchConfig& c)
        : sw(
              c,
              [this](unsigned p, std::span<const uint8_t> f) {
                  sent.push_back({p, Frame(f.begin(), f.end())});
              },
              kT0) {}

    // Receive at kT0 + t_ns.
    void rx(unsigned port, const Frame& f, uint64_t t_ns) { sw.receive(port, f, kT0 + t_ns); }
    void at(uint64_t t_ns) { sw.advance(kT0 + t_ns); }
    std::vector<unsigned> ports_sent() const {
        std::vector<unsigned> out;
        for (const Sent& s : sent) {
            out.push_back(s.port);
        }
        return out;
    }

    std::vector<Sent> sent;
    Switch sw;
};

// n ports with the given rate, buffer and ECN policy.
inline SwitchConfig config(unsigned n, uint64_t rate = 1'000'000'000, uint64_t buffer = 1 << 20,
                           EcnPolicy ecn = {}) {
    SwitchConfig c;
    PortConfig p;
    p.rate_bps = rate;
    p.buffer = buffer;
    p.ecn = ecn;
    c.ports.assign(n, p);
    return c;
}

inline EcnPolicy ecn_off() {
    EcnPolicy e;
    e.mode = EcnMode::kOff;
    return e;
}

}  // namespace scenic::sw::test
