// SPDX-License-Identifier: MIT
// scenic_regfile_scu: every register of the SCU block checked against the generated regmap
// (scenic::regs::scu::kRegTable and the named offsets in regs.hpp, both from
// tools/regmap/scenic-regs.toml, as the RTL's scenic_regs_pkg): reset values, ro / rw / w1c
// behaviour per bit, reserved bits, unmapped offsets (read 0, counted); plus a cycle-exact
// differential test against the twin scenic::dp::RegFile.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "Vrfscu.h"
#include "bench.hpp"
#include "scenic/dp/regfile.hpp"
#include "scenic/regs.hpp"
#include "tb_util.hpp"

namespace {

using scenic::dp::RegFile;
using scenic::tb::replay_hint;
using scenic::tb::seeds;
namespace scu = scenic::regs::scu;

constexpr unsigned kCntW = 16;  // must match -GCNT_W in CMakeLists.txt
constexpr size_t kN = std::size(scu::kRegTable);

// The wrapper's rule: registers below 0x100 are design constants except the two slot bitmaps.
std::vector<RegFile::Reg> table() {
    std::vector<RegFile::Reg> v;
    for (const auto& r : scu::kRegTable)
        v.push_back(
            {r.offset, r.reset, r.ro, r.rw, r.w1c, r.w1s, r.wo,
             r.offset < 0x100 && r.offset != scu::kSlotBusy && r.offset != scu::kSlotLoaded});
    return v;
}

class Bench : public scenic::tb::DiffBench<Vrfscu, RegFile> {
  public:
    Bench() : DiffBench(table(), kCntW) {
        in_.hw_ro.assign(kN, 0);
        in_.hw_set.assign(kN, 0);
        reset_both([](Vrfscu& d) { d.req_valid = 0; });
    }
    RegFile::Inputs in_;
    // One cycle with in_; compares every output with the twin first.
    void cycle() {
        dut_->req_valid = in_.req_valid;
        dut_->req_write = in_.req_write;
        dut_->req_addr = in_.req_addr;
        dut_->req_wdata = in_.req_wdata;
        for (size_t i = 0; i < kN; ++i) {
            dut_->hw_ro[i] = in_.hw_ro[i];
            dut_->hw_set[i] = in_.hw_set[i];
        }
        dut_->eval();
        const auto& m = model_.outputs();
        bool same = dut_->rsp_valid == m.rsp_valid && dut_->rsp_rdata == m.rsp_rdata &&
                    dut_->stat_unmapped == m.unmapped;
        for (size_t i = 0; i < kN; ++i)
            same = same && dut_->q[i] == m.q[i] && dut_->w1s_pulse[i] == m.w1s_pulse[i] &&
                   bool((dut_->wr_pulse[i / 32] >> (i % 32)) & 1) == m.wr_pulse[i];
        if (report(same))
            ADD_FAILURE() << "cycle " << cycles_ << ": rtl rsp " << int(dut_->rsp_valid) << "/0x"
                          << std::hex << dut_->rsp_rdata << " | model " << m.rsp_valid << "/0x"
                          << m.rsp_rdata << std::dec << " unmapped " << dut_->stat_unmapped << "/"
                          << m.unmapped;
        clock_both(in_);
    }
    void write(uint32_t off, uint32_t v) {
        in_.req_valid = true;
        in_.req_write = true;
        in_.req_addr = off;
        in_.req_wdata = v;
        cycle();
        in_.req_valid = false;
    }
    uint32_t q(size_t i) const { return dut_->q[i]; }
    uint64_t unmapped() const { return dut_->stat_unmapped; }

