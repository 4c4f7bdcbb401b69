// SPDX-License-Identifier: MIT
#include "scenic/roce/opcode.hpp"

#include <array>

#include "scenic/roce/headers.hpp"

namespace scenic::roce {

namespace {

using enum Opcode;
using R = PayloadRule;
using C = OpClass;

//                 opcode, name, headers, payload, class, request, first, last
constexpr std::array kTable = {
    OpcodeInfo{kSendFirst, "SEND_FIRST", 0, R::kFull, C::kSend, true, true, false},
    OpcodeInfo{kSendMiddle, "SEND_MIDDLE", 0, R::kFull, C::kSend, true, false, false},
    OpcodeInfo{kSendLast, "SEND_LAST", 0, R::kTail, C::kSend, true, false, true},
    OpcodeInfo{kSendLastImm, "SEND_LAST_WITH_IMMEDIATE", kHdrImmDt, R::kTail, C::kSend, true, false,
               true},
    OpcodeInfo{kSendOnly, "SEND_ONLY", 0, R::kTail, C::kSend, true, true, true},
    OpcodeInfo{kSendOnlyImm, "SEND_ONLY_WITH_IMMEDIATE", kHdrImmDt, R::kTail, C::kSend, true, true,
               true},
    OpcodeInfo{kWriteFirst, "RDMA_WRITE_FIRST", kHdrReth, R::kFull, C::kWrite, true, true, false},
    OpcodeInfo{kWriteMiddle, "RDMA_WRITE_MIDDLE", 0, R::kFull, C::kWrite, true, false, false},
    OpcodeInfo{kWriteLast, "RDMA_WRITE_LAST", 0, R::kTail, C::kWrite, true, false, true},
    OpcodeInfo{kWriteLastImm, "RDMA_WRITE_LAST_WITH_IMMEDIATE", kHdrImmDt, R::kTail, C::kWrite,
               true, false, true},
    OpcodeInfo{kWriteOnly, "RDMA_WRITE_ONLY", kHdrReth, R::kTail, C::kWrite, true, true, true},
    OpcodeInfo{kWriteOnlyImm, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", kHdrReth | kHdrImmDt, R::kTail,
               C::kWrite, true, true, true},
    OpcodeInfo{kReadRequest, "RDMA_READ_REQUEST", kHdrReth, R::kNone, C::kRead, true, true, true},
    OpcodeInfo{kReadResponseFirst, "RDMA_READ_RESPONSE_FIRST", kHdrAeth, R::kFull, C::kReadResponse,
               false, true, false},
    OpcodeInfo{kReadResponseMiddle, "RDMA_READ_RESPONSE_MIDDLE", 0, R::kFull, C::kReadResponse,
               false, false, false},
    OpcodeInfo{kReadResponseLast, "RDMA_READ_RESPONSE_LAST", kHdrAeth, R::kTail, C::kReadResponse,
               false, false, true},
    OpcodeInfo{kReadResponseOnly, "RDMA_READ_RESPONSE_ONLY", kHdrAeth, R::kTail, C::kReadResponse,
               false, true, true},
    OpcodeInfo{kAck, "ACKNOWLEDGE", kHdrAeth, R::kNone, C::kAck, false, true, true},
    OpcodeInfo{kAtomicAck, "ATOMIC_ACKNOWLEDGE", kHdrAeth | kHdrAtomicAckEth, R::kNone, C::kAck,
               false, true, true},
    OpcodeInfo{kCmpSwap, "COMPARE_SWAP", kHdrAtomicEth, R::kNone, C::kAtomic, true, true, true},
    OpcodeInfo{kFetchAdd, "FETCH_ADD", kHdrAtomicEth, R::kNone, C::kAtomic, true, true, true},
    OpcodeInfo{kSendLastInv, "SEND_LAST_WITH_INVALIDATE", kHdrIeth, R::kTail, C::kSend, true, false,
               true},
    OpcodeInfo{kSendOnlyInv, "SEND_ONLY_WITH_INVALIDATE", kHdrIeth, R::kTail, C::kSend, true, true,
               true},
    OpcodeInfo{kCnp, "CNP", kHdrCnpReserved, R::kNone, C::kCnp, false, true, true},
};

// Selective repeat (docs/selective-repeat.md 2.3, 3.1): an SR data opcode is its RC opcode's
// entry with SRETH first, and RETH on every WRITE packet.
constexpr OpcodeInfo sr_data(Opcode rc, std::string_view name) {
    OpcodeInfo i{};
    for (const OpcodeInfo& e : kTable) {
        if (e.opcode == rc) i = e;
    }
    i.opcode = static_cast<Opcode>(kSrDataBase + static_cast<uint8_t>(rc));
    i.name = name;
    i.hdrs = static_cast<uint16_t>(i.hdrs | kHdrSreth | (i.cls == C::kWrite ? kHdrReth : 0));
    return i;
}

constexpr std::array kSrTable = {
    OpcodeInfo{kSrHello, "SR_HELLO", kHdrSrHello, R::kNone, C::kSrHello, true, true, true},
    OpcodeInfo{kSrHelloAck, "SR_HELLO_ACK", kHdrSrHello, R::kNone, C::kSrHello, false, true, true},
    sr_data(kSendFirst, "SR_SEND_FIRST"),
    sr_data(kSendMiddle, "SR_SEND_MIDDLE"),
    sr_data(kSendLast, "SR_SEND_LAST"),
    sr_data(kSendLastImm, "SR_SEND_LAST_WITH_IMMEDIATE"),
    sr_data(kSendOnly, "SR_SEND_ONLY"),
    sr_data(kSendOnlyImm, "SR_SEND_ONLY_WITH_IMMEDIATE"),
    sr_data(kWriteFirst, "SR_RDMA_WRITE_FIRST"),
    sr_data(kWriteMiddle, "SR_RDMA_WRITE_MIDDLE"),
    sr_data(kWriteLast, "SR_RDMA_WRITE_LAST"),
    sr_data(kWriteLastImm, "SR_RDMA_WRITE_LAST_WITH_IMMEDIATE"),
    sr_data(kWriteOnly, "SR_RDMA_WRITE_ONLY"),
    sr_data(kWriteOnlyImm, "SR_RDMA_WRITE_ONLY_WITH_IMMEDIATE"),
    sr_data(kSendLastInv, "SR_SEND_LAST_WITH_INVALIDATE"),
    sr_data(kSendOnlyInv, "SR_SEND_ONLY_WITH_INVALIDATE"),
    // last: the fuzz corpus indexes the entries before it
    OpcodeInfo{kSrSack, "SR_SACK", kHdrAeth | kHdrSackEth, R::kNone, C::kSrSack, false, true, true},
};

// UD (IBA 9.2.1): DETH after the BTH, then ImmDt; one packet per message.
constexpr std::array kUdTable = {
    OpcodeInfo{kUdSendOnly, "UD_SEND_ONLY", kHdrDeth, R::kTail, C::kUdSend, true, true, true},
    OpcodeInfo{kUdSendOnlyImm, "UD_SEND_ONLY_WITH_IMMEDIATE", kHdrDeth | kHdrImmDt, R::kTail,
               C::kUdSend, true, true, true},
};

// UC (IBA 9.2.1): an RC SEND / WRITE entry under its UC opcode (RC opcode + 0x20).
constexpr OpcodeInfo uc_data(Opcode rc, std::string_view name) {
    OpcodeInfo i{};
    for (const OpcodeInfo& e : kTable) {
        if (e.opcode == rc) i = e;
    }
    i.opcode = static_cast<Opcode>(kUcBase + static_cast<uint8_t>(rc));
    i.name = name;
    return i;
}

constexpr std::array kUcTable = {
    uc_data(kSendFirst, "UC_SEND_FIRST"),
    uc_data(kSendMiddle, "UC_SEND_MIDDLE"),
    uc_data(kSendLast, "UC_SEND_LAST"),
    uc_data(kSendLastImm, "UC_SEND_LAST_WITH_IMMEDIATE"),
    uc_data(kSendOnly, "UC_SEND_ONLY"),
    uc_data(kSendOnlyImm, "UC_SEND_ONLY_WITH_IMMEDIATE"),
    uc_data(kWriteFirst, "UC_RDMA_WRITE_FIRST"),
    uc_data(kWriteMiddle, "UC_RDMA_WRITE_MIDDLE"),
    uc_data(kWriteLast, "UC_RDMA_WRITE_LAST"),
    uc_data(kWriteLastImm, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE"),
    uc_data(kWriteOnly, "UC_RDMA_WRITE_ONLY"),
    uc_data(kWriteOnlyImm, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE"),
};

}  // namespace

size_t OpcodeInfo::ext_size() const {
    size_t n = 0;
    if (has(kHdrReth)) n += Reth::kSize;
    if (has(kHdrAtomicEth)) n += AtomicEth::kSize;
    if (has(kHdrAeth)) n += Aeth::kSize;
    if (has(kHdrAtomicAckEth)) n += AtomicAckEth::kSize;
    if (has(kHdrImmDt)) n += ImmDt::kSize;
    if (has(kHdrIeth)) n += Ieth::kSize;
    if (has(kHdrCnpReserved)) n += kCnpReservedSize;
    if (has(kHdrSreth)) n += Sreth::kSize;
    if (has(kHdrSrHello)) n += SrHello::kSize;
    if (has(kHdrDeth)) n += Deth::kSize;
    if (has(kHdrSackEth)) n += SackEth::kSize;
    return n;
}

const OpcodeInfo* rc_opcode_info(uint8_t opcode) {
    for (const OpcodeInfo& i : kTable) {
        if (static_cast<uint8_t>(i.opcode) == opcode) return &i;
    }
    return nullptr;
}

std::span<const OpcodeInfo> rc_opcodes() { return kTable; }

const OpcodeInfo* opcode_info(uint8_t opcode, OpcodeSet set) {
    if (is_ud(opcode)) {
        for (const OpcodeInfo& i : kUdTable) {
            if (static_cast<uint8_t>(i.opcode) == opcode) return &i;
        }
        return nullptr;
    }
    if (is_uc(opcode)) {
        return opcode <= kUcLast ? &kUcTable[opcode - kUcBase] : nullptr;
    }
    if (!is_sr_vendor(opcode)) return rc_opcode_info(opcode);
    if (set != OpcodeSet::kRcAndSr) return nullptr;
    for (const OpcodeInfo& i : kSrTable) {
        if (static_cast<uint8_t>(i.opcode) == opcode) return &i;
    }
    return nullptr;
}

std::span<const OpcodeInfo> sr_opcodes() { return kSrTable; }

std::span<const OpcodeInfo> ud_opcodes() { return kUdTable; }

std::span<const OpcodeInfo> uc_opcodes() { return kUcTable; }

}  // namespace scenic::roce
