// SPDX-License-Identifier: MIT
// The hash-partition SCU kind (docs/scu-hash-partition.md): the twin on its own (rows split
// across packets, torn rows, configuration errors, CSRs, a TLB miss held and retried), then
// through two cards (RdmaPair): A WRITEs rows to B's QP on B's slot 1, and every row lands in the
// output buffer of its key's partition, in order, with the counters; a full buffer stops its
// partition and is never written past; a wrong lkey or another PD's MR is refused and counted;
// a retransmitted packet's rows are placed once.
#include "scenic/scu_hash_partition.hpp"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>
#include <vector>

#include "rdma_rig.hpp"
#include "scenic/scu_slots.hpp"
#include "scu_rig.hpp"

namespace scenic::test {
namespace {

using scu::Dir;
using scu::HashPartition;
using scu::MemStatus;
using HP = HashPartition;

// The documented hash, written out independently: fold the key's two halves, multiply by
// 0x9e3779b1 modulo 2^32, keep the top log2(P) bits.
unsigned ref_partition(uint64_t key, unsigned parts) {
    const uint64_t folded = (key & 0xffffffffULL) ^ (key >> 32);
    const uint64_t h = (folded * 0x9e3779b1ULL) & 0xffffffffULL;
    unsigned bits = 0;
    while ((1U << bits) < parts) {
        ++bits;
    }
    return bits == 0 ? 0 : static_cast<unsigned>(h >> (32 - bits));
}

// n rows of `row` random bytes (so random keys wherever they sit).
std::vector<uint8_t> make_rows(size_t n, size_t row, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint8_t> v(n * row);
    for (auto& b : v) {
        b = static_cast<uint8_t>(rng());
    }
    return v;
}

// Per partition, the rows in arrival order (the reference partitioning).
std::vector<std::vector<uint8_t>> ref_split(std::span<const uint8_t> rows, size_t row,
                                            size_t key_off, size_t key_bytes, unsigned parts) {
    std::vector<std::vector<uint8_t>> out(parts);
    for (size_t i = 0; i + row <= rows.size(); i += row) {
        uint64_t key = 0;
        for (size_t b = 0; b < key_bytes; ++b) {
            key |= uint64_t{rows[i + key_off + b]} << (8 * b);
        }
        auto& o = out[ref_partition(key, parts)];
        o.insert(o.end(), rows.begin() + static_cast<ptrdiff_t>(i),
                 rows.begin() + static_cast<ptrdiff_t>(i + row));
    }
    return out;
}

// A port with host memory as (key -> base iova, bytes); a key may answer kRetry a few times.
class MemPort final : public scu::SlotPort {
  public:
    struct Out {
        std::vector<uint8_t> data;
        bool drop;
    };
    void emit(Dir /*d*/, std::span<const uint8_t> data, bool drop) override {
        out.push_back({{data.begin(), data.end()}, drop});
    }
    void wake(Dir /*d*/) override { ++wakes; }
    void raise_irq(unsigned line) override { irqs |= 1U << line; }
    MemStatus mem_read(uint32_t /*key*/, uint64_t /*iova*/, std::span<uint8_t> /*dst*/) override {
        return MemStatus::kKeyPd;
    }
    MemStatus mem_write(uint32_t key, uint64_t iova, std::span<const uint8_t> src) override {
        ++writes;
        if (retry_next > 0) {
            --retry_next;
            return MemStatus::kRetry;
        }
        auto it = mem.find(key);
        if (it == mem.end()) {
            return MemStatus::kKeyPd;
        }
        auto& [base, bytes] = it->second;
        if (iova < base || iova - base + src.size() > bytes.size()) {
            return MemStatus::kBounds;
        }
        EXPECT_LE(src.size(), HP::kChunk);
        std::copy(src.begin(), src.end(), bytes.begin() + static_cast<ptrdiff_t>(iova - base));
        return MemStatus::kOk;
    }
    uint64_t now_ns() override { return 0; }
    void schedule(uint64_t /*deadline_ns*/) override {}

