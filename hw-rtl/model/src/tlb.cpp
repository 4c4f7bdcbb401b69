// SPDX-License-Identifier: MIT
#include "scenic/dp/tlb.hpp"

#include <stdexcept>

namespace scenic::dp {

namespace {
uint64_t ones(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
unsigned clog2(unsigned v) {
    unsigned r = 0;
    while ((1u << r) < v) ++r;
    return r;
}
}  // namespace

Tlb::Tlb(const Params& p)
    : p_(p),
      cnt_max_(ones(p.cnt_w)),
      id_mask_(ones(p.id_w)),
      va_mask_(ones(p.va_w)),
      vpn_mask_(ones(p.va_w - p.page_shift)),
      ppn_mask_(ones(p.pa_w - p.page_shift)),
      tag_mask_(ones(p.tag_w)),
      set_w_(p.sets > 1 ? clog2(p.sets) : 1) {
    if ((p.page_shift != 12 && p.page_shift != 21) || p.sets < 1 || p.sets > 1024 ||
        (p.sets & (p.sets - 1)) != 0 || p.ways < 1 || p.ways > 8 || p.sets * p.ways > 1024 ||
        p.id_w < 1 || p.id_w > 32 || p.va_w > 64 || p.va_w - p.page_shift < set_w_ || p.pa_w > 64 ||
        p.pa_w <= p.page_shift || p.tag_w < 1 || p.tag_w > 32 || p.miss_depth < 1 ||
        p.miss_depth > 16 || p.cnt_w < 1 || p.cnt_w > 64)
        throw std::invalid_argument("Tlb: bad parameters");
    ent_.resize(size_t(p.sets) * p.ways);
    mt_.resize(p.miss_depth);
    reset();
}

void Tlb::reset() {
    for (size_t e = 0; e < ent_.size(); ++e) {
        ent_[e].v = false;
        ent_[e].age = unsigned(e % p_.ways);
    }
    for (auto& m : mt_) m.v = m.sent = false;
    req_v_ = resp_v_ = mo_v_ = false;
    st_ = {};
}

unsigned Tlb::set_of(uint32_t id, uint64_t vpn) const {
    if (p_.sets == 1) return 0;
    const uint64_t idb = id & id_mask_;
    return unsigned((vpn ^ idb) & (p_.sets - 1));
}

int Tlb::match(unsigned set, uint32_t id, uint64_t vpn) const {
    for (unsigned w = 0; w < p_.ways; ++w) {
        const Entry& e = ent_[set * p_.ways + w];
        if (e.v && e.id == id && e.vpn == vpn) return int(w);
    }
    return -1;
}

int Tlb::find(uint32_t id, uint64_t vpn) const {
    id &= uint32_t(id_mask_);
    vpn &= vpn_mask_;
    return match(set_of(id, vpn), id, vpn);
}

void Tlb::touch(unsigned set, unsigned way) {
    const unsigned a = ent_[set * p_.ways + way].age;
    for (unsigned w = 0; w < p_.ways; ++w) {
        Entry& e = ent_[set * p_.ways + w];
        if (w == way)
            e.age = 0;
        else if (e.age < a)
            ++e.age;
    }
}

unsigned Tlb::victim(unsigned set, bool* was_valid) const {
    for (unsigned w = 0; w < p_.ways; ++w)
        if (!ent_[set * p_.ways + w].v) {
            *was_valid = false;
            return w;
        }
    *was_valid = true;
    unsigned v = 0;
    for (unsigned w = 0; w < p_.ways; ++w)
        if (ent_[set * p_.ways + w].age == p_.ways - 1) v = w;
    return v;
}

Tlb::Result Tlb::lookup_now(uint32_t id, uint64_t va) {
    id &= uint32_t(id_mask_);
    va &= va_mask_;
    const uint64_t vpn = va >> p_.page_shift;
    const unsigned s = set_of(id, vpn);
    const int w = match(s, id, vpn);
    if (w < 0) return {};
    touch(s, unsigned(w));
    return {true,
            (ent_[s * p_.ways + unsigned(w)].ppn << p_.page_shift) | (va & ones(p_.page_shift))};
}

bool Tlb::fill(uint32_t id, uint64_t vpn, uint64_t ppn) {
    id &= uint32_t(id_mask_);
    vpn &= vpn_mask_;
    const unsigned s = set_of(id, vpn);
    const int m = match(s, id, vpn);
    bool evict = false;
    unsigned w;
    if (m >= 0)
        w = unsigned(m);
    else
        w = victim(s, &evict);
    Entry& e = ent_[s * p_.ways + w];
    e.v = true;
    e.id = id;
    e.vpn = vpn;
    e.ppn = ppn & ppn_mask_;
    touch(s, w);
    return evict;
}

void Tlb::invalidate_page(uint32_t id, uint64_t vpn) {
    id &= uint32_t(id_mask_);
    vpn &= vpn_mask_;
    const unsigned s = set_of(id, vpn);
    const int m = match(s, id, vpn);
    if (m >= 0) ent_[s * p_.ways + unsigned(m)].v = false;
}

void Tlb::invalidate_id(uint32_t id) {
    id &= uint32_t(id_mask_);
    for (auto& e : ent_)
        if (e.id == id) e.v = false;
}

void Tlb::flush() {
    for (auto& e : ent_) e.v = false;
}

void Tlb::retire_misses(Op op, uint32_t id, uint64_t vpn) {
    for (auto& m : mt_)
        if (op == Op::Flush || (m.id == id && (op == Op::InvId || m.vpn == vpn))) m.v = false;
}

Tlb::Outputs Tlb::outputs(const Inputs& in) const {
    Outputs o;
    const bool resp_free = !resp_v_ || in.resp_ready;
    const bool look_go = req_v_ && resp_free && !in.fill_valid;
    o.lookup_ready = !req_v_ || look_go;
    o.resp_valid = resp_v_;
    o.resp_hit = resp_hit_;
    o.resp_pa = resp_pa_;
    o.resp_tag = resp_tag_;
    o.miss_valid = mo_v_;
    o.miss_id = mo_id_;
    o.miss_vpn = mo_vpn_;
    o.fill_ready = true;
    return o;
}

void Tlb::clock(const Inputs& in) {
    const Outputs o = outputs(in);
    const bool resp_free = !resp_v_ || in.resp_ready;
    const bool fill_go = in.fill_valid;
    const bool look_go = req_v_ && resp_free && !fill_go;

    // miss output register loads the lowest pending table entry (from the pre-edge table)
    int pend = -1;
    for (unsigned i = 0; i < mt_.size(); ++i)
        if (mt_[i].v && !mt_[i].sent) {
            pend = int(i);
            break;
        }
    const bool mo_load = (!mo_v_ || in.miss_ready) && pend >= 0;
    const Miss pend_entry = pend >= 0 ? mt_[unsigned(pend)] : Miss{};

    // stage 2
    bool new_resp_hit = false;
    uint64_t new_resp_pa = 0;
    if (fill_go) {
        const uint32_t id = in.fill_id & uint32_t(id_mask_);
        const uint64_t vpn = in.fill_vpn & vpn_mask_;
        switch (in.fill_op) {
            case Op::Fill:
                if (fill(id, vpn, in.fill_ppn)) st_.evict = sat_inc(st_.evict);
                break;
            case Op::InvPage:
                invalidate_page(id, vpn);
                break;
            case Op::InvId:
                invalidate_id(id);
                break;
            case Op::Flush:
                flush();
                break;
        }
        retire_misses(in.fill_op, id, vpn);
    } else if (look_go) {
        const Result r = lookup_now(req_id_, req_va_);
        new_resp_hit = r.hit;
        new_resp_pa = r.pa;
        if (r.hit) {
            st_.hit = sat_inc(st_.hit);
        } else {
            st_.miss = sat_inc(st_.miss);
            const uint64_t vpn = req_va_ >> p_.page_shift;
            bool dup = false;
            int free = -1;
            for (unsigned i = 0; i < mt_.size(); ++i) {
                // dedup and allocation see the pre-edge table (a same-cycle load only sets sent)
                if (mt_[i].v && mt_[i].id == req_id_ && mt_[i].vpn == vpn) dup = true;
                if (!mt_[i].v && free < 0) free = int(i);
            }
            if (!dup) {
                if (free >= 0)
                    mt_[unsigned(free)] = {true, false, req_id_, vpn};
                else
                    st_.miss_drop = sat_inc(st_.miss_drop);
            }
        }
    }
    if (mo_load) mt_[unsigned(pend)].sent = true;  // (if a fill retired it, v is already 0)

    // pipeline registers
    if (look_go) {
        resp_v_ = true;
        resp_hit_ = new_resp_hit;
        resp_pa_ = new_resp_pa;
        resp_tag_ = req_tag_;
    } else if (in.resp_ready) {
        resp_v_ = false;
    }
    if (in.lookup_valid && o.lookup_ready) {
        req_v_ = true;
        req_id_ = in.lookup_id & uint32_t(id_mask_);
        req_va_ = in.lookup_va & va_mask_;
        req_tag_ = in.lookup_tag & uint32_t(tag_mask_);
    } else if (look_go) {
        req_v_ = false;
    }
    if (mo_load) {
        mo_v_ = true;
        mo_id_ = pend_entry.id;
        mo_vpn_ = pend_entry.vpn;
        st_.miss_req = sat_inc(st_.miss_req);
    } else if (in.miss_ready) {
        mo_v_ = false;
    }
}

}  // namespace scenic::dp
