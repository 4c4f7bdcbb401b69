// SPDX-License-Identifier: MIT
#include "scenic/eth_irq.hpp"

#include <algorithm>

#include "scenic/regs.hpp"

namespace scenic {

namespace eth = regs::eth;

IrqModerator::IrqModerator(Host& host, EventQueue& events, unsigned vector, bool has_vector)
    : host_(host), events_(events), vector_(vector), has_vector_(has_vector) {
    reset();
}

IrqModerator::~IrqModerator() { cancel_timer(); }

void IrqModerator::reset() {
    cancel_timer();
    coal_ = eth::kIrqCoalDefault;
    time_ = eth::kIrqTimeDefault;
    masked_ = (eth::kIrqMaskDefault & 1) != 0;
    irq_count_ = eth::kIrqCountDefault;
    pending_ = 0;
    first_ns_ = 0;
}

void IrqModerator::set_coal(uint32_t coal) {
    coal_ = coal;
    evaluate();  // the RTL uses the configuration combinationally: changes apply at once
}

void IrqModerator::set_time(uint32_t time_us) {
    time_ = time_us;
    evaluate();
}

void IrqModerator::set_mask(bool masked) {
    masked_ = masked;
    evaluate();
}

void IrqModerator::add_events(uint32_t n) {
    if (n == 0) {
        return;
    }
    if (pending_ == 0) {
        first_ns_ = host_.now_ns();
    }
    pending_ = std::min(kCountMax, pending_ + std::min(n, kCountMax));
    evaluate();
}

void IrqModerator::evaluate() {
    if (pending_ == 0 || masked_) {
        cancel_timer();  // unmasking evaluates again; the elapsed time is kept in first_ns_
        return;
    }
    const uint32_t coal = coal_ & kCountMax;
    const uint64_t deadline = first_ns_ + uint64_t{time_ & kTimeMask} * kNsPerTick;
    const uint64_t now = host_.now_ns();
    if ((coal != 0 && pending_ >= coal) || now >= deadline) {
        fire();
        return;
    }
    if (timer_ && timer_deadline_ == deadline) {
        return;
    }
    cancel_timer();
    timer_deadline_ = deadline;
    timer_ = events_.schedule_in(deadline - now, [this] {
        timer_.reset();
        evaluate();
    });
}

void IrqModerator::fire() {
    cancel_timer();
    pending_ = 0;
    if (has_vector_) {
        ++irq_count_;
        host_.msix_notify(vector_);
    }
}

void IrqModerator::cancel_timer() {
    if (timer_) {
        events_.cancel(*timer_);
        timer_.reset();
    }
}

}  // namespace scenic
