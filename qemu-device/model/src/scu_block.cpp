// SPDX-License-Identifier: MIT
#include "scenic/scu_block.hpp"

#include <array>

namespace scenic {

namespace {

scu::MemStatus from_rdma(rdma::MemStatus s) {
    switch (s) {
        case rdma::MemStatus::kOk:
            return scu::MemStatus::kOk;
        case rdma::MemStatus::kProt:
            return scu::MemStatus::kBounds;
        case rdma::MemStatus::kMiss:
            return scu::MemStatus::kRetry;
        default:
            return scu::MemStatus::kDma;
    }
}

scu::SlotManagerConfig slot_config(const Config& config) {
    scu::SlotManagerConfig c;
    c.num_slots = regs::scu::kNumSlotsDefault;
    c.reconfig_ns = uint64_t{config.scu_reconfig_us} * 1000;
    c.max_image = regs::scu::kMaxImageDefault;
    c.iface = regs::scu::kIfaceVersionDefault;
    return c;
}

}  // namespace

std::optional<scu::MrInfo> ScuBlock::RdmaMemory::mr(uint32_t key) const {
    const rdma::Mr* m = mem_.find(key);
    if (m == nullptr) {
        return std::nullopt;
    }
    return scu::MrInfo{m->pdn, m->iova, m->length, m->access};
}

scu::MemStatus ScuBlock::RdmaMemory::read(uint32_t key, uint32_t pdn, uint64_t iova,
                                          std::span<uint8_t> dst) {
    return from_rdma(mem_.read(key, pdn, 0, iova, dst));
}

scu::MemStatus ScuBlock::RdmaMemory::write(uint32_t key, uint32_t pdn, uint64_t iova,
                                           std::span<const uint8_t> src) {
    return from_rdma(mem_.write(key, pdn, rdma::kAccessLocalWrite, iova, src));
}

ScuBlock::ScuBlock(const Config& config, Host& host, EventQueue& events, EventRing& aeq,
                   rdma::Memory& mem)
    : Block({regs::scu::kType, regs::scu::kVersion, regs::scu::kOffset, regs::scu::kSize,
             regs::scu::kNext}),
      aeq_(aeq),
      mem_(mem),
      slots_(slot_config(config),
             {host, events, mem_,
              [this](unsigned, scu::Dir d, const scu::Meta& m, std::span<const uint8_t> data,
                     bool drop) { slot_out(d, m, data, drop); },
              [this](const scu::Event& e) { push_event(e); },
              [&host, vectors = config.msix_vectors](unsigned slot) {
                  if (regs::kVecScu + slot < vectors) {
                      host.msix_notify(regs::kVecScu + slot);
                  }
              },
              [this](unsigned slot) {
                  if (resume_) {
                      resume_(slot);
                  }
              }}) {}

void ScuBlock::slot_out(scu::Dir d, const scu::Meta& m, std::span<const uint8_t> data, bool drop) {
    // Steered frames continue their path. RDMA payload comes back to the engine inside
    // Slot::pass(); an RDMA output outside it (an SCU that answered late) pairs with nothing.
    if (m.src == scu::kSrcFrame && !drop && frame_out_) {
        frame_out_(d, data);
    }
}

std::optional<unsigned> ScuBlock::slot_of(uint32_t offset, uint32_t reg) const {
    static_assert(regs::scu::kSlotStateStride == regs::scu::kSlotIrqStatusStride &&
                  regs::scu::kSlotStateStride == regs::scu::kSlotIrqMaskStride &&
                  regs::scu::kSlotStateStride == regs::scu::kSlotKindStride);
    constexpr uint32_t kStride = regs::scu::kSlotStateStride;
    if (offset < reg || (offset - reg) % kStride != 0) {
        return std::nullopt;
    }
    const uint32_t n = (offset - reg) / kStride;
    if (n >= regs::scu::kSlotStateCount) {
        return std::nullopt;
    }
    return n;
}

void ScuBlock::push_event(const scu::Event& e) {
    std::array<uint8_t, 32> entry{};
    const admin::AeqeScu<> v{std::span<uint8_t, 32>(entry)};
    v.set_type(static_cast<uint8_t>(admin::AeqType::kScu));
    v.set_slot(static_cast<uint8_t>(e.slot));
    v.set_kind(static_cast<uint8_t>(e.kind));
    v.set_scu_status(static_cast<uint8_t>(e.status));
    v.set_info(e.info);
    v.set_count(e.count);
    aeq_.push(entry);
}

uint32_t ScuBlock::read_reg(uint32_t offset) {
    switch (offset) {
        case regs::scu::kNumSlots:
            return slots_.num_slots();
        case regs::scu::kIfaceVersion:
            return slots_.config().iface;
        case regs::scu::kMaxImage:
            return slots_.config().max_image;
        case regs::scu::kReconfigUs:
            return static_cast<uint32_t>(slots_.config().reconfig_ns / 1000);
        case regs::scu::kCsrWindow:
            return regs::scu::kCsrWindowDefault;
        case regs::scu::kSlotBusy:
            return slots_.busy_mask();
        case regs::scu::kSlotLoaded:
            return slots_.loaded_mask();
        case regs::scu::kIrqLines:
            return scu::kIrqLines;
        case regs::scu::kSteerRules:
            return scu::kSteerRules;
        default:
            break;
    }
    // The per-slot registers; slots past NUM_SLOTS read 0.
    const auto per_slot = [&](uint32_t reg) -> scu::Slot* {
        const std::optional<unsigned> n = slot_of(offset, reg);
        return n && *n < slots_.num_slots() ? &slots_.slot(*n) : nullptr;
    };
    if (scu::Slot* s = per_slot(regs::scu::kSlotState)) {
        return static_cast<uint32_t>(s->state());
    }
    if (scu::Slot* s = per_slot(regs::scu::kSlotIrqStatus)) {
        return s->irq_status();
    }
    if (scu::Slot* s = per_slot(regs::scu::kSlotIrqMask)) {
        return s->irq_mask();
    }
    if (scu::Slot* s = per_slot(regs::scu::kSlotKind)) {
        return s->image().kind;
    }
    return 0;
}

void ScuBlock::write_reg(uint32_t offset, uint32_t value) {
    const auto per_slot = [&](uint32_t reg) -> scu::Slot* {
        const std::optional<unsigned> n = slot_of(offset, reg);
        return n && *n < slots_.num_slots() ? &slots_.slot(*n) : nullptr;
    };
    if (scu::Slot* s = per_slot(regs::scu::kSlotIrqStatus)) {
        s->clear_irqs(value);
    }
    if (scu::Slot* s = per_slot(regs::scu::kSlotIrqMask)) {
        s->set_irq_mask(value);
    }
}

}  // namespace scenic