    std::map<uint32_t, std::pair<uint64_t, std::vector<uint8_t>>> mem;
    std::vector<Out> out;
    unsigned retry_next = 0, writes = 0, wakes = 0, irqs = 0;
};

void push(HP& s, uint32_t qpn, uint32_t offset, std::span<const uint8_t> data, bool first,
          bool last, uint8_t op = HP::kOpWrite, Dir d = Dir::kRx) {
    scu::Meta m;
    m.qpn = qpn;
    m.op = op;
    m.offset = offset;
    m.msg_first = first;
    m.msg_last = last;
    m.dir = d;
    m.len = static_cast<uint16_t>(data.size());
    s.push(d, m, data);
}

// Sets rows, key and P, and partition p's buffer: key 0x100 + p at iova 0x10000 * (p + 1).
void configure(HP& s, MemPort& port, uint64_t row, uint64_t key_off, uint64_t key_bytes,
               unsigned parts, size_t buf_bytes) {
    s.csr_write(HP::kRowBytes, row, 0xff);
    s.csr_write(HP::kKeyOffset, key_off, 0xff);
    s.csr_write(HP::kKeyBytes, key_bytes, 0xff);
    s.csr_write(HP::kParts, parts, 0xff);
    for (unsigned p = 0; p < parts; ++p) {
        const uint64_t iova = 0x10000ULL * (p + 1);
        port.mem[0x100 + p] = {iova, std::vector<uint8_t>(buf_bytes, 0xee)};
        const uint32_t base = HP::kPart0 + HP::kPartStride * p;
        s.csr_write(base + HP::kOutKey, 0x100 + p, 0xff);
        s.csr_write(base + HP::kOutIova, iova, 0xff);
        s.csr_write(base + HP::kOutSize, buf_bytes, 0xff);
    }
    s.csr_write(HP::kCtrl, HP::kCtrlEnable, 0xff);
}

uint64_t part_csr(HP& s, unsigned p, uint32_t reg) {
    return s.csr_read(HP::kPart0 + HP::kPartStride * p + reg);
}

TEST(HashPartitionKind, HashIsTheDocumentedOne) {
    EXPECT_EQ(HP::partition_of(0, 4), 0u);
    // 1 * 0x9e3779b1: top 4 bits 0x9
    EXPECT_EQ(HP::partition_of(1, 4), 9u);
    EXPECT_EQ(HP::partition_of(1, 1), 1u);
    EXPECT_EQ(HP::partition_of(1, 0), 0u);
    std::mt19937_64 rng(3);
    std::array<unsigned, 16> hist{};
    for (int i = 0; i < 20000; ++i) {
        const uint64_t k = rng();
        for (unsigned bits = 0; bits <= 4; ++bits) {
            ASSERT_EQ(HP::partition_of(k, bits), ref_partition(k, 1U << bits)) << k;
        }
        ++hist[HP::partition_of(i, 4)];  // sequential keys spread evenly
    }
    for (unsigned h : hist) {
        EXPECT_NEAR(h, 20000 / 16, 20000 / 16 / 5);
    }
}

TEST(HashPartitionKind, CsrsResetAndStrobes) {
    MemPort port;
    HP s(port);
    EXPECT_EQ(s.csr_read(HP::kId), HP::kIdValue);
    EXPECT_EQ(s.csr_read(HP::kRowBytes), 16u);
    EXPECT_EQ(s.csr_read(HP::kKeyBytes), 8u);
    EXPECT_EQ(s.csr_read(HP::kParts), 1u);
    EXPECT_EQ(s.csr_read(HP::kMemStatus), HP::kStatusNone);
    s.csr_write(HP::kRowBytes, 0xffff, 0xff);
    EXPECT_EQ(s.csr_read(HP::kRowBytes), 0x1ffu);  // 9 bits
    s.csr_write(HP::kParts, 0xff, 0xff);
    EXPECT_EQ(s.csr_read(HP::kParts), 0x1fu);
    s.csr_write(HP::kCtrl, 0xff, 0xff);
    EXPECT_EQ(s.csr_read(HP::kCtrl), 3u);
    s.csr_write(HP::kPart0 + 16 + HP::kOutIova, 0x1122334455667788ULL, 0x0f);  // partition 2
    EXPECT_EQ(part_csr(s, 2, HP::kOutIova), 0x55667788u);
    s.csr_write(HP::kPart0 + 16 + HP::kOutKey, ~0ULL, 0xff);
    EXPECT_EQ(part_csr(s, 2, HP::kOutKey), 0xffffffffu);
    s.csr_write(HP::kPart0 + 16 + HP::kPartRows, 5, 0xff);  // read-only
    EXPECT_EQ(part_csr(s, 2, HP::kPartRows), 0u);
    s.csr_write(HP::kId, 0, 0xff);
    EXPECT_EQ(s.csr_read(HP::kId), HP::kIdValue);
    EXPECT_EQ(s.csr_read(HP::kCsrEnd), 0u);
    s.reset();
    EXPECT_EQ(s.csr_read(HP::kCtrl), 0u);
    EXPECT_EQ(s.csr_read(HP::kRowBytes), 16u);
    EXPECT_EQ(part_csr(s, 2, HP::kOutIova), 0u);
}

// Rows of 24 bytes with the key at byte 4 (5 bytes) in packets of random sizes: rows that
// straddle packets are assembled; every partition holds exactly the reference's rows.
TEST(HashPartitionKind, RowsAcrossPacketsLandInTheirPartitions) {
    MemPort port;
    HP s(port);
    constexpr size_t kRow = 24, kRowsN = 9000;  // 216000 bytes: several 64 KiB chunks
    configure(s, port, kRow, 4, 5, 8, 64 * 1024 + 8192);
    const auto rows = make_rows(kRowsN, kRow, 11);
    std::mt19937 rng(5);
    uint32_t off = 0;
    while (off < rows.size()) {
        const uint32_t n = std::min<uint32_t>(1 + rng() % 4000, rows.size() - off);
        push(s, 9, off, std::span(rows).subspan(off, n), off == 0, off + n == rows.size());
        ASSERT_TRUE(port.out.back().drop);  // consumed: nothing lands at the WRITE's target
        ASSERT_EQ(port.out.back().data.size(), n);
        off += n;
    }
    s.csr_write(HP::kFlush, 1, 0xff);
    const auto want = ref_split(rows, kRow, 4, 5, 8);
    uint64_t total = 0;
    for (unsigned p = 0; p < 8; ++p) {
        ASSERT_FALSE(want[p].empty());
        const auto& buf = port.mem[0x100 + p].second;
        EXPECT_TRUE(std::equal(want[p].begin(), want[p].end(), buf.begin())) << "partition " << p;
        EXPECT_EQ(buf[want[p].size()], 0xee) << "written past the rows";
        EXPECT_EQ(part_csr(s, p, HP::kPartRows), want[p].size() / kRow);
        EXPECT_EQ(part_csr(s, p, HP::kPartBytes), want[p].size());
        EXPECT_EQ(part_csr(s, p, HP::kPartStaged), 0u);
        total += part_csr(s, p, HP::kPartRows);
    }
    EXPECT_EQ(total, kRowsN);
    EXPECT_EQ(s.csr_read(HP::kRows), kRowsN);
    EXPECT_EQ(s.csr_read(HP::kStatus), 0u);
    EXPECT_EQ(s.csr_read(HP::kTornBytes), 0u);
    EXPECT_EQ(s.csr_read(HP::kDroppedRows), 0u);
    EXPECT_EQ(s.csr_read(HP::kMemStatus), 0u);
}

TEST(HashPartitionKind, ChunksOf64KiBThenFlush) {
    MemPort port;
    HP s(port);
    configure(s, port, 16, 0, 8, 1, 256 * 1024);
    const auto rows = make_rows(4096 + 100, 16, 2);  // 64 KiB + 1600 bytes
    for (uint32_t off = 0; off < rows.size(); off += 1024) {
        const auto n = std::min<size_t>(1024, rows.size() - off);
        push(s, 1, off, std::span(rows).subspan(off, n), off == 0, off + n == rows.size());
    }
    EXPECT_EQ(port.writes, 1u);  // one 64 KiB chunk
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), 65536u);
    EXPECT_EQ(part_csr(s, 0, HP::kPartStaged), 1600u);
    s.csr_write(HP::kFlush, 1, 0xff);
    EXPECT_EQ(port.writes, 2u);
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), rows.size());
    EXPECT_TRUE(std::equal(rows.begin(), rows.end(), port.mem[0x100].second.begin()));
    s.csr_write(HP::kFlush, 1, 0xff);  // nothing staged: no write
    EXPECT_EQ(port.writes, 2u);
}

