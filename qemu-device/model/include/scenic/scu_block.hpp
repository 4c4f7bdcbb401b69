// SPDX-License-Identifier: MIT
// SCU block: the Stream Compute Unit slots. Only its identity for now.
#pragma once

#include <cstdint>

#include "scenic/block.hpp"
#include "scenic/regs.hpp"

namespace scenic {

class ScuBlock final : public Block {
  public:
    ScuBlock()
        : Block({regs::scu::kType, regs::scu::kVersion, regs::scu::kOffset, regs::scu::kSize,
                 regs::scu::kNext}) {}

    void reset() override {}

  protected:
    uint32_t read_reg(uint32_t offset) override {
        return offset == regs::scu::kNumSlots ? regs::scu::kNumSlotsDefault : 0;
    }
    void write_reg(uint32_t /*offset*/, uint32_t /*value*/) override {}
};

}  // namespace scenic
