// SPDX-License-Identifier: MIT
#include "scenic/rdma_memory.hpp"

#include <algorithm>

namespace scenic::rdma {

const Mr* Memory::find(uint32_t key) const {
    const Mr* mr = find_index(key >> 8);
    return mr && mr->key == key ? mr : nullptr;
}

Mr* Memory::find_index(uint32_t index) const {
    return index < mrs_.size() ? mrs_[index].get() : nullptr;
}

bool Memory::add(const Mr& mr) {
    const uint32_t index = mr.key >> 8;
    if (index < kMaxMr && index >= mrs_.size()) {
        mrs_.resize(index + 1);
    }
    auto& slot = mrs_.at(index);
    if (slot) {
        return false;
    }
    slot = std::make_unique<Mr>(mr);
    return true;
}

Memory::RemoveStatus Memory::remove(uint32_t key) {
    const Mr* mr = find(key);
    if (!mr) {
        return RemoveStatus::kNotFound;
    }
    if (mr->mw_binds != 0) {
        return RemoveStatus::kBusy;  // a window still reaches it
    }
    mrs_[key >> 8].reset();
    tlb_.invalidate(key);
    return RemoveStatus::kOk;
}

void Memory::reset() {
    mrs_.clear();
    mws_.clear();
}

bool Memory::allowed(uint32_t key, uint32_t pdn, uint64_t va, uint64_t len, uint32_t access,
                     uint32_t qpn) const {
    return len == 0 || resolve(key, pdn, va, len, access, qpn) != nullptr;
}

const Mr* Memory::resolve(uint32_t key, uint32_t pdn, uint64_t va, uint64_t len, uint32_t access,
                          uint32_t qpn) const {
    auto in = [va, len](uint64_t base, uint64_t size) {
        return va >= base && len <= size && va - base <= size - len;
    };
    if (!is_mw_key(key)) {
        const Mr* mr = find(key);
        return mr && mr->pdn == pdn && (mr->access & access) == access && in(mr->iova, mr->length)
                   ? mr
                   : nullptr;
    }
    // A window is an rkey: local access (lkeys, access without a remote bit) never uses one.
    const Mw* w = find_mw(key);
    if ((access & kAccessRemote) == 0 || (access & ~kAccessRemote) != 0 || !w || !w->valid ||
        w->pdn != pdn || (w->type == 2 && w->qpn != qpn) || (w->access & access) != access ||
        !in(w->va, w->length)) {
        return nullptr;
    }
    return find(w->mr_key);  // bound MRs cannot be deregistered; checked all the same
}

MemStatus Memory::translate(const Mr& mr, uint64_t va, uint64_t len) {
    while (len != 0) {
        const uint64_t page = va & ~(kPageSize - 1);
        const uint64_t in_page = std::min(len, page + kPageSize - va);
        const auto dma = tlb_.lookup(mr.key, page, !probing_);
        if (!dma) {
            return MemStatus::kMiss;
        }
        const uint64_t addr = *dma + (va - page);
        if (!segs_.empty() && segs_.back().dma + segs_.back().len == addr) {
            segs_.back().len += in_page;
        } else {
            segs_.push_back({addr, in_page});
        }
        va += in_page;
        len -= in_page;
    }
    return MemStatus::kOk;
}

MemStatus Memory::map_sgl(std::span<const Sge> sgl, uint32_t pdn, uint32_t access, uint64_t offset,
                          uint64_t len) {
    segs_.clear();
    for (const Sge& s : sgl) {
        if (len == 0) {
            break;
        }
        if (offset >= s.length) {
            offset -= s.length;
            continue;
        }
        const uint64_t n = std::min<uint64_t>(len, s.length - offset);
        if (!allowed(s.lkey, pdn, s.addr + offset, n, access)) {
            return MemStatus::kProt;
        }
        if (const MemStatus st = translate(*find(s.lkey), s.addr + offset, n);
            st != MemStatus::kOk) {
            return st;
        }
        len -= n;
        offset = 0;
    }
    return len == 0 ? MemStatus::kOk : MemStatus::kProt;  // the list is shorter than asked
}

MemStatus Memory::dma_in(std::span<uint8_t> dst) {
    size_t off = 0;
    for (const Seg& s : segs_) {
        if (!host_.dma_read(s.dma, dst.subspan(off, s.len))) {
            ++cnt_.dma_errors;
            return MemStatus::kDma;
        }
        off += s.len;
    }
    return MemStatus::kOk;
}

MemStatus Memory::dma_out(std::span<const uint8_t> src) {
    size_t off = 0;
    for (const Seg& s : segs_) {
        if (!host_.dma_write(s.dma, src.subspan(off, s.len))) {
            ++cnt_.dma_errors;
            return MemStatus::kDma;
        }
        off += s.len;
    }
    return MemStatus::kOk;
}

MemStatus Memory::read(uint32_t key, uint32_t pdn, uint32_t access, uint64_t va,
                       std::span<uint8_t> dst, uint32_t qpn) {
    if (dst.empty()) {
        return MemStatus::kOk;
    }
    const Mr* mr = resolve(key, pdn, va, dst.size(), access, qpn);
    if (!mr) {
        return MemStatus::kProt;
    }
    segs_.clear();
    const MemStatus st = translate(*mr, va, dst.size());
    return st == MemStatus::kOk ? dma_in(dst) : st;
}

MemStatus Memory::write(uint32_t key, uint32_t pdn, uint32_t access, uint64_t va,
                        std::span<const uint8_t> src, uint32_t qpn) {
    if (src.empty()) {
        return MemStatus::kOk;
    }
    const Mr* mr = resolve(key, pdn, va, src.size(), access, qpn);
    if (!mr) {
        return MemStatus::kProt;
    }
    segs_.clear();
    const MemStatus st = translate(*mr, va, src.size());
    return st == MemStatus::kOk ? dma_out(src) : st;
}

MemStatus Memory::gather(std::span<const Sge> sgl, uint32_t pdn, uint64_t offset,
                         std::span<uint8_t> dst) {
    if (dst.empty()) {
        return MemStatus::kOk;
    }
    const MemStatus st = map_sgl(sgl, pdn, 0, offset, dst.size());
    return st == MemStatus::kOk ? dma_in(dst) : st;
}

MemStatus Memory::scatter(std::span<const Sge> sgl, uint32_t pdn, uint64_t offset,
                          std::span<const uint8_t> src) {
    if (src.empty()) {
        return MemStatus::kOk;
    }
    const MemStatus st = map_sgl(sgl, pdn, kAccessLocalWrite, offset, src.size());
    return st == MemStatus::kOk ? dma_out(src) : st;
}

MemStatus Memory::prepare_scatter(std::span<const Sge> sgl, uint32_t pdn, uint64_t offset,
                                  uint64_t len) {
    if (len == 0) {
        return MemStatus::kOk;
    }
    // The scatter itself counts the hits: TLB_HITS stays one per page of data moved.
    probing_ = true;
    const MemStatus st = map_sgl(sgl, pdn, kAccessLocalWrite, offset, len);
    probing_ = false;
    return st;
}

}  // namespace scenic::rdma
