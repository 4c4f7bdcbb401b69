// SPDX-License-Identifier: MIT
// The time series' CSV format and the stats JSON (docs/cluster.md 3.9).
#include "scenic/sw/series.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "scenic/sw/stats.hpp"
#include "switch_frames.hpp"

namespace scenic::sw::test {
namespace {

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

TEST(SwitchSeries, HeaderRowsPerPortAndMarkers) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("scenic-switch-series-" + std::to_string(::getpid()) + ".csv"))
                                 .string();
    Rig r(config(2, 1'000'000'000, 1 << 20, ecn_off()));
    {
        Series s(path, kT0);
        for (int i = 0; i < 3; ++i) {
            r.rx(1, plain_frame(1, 2, 1000), 0);
        }
        r.at(8192);  // one left: Q = 2000, the window's max was 3000
        s.sample(r.sw, kT0 + 8192);
        s.mark(kT0 + 9000, "phase, two\nnext");
        r.at(1'000'000);
        s.sample(r.sw, kT0 + 1'000'000);
        s.flush();
    }
    EXPECT_EQ(slurp(path),
              "t_us,port,q_bytes,q_max_bytes,q_frames,tx_bytes,rx_bytes,ecn_marked,drop_tail,"
              "drop_red,pfc_xoff_tx,paused\n"
              "8,1,0,0,0,0,3000,0,0,0,0,0\n"
              "8,2,2000,3000,2,1000,0,0,0,0,0,0\n"
              "9,#mark,phase  two next\n"
              "1000,1,0,0,0,0,3000,0,0,0,0,0\n"
              "1000,2,0,2000,0,3000,0,0,0,0,0,0\n");
    std::filesystem::remove(path);
}

TEST(SwitchSeries, UnwritablePathNamesTheOption) {
    try {
        Series s("/nonexistent-dir/x.csv", 0);
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "--series=/nonexistent-dir/x.csv: cannot create");
    }
}

TEST(SwitchStats, JsonHoldsEveryCounterPerPort) {
    Rig r(config(2, 1'000'000'000, 1 << 20, ecn_off()));
    r.rx(1, plain_frame(1, 2, 1000), 0);
    r.at(1'000'000);
    const nlohmann::json j = stats_json(r.sw, kT0 + 1'000'000, kT0);
    EXPECT_EQ(j["t_ns"], 1'000'000u);
    EXPECT_EQ(j["macs"], 1u);
    EXPECT_EQ(j["ports"]["1"]["rx_frames"], 1u);
    EXPECT_EQ(j["ports"]["2"]["tx_bytes"], 1000u);
    EXPECT_EQ(j["ports"]["2"]["late_max_ns"], 1'000'000u - 8192u);
    for (const char* k :
         {"flood_frames",  "drop_tail",   "drop_tail_bytes", "drop_red",      "drop_headroom",
          "drop_fault",    "runt",        "giant",           "foreign",       "hairpin",
          "host_rx_drops", "ecn_marked",  "ecn_ce_in",       "ect_frames",    "nonect_frames",
          "pfc_xoff_tx",   "pfc_xon_tx",  "pfc_rx",          "paused_ns",     "q_bytes",
          "q_max_bytes",   "late_p50_ns", "late_p99_ns",     "wire_drops",    "wire_dups",
          "wire_reorders", "wire_delays", "wire_corrupts",   "wire_ecn_marks"}) {
        EXPECT_TRUE(j["ports"]["1"].contains(k)) << k;
    }
}

}  // namespace
}  // namespace scenic::sw::test
