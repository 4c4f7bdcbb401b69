// SPDX-License-Identifier: MIT
// Frame generator of the prefilter testbenches (one frame per beat and segmented): every class
// the prefilter tells apart, with random header fields and payload.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "tb_util.hpp"

namespace scenic::tb::prefilter {

enum class Kind {
    Roce4,
    Roce6,
    Udp4,
    Udp6,
    Tcp4,
    Tcp6,
    Ip6Ext,
    Ip4Frag,
    Ip4BadIhl,
    Arp,
    Vlan,
    Random,
    Count
};

// header bytes generated before the payload
constexpr size_t kHdrRoom = 96;

inline Frame make_frame(std::mt19937_64& rng, Kind k, size_t len) {
    std::vector<uint8_t> h(kHdrRoom, 0);
    for (auto& x : h) x = uint8_t(rng());
    auto put16 = [&](size_t o, unsigned v) {
        h[o] = uint8_t(v >> 8);
        h[o + 1] = uint8_t(v);
    };
    const bool v4 = k == Kind::Roce4 || k == Kind::Udp4 || k == Kind::Tcp4 || k == Kind::Ip4Frag ||
                    k == Kind::Ip4BadIhl || k == Kind::Vlan;
    size_t ip = 14;
    if (k == Kind::Vlan) {
        put16(12, 0x8100);
        put16(14, 0x0005);
        ip = 18;
        put16(16, 0x0800);
    } else if (k == Kind::Arp)
        put16(12, 0x0806);
    else if (k == Kind::Random) { /* all random */
    } else
        put16(12, v4 ? 0x0800 : 0x86dd);
    if (v4 && k != Kind::Random) {
        unsigned ihl = 5;
        if (rng() % 3 == 0) ihl = 5 + unsigned(rng() % 11);  // options: UDP moves up to byte 74
        if (k == Kind::Ip4BadIhl) ihl = unsigned(rng() % 5);
        h[ip] = uint8_t(0x40 | ihl);
        const bool frag = k == Kind::Ip4Frag;
        h[ip + 6] = uint8_t(frag ? (rng() & 0x3f) | 0x01 : (rng() & 0x60));  // DF/MF random
        h[ip + 7] = uint8_t(frag ? rng() : 0);
        h[ip + 9] = (k == Kind::Tcp4) ? 6 : 17;
        const size_t l4 = ip + 4 * std::max(ihl, 5u);
        put16(l4 + 2, (k == Kind::Udp4) ? 4790 + unsigned(rng() % 2) * 2 : 4791);
        if (k == Kind::Ip4BadIhl || k == Kind::Ip4Frag) put16(l4 + 2, 4791);
    } else if (k == Kind::Roce6 || k == Kind::Udp6 || k == Kind::Tcp6 || k == Kind::Ip6Ext) {
        h[14] = uint8_t(0x60 | (rng() & 0xf));
        h[20] = k == Kind::Tcp6 ? 6 : k == Kind::Ip6Ext ? 0 /* hop-by-hop */ : 17;
        put16(56, k == Kind::Udp6 ? 4792 : 4791);
    }
    Frame f(len);
    for (size_t i = 0; i < len; ++i) f[i] = i < h.size() ? h[i] : uint8_t(rng());
    return f;
}

inline size_t random_len(std::mt19937_64& rng) {
    switch (rng() % 8) {
        case 0:
            return rng() % 14;  // runt
        case 1:
            return 14 + rng() % 70;  // truncated headers
        case 2:
            return 64;
        case 3:
            return 9000 - rng() % 3;  // jumbo
        default:
            return 60 + rng() % 1459;
    }
}

}  // namespace scenic::tb::prefilter
