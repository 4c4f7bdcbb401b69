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

Tlb::Tlb(Counters& cnt, Events& events) : cnt_(cnt), events_(events) {
    banks_.reserve(kBanks);
    for (unsigned b = 0; b < kBanks; ++b) {
        banks_.emplace_back(bank_params());
    }
}

// The vpn the banks see: its 10 index bits (bank and set) xor a hash of the bits above them and a
// hash of the MR index. For a given MR that is a bijection (the bits above stay
// as they are), so tags still match exactly. Without it buffers a power of two apart, as perftest
// lays out one region per QP in one MR (or one MR per QP), put the same page offset of every
// buffer into one set while the rest of the TLB stays empty: ib_read_bw -q 16 -a livelocked on
// misses that the next fill evicted again.
uint64_t Tlb::bank_vpn(uint32_t key, uint64_t vpn) {
    constexpr unsigned kIndexBits = 10;  // log2(kBanks * kSetsPerBank)
    static_assert((1u << kIndexBits) == kBanks * kSetsPerBank);
    constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
    // Multiplicative hashes (Fibonacci): every one of the 10 bits depends on all input bits, so
    // buffers a power of two apart get unrelated set ranges, not neighbouring ones.
    const uint64_t fold = ((vpn >> kIndexBits) * 0x9e3779b97f4a7c15ull) >> (64 - kIndexBits);
    const uint32_t mix = (mr_index(key) * 0x9e3779b1u) >> (32 - kIndexBits);
    return vpn ^ ((fold ^ mix) & kIndexMask);
}

unsigned Tlb::bank_of(uint64_t bvpn) {
    // The twin indexes its sets with (vpn ^ id) mod sets; the bank takes the next two bits.
    return static_cast<unsigned>((bvpn / kSetsPerBank) % kBanks);
}

std::optional<uint64_t> Tlb::lookup(uint32_t key, uint64_t page, bool count_hit) {
    const uint64_t bvpn = bank_vpn(key, page >> SCENIC_RDMA_PAGE_SHIFT);
    const auto r = banks_[bank_of(bvpn)].lookup_now(mr_index(key), bvpn << SCENIC_RDMA_PAGE_SHIFT);
    if (r.hit) {
        cnt_.tlb_hits += count_hit ? 1 : 0;
        return r.pa;
    }
    ++cnt_.tlb_misses;
    const uint64_t now = events_.now();
    const auto it = std::ranges::find_if(
        pending_, [&](const Miss& m) { return m.key == key && m.page == page; });
    if (it == pending_.end()) {
        const bool raised = raise(key, page);
        if (pending_.size() < kMaxPendingMisses) {
            pending_.push_back({key, page, now, !raised});
        }
    } else if (it->lost || now - it->raised_ns >= kMissReraiseNs) {
        it->lost = !raise(key, page);
        it->raised_ns = now;
    }
    return std::nullopt;
}

bool Tlb::raise(uint32_t key, uint64_t page) { return events_.tlb_miss(key, page); }

void Tlb::fill(uint32_t key, uint64_t page, uint64_t dma) {
    const uint64_t bvpn = bank_vpn(key, page >> SCENIC_RDMA_PAGE_SHIFT);
    if (banks_[bank_of(bvpn)].fill(mr_index(key), bvpn, dma >> SCENIC_RDMA_PAGE_SHIFT)) {
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

void Tlb::reraise_pending() {
    const uint64_t now = events_.now();
    for (Miss& m : pending_) {
        m.lost = !raise(m.key, m.page);
        m.raised_ns = now;
    }
}

void Tlb::reset() {
    for (auto& b : banks_) {
        b.flush();
    }
    pending_.clear();
}

}  // namespace scenic::rdma
