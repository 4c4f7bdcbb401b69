// SPDX-License-Identifier: MIT
// scenic_prefilter.sv (DATA_W 512) behind PrefilterEngine: one frame per process(), clocked
// beat by beat until its last beat leaves on m_axis_rdma or m_axis_host (both always ready), or
// until the runt counter counts it.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "Vcosim_prefilter.h"
#include "rtl_engines.hpp"

namespace scenic::cosim {

namespace {

constexpr unsigned kLanes = 64;  // DATA_W / 8

class RtlPrefilter final : public PrefilterEngine {
  public:
    RtlPrefilter()
        : ctx_(std::make_unique<VerilatedContext>()),
          dut_(std::make_unique<Vcosim_prefilter>(ctx_.get(), "scenic_prefilter")) {
        dut_->rdma_en = 1;  // the twin's default
        dut_->m_axis_rdma_tready = 1;
        dut_->m_axis_host_tready = 1;
        dut_->s_axis_tvalid = 0;
        reset();
    }
    ~RtlPrefilter() override { dut_->final(); }
    RtlPrefilter(const RtlPrefilter&) = delete;
    RtlPrefilter& operator=(const RtlPrefilter&) = delete;

    void set_rdma_enabled(bool en) override { dut_->rdma_en = en ? 1 : 0; }
    [[nodiscard]] bool rdma_enabled() const override { return dut_->rdma_en != 0; }

    dp::Prefilter::Verdict process(std::span<const uint8_t> frame) override {
        out_.clear();
        const uint32_t runts = dut_->stat_drop_runt;
        const size_t beats = std::max<size_t>(1, (frame.size() + kLanes - 1) / kLanes);
        const uint64_t limit = beats + 16;  // the FIFO holds a few beats: far more than enough
        size_t off = 0;
        bool in_done = false;
        std::optional<dp::Prefilter::Verdict> verdict;
        uint64_t c = 0;
        for (; !verdict; ++c) {
            if (c > limit) {
                throw std::runtime_error("RTL prefilter: a " + std::to_string(frame.size()) +
                                         "-byte frame did not leave in " + std::to_string(limit) +
                                         " cycles");
            }
            const auto n = static_cast<unsigned>(std::min<size_t>(kLanes, frame.size() - off));
            dut_->s_axis_tvalid = in_done ? 0 : 1;
            if (!in_done) {
                put_lanes(dut_->s_axis_tdata, frame.subspan(off, n));
                dut_->s_axis_tkeep = keep_mask(n);
                dut_->s_axis_tlast = off + n >= frame.size() ? 1 : 0;
            }
            dut_->clk = 0;
            dut_->eval();
            const bool accepted = !in_done && dut_->s_axis_tready;
            if (dut_->m_axis_rdma_tvalid) {
                take(dut_->m_axis_rdma_tdata, dut_->m_axis_rdma_tkeep);
                if (dut_->m_axis_rdma_tlast) {
                    verdict = {dp::FrameClass::Roce, dp::PrefilterPort::Rdma};
                }
            }
            if (dut_->m_axis_host_tvalid) {
                take(dut_->m_axis_host_tdata, dut_->m_axis_host_tkeep);
                if (dut_->m_axis_host_tlast) {
                    verdict = {static_cast<dp::FrameClass>(dut_->m_axis_host_tuser),
                               dp::PrefilterPort::Host};
                }
            }
            dut_->clk = 1;
            dut_->eval();
            ++stats_.cycles;
            if (accepted) {
                off += n;
                in_done = off >= frame.size();
            }
            if (!verdict && in_done && dut_->stat_drop_runt != runts) {
                verdict = {dp::FrameClass::Runt, dp::PrefilterPort::Drop};
            }
        }
        dut_->s_axis_tvalid = 0;
        ++stats_.transactions;
        account_rtl(c);
        if (verdict->port != dp::PrefilterPort::Drop &&
            !std::equal(out_.begin(), out_.end(), frame.begin(), frame.end())) {
            throw std::runtime_error("RTL prefilter: the frame came out altered");
        }
        read_counters();
        return *verdict;
    }

    [[nodiscard]] const dp::Prefilter::Counters& counters() const override { return cnt_; }

    void reset() override {
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
        read_counters();
    }

    [[nodiscard]] SimStats sim_stats() const override { return stats_; }

  private:
    template <class Data>
    void take(const Data& data, uint64_t keep) {
        const unsigned n = keep_lanes(keep);
        const size_t at = out_.size();
        out_.resize(at + n);
        get_lanes(data, n, out_.data() + at);
    }
    void read_counters() {
        cnt_.rdma_roce = dut_->stat_rdma_roce;
        cnt_.host_roce = dut_->stat_host_roce;
        cnt_.host_tcp = dut_->stat_host_tcp;
        cnt_.host_other = dut_->stat_host_other;
        cnt_.drop_runt = dut_->stat_drop_runt;
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vcosim_prefilter> dut_;
    dp::Prefilter::Counters cnt_;
    std::vector<uint8_t> out_;
    SimStats stats_;
};

}  // namespace

std::unique_ptr<PrefilterEngine> make_rtl_prefilter() { return std::make_unique<RtlPrefilter>(); }

}  // namespace scenic::cosim
