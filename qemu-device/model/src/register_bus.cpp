// SPDX-License-Identifier: MIT
#include "scenic/register_bus.hpp"

#include <algorithm>
#include <stdexcept>

#include "scenic/regs.hpp"

namespace scenic {

void RegisterBus::attach(Block& block) {
    const auto& h = block.header();
    if (h.size == 0 || h.offset > regs::kBar0Size || h.size > regs::kBar0Size - h.offset) {
        throw std::invalid_argument("register block outside BAR0");
    }
    for (const Block* b : blocks_) {
        const auto& o = b->header();
        if (h.offset < o.offset + o.size && o.offset < h.offset + h.size) {
            throw std::invalid_argument("overlapping register blocks");
        }
    }
    blocks_.push_back(&block);
    std::ranges::sort(blocks_, {}, [](const Block* b) { return b->header().offset; });
}

Block* RegisterBus::decode(uint64_t offset, unsigned size) const {
    if (size != sizeof(uint32_t) || offset % sizeof(uint32_t) != 0 || offset >= regs::kBar0Size) {
        return nullptr;
    }
    for (Block* b : blocks_) {
        const auto& h = b->header();
        if (offset >= h.offset && offset < uint64_t{h.offset} + h.size) {
            return b;
        }
    }
    return nullptr;
}

uint64_t RegisterBus::read(uint64_t offset, unsigned size) const {
    Block* b = decode(offset, size);
    return b ? b->read(static_cast<uint32_t>(offset - b->header().offset)) : 0;
}

void RegisterBus::write(uint64_t offset, uint64_t value, unsigned size) const {
    if (Block* b = decode(offset, size)) {
        b->write(static_cast<uint32_t>(offset - b->header().offset), static_cast<uint32_t>(value));
    }
}

}  // namespace scenic
