// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_tlb.sv: cycle-level, bit-exact (outputs(), then clock(inputs)).
// The QEMU device can use the transaction-level part alone: lookup_now() / fill() / invalidate_*()
// act on the entry array and LRU state exactly as the RTL's stage 2 and fill port do.
#pragma once

#include <cstdint>
#include <vector>

namespace scenic::dp {

class Tlb {
  public:
    struct Params {
        unsigned sets = 16;        // SETS (power of two)
        unsigned ways = 4;         // WAYS 1..8
        unsigned page_shift = 12;  // PAGE_SHIFT 12 or 21
        unsigned id_w = 16;        // ID_W
        unsigned va_w = 48;        // VA_W
        unsigned pa_w = 48;        // PA_W
        unsigned tag_w = 8;        // TAG_W
        unsigned miss_depth = 4;   // MISS_DEPTH
        unsigned cnt_w = 32;       // CNT_W
    };
    enum class Op : uint8_t { Fill = 0, InvPage = 1, InvId = 2, Flush = 3 };

    struct Inputs {
        bool lookup_valid = false;
        uint32_t lookup_id = 0;
        uint64_t lookup_va = 0;
        uint32_t lookup_tag = 0;
        bool resp_ready = false;
        bool miss_ready = false;
        bool fill_valid = false;
        Op fill_op = Op::Fill;
        uint32_t fill_id = 0;
        uint64_t fill_vpn = 0;
        uint64_t fill_ppn = 0;
    };
    struct Outputs {
        bool lookup_ready = false;
        bool resp_valid = false;
        bool resp_hit = false;
        uint64_t resp_pa = 0;
        uint32_t resp_tag = 0;
        bool miss_valid = false;
        uint32_t miss_id = 0;
        uint64_t miss_vpn = 0;
        bool fill_ready = true;
    };
    struct Stats {
        uint64_t hit = 0, miss = 0, evict = 0, miss_req = 0, miss_drop = 0;
    };

    explicit Tlb(const Params& p);
    void reset();
    // Outputs during a cycle with these inputs (lookup_ready depends on resp_ready/fill_valid).
    [[nodiscard]] Outputs outputs(const Inputs& in) const;
    void clock(const Inputs& in);
    [[nodiscard]] const Stats& stats() const { return st_; }
    [[nodiscard]] const Params& params() const { return p_; }

    // ---- transaction level (what stage 2 and the fill port do; no pipeline, no counters)
    struct Result {
        bool hit = false;
        uint64_t pa = 0;
    };
    Result lookup_now(uint32_t id, uint64_t va);  // updates LRU on a hit
    bool fill(uint32_t id, uint64_t vpn,
              uint64_t ppn);  // returns true if a valid entry was evicted
    void invalidate_page(uint32_t id, uint64_t vpn);
    void invalidate_id(uint32_t id);
    void flush();
    [[nodiscard]] unsigned set_of(uint32_t id, uint64_t vpn) const;
    // way of (id, vpn) or -1; age of a way (0 = MRU)
    [[nodiscard]] int find(uint32_t id, uint64_t vpn) const;
    [[nodiscard]] unsigned age(unsigned set, unsigned way) const {
        return ent_[set * p_.ways + way].age;
    }

  private:
    struct Entry {
        bool v = false;
        uint32_t id = 0;
        uint64_t vpn = 0, ppn = 0;
        unsigned age = 0;
    };
    struct Miss {
        bool v = false, sent = false;
        uint32_t id = 0;
        uint64_t vpn = 0;
    };
    void touch(unsigned set, unsigned way);
    int match(unsigned set, uint32_t id, uint64_t vpn) const;
    unsigned victim(unsigned set, bool* was_valid) const;
    void retire_misses(Op op, uint32_t id, uint64_t vpn);
    uint64_t sat_inc(uint64_t c) const { return c == cnt_max_ ? c : c + 1; }

    Params p_;
    uint64_t cnt_max_, id_mask_, va_mask_, vpn_mask_, ppn_mask_, tag_mask_;
    unsigned set_w_;
    std::vector<Entry> ent_;
    std::vector<Miss> mt_;
    bool req_v_ = false;
    uint32_t req_id_ = 0, req_tag_ = 0;
    uint64_t req_va_ = 0;
    bool resp_v_ = false, resp_hit_ = false;
    uint64_t resp_pa_ = 0;
    uint32_t resp_tag_ = 0;
    bool mo_v_ = false;
    uint32_t mo_id_ = 0;
    uint64_t mo_vpn_ = 0;
    Stats st_;
};

}  // namespace scenic::dp
