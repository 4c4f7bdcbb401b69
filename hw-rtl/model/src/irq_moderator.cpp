// SPDX-License-Identifier: MIT
#include "scenic/dp/irq_moderator.hpp"

#include <stdexcept>

namespace scenic::dp {

namespace {
uint32_t all_ones(unsigned w) { return w >= 32 ? 0xffffffffu : ((1u << w) - 1u); }
}  // namespace

IrqModerator::IrqModerator(const Params& p)
    : p_(p), cnt_max_(all_ones(p.cnt_w)), time_max_(all_ones(p.time_w)) {
    if (p.cnt_w < 1 || p.cnt_w > 32 || p.ev_w < 1 || p.ev_w > p.cnt_w || p.time_w < 1 ||
        p.time_w > 32 || p.tick_cycles < 1)
        throw std::invalid_argument("IrqModerator: bad parameters");
}

void IrqModerator::reset() {
    pend_ = time_ = div_ = 0;
    valid_ = false;
}

void IrqModerator::clock(const Config& cfg, const Inputs& in) {
    const uint32_t coal = cfg.irq_coal & cnt_max_;
    const uint32_t tmo = cfg.irq_time & time_max_;
    const bool hs = valid_ && in.irq_ready;
    const bool hold = valid_ && !in.irq_ready;
    const uint32_t base = hs ? 0 : pend_;

    const uint64_t sum = uint64_t(base) + (in.events & all_ones(p_.ev_w));
    const uint32_t pend_d = sum > cnt_max_ ? cnt_max_ : uint32_t(sum);

    uint32_t div_d = 0;
    uint32_t time_d = 0;
    if (base != 0) {
        if (div_ == p_.tick_cycles - 1) {
            div_d = 0;
            time_d = time_ == time_max_ ? time_ : time_ + 1;
        } else {
            div_d = div_ + 1;
            time_d = time_;
        }
    }
    const bool fire = cfg.irq_en && pend_d != 0 && ((coal != 0 && pend_d >= coal) || time_d >= tmo);
    pend_ = pend_d;
    time_ = time_d;
    div_ = div_d;
    valid_ = hold || fire;
}

}  // namespace scenic::dp
