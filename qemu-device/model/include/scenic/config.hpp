// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "scenic/regs.hpp"

namespace scenic {

// What is fixed when the card is plugged in (QEMU device properties).
struct Config {
    std::array<uint8_t, 6> mac{0x02, 0x5c, 0x00, 0x00, 0x00, 0x01};
    // MSI-X vectors the card implements; 0 models a card (or a QEMU device) without MSI-X.
    unsigned msix_vectors = regs::kMsixVectors;
    // The ETH block reports major version kBadMajor: a driver must refuse the card.
    bool bad_block_version = false;
    // Loss injection: received frames (all kinds) dropped per million, replayable from the seed.
    uint32_t wire_drop_ppm = 0;
    // Seed of the fault-injecting wire's PRNGs (wire_drop_ppm and the ppm= rules).
    uint64_t wire_seed = 0;
    // Fault-injecting wire rules (scenic/wire_fault_spec.hpp, docs/fault-wire.md); "" = none.
    std::string wire_faults;
    // If not empty: every injected fault appended to this file as one text line.
    std::string wire_fault_log;
    // CORE.FAULT_INJECT is honoured (QEMU: fault-inject=on); otherwise it reads 0, ignores writes.
    bool fault_inject = false;
    // Blocks run as Verilated RTL instead of their C++ twins (scenic::cosim::RtlBlock mask).
    uint32_t rtl_blocks = 0;

    // Selective repeat (docs/selective-repeat.md): the card parses and answers the SR vendor
    // opcodes (sr_capable; off models a card without SR, whose parser drops them as unknown),
    // and the attribute new QPs get (QEMU: sr-default; today's behaviour is off).
    bool sr_capable = true;
    bool sr_default = false;

    // SCU reconfiguration delay (QEMU: scu-reconfig-us), SCU.RECONFIG_US; 1 us .. 10 s.
    uint32_t scu_reconfig_us = regs::scu::kReconfigUsDefault;

    static constexpr uint32_t kBadMajor = 0x7f;
    static constexpr uint32_t kMaxScuReconfigUs = 10'000'000;

    [[nodiscard]] bool valid() const {
        return msix_vectors <= regs::kMsixVectors && wire_drop_ppm <= 1'000'000 &&
               scu_reconfig_us >= 1 && scu_reconfig_us <= kMaxScuReconfigUs;
    }
};

}  // namespace scenic
