// SPDX-License-Identifier: MIT
// The SCU steering table (docs/scu.md 3): rule validation, priority order, a full table, the
// SCU_STEER_ADD / SCU_STEER_DEL admin commands, and fallback frames on the card's real ETH
// paths going through the rule's slot (RX after the prefilter, TX after the ETH TX DMA),
// counted per slot and per rule; an unload and a card reset take the rules.
#include "scenic/scu_steering.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "eth_rig.hpp"
#include "rdma_rig.hpp"
#include "scu_rig.hpp"

namespace scenic::test {
namespace {

using admin::AqOpcode;
using admin::AqStatus;
using admin::ScuStatus;
using scu::Dir;
using scu::SteerRule;

namespace eth = regs::eth;

// IPv4 UDP frame from 10.0.0.2:sport to 10.0.0.1:dport.
std::vector<uint8_t> udp4(uint16_t sport, uint16_t dport, size_t len = 128, uint8_t fill = 0) {
    auto f = make_ipv4(17, dport, len);
    for (size_t i = 42; i < f.size(); ++i) {
        f[i] = static_cast<uint8_t>(fill + i);
    }
    const std::array<uint8_t, 8> ips{10, 0, 0, 2, 10, 0, 0, 1};
    std::copy(ips.begin(), ips.end(), f.begin() + 26);
    f[34] = static_cast<uint8_t>(sport >> 8);
    f[35] = static_cast<uint8_t>(sport);
    return f;
}

SteerRule udp_dport(uint16_t port, uint32_t dirs = scu::kSteerRx, uint16_t prio = 0) {
    SteerRule r;
    r.flags = dirs;
    r.priority = prio;
    r.ip_proto = 17;
    r.ip_proto_mask = 0xff;
    r.dst_port = port;
    r.dst_port_mask = 0xffff;
    return r;
}

TEST(ScuSteeringRules, ValidationRefusesWhatCannotMatchAsWritten) {
    EXPECT_TRUE(scu::steer_rule_valid(udp_dport(5000)));
    SteerRule r = udp_dport(5000);
    r.flags = 0;  // no direction
    EXPECT_FALSE(scu::steer_rule_valid(r));
    r.flags = scu::kSteerRx | 8;  // unknown flag
    EXPECT_FALSE(scu::steer_rule_valid(r));
    r = udp_dport(5000);
    r.dst_port_mask = 0xff00;  // value bits outside the mask
    EXPECT_FALSE(scu::steer_rule_valid(r));
    r = udp_dport(5000);
    r.ip_proto_mask = 0;  // ports without an exact TCP/UDP/SCTP protocol
    r.ip_proto = 0;
    EXPECT_FALSE(scu::steer_rule_valid(r));
    r = udp_dport(5000);
    r.ip_proto = 1;  // ICMP has no ports
    EXPECT_FALSE(scu::steer_rule_valid(r));
    r = udp_dport(5000);
    r.dst_ip_mask[4] = 0xff;  // IPv4 uses the first 4 bytes only
    EXPECT_FALSE(scu::steer_rule_valid(r));
    r.flags |= scu::kSteerIpv6;
    EXPECT_TRUE(scu::steer_rule_valid(r));
    SteerRule any;
    any.flags = scu::kSteerTx;  // all wildcards: every fallback frame of that direction
    EXPECT_TRUE(scu::steer_rule_valid(any));
}

TEST(ScuSteeringRules, LowestPriorityThenLowestIndexWins) {
    scu::SteeringTable t;
    SteerRule wide;  // every IPv4 frame, priority 5
    wide.flags = scu::kSteerRx;
    wide.priority = 5;
    wide.ethertype = 0x0800;
    wide.ethertype_mask = 0xffff;
    ASSERT_EQ(t.add(1, wide), 0u);
    ASSERT_EQ(t.add(2, udp_dport(5000, scu::kSteerRx, 3)), 1u);
    ASSERT_EQ(t.add(3, udp_dport(5000, scu::kSteerRx, 3)), 2u);  // same priority, later index
    const auto f = udp4(1234, 5000);
    auto hit = t.match(Dir::kRx, f);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->slot, 2u);
    EXPECT_EQ(hit->rule, 1u);
    EXPECT_FALSE(t.match(Dir::kTx, f));  // RX-only rules
    hit = t.match(Dir::kRx, udp4(1234, 5001));
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->slot, 1u);                         // only the wide rule
    EXPECT_FALSE(t.match(Dir::kRx, make_frame(60)));  // not IPv4
    EXPECT_FALSE(t.del(3, 1));                        // another slot's rule
    EXPECT_TRUE(t.del(2, 1));
    EXPECT_FALSE(t.del(2, 1));  // already free
    EXPECT_FALSE(t.del(2, scu::kSteerRules));
    hit = t.match(Dir::kRx, f);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->slot, 3u);
    EXPECT_EQ(t.used(), 2u);
    t.clear_slot(3);
    EXPECT_EQ(t.used(), 1u);
}

