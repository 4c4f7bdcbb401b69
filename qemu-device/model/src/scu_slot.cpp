// SPDX-License-Identifier: MIT
#include "scenic/scu_slot.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace scenic::scu {

using admin::ScuSlotState;

Slot::Slot(unsigned index, const SlotEnv& env, std::unique_ptr<Scu> scu)
    : index_(index), env_(env), scu_(std::move(scu)) {}

Slot::~Slot() {
    if (load_timer_) {
        env_.events.cancel(*load_timer_);
    }
    if (drain_timer_) {
        env_.events.cancel(*drain_timer_);
    }
    if (scu_timer_) {
        env_.events.cancel(*scu_timer_);
    }
    if (resume_event_) {
        env_.events.cancel(*resume_event_);
    }
}

Pass Slot::pass(Dir d, const Meta& m, std::span<const uint8_t> in, std::vector<uint8_t>& out) {
    const auto i = static_cast<unsigned>(d);
    // Draining: only the packets that continue a message the old SCU started still enter.
    const bool continues = !m.msg_first && open_.count({i, m.qpn}) != 0;
    const bool takes =
        state_ == ScuSlotState::kRunning || (state_ == ScuSlotState::kDraining && continues);
    if (!takes || !fifo_[i].empty() || pumping_[i] || !scu_->ready(d)) {
        if (d == Dir::kRx) {
            ++cnt_.fifo_drops[i];
        }
        if (pumping_[i]) {
            resume_soon();  // nothing else would wake the QP once the pump returns
        }
        return Pass::kHeld;
    }
    capture_[i] = &out;
    captured_[i] = false;
    captured_drop_[i] = false;
    const size_t before = inflight_[i].size();
    submit(d, m, in);
    capture_[i] = nullptr;
    if (captured_[i]) {
        track(d, m);
        return captured_drop_[i] ? Pass::kDropped : Pass::kDone;
    }
    if (inflight_[i].size() > before) {
        // Still held by the SCU: forget it, so that a late output pairs with nothing.
        inflight_[i].pop_back();
        ++cnt_.violations;
    }
    return Pass::kFailed;  // emit() counted the violation, or the SCU kept the packet
}

void Slot::track(Dir d, const Meta& m) {
    const std::pair<unsigned, uint32_t> key{static_cast<unsigned>(d), m.qpn};
    if (m.msg_last) {
        open_.erase(key);
    } else if (m.msg_first) {
        open_.insert(key);
    }
    if (state_ == ScuSlotState::kDraining) {
        drain_check();
    }
}

void Slot::drain_check() {
    if (open_.empty() && scu_->idle()) {
        begin_loading();
    }
}

void Slot::resume_soon() {
    if (resume_event_ || !env_.resume) {
        return;
    }
    resume_event_ = env_.events.schedule_in(0, [this] {
        resume_event_.reset();
        env_.resume(index_);
    });
}

bool Slot::can_accept(Dir d, size_t len) const {
    const auto i = static_cast<unsigned>(d);
    return fifo_[i].size() < kFifoPackets && fifo_bytes_[i] + len <= kFifoBytes;
}

bool Slot::submit(Dir d, const Meta& m, std::span<const uint8_t> data) {
    const auto i = static_cast<unsigned>(d);
    if (!can_accept(d, data.size())) {
        ++cnt_.fifo_drops[i];
        return false;
    }
    ++cnt_.pkts_in[i];
    cnt_.bytes_in[i] += data.size();
    Meta meta = m;
    meta.dir = d;
    meta.len = static_cast<uint16_t>(data.size());
    fifo_[i].push_back({meta, {data.begin(), data.end()}});
    fifo_bytes_[i] += data.size();
    pump(d);
    return true;
}

void Slot::pump(Dir d) {
    // An output that comes back into this slot (loopback) only queues: the outer loop sends it,
    // so the order per direction holds.
    const auto i = static_cast<unsigned>(d);
    if (pumping_[i]) {
        return;
    }
    pumping_[i] = true;
    // A draining slot still runs its old SCU (docs/scu.md 5): what is queued goes through it.
    const bool runs = state_ == ScuSlotState::kRunning || state_ == ScuSlotState::kDraining;
    while (runs && !fifo_[i].empty() && scu_->ready(d)) {
        Packet p = std::move(fifo_[i].front());
        fifo_[i].pop_front();
        fifo_bytes_[i] -= p.data.size();
        inflight_[i].push_back(p.meta);
        scu_->push(d, p.meta, p.data);
    }
    pumping_[i] = false;
}

