// SPDX-License-Identifier: MIT
// The on-card TLB (paper section 7.2): translations of (MR, 4 KiB page of iova) to a DMA address,
// filled by the driver (admin command TLB_FILL), LRU replacement. Built from hw-rtl's TLB twin
// (scenic::dp::Tlb, transaction level): the RTL block holds at most 1024 entries, so the
// 4096-entry TLB is four banks of 256 sets x 4 ways, the bank chosen by the two vpn bits above
// the twin's set index: a 1024-set 4-way TLB. The banks see the vpn with its 10 index bits xor a
// hash of the higher vpn bits and one of the MR index, so that buffers a power of two apart
// (in one MR or in several) use different sets. The twin's id is the MR index
// (the MR table checks the key's tag).
//
// A miss raises an AEQ TLB_MISS (key, page iova) once per missing page while it stays missing, and
// again (at the next lookup, which the paused requester or responder retries every
// kTlbRetryNs) when the event was lost to a full event queue or kMissReraiseNs passed without a
// fill: a lost event never stalls a QP for ever.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "scenic/dp/tlb.hpp"
#include "scenic/rdma_context.hpp"
#include "scenic/rdma_events.hpp"

namespace scenic::rdma {

class Tlb {
  public:
    Tlb(Counters& cnt, Events& events);

    // DMA address of the page of iova `page` (4 KiB aligned) of MR `key`, counted as a hit or a
    // miss; a miss raises the miss event (deduplicated).
    // count_hit false: a check ahead of the access that will count it (a miss always counts).
    std::optional<uint64_t> lookup(uint32_t key, uint64_t page, bool count_hit = true);
    void fill(uint32_t key, uint64_t page, uint64_t dma);
    // DEREG_MR: every translation of the MR and its pending misses.
    void invalidate(uint32_t key);
    // After an AEQ OVERFLOW: every miss still pending is raised again.
    void reraise_pending();
    void reset();

  private:
    static constexpr unsigned kBanks = 4;
    static constexpr unsigned kSetsPerBank = kTlbEntries / kBanks / 4;
    static constexpr unsigned kMaxPendingMisses = 256;
    static constexpr uint64_t kMissReraiseNs = 1'000'000;
    // Queues the miss event; false if the event queue was full.
    bool raise(uint32_t key, uint64_t page);
    [[nodiscard]] static uint64_t bank_vpn(uint32_t key, uint64_t vpn);
    [[nodiscard]] static unsigned bank_of(uint64_t bvpn);

    Counters& cnt_;
    Events& events_;
    std::vector<dp::Tlb> banks_;
    struct Miss {
        uint32_t key;
        uint64_t page;
        uint64_t raised_ns;  // when the event was last queued (or lost)
        bool lost;           // the last event for it was dropped: raise it at the next lookup
    };
    std::vector<Miss> pending_;  // misses raised and not filled yet (dedup, re-raise)
};

}  // namespace scenic::rdma