TEST(HashPartitionKind, TornRowsAndBadConfigurationAreCounted) {
    MemPort port;
    HP s(port);
    configure(s, port, 16, 0, 8, 2, 4096);
    const auto rows = make_rows(10, 16, 4);
    // A message of 10 rows minus 5 bytes: the last row is incomplete.
    push(s, 3, 0, std::span(rows).first(155), true, true);
    EXPECT_EQ(s.csr_read(HP::kRows), 9u);
    EXPECT_EQ(s.csr_read(HP::kTornBytes), 11u);
    EXPECT_EQ(s.csr_read(HP::kStatus), HP::kStTorn);
    EXPECT_EQ(port.irqs, 1u);
    // A row started by QP 3 continued by QP 4's packet: the partial row is dropped.
    push(s, 3, 0, std::span(rows).first(40), true, false);
    push(s, 4, 40, std::span(rows).subspan(40, 40), false, true);  // starts mid-row too
    // 2 rows of the first; the 8 carried bytes, then QP 4's 8 bytes before its first row
    // boundary (offset 40 is mid-row), then 2 rows.
    EXPECT_EQ(s.csr_read(HP::kRows), 9u + 2 + 2);
    EXPECT_EQ(s.csr_read(HP::kTornBytes), 11u + 8 + 8);
    s.csr_write(HP::kStatus, HP::kStTorn, 0xff);  // write 1 to clear
    EXPECT_EQ(s.csr_read(HP::kStatus), 0u);
    // P = 3 is not a power of two: the packet passes unpartitioned.
    s.csr_write(HP::kParts, 3, 0xff);
    push(s, 3, 0, std::span(rows).first(32), true, true);
    EXPECT_FALSE(port.out.back().drop);
    EXPECT_EQ(s.csr_read(HP::kStatus), HP::kStConfig);
    EXPECT_EQ(s.csr_read(HP::kRows), 13u);
    // The key past the row's end is a bad configuration too.
    s.csr_write(HP::kParts, 2, 0xff);
    s.csr_write(HP::kKeyOffset, 10, 0xff);
    push(s, 3, 0, std::span(rows).first(32), true, true);
    EXPECT_FALSE(port.out.back().drop);
    // SEND, READ responses, TX and frames are never partitioned.
    s.csr_write(HP::kKeyOffset, 0, 0xff);
    const uint64_t pk = s.csr_read(HP::kPkts);
    push(s, 3, 0, std::span(rows).first(32), true, true, 0x00);
    push(s, 3, 0, std::span(rows).first(32), true, true, scu::kOpReadResp);
    push(s, 3, 0, std::span(rows).first(32), true, true, HP::kOpWrite, Dir::kTx);
    for (size_t i = port.out.size() - 3; i < port.out.size(); ++i) {
        EXPECT_FALSE(port.out[i].drop);
    }
    EXPECT_EQ(s.csr_read(HP::kPkts), pk);
    EXPECT_EQ(s.csr_read(HP::kRows), 13u);
}

