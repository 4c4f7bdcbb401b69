// SPDX-License-Identifier: MIT
// The keyed-XOR test SCU (kind 0x100, docs/scu.md 8 "Test kinds"): every payload byte is XORed
// with one byte of a 64-bit key per direction, chosen by the byte's offset in the message, so a
// retransmission gives the same bytes and the same key on the peer's other direction undoes it.
// It exists so tests can prove that a QP's data went through its slot, and, with its memory-port
// CSRs, that the slot reaches memory only in its bound PD; the example SCUs of issue 19 are the
// real ones. Model only: it has no RTL (rtl=scu refuses its images).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "scenic/scu.hpp"

namespace scenic::scu {

inline constexpr uint32_t kKindXorTest = 0x100;

class XorTest final : public Scu {
  public:
    static constexpr uint16_t kVersion = 1;
    // CSR indices.
    static constexpr uint32_t kId = 0;
    static constexpr uint32_t kKeyTx = 1;  // applied to s_tx (payload towards the wire)
    static constexpr uint32_t kKeyRx = 2;  // applied to s_rx (payload towards host memory)
    static constexpr uint32_t kPkts = 3;   // packets passed, both directions
    static constexpr uint32_t kBytes = 4;  // bytes passed, both directions
    // The memory port, one 8-byte request at a time (docs/scu.md 8 "Test kinds").
    static constexpr uint32_t kMemKey = 5;     // lkey of the request
    static constexpr uint32_t kMemIova = 6;    // its address in that MR
    static constexpr uint32_t kMemData = 7;    // a read's 8 bytes; a write's source
    static constexpr uint32_t kMemOp = 8;      // wo: kOpRead or kOpWrite starts a request
    static constexpr uint32_t kMemStatus = 9;  // ro: MemStatus of the last request
    static constexpr uint64_t kOpRead = 1;
    static constexpr uint64_t kOpWrite = 2;
    static constexpr uint64_t kStatusNone = 0xff;              // no request since reset
    static constexpr uint64_t kIdValue = 0x53435558'4f523031;  // "SCUXOR01"

    explicit XorTest(SlotPort& port) : Scu(port) { reset(); }

    void reset() override;
    [[nodiscard]] bool ready(Dir /*d*/) const override { return true; }
    void push(Dir d, const Meta& m, std::span<const uint8_t> data) override;
    uint64_t csr_read(uint32_t index) override;
    void csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) override;
    void mem_ready() override;
    [[nodiscard]] bool idle() const override { return true; }  // nothing is ever held

    // Byte i of a message, as this SCU outputs it for key `key`.
    static uint8_t apply(uint64_t key, uint64_t offset, uint8_t byte) {
        return static_cast<uint8_t>(byte ^ static_cast<uint8_t>(key >> (8 * (offset % 8))));
    }

  private:
    void mem_start();

    std::array<uint64_t, kDirs> key_{};
    uint64_t mem_key_ = 0;
    uint64_t mem_iova_ = 0;
    uint64_t mem_data_ = 0;
    uint64_t mem_op_ = 0;  // the request waiting for mem_ready() after kRetry, or 0
    uint64_t mem_status_ = kStatusNone;
    uint64_t pkts_ = 0;
    uint64_t bytes_ = 0;
    std::vector<uint8_t> out_;
};

}  // namespace scenic::scu