    // A read; returns the registered answer (visible after the edge).
    uint32_t read_now(uint32_t off) {
        in_.req_valid = true;
        in_.req_write = false;
        in_.req_addr = off;
        cycle();
        in_.req_valid = false;
        dut_->eval();
        EXPECT_TRUE(dut_->rsp_valid);
        return dut_->rsp_rdata;
    }
};

uint32_t expected_read(const scenic::regs::RegDef& r, bool ro_const, uint32_t stored, uint32_t hw) {
    return (stored & (r.rw | r.w1c)) | ((ro_const ? r.reset : hw) & r.ro);
}

// The generated table is the regmap: header first, arrays expanded.
TEST(RegfileScu, TableIsTheRegmap) {
    ASSERT_GE(kN, 3u);
    EXPECT_EQ(scu::kRegTable[0].reset, scu::kType);
    EXPECT_EQ(scu::kRegTable[1].reset, scu::kVersion);
    EXPECT_EQ(scu::kRegTable[2].reset, scu::kNext);
    unsigned irq_status = 0;
    for (const auto& r : scu::kRegTable)
        for (uint32_t n = 0; n < scu::kSlotIrqStatusCount; ++n)
            if (r.offset == scu::kSlotIrqStatus + n * scu::kSlotIrqStatusStride) {
                EXPECT_EQ(r.w1c, 0xffffffffu);
                ++irq_status;
            }
    EXPECT_EQ(irq_status, scu::kSlotIrqStatusCount);
}

// Reset values of every register, with random hardware values behind the live ro bits.
TEST(RegfileScu, ResetValues) {
    const auto tab = table();
    for (uint64_t seed : seeds(3)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937 rng{uint32_t(seed)};
        Bench b;
        for (auto& w : b.in_.hw_ro) w = rng();
        for (size_t i = 0; i < kN; ++i) {
            const auto& r = scu::kRegTable[i];
            EXPECT_EQ(b.q(i), r.reset & (r.rw | r.w1c | r.wo)) << "q of 0x" << std::hex << r.offset;
            EXPECT_EQ(b.read_now(r.offset),
                      expected_read(r, tab[i].ro_const, r.reset, b.in_.hw_ro[i]))
                << "reset read of 0x" << std::hex << r.offset;
        }
        EXPECT_EQ(b.read_now(0x0), scu::kType);
        EXPECT_EQ(b.read_now(scu::kNumSlots), scu::kNumSlotsDefault);
        EXPECT_EQ(b.unmapped(), 0u);
        EXPECT_EQ(b.mismatches(), 0u);
    }
}

// Per register: all-ones and all-zeros writes, w1c set / clear / set-wins, w1s pulses.
TEST(RegfileScu, AccessTypes) {
    const auto tab = table();
    Bench b;
    std::mt19937 rng(5);
    for (auto& w : b.in_.hw_ro) w = rng();
    unsigned rw_regs = 0, w1c_regs = 0, ro_regs = 0;
    for (size_t i = 0; i < kN; ++i) {
        const auto& r = scu::kRegTable[i];
        SCOPED_TRACE(::testing::Message() << "offset 0x" << std::hex << r.offset);
        b.write(r.offset, 0xffffffffu);
        b.cycle();
        EXPECT_EQ(b.q(i), r.rw | r.wo) << "after writing ones (w1c bits cleared)";
        EXPECT_EQ(b.read_now(r.offset), expected_read(r, tab[i].ro_const, b.q(i), b.in_.hw_ro[i]));
        b.write(r.offset, 0);
        b.cycle();
        EXPECT_EQ(b.q(i), 0u) << "after writing zeros";
        rw_regs += r.rw != 0;
        ro_regs += r.ro != 0;
        if (r.w1c) {
            ++w1c_regs;
            b.in_.hw_set[i] = 0xa5a5a5a5u;
            b.cycle();
            b.in_.hw_set[i] = 0;
            EXPECT_EQ(b.read_now(r.offset) & r.w1c, 0xa5a5a5a5u & r.w1c) << "set by hardware";
            b.write(r.offset, 0);
            b.cycle();
            EXPECT_EQ(b.q(i), 0xa5a5a5a5u & r.w1c) << "writing 0 keeps w1c bits";
            b.write(r.offset, 0x0000ffffu);
            b.cycle();
            EXPECT_EQ(b.q(i), 0xa5a50000u & r.w1c) << "writing 1 clears";
            b.in_.hw_set[i] = 0x00010000u;
            b.write(r.offset, 0xffffffffu);  // clear and set in one cycle: the set wins
            b.in_.hw_set[i] = 0;
            b.cycle();
            EXPECT_EQ(b.q(i), 0x00010000u & r.w1c);
            b.write(r.offset, 0xffffffffu);
            b.cycle();
            EXPECT_EQ(b.q(i), 0u);
        }
    }
    EXPECT_EQ(w1c_regs, scu::kSlotIrqStatusCount);
    EXPECT_EQ(rw_regs, scu::kSlotIrqMaskCount);
    EXPECT_GT(ro_regs, 20u);
    EXPECT_EQ(b.unmapped(), 0u);
    EXPECT_EQ(b.mismatches(), 0u);
}

// Every aligned offset of the 4 KiB block that is no register reads 0, changes nothing and is
// counted.
TEST(RegfileScu, UnmappedOffsets) {
    Bench b;
    std::set<uint32_t> mapped;
    for (const auto& r : scu::kRegTable) mapped.insert(r.offset);
    std::vector<uint32_t> q0(kN);
    for (size_t i = 0; i < kN; ++i) q0[i] = b.q(i);
    uint64_t n = 0;
    for (uint32_t off = 0; off < scu::kSize; off += 4) {
        if (mapped.count(off)) continue;
        b.write(off, 0xffffffffu);
        EXPECT_EQ(b.read_now(off), 0u) << std::hex << off;
        n += 2;
    }
    b.cycle();
    EXPECT_EQ(b.unmapped(), n);
    EXPECT_GT(n, 1000u);
    for (size_t i = 0; i < kN; ++i) EXPECT_EQ(b.q(i), q0[i]);
    EXPECT_EQ(b.mismatches(), 0u);
}

// Random reads and writes (mapped, unmapped, unaligned byte offsets), hardware sets and live
// values, compared with the twin every cycle.
TEST(RegfileScuDiff, CycleExact) {
    for (uint64_t seed : seeds(4)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937_64 rng(seed);
        Bench b;
        for (int c = 0; c < 20000; ++c) {
            b.in_.req_valid = rng() % 4 != 0;
            b.in_.req_write = rng() & 1;
            b.in_.req_addr = (rng() % 3) ? scu::kRegTable[rng() % kN].offset | uint32_t(rng() % 4)
                                         : uint32_t(rng() % 0x1000);
            b.in_.req_wdata = uint32_t(rng());
            for (size_t i = 0; i < kN; ++i) {
                b.in_.hw_set[i] = (rng() % 16 == 0) ? uint32_t(rng()) : 0;
                if (rng() % 64 == 0) b.in_.hw_ro[i] = uint32_t(rng());
            }
            b.cycle();
            if (b.mismatches() > 5) break;
        }
        EXPECT_EQ(b.mismatches(), 0u);
    }
}

}  // namespace