TEST(HashPartitionKind, OverflowStopsThePartitionAndNeverWritesPast) {
    MemPort port;
    HP s(port);
    configure(s, port, 16, 0, 8, 1, 100 * 16);      // room for 100 rows
    port.mem[0x100].second.resize(200 * 16, 0xee);  // the MR is larger than OUT_SIZE
    const auto rows = make_rows(150, 16, 6);
    push(s, 1, 0, rows, true, true);
    s.csr_write(HP::kFlush, 1, 0xff);
    EXPECT_EQ(s.csr_read(HP::kStatus), 1u);  // partition 0 overflowed
    EXPECT_EQ(s.csr_read(HP::kRows), 100u);
    EXPECT_EQ(s.csr_read(HP::kDroppedRows), 50u);
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), 1600u);
    const auto& buf = port.mem[0x100].second;
    EXPECT_TRUE(std::equal(rows.begin(), rows.begin() + 1600, buf.begin()));
    for (size_t i = 1600; i < buf.size(); ++i) {
        ASSERT_EQ(buf[i], 0xee) << "written past OUT_SIZE at " << i;
    }
    // Sticky: the partition stays stopped even for rows that would fit after a larger size.
    s.csr_write(HP::kPart0 + HP::kOutSize, 200 * 16, 0xff);
    push(s, 1, 0, std::span(rows).first(16), true, true);
    EXPECT_EQ(s.csr_read(HP::kDroppedRows), 51u);
    // Cleared, it resumes where it was.
    s.csr_write(HP::kStatus, 1, 0xff);
    push(s, 1, 0, std::span(rows).first(16), true, true);
    s.csr_write(HP::kFlush, 1, 0xff);
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), 1616u);
    // ENABLE rising starts everything from zero.
    s.csr_write(HP::kCtrl, 0, 0xff);
    s.csr_write(HP::kCtrl, HP::kCtrlEnable, 0xff);
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), 0u);
    EXPECT_EQ(s.csr_read(HP::kRows), 0u);
}