TEST(ScuSteeringRules, AddressesMasksAndIpv6) {
    scu::SteeringTable t;
    SteerRule r;
    r.flags = scu::kSteerRx;
    r.src_ip = {10, 0, 0, 0};
    r.src_ip_mask = {255, 255, 255, 0};  // 10.0.0.0/24
    ASSERT_TRUE(scu::steer_rule_valid(r));
    ASSERT_TRUE(t.add(4, r));
    EXPECT_TRUE(t.match(Dir::kRx, udp4(1, 2)));
    auto other = udp4(1, 2);
    other[28] = 1;  // 10.0.1.2
    EXPECT_FALSE(t.match(Dir::kRx, other));

    SteerRule v6;
    v6.flags = scu::kSteerRx | scu::kSteerIpv6;
    v6.ip_proto = 58;
    v6.ip_proto_mask = 0xff;
    v6.dst_ip = {0xfe, 0x80};
    v6.dst_ip_mask = {0xff, 0xff};
    ASSERT_TRUE(scu::steer_rule_valid(v6));
    ASSERT_TRUE(t.add(5, v6));
    auto f = make_frame(100, kStation, 0x86dd);
    std::fill(f.begin() + 14, f.end(), 0);
    f[14] = 0x60;
    f[20] = 58;  // ICMPv6
    f[38] = 0xfe;
    f[39] = 0x80;
    auto hit = t.match(Dir::kRx, f);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->slot, 5u);
    f[20] = 17;
    EXPECT_FALSE(t.match(Dir::kRx, f));
    // A runt is never matched (the ETH block drops it before).
    EXPECT_FALSE(t.match(Dir::kRx, std::span(f).first(13)));
}

TEST(ScuSteeringRules, FullTableIsAStatus) {
    Node n(1);
    scu::SlotManager& m = n.dev.scu().slots();
    unsigned idx = 0;
    for (unsigned i = 0; i < scu::kSteerRules; ++i) {
        ASSERT_EQ(m.steer_add(1 + i % 15, udp_dport(static_cast<uint16_t>(1000 + i)), idx),
                  ScuStatus::kOk);
        EXPECT_EQ(idx, i);
    }
    EXPECT_EQ(m.steer_add(2, udp_dport(9), idx), ScuStatus::kTableFull);
    EXPECT_EQ(m.steer_add(0, udp_dport(9), idx), ScuStatus::kBadSlot);
    EXPECT_EQ(m.steer_add(16, udp_dport(9), idx), ScuStatus::kBadSlot);
    EXPECT_EQ(m.steering().used(), scu::kSteerRules);
    EXPECT_EQ(n.dev.mmio_read(regs::scu::kOffset + regs::scu::kSteerRules, 4), scu::kSteerRules);
}

// ---- the admin commands ----

class ScuSteerCommands : public ::testing::Test {
  protected:
    ScuSteerCommands() : n(1) {}

