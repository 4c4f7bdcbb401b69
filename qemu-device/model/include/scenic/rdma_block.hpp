// SPDX-License-Identifier: MIT
// RDMA block: the offloaded RoCE v2 engine. Only its identity for now.
#pragma once

#include <cstdint>

#include "scenic/block.hpp"
#include "scenic/regs.hpp"

namespace scenic {

class RdmaBlock final : public Block {
  public:
    RdmaBlock()
        : Block({regs::rdma::kType, regs::rdma::kVersion, regs::rdma::kOffset, regs::rdma::kSize,
                 regs::rdma::kNext}) {}

    void reset() override {}

  protected:
    uint32_t read_reg(uint32_t offset) override {
        return offset == regs::rdma::kMaxQp ? regs::rdma::kMaxQpDefault : 0;
    }
    void write_reg(uint32_t /*offset*/, uint32_t /*value*/) override {}
};

}  // namespace scenic
