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
        switch (offset) {
            case regs::scu::kNumSlots:
                return regs::scu::kNumSlotsDefault;
            case regs::scu::kIfaceVersion:
                return regs::scu::kIfaceVersionDefault;
            case regs::scu::kMaxImage:
                return regs::scu::kMaxImageDefault;
            case regs::scu::kReconfigUs:
                return regs::scu::kReconfigUsDefault;
            case regs::scu::kCsrWindow:
                return regs::scu::kCsrWindowDefault;
            default:
                return 0;
        }
    }
    void write_reg(uint32_t /*offset*/, uint32_t /*value*/) override {}
};

}  // namespace scenic
