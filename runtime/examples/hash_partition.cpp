// SPDX-License-Identifier: MIT
// Example: hash partitioning of rows on the card with the hash-partition SCU
// (docs/scu-hash-partition.md), the paper's partitioning use case. Copy it as the start of your
// own SCU program.
//
//   hash_partition IMAGE [SLOT [ROWS [PARTS [--compare]]]]
//       IMAGE: hash_partition.scuimg from `make runtime`; SLOT default 2; ROWS default 20000;
//       PARTS (P) default 4; --compare also times the same partitioning done by this CPU
//
// It loads the image (the paper's Code 1: ScenicReconfig, then a ScenicThread on the slot),
// binds the thread's PD to the slot's memory port, registers P output buffers and writes their
// lkey, address and size into the CSRs together with the row format (16-byte rows: an 8-byte
// key, then an 8-byte payload, the row's number). Two QPs on the slot are connected to each
// other through the card's loopback; a WRITE of ROWS rows from the first arrives at the second,
// where the SCU hashes each row's key into a partition and appends the row to that partition's
// buffer instead of placing the WRITE (64 KiB chunks; FLUSH writes the rest). Then it reads the
// per-partition counters and checks every row: in the partition of its key's hash, present
// once, with its own payload. Exits 0 when every row is where it belongs.
// With --compare it sends the same rows again with the SCU set to pass them (a plain WRITE) and
// partitions them with this CPU, and prints both times (tools/bench/scu-partition runs this).
#include <infiniband/verbs.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "loopback_rc.hpp"
#include "scenic/scenic.hpp"

