// SPDX-License-Identifier: MIT
// The address vector of MODIFY_QP and of CREATE_AH (the same fields in both commands' formats)
// as a path: MACs, GIDs (IPv4-mapped ::ffff:a.b.c.d or IPv6), hop limit, traffic class and flow
// label. The source MAC and UDP source port are the caller's.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "scenic/roce/packet.hpp"

namespace scenic {

template <typename AvView>
void path_from_av(const AvView& v, roce::PathContext& p) {
    std::array<uint8_t, 16> dgid{};
    std::array<uint8_t, 16> sgid{};
    for (size_t i = 0; i < dgid.size(); ++i) {
        dgid[i] = v.dgid(i);
        sgid[i] = v.sgid(i);
    }
    for (size_t i = 0; i < p.dst_mac.size(); ++i) {
        p.dst_mac[i] = v.dmac(i);
    }
    p.ttl = v.hop_limit();
    const uint8_t tclass = v.traffic_class();
    p.dscp = static_cast<uint8_t>(tclass >> 2);
    p.ecn = static_cast<uint8_t>(tclass & 3);
    p.flow_label = v.flow_label();
    if (v.ipv4() != 0) {
        p.ip_version = roce::IpVersion::kV4;
        p.src_ip = {};
        p.dst_ip = {};
        std::copy_n(sgid.begin() + 12, 4, p.src_ip.begin());
        std::copy_n(dgid.begin() + 12, 4, p.dst_ip.begin());
    } else {
        p.ip_version = roce::IpVersion::kV6;
        p.src_ip = sgid;
        p.dst_ip = dgid;
    }
}

}  // namespace scenic
