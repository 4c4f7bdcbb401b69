// SPDX-License-Identifier: MIT
// SteerRule to the uapi's scenic_scu_steer_rule: addresses and prefixes to bytes and masks.
#include <arpa/inet.h>

#include <cerrno>
#include <cstring>

#include "scenic/scenic.hpp"
#include "slot_handle.hpp"

namespace scenic {

namespace {

constexpr uint16_t kEtherIpv4 = 0x0800;
constexpr uint16_t kEtherIpv6 = 0x86dd;

// "addr[/len]" into 16 bytes of address and mask (network order); returns the family or 0 if
// the text is empty. Throws ScenicError EINVAL on bad text.
int parse_prefix(const std::string& text, uint8_t (&addr)[16], uint8_t (&mask)[16]) {
    if (text.empty()) {
        return 0;
    }
    const auto slash = text.find('/');
    const std::string a = text.substr(0, slash);
    const int family = a.find(':') != std::string::npos ? AF_INET6 : AF_INET;
    const unsigned bits = family == AF_INET6 ? 128 : 32;
    unsigned len = bits;
    if (slash != std::string::npos) {
        const std::string l = text.substr(slash + 1);
        char* end = nullptr;
        const unsigned long v = std::strtoul(l.c_str(), &end, 10);
        if (l.empty() || *end != '\0' || v > bits) {
            throw ScenicError(EINVAL, "steering rule", "bad prefix length in '" + text + "'");
        }
        len = static_cast<unsigned>(v);
    }
    if (inet_pton(family, a.c_str(), addr) != 1) {
        throw ScenicError(EINVAL, "steering rule", "bad address '" + text + "'");
    }
    for (unsigned i = 0; i < bits / 8; ++i) {
        const unsigned have = len > i * 8 ? len - i * 8 : 0;
        mask[i] = have >= 8 ? 0xff : static_cast<uint8_t>(0xff00 >> have);
        addr[i] &= mask[i];
    }
    return family;
}

}  // namespace

uint32_t ScenicReconfig::steer_add(unsigned slot, const SteerRule& r) {
    if (!r.rx && !r.tx) {
        throw ScenicError(EINVAL, "steering rule", "neither rx nor tx");
    }
    scenic_scu_steer_rule k{};
    k.flags = (r.rx ? uint32_t{SCENIC_SCU_STEER_DIR_RX} : 0U) |
              (r.tx ? uint32_t{SCENIC_SCU_STEER_DIR_TX} : 0U);
    k.priority = r.priority;
    const int fs = parse_prefix(r.src_ip, k.src_ip, k.src_ip_mask);
    const int fd = parse_prefix(r.dst_ip, k.dst_ip, k.dst_ip_mask);
    if (fs != 0 && fd != 0 && fs != fd) {
        throw ScenicError(EINVAL, "steering rule", "source and destination of different families");
    }
    const int family = fs != 0 ? fs : fd;
    if (family == AF_INET6) {
        k.flags |= SCENIC_SCU_STEER_IPV6;
    }
    if (r.ethertype || family != 0) {
        k.ethertype = r.ethertype.value_or(family == AF_INET6 ? kEtherIpv6 : kEtherIpv4);
        k.ethertype_mask = 0xffff;
    }
    // The card matches ports only under an exact TCP, UDP or SCTP protocol (docs/scu.md 3).
    if ((r.src_port || r.dst_port) &&
        (!r.ip_proto || (*r.ip_proto != 6 && *r.ip_proto != 17 && *r.ip_proto != 132))) {
        throw ScenicError(EINVAL, "steering rule", "ports need --ip-proto 6, 17 or 132");
    }
    if (r.ip_proto) {
        k.ip_proto = *r.ip_proto;
        k.ip_proto_mask = 0xff;
    }
    if (r.src_port) {
        k.src_port = *r.src_port;
        k.src_port_mask = 0xffff;
    }
    if (r.dst_port) {
        k.dst_port = *r.dst_port;
        k.dst_port_mask = 0xffff;
    }
    if (const auto h = SlotHandle::find_owner(sys_, card_, slot)) {
        return h->steer_add(k);
    }
    return SlotHandle(sys_, card_, slot, true).steer_add(k);
}

void ScenicReconfig::steer_del(unsigned slot, uint32_t rule_id) {
    if (const auto h = SlotHandle::find_owner(sys_, card_, slot)) {
        h->steer_del(rule_id);
        return;
    }
    SlotHandle(sys_, card_, slot, true).steer_del(rule_id);
}

}  // namespace scenic
