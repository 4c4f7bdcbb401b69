// SPDX-License-Identifier: MIT
#include "scenic/scu_hash_partition.hpp"

#include <algorithm>
#include <bit>

namespace scenic::scu {

void HashPartition::reset() {
    ctrl_ = 0;
    row_bytes_ = 16;
    key_offset_ = 0;
    key_bytes_ = 8;
    parts_ = 1;
    part_ = {};
    start();
}

void HashPartition::start() {
    const bool was_pending = pending_ != 0;
    status_ = pkts_ = rows_ = dropped_ = torn_ = 0;
    mem_status_ = kStatusNone;
    for (Part& q : part_) {
        q.rows = q.written = 0;
        q.staged.clear();
    }
    pending_ = flush_want_ = 0;
    carry_.clear();
    if (was_pending) {
        port().wake(Dir::kRx);
    }
}

bool HashPartition::ready(Dir d) const {
    if (d == Dir::kTx) {
        return true;
    }
    for (unsigned p = 0; p < kMaxParts; ++p) {
        if ((pending_ & (1U << p)) != 0 && part_[p].staged.size() + kMaxPacket > kStage) {
            return false;  // no room for another packet behind the write that waits
        }
    }
    return true;
}

bool HashPartition::config_ok() const {
    return row_bytes_ >= 1 && row_bytes_ <= kMaxRow && key_bytes_ >= 1 && key_bytes_ <= 8 &&
           key_offset_ + key_bytes_ <= row_bytes_ && parts_ >= 1 && parts_ <= kMaxParts &&
           std::has_single_bit(parts_);
}

unsigned HashPartition::log2_parts() const {
    return static_cast<unsigned>(std::countr_zero(parts_));
}

void HashPartition::set_status(uint64_t bits) {
    if ((bits & ~status_) != 0) {
        port().raise_irq(0);  // line 0: a new error bit
    }
    status_ |= bits;
}

void HashPartition::push(Dir d, const Meta& m, std::span<const uint8_t> data) {
    const bool mine = d == Dir::kRx && (ctrl_ & kCtrlEnable) != 0 && m.src == kSrcRdma &&
                      (m.op == kOpWrite || m.op == kOpWriteImm);
    if (!mine) {
        port().emit(d, data);
        return;
    }
    ++pkts_;
    if (!config_ok()) {
        set_status(kStConfig);
        port().emit(d, data);  // nothing partitioned: the bytes land where the WRITE points
        return;
    }
    const auto r = static_cast<size_t>(row_bytes_);
    if (!carry_.empty() && (m.msg_first || m.qpn != carry_qpn_ || m.offset != carry_next_)) {
        torn_ += carry_.size();  // the rest of that row never came
        set_status(kStTorn);
        carry_.clear();
    }
    size_t i = 0;
    if (carry_.empty() && m.offset % r != 0) {  // the row's start was never seen
        i = std::min(data.size(), r - m.offset % r);
        torn_ += i;
        set_status(kStTorn);
    }
    while (i < data.size()) {
        const size_t take = std::min(r - carry_.size(), data.size() - i);
        if (carry_.empty() && take == r) {
            place(data.subspan(i, r));
        } else {
            carry_.insert(carry_.end(), data.begin() + static_cast<ptrdiff_t>(i),
                          data.begin() + static_cast<ptrdiff_t>(i + take));
            if (carry_.size() == r) {
                place(carry_);
                carry_.clear();
            }
        }
        i += take;
    }
    if (!carry_.empty()) {
        if (m.msg_last) {  // a message that does not end on a row boundary
            torn_ += carry_.size();
            set_status(kStTorn);
            carry_.clear();
        } else {
            carry_qpn_ = m.qpn;
            carry_next_ = uint64_t{m.offset} + data.size();
        }
    }
    port().emit(d, data, (ctrl_ & kCtrlPass) == 0);
}

void HashPartition::place(std::span<const uint8_t> row) {
    uint64_t key = 0;
    for (uint64_t b = 0; b < key_bytes_; ++b) {
        key |= uint64_t{row[key_offset_ + b]} << (8 * b);
    }
    const unsigned p = partition_of(key, log2_parts());
    Part& q = part_[p];
    const uint64_t stop = (uint64_t{1} << (kStOverflow0 + p)) | (uint64_t{1} << (kStFault0 + p));
    if ((status_ & stop) != 0) {
        ++dropped_;
        return;
    }
    if (q.written + q.staged.size() + row.size() > q.size) {
        set_status(uint64_t{1} << (kStOverflow0 + p));
        ++dropped_;
        return;
    }
    q.staged.insert(q.staged.end(), row.begin(), row.end());
    ++q.rows;
    ++rows_;
    while (q.staged.size() >= kChunk && (pending_ & (1U << p)) == 0 &&
           (status_ & (uint64_t{1} << (kStFault0 + p))) == 0) {
        write_out(p, kChunk);
    }
}

void HashPartition::write_out(unsigned p, size_t n) {
    Part& q = part_[p];
    const MemStatus s = port().mem_write(static_cast<uint32_t>(q.key), q.iova + q.written,
                                         std::span<const uint8_t>(q.staged.data(), n));
    mem_status_ = static_cast<uint64_t>(s);
    if (s == MemStatus::kOk) {
        q.written += n;
        q.staged.erase(q.staged.begin(), q.staged.begin() + static_cast<ptrdiff_t>(n));
    } else if (s == MemStatus::kRetry) {
        pending_ |= 1U << p;  // the TLB miss is being filled: mem_ready() retries
        pending_len_[p] = n;
    } else {
        set_status(uint64_t{1} << (kStFault0 + p));  // refused: the partition stops
        q.staged.clear();
    }
}

void HashPartition::flush_part(unsigned p) {
    Part& q = part_[p];
    while (!q.staged.empty() && (pending_ & (1U << p)) == 0) {
        write_out(p, std::min<size_t>(q.staged.size(), kChunk));
    }
    if (q.staged.empty()) {
        flush_want_ &= ~(1U << p);
    }
}

void HashPartition::mem_ready() {
    const uint32_t was = pending_;
    for (unsigned p = 0; p < kMaxParts; ++p) {
        if ((was & (1U << p)) == 0) {
            continue;
        }
        pending_ &= ~(1U << p);
        write_out(p, pending_len_[p]);
        // the next chunk may have filled meanwhile
        while (part_[p].staged.size() >= kChunk && (pending_ & (1U << p)) == 0) {
            write_out(p, kChunk);
        }
        if ((flush_want_ & (1U << p)) != 0) {
            flush_part(p);
        }
    }
    if (was != 0 && ready(Dir::kRx)) {
        port().wake(Dir::kRx);
    }
}

uint64_t HashPartition::csr_read(uint32_t index) {
    if (index >= kPart0 && index < kCsrEnd) {
        const Part& q = part_[(index - kPart0) / kPartStride];
        switch ((index - kPart0) % kPartStride) {
            case kOutKey:
                return q.key;
            case kOutIova:
                return q.iova;
            case kOutSize:
                return q.size;
            case kPartRows:
                return q.rows;
            case kPartBytes:
                return q.written;
            case kPartStaged:
                return q.staged.size();
            default:
                return 0;
        }
    }
    switch (index) {
        case kId:
            return kIdValue;
        case kCtrl:
            return ctrl_;
        case kRowBytes:
            return row_bytes_;
        case kKeyOffset:
            return key_offset_;
        case kKeyBytes:
            return key_bytes_;
        case kParts:
            return parts_;
        case kStatus:
            return status_;
        case kPkts:
            return pkts_;
        case kRows:
            return rows_;
        case kDroppedRows:
            return dropped_;
        case kTornBytes:
            return torn_;
        case kMemStatus:
            return mem_status_;
        default:
            return 0;
    }
}

void HashPartition::csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) {
    if (index >= kPart0 && index < kCsrEnd) {
        Part& q = part_[(index - kPart0) / kPartStride];
        switch ((index - kPart0) % kPartStride) {
            case kOutKey:
                q.key = merge_bytes(q.key, value, byte_mask) & 0xffffffff;
                break;
            case kOutIova:
                q.iova = merge_bytes(q.iova, value, byte_mask);
                break;
            case kOutSize:
                q.size = merge_bytes(q.size, value, byte_mask);
                break;
            default:
                break;  // read-only or unused
        }
        return;
    }
    switch (index) {
        case kCtrl: {
            const uint64_t v = merge_bytes(ctrl_, value, byte_mask) & (kCtrlEnable | kCtrlPass);
            const bool rising = (v & kCtrlEnable) != 0 && (ctrl_ & kCtrlEnable) == 0;
            ctrl_ = v;
            if (rising) {
                start();
            }
            break;
        }
        case kRowBytes:
            row_bytes_ = merge_bytes(row_bytes_, value, byte_mask) & 0x1ff;
            break;
        case kKeyOffset:
            key_offset_ = merge_bytes(key_offset_, value, byte_mask) & 0xff;
            break;
        case kKeyBytes:
            key_bytes_ = merge_bytes(key_bytes_, value, byte_mask) & 0xf;
            break;
        case kParts:
            parts_ = merge_bytes(parts_, value, byte_mask) & 0x1f;
            break;
        case kFlush:
            if ((byte_mask & 1) != 0 && (value & 1) != 0) {
                for (unsigned p = 0; p < kMaxParts; ++p) {
                    flush_want_ |= part_[p].staged.empty() ? 0 : 1U << p;
                    flush_part(p);
                }
            }
            break;
        case kStatus:
            status_ &= ~merge_bytes(0, value, byte_mask);  // write 1 to clear
            break;
        default:
            break;  // read-only or unused
    }
}

}  // namespace scenic::scu
