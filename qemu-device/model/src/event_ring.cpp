// SPDX-License-Identifier: MIT
#include "scenic/event_ring.hpp"

#include <algorithm>

#include "scenic/admin.hpp"
#include "scenic/regs.hpp"

namespace scenic {

namespace {

namespace core = regs::core;

uint32_t field(uint32_t v, regs::FieldDef f) { return (v & f.mask) >> f.shift; }

}  // namespace

EventRing::EventRing(Kind kind, const Config& config, Host& host, EventQueue& events)
    : kind_(kind), config_(config), host_(host), events_(events) {}

EventRing::~EventRing() {
    if (flush_) {
        events_.cancel(*flush_);
    }
    if (ready_) {
        events_.cancel(*ready_);
    }
}

// AEQ_CFG and CEQ_CFG have the same fields (the generator emits both; the AEQ's are used).
unsigned EventRing::log2_depth() const { return field(cfg_, core::kAeqCfgLog2Depth); }

bool EventRing::running() const {
    const unsigned l = log2_depth();
    const unsigned max = kind_ == Kind::kAeq ? 12 : 14;
    const uint64_t align = entry_size();
    return field(cfg_, core::kAeqCfgEnable) != 0 && l >= 4 && l <= max && base() != 0 &&
           (base() & (align - 1)) == 0;
}

bool EventRing::can_deliver() const {
    return running() && !stalled_ && !(overflow_pending_ && used() >= depth());
}

void EventRing::set_stalled(bool s) {
    const bool before = can_deliver();
    stalled_ = s;
    if (!before && can_deliver()) {
        // The OVERFLOW owed for the stall goes out now, not with the next event (which may never
        // come); writing it resumes the paused QPs as schedule_ready() would.
        if (overflow_pending_) {
            schedule_flush();
        } else {
            schedule_ready();
        }
    }
}

void EventRing::write_base_lo(uint32_t v) {
    if (field(cfg_, core::kAeqCfgEnable) == 0) {
        base_lo_ = v;
    }
}

void EventRing::write_base_hi(uint32_t v) {
    if (field(cfg_, core::kAeqCfgEnable) == 0) {
        base_hi_ = v;
    }
}

void EventRing::write_cfg(uint32_t v) {
    const bool could = can_deliver();
    const bool was = field(cfg_, core::kAeqCfgEnable) != 0;
    const bool en = field(v, core::kAeqCfgEnable) != 0;
    if (was) {
        // The depth stays while enabled; vector and irq_en may change.
        v = (v & ~core::kAeqCfgLog2Depth.mask) | (cfg_ & core::kAeqCfgLog2Depth.mask);
    }
    const uint32_t known = core::kAeqCfgLog2Depth.mask | core::kAeqCfgVector.mask |
                           core::kAeqCfgIrqEn.mask | core::kAeqCfgEnable.mask;
    cfg_ = v & known;
    if (was && !en) {
        head_ = 0;
        tail_ = 0;
        overflow_pending_ = false;
        lost_since_overflow_ = 0;
    }
    if (!could && can_deliver()) {
        schedule_ready();
    }
}

void EventRing::write_head(uint32_t v) {
    head_ = v & core::kAeqHeadIndex.mask;
    if (overflow_pending_) {
        schedule_flush();
    }
}

void EventRing::schedule_flush() {
    if (flush_) {
        return;
    }
    flush_ = events_.schedule_in(0, [this] {
        flush_.reset();
        if (overflow_pending_ && running() && !stalled_ && used() < depth()) {
            write_overflow();
        }
    });
}

void EventRing::schedule_ready() {
    if (ready_ || !on_overflow_) {
        return;
    }
    ready_ = events_.schedule_in(0, [this] {
        ready_.reset();
        // With an OVERFLOW still owed, writing it schedules this again: re-raising before it
        // only drops the misses or raises them twice.
        if (can_deliver() && !overflow_pending_) {
            on_overflow_();
        }
    });
}

void EventRing::drop() {
    if (!overflow_pending_ || lost_since_overflow_ == 0) {
        first_lost_seq_ = seq_;
    }
    ++lost_;
    ++lost_since_overflow_;
    if (kind_ == Kind::kAeq) {
        ++seq_;  // a dropped event still takes its number: the gap shows the loss
    }
    overflow_pending_ = true;
}

bool EventRing::write(std::span<uint8_t> entry) {
    const uint32_t d = depth();
    const uint8_t phase = static_cast<uint8_t>(((tail_ >> log2_depth()) & 1) ^ 1);
    if (kind_ == Kind::kAeq) {
        const admin::AeqeHdr<> h(entry.first<admin::AeqeHdr<>::kSize>());
        h.set_phase(phase);
        h.set_seq(seq_);
        h.set_timestamp_ns(host_.now_ns());
    } else {
        admin::Ceqe<>(entry.first<admin::Ceqe<>::kSize>()).set_phase(phase);
    }
    const uint64_t addr = base() + uint64_t{tail_ & (d - 1)} * entry_size();
    if (!host_.dma_write(addr, entry.first(entry_size()))) {
        if (on_dma_fault_) {
            on_dma_fault_(addr);
        }
        return false;
    }
    tail_ = (tail_ + 1) & 0xffff;
    if (field(cfg_, core::kAeqCfgIrqEn) != 0) {
        const unsigned vec = field(cfg_, core::kAeqCfgVector);
        if (vec < config_.msix_vectors) {
            host_.msix_notify(vec);
        }
    }
    return true;
}

bool EventRing::write_overflow() {
    std::array<uint8_t, kMaxEntry> e{};
    if (kind_ == Kind::kAeq) {
        const admin::AeqeOverflow<> o{std::span<uint8_t, 32>(e)};
        o.set_type(static_cast<uint8_t>(admin::AeqType::kOverflow));
        o.set_lost(lost_since_overflow_);
        o.set_first_lost_seq(first_lost_seq_);
    } else {
        const admin::Ceqe<> c{std::span<uint8_t, 32>(e).first<8>()};
        c.set_type(static_cast<uint8_t>(admin::CeqType::kOverflow));
        c.set_cqn(lost_since_overflow_);
    }
    // Its seq is the next event's: it uses none (write() stores seq_ without counting).
    if (!write(e)) {
        return false;
    }
    overflow_pending_ = false;
    lost_since_overflow_ = 0;
    // From the timer, never from here: write_overflow runs inside push(), and the callback
    // raises events and resumes QPs, which would re-enter push() and the requester mid-lookup.
    schedule_ready();
    return true;
}

bool EventRing::push(std::span<uint8_t> entry, bool fatal) {
    if (!running() || entry.size() < entry_size()) {
        return false;  // no ring (before set-up, after reset): nothing to count or resync
    }
    const uint32_t d = depth();
    if (!stalled_ && overflow_pending_ && used() < d) {
        write_overflow();
    }
    // Normal events leave the last slot free; a fatal one may take it.
    const uint32_t room = fatal ? d : d - 1;
    if (stalled_ || overflow_pending_ || used() >= room) {
        drop();
        if (!stalled_ && used() < d) {
            write_overflow();  // the reserved slot: the driver learns of the loss at once
        }
        return false;
    }
    if (!write(entry)) {
        return false;
    }
    if (kind_ == Kind::kAeq) {
        ++seq_;
    }
    return true;
}

void EventRing::reset() {
    if (flush_) {
        events_.cancel(*flush_);
        flush_.reset();
    }
    if (ready_) {
        events_.cancel(*ready_);
        ready_.reset();
    }
    base_lo_ = 0;
    base_hi_ = 0;
    cfg_ = 0;
    head_ = 0;
    tail_ = 0;
    lost_ = 0;
    seq_ = 0;
    stalled_ = false;
    overflow_pending_ = false;
    lost_since_overflow_ = 0;
    first_lost_seq_ = 0;
}

}  // namespace scenic
