// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_regfile.sv: cycle-level, exact (outputs(), then clock(in)); the
// table is a block's generated register table (scenic::regs::<block>::kRegTable).
#pragma once

#include <cstdint>
#include <vector>

namespace scenic::dp {

class RegFile {
  public:
    struct Reg {
        uint32_t offset, reset, ro, rw, w1c, w1s, wo;
        bool ro_const;  // ro bits read the reset value, not hw_ro
    };
    struct Inputs {
        bool req_valid = false, req_write = false;
        uint32_t req_addr = 0, req_wdata = 0;
        std::vector<uint32_t> hw_ro, hw_set;  // one word per entry (empty = all 0)
    };
    struct Outputs {
        bool rsp_valid = false;
        uint32_t rsp_rdata = 0;
        std::vector<uint32_t> q, w1s_pulse;
        std::vector<bool> wr_pulse;
        uint64_t unmapped = 0;
    };

    RegFile(std::vector<Reg> regs, unsigned cnt_w);
    void reset();
    [[nodiscard]] const Outputs& outputs() const { return o_; }
    void clock(const Inputs& in);
    [[nodiscard]] const std::vector<Reg>& regs() const { return regs_; }

  private:
    std::vector<Reg> regs_;
    uint64_t cnt_max_;
    Outputs o_;
};

}  // namespace scenic::dp
