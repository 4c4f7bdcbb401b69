// SPDX-License-Identifier: MIT
// BAR0 decoder: routes an access to the block whose window contains it. Any offset and size is
// accepted; only naturally aligned 32-bit accesses inside a block reach it, everything else
// reads 0 and drops writes (a hostile or buggy guest cannot crash the model).
#pragma once

#include <cstdint>
#include <vector>

#include "scenic/block.hpp"

namespace scenic {

class RegisterBus {
  public:
    // Blocks are owned by the device; windows must not overlap.
    void attach(Block& block);

    [[nodiscard]] uint64_t read(uint64_t offset, unsigned size) const;
    void write(uint64_t offset, uint64_t value, unsigned size) const;

    [[nodiscard]] const std::vector<Block*>& blocks() const { return blocks_; }

  private:
    [[nodiscard]] Block* decode(uint64_t offset, unsigned size) const;

    std::vector<Block*> blocks_;  // sorted by offset
};

}  // namespace scenic
