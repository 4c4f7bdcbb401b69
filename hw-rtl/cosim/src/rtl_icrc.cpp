// SPDX-License-Identifier: MIT
// scenic_icrc.sv (DATA_W 512) behind IcrcEngine: the packet goes through in generate mode
// (icrc_gen = 1, output always ready) and the ICRC is read from the last 4 bytes that come out.
#include <stdexcept>
#include <string>
#include <vector>

#include "Vcosim_icrc.h"
#include "rtl_engines.hpp"

namespace scenic::cosim {

namespace {

constexpr unsigned kLanes = 64;  // DATA_W / 8

class RtlIcrc final : public IcrcEngine {
  public:
    RtlIcrc()
        : ctx_(std::make_unique<VerilatedContext>()),
          dut_(std::make_unique<Vcosim_icrc>(ctx_.get(), "scenic_icrc")) {
        dut_->icrc_gen = 1;
        dut_->m_axis_tready = 1;
        dut_->s_axis_tvalid = 0;
        dut_->rst = 1;
        for (int i = 0; i < 2; ++i) {
            dut_->clk = 0;
            dut_->eval();
            dut_->clk = 1;
            dut_->eval();
        }
        dut_->rst = 0;
        dut_->clk = 0;
        dut_->eval();
    }
    ~RtlIcrc() override { dut_->final(); }
    RtlIcrc(const RtlIcrc&) = delete;
    RtlIcrc& operator=(const RtlIcrc&) = delete;

    uint32_t icrc(std::span<const uint8_t> packet) override {
        if (packet.size() < 4) {
            throw std::invalid_argument("RTL ICRC: packet shorter than its ICRC");
        }
        out_.clear();
        const size_t beats = (packet.size() + kLanes - 1) / kLanes;
        const uint64_t limit = beats + 8;
        size_t off = 0;
        bool in_done = false;
        bool done = false;
        uint64_t c = 0;
        for (; !done; ++c) {
            if (c > limit) {
                throw std::runtime_error("RTL ICRC: a " + std::to_string(packet.size()) +
                                         "-byte packet did not leave in " + std::to_string(limit) +
                                         " cycles");
            }
            const auto n = static_cast<unsigned>(std::min<size_t>(kLanes, packet.size() - off));
            dut_->s_axis_tvalid = in_done ? 0 : 1;
            if (!in_done) {
                put_lanes(dut_->s_axis_tdata, packet.subspan(off, n));
                dut_->s_axis_tkeep = keep_mask(n);
                dut_->s_axis_tlast = off + n >= packet.size() ? 1 : 0;
            }
            dut_->clk = 0;
            dut_->eval();
            const bool accepted = !in_done && dut_->s_axis_tready;
            if (dut_->m_axis_tvalid) {
                const unsigned k = keep_lanes(dut_->m_axis_tkeep);
                const size_t at = out_.size();
                out_.resize(at + k);
                get_lanes(dut_->m_axis_tdata, k, out_.data() + at);
                done = dut_->m_axis_tlast != 0;
            }
            dut_->clk = 1;
            dut_->eval();
            ++stats_.cycles;
            if (accepted) {
                off += n;
                in_done = off >= packet.size();
            }
        }
        dut_->s_axis_tvalid = 0;
        ++stats_.transactions;
        account_rtl(c);
        const size_t body = packet.size() - 4;
        if (out_.size() != packet.size() ||
            !std::equal(out_.begin(), out_.begin() + static_cast<std::ptrdiff_t>(body),
                        packet.begin())) {
            throw std::runtime_error("RTL ICRC: the packet came out altered");
        }
        return uint32_t{out_[body]} | uint32_t{out_[body + 1]} << 8 |
               uint32_t{out_[body + 2]} << 16 | uint32_t{out_[body + 3]} << 24;
    }

    [[nodiscard]] SimStats sim_stats() const override { return stats_; }

  private:
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vcosim_icrc> dut_;
    std::vector<uint8_t> out_;
    SimStats stats_;
};

}  // namespace

std::unique_ptr<IcrcEngine> make_rtl_icrc() { return std::make_unique<RtlIcrc>(); }

}  // namespace scenic::cosim
