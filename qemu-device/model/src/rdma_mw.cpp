// SPDX-License-Identifier: MIT
// The memory-window half of Memory (docs/verbs-completeness.md 5.1): ALLOC_MW / DEALLOC_MW, the
// BIND_MW checks and LOCAL_INV / SEND_INV. Remote access through a window is checked in
// Memory::resolve; a window adds no translations, so none of this touches the TLB.
#include "scenic/rdma_memory.hpp"

namespace scenic::rdma {

Mw* Memory::mw_slot(uint32_t key) const {
    const uint32_t index = key >> 8;
    if ((index & kMwIndexBit) == 0 || (index & ~kMwIndexBit) >= kMaxMw) {
        return nullptr;
    }
    const uint32_t i = index & ~kMwIndexBit;
    return i < mws_.size() ? mws_[i].get() : nullptr;
}

const Mw* Memory::find_mw(uint32_t key) const {
    const Mw* w = mw_slot(key);
    return w && w->key == key ? w : nullptr;
}

bool Memory::alloc_mw(uint32_t key, uint32_t pdn, uint8_t type) {
    const uint32_t index = key >> 8;
    if ((index & kMwIndexBit) == 0 || (index & ~kMwIndexBit) >= kMaxMw ||
        (type != 1 && type != 2)) {
        return false;
    }
    if ((index & ~kMwIndexBit) >= mws_.size()) {
        mws_.resize((index & ~kMwIndexBit) + 1);
    }
    auto& slot = mws_[index & ~kMwIndexBit];
    if (slot) {
        return false;
    }
    slot = std::make_unique<Mw>();
    slot->key = key;
    slot->pdn = pdn;
    slot->type = type;
    slot->valid = type == 1;  // type 1: usable at once, reaching nothing (length 0)
    return true;
}

bool Memory::dealloc_mw(uint32_t key) {
    Mw* w = mw_slot(key);
    if (!w) {
        return false;
    }
    if (w->mr_key != 0) {
        if (Mr* mr = find_index(w->mr_key >> 8); mr && mr->key == w->mr_key && mr->mw_binds != 0) {
            --mr->mw_binds;
        }
    }
    mws_[(key >> 8) & ~kMwIndexBit].reset();
    return true;
}

uint8_t Memory::bind_mw(const MwBind& b, uint32_t pdn, uint32_t qpn) {
    Mw* w = mw_slot(b.new_rkey);
    // The window: of the QP's PD and of the type the WQE names; a type 2 window only when not
    // bound, and with a new tag (the old rkey must not come back to life).
    if (!w || w->pdn != pdn || w->type != b.type ||
        (w->type == 2 && (w->valid || (w->key & 0xff) == (b.new_rkey & 0xff))) ||
        (b.access & ~kAccessRemote) != 0) {
        return kWcMwBindErr;
    }
    Mr* mr = nullptr;
    if (b.length != 0 || w->type == 2) {
        // The MR: of the QP's PD, with MW_BIND, the range inside it; remote write or atomic
        // through the window needs the MR's local write (IBA 10.6.7.2.1).
        mr = is_mw_key(b.mr_lkey) ? nullptr : find_index(b.mr_lkey >> 8);
        const bool writes = (b.access & (kAccessRemoteWrite | kAccessRemoteAtomic)) != 0;
        if (!mr || mr->key != b.mr_lkey || mr->pdn != pdn || (mr->access & kAccessMwBind) == 0 ||
            (writes && (mr->access & kAccessLocalWrite) == 0) || b.va < mr->iova ||
            b.length > mr->length || b.va - mr->iova > mr->length - b.length) {
            return kWcMwBindErr;
        }
    }
    if (w->mr_key != 0) {  // type 1 rebind: the old MR is released
        if (Mr* old = find_index(w->mr_key >> 8);
            old && old->key == w->mr_key && old->mw_binds != 0) {
            --old->mw_binds;
        }
    }
    w->key = b.new_rkey;
    w->valid = true;
    w->mr_key = mr ? mr->key : 0;
    w->va = mr ? b.va : 0;
    w->length = mr ? b.length : 0;
    w->access = mr ? b.access : 0;
    w->qpn = w->type == 2 ? qpn : 0;
    if (mr) {
        ++mr->mw_binds;
    }
    return kWcSuccess;
}

bool Memory::invalidate_mw(uint32_t rkey, uint32_t pdn) {
    Mw* w = mw_slot(rkey);
    if (!w || w->key != rkey || w->type != 2 || !w->valid || w->pdn != pdn) {
        return false;
    }
    if (Mr* mr = find_index(w->mr_key >> 8); mr && mr->key == w->mr_key && mr->mw_binds != 0) {
        --mr->mw_binds;
    }
    w->valid = false;
    w->mr_key = 0;
    w->length = 0;
    w->access = 0;
    return true;
}

}  // namespace scenic::rdma
