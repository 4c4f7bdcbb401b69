// SPDX-License-Identifier: MIT
// scenic-switch's option parser (docs/cluster.md 3.11): values, defaults, per-port overrides,
// and errors that name the option.
#include "scenic/sw/config.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scenic::sw {
namespace {

Options parse(std::vector<std::string_view> args) { return parse_options(args); }

std::string error_of(std::vector<std::string_view> args) {
    try {
        parse_options(args);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(SwitchConfig, SizesAndRatesTakeSuffixes) {
    EXPECT_EQ(parse_size("--buffer", "64K"), 65536u);
    EXPECT_EQ(parse_size("--buffer", "1M"), 1048576u);
    EXPECT_EQ(parse_size("--buffer", "1500"), 1500u);
    EXPECT_EQ(parse_rate("--rate", "1G"), 1'000'000'000u);
    EXPECT_EQ(parse_rate("--rate", "500M"), 500'000'000u);
    EXPECT_EQ(parse_rate("--rate", "0"), 0u);
    EXPECT_THROW(parse_rate("--rate", "999"), std::invalid_argument);
    EXPECT_THROW(parse_rate("--rate", "1T"), std::invalid_argument);
    EXPECT_THROW(parse_size("--buffer", "-1"), std::invalid_argument);
    EXPECT_THROW(parse_size("--buffer", "99999999999999999999"), std::invalid_argument);
}

TEST(SwitchConfig, EcnSpecs) {
    EXPECT_EQ(parse_ecn("--ecn", "off").mode, EcnMode::kOff);
    const EcnPolicy s = parse_ecn("--ecn", "step:k=32K");
    EXPECT_EQ(s.mode, EcnMode::kStep);
    EXPECT_EQ(s.k, 32768u);
    const EcnPolicy r = parse_ecn("--ecn", "red:min=16K:max=128K:p=0.5:w=9:drop-nonect");
    EXPECT_EQ(r.mode, EcnMode::kRed);
    EXPECT_EQ(r.kmin, 16384u);
    EXPECT_EQ(r.kmax, 131072u);
    EXPECT_DOUBLE_EQ(r.pmax, 0.5);
    EXPECT_EQ(r.ewma_shift, 9u);
    EXPECT_TRUE(r.drop_nonect);
    EXPECT_FALSE(parse_ecn("--ecn", "red").ewma_shift);
    EXPECT_THROW(parse_ecn("--ecn", "red:min=1M:max=1K"), std::invalid_argument);
    EXPECT_THROW(parse_ecn("--ecn", "red:p=1.5"), std::invalid_argument);
    EXPECT_THROW(parse_ecn("--ecn", "step:min=1"), std::invalid_argument);
    EXPECT_THROW(parse_ecn("--ecn", "wred"), std::invalid_argument);
}

TEST(SwitchConfig, DefaultsOfTheContract) {
    const Options o = parse({"--ports", "2", "--peer", "1=40001", "--peer=2=40002"});
    ASSERT_EQ(o.sw.ports.size(), 2u);
    EXPECT_EQ(o.peer, (std::vector<uint16_t>{40001, 40002}));
    EXPECT_EQ(o.listen, (std::vector<uint16_t>{0, 0}));
    const PortConfig& p = o.sw.ports[1];
    EXPECT_EQ(p.rate_bps, 1'000'000'000u);
    EXPECT_EQ(p.buffer, 1u << 20);
    EXPECT_EQ(p.overhead, 24u);
    EXPECT_EQ(p.ecn.mode, EcnMode::kStep);
    EXPECT_EQ(p.ecn.k, 65536u);
    EXPECT_FALSE(p.pfc);
    EXPECT_EQ(o.sw.pfc.xoff, 131072u);
    EXPECT_EQ(o.sw.pfc.xon, 65536u);
    EXPECT_EQ(o.sw.pfc.headroom, 524288u);
    EXPECT_EQ(o.sw.age_ns, 300'000'000'000u);
    EXPECT_EQ(o.sw.seed, 1u);
    EXPECT_EQ(o.sample_us, 1000u);
}

TEST(SwitchConfig, PortOptsOverrideTheCommonValuesWhateverTheOrder) {
    const Options o =
        parse({"--port-opt", "1:rate=500M,ecn=red:min=32K:max=256K:p=0.2,pfc=on", "--ports", "3",
               "--peer", "1=1", "--peer", "2=2", "--peer", "3=3", "--rate", "2G", "--buffer", "4M",
               "--port-opt", "3:faults=rx:drop:ppm=1000;tx:ecn:nth=2"});
    EXPECT_EQ(o.sw.ports[0].rate_bps, 500'000'000u);
    EXPECT_EQ(o.sw.ports[0].ecn.mode, EcnMode::kRed);
    EXPECT_TRUE(o.sw.ports[0].pfc);
    EXPECT_EQ(o.sw.ports[0].buffer, 4u << 20);
    EXPECT_EQ(o.sw.ports[1].rate_bps, 2'000'000'000u);
    EXPECT_EQ(o.sw.ports[2].faults, "rx:drop:ppm=1000;tx:ecn:nth=2");
}

TEST(SwitchConfig, ErrorsNameTheOption) {
    EXPECT_EQ(error_of({"--peer", "1=1"}), "--ports: required (1..8)");
    EXPECT_EQ(error_of({"--ports", "9"}), "--ports=9: must be 1..8");
    EXPECT_EQ(error_of({"--ports", "2", "--peer", "1=1"}),
              "--peer: port 2 has no peer (--peer 2=UDPPORT)");
    EXPECT_EQ(error_of({"--ports", "2", "--peer", "3=1"}), "--peer=3=1: port out of range 1..2");
    EXPECT_EQ(error_of({"--ports", "1", "--peer", "1=70000"}), "--peer=70000: not a UDP port");
    EXPECT_EQ(error_of({"--ports", "1", "--bogus", "1"}), "--bogus: unknown option (see --help)");
    EXPECT_EQ(error_of({"--ports"}), "--ports: needs a value");
    EXPECT_EQ(error_of({"--ports", "1", "--peer", "1=1", "--rate", "fast"}),
              "--rate=fast: not an unsigned integer");
    EXPECT_EQ(error_of({"--ports", "1", "--peer", "1=1", "--port-opt", "1:speed=1G"}),
              "--port-opt 1=speed=1G: unknown key 'speed'");
    EXPECT_NE(error_of({"--ports", "1", "--peer", "1=1", "--port-opt", "1:faults=rx:boom"})
                  .find("--port-opt 1 faults=rx:boom: "),
              std::string::npos);
    EXPECT_EQ(error_of({"--ports", "1", "--peer", "1=1", "--pfc-xon", "1M"}),
              "--pfc-xon: must be below --pfc-xoff");
    EXPECT_TRUE(parse({"--help"}).help);
}

}  // namespace
}  // namespace scenic::sw
