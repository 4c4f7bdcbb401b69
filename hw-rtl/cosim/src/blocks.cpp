// SPDX-License-Identifier: MIT
// Block selection, the C++ twins behind the co-simulation interfaces, the ICRC scope.
#include "scenic/cosim/blocks.hpp"

#include <array>
#include <atomic>
#include <stdexcept>
#include <utility>

#include "rtl_engines.hpp"
#include "scenic/dp/icrc.hpp"

namespace scenic::cosim {

namespace {

constexpr std::array<std::pair<std::string_view, uint32_t>, 2> kNames{{
    {"prefilter", kRtlPrefilter},
    {"icrc", kRtlIcrc},
}};

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

class TwinPrefilter final : public PrefilterEngine {
  public:
    void set_rdma_enabled(bool en) override { twin_.set_rdma_enabled(en); }
    [[nodiscard]] bool rdma_enabled() const override { return twin_.rdma_enabled(); }
    dp::Prefilter::Verdict process(std::span<const uint8_t> frame) override {
        return twin_.process(frame);
    }
    [[nodiscard]] const dp::Prefilter::Counters& counters() const override {
        return twin_.counters();
    }
    void reset() override { twin_.reset(); }

  private:
    dp::Prefilter twin_;
};

class TwinIcrc final : public IcrcEngine {
  public:
    uint32_t icrc(std::span<const uint8_t> l3_packet) override { return dp::roce_icrc(l3_packet); }
};

thread_local IcrcEngine* t_icrc = nullptr;
std::atomic<uint64_t> g_transactions{0};
std::atomic<uint64_t> g_cycles{0};

}  // namespace

uint32_t parse_rtl_blocks(std::string_view list) {
    list = trim(list);
    if (list.empty() || list == "none") return 0;
    if (list == "all") return kRtlAll;
    uint32_t mask = 0;
    while (true) {
        const size_t comma = list.find_first_of(",+");
        const std::string_view name = trim(list.substr(0, comma));
        bool known = false;
        for (const auto& [n, bit] : kNames) {
            if (name == n) {
                mask |= bit;
                known = true;
            }
        }
        if (!known) {
            throw std::invalid_argument("unknown RTL block '" + std::string(name) +
                                        "' (known: all, none, " + rtl_block_names(kRtlAll) + ")");
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return mask;
}

std::string rtl_block_names(uint32_t mask) {
    std::string s;
    for (const auto& [n, bit] : kNames) {
        if ((mask & bit) != 0) {
            if (!s.empty()) s += ',';
            s += n;
        }
    }
    return s.empty() ? "none" : s;
}

std::unique_ptr<PrefilterEngine> make_prefilter(bool rtl) {
    if (rtl) return make_rtl_prefilter();
    return std::make_unique<TwinPrefilter>();
}

std::unique_ptr<IcrcEngine> make_icrc(bool rtl) {
    if (rtl) return make_rtl_icrc();
    return std::make_unique<TwinIcrc>();
}

void account_rtl(uint64_t cycles) noexcept {
    g_transactions.fetch_add(1, std::memory_order_relaxed);
    g_cycles.fetch_add(cycles, std::memory_order_relaxed);
}

SimStats rtl_totals() noexcept {
    return {g_transactions.load(std::memory_order_relaxed),
            g_cycles.load(std::memory_order_relaxed)};
}

IcrcScope::IcrcScope(IcrcEngine* engine) noexcept : prev_(std::exchange(t_icrc, engine)) {}
IcrcScope::~IcrcScope() { t_icrc = prev_; }
IcrcEngine* current_icrc() noexcept { return t_icrc; }

}  // namespace scenic::cosim
