// SPDX-License-Identifier: MIT
#include "scenic/scu_steering.hpp"

#include <algorithm>

#include "scenic/dp/frame_fields.hpp"

namespace scenic::scu {

namespace {

bool masked_eq(std::span<const uint8_t> value, const std::array<uint8_t, 16>& want,
               const std::array<uint8_t, 16>& mask) {
    for (size_t i = 0; i < value.size(); ++i) {
        if (((value[i] ^ want[i]) & mask[i]) != 0) {
            return false;
        }
    }
    return true;
}

bool any(const std::array<uint8_t, 16>& a) {
    return std::ranges::any_of(a, [](uint8_t b) { return b != 0; });
}

// The parts of a frame a rule looks at; absent layers stay nullopt / empty.
struct Parsed {
    uint16_t ethertype = 0;
    std::optional<uint8_t> proto;
    std::span<const uint8_t> src_ip, dst_ip;
    std::optional<uint16_t> src_port, dst_port;
};

Parsed parse(std::span<const uint8_t> f) {
    Parsed p;
    size_t off = 12;
    p.ethertype = dp::be16(f, off);  // the caller guarantees 14 bytes
    off += 2;
    if (p.ethertype == dp::kEtherTypeVlan && f.size() >= off + 4) {
        p.ethertype = dp::be16(f, off + 2);
        off += 4;
    }
    size_t l4 = 0;
    if (p.ethertype == dp::kEtherTypeIp4 && f.size() >= off + 20 && (f[off] >> 4) == 4) {
        const size_t ihl = size_t{f[off] & 0x0fU} * 4;
        if (ihl < 20 || f.size() < off + ihl) {
            return p;
        }
        p.proto = f[off + 9];
        p.src_ip = f.subspan(off + 12, 4);
        p.dst_ip = f.subspan(off + 16, 4);
        // Only the first fragment has the L4 header.
        const bool later_fragment = (dp::be16(f, off + 6) & 0x1fff) != 0;
        l4 = later_fragment ? 0 : off + ihl;
    } else if (p.ethertype == dp::kEtherTypeIp6 && f.size() >= off + 40 && (f[off] >> 4) == 6) {
        p.proto = f[off + 6];  // the first next header; extension headers are not walked
        p.src_ip = f.subspan(off + 8, 16);
        p.dst_ip = f.subspan(off + 24, 16);
        l4 = off + 40;
    }
    if (l4 != 0 && p.proto &&
        (*p.proto == dp::kIpProtoTcp || *p.proto == dp::kIpProtoUdp ||
         *p.proto == dp::kIpProtoSctp) &&
        f.size() >= l4 + 4) {
        p.src_port = dp::be16(f, l4);
        p.dst_port = dp::be16(f, l4 + 2);
    }
    return p;
}

bool matches(const SteerRule& r, const Parsed& p) {
    if (((p.ethertype ^ r.ethertype) & r.ethertype_mask) != 0) {
        return false;
    }
    const bool want_ip = r.ip_proto_mask != 0 || any(r.src_ip_mask) || any(r.dst_ip_mask) ||
                         r.src_port_mask != 0 || r.dst_port_mask != 0;
    if (!want_ip) {
        return true;
    }
    const bool v6 = (r.flags & kSteerIpv6) != 0;
    if (!p.proto || p.ethertype != (v6 ? dp::kEtherTypeIp6 : dp::kEtherTypeIp4)) {
        return false;
    }
    if (((*p.proto ^ r.ip_proto) & r.ip_proto_mask) != 0 ||
        !masked_eq(p.src_ip, r.src_ip, r.src_ip_mask) ||
        !masked_eq(p.dst_ip, r.dst_ip, r.dst_ip_mask)) {
        return false;
    }
    if (r.src_port_mask == 0 && r.dst_port_mask == 0) {
        return true;
    }
    return p.src_port && ((*p.src_port ^ r.src_port) & r.src_port_mask) == 0 &&
           ((*p.dst_port ^ r.dst_port) & r.dst_port_mask) == 0;
}

}  // namespace

SteerRule steer_rule_from(const admin::AqScuSteerAdd<const uint8_t>& v) {
    SteerRule r;
    const auto b = v.bytes();
    r.flags = static_cast<uint32_t>(b[8] | b[9] << 8 | b[10] << 16 | b[11] << 24);
    r.priority = v.priority();
    r.ethertype = v.ethertype();
    r.ethertype_mask = v.ethertype_mask();
    r.ip_proto = v.ip_proto();
    r.ip_proto_mask = v.ip_proto_mask();
    r.src_port = v.src_port();
    r.src_port_mask = v.src_port_mask();
    r.dst_port = v.dst_port();
    r.dst_port_mask = v.dst_port_mask();
    const auto copy16 = [&b](size_t off, std::array<uint8_t, 16>& dst) {
        std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(off), dst.size(), dst.begin());
    };
    copy16(0x20, r.src_ip);
    copy16(0x30, r.src_ip_mask);
    copy16(0x40, r.dst_ip);
    copy16(0x50, r.dst_ip_mask);
    return r;
}