namespace {

using scenic_example::completed;
using scenic_example::connect;
using scenic_example::roce_v2_gid;

// hash-partition's CSRs (hw-rtl/scu/hash_partition/scu.toml)
constexpr uint32_t kId = 0, kCtrl = 1, kRowBytes = 2, kKeyOffset = 3, kKeyBytes = 4, kParts = 5;
constexpr uint32_t kFlush = 6, kStatus = 7, kRows = 9, kDroppedRows = 10, kTornBytes = 11;
constexpr uint32_t kPart0 = 16, kPartStride = 8;  // partition p's registers at 16 + 8 p:
constexpr uint32_t kOutKey = 0, kOutIova = 1, kOutSize = 2, kPartRows = 3, kPartBytes = 4;
constexpr uint64_t kCtrlEnable = 1, kCtrlPass = 2;
constexpr uint64_t kHpId = 0x5343554850543031;  // "SCUHPT01"
constexpr size_t kRow = 16;

// The SCU's hash (docs/scu-hash-partition.md): fold the key's halves, multiply by 0x9e3779b1
// modulo 2^32, keep the top log2(P) bits.
unsigned partition_of(uint64_t key, unsigned parts) {
    const auto h = static_cast<uint32_t>(key ^ (key >> 32)) * 0x9e3779b1U;
    const int bits = std::countr_zero(parts);
    return bits == 0 ? 0 : h >> (32 - bits);
}
uint64_t key_of(uint64_t i) {  // splitmix64: distinct, well-spread keys
    uint64_t z = i + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
uint64_t load64(const uint8_t* p) {
    uint64_t v = 0;
    std::memcpy(&v, p, 8);  // little endian, as the SCU reads the key
    return v;
}

// One signalled WRITE of len bytes from src to dst; true when it completed without error.
bool write(scenic::Qp& qp, const scenic::Buffer& src, const scenic::Buffer& dst, size_t len) {
    ibv_sge sge{reinterpret_cast<uintptr_t>(src.data()), static_cast<uint32_t>(len),
                src.mr().lkey()};
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(dst.data());
    wr.wr.rdma.rkey = dst.mr().rkey();
    return ibv_post_send(qp.qp(), &wr, &bad) == 0 && completed(qp.cq(), 120);
}

double us_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s IMAGE [SLOT [ROWS [PARTS [--compare]]]]\n", argv[0]);
        return 2;
    }
    const unsigned slot = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 0)) : 2;
    const size_t rows = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 20000;
    const unsigned parts = argc > 4 ? static_cast<unsigned>(std::strtoul(argv[4], nullptr, 0)) : 4;
    const bool compare = argc > 5 && std::strcmp(argv[5], "--compare") == 0;
    if (rows == 0 || rows * kRow > (1U << 30) || parts == 0 || parts > 16 ||
        !std::has_single_bit(parts)) {
        std::fprintf(stderr, "ROWS 1..%zu, PARTS a power of two up to 16\n", (1U << 30) / kRow);
        return 2;
    }

    // 1. Load the SCU, become the slot's owner, bind this thread's PD to the slot's memory
    //    port: the SCU can write the buffers registered below, and nothing else.
    const scenic::ReconfigResult r = scenic::ScenicReconfig().reconfigure_app(slot, argv[1]);
    std::printf("loaded %s into slot %u, pause %.3f ms\n", argv[1], slot,
                std::chrono::duration<double, std::milli>(r.pause).count());
    scenic::ScenicThread t(slot);
    if (t.get_csr(kId) != kHpId) {
        std::fprintf(stderr, "slot %u does not run hash-partition\n", slot);
        return 1;
    }
    t.bind_pd();

    // 2. The rows, the WRITE's target, and P output buffers with room for twice a fair share
    //    (the hash is not perfectly even) plus a chunk.
    const size_t bytes = rows * kRow;
    scenic::Buffer src = t.alloc(bytes);
    scenic::Buffer dst = t.alloc(bytes);
    for (size_t i = 0; i < rows; ++i) {
        const uint64_t key = key_of(i);
        std::memcpy(src.data() + i * kRow, &key, 8);
        std::memcpy(src.data() + i * kRow + 8, &i, 8);
    }
    const size_t cap = 2 * bytes / parts + 65536;
    std::vector<scenic::Buffer> out;
    for (unsigned p = 0; p < parts; ++p) {
        out.push_back(t.alloc(cap));
    }

    // 3. The CSRs: row format, P, each partition's buffer; ENABLE starts from zero.
    t.set_csr(0, kCtrl);
    t.set_csr(kRow, kRowBytes);
    t.set_csr(0, kKeyOffset);
    t.set_csr(8, kKeyBytes);
    t.set_csr(parts, kParts);
    for (unsigned p = 0; p < parts; ++p) {
        const uint32_t base = kPart0 + kPartStride * p;
        t.set_csr(out[p].mr().lkey(), base + kOutKey);
        t.set_csr(reinterpret_cast<uintptr_t>(out[p].data()), base + kOutIova);
        t.set_csr(cap, base + kOutSize);
    }
    t.set_csr(kCtrlEnable, kCtrl);

    // 4. Two QPs on the slot, connected through the card's loopback; the WRITE, then FLUSH.
    scenic::Qp a = t.create_qp();
    scenic::Qp b = t.create_qp();
    ibv_gid gid{};
    const int gidx = roce_v2_gid(t.context(), &gid);
    if (gidx < 0 || !connect(a.qp(), gidx, gid, b.qp_num()) ||
        !connect(b.qp(), gidx, gid, a.qp_num())) {
        std::fprintf(stderr, "cannot connect the QPs (no RoCE v2 IPv4 GID on port 1?)\n");
        return 1;
    }
    std::memset(dst.data(), 0, bytes);
    auto t0 = std::chrono::steady_clock::now();
    if (!write(a, src, dst, bytes)) {
        std::fprintf(stderr, "the WRITE failed\n");
        return 1;
    }
    t.set_csr(1, kFlush);
    const double scu_us = us_since(t0);

    // 5. The counters, then every row: in its key's partition, once, with its payload.
    std::vector<uint8_t> seen(rows, 0);
    size_t bad = 0;
    uint64_t total = 0;
    for (unsigned p = 0; p < parts; ++p) {
        const uint32_t base = kPart0 + kPartStride * p;
        const uint64_t n = t.get_csr(base + kPartRows);
        const uint64_t b_written = t.get_csr(base + kPartBytes);
        std::printf("partition %u: %llu rows, %llu bytes\n", p, static_cast<unsigned long long>(n),
                    static_cast<unsigned long long>(b_written));
        bad += b_written != n * kRow ? 1 : 0;
        total += n;
        for (uint64_t j = 0; j < n && j * kRow + kRow <= cap; ++j) {
            const uint8_t* row = out[p].data() + j * kRow;
            const uint64_t key = load64(row);
            const uint64_t idx = load64(row + 8);
            if (idx >= rows || key != key_of(idx) || partition_of(key, parts) != p || seen[idx]) {
                ++bad;
                continue;
            }
            seen[idx] = 1;
        }
    }
    const auto missing = static_cast<size_t>(std::count(seen.begin(), seen.end(), 0));
    const bool untouched =
        std::all_of(dst.data(), dst.data() + bytes, [](uint8_t c) { return c == 0; });
    std::printf("rows %zu: SCU ROWS %llu, status 0x%llx, dropped %llu, torn bytes %llu\n", rows,
                static_cast<unsigned long long>(t.get_csr(kRows)),
                static_cast<unsigned long long>(t.get_csr(kStatus)),
                static_cast<unsigned long long>(t.get_csr(kDroppedRows)),
                static_cast<unsigned long long>(t.get_csr(kTornBytes)));
    const bool ok =
        bad == 0 && missing == 0 && total == rows && untouched && t.get_csr(kStatus) == 0;
    if (ok) {
        std::printf("every row is in its partition (%zu rows, %u partitions)\n", rows, parts);
    } else {
        std::printf("WRONG: %zu misplaced, %zu missing, WRITE target %s\n", bad, missing,
                    untouched ? "untouched" : "written");
    }
    std::printf("scu: %zu rows in %.1f us, %.0f rows/s\n", rows, scu_us, rows / scu_us * 1e6);

    // 6. The baseline: the same rows as a plain WRITE (the SCU passes them), then this CPU
    //    partitions them into the same buffers.
    if (compare && ok) {
        t.set_csr(kCtrlPass, kCtrl);  // ENABLE off: the slot passes the payload unchanged
        std::memset(dst.data(), 0, bytes);
        std::vector<size_t> fill(parts, 0);
        t0 = std::chrono::steady_clock::now();
        if (!write(a, src, dst, bytes)) {
            std::fprintf(stderr, "the baseline WRITE failed\n");
            return 1;
        }
        const double write_us = us_since(t0);  // the communication alone: the lower bound
        for (size_t i = 0; i < rows; ++i) {
            const uint8_t* row = dst.data() + i * kRow;
            const unsigned p = partition_of(load64(row), parts);
            std::memcpy(out[p].data() + fill[p], row, kRow);
            fill[p] += kRow;
        }
        const double cpu_us = us_since(t0);
        const bool same = std::memcmp(dst.data(), src.data(), bytes) == 0;
        std::printf("cpu: %zu rows in %.1f us, %.0f rows/s (the WRITE %.1f us)%s\n", rows, cpu_us,
                    rows / cpu_us * 1e6, write_us, same ? "" : " (WRITE DATA DIFFERS)");
        std::printf("ratio cpu/scu latency %.2f\n", cpu_us / scu_us);
        if (!same) {
            return 1;
        }
    }
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "hash_partition: %s\n", e.what());
    return 1;
}
