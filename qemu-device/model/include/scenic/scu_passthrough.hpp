// SPDX-License-Identifier: MIT
// The built-in passthrough SCU (kind 1, docs/scu.md 8): packets out as they came in, a token
// bucket per direction (RATE_BPS, BURST) gating each packet start, counters and IRQ_EVERY.
#pragma once

#include <array>
#include <cstdint>

#include "scenic/scu.hpp"

namespace scenic::scu {

class Passthrough final : public Scu {
  public:
    static constexpr uint16_t kVersion = 1;
    // CSR indices.
    static constexpr uint32_t kId = 0;
    static constexpr uint32_t kScratch = 1;
    static constexpr uint32_t kRateBps = 2;
    static constexpr uint32_t kBurst = 3;
    static constexpr uint32_t kPkts = 4;
    static constexpr uint32_t kBytes = 5;
    static constexpr uint32_t kIrqEvery = 6;
    static constexpr uint32_t kIrqRaise = 7;  // wo: bit n raises line n (0..3), reads 0
    static constexpr uint64_t kIdValue = 0x53435550'41535331;  // "SCUPASS1"
    static constexpr uint64_t kBurstDefault = 65536;

    explicit Passthrough(SlotPort& port) : Scu(port) { reset(); }

    void reset() override;
    [[nodiscard]] bool ready(Dir d) const override;
    void push(Dir d, const Meta& m, std::span<const uint8_t> data) override;
    uint64_t csr_read(uint32_t index) override;
    void csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) override;
    void timer_fire(uint64_t now_ns) override;
    [[nodiscard]] bool idle() const override { return true; }  // nothing is ever held

  private:
    static constexpr uint64_t kNsPerS = 1'000'000'000;
    // Tokens in byte-nanoseconds per second units: bytes * 1e9 (no floating point).
    void refill(uint64_t now);

    uint64_t scratch_ = 0;
    uint64_t rate_bps_ = 0;
    uint64_t burst_ = kBurstDefault;
    uint64_t pkts_ = 0;
    uint64_t bytes_ = 0;
    uint64_t irq_every_ = 0;
    std::array<int64_t, kDirs> tokens_{};  // bytes * 1e9; a packet start needs > 0
    uint64_t last_ns_ = 0;
    bool timer_armed_ = false;
};

}  // namespace scenic::scu
