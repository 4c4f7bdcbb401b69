// SPDX-License-Identifier: MIT
#include "scenic/dp/inet_csum.hpp"

namespace scenic::dp {

uint64_t inet_sum(std::span<const uint8_t> data, uint64_t sum) {
    size_t i = 0;
    for (; i + 1 < data.size(); i += 2) {
        sum += uint64_t{data[i]} << 8 | data[i + 1];
    }
    if (i < data.size()) {
        sum += uint64_t{data[i]} << 8;
    }
    return sum;
}

uint16_t inet_fold(uint64_t sum) {
    while ((sum >> 16) != 0) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(sum);
}

uint16_t inet_csum(std::span<const uint8_t> data, uint64_t init) {
    return static_cast<uint16_t>(~inet_fold(inet_sum(data, init)));
}

}  // namespace scenic::dp
