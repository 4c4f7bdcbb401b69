// SPDX-License-Identifier: MIT
#include "scenic/dp/regfile.hpp"

#include <stdexcept>
#include <utility>

namespace scenic::dp {

RegFile::RegFile(std::vector<Reg> regs, unsigned cnt_w)
    : regs_(std::move(regs)), cnt_max_(cnt_w >= 64 ? ~0ull : (1ull << cnt_w) - 1) {
    if (regs_.empty() || regs_.size() > 1024 || cnt_w < 1 || cnt_w > 64)
        throw std::invalid_argument("RegFile: bad parameters");
    for (const auto& r : regs_) {
        const uint32_t m[] = {r.ro, r.rw, r.w1c, r.w1s, r.wo};
        for (unsigned a = 0; a < 5; ++a)
            for (unsigned b = a + 1; b < 5; ++b)
                if (m[a] & m[b]) throw std::invalid_argument("RegFile: a bit has two access types");
        if (r.offset % 4 || r.offset >= 0x1000) throw std::invalid_argument("RegFile: bad offset");
    }
    reset();
}

void RegFile::reset() {
    const size_t n = regs_.size();
    o_ = {};
    o_.q.resize(n);
    o_.w1s_pulse.assign(n, 0);
    o_.wr_pulse.assign(n, false);
    for (size_t i = 0; i < n; ++i)
        o_.q[i] = regs_[i].reset & (regs_[i].rw | regs_[i].w1c | regs_[i].wo);
}

void RegFile::clock(const Inputs& in) {
    const size_t n = regs_.size();
    auto word = [](const std::vector<uint32_t>& v, size_t i) { return i < v.size() ? v[i] : 0u; };
    Outputs nx = o_;
    const uint32_t a = in.req_addr & 0xffc;
    bool hit_any = false;
    uint32_t rdata = 0;
    for (size_t i = 0; i < n; ++i) {
        const Reg& r = regs_[i];
        const bool hit = r.offset == a;
        hit_any |= hit;
        uint32_t q = o_.q[i];
        nx.w1s_pulse[i] = 0;
        nx.wr_pulse[i] = in.req_valid && in.req_write && hit;
        if (hit)
            rdata |= (q & (r.rw | r.w1c)) | ((r.ro_const ? r.reset : word(in.hw_ro, i)) & r.ro);
        if (in.req_valid && in.req_write && hit) {
            q = (q & r.w1c & ~in.req_wdata) | (in.req_wdata & (r.rw | r.wo));
            nx.w1s_pulse[i] = in.req_wdata & r.w1s;
        }
        nx.q[i] = q | (word(in.hw_set, i) & r.w1c);
    }
    nx.rsp_valid = in.req_valid;
    nx.rsp_rdata = in.req_valid && !in.req_write ? rdata : 0;
    if (in.req_valid && !hit_any && o_.unmapped != cnt_max_) ++nx.unmapped;
    o_ = std::move(nx);
}

}  // namespace scenic::dp