TEST(HashPartitionKind, RefusedWriteStopsThePartition) {
    MemPort port;
    HP s(port);
    configure(s, port, 16, 0, 8, 1, 4096);
    s.csr_write(HP::kPart0 + HP::kOutKey, 0x999, 0xff);  // not a key the port knows
    const auto rows = make_rows(4, 16, 7);
    push(s, 1, 0, rows, true, true);
    s.csr_write(HP::kFlush, 1, 0xff);
    EXPECT_EQ(s.csr_read(HP::kStatus), uint64_t{1} << HP::kStFault0);
    EXPECT_EQ(s.csr_read(HP::kMemStatus), static_cast<uint64_t>(MemStatus::kKeyPd));
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), 0u);
    EXPECT_EQ(part_csr(s, 0, HP::kPartStaged), 0u);
    push(s, 1, 0, rows, true, true);
    EXPECT_EQ(s.csr_read(HP::kDroppedRows), 4u);
}

// A chunk's write misses the TLB: the next chunk keeps filling (double buffering); RX is held
// only when that one cannot take another packet either, and resumes on mem_ready().
TEST(HashPartitionKind, TlbMissHoldsRxOnlyWhenBothChunksAreFull) {
    MemPort port;
    HP s(port);
    configure(s, port, 16, 0, 8, 1, 512 * 1024);
    const auto rows = make_rows(8192 + 1024, 16, 8);  // two chunks and 16 KiB
    port.retry_next = 1;
    uint32_t off = 0;
    for (; off < 65536 + 1024 * 40; off += 1024) {  // the first chunk misses; 40 KiB more
        push(s, 1, off, std::span(rows).subspan(off, 1024), off == 0, false);
    }
    EXPECT_TRUE(s.ready(Dir::kRx));
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), 0u);
    for (; s.ready(Dir::kRx); off += 1024) {
        ASSERT_LT(off, rows.size());
        push(s, 1, off, std::span(rows).subspan(off, 1024), false, false);
    }
    // held with at most kStage bytes staged, never more
    EXPECT_LE(part_csr(s, 0, HP::kPartStaged), HP::kStage);
    EXPECT_GT(part_csr(s, 0, HP::kPartStaged) + HP::kMaxPacket, HP::kStage);
    EXPECT_TRUE(s.ready(Dir::kTx));
    EXPECT_FALSE(s.idle());
    s.mem_ready();  // the first chunk goes; the second is not full yet
    EXPECT_TRUE(s.ready(Dir::kRx));
    EXPECT_TRUE(s.idle());
    EXPECT_EQ(port.wakes, 1u);
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), 65536u);
    EXPECT_EQ(part_csr(s, 0, HP::kPartStaged), off - 65536u);
    for (; off < rows.size(); off += 1024) {
        push(s, 1, off, std::span(rows).subspan(off, 1024), false, off + 1024 == rows.size());
    }
    s.csr_write(HP::kFlush, 1, 0xff);
    EXPECT_EQ(part_csr(s, 0, HP::kPartBytes), rows.size());
    EXPECT_TRUE(std::equal(rows.begin(), rows.end(), port.mem[0x100].second.begin()));
}

