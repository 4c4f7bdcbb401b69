// SPDX-License-Identifier: MIT
// The fuzz harness's input format: a flags byte, then a stream of operations, each one kind byte
// followed by its fields (little-endian). A reader past the end yields zeros, so every byte
// string is a valid input. The seed generator (make_corpus.cpp) writes inputs with Writer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "scenic/admin.hpp"

namespace scenic::fuzz {

// First byte of an input.
enum Flags : uint8_t {
    kFlagPrologue = 1u << 0,       // bring the card up as the driver does before the op stream
    kFlagNoDbrec = 1u << 1,        // prologue QPs/CQs without doorbell records
    kFlagNoMsix = 1u << 2,         // card created without MSI-X
    kFlagHostileStatus = 1u << 3,  // prologue: QP 3's status page over AQ_SQ_TAIL - 8
};

// Operation kinds (the byte is taken modulo kOpCount).
enum Op : uint8_t {
    kOpMmioWrite,  // u16 offset, u8 size selector, u64 value
    kOpMmioRead,   // u16 offset, u8 size selector
    kOpDoorbell,   // u16 page, u8 register selector, u8 size selector, u32 value
    kOpCommand,    // u8 op, u8 nargs, nargs x Arg (see below): an AQ entry by encode_cmd
    kOpRamWrite,   // u32 offset, u16 length, bytes
    kOpPostSend,   // u8 qp, SendWqe fields (see harness)
    kOpPostRecv,   // u8 qp, u8 nsge, nsge x (u16 offset, u16 length, u8 key selector), u8 ring
    kOpTimer,      // u32 ns to advance (0: to the deadline), then fire if due
    kOpReset,      // (none) function-level reset
    kOpFrame,      // a well-formed RoCE v2 frame from the peer (see harness)
    kOpMsix,       // u8 vector, u8 target, u32 offset, u32 data
    kOpLink,       // u8 up
    kOpEvents,     // (none) the driver drains the AEQ (answering TLB misses) and the CEQ
    kOpPollCq,     // u8 cq, u8 arm
    kOpPeer,       // u8 action: the peer answers the oldest frame the card sent
    kOpDmaFault,   // u32 offset, u16 length: guest RAM that fails DMA (an IOMMU fault)
    kOpRawFrame,   // u16 length, bytes
    kOpSqeRaw,     // u8 mode, 128 bytes: a raw AQ entry at the SQ tail, rung and waited for
    kOpAqReg,      // u8 register selector, u32 value: AQ/AEQ/CEQ doorbell, head, base or config
    kOpAqSetup,    // u8 depths: the driver re-creates its AQ, AEQ and CEQ
    kOpScuWrite,   // u32 offset, u8 size selector, u64 value: BAR3 (SCU CSR windows)
    kOpScuRead,    // u32 offset, u8 size selector
    kOpEthTx,      // u8 entries, per entry a selector and its fields (see harness): ETH TX run
    kOpCount,
};

// kOpCommand's op byte: < 0xf0 picks from this table (every AQ opcode, TLB_FILL with an
// indirect page table as 0x100 | TLB_FILL, and unknown opcodes); >= 0xf0 is sent as it is.
inline constexpr uint32_t kTlbFillIndirect =
    0x100 | static_cast<uint32_t>(admin::AqOpcode::kTlbFill);
inline constexpr uint32_t kCmdTable[] = {static_cast<uint32_t>(admin::AqOpcode::kNop),
                                         static_cast<uint32_t>(admin::AqOpcode::kCreateCq),
                                         static_cast<uint32_t>(admin::AqOpcode::kDestroyCq),
                                         static_cast<uint32_t>(admin::AqOpcode::kQueryCq),
                                         static_cast<uint32_t>(admin::AqOpcode::kCreateQp),
                                         static_cast<uint32_t>(admin::AqOpcode::kModifyQp),
                                         static_cast<uint32_t>(admin::AqOpcode::kQueryQp),
                                         static_cast<uint32_t>(admin::AqOpcode::kDestroyQp),
                                         static_cast<uint32_t>(admin::AqOpcode::kQueryQpCc),
                                         static_cast<uint32_t>(admin::AqOpcode::kRegMr),
                                         static_cast<uint32_t>(admin::AqOpcode::kDeregMr),
                                         static_cast<uint32_t>(admin::AqOpcode::kTlbFill),
                                         kTlbFillIndirect,
                                         0x00,
                                         0x13,  // RESIZE_CQ since FEATURES.resize_cq
                                         0x7f,
                                         static_cast<uint32_t>(admin::AqOpcode::kScuLoad),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuUnload),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuQuerySlot),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuBindPd),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuReset),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuQueryCaps),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuSetStatusPage),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuFlushStats),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuSteerAdd),
                                         static_cast<uint32_t>(admin::AqOpcode::kScuSteerDel),
                                         static_cast<uint32_t>(admin::AqOpcode::kCreateSrq),
                                         static_cast<uint32_t>(admin::AqOpcode::kModifySrq),
                                         static_cast<uint32_t>(admin::AqOpcode::kQuerySrq),
                                         static_cast<uint32_t>(admin::AqOpcode::kDestroySrq),
                                         static_cast<uint32_t>(admin::AqOpcode::kAllocMw),
                                         static_cast<uint32_t>(admin::AqOpcode::kDeallocMw),
                                         static_cast<uint32_t>(admin::AqOpcode::kReregMr),
                                         0x14};
// The selector byte that picks `op` from kCmdTable.
constexpr uint8_t cmd_selector(uint32_t op) {
    for (size_t i = 0; i < std::size(kCmdTable); ++i) {
        if (kCmdTable[i] == op) {
            return static_cast<uint8_t>(i);
        }
    }
    return static_cast<uint8_t>(op);  // >= 0xf0: raw
}

// Command argument: a selector byte; < 0x80 picks from the harness's table of interesting
// values, >= 0x80 is followed by a raw u32.
inline constexpr uint8_t kArgRaw = 0x80;

class Reader {
  public:
    explicit Reader(std::span<const uint8_t> data) : data_(data) {}
    [[nodiscard]] bool empty() const { return pos_ >= data_.size(); }
    template <typename T>
    T get() {
        static_assert(std::is_integral_v<T>);
        uint8_t b[sizeof(T)] = {};
        const size_t n = std::min(sizeof(T), data_.size() - std::min(pos_, data_.size()));
        if (n != 0) {
            std::memcpy(b, data_.data() + pos_, n);
        }
        pos_ += sizeof(T);
        T v{};
        for (size_t i = sizeof(T); i-- > 0;) {
            v = static_cast<T>((static_cast<std::make_unsigned_t<T>>(v) << 8) | b[i]);
        }
        return v;
    }
    std::span<const uint8_t> bytes(size_t n) {
        const size_t at = std::min(pos_, data_.size());
        const size_t k = std::min(n, data_.size() - at);
        pos_ += n;
        return data_.subspan(at, k);
    }

  private:
    std::span<const uint8_t> data_;
    size_t pos_ = 0;
};

class Writer {
  public:
    template <typename T>
    Writer& put(T v) {
        for (size_t i = 0; i < sizeof(T); ++i) {
            out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
        }
        return *this;
    }
    Writer& op(Op o) { return put<uint8_t>(o); }
    Writer& bytes(std::span<const uint8_t> b) {
        out.insert(out.end(), b.begin(), b.end());
        return *this;
    }
    std::vector<uint8_t> out;
};

}  // namespace scenic::fuzz
