// SPDX-License-Identifier: MIT
// Selective repeat's per-QP bitmaps as rules (docs/selective-repeat.md 4.1, 4.6, 4.10, 5.4):
// bit p mod W of a window of W PSNs, W a power of two that divides 2^24, so the index runs on
// across the PSN wrap. The responder's R / E and the requester's S / X use them; the RTL block
// of section 7.2 would implement the same rules.
#pragma once

#include <cstdint>

#include "scenic/rdma_context.hpp"
#include "scenic/roce/headers.hpp"

namespace scenic::rdma::srwin {

[[nodiscard]] constexpr uint32_t slot(uint32_t psn, uint32_t w) { return psn & (w - 1); }

// Clears the bits of [from, to) (at most W of them).
void clear(SrBitmap& b, uint32_t from, uint32_t to, uint32_t w);

// Responder: moves epsn over consecutive placed PSNs, clearing their R and E bits. Returns how
// many of them ended a message (E set), in PSN order.
uint32_t advance(SrBitmap& placed, SrBitmap& ends, uint32_t& epsn, uint32_t w);

// Responder: the SACK of a window at epsn (missing) whose highest placed PSN is right_edge - 1:
// the lowest max_ranges missing ranges; with more, right_edge is the first PSN of the next.
[[nodiscard]] roce::SackEth build_sack(const SrBitmap& placed, uint32_t epsn, uint32_t right_edge,
                                       uint32_t w, uint8_t max_ranges);

// Requester: marks S for every PSN the (valid) SACK at psn reports received. Returns the
// number of bits newly set.
uint32_t apply_sack(SrBitmap& sacked, uint32_t psn, const roce::SackEth& k, uint32_t w);

}  // namespace scenic::rdma::srwin
