// SPDX-License-Identifier: MIT
#include "scenic/rdma_tlb.hpp"

#include <algorithm>

namespace scenic::rdma {

namespace {

uint32_t mr_index(uint32_t key) { return key >> 8; }

dp::Tlb::Params bank_params() {
    dp::Tlb::Params p;
    p.sets = kTlbEntries / 4 / 4;
    p.ways = 4;
    p.page_shift = SCENIC_RDMA_PAGE_SHIFT;
    p.id_w = 16;
    p.va_w = 64;
    p.pa_w = 64;
    return p;
}

}  // namespace

Tlb::Tlb(Counters& cnt, EventFifo& events) : cnt_(cnt), events_(events) {
    banks_.reserve(kBanks);
    for (unsigned b = 0; b < kBanks; ++b) {
        banks_.emplace_back(bank_params());
    }
}

unsigned Tlb::bank_of(uint32_t key, uint64_t vpn) {
    // The twin indexes its sets with (vpn ^ id) mod sets; the bank takes the next two bits of
    // the vpn, xor the MR index: buffers allocated a power of two apart (perftest's per-QP
    // buffers) would otherwise all land in one bank and evict each other's translations.
    return static_cast<unsigned>(((vpn / kSetsPerBank) ^ mr_index(key)) % kBanks);
}

std::optional<uint64_t> Tlb::lookup(uint32_t key, uint64_t page) {
    const uint64_t vpn = page >> SCENIC_RDMA_PAGE_SHIFT;
    const auto r = banks_[bank_of(key, vpn)].lookup_now(mr_index(key), page);
    if (r.hit) {
        ++cnt_.tlb_hits;
        return r.pa;
    }
    ++cnt_.tlb_misses;
    const bool known = std::ranges::any_of(
        pending_, [&](const Miss& m) { return m.key == key && m.page == page; });
    if (!known) {
        if (pending_.size() < kMaxPendingMisses) {
            pending_.push_back({key, page});
        }
        events_.push(SCENIC_RDMA_EV_TLB_MISS, 0, key, static_cast<uint32_t>(page),
                     static_cast<uint32_t>(page >> 32));
    }
    return std::nullopt;
}

void Tlb::fill(uint32_t key, uint64_t page, uint64_t dma) {
    const uint64_t vpn = page >> SCENIC_RDMA_PAGE_SHIFT;
    if (banks_[bank_of(key, vpn)].fill(mr_index(key), vpn, dma >> SCENIC_RDMA_PAGE_SHIFT)) {
        ++cnt_.tlb_evictions;
    }
    std::erase_if(pending_, [&](const Miss& m) { return m.key == key && m.page == page; });
}

void Tlb::invalidate(uint32_t key) {
    for (auto& b : banks_) {
        b.invalidate_id(mr_index(key));
    }
    std::erase_if(pending_, [&](const Miss& m) { return mr_index(m.key) == mr_index(key); });
}

void Tlb::reset() {
    for (auto& b : banks_) {
        b.flush();
    }
    pending_.clear();
}

}  // namespace scenic::rdma
