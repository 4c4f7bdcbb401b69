// SPDX-License-Identifier: MIT
// The slots' status pages and the SCU_QUERY_CAPS page (docs/scu.md 4.4, admin formats
// scu_status_page and scu_caps_kind): what the card DMAs to host memory about its slots.
#include <algorithm>
#include <array>
#include <vector>

#include "scenic/scu_slots.hpp"

namespace scenic::scu {

using admin::ScuStatus;

namespace {

constexpr size_t kBodyBytes = admin::ScuStatusPage<>::kSize;

// docs/scu.md 2.4's counters, in that order.
std::array<uint64_t, 20> traffic(const SlotCounters& c) {
    return {c.pkts_in[0],     c.bytes_in[0],    c.pkts_out[0],    c.bytes_out[0], c.pkts_in[1],
            c.bytes_in[1],    c.pkts_out[1],    c.bytes_out[1],   0 /* rx stall */,
            0 /* tx stall */, c.fifo_drops[0],  c.fifo_drops[1],  c.scu_drops,    c.violations,
            c.mem_rd_bytes,   c.mem_wr_bytes,   c.mem_faults,     0 /* csr timeouts */,
            c.irqs,           c.loads};
}

bool page_addr_ok(uint64_t addr) { return addr % SlotManager::kStatusPageBytes == 0; }

}  // namespace

bool SlotManager::write_status(unsigned slot, bool whole) {
    StatusPage& p = pages_[slot];
    const Slot& s = *slots_[slot];
    std::vector<uint8_t> body(whole ? kStatusPageBytes : kBodyBytes);
    const admin::ScuStatusPage<> v{std::span<uint8_t, kBodyBytes>(body.data(), kBodyBytes)};
    v.set_state(static_cast<uint32_t>(s.state()));
    v.set_kind(s.image().kind);
    const SlotCounters& c = s.counters();
    for (size_t i = 0; i < c.completions.size(); ++i) {
        v.set_completions(i, c.completions[i]);
    }
    const std::array<uint64_t, 20> t = traffic(c);
    for (size_t i = 0; i < t.size(); ++i) {
        v.set_counters(i, t[i]);
    }
    // seq odd, the body, seq even: a reader that sees the same even seq before and after its
    // copy has a consistent one.
    const auto put_seq = [&](uint64_t seq) {
        std::array<uint8_t, 8> b{};
        for (size_t i = 0; i < 8; ++i) {
            b[i] = static_cast<uint8_t>(seq >> (8 * i));
        }
        return env_.host.dma_write(p.addr, b);
    };
    const uint64_t seq = p.seq + 1;
    if (!put_seq(seq) ||
        !env_.host.dma_write(p.addr + 8, std::span<const uint8_t>(body).subspan(8)) ||
        !put_seq(seq + 1)) {
        return false;
    }
    p.seq = seq + 1;
    return true;
}

ScuStatus SlotManager::set_status_page(unsigned slot, uint64_t addr) {
    if (slot >= slots_.size()) {
        return refuse(slot, ScuStatus::kBadSlot);
    }
    if (!page_addr_ok(addr)) {
        return refuse(slot, ScuStatus::kBadAddr);
    }
    const StatusPage old = pages_[slot];
    pages_[slot] = {addr, old.addr == addr ? old.seq : 0};
    if (addr != 0 && !write_status(slot, true)) {
        pages_[slot] = old;  // the card keeps writing where it did
        return refuse(slot, ScuStatus::kDmaError);
    }
    arm_status_timer();
    return ScuStatus::kOk;
}

ScuStatus SlotManager::flush_stats(unsigned slot) {
    if (slot >= slots_.size()) {
        return refuse(slot, ScuStatus::kBadSlot);
    }
    slots_[slot]->rearm_fault_event();
    if (pages_[slot].addr == 0) {
        return refuse(slot, ScuStatus::kBadAddr);
    }
    return write_status(slot, false) ? ScuStatus::kOk : refuse(slot, ScuStatus::kDmaError);
}

void SlotManager::arm_status_timer() {
    const bool any = std::any_of(pages_.begin(), pages_.end(),
                                 [](const StatusPage& p) { return p.addr != 0; });
    if (!any && status_timer_) {
        env_.events.cancel(*status_timer_);
        status_timer_.reset();
    }
    if (!any || status_timer_) {
        return;
    }
    status_timer_ = env_.events.schedule_in(kStatusPeriodNs, [this] {
        status_timer_.reset();
        for (unsigned i = 0; i < slots_.size(); ++i) {
            if (pages_[i].addr != 0) {
                (void)write_status(i, false);  // a failed DMA is retried by the next period
            }
        }
        arm_status_timer();
    });
}

void SlotManager::count_completion(unsigned slot, CompletionOp op) {
    if (slot >= slots_.size() || op >= kCompletionOps) {
        return;
    }
    const uint64_t n = slots_[slot]->count_completion(op);
    if (pages_[slot].addr == 0) {
        return;
    }
    std::array<uint8_t, 8> b{};
    for (size_t i = 0; i < 8; ++i) {
        b[i] = static_cast<uint8_t>(n >> (8 * i));
    }
    // A single 8-byte write, as the per-QP sq_completed; a refused one is repeated by the next
    // periodic write of the page.
    (void)env_.host.dma_write(pages_[slot].addr + 0x40 + 8 * uint64_t{op}, b);
}

std::optional<unsigned> SlotManager::write_caps(uint64_t addr) {
    std::vector<uint8_t> page(kStatusPageBytes);
    const std::vector<Registry::Entry> kinds = registry_.entries();
    const size_t n = std::min(kinds.size(), kCapsMaxKinds);
    constexpr size_t kEntry = admin::ScuCapsKind<>::kSize;
    for (size_t i = 0; i < n; ++i) {
        const admin::ScuCapsKind<> e{std::span<uint8_t, kEntry>(page.data() + i * kEntry, kEntry)};
        e.set_kind(kinds[i].kind);
        e.set_kind_version(kinds[i].version);
        for (size_t j = 0; j < kinds[i].name.size() && j < 31; ++j) {
            e.set_name(j, static_cast<uint8_t>(kinds[i].name[j]));
        }
    }
    if (!env_.host.dma_write(addr, page)) {
        return std::nullopt;
    }
    return static_cast<unsigned>(n);
}

}  // namespace scenic::scu