// ---- through two cards: A WRITEs rows to B's QP 2, which is on B's slot 1 (hash-partition).
class HashPartitionCards : public ::testing::Test {
  protected:
    static constexpr uint32_t kQp = 2;
    static constexpr unsigned kSlot = 1;
    static constexpr uint64_t kSrc = Node::kVa;                       // A: the rows
    static constexpr uint64_t kTarget = Node::kVa + 2 * 1024 * 1024;  // B: the WRITE's target
    static constexpr uint64_t kOut = Node::kVa + 3 * 1024 * 1024;  // B: partition p at + p*kOutSz
    static constexpr uint64_t kOutSz = 256 * 1024;

    void SetUp() override {
        p.setup(kQp, kQp, {}, 10, false, 0, kSlot);
        ka = p.a.reg_mr(kSrc, 2 * 1024 * 1024, kAll);
        kb = p.b.reg_mr(kTarget, 1024 * 1024, kAll);
        kout = p.b.reg_mr(kOut, 4 * kOutSz, kAll);
        const std::vector<uint8_t> payload(32, 0x5a);
        ASSERT_EQ(
            p.b.dev.scu().slots().load(kSlot, make_scu_image(scu::kKindHashPartition, 1, payload)),
            admin::ScuStatus::kOk);
        ASSERT_TRUE(p.run());
        ASSERT_EQ(p.b.dev.scu().slots().slot(kSlot).image().kind, scu::kKindHashPartition);
        ASSERT_EQ(p.b.dev.scu().slots().bind_pd(kSlot, Node::kPd), admin::ScuStatus::kOk);
    }
    void set_csr(uint32_t index, uint64_t v) {
        p.b.dev.scu().slots().csr_window_write(uint64_t{kSlot} * scu::kCsrWindowBytes + 8 * index,
                                               v, 8);
    }
    uint64_t csr(uint32_t index) {
        return p.b.dev.scu().slots().csr_window_read(
            uint64_t{kSlot} * scu::kCsrWindowBytes + 8 * index, 8);
    }
    uint64_t part(unsigned q, uint32_t reg) { return csr(HP::kPart0 + HP::kPartStride * q + reg); }
    // 4 partitions of kOutSz (or `sizes`), rows of `row` bytes, key = 8 bytes at 0.
    void configure(size_t row, std::array<uint64_t, 4> sizes = {kOutSz, kOutSz, kOutSz, kOutSz},
                   uint32_t key = 0) {
        set_csr(HP::kRowBytes, row);
        set_csr(HP::kKeyOffset, 0);
        set_csr(HP::kKeyBytes, 8);
        set_csr(HP::kParts, 4);
        for (unsigned q = 0; q < 4; ++q) {
            const uint32_t base = HP::kPart0 + HP::kPartStride * q;
            set_csr(base + HP::kOutKey, key != 0 ? key : kout);
            set_csr(base + HP::kOutIova, kOut + q * kOutSz);
            set_csr(base + HP::kOutSize, sizes[q]);
        }
        set_csr(HP::kCtrl, HP::kCtrlEnable);
    }
    std::vector<uint8_t> write_rows(size_t n, size_t row, uint64_t seed) {
        const auto rows = make_rows(n, row, seed);
        p.a.write_va(kSrc, rows);
        p.b.write_va(kTarget, std::vector<uint8_t>(rows.size(), 0xcc));
        p.a.post_send(
            kQp, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, static_cast<uint32_t>(rows.size()), ka)},
                          kTarget, kb));
        EXPECT_TRUE(p.run());
        set_csr(HP::kFlush, 1);
        EXPECT_TRUE(p.run());
        return rows;
    }
    void expect_no_error_cqes() {
        for (const scenic_cqe& c : p.a.poll(0)) {
            EXPECT_EQ(c.status, 0u) << "send CQE with an error";
        }
    }

    RdmaPair p;
    uint32_t ka = 0, kb = 0, kout = 0;
};