    CmdResult add(unsigned slot, const SteerRule& r, AqResult* out = nullptr) {
        Sqe e = sqe(AqOpcode::kScuSteerAdd);
        const admin::AqScuSteerAdd<> v{std::span<uint8_t, kAqSqeBytes>(e)};
        v.set_dir_rx((r.flags & scu::kSteerRx) != 0 ? 1 : 0);
        v.set_dir_tx((r.flags & scu::kSteerTx) != 0 ? 1 : 0);
        v.set_ipv6((r.flags & scu::kSteerIpv6) != 0 ? 1 : 0);
        v.set_priority(r.priority);
        v.set_ethertype(r.ethertype);
        v.set_ethertype_mask(r.ethertype_mask);
        v.set_ip_proto(r.ip_proto);
        v.set_ip_proto_mask(r.ip_proto_mask);
        v.set_src_port(r.src_port);
        v.set_src_port_mask(r.src_port_mask);
        v.set_dst_port(r.dst_port);
        v.set_dst_port_mask(r.dst_port_mask);
        std::copy(r.src_ip.begin(), r.src_ip.end(), e.begin() + 0x20);
        std::copy(r.src_ip_mask.begin(), r.src_ip_mask.end(), e.begin() + 0x30);
        std::copy(r.dst_ip.begin(), r.dst_ip.end(), e.begin() + 0x40);
        std::copy(r.dst_ip_mask.begin(), r.dst_ip_mask.end(), e.begin() + 0x50);
        v.set_slot(static_cast<uint8_t>(slot));
        return n.aq.exec(e, out);
    }
    CmdResult del(unsigned slot, uint32_t rule) {
        Sqe e = sqe(AqOpcode::kScuSteerDel);
        const admin::AqScuSteerDel<> v{std::span<uint8_t, kAqSqeBytes>(e)};
        v.set_slot(static_cast<uint8_t>(slot));
        v.set_rule_id(rule);
        return n.aq.exec(e);
    }
    uint8_t last_refusal(unsigned slot) {
        Sqe e = sqe(AqOpcode::kScuQuerySlot);
        e[8] = static_cast<uint8_t>(slot);
        AqResult q{};
        EXPECT_TRUE(n.aq.exec(e, &q).ok());
        return admin::AcqScuQuerySlot<const uint8_t>(std::span<const uint8_t, kAqCqeBytes>(q))
            .last_refusal();
    }

    Node n;
};

TEST_F(ScuSteerCommands, AddReturnsTheIndexAndDelFreesIt) {
    AqResult res{};
    ASSERT_TRUE(add(3, udp_dport(5000), &res).ok());
    admin::AcqScuSteerAdd<const uint8_t> r{std::span<const uint8_t, kAqCqeBytes>(res)};
    EXPECT_EQ(r.rule_id(), 0u);
    EXPECT_EQ(r.rules_used(), 1u);
    ASSERT_TRUE(add(4, udp_dport(5001), &res).ok());
    EXPECT_EQ(r.rule_id(), 1u);
    EXPECT_EQ(r.rules_used(), 2u);
    const auto hit = n.dev.scu().slots().steering().match(Dir::kRx, udp4(7, 5001));
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->slot, 4u);

    EXPECT_EQ(del(3, 1).status, AqStatus::kNotFound);  // slot 4's rule
    EXPECT_EQ(last_refusal(3), static_cast<uint8_t>(ScuStatus::kNoRule));
    ASSERT_TRUE(del(4, 1).ok());
    EXPECT_EQ(del(4, 1).status, AqStatus::kNotFound);
    EXPECT_EQ(n.dev.scu().slots().steering().used(), 1u);
    ASSERT_TRUE(add(5, udp_dport(5002), &res).ok());
    EXPECT_EQ(r.rule_id(), 1u);  // the freed entry again
}

TEST_F(ScuSteerCommands, RefusalsAreStatusesAndCounted) {
    const uint64_t bad_arg = n.dev.scu().slots().refused(AqStatus::kBadArg);
    EXPECT_EQ(add(0, udp_dport(1)).status, AqStatus::kBadIndex);  // the fixed slot
    EXPECT_EQ(add(16, udp_dport(1)).status, AqStatus::kBadIndex);
    EXPECT_EQ(del(0, 0).status, AqStatus::kBadIndex);
    SteerRule bad = udp_dport(1);
    bad.flags = 0;
    EXPECT_EQ(add(2, bad).status, AqStatus::kBadArg);
    EXPECT_EQ(last_refusal(2), static_cast<uint8_t>(ScuStatus::kBadRule));
    EXPECT_EQ(n.dev.scu().slots().refused(AqStatus::kBadArg), bad_arg + 1);
    // The reserved rule_id bytes (0x1c) of the request: MALFORMED from the queue's own check.
    Sqe e = sqe(AqOpcode::kScuSteerAdd);
    e[8] = 1;
    e[0x60] = 2;
    e[0x1c] = 1;
    EXPECT_EQ(n.aq.exec(e).status, AqStatus::kMalformed);
    for (unsigned i = 0; i < scu::kSteerRules; ++i) {
        ASSERT_TRUE(add(2, udp_dport(static_cast<uint16_t>(i + 1))).ok());
    }
    EXPECT_EQ(add(2, udp_dport(9999)).status, AqStatus::kNoResources);
    EXPECT_EQ(last_refusal(2), static_cast<uint8_t>(ScuStatus::kTableFull));
    EXPECT_EQ(n.dev.scu().slots().steering().used(), scu::kSteerRules);
}

