// SPDX-License-Identifier: MIT
// The RC opcode table (IBA vol. 1 ch. 9; annex A17 for CNP): which extended headers each
// opcode carries, in wire order after the BTH, and its payload rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace scenic::roce {

enum class Opcode : uint8_t {
    kSendFirst = 0x00,
    kSendMiddle = 0x01,
    kSendLast = 0x02,
    kSendLastImm = 0x03,
    kSendOnly = 0x04,
    kSendOnlyImm = 0x05,
    kWriteFirst = 0x06,
    kWriteMiddle = 0x07,
    kWriteLast = 0x08,
    kWriteLastImm = 0x09,
    kWriteOnly = 0x0a,
    kWriteOnlyImm = 0x0b,
    kReadRequest = 0x0c,
    kReadResponseFirst = 0x0d,
    kReadResponseMiddle = 0x0e,
    kReadResponseLast = 0x0f,
    kReadResponseOnly = 0x10,
    kAck = 0x11,
    kAtomicAck = 0x12,
    kCmpSwap = 0x13,
    kFetchAdd = 0x14,
    kSendLastInv = 0x16,
    kSendOnlyInv = 0x17,
    kUdSendOnly = 0x64,     // UD (transport 011): the only two opcodes a UD QP sends
    kUdSendOnlyImm = 0x65,  // ... and receives (IBA 9.2.1)
    kCnp = 0x81,            // RoCE v2 Congestion Notification Packet (annex A17)
    // Manufacturer-specific opcodes of selective repeat (docs/selective-repeat.md 2.3): only a
    // card with SR parses them (OpcodeSet::kRcAndSr); SR data packets are 0xE0 + the RC opcode.
    kSrHello = 0xc0,
    kSrHelloAck = 0xc1,
    kSrSack = 0xc2,
};
inline constexpr uint8_t kSrDataBase = 0xe0;
[[nodiscard]] constexpr bool is_sr_data(uint8_t opcode) { return (opcode & 0xe0) == kSrDataBase; }
[[nodiscard]] constexpr bool is_sr_vendor(uint8_t opcode) { return opcode >= 0xc0; }

// Extended headers, as bits; on the wire they follow the BTH in this order.
enum Hdr : uint16_t {
    kHdrReth = 1u << 0,
    kHdrAtomicEth = 1u << 1,
    kHdrAeth = 1u << 2,
    kHdrAtomicAckEth = 1u << 3,
    kHdrImmDt = 1u << 4,
    kHdrIeth = 1u << 5,
    kHdrCnpReserved = 1u << 6,  // the CNP's 16 reserved bytes (written as 0, ignored)
    kHdrSreth = 1u << 7,        // SR data packets: first after the BTH
    kHdrSrHello = 1u << 8,      // SR_HELLO / SR_HELLO_ACK
    kHdrDeth = 1u << 9,         // UD: right after the BTH, before ImmDt
    kHdrSackEth = 1u << 10,     // SR_SACK: after the AETH
};
inline constexpr size_t kCnpReservedSize = 16;

enum class PayloadRule : uint8_t {
    kNone,  // no payload, pad count 0
    kFull,  // FIRST / MIDDLE: exactly one PMTU (>= 256, a multiple of 4), so pad count 0
    kTail,  // LAST / ONLY: 0..PMTU bytes, pad count makes payload + pad a multiple of 4
};

enum class OpClass : uint8_t {
    kSend,
    kWrite,
    kRead,
    kReadResponse,
    kAck,
    kAtomic,
    kCnp,
    kSrHello,  // SR_HELLO (request) and SR_HELLO_ACK (response)
    kSrSack,   // SR_SACK (response): a cumulative ACK plus missing ranges
    kUdSend,   // UD SEND_ONLY / SEND_ONLY_WITH_IMMEDIATE: one packet, no ACK
};

struct OpcodeInfo {
    Opcode opcode;
    std::string_view name;
    uint16_t hdrs;  // Hdr bits
    PayloadRule payload;
    OpClass cls;
    bool request;  // requester -> responder (else responder -> requester, or CNP)
    bool first;    // FIRST or ONLY (starts a message)
    bool last;     // LAST or ONLY (ends a message)

    bool has(Hdr h) const { return (hdrs & h) != 0; }
    size_t ext_size() const;  // bytes of extended headers after the BTH
};

// nullptr for an opcode that is not RC (UC, UD, RD, reserved, manufacturer-specific) or CNP.
// opcode_info() also knows the two UD opcodes (ud_opcodes()) in every OpcodeSet.
const OpcodeInfo* rc_opcode_info(uint8_t opcode);
inline const OpcodeInfo* rc_opcode_info(Opcode op) {
    return rc_opcode_info(static_cast<uint8_t>(op));
}
std::span<const OpcodeInfo> rc_opcodes();  // every entry, for tests and tools

// Which opcodes a parser knows: a card without selective repeat knows RC (and CNP) only.
enum class OpcodeSet : uint8_t { kRc, kRcAndSr };
const OpcodeInfo* opcode_info(uint8_t opcode, OpcodeSet set);
std::span<const OpcodeInfo> sr_opcodes();  // the SR vendor opcodes, for tests and tools
std::span<const OpcodeInfo> ud_opcodes();  // SEND_ONLY / SEND_ONLY_WITH_IMMEDIATE of UD
[[nodiscard]] constexpr bool is_ud(uint8_t opcode) { return (opcode & 0xe0) == 0x60; }
// UC (transport 001, IBA 9.2.1): the RC SEND and RDMA WRITE opcodes 0x00..0x0b with bit 5 set,
// the same headers; no READ, atomics or ACKs. opcode_info() knows them in every OpcodeSet.
inline constexpr uint8_t kUcBase = 0x20;
inline constexpr uint8_t kUcLast = 0x2b;
[[nodiscard]] constexpr bool is_uc(uint8_t opcode) { return (opcode & 0xe0) == kUcBase; }
std::span<const OpcodeInfo> uc_opcodes();  // UC SEND / RDMA WRITE, for tests and tools

}  // namespace scenic::roce