TEST_F(HashPartitionCards, EveryRowLandsInItsPartition) {
    for (const size_t row : {16u, 24u}) {  // 24 does not divide the PMTU: rows straddle packets
        configure(row);
        const size_t n = 20000 * 16 / row;
        const uint32_t sq = p.a.sq_completed(kQp);
        const auto rows = write_rows(n, row, row);
        ASSERT_EQ(p.a.sq_completed(kQp), sq + 1);
        expect_no_error_cqes();
        const auto want = ref_split(rows, row, 0, 8, 4);
        uint64_t total = 0;
        for (unsigned q = 0; q < 4; ++q) {
            ASSERT_GT(want[q].size(), 65536u) << "partition " << q << " crosses no chunk";
            EXPECT_EQ(p.b.read_va(kOut + q * kOutSz, want[q].size()), want[q]) << "partition " << q;
            EXPECT_EQ(part(q, HP::kPartRows), want[q].size() / row);
            EXPECT_EQ(part(q, HP::kPartBytes), want[q].size());
            total += part(q, HP::kPartRows);
        }
        EXPECT_EQ(total, n);
        EXPECT_EQ(csr(HP::kStatus), 0u);
        EXPECT_EQ(csr(HP::kTornBytes), 0u);
        // The rows were consumed: the WRITE's own target is untouched.
        EXPECT_EQ(p.b.read_va(kTarget, rows.size()), std::vector<uint8_t>(rows.size(), 0xcc));
        const auto& c = p.b.dev.scu().slots().counters(kSlot);
        EXPECT_EQ(c.mem_faults, 0u);
        EXPECT_EQ(c.violations, 0u);
        set_csr(HP::kCtrl, 0);  // the next round starts from zero
    }
    // 20000 rows of 16 bytes, then 13333 of 24
    EXPECT_EQ(p.b.dev.scu().slots().counters(kSlot).mem_wr_bytes, 20000u * 16 + 13333 * 24);
}

TEST_F(HashPartitionCards, PassAlsoPlacesTheWrite) {
    configure(16);
    set_csr(HP::kCtrl, HP::kCtrlEnable | HP::kCtrlPass);
    const auto rows = write_rows(1000, 16, 3);
    EXPECT_EQ(p.b.read_va(kTarget, rows.size()), rows);
    EXPECT_EQ(csr(HP::kRows), 1000u);
}

TEST_F(HashPartitionCards, FullPartitionStopsAndIsNeverWrittenPast) {
    configure(16, {kOutSz, 1024, kOutSz, kOutSz});  // partition 1 holds 64 rows
    const auto rows = write_rows(4000, 16, 9);
    expect_no_error_cqes();
    const auto want = ref_split(rows, 16, 0, 8, 4);
    ASSERT_GT(want[1].size(), 1024u);
    EXPECT_EQ(csr(HP::kStatus), 2u);
    EXPECT_EQ(part(1, HP::kPartRows), 64u);
    EXPECT_EQ(part(1, HP::kPartBytes), 1024u);
    EXPECT_EQ(csr(HP::kDroppedRows), want[1].size() / 16 - 64);
    EXPECT_EQ(p.b.read_va(kOut + kOutSz, 1024),
              std::vector<uint8_t>(want[1].begin(), want[1].begin() + 1024));
    // The rest of partition 1's MR range: as registered (zero), never written.
    EXPECT_EQ(p.b.read_va(kOut + kOutSz + 1024, 4096), std::vector<uint8_t>(4096, 0));
    for (unsigned q : {0u, 2u, 3u}) {
        EXPECT_EQ(p.b.read_va(kOut + q * kOutSz, want[q].size()), want[q]);
    }
}

TEST_F(HashPartitionCards, WrongKeyOrAnotherPdIsRefused) {
    const uint32_t other =
        p.b.reg_mr(Node::kVa + 4 * 1024 * 1024 + 4 * kOutSz, 65536, kAll, true, Node::kPd + 1);
    for (const uint32_t key : {kout ^ 0x100u, other}) {
        configure(16, {kOutSz, kOutSz, kOutSz, kOutSz}, key);
        const uint64_t faults = p.b.dev.scu().slots().counters(kSlot).mem_faults;
        write_rows(500, 16, 4);
        expect_no_error_cqes();
        EXPECT_EQ(csr(HP::kStatus) & 0xffff0000ULL, 0xf0000ULL) << "all four stopped";
        EXPECT_EQ(csr(HP::kMemStatus), static_cast<uint64_t>(scu::MemStatus::kKeyPd));
        EXPECT_EQ(p.b.dev.scu().slots().counters(kSlot).mem_faults, faults + 4);
        for (unsigned q = 0; q < 4; ++q) {
            EXPECT_EQ(part(q, HP::kPartBytes), 0u);
        }
        set_csr(HP::kCtrl, 0);
    }
    EXPECT_EQ(p.b.read_va(kOut, 4 * kOutSz), std::vector<uint8_t>(4 * kOutSz, 0));
    EXPECT_EQ(p.b.dev.scu().slots().counters(kSlot).mem_wr_bytes, 0u);
}

