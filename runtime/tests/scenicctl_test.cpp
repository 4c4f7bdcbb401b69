// SPDX-License-Identifier: MIT
// scenicctl's commands in-process on the fake card: output, --json, errors and exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli.hpp"
#include "scenic/fake_card.hpp"
#include "scenic/scenic.hpp"
#include "test_util.hpp"
#include "uapi/scenic_scu.h"

namespace scenic {
namespace {

using nlohmann::json;

class Ctl : public ::testing::Test {
  protected:
    std::shared_ptr<testing::FakeCard> card = std::make_shared<testing::FakeCard>(4);
    test::TempDir dir;
    std::string out, err;

    int run(const std::vector<std::string>& args) {
        std::ostringstream o, e;
        const int rc = ctl::run(args, o, e, card);
        out = o.str();
        err = e.str();
        return rc;
    }
    std::string image_file(const std::vector<uint8_t>& img, const std::string& n = "i.scuimg") {
        write_file(dir.file(n), img);
        return dir.file(n);
    }
};

TEST_F(Ctl, ListAndStatus) {
    ASSERT_EQ(run({"list"}), 0) << err;
    EXPECT_NE(out.find("card 0 slot 0: passthrough kind 1 (passthrough) v1 RUNNING fixed"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("card 0 slot 3:"), std::string::npos);
    ASSERT_EQ(run({"--json", "list"}), 0);
    const json j = json::parse(out);
    ASSERT_EQ(j.size(), 4u);
    EXPECT_EQ(j[1]["state"], "RUNNING");
    EXPECT_EQ(j[0]["fixed"], true);
    ASSERT_EQ(run({"status", "2", "--json"}), 0);
    EXPECT_EQ(json::parse(out)["slot"], 2);
    ASSERT_EQ(run({"status"}), 0);
    EXPECT_NE(out.find("reconfig delay 8000 us"), std::string::npos);
}

TEST_F(Ctl, LoadDryRunUnload) {
    const std::string img = image_file(test::image(1, 1, "ctlpass"));
    ASSERT_EQ(run({"load", "1", img, "--dry-run"}), 0) << err;
    EXPECT_NE(out.find("dry run"), std::string::npos);
    EXPECT_EQ(ScenicReconfig(0, card).info(1).loads, 0u);
    ASSERT_EQ(run({"--json", "load", "1", img}), 0) << err;
    EXPECT_EQ(json::parse(out)["pause_ns"], 8000000);
    EXPECT_EQ(ScenicReconfig(0, card).info(1).name, "ctlpass");
    ASSERT_EQ(run({"unload", "1"}), 0);
    EXPECT_EQ(ScenicReconfig(0, card).info(1).name, "passthrough");
}

TEST_F(Ctl, BadImageExitsOneWithTheStatus) {
    auto bad = test::image();
    bad[0x41] = 4;  // data width 1024 without a CRC fix: the header CRC fails first
    const std::string img = image_file(bad);
    EXPECT_EQ(run({"load", "1", img}), ctl::kExitError);
    EXPECT_NE(err.find("BAD_HEADER"), std::string::npos) << err;
    EXPECT_NE(err.find("CRC"), std::string::npos) << err;
    EXPECT_EQ(run({"--json", "load", "1", img}), ctl::kExitError);
    EXPECT_EQ(json::parse(out)["errno"], ENOEXEC);
    EXPECT_EQ(json::parse(out)["status"], "BAD_HEADER");
}

TEST_F(Ctl, BusySlot) {
    int e = 0;
    auto other = card->open_slot(0, 2, true, &e);
    EXPECT_EQ(run({"unload", "2"}), ctl::kExitError);
    EXPECT_NE(err.find("another process owns the slot"), std::string::npos) << err;
}

TEST_F(Ctl, CsrReadWrite) {
    ASSERT_EQ(run({"csr", "write", "1", "2", "0x9f3c7a2b6e41d8c5"}), 0) << err;
    EXPECT_EQ(card->csr(1, 2), 0x9f3c7a2b6e41d8c5ULL);
    ASSERT_EQ(run({"csr", "read", "1", "2"}), 0);
    EXPECT_EQ(out, "0x9f3c7a2b6e41d8c5\n");
    ASSERT_EQ(run({"csr", "read", "1", "0"}), 0);
    EXPECT_EQ(out, "0x5343555041535331\n");  // the passthrough's ID register
    EXPECT_EQ(run({"csr", "read", "1", "8192"}), ctl::kExitError);
    EXPECT_EQ(run({"csr", "read", "0", "1"}), ctl::kExitError);  // slot 0 has no owner
}

TEST_F(Ctl, Counters) {
    card->set_traffic(1, "tx_bytes_out", 4096);
    ASSERT_EQ(run({"counters", "1"}), 0);
    EXPECT_NE(out.find("tx_bytes_out 4096\n"), std::string::npos);
    ASSERT_EQ(run({"-j", "counters", "1"}), 0);
    EXPECT_EQ(json::parse(out)["tx_bytes_out"], 4096);
}

TEST_F(Ctl, WaitIrqTimeoutAndLines) {
    EXPECT_EQ(run({"wait-irq", "1", "--timeout", "20"}), ctl::kExitTimeout);
    EXPECT_NE(out.find("no interrupt in 20 ms"), std::string::npos);
    std::thread raiser([this] {
        for (int i = 0; i < 200 && !card->owned(1); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        card->raise_irq(1, 2);
    });
    const int rc = run({"wait-irq", "1", "--timeout", "3000"});
    raiser.join();
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(out, "slot 1: lines 0x2\n");
}

TEST_F(Ctl, Policy) {
    ASSERT_EQ(run({"policy", "1", "bound-pd"}), 0) << err;
    EXPECT_EQ(ScenicReconfig(0, card).info(1).qp_policy, 1u);
    EXPECT_EQ(run({"policy", "1", "everyone"}), ctl::kExitUsage);
}

TEST_F(Ctl, ImageBuildAndInfo) {
    write_file(dir.file("p.json"), test::payload(64));
    ASSERT_EQ(run({"image", "build", "--kind", "1", "--name", "built", "--luts", "12", "--build-id",
                   "0xabc", "--payload", dir.file("p.json"), "-o", dir.file("b.scuimg")}),
              0)
        << err;
    ASSERT_EQ(run({"image", "info", dir.file("b.scuimg")}), 0) << err;
    EXPECT_NE(out.find("name built\n"), std::string::npos) << out;
    EXPECT_NE(out.find("12 LUTs"), std::string::npos);
    EXPECT_NE(out.find("check OK"), std::string::npos);
    ASSERT_EQ(run({"--json", "image", "info", dir.file("b.scuimg")}), 0);
    const json j = json::parse(out);
    EXPECT_EQ(j["header"]["build_id"], "0x0000000000000abc");
    EXPECT_EQ(j["header"]["payload_size"], 64);
    auto img = read_file(dir.file("b.scuimg"), 1 << 20);
    img.back() ^= 1;
    write_file(dir.file("c.scuimg"), img);
    EXPECT_EQ(run({"image", "info", dir.file("c.scuimg")}), ctl::kExitError);
    EXPECT_NE(out.find("check HASH_MISMATCH"), std::string::npos) << out;
    EXPECT_EQ(run({"image", "build", "--kind", "1", "--name", std::string(40, 'x'), "--payload",
                   dir.file("p.json"), "-o", dir.file("d.scuimg")}),
              ctl::kExitUsage);
}

TEST_F(Ctl, SteerAddAndDel) {
    ASSERT_EQ(run({"steer", "add", "1", "--dst-ip", "10.0.0.0/8", "--ip-proto", "17", "--dst-port",
                   "4791", "--dir", "both", "--priority", "3"}),
              0)
        << err;
    EXPECT_EQ(out, "slot 1: rule 0\n");
    const auto rules = card->rules(1);
    ASSERT_EQ(rules.size(), 1u);
    const scenic_scu_steer_rule& r = rules[0];
    EXPECT_EQ(r.flags, uint32_t{SCENIC_SCU_STEER_DIR_RX | SCENIC_SCU_STEER_DIR_TX});
    EXPECT_EQ(r.priority, 3);
    EXPECT_EQ(r.ethertype, 0x0800);  // from the address family
    EXPECT_EQ(r.ethertype_mask, 0xffff);
    EXPECT_EQ(r.ip_proto, 17);
    EXPECT_EQ(r.ip_proto_mask, 0xff);
    EXPECT_EQ(r.dst_port, 4791);
    EXPECT_EQ(r.src_port_mask, 0);  // unset: wildcard
    EXPECT_EQ(r.dst_ip[0], 10);
    EXPECT_EQ(r.dst_ip_mask[0], 0xff);
    EXPECT_EQ(r.dst_ip_mask[1], 0);
    EXPECT_EQ(r.src_ip_mask[0], 0);
    ASSERT_EQ(run({"--json", "steer", "add", "1", "--src-ip", "fd00::1/64"}), 0) << err;
    EXPECT_EQ(json::parse(out)["rule_id"], 1);
    const auto r6 = card->rules(1).at(1);
    EXPECT_EQ(r6.flags & SCENIC_SCU_STEER_IPV6, uint32_t{SCENIC_SCU_STEER_IPV6});
    EXPECT_EQ(r6.ethertype, 0x86dd);
    EXPECT_EQ(r6.src_ip_mask[7], 0xff);
    EXPECT_EQ(r6.src_ip_mask[8], 0);
    EXPECT_EQ(r6.src_ip[15], 0);  // host bits cleared by the mask
    EXPECT_EQ(ScenicReconfig(0, card).info(1).steer_rules_used, 2u);
    ASSERT_EQ(run({"steer", "del", "1", "0"}), 0) << err;
    EXPECT_EQ(card->rules(1).size(), 1u);
    EXPECT_EQ(run({"steer", "del", "1", "0"}), ctl::kExitError);  // gone: ENOENT
    EXPECT_EQ(run({"steer", "add", "1", "--src-ip", "10.0.0.1", "--dst-ip", "fd00::1"}),
              ctl::kExitError);  // families mixed
    EXPECT_NE(err.find("different families"), std::string::npos) << err;
    EXPECT_EQ(run({"steer", "add", "1", "--dst-ip", "10.0.0.1/33"}), ctl::kExitError);
    EXPECT_EQ(run({"steer", "add", "1", "--dst-ip", "10.0.0.300"}), ctl::kExitError);
    EXPECT_EQ(run({"steer", "add", "1", "--dir", "sideways"}), ctl::kExitUsage);
    // The card matches ports only under TCP, UDP or SCTP: refused before the kernel sees it.
    const size_t before = card->rules(1).size();
    EXPECT_EQ(run({"steer", "add", "1", "--dst-port", "53"}), ctl::kExitError);
    EXPECT_NE(err.find("--ip-proto"), std::string::npos) << err;
    EXPECT_EQ(run({"steer", "add", "1", "--ip-proto", "1", "--src-port", "53"}), ctl::kExitError);
    EXPECT_EQ(card->rules(1).size(), before);
}

TEST_F(Ctl, UsageErrors) {
    EXPECT_EQ(run({}), ctl::kExitUsage);
    EXPECT_EQ(run({"frobnicate"}), ctl::kExitUsage);
    EXPECT_EQ(run({"load", "1"}), ctl::kExitUsage);
    EXPECT_EQ(run({"csr", "read", "1", "notanumber"}), ctl::kExitUsage);
    EXPECT_EQ(run({"--help"}), 0);
    EXPECT_NE(out.find("wait-irq"), std::string::npos);
}

}  // namespace
}  // namespace scenic
