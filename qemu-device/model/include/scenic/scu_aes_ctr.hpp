// SPDX-License-Identifier: MIT
// The aes-ctr SCU (kind 2, docs/scu-aes-ctr.md): AES-128 in counter mode over the RDMA payload
// of the slot's QPs. The C++ twin of hw-rtl/scu/aes_ctr/rtl/scu_aes_ctr.sv, transaction level:
// the same bytes and CSR values for the same packets (hw-rtl/scu/aes_ctr/tb proves it).
// Each output byte depends only on the CSRs and the packet's metadata (QPN, offset), so a
// retransmission re-encrypts identically and the same key and IV at the peer's opposite
// direction decrypt. Frames (src 1) and disabled directions pass unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "scenic/scu.hpp"

namespace scenic::scu {

inline constexpr uint32_t kKindAesCtr = 2;

class AesCtr final : public Scu {
  public:
    static constexpr uint16_t kVersion = 1;
    // CSR indices (hw-rtl/scu/aes_ctr/scu.toml).
    static constexpr uint32_t kKeyHi = 0;    // key bytes 0..7, byte 0 in bits 63:56
    static constexpr uint32_t kKeyLo = 1;    // key bytes 8..15
    static constexpr uint32_t kIvTxHi = 2;   // s_tx counter base, bytes 0..7
    static constexpr uint32_t kIvTxLo = 3;   // bytes 8..15
    static constexpr uint32_t kIvRxHi = 4;   // s_rx counter base, bytes 0..7
    static constexpr uint32_t kIvRxLo = 5;   // bytes 8..15
    static constexpr uint32_t kQpnMask = 6;  // QPN bits that enter the counter (24 bits)
    static constexpr uint32_t kCtrl = 7;     // bit 0 encrypt s_tx, bit 1 encrypt s_rx
    static constexpr uint32_t kId = 8;
    static constexpr uint32_t kPkts = 9;                       // packets passed, both directions
    static constexpr uint32_t kBytes = 10;                     // bytes passed, both directions
    static constexpr uint64_t kIdValue = 0x53435541'45533031;  // "SCUAES01"
    static constexpr uint64_t kQpnMaskReset = 0xffffff;
    static constexpr uint64_t kCtrlTx = 1;
    static constexpr uint64_t kCtrlRx = 2;

    explicit AesCtr(SlotPort& port) : Scu(port) { reset(); }

    void reset() override;
    [[nodiscard]] bool ready(Dir /*d*/) const override { return true; }
    void push(Dir d, const Meta& m, std::span<const uint8_t> data) override;
    uint64_t csr_read(uint32_t index) override;
    void csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) override;
    [[nodiscard]] bool idle() const override { return true; }  // nothing is ever held

  private:
    std::array<uint64_t, 11> csr_{};  // indices 0..7 rw; 9, 10 the counters
    std::vector<uint8_t> out_;
};

}  // namespace scenic::scu
