// SPDX-License-Identifier: MIT
// Selective repeat against go-back-N in the model (docs/selective-repeat.md 13): a stream of
// 64 KiB RDMA WRITEs between two cards on a wire that drops 0, 0.1, 1 and 5% of the frames each
// card receives, once with SR off and once on. It prints, per point, the data packets sent per
// packet delivered (1.0 is no waste), the resends, the ACK timeouts and the virtual time the
// stream took. A measurement, not a test: `build/cmake/qemu-device/scenic_sr_goodput_bench`.
#include <cstdio>
#include <string>

#include "rdma_rig.hpp"

namespace {

using scenic::Config;
using scenic::test::Node;
using scenic::test::QpAttrs;
using scenic::test::RdmaPair;

constexpr uint32_t kMsgs = 64;
constexpr uint32_t kLen = 65536;
constexpr uint32_t kPmtu = 1024;

struct Point {
    uint64_t sent = 0;  // data packets (first transmissions + resends)
    uint64_t ideal = 0;
    uint64_t resends = 0;
    uint64_t timeouts = 0;
    uint64_t ns = 0;
    bool ok = true;
};

Point run(uint32_t ppm, bool sr, uint64_t seed) {
    const std::string f = ppm == 0 ? "" : "rx:drop:ppm=" + std::to_string(ppm);
    const Node::ConfigFn mode = [sr](Config& c) { c.sr_default = sr; };
    RdmaPair p(0, seed, 0, f, f, mode, mode);
    QpAttrs at;
    at.timeout = 14;  // perftest's
    p.setup(2, 3, at);
    const uint32_t ak = p.a.reg_mr(Node::kVa, 1 << 20, scenic::test::kAll);
    const uint32_t bk = p.b.reg_mr(Node::kVa, 1 << 20, scenic::test::kAll);
    Point pt;
    pt.ok = p.run(100'000'000);  // the handshake (a hello may be lost: up to 21 ms)
    const auto& c = p.a.dev.rdma().counters();
    const uint32_t retx0 = c.retransmits;
    const uint32_t to0 = c.ack_timeouts;
    const uint64_t t0 = p.a.host.now;
    for (uint32_t g = 0; g < kMsgs / 8 && pt.ok; ++g) {
        for (uint32_t k = 0; k < 8; ++k) {
            const uint64_t s = Node::kVa + k * kLen;
            const uint64_t d = Node::kVa + 0x80000 + k * kLen;
            p.a.fill_va(s, kLen, static_cast<uint8_t>(g * 8 + k + 1));
            p.a.post_send(2, scenic::test::make_wqe(SCENIC_WQE_OP_WRITE,
                                                    {scenic::test::sge(s, kLen, ak)}, d, bk));
        }
        pt.ok = p.run(600'000'000'000ull) && p.a.sq_completed(2) == (g + 1) * 8;
        for (uint32_t k = 0; k < 8 && pt.ok; ++k) {
            pt.ok = p.b.read_va(Node::kVa + 0x80000 + k * kLen, kLen) ==
                    p.a.read_va(Node::kVa + k * kLen, kLen);
        }
    }
    pt.ideal = uint64_t{kMsgs} * (kLen / kPmtu);
    pt.resends = c.retransmits - retx0;
    pt.sent = pt.ideal + pt.resends;
    pt.timeouts = c.ack_timeouts - to0;
    pt.ns = p.a.host.now - t0;
    return pt;
}

}  // namespace

int main() {
    std::printf(
        "| drop | mode | packets sent / delivered | resends | ACK timeouts | virtual ms |"
        " data |\n|---|---|---|---|---|---|---|\n");
    bool all_ok = true;
    for (const uint32_t ppm : {0u, 1000u, 10000u, 50000u}) {
        for (const bool sr : {false, true}) {
            Point sum;
            for (const uint64_t seed : {1, 2, 3}) {
                const Point pt = run(ppm, sr, seed);
                sum.sent += pt.sent;
                sum.ideal += pt.ideal;
                sum.resends += pt.resends;
                sum.timeouts += pt.timeouts;
                sum.ns += pt.ns;
                sum.ok = sum.ok && pt.ok;
            }
            all_ok = all_ok && sum.ok;
            std::printf("| %.1f%% | %s | %.3f | %llu | %llu | %.1f | %s |\n", ppm / 10000.0,
                        sr ? "SR" : "go-back-N",
                        static_cast<double>(sum.sent) / static_cast<double>(sum.ideal),
                        static_cast<unsigned long long>(sum.resends),
                        static_cast<unsigned long long>(sum.timeouts), sum.ns / 3e6,
                        sum.ok ? "intact" : "FAILED");
        }
    }
    return all_ok ? 0 : 1;
}
