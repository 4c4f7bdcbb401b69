// SPDX-License-Identifier: MIT
// Bases of the testbenches' Bench classes (testbench-only).
//   DutBench<Dut>          owns the Verilator context and the DUT (final() on destruction) and
//                          clocks it (edge() = clock_cycle()).
//   DiffBench<Dut, Model>  adds the C++ twin of a cycle-level differential bench: reset of both,
//                          mismatch counting (the first kReport are reported by the caller), and
//                          the end of a cycle (DUT edge, then the model's clock with the same
//                          inputs). The derived Bench keeps what differs per block: which inputs
//                          are quiet during reset, driving inputs, reading and comparing outputs.
//   BusCfg<Dut, W>, BusWidthNames  typed-test configurations of a streaming block (verilated
//                          model + DATA_W) and their test names "w<DATA_W>".
#pragma once

#include <verilated.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "tb_util.hpp"

namespace scenic::tb {

template <class Dut>
class DutBench {
  public:
    DutBench()
        : ctx_(std::make_unique<VerilatedContext>()), dut_(std::make_unique<Dut>(ctx_.get())) {}
    ~DutBench() { dut_->final(); }
    DutBench(const DutBench&) = delete;
    DutBench& operator=(const DutBench&) = delete;
    Dut& dut() { return *dut_; }

  protected:
    void edge() { clock_cycle(*dut_); }
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Dut> dut_;
};

template <class Dut, class Model>
class DiffBench : public DutBench<Dut> {
  public:
    static constexpr uint64_t kReport = 5;  // mismatches reported in detail
    template <class... Args>
    explicit DiffBench(Args&&... model_args) : model_(std::forward<Args>(model_args)...) {}
    uint64_t mismatches() const { return mismatches_; }
    uint64_t cycles() const { return cycles_; }
    const Model& model() const { return model_; }

  protected:
    // rst high for two cycles with quiet(dut) applied to the inputs, then the model's reset().
    template <class Quiet>
    void reset_both(Quiet&& quiet) {
        Dut& d = *this->dut_;
        d.rst = 1;
        quiet(d);
        this->edge();
        this->edge();
        d.rst = 0;
        model_.reset();
    }
    // Counts a mismatch; true while it is one of the first kReport (the caller reports it).
    bool report(bool same) { return !same && ++mismatches_ <= kReport; }
    // End of a cycle: the DUT's edge, then the model clocked with the cycle's inputs.
    template <class... In>
    void clock_both(const In&... in) {
        this->edge();
        model_.clock(in...);
        ++cycles_;
    }
    Model model_;
    uint64_t mismatches_ = 0;
    uint64_t cycles_ = 0;
};

template <class Dut, unsigned Width>
struct BusCfg {
    using V = Dut;
    static constexpr unsigned W = Width;
};
struct BusWidthNames {
    template <class T>
    static std::string GetName(int) {
        return "w" + std::to_string(T::W);
    }
};

}  // namespace scenic::tb