bool steer_rule_valid(const SteerRule& r) {
    if ((r.flags & ~(kSteerRx | kSteerTx | kSteerIpv6)) != 0 ||
        (r.flags & (kSteerRx | kSteerTx)) == 0) {
        return false;
    }
    // A value bit outside its mask can never match as written: refused rather than ignored.
    if ((r.ethertype & ~r.ethertype_mask) != 0 || (r.ip_proto & ~r.ip_proto_mask) != 0 ||
        (r.src_port & ~r.src_port_mask) != 0 || (r.dst_port & ~r.dst_port_mask) != 0) {
        return false;
    }
    for (size_t i = 0; i < 16; ++i) {
        if ((r.src_ip[i] & ~r.src_ip_mask[i]) != 0 || (r.dst_ip[i] & ~r.dst_ip_mask[i]) != 0) {
            return false;
        }
        if ((r.flags & kSteerIpv6) == 0 && i >= 4 && (r.src_ip_mask[i] | r.dst_ip_mask[i]) != 0) {
            return false;
        }
    }
    // Ports exist only for an exact TCP, UDP or SCTP protocol.
    if (r.src_port_mask != 0 || r.dst_port_mask != 0) {
        if (r.ip_proto_mask != 0xff ||
            (r.ip_proto != dp::kIpProtoTcp && r.ip_proto != dp::kIpProtoUdp &&
             r.ip_proto != dp::kIpProtoSctp)) {
            return false;
        }
    }
    return true;
}

std::optional<unsigned> SteeringTable::add(unsigned slot, const SteerRule& r) {
    for (unsigned i = 0; i < entries_.size(); ++i) {
        if (!entries_[i].used) {
            entries_[i] = {true, slot, r, 0};
            return i;
        }
    }
    return std::nullopt;
}

bool SteeringTable::del(unsigned slot, unsigned index) {
    if (index >= entries_.size() || !entries_[index].used || entries_[index].slot != slot) {
        return false;
    }
    entries_[index] = {};
    return true;
}

void SteeringTable::clear_slot(unsigned slot) {
    for (Entry& e : entries_) {
        if (e.used && e.slot == slot) {
            e = {};
        }
    }
}

unsigned SteeringTable::used() const {
    return static_cast<unsigned>(
        std::ranges::count_if(entries_, [](const Entry& e) { return e.used; }));
}

std::optional<SteerHit> SteeringTable::match(Dir d, std::span<const uint8_t> frame) const {
    if (frame.size() < 14) {
        return std::nullopt;
    }
    const uint32_t dir = d == Dir::kRx ? kSteerRx : kSteerTx;
    const Parsed p = parse(frame);
    std::optional<SteerHit> best;
    uint16_t best_prio = 0;
    for (unsigned i = 0; i < entries_.size(); ++i) {
        const Entry& e = entries_[i];
        if (!e.used || (e.rule.flags & dir) == 0 || (best && e.rule.priority >= best_prio)) {
            continue;  // strictly lower priority needed: ties go to the lower index
        }
        if (matches(e.rule, p)) {
            best = SteerHit{e.slot, i};
            best_prio = e.rule.priority;
        }
    }
    return best;
}

}  // namespace scenic::scu