// ---- frames on the card's ETH paths ----

class ScuSteerFrames : public ::testing::Test {
  protected:
    ScuSteerFrames() { rig.up(); }
    scu::SlotManager& mgr() { return rig.dev.scu().slots(); }
    unsigned add(unsigned slot, const SteerRule& r) {
        unsigned idx = 0;
        EXPECT_EQ(mgr().steer_add(slot, r, idx), ScuStatus::kOk);
        return idx;
    }
    EthRig rig;
};

TEST_F(ScuSteerFrames, RxFrameOfARuleGoesThroughItsSlotUnchanged) {
    const unsigned idx = add(3, udp_dport(5000));
    const auto hit = udp4(40000, 5000, 200, 9);
    const auto miss = udp4(40000, 5001, 150, 3);
    rig.dev.eth_rx(hit);
    rig.dev.eth_rx(miss);
    // Both reach the ring, in order, the steered one unchanged by the passthrough.
    ASSERT_EQ(rig.r(eth::kRxTail), 2u);
    EXPECT_EQ(rig.slot_frame(0), hit);
    EXPECT_EQ(rig.slot_frame(1), miss);
    EXPECT_EQ(rig.tag(0).flags >> 1, static_cast<uint16_t>(dp::FrameClass::Other));
    const scu::SlotCounters& c = mgr().counters(3);
    const auto rx = static_cast<unsigned>(Dir::kRx);
    EXPECT_EQ(c.pkts_in[rx], 1u);
    EXPECT_EQ(c.bytes_in[rx], 200u);
    EXPECT_EQ(c.pkts_out[rx], 1u);
    EXPECT_EQ(c.bytes_out[rx], 200u);
    EXPECT_EQ(c.pkts_in[static_cast<unsigned>(Dir::kTx)], 0u);
    EXPECT_EQ(mgr().steering().hits(idx), 1u);
    for (unsigned s = 0; s < mgr().num_slots(); ++s) {
        if (s != 3) {
            EXPECT_EQ(mgr().counters(s).pkts_in[rx], 0u) << "slot " << s;
        }
    }
    // The passthrough counted it in its own CSR (PKTS, index 4) too.
    EXPECT_EQ(mgr().slot(3).csr_read(4), 1u);
}

TEST_F(ScuSteerFrames, TxFrameOfARuleReachesTheWireThroughItsSlot) {
    add(2, udp_dport(7000, scu::kSteerTx));
    add(5, udp_dport(7001, scu::kSteerRx));  // RX only: not for TX frames
    const auto f = udp4(1, 7000, 300, 1);
    const auto g = udp4(1, 7001, 90, 2);
    rig.cmd(0, rig.tx_buf(0, f), static_cast<uint32_t>(f.size()));
    rig.cmd(1, rig.tx_buf(1, g), static_cast<uint32_t>(g.size()));
    rig.w(eth::kTxTail, 2);
    ASSERT_EQ(rig.host.wire.size(), 2u);
    EXPECT_EQ(rig.host.wire[0], f);
    EXPECT_EQ(rig.host.wire[1], g);
    EXPECT_EQ(rig.r(eth::kTxHead), 2u);
    EXPECT_EQ(rig.r(eth::kTxFrames), 2u);
    const auto tx = static_cast<unsigned>(Dir::kTx);
    EXPECT_EQ(mgr().counters(2).pkts_in[tx], 1u);
    EXPECT_EQ(mgr().counters(2).bytes_out[tx], 300u);
    EXPECT_EQ(mgr().counters(5).pkts_in[tx], 0u);
}

