// SPDX-License-Identifier: MIT
#include "scenic/scu_slots.hpp"

#include <stdexcept>
#include <utility>

namespace scenic::scu {

using admin::ScuStatus;

SlotManager::SlotManager(const SlotManagerConfig& cfg, const SlotEnv& env, Registry registry)
    : cfg_(cfg), env_(env), registry_(std::move(registry)) {
    if (cfg_.num_slots == 0 || cfg_.num_slots > 16) {
        throw std::invalid_argument("scenic: SCU slots must be 1..16");
    }
    if (registry_.find(kKindPassthrough, 1) == nullptr) {
        throw std::invalid_argument("scenic: the SCU registry has no passthrough");
    }
    reset();
}

ImageInfo SlotManager::passthrough_info() const {
    ImageInfo i;
    i.kind = kKindPassthrough;
    i.kind_version = 1;
    i.iface = cfg_.iface;
    i.builtin = true;
    return i;
}

SlotManager::~SlotManager() {
    if (status_timer_) {
        env_.events.cancel(*status_timer_);
    }
}

void SlotManager::reset() {
    if (status_timer_) {
        env_.events.cancel(*status_timer_);
        status_timer_.reset();
    }
    pages_ = {};
    steer_.clear();
    slots_.clear();  // cancels their timers
    for (unsigned i = 0; i < cfg_.num_slots; ++i) {
        auto s = std::make_unique<Slot>(i, env_, nullptr);
        s->install((*registry_.find(kKindPassthrough, 1))(*s), passthrough_info());
        slots_.push_back(std::move(s));
    }
}

ScuStatus SlotManager::refuse(unsigned slot, ScuStatus s) {
    if (slot < slots_.size()) {
        slots_[slot]->last_refusal = s;
    }
    return s;
}

ScuStatus SlotManager::reconfigure(unsigned slot, const ImageInfo& info) {
    const Registry::Factory* f = registry_.find(info.kind, info.kind_version);
    if (f == nullptr) {
        return refuse(slot, ScuStatus::kUnknownKind);
    }
    Slot& s = *slots_[slot];
    s.start_load((*f)(s), info, cfg_.reconfig_ns);
    return ScuStatus::kOk;
}

ScuStatus SlotManager::load(unsigned slot, std::span<const uint8_t> image) {
    if (slot == 0 || slot >= slots_.size()) {
        return refuse(slot, ScuStatus::kBadSlot);
    }
    if (slots_[slot]->state() != admin::ScuSlotState::kRunning) {
        return refuse(slot, ScuStatus::kBusy);
    }
    ImageInfo info;
    const ScuStatus st = parse_image(image, cfg_.max_image, cfg_.iface, info);
    if (st != ScuStatus::kOk) {
        return refuse(slot, st);
    }
    return reconfigure(slot, info);
}

ScuStatus SlotManager::unload(unsigned slot) {
    if (slot == 0 || slot >= slots_.size()) {
        return refuse(slot, ScuStatus::kBadSlot);
    }
    if (slots_[slot]->state() != admin::ScuSlotState::kRunning) {
        return refuse(slot, ScuStatus::kBusy);
    }
    const ScuStatus st = reconfigure(slot, passthrough_info());
    if (st == ScuStatus::kOk) {
        steer_.clear_slot(slot);  // an unload takes the slot's rules with it
    }
    return st;
}

ScuStatus SlotManager::steer_add(unsigned slot, const SteerRule& rule, unsigned& index) {
    if (slot == 0 || slot >= slots_.size()) {
        return refuse(slot, ScuStatus::kBadSlot);
    }
    if (!steer_rule_valid(rule)) {
        return refuse(slot, ScuStatus::kBadRule);
    }
    const std::optional<unsigned> i = steer_.add(slot, rule);
    if (!i) {
        return refuse(slot, ScuStatus::kTableFull);
    }
    index = *i;
    return ScuStatus::kOk;
}

ScuStatus SlotManager::steer_del(unsigned slot, unsigned index) {
    if (slot == 0 || slot >= slots_.size()) {
        return refuse(slot, ScuStatus::kBadSlot);
    }
    return steer_.del(slot, index) ? ScuStatus::kOk : refuse(slot, ScuStatus::kNoRule);
}

bool SlotManager::steer_frame(Dir d, std::span<const uint8_t> frame) {
    const std::optional<SteerHit> hit = steer_.match(d, frame);
    if (!hit || hit->slot >= slots_.size()) {
        return false;
    }
    steer_.count_hit(hit->rule);
    Slot& s = *slots_[hit->slot];
    if (s.state() != admin::ScuSlotState::kRunning) {
        s.drop_frame(d);  // a loading slot's rules stay, their frames are dropped (docs/scu.md 5)
        return true;
    }
    Meta m;
    m.qpn = hit->rule;
    m.op = kOpFrame;
    m.src = kSrcFrame;
    m.dir = d;
    m.msg_first = true;
    m.msg_last = true;
    s.submit(d, m, frame);  // a full FIFO drops and counts
    return true;
}

void SlotManager::mem_ready() {
    for (auto& s : slots_) {
        s->mem_ready();
    }
}

std::optional<SlotInfo> SlotManager::query(unsigned slot) {
    if (slot >= slots_.size()) {
        return std::nullopt;
    }
    Slot& s = *slots_[slot];
    s.rearm_fault_event();
    return SlotInfo{s.state(),          s.image().kind, s.image().kind_version,
                    s.image().build_id, s.pdn(),        s.last_refusal};
}

ScuStatus SlotManager::bind_pd(unsigned slot, std::optional<uint32_t> pdn) {
    if (slot == 0 || slot >= slots_.size()) {
        return refuse(slot, ScuStatus::kBadSlot);
    }
    slots_[slot]->bind_pd(pdn);
    return ScuStatus::kOk;
}

ScuStatus SlotManager::reset_slot(unsigned slot) {
    if (slot == 0 || slot >= slots_.size()) {
        return refuse(slot, ScuStatus::kBadSlot);
    }
    return slots_[slot]->reset_scu() ? ScuStatus::kOk : refuse(slot, ScuStatus::kBusy);
}

bool SlotManager::submit(unsigned slot, Dir d, const Meta& m, std::span<const uint8_t> data) {
    return slot < slots_.size() && slots_[slot]->submit(d, m, data);
}

Pass SlotManager::pass(unsigned slot, const Meta& m, std::span<const uint8_t> in,
                       std::vector<uint8_t>& out) {
    if (slot == 0 || slot >= slots_.size() || in.empty()) {
        return Pass::kBypass;
    }
    return slots_[slot]->pass(m.dir, m, in, out);
}

uint64_t SlotManager::csr_window_read(uint64_t offset, unsigned size) {
    if ((size != 4 && size != 8) || offset % size != 0) {
        return size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (size * 8)) - 1;
    }
    const uint64_t slot = offset / kCsrWindowBytes;
    if (slot == 0 || slot >= slots_.size()) {
        return 0;
    }
    const auto index = static_cast<uint32_t>((offset % kCsrWindowBytes) / 8);
    const uint64_t v = slots_[slot]->csr_read(index);
    if (size == 8) {
        return v;
    }
    return (offset & 4) != 0 ? v >> 32 : v & 0xffff'ffff;
}

void SlotManager::csr_window_write(uint64_t offset, uint64_t value, unsigned size) {
    const uint64_t slot = offset / kCsrWindowBytes;
    if (slot == 0 || slot >= slots_.size() || (size != 4 && size != 8) || offset % size != 0) {
        return;
    }
    const auto index = static_cast<uint32_t>((offset % kCsrWindowBytes) / 8);
    if (size == 8) {
        slots_[slot]->csr_write(index, value, 0xff);
    } else if ((offset & 4) != 0) {
        slots_[slot]->csr_write(index, value << 32, 0xf0);
    } else {
        slots_[slot]->csr_write(index, value & 0xffff'ffff, 0x0f);
    }
}

uint32_t SlotManager::busy_mask() const {
    uint32_t m = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
        if (slots_[i]->state() != admin::ScuSlotState::kRunning) {
            m |= 1U << i;
        }
    }
    return m;
}

uint32_t SlotManager::loaded_mask() const {
    uint32_t m = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
        if (!slots_[i]->image().builtin) {
            m |= 1U << i;
        }
    }
    return m;
}

}  // namespace scenic::scu
