// SPDX-License-Identifier: MIT
#include "scenic/scu_xor.hpp"

namespace scenic::scu {

void XorTest::reset() {
    key_.fill(0);
    pkts_ = 0;
    bytes_ = 0;
}

void XorTest::push(Dir d, const Meta& m, std::span<const uint8_t> data) {
    const uint64_t key = key_[static_cast<unsigned>(d)];
    out_.resize(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
        out_[i] = apply(key, uint64_t{m.offset} + i, data[i]);
    }
    ++pkts_;
    bytes_ += data.size();
    port().emit(d, out_);
}

uint64_t XorTest::csr_read(uint32_t index) {
    switch (index) {
        case kId:
            return kIdValue;
        case kKeyTx:
            return key_[static_cast<unsigned>(Dir::kTx)];
        case kKeyRx:
            return key_[static_cast<unsigned>(Dir::kRx)];
        case kPkts:
            return pkts_;
        case kBytes:
            return bytes_;
        default:
            return 0;
    }
}

void XorTest::csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) {
    if (index == kKeyTx || index == kKeyRx) {
        uint64_t& k = key_[static_cast<unsigned>(index == kKeyTx ? Dir::kTx : Dir::kRx)];
        k = merge_bytes(k, value, byte_mask);
    }
    // Everything else is read-only or unused: ignored.
}

}  // namespace scenic::scu
