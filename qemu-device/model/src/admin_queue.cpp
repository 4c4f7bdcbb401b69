// SPDX-License-Identifier: MIT
#include "scenic/admin_queue.hpp"

#include <algorithm>
#include <array>

#include "scenic/regs.hpp"

namespace scenic {

namespace {

namespace core = regs::core;

uint32_t field(uint32_t v, regs::FieldDef f) { return (v & f.mask) >> f.shift; }

const admin::StructDef* request_struct(uint8_t opcode) {
    const auto cmd = std::ranges::find_if(
        admin::kCommands, [opcode](const admin::CommandDef& c) { return c.opcode == opcode; });
    if (cmd == admin::kCommands.end()) {
        return nullptr;
    }
    const auto s = std::ranges::find_if(
        admin::kStructs, [&](const admin::StructDef& d) { return d.name == cmd->request; });
    return s == admin::kStructs.end() ? nullptr : &*s;
}

// The bits a request's fields cover (inherited header fields included); the rest is reserved
// and must be 0.
using UsedBits = std::array<uint8_t, kAqSqeBytes>;
UsedBits used_bits(const admin::StructDef& s) {
    UsedBits used{};
    for (const admin::FieldDef& f : s.fields) {
        for (uint32_t i = 0; i < f.count; ++i) {
            for (uint32_t b = 0; b < f.width; ++b) {
                const size_t at = f.offset + i * f.width + b;
                if (at < used.size()) {
                    used[at] |= static_cast<uint8_t>(f.mask >> (8 * b));
                }
            }
        }
    }
    return used;
}

// Every opcode's used bits, built once from the generated tables (they are constant): the walk
// over the fields cost more than most commands.
const UsedBits* request_used_bits(uint8_t opcode) {
    struct Table {
        std::array<UsedBits, 256> used{};
        std::array<bool, 256> known{};
    };
    static const Table t = [] {
        Table r;
        for (unsigned op = 0; op < 256; ++op) {
            if (const admin::StructDef* s = request_struct(static_cast<uint8_t>(op))) {
                r.used[op] = used_bits(*s);
                r.known[op] = true;
            }
        }
        return r;
    }();
    return t.known[opcode] ? &t.used[opcode] : nullptr;
}

}  // namespace

CmdResult check_request(std::span<const uint8_t, kAqSqeBytes> entry) {
    const admin::AqSqeHdr<const uint8_t> hdr(entry.first<admin::AqSqeHdr<>::kSize>());
    const UsedBits* used = request_used_bits(hdr.opcode());
    if (used == nullptr) {
        return {admin::AqStatus::kBadOpcode, field_offset(admin::kAqSqeHdrFields, "opcode")};
    }
    for (size_t i = 0; i < entry.size(); ++i) {
        if ((entry[i] & ~(*used)[i]) != 0) {
            return {admin::AqStatus::kMalformed, static_cast<uint16_t>(i)};
        }
    }
    return {};
}

AdminQueue::AdminQueue(const Config& config, Host& host, EventQueue& events, Exec exec,
                       std::function<void(admin::AqHaltReason)> on_halt)
    : config_(config),
      host_(host),
      events_(events),
      exec_(std::move(exec)),
      on_halt_(std::move(on_halt)) {}

AdminQueue::~AdminQueue() {
    if (pending_) {
        events_.cancel(*pending_);
    }
}

unsigned AdminQueue::log2_depth() const { return field(cfg_, core::kAqCfgLog2Depth); }

bool AdminQueue::running() const {
    const uint64_t sq = uint64_t{sq_base_hi_} << 32 | sq_base_lo_;
    const uint64_t cq = uint64_t{cq_base_hi_} << 32 | cq_base_lo_;
    const unsigned l = log2_depth();
    return field(cfg_, core::kAqCfgEnable) != 0 && l >= 2 && l <= 10 && sq != 0 && cq != 0 &&
           sq % kAqSqeBytes == 0 && cq % kAqCqeBytes == 0;
}

uint32_t AdminQueue::status() const {
    uint32_t v = 0;
    if (running() && !halted_) {
        v |= core::kAqStatusReady.mask;
    }
    if (halted_) {
        v |= core::kAqStatusHalted.mask;
        v |= (static_cast<uint32_t>(halt_reason_) << core::kAqStatusHaltReason.shift) &
             core::kAqStatusHaltReason.mask;
    }
    return v;
}

bool AdminQueue::read(uint32_t offset, uint32_t& value) const {
    switch (offset) {
        case core::kAqSqBaseLo:
            value = sq_base_lo_;
            return true;
        case core::kAqSqBaseHi:
            value = sq_base_hi_;
            return true;
        case core::kAqCqBaseLo:
            value = cq_base_lo_;
            return true;
        case core::kAqCqBaseHi:
            value = cq_base_hi_;
            return true;
        case core::kAqCfg:
            value = cfg_;
            return true;
        case core::kAqStatus:
            value = status();
            return true;
        case core::kAqSqTail:
            value = sq_tail_;
            return true;
        case core::kAqSqHead:
            value = sq_head_;
            return true;
        case core::kAqCqHead:
            value = cq_head_;
            return true;
        case core::kAqCqTail:
            value = cq_tail_;
            return true;
        case core::kAqTimeoutMs:
            value = core::kAqTimeoutMsDefault;
            return true;
        default:
            return false;
    }
}

bool AdminQueue::write(uint32_t offset, uint32_t value) {
    const bool enabled = field(cfg_, core::kAqCfgEnable) != 0;
    switch (offset) {
        case core::kAqSqBaseLo:
            if (!enabled) sq_base_lo_ = value;
            return true;
        case core::kAqSqBaseHi:
            if (!enabled) sq_base_hi_ = value;
            return true;
        case core::kAqCqBaseLo:
            if (!enabled) cq_base_lo_ = value;
            return true;
        case core::kAqCqBaseHi:
            if (!enabled) cq_base_hi_ = value;
            return true;
        case core::kAqCfg: {
            const uint32_t known = core::kAqCfgLog2Depth.mask | core::kAqCfgVector.mask |
                                   core::kAqCfgIrqEn.mask | core::kAqCfgEnable.mask;
            if (enabled) {
                value = (value & ~core::kAqCfgLog2Depth.mask) | (cfg_ & core::kAqCfgLog2Depth.mask);
            }
            cfg_ = value & known;
            if (enabled && field(cfg_, core::kAqCfgEnable) == 0) {
                // Stopped (the current command, if any, is complete: commands are atomic here).
                sq_tail_ = sq_head_ = cq_head_ = cq_tail_ = 0;
                halted_ = false;
                if (pending_) {
                    events_.cancel(*pending_);
                    pending_.reset();
                }
            }
            kick(kCmdLatencyNs);
            return true;
        }
        case core::kAqSqTail:
            sq_tail_ = field(value, core::kAqSqTailIndex);
            kick(kCmdLatencyNs);
            return true;
        case core::kAqCqHead:
            cq_head_ = field(value, core::kAqCqHeadIndex);
            kick(kCmdLatencyNs);  // a stalled queue may go on
            return true;
        default:
            return false;
    }
}

void AdminQueue::set_stalled(bool s) {
    stalled_ = s;
    if (!s) {
        kick(kCmdLatencyNs);
    }
}

void AdminQueue::kick(uint64_t delay_ns) {
    if (pending_ || !running() || halted_ || stalled_ || sq_tail_ == sq_head_) {
        return;
    }
    pending_ = events_.schedule_in(delay_ns, [this] {
        pending_.reset();
        step();
    });
}

void AdminQueue::halt(admin::AqHaltReason reason) {
    halted_ = true;
    halt_reason_ = reason;
    if (on_halt_) {
        on_halt_(reason);
    }
}

// One command: fetch, check the phase, execute, write the completion.
void AdminQueue::step() {
    if (!running() || halted_ || stalled_) {
        return;
    }
    const uint32_t d = depth();
    const uint32_t avail = (sq_tail_ - sq_head_) & 0xffff;
    if (avail == 0) {
        return;
    }
    if (avail > d) {
        halt(admin::AqHaltReason::kDoorbellOverrun);
        return;
    }
    if (((cq_tail_ - cq_head_) & 0xffff) >= d) {
        return;  // full CQ: stall until AQ_CQ_HEAD moves
    }
    const uint64_t sq = uint64_t{sq_base_hi_} << 32 | sq_base_lo_;
    const uint64_t cq = uint64_t{cq_base_hi_} << 32 | cq_base_lo_;
    const unsigned l = log2_depth();
    std::array<uint8_t, kAqSqeBytes> entry{};
    if (!host_.dma_read(sq + uint64_t{sq_head_ & (d - 1)} * kAqSqeBytes, entry)) {
        halt(admin::AqHaltReason::kDmaFault);
        return;
    }
    const admin::AqSqeHdr<const uint8_t> hdr(
        std::span<const uint8_t, kAqSqeBytes>(entry).first<admin::AqSqeHdr<>::kSize>());
    if (hdr.phase() != (((sq_head_ >> l) & 1) ^ 1)) {
        halt(admin::AqHaltReason::kStalePhase);
        return;
    }
    sq_head_ = (sq_head_ + 1) & 0xffff;

    std::array<uint8_t, kAqCqeBytes> cqe{};
    const admin::AqCqe<> c{std::span<uint8_t, kAqCqeBytes>(cqe)};
    CmdResult r = check_request(entry);
    if (r.ok()) {
        r = exec_(entry, std::span<uint8_t, kAqCqeBytes>(cqe).last<kAqResultBytes>());
    }
    if (!r.ok()) {
        std::ranges::fill(std::span(cqe).last<kAqResultBytes>(), uint8_t{0});
    }
    uint16_t id = hdr.cmd_id();
    if (swap_id_) {
        swap_id_ = false;
        id = static_cast<uint16_t>(id ^ 0x8000);  // FAULT_INJECT.swap_ids: a wrong id
    }
    c.set_cmd_id(id);
    c.set_status(static_cast<uint8_t>(r.status));
    c.set_syndrome(r.ok() ? 0 : r.syndrome);
    c.set_sq_head(static_cast<uint16_t>(sq_head_));
    c.set_phase(static_cast<uint8_t>(((cq_tail_ >> l) & 1) ^ 1));
    if (!host_.dma_write(cq + uint64_t{cq_tail_ & (d - 1)} * kAqCqeBytes, cqe)) {
        halt(admin::AqHaltReason::kDmaFault);
        return;
    }
    cq_tail_ = (cq_tail_ + 1) & 0xffff;
    if (field(cfg_, core::kAqCfgIrqEn) != 0) {
        const unsigned vec = field(cfg_, core::kAqCfgVector);
        if (vec < config_.msix_vectors) {
            host_.msix_notify(vec);
        }
    }
    kick(latency_ ? latency_(hdr.opcode()) : kCmdLatencyNs);
}

void AdminQueue::reset() {
    if (pending_) {
        events_.cancel(*pending_);
        pending_.reset();
    }
    sq_base_lo_ = sq_base_hi_ = cq_base_lo_ = cq_base_hi_ = 0;
    cfg_ = 0;
    sq_tail_ = sq_head_ = cq_head_ = cq_tail_ = 0;
    halted_ = false;
    halt_reason_ = {};
    stalled_ = false;
    swap_id_ = false;
}

}  // namespace scenic