void Slot::emit(Dir d, std::span<const uint8_t> data, bool drop) {
    const auto i = static_cast<unsigned>(d);
    if (inflight_[i].empty()) {
        ++cnt_.violations;  // more out than in: the 1:1 rule
        return;
    }
    const Meta m = inflight_[i].front();
    inflight_[i].pop_front();
    // RDMA packets keep their length and TX cannot drop them (docs/scu.md 2.1).
    if (m.src == kSrcRdma && (data.size() != m.len || (drop && d == Dir::kTx))) {
        ++cnt_.violations;
        return;
    }
    // Frames may change length, within Ethernet's bounds (14 .. MAX_MTU + 18).
    if (m.src == kSrcFrame && !drop && (data.size() < kMinFrame || data.size() > kMaxFrame)) {
        ++cnt_.violations;
        return;
    }
    ++cnt_.pkts_out[i];
    cnt_.bytes_out[i] += data.size();
    if (drop) {
        ++cnt_.scu_drops;
    }
    if (capture_[i] != nullptr && m.src == kSrcRdma) {
        capture_[i]->assign(data.begin(), data.end());
        captured_[i] = true;
        captured_drop_[i] = drop;
        return;
    }
    if (env_.out) {
        env_.out(index_, d, m, data, drop);
    }
}

void Slot::raise_irq(unsigned line) {
    if (line >= kIrqLines) {
        ++cnt_.violations;
        return;
    }
    ++cnt_.irqs;
    const uint32_t before = irq_pending_ & ~irq_mask_;
    irq_pending_ |= 1U << line;  // edges coalesce while the line is pending
    notify_if_due(before);
}

void Slot::notify_if_due(uint32_t before) {
    const uint32_t due = irq_pending_ & ~irq_mask_;
    if (due == 0 || before != 0) {
        return;  // nothing unmasked pending, or the vector already covers it
    }
    if (env_.event) {
        env_.event(
            {index_, admin::ScuEventKind::kInterrupt, admin::ScuStatus::kOk, due, cnt_.irqs});
    }
    if (env_.irq) {
        env_.irq(index_);
    }
}

uint32_t Slot::take_irqs() { return std::exchange(irq_pending_, 0); }

void Slot::clear_irqs(uint32_t w1c) {
    irq_pending_ &= ~w1c;
    notify_if_due(0);
}

void Slot::set_irq_mask(uint32_t mask) {
    const uint32_t before = irq_pending_ & ~irq_mask_;
    irq_mask_ = mask & ((1U << kIrqLines) - 1);
    notify_if_due(before);
}

bool Slot::reset_scu() {
    if (state_ != ScuSlotState::kRunning) {
        return false;
    }
    scu_->reset();
    pump(Dir::kRx);
    pump(Dir::kTx);
    return true;
}

void Slot::mem_ready() {
    if (state_ == ScuSlotState::kRunning || state_ == ScuSlotState::kDraining) {
        scu_->mem_ready();
    }
}

MemStatus Slot::check(uint32_t key, uint64_t iova, uint64_t len, bool write) {
    if (!pdn_) {
        return MemStatus::kKeyPd;
    }
    const std::optional<MrInfo> mr = env_.mem.mr(key);
    if (!mr || mr->pdn != *pdn_) {
        return MemStatus::kKeyPd;
    }
    if (len == 0 || len > kMaxMemLen || iova < mr->iova || iova - mr->iova > mr->length ||
        len > mr->length - (iova - mr->iova)) {
        return MemStatus::kBounds;
    }
    if (write && (mr->access & static_cast<uint32_t>(admin::Access::kLocalWrite)) == 0) {
        return MemStatus::kBounds;
    }
    return MemStatus::kOk;
}

void Slot::fault(MemStatus s) {
    ++cnt_.mem_faults;
    if (fault_reported_) {
        return;  // once until the state is read
    }
    fault_reported_ = true;
    if (env_.event) {
        env_.event({index_, admin::ScuEventKind::kFault, admin::ScuStatus::kOk,
                    static_cast<uint32_t>(s), cnt_.mem_faults});
    }
}

