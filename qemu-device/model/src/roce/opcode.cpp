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
    return n;
}

const OpcodeInfo* rc_opcode_info(uint8_t opcode) {
    for (const OpcodeInfo& i : kTable) {
        if (static_cast<uint8_t>(i.opcode) == opcode) return &i;
    }
    return nullptr;
}

std::span<const OpcodeInfo> rc_opcodes() { return kTable; }

}  // namespace scenic::roce