TEST_F(ScuSteerFrames, LoadingSlotDropsItsFramesAndUnloadTakesTheRules) {
    const std::vector<uint8_t> payload(64, 0x20);
    add(4, udp_dport(5000));
    ASSERT_EQ(mgr().load(4, make_scu_image(scu::kKindPassthrough, 1, payload)), ScuStatus::kOk);
    rig.dev.eth_rx(udp4(1, 5000));
    EXPECT_EQ(rig.r(eth::kRxTail), 0u);  // dropped: the rule stays while the slot loads
    EXPECT_EQ(mgr().counters(4).fifo_drops[static_cast<unsigned>(Dir::kRx)], 1u);
    rig.host.run_for(rig.dev, uint64_t{regs::scu::kReconfigUsDefault} * 1000);
    rig.dev.eth_rx(udp4(1, 5000));
    EXPECT_EQ(rig.r(eth::kRxTail), 1u);
    EXPECT_EQ(mgr().counters(4).pkts_in[static_cast<unsigned>(Dir::kRx)], 1u);
    ASSERT_EQ(mgr().unload(4), ScuStatus::kOk);
    EXPECT_EQ(mgr().steering().used(), 0u);
    rig.dev.eth_rx(udp4(1, 5000));  // the normal fallback path again, though the slot loads
    EXPECT_EQ(rig.r(eth::kRxTail), 2u);
    EXPECT_EQ(mgr().counters(4).fifo_drops[static_cast<unsigned>(Dir::kRx)], 1u);
}

TEST(ScuSteerRoce, FramesForTheOffloadNeverMeetTheRules) {
    // RDMA enabled: a RoCE v2 frame (UDP 4791) goes to the engine, which drops this one
    // (no valid ICRC), and never reaches the rule's slot.
    Node n(1);
    scu::SlotManager& m = n.dev.scu().slots();
    unsigned idx = 0;
    ASSERT_EQ(m.steer_add(3, udp_dport(4791), idx), ScuStatus::kOk);
    const uint64_t dropped =
        n.dev.rdma().counters().rx_drop_icrc + n.dev.rdma().counters().rx_drop_malformed;
    auto f = udp4(49152, 4791, 128);
    std::copy(n.mac.begin(), n.mac.end(), f.begin());
    n.dev.eth_rx(f);
    EXPECT_EQ(m.counters(3).pkts_in[static_cast<unsigned>(Dir::kRx)], 0u);
    EXPECT_EQ(m.steering().hits(idx), 0u);
    EXPECT_EQ(n.dev.rdma().counters().rx_drop_icrc + n.dev.rdma().counters().rx_drop_malformed,
              dropped + 1);

    // RDMA disabled (RDMA.CTRL 0): the same frame takes the fallback path, so the rule applies.
    EthRig rig;
    rig.up();
    unsigned idx2 = 0;
    ASSERT_EQ(rig.dev.scu().slots().steer_add(3, udp_dport(4791), idx2), ScuStatus::kOk);
    rig.dev.eth_rx(udp4(49152, 4791, 128));
    EXPECT_EQ(rig.dev.scu().slots().counters(3).pkts_in[static_cast<unsigned>(Dir::kRx)], 1u);
    EXPECT_EQ(rig.r(eth::kRxTail), 1u);
}

TEST_F(ScuSteerFrames, CardResetClearsTheTable) {
    add(6, udp_dport(5000));
    rig.dev.reset();
    EXPECT_EQ(mgr().steering().used(), 0u);
}

TEST_F(ScuSteerFrames, MacFilterAndSizeChecksRunAfterTheSlot) {
    add(3, udp_dport(5000));
    auto f = udp4(1, 5000);
    f[0] = 0x02;
    f[5] = 0x77;  // another station's unicast
    rig.dev.eth_rx(f);
    EXPECT_EQ(rig.r(eth::kRxTail), 0u);
    EXPECT_EQ(rig.r(eth::kRxDropFilter), 1u);
    EXPECT_EQ(mgr().counters(3).pkts_out[static_cast<unsigned>(Dir::kRx)], 1u);
}

}  // namespace
}  // namespace scenic::test