TEST_F(HashPartitionCards, UnboundSlotIsRefused) {
    ASSERT_EQ(p.b.dev.scu().slots().bind_pd(kSlot, std::nullopt), admin::ScuStatus::kOk);
    configure(16);
    write_rows(300, 16, 5);
    EXPECT_EQ(csr(HP::kStatus) & 0xffff0000ULL, 0xf0000ULL);
    EXPECT_EQ(p.b.dev.scu().slots().counters(kSlot).mem_wr_bytes, 0u);
}

// The output buffers start with no translation in the card's TLB: each chunk's first write
// misses, the driver (the rig's auto_fill) answers the TLB-miss event, and the TLB_FILL makes
// the slot retry (SlotManager::mem_ready); every row still lands once.
TEST_F(HashPartitionCards, ChunkWritesThatMissTheTlbAreRetriedAfterTheFill) {
    const uint64_t va = Node::kVa + 5 * 1024 * 1024;
    const uint32_t cold = p.b.reg_mr(va, 4 * kOutSz, kAll, false);
    set_csr(HP::kRowBytes, 16);
    set_csr(HP::kKeyOffset, 0);
    set_csr(HP::kKeyBytes, 8);
    set_csr(HP::kParts, 4);
    for (unsigned q = 0; q < 4; ++q) {
        const uint32_t base = HP::kPart0 + HP::kPartStride * q;
        set_csr(base + HP::kOutKey, cold);
        set_csr(base + HP::kOutIova, va + q * kOutSz);
        set_csr(base + HP::kOutSize, kOutSz);
    }
    set_csr(HP::kCtrl, HP::kCtrlEnable);
    const uint64_t misses = p.b.dev.rdma().engine().counters().tlb_misses;
    const auto rows = write_rows(20000, 16, 21);
    expect_no_error_cqes();
    EXPECT_GT(p.b.dev.rdma().engine().counters().tlb_misses, misses);
    const auto want = ref_split(rows, 16, 0, 8, 4);
    for (unsigned q = 0; q < 4; ++q) {
        EXPECT_EQ(p.b.read_va(va + q * kOutSz, want[q].size()), want[q]) << "partition " << q;
    }
    EXPECT_EQ(csr(HP::kRows), 20000u);
    EXPECT_EQ(csr(HP::kStatus), 0u);
    EXPECT_EQ(csr(HP::kMemStatus), 0u);
    EXPECT_EQ(p.b.dev.scu().slots().counters(kSlot).mem_wr_bytes, 20000u * 16);
}

TEST_F(HashPartitionCards, RetransmittedPacketsArePartitionedOnce) {
    int n = 0;
    p.drop = [&n](RdmaPair::Dir d, const roce::ParsedPacket& pkt) {
        return d == RdmaPair::Dir::kAtoB && !pkt.payload.empty() && (++n == 3 || n == 9);
    };
    configure(24);  // rows straddle packets: a repeat would tear or duplicate them
    const auto rows = write_rows(1000, 24, 12);
    expect_no_error_cqes();
    EXPECT_GT(p.a.dev.rdma().engine().counters().retransmits, 0u);
    const auto want = ref_split(rows, 24, 0, 8, 4);
    for (unsigned q = 0; q < 4; ++q) {
        EXPECT_EQ(p.b.read_va(kOut + q * kOutSz, want[q].size() + 24),
                  [&] {
                      auto v = want[q];
                      v.resize(v.size() + 24, 0);  // nothing after the rows
                      return v;
                  }())
            << "partition " << q;
    }
    EXPECT_EQ(csr(HP::kRows), 1000u);
    EXPECT_EQ(csr(HP::kTornBytes), 0u);
}

}  // namespace
}  // namespace scenic::test