MemStatus Slot::mem_read(uint32_t key, uint64_t iova, std::span<uint8_t> dst) {
    MemStatus s = check(key, iova, dst.size(), false);
    if (s == MemStatus::kOk) {
        s = env_.mem.read(key, *pdn_, iova, dst);
    }
    if (s == MemStatus::kOk) {
        cnt_.mem_rd_bytes += dst.size();
        ++cnt_.completions[kLocalRead];
    } else if (s != MemStatus::kRetry) {
        fault(s);
    }
    return s;
}

MemStatus Slot::mem_write(uint32_t key, uint64_t iova, std::span<const uint8_t> src) {
    MemStatus s = check(key, iova, src.size(), true);
    if (s == MemStatus::kOk) {
        s = env_.mem.write(key, *pdn_, iova, src);
    }
    if (s == MemStatus::kOk) {
        cnt_.mem_wr_bytes += src.size();
        ++cnt_.completions[kLocalWrite];
    } else if (s != MemStatus::kRetry) {
        fault(s);
    }
    return s;
}

void Slot::schedule(uint64_t deadline_ns) {
    if (scu_timer_) {
        env_.events.cancel(*scu_timer_);
    }
    const uint64_t now = now_ns();
    scu_timer_ = env_.events.schedule_in(deadline_ns > now ? deadline_ns - now : 0, [this] {
        scu_timer_.reset();
        scu_->timer_fire(now_ns());
    });
}

uint64_t Slot::csr_read(uint32_t index) {
    // The old SCU answers while it drains; LOADING and FAILED have no SCU to ask.
    if ((state_ != ScuSlotState::kRunning && state_ != ScuSlotState::kDraining) ||
        index >= kCsrRegs) {
        ++cnt_.csr_dropped;
        return ~uint64_t{0};
    }
    return scu_->csr_read(index);
}

void Slot::csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) {
    if ((state_ != ScuSlotState::kRunning && state_ != ScuSlotState::kDraining) ||
        index >= kCsrRegs) {
        ++cnt_.csr_dropped;
        return;
    }
    scu_->csr_write(index, value, byte_mask);
}

void Slot::install(std::unique_ptr<Scu> scu, const ImageInfo& info) {
    scu_ = std::move(scu);
    image_ = info;
    scu_->reset();
}

void Slot::start_load(std::unique_ptr<Scu> next, const ImageInfo& info, uint64_t delay_ns,
                      uint64_t drain_ns) {
    next_ = std::move(next);
    next_image_ = info;
    load_delay_ns_ = delay_ns;
    load_start_ns_ = now_ns();  // the pause runs from here: new messages wait from now on
    state_ = ScuSlotState::kDraining;
    drain_timer_ = env_.events.schedule_in(drain_ns, [this] {
        drain_timer_.reset();
        if (state_ == ScuSlotState::kDraining) {
            // The card has no FORCE flag: it swaps anyway; unfinished messages go on through
            // the new SCU (docs/scu.md 5 "as built").
            ++drain_timeouts_;
            open_.clear();
            begin_loading();
        }
    });
    drain_check();
}

void Slot::begin_loading() {
    if (drain_timer_) {
        env_.events.cancel(*drain_timer_);
        drain_timer_.reset();
    }
    state_ = ScuSlotState::kLoading;
    load_timer_ = env_.events.schedule_in(load_delay_ns_, [this] {
        load_timer_.reset();
        finish_load();
    });
}

void Slot::finish_load() {
    if (scu_timer_) {
        env_.events.cancel(*scu_timer_);
        scu_timer_.reset();
    }
    // Packets the old SCU still held are lost with it (no drain yet, docs/scu.md status).
    for (std::deque<Meta>& q : inflight_) {
        cnt_.scu_drops += q.size();
        q.clear();
    }
    scu_ = std::move(next_);
    image_ = next_image_;
    scu_->reset();
    state_ = ScuSlotState::kRunning;
    ++cnt_.loads;
    const uint64_t pause_us = (now_ns() - load_start_ns_) / 1000;
    if (env_.event) {
        env_.event({index_, admin::ScuEventKind::kReconfigured, admin::ScuStatus::kOk,
                    static_cast<uint32_t>(
                        std::min<uint64_t>(pause_us, std::numeric_limits<uint32_t>::max())),
                    cnt_.loads});
    }
    pump(Dir::kRx);
    pump(Dir::kTx);
    resume_soon();  // the QPs the load held
}

}  // namespace scenic::scu
