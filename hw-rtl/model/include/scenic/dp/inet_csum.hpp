// SPDX-License-Identifier: MIT
// Internet checksum (RFC 1071): the 16-bit ones'-complement sum the card inserts on TX and
// checks on RX (docs/eth-offloads.md 2.1). Byte 0 of a span is the high byte of its first word
// whatever its offset in the frame; an odd-length span ends with a word padded by a zero byte.
#pragma once

#include <cstdint>
#include <span>

namespace scenic::dp {

// Adds the 16-bit big-endian words of data to sum (no folding; a 64-bit accumulator cannot
// overflow for any frame the card handles).
uint64_t inet_sum(std::span<const uint8_t> data, uint64_t sum = 0);

// Folds a sum to 16 bits with end-around carry (not complemented).
uint16_t inet_fold(uint64_t sum);

// The checksum field's value: the complemented fold of the sum of data plus init.
uint16_t inet_csum(std::span<const uint8_t> data, uint64_t init = 0);

}  // namespace scenic::dp
