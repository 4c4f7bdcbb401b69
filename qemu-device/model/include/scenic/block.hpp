// SPDX-License-Identifier: MIT
// A register block of the card, as in the RTL: a window of BAR0 that starts with the common
// TYPE / VERSION / NEXT header (regs::kBlkType, kBlkVersion, kBlkNext).
//
// Block is the interface every block implements. The C++ implementations (CoreBlock, EthBlock,
// ...) are the fast default; a block's RTL twin (Verilator) implements the same interface and is
// swapped in by the Device, so differential tests can drive both with the same accesses.
#pragma once

#include <cstdint>

#include "scenic/regs.hpp"

namespace scenic {

class Block {
  public:
    struct Header {
        uint32_t type;
        uint32_t version;  // (major << 16) | minor
        uint32_t offset;   // in BAR0
        uint32_t size;     // bytes of BAR0 the block decodes
        uint32_t next;     // BAR0 offset of the next block, 0 for the last
    };

    explicit Block(const Header& header) : header_(header) {}
    virtual ~Block() = default;
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;

    [[nodiscard]] const Header& header() const { return header_; }

    // 32-bit register access at a block-relative, 4-byte aligned offset < header().size.
    [[nodiscard]] uint32_t read(uint32_t offset) {
        switch (offset) {
            case kTypeOffset:
                return header_.type;
            case kVersionOffset:
                return header_.version;
            case kNextOffset:
                return header_.next;
            default:
                return read_reg(offset);
        }
    }
    void write(uint32_t offset, uint32_t value) {
        if (offset > kNextOffset) {
            write_reg(offset, value);
        }
    }

    // Every register back to its reset value.
    virtual void reset() = 0;

  protected:
    // Registers after the header. Unknown offsets read 0 and ignore writes.
    virtual uint32_t read_reg(uint32_t offset) = 0;
    virtual void write_reg(uint32_t offset, uint32_t value) = 0;

    void set_version(uint32_t version) { header_.version = version; }

  private:
    static constexpr uint32_t kTypeOffset = regs::kBlkType;
    static constexpr uint32_t kVersionOffset = regs::kBlkVersion;
    static constexpr uint32_t kNextOffset = regs::kBlkNext;
    static_assert(kTypeOffset == 0 && kVersionOffset == 4 && kNextOffset == 8);

    Header header_;
};

}  // namespace scenic
