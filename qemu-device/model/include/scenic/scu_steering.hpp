// SPDX-License-Identifier: MIT
// The card-wide steering table (docs/scu.md 3): fallback frames that match a rule go through
// the rule's slot. A rule matches EtherType (after at most one 802.1Q tag), IP protocol, source
// and destination address (IPv4 or IPv6, masked) and L4 ports (masked) in RX, TX or both; a
// zero mask is a wildcard. Lowest priority wins, then the lowest index.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "scenic/admin.hpp"
#include "scenic/scu.hpp"

namespace scenic::scu {

inline constexpr unsigned kSteerRules = 64;  // SCU.STEER_RULES

struct SteerRule {
    uint32_t flags = 0;  // kSteerRx | kSteerTx | kSteerIpv6
    uint16_t priority = 0;
    uint16_t ethertype = 0, ethertype_mask = 0;
    uint8_t ip_proto = 0, ip_proto_mask = 0;
    uint16_t src_port = 0, src_port_mask = 0;
    uint16_t dst_port = 0, dst_port_mask = 0;
    std::array<uint8_t, 16> src_ip{}, src_ip_mask{}, dst_ip{}, dst_ip_mask{};
};
inline constexpr uint32_t kSteerRx = 1;
inline constexpr uint32_t kSteerTx = 2;
inline constexpr uint32_t kSteerIpv6 = 4;

// The rule of an SCU_STEER_ADD entry.
SteerRule steer_rule_from(const admin::AqScuSteerAdd<const uint8_t>& v);
// Whether the card takes the rule (scu_status bad_rule otherwise).
[[nodiscard]] bool steer_rule_valid(const SteerRule& r);

// What a match gives: the slot, and the index the frame's metadata carries as `qpn`.
struct SteerHit {
    unsigned slot = 0;
    unsigned rule = 0;
};

class SteeringTable {
  public:
    // The index taken, or nullopt when the table is full.
    std::optional<unsigned> add(unsigned slot, const SteerRule& r);
    // False for an index out of range, a free entry or one of another slot.
    bool del(unsigned slot, unsigned index);
    // Every rule of the slot (an unload), or all of them (a card reset).
    void clear_slot(unsigned slot);
    void clear() { entries_ = {}; }
    [[nodiscard]] unsigned used() const;
    [[nodiscard]] std::optional<SteerHit> match(Dir d, std::span<const uint8_t> frame) const;
    // Frames that matched each entry since it was added (not in the contract: tests, debugging).
    [[nodiscard]] uint64_t hits(unsigned index) const {
        return index < entries_.size() ? entries_[index].hits : 0;
    }
    void count_hit(unsigned index) {
        if (index < entries_.size()) {
            ++entries_[index].hits;
        }
    }

  private:
    struct Entry {
        bool used = false;
        unsigned slot = 0;
        SteerRule rule;
        uint64_t hits = 0;
    };
    std::array<Entry, kSteerRules> entries_{};
};

}  // namespace scenic::scu
