// SPDX-License-Identifier: MIT
#include "scenic/rdma_sr_window.hpp"

#include <algorithm>

#include "scenic/roce/psn.hpp"

namespace scenic::rdma::srwin {

using roce::psn_add;
using roce::psn_diff;

void clear(SrBitmap& b, uint32_t from, uint32_t to, uint32_t w) {
    const int32_t n = psn_diff(to, from);
    if (n <= 0) {
        return;
    }
    if (static_cast<uint32_t>(n) >= w) {
        b.reset();
        return;
    }
    for (uint32_t p = from; p != to; p = psn_add(p, 1)) {
        b.reset(slot(p, w));
    }
}

uint32_t advance(SrBitmap& placed, SrBitmap& ends, uint32_t& epsn, uint32_t w) {
    uint32_t msgs = 0;
    for (uint32_t i = 0; i < w && placed.test(slot(epsn, w)); ++i) {
        const uint32_t k = slot(epsn, w);
        placed.reset(k);
        if (ends.test(k)) {
            ends.reset(k);
            ++msgs;
        }
        epsn = psn_add(epsn, 1);
    }
    return msgs;
}

roce::SackEth build_sack(const SrBitmap& placed, uint32_t epsn, uint32_t right_edge, uint32_t w,
                         uint8_t max_ranges) {
    roce::SackEth k;
    k.right_edge = right_edge;
    const auto span = static_cast<uint32_t>(std::max(psn_diff(right_edge, epsn), 0));
    uint32_t i = 0;
    while (i < span && i < w) {
        if (placed.test(slot(psn_add(epsn, i), w))) {
            ++i;
            continue;
        }
        if (k.n == max_ranges) {
            k.right_edge = psn_add(epsn, i);  // the report stays exact (3.2)
            break;
        }
        uint32_t j = i;
        while (j < span && !placed.test(slot(psn_add(epsn, j), w))) {
            ++j;
        }
        k.ranges[k.n] = {static_cast<uint16_t>(i), static_cast<uint16_t>(j - i)};
        ++k.n;
        i = j;
    }
    return k;
}

uint32_t apply_sack(SrBitmap& sacked, uint32_t psn, const roce::SackEth& k, uint32_t w) {
    const auto span = static_cast<uint32_t>(psn_diff(k.right_edge, psn));
    uint32_t added = 0;
    uint32_t r = 0;
    for (uint32_t i = 0; i < span && i < w; ++i) {
        if (r < k.n && i >= uint32_t{k.ranges[r].start} + k.ranges[r].len) {
            ++r;  // past range r (ranges are sorted and apart)
        }
        if (r < k.n && i >= k.ranges[r].start) {
            continue;  // missing
        }
        const uint32_t s = slot(psn_add(psn, i), w);
        if (!sacked.test(s)) {
            sacked.set(s);
            ++added;
        }
    }
    return added;
}

}  // namespace scenic::rdma::srwin
