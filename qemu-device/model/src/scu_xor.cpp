// SPDX-License-Identifier: MIT
#include "scenic/scu_xor.hpp"

#include <array>

namespace scenic::scu {

void XorTest::reset() {
    key_.fill(0);
    pkts_ = 0;
    bytes_ = 0;
    mem_key_ = 0;
    mem_iova_ = 0;
    mem_data_ = 0;
    mem_op_ = 0;
    mem_status_ = kStatusNone;
}

void XorTest::mem_start() {
    std::array<uint8_t, 8> buf{};
    MemStatus s{};
    const auto key = static_cast<uint32_t>(mem_key_);
    if (mem_op_ == kOpRead) {
        s = port().mem_read(key, mem_iova_, buf);
        if (s == MemStatus::kOk) {
            mem_data_ = 0;
            for (size_t i = 0; i < buf.size(); ++i) {
                mem_data_ |= uint64_t{buf[i]} << (8 * i);
            }
        }
    } else {
        for (size_t i = 0; i < buf.size(); ++i) {
            buf[i] = static_cast<uint8_t>(mem_data_ >> (8 * i));
        }
        s = port().mem_write(key, mem_iova_, buf);
    }
    mem_status_ = static_cast<uint64_t>(s);
    if (s != MemStatus::kRetry) {
        mem_op_ = 0;  // done or refused; a TLB miss waits for mem_ready()
    }
}

void XorTest::mem_ready() {
    if (mem_op_ != 0) {
        mem_start();
    }
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
        case kMemKey:
            return mem_key_;
        case kMemIova:
            return mem_iova_;
        case kMemData:
            return mem_data_;
        case kMemStatus:
            return mem_status_;
        default:
            return 0;
    }
}

void XorTest::csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) {
    if (index == kKeyTx || index == kKeyRx) {
        uint64_t& k = key_[static_cast<unsigned>(index == kKeyTx ? Dir::kTx : Dir::kRx)];
        k = merge_bytes(k, value, byte_mask);
    } else if (index == kMemKey) {
        mem_key_ = merge_bytes(mem_key_, value, byte_mask);
    } else if (index == kMemIova) {
        mem_iova_ = merge_bytes(mem_iova_, value, byte_mask);
    } else if (index == kMemData) {
        mem_data_ = merge_bytes(mem_data_, value, byte_mask);
    } else if (index == kMemOp && (byte_mask & 1) != 0) {  // replaces one that waits
        const uint64_t op = value & 0xff;
        if (op == kOpRead || op == kOpWrite) {
            mem_op_ = op;
            mem_start();
        }
    }
    // Everything else is read-only or unused: ignored.
}

}  // namespace scenic::scu
