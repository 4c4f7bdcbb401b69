// SPDX-License-Identifier: MIT
// The hash-partition SCU (kind 3, docs/scu-hash-partition.md): the RDMA WRITE payload of the
// slot's QPs is a stream of fixed-size rows; each row's key is hashed into one of P partitions
// and the row is appended to that partition's staging buffer, which goes to a registered
// output buffer in host memory through the slot's memory port in 64 KiB chunks (and on FLUSH).
// Rows that would run past a partition's buffer stop that partition (sticky STATUS bit) and are
// counted, never written. The C++ twin of hw-rtl/scu/hash_partition; transaction level.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "scenic/scu.hpp"

namespace scenic::scu {

inline constexpr uint32_t kKindHashPartition = 3;

class HashPartition final : public Scu {
  public:
    static constexpr uint16_t kVersion = 1;
    static constexpr unsigned kMaxParts = 16;
    static constexpr uint32_t kMaxRow = 256;       // bytes; the RTL's row assembly register
    static constexpr uint32_t kChunk = 64 * 1024;  // bytes per memory-port write
    // Staging per partition: two chunks, one being written while the next fills, so a TLB miss
    // on a chunk's write holds s_rx only when the next chunk is full too (a packet's bytes,
    // kMaxPacket at most, could all go to one partition).
    static constexpr uint32_t kStage = 2 * kChunk;
    static constexpr uint32_t kMaxPacket = 9216;
    static constexpr uint32_t kHashMul = 0x9e3779b1;  // Knuth's multiplicative constant
    // CSR indices (hw-rtl/scu/hash_partition/scu.toml).
    static constexpr uint32_t kId = 0;
    static constexpr uint32_t kCtrl = 1;          // bit 0 ENABLE, bit 1 PASS
    static constexpr uint32_t kRowBytes = 2;      // 1..kMaxRow
    static constexpr uint32_t kKeyOffset = 3;     // key's first byte in the row
    static constexpr uint32_t kKeyBytes = 4;      // 1..8, little endian
    static constexpr uint32_t kParts = 5;         // P: 1, 2, 4, 8 or 16
    static constexpr uint32_t kFlush = 6;         // wo: bit 0 writes every staged byte now
    static constexpr uint32_t kStatus = 7;        // sticky, write 1 to clear (see below)
    static constexpr uint32_t kPkts = 8;          // RX WRITE packets partitioned
    static constexpr uint32_t kRows = 9;          // rows accepted into a partition
    static constexpr uint32_t kDroppedRows = 10;  // rows refused (stopped partition, config)
    static constexpr uint32_t kTornBytes = 11;    // bytes of incomplete rows dropped
    static constexpr uint32_t kMemStatus = 12;    // the last memory-port status, 0xff none
    static constexpr uint32_t kPart0 = 16;        // partition p's registers at kPart0 + 8 p
    static constexpr uint32_t kPartStride = 8;
    static constexpr uint32_t kOutKey = 0;      // + p: lkey of the output buffer
    static constexpr uint32_t kOutIova = 1;     // its address
    static constexpr uint32_t kOutSize = 2;     // its size in bytes
    static constexpr uint32_t kPartRows = 3;    // ro: rows accepted
    static constexpr uint32_t kPartBytes = 4;   // ro: bytes written to the buffer (completed)
    static constexpr uint32_t kPartStaged = 5;  // ro: bytes staged, not written yet
    static constexpr uint32_t kCsrEnd = kPart0 + kMaxParts * kPartStride;
    static constexpr uint64_t kCtrlEnable = 1;
    static constexpr uint64_t kCtrlPass = 2;
    // STATUS bits.
    static constexpr uint64_t kStOverflow0 = 0;        // bit p: partition p's buffer is full
    static constexpr uint64_t kStFault0 = 16;          // bit 16 + p: its memory write was refused
    static constexpr uint64_t kStConfig = 1ULL << 32;  // rows seen with a bad configuration
    static constexpr uint64_t kStTorn = 1ULL << 33;    // an incomplete row was dropped
    static constexpr uint64_t kStatusNone = 0xff;
    static constexpr uint64_t kIdValue = 0x53435548'50543031;  // "SCUHPT01"
    static constexpr uint8_t kOpWrite = 0x02;
    static constexpr uint8_t kOpWriteImm = 0x03;

    explicit HashPartition(SlotPort& port) : Scu(port) { reset(); }

    void reset() override;
    [[nodiscard]] bool ready(Dir d) const override;
    void push(Dir d, const Meta& m, std::span<const uint8_t> data) override;
    uint64_t csr_read(uint32_t index) override;
    void csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) override;
    void mem_ready() override;
    [[nodiscard]] bool idle() const override { return pending_ == 0; }

    // The partition of a key (its key_bytes bytes, little endian) for P = 1 << log2p.
    static unsigned partition_of(uint64_t key, unsigned log2p) {
        const auto folded = static_cast<uint32_t>(key ^ (key >> 32));
        const uint32_t h = folded * kHashMul;
        return log2p == 0 ? 0 : h >> (32 - log2p);
    }

  private:
    struct Part {
        uint64_t key = 0, iova = 0, size = 0;
        uint64_t rows = 0, written = 0;
        std::vector<uint8_t> staged;
    };
    [[nodiscard]] bool config_ok() const;
    [[nodiscard]] unsigned log2_parts() const;
    void start();  // ENABLE rising: counters, buffers and STATUS from zero
    void place(std::span<const uint8_t> row);
    void write_out(unsigned p, size_t n);  // n staged bytes of p to host memory
    void flush_part(unsigned p);           // every staged byte of p, in chunks
    void set_status(uint64_t bits);

    uint64_t ctrl_ = 0, row_bytes_ = 16, key_offset_ = 0, key_bytes_ = 8, parts_ = 1;
    uint64_t status_ = 0, pkts_ = 0, rows_ = 0, dropped_ = 0, torn_ = 0;
    uint64_t mem_status_ = kStatusNone;
    std::array<Part, kMaxParts> part_{};
    uint32_t flush_want_ = 0;  // partitions a FLUSH has not emptied yet
    uint32_t pending_ = 0;     // partitions whose write waits for mem_ready() (TLB miss)
    std::array<size_t, kMaxParts> pending_len_{};
    // The row that straddles a packet boundary: its bytes, and where its next byte must come.
    std::vector<uint8_t> carry_;
    uint32_t carry_qpn_ = 0;
    uint64_t carry_next_ = 0;
};

}  // namespace scenic::scu
