// SPDX-License-Identifier: MIT
// Memory protection and access of the RDMA engine: the MR table (key, PD, iova range, access),
// the memory-window table (rdma_mw.cpp),
// lkey / rkey checks, translation through the on-card TLB and the DMA itself. Every access to
// registered memory goes through here: the range is checked and translated completely before the
// first byte moves, so a refused access writes nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "scenic/host.hpp"
#include "scenic/rdma_context.hpp"
#include "scenic/rdma_tlb.hpp"

namespace scenic::rdma {

enum class MemStatus : uint8_t {
    kOk,
    kProt,  // key, PD, bounds or access refused
    kMiss,  // a translation is missing (AEQ TLB_MISS raised)
    kDma,   // the host refused the DMA
};

class Memory {
  public:
    Memory(Host& host, Tlb& tlb, Counters& cnt) : host_(host), tlb_(tlb), cnt_(cnt) {}

    // The MR of a key (the whole key must match), or nullptr.
    [[nodiscard]] const Mr* find(uint32_t key) const;
    [[nodiscard]] Mr* find_index(uint32_t index) const;
    // MR table (commands); the caller validates the arguments.
    bool add(const Mr& mr);
    enum class RemoveStatus : uint8_t { kOk, kNotFound, kBusy };
    RemoveStatus remove(uint32_t key);
    void reset();

    // Memory windows (rdma_mw.cpp). Keys with kMwIndexBit name the MW table.
    [[nodiscard]] static bool is_mw_key(uint32_t key) { return ((key >> 8) & kMwIndexBit) != 0; }
    [[nodiscard]] const Mw* find_mw(uint32_t key) const;  // whole key, or nullptr
    bool alloc_mw(uint32_t key, uint32_t pdn, uint8_t type);
    bool dealloc_mw(uint32_t key);  // any tag of the index
    // BIND_MW through a QP of PD pdn: kWcSuccess or kWcMwBindErr (nothing changed then).
    uint8_t bind_mw(const MwBind& b, uint32_t pdn, uint32_t qpn);
    // LOCAL_INV / SEND_INV: a valid type 2 MW of PD pdn becomes invalid; false otherwise.
    bool invalidate_mw(uint32_t rkey, uint32_t pdn);

    // Checks that [va, va + len) of `key` may be accessed by PD pdn with `access` bits. An MW
    // key passes only for remote access (some kAccessRemote bit), with the window's range and
    // rights, and, for type 2, through the QP `qpn` it was bound through.
    // Zero-length accesses are always allowed (IBA: no key check for 0 bytes).
    [[nodiscard]] bool allowed(uint32_t key, uint32_t pdn, uint64_t va, uint64_t len,
                               uint32_t access, uint32_t qpn = 0) const;

    // Remote access: check, translate, then DMA.
    MemStatus read(uint32_t key, uint32_t pdn, uint32_t access, uint64_t va, std::span<uint8_t> dst,
                   uint32_t qpn = 0);
    MemStatus write(uint32_t key, uint32_t pdn, uint32_t access, uint64_t va,
                    std::span<const uint8_t> src, uint32_t qpn = 0);

    // Local access through a scatter / gather list, starting `offset` bytes into it.
    MemStatus gather(std::span<const Sge> sgl, uint32_t pdn, uint64_t offset,
                     std::span<uint8_t> dst);
    MemStatus scatter(std::span<const Sge> sgl, uint32_t pdn, uint64_t offset,
                      std::span<const uint8_t> src);
    // The checks and translations of a scatter, without data: the requester makes sure that
    // the destination of a READ is translated before it asks for the data.
    MemStatus prepare_scatter(std::span<const Sge> sgl, uint32_t pdn, uint64_t offset,
                              uint64_t len);

  private:
    struct Seg {
        uint64_t dma;
        size_t len;
    };
    // The MR an access through `key` reaches once every check passed, or nullptr.
    [[nodiscard]] const Mr* resolve(uint32_t key, uint32_t pdn, uint64_t va, uint64_t len,
                                    uint32_t access, uint32_t qpn) const;
    [[nodiscard]] Mw* mw_slot(uint32_t key) const;  // by index only
    // Appends the DMA segments of [va, va + len) of the MR (contiguous pages merged).
    MemStatus translate(const Mr& mr, uint64_t va, uint64_t len);
    MemStatus map_sgl(std::span<const Sge> sgl, uint32_t pdn, uint32_t access, uint64_t offset,
                      uint64_t len);
    MemStatus dma_in(std::span<uint8_t> dst);
    MemStatus dma_out(std::span<const uint8_t> src);

    Host& host_;
    Tlb& tlb_;
    Counters& cnt_;
    // Indexed by key >> 8 (windows without kMwIndexBit), grown up to the highest index used
    // (at most kMaxMr / kMaxMw): creating, resetting and destroying the card cost nothing for
    // the 4096 slots a driver never filled.
    std::vector<std::unique_ptr<Mr>> mrs_;
    std::vector<std::unique_ptr<Mw>> mws_;
    std::vector<Seg> segs_;  // scratch, reused
    bool probing_ = false;   // prepare_scatter: hits are counted by the access after it
};

}  // namespace scenic::rdma
