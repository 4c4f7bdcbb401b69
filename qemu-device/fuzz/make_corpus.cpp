// SPDX-License-Identifier: MIT
// Writes the fuzz harness's seed corpus: op streams (ops.hpp) for the paths a driver and a peer
// take (bring-up, each RDMA operation answered by the peer, receives, timeouts, resets) and for
// known attacks (MSI-X and status pages aimed at the card's own admin doorbell and rings), and
// every admin-queue opcode with its fields.
// Usage: scenic_fuzz_corpus DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "aq_driver.hpp"
#include "ops.hpp"
#include "scenic/regs.hpp"
#include "uapi/scenic_rdma.h"

namespace {

using namespace scenic::fuzz;
namespace rr = scenic::regs::rdma;
namespace rc = scenic::regs::core;
using namespace scenic::test;  // kOp*, kAttr*, kQps*

// Field order must match fuzz_model.cpp's Harness::step().
struct Seed {
    Writer w;
    explicit Seed(uint8_t flags = kFlagPrologue) { w.put<uint8_t>(flags); }

    Seed& mmio_write(uint16_t off, uint64_t v, uint8_t size_sel = 2) {
        w.op(kOpMmioWrite).put(off).put(size_sel).put(v);
        return *this;
    }
    Seed& mmio_read(uint16_t off, uint8_t size_sel = 2) {
        w.op(kOpMmioRead).put(off).put(size_sel);
        return *this;
    }
    // Raw arguments only.
    Seed& command(uint32_t op, const std::vector<uint32_t>& args) {
        w.op(kOpCommand).put(cmd_selector(op)).put(static_cast<uint8_t>(args.size()));
        for (uint32_t a : args) {
            w.put(kArgRaw).put(a);
        }
        return *this;
    }
    // opcode, flags, SGEs (offset in the MR, length), remote offset in the peer's MR.
    Seed& post_send(uint8_t qp, uint8_t opcode, uint8_t flags, std::vector<uint16_t> sge_lens,
                    uint16_t raddr_off = 0, uint8_t ring_mode = 0) {
        w.op(kOpPostSend).put(qp).put(opcode).put(flags).put(static_cast<uint8_t>(sge_lens.size()));
        w.put<uint32_t>(0x11223344);       // imm
        w.put<uint8_t>(0).put(raddr_off);  // rkey and remote address: the peer's
        w.put<uint64_t>(5).put<uint64_t>(7);
        if ((flags & SCENIC_WQE_F_INLINE) != 0) {
            w.put<uint16_t>(64);
        }
        uint16_t off = 0;
        for (uint16_t l : sge_lens) {
            w.put(off).put(l).put<uint8_t>(0);
            off = static_cast<uint16_t>(off + l);
        }
        w.put(ring_mode);
        return *this;
    }
    Seed& post_recv(uint8_t qp, uint16_t len) {
        w.op(kOpPostRecv).put(qp).put<uint8_t>(1).put<uint16_t>(0x2000).put(len).put<uint8_t>(0);
        w.put<uint8_t>(0);
        return *this;
    }
    Seed& scu_write(uint32_t off, uint64_t v, uint8_t size_sel = 3) {
        w.op(kOpScuWrite).put(off).put(size_sel).put(v);
        return *this;
    }
    Seed& scu_read(uint32_t off, uint8_t size_sel = 3) {
        w.op(kOpScuRead).put(off).put(size_sel);
        return *this;
    }
    Seed& timer(uint32_t ns = 0) {
        w.op(kOpTimer).put(ns);
        return *this;
    }
    Seed& reset() {
        w.op(kOpReset);
        return *this;
    }
    Seed& events() {
        w.op(kOpEvents);
        return *this;
    }
    Seed& poll(uint8_t cq, bool arm = true) {
        w.op(kOpPollCq).put(cq).put<uint8_t>(arm);
        return *this;
    }
    Seed& peer(uint8_t action, uint8_t extra = 0) {
        w.op(kOpPeer).put(action);
        if (action % 6 == 1 || action % 6 == 2 || action % 6 == 5) {
            w.put(extra);
        }
        return *this;
    }
    Seed& msix(uint8_t vector, uint8_t target, uint32_t off, uint32_t data) {
        w.op(kOpMsix).put(vector).put(target).put(off).put(data);
        return *this;
    }
    // A frame from the peer: rc_opcodes() index, flags (bit 0: QP 3, 2: SE, 4: AckReq),
    // PSN delta; header fields as fuzz_model.cpp reads them, with a valid rkey and VA.
    Seed& frame(uint8_t opcode_index, uint8_t flags, int16_t dpsn, bool reth, bool atomic,
                bool aeth, bool atomic_ack, bool imm, bool ieth, bool tail, uint16_t plen,
                uint32_t dma_len = 0) {
        w.op(kOpFrame).put(opcode_index).put(flags).put(dpsn);
        if (reth) {
            w.put<uint8_t>(0).put<uint16_t>(0x100).put(dma_len);
        }
        if (atomic) {
            w.put<uint8_t>(0).put<uint16_t>(0x200).put<uint64_t>(1).put<uint64_t>(0);
        }
        if (aeth) {
            w.put<uint8_t>(0x1f).put<uint32_t>(1);
        }
        if (atomic_ack) {
            w.put<uint64_t>(42);
        }
        if (imm) {
            w.put<uint32_t>(0xdeadbeef);
        }
        if (ieth) {
            w.put<uint8_t>(0);
        }
        if (tail) {
            w.put(plen);
        }
        w.put<uint8_t>(0);  // not spoofed, not damaged
        return *this;
    }
    Seed& raw(uint8_t kind) {
        w.op(static_cast<Op>(kind));
        return *this;
    }
};

// rc_opcodes() indices: the table follows the Opcode enum (fuzz_model.cpp picks by index).
enum : uint8_t {
    kSendFirst,
    kSendMiddle,
    kSendLast,
    kSendLastImm,
    kSendOnly,
    kSendOnlyImm,
    kWriteFirst,
    kWriteMiddle,
    kWriteLast,
    kWriteLastImm,
    kWriteOnly,
    kWriteOnlyImm,
    kReadRequest,
    kReadRespFirst,
    kReadRespMiddle,
    kReadRespLast,
    kReadRespOnly,
    kAck,
    kAtomicAck,
    kCmpSwap,
    kFetchAdd,
    kSendLastInv,
    kSendOnlyInv,
};

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds() {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    auto add = [&](const char* name, Seed& s) { out.emplace_back(name, s.w.out); };
    const uint16_t rdma = rr::kOffset;

    Seed bringup;
    add("bringup", bringup);

    Seed bringup_nodbrec(kFlagPrologue | kFlagNoDbrec);
    bringup_nodbrec.post_send(0, SCENIC_WQE_OP_WRITE, 1, {64}).peer(0).events().poll(0);
    add("write-nodbrec", bringup_nodbrec);

    for (uint8_t op = SCENIC_WQE_OP_SEND; op <= SCENIC_WQE_OP_ATOMIC_FAA; ++op) {
        Seed s;
        const uint16_t len = op >= SCENIC_WQE_OP_ATOMIC_CAS ? 8 : 3000;
        s.post_send(0, op, 1, {len}).events();
        for (int k = 0; k < 4; ++k) {
            s.peer(0);
        }
        s.events().poll(0).poll(1);
        add(("op" + std::to_string(op)).c_str(), s);
    }

    Seed multi;
    multi.post_send(0, SCENIC_WQE_OP_WRITE, 1, {100, 200, 300, 4000});
    multi.post_send(0, SCENIC_WQE_OP_SEND, SCENIC_WQE_F_INLINE | 1, {});
    multi.post_send(1, SCENIC_WQE_OP_READ, SCENIC_WQE_F_FENCE, {512});
    for (int k = 0; k < 8; ++k) {
        multi.peer(0);
    }
    multi.events().poll(0);
    add("multi-sge", multi);

    Seed naks;
    naks.post_send(0, SCENIC_WQE_OP_WRITE, 1, {2048});
    naks.peer(1, 0).peer(2, 3).peer(5, 0xff).peer(3).timer().timer().events().poll(0);
    add("naks", naks);

    Seed timeout;
    timeout.post_send(0, SCENIC_WQE_OP_SEND, 1, {16}).peer(4);
    for (int k = 0; k < 10; ++k) {
        timeout.timer().peer(4);
    }
    timeout.events().poll(0);
    add("ack-timeout", timeout);

    Seed recv;
    recv.post_recv(0, 4096).post_recv(0, 64);
    recv.frame(kSendOnly, 4, 0, false, false, false, false, false, false, true, 100);
    recv.frame(kSendFirst, 0, 1, false, false, false, false, false, false, false, 0);
    recv.frame(kSendLastImm, 6, 2, false, false, false, false, true, false, true, 10);
    recv.frame(kSendOnly, 4, 3, false, false, false, false, false, false, true, 100);  // RNR
    recv.events().poll(1);
    add("recv", recv);

    Seed responder;
    responder.frame(kWriteOnly, 4, 0, true, false, false, false, false, false, true, 64, 64);
    responder.frame(kWriteFirst, 0, 1, true, false, false, false, false, false, false, 0, 2048);
    responder.frame(kWriteLast, 4, 2, false, false, false, false, false, false, true, 1024);
    responder.frame(kReadRequest, 0, 3, true, false, false, false, false, false, false, 0, 3000);
    responder.frame(kCmpSwap, 0, 4, false, true, false, false, false, false, false, 0);
    responder.frame(kFetchAdd, 0, 5, false, true, false, false, false, false, false, 0);
    responder.frame(kReadRequest, 0, 3, true, false, false, false, false, false, false, 0, 3000);
    responder.frame(kWriteOnlyImm, 4, 6, true, false, false, false, true, false, true, 8, 8);
    responder.events().poll(1).timer();
    add("responder", responder);

    Seed completer;
    completer.post_send(0, SCENIC_WQE_OP_READ, 1, {1500});
    completer.frame(kReadRespFirst, 0, 0, false, false, true, false, false, false, false, 0);
    completer.frame(kReadRespLast, 0, 1, false, false, true, false, false, false, true, 476);
    completer.frame(kAck, 0, 1, false, false, true, false, false, false, false, 0);
    completer.frame(kAtomicAck, 0, 2, false, false, true, true, false, false, false, 0);
    completer.events().poll(0);
    add("completer", completer);

    // MSI-X vectors aimed at the card's own admin doorbells, its SQ ring and its doorbells, then
    // work that interrupts.
    Seed msix;
    msix.msix(0, 1, rc::kOffset + rc::kAqSqTail, 3);
    msix.msix(1, 1, rc::kOffset + rc::kAqCqHead, 1);
    msix.msix(2, 2, 2 * 4096, 5);
    msix.msix(3, 3, 0x20000 + 2 * 128, 0x0119'0001);  // an SQ slot: id, opcode MODIFY_QP, phase
    msix.msix(4, 1, rc::kOffset + rc::kAeqHead, 0x40);
    msix.post_recv(0, 64).poll(1, true).poll(0, true);
    msix.frame(kSendOnly, 4, 0, false, false, false, false, false, false, true, 10);
    msix.post_send(0, SCENIC_WQE_OP_SEND, 1, {16}).peer(0).timer().timer().events();
    add("msix-self", msix);

    // A QP whose status page is the admin doorbell (issue 15, defect 1): the card's own state
    // writes would ring its SQ.
    Seed status;
    const uint64_t aq_db = 0xfe00'0000ull + rc::kOffset + rc::kAqSqTail;
    status.command(kOpCreateQp, {4, 0x30000, 1, 4, 0x34000, 1, 4, 0, 1, 7, 0,
                                 static_cast<uint32_t>(aq_db - 8), 0, 0, 0});
    status.command(kOpModifyQp, {4, kAttrState, kQpsInit});
    status.command(kOpModifyQp, {4, kAttrState, kQpsErr});
    status.post_send(0, SCENIC_WQE_OP_WRITE, 1, {16}).timer().timer().timer().events();
    add("status-on-mailbox", status);

    // The same from the prologue, on a connected QP: its ACK timeout runs from the timer.
    Seed status_rts(kFlagPrologue | kFlagHostileStatus);
    status_rts.post_send(1, SCENIC_WQE_OP_WRITE, 1, {16}).peer(4);
    for (int k = 0; k < 9; ++k) {
        status_rts.timer();
    }
    status_rts.events();
    add("status-on-mailbox-rts", status_rts);

    Seed resets;
    resets.post_send(0, SCENIC_WQE_OP_WRITE, 1, {4096}).reset().post_send(0, 2, 1, {8});
    resets.peer(0).timer().events().poll(0);
    add("reset-midflight", resets);

    Seed backward;
    backward.post_send(0, SCENIC_WQE_OP_WRITE, 1, {64}, 0, 0xfe);
    backward.w.put<uint32_t>(0xfffffff0u);
    backward.command(kOpModifyQp, {2, kAttrState, kQpsErr});
    backward.events().poll(0);
    add("backward-doorbell", backward);

    Seed sweep(0);
    for (uint16_t off = 0; off < 0x4000; off += 0x1d4) {
        sweep.mmio_read(off, static_cast<uint8_t>(off & 3)).mmio_write(off, 0xffffffffffffffff, 3);
    }
    add("mmio-sweep", sweep);

    Seed raw_cmds(0);
    raw_cmds.mmio_write(rdma + rr::kCtrl, 1);
    raw_cmds.command(kOpCreateCq, {5, 0x1000, 1, 3, 0, 0});
    raw_cmds.command(kOpRegMr, {0x15a, 7, 0, 0, 0xffffffff, 0xffffffff, 15});
    raw_cmds.command(kOpTlbFillPages, {0x15a, 0, 0, 512, 0x1000, 1});
    raw_cmds.command(kOpDeregMr, {0x15a});
    raw_cmds.command(kOpDestroyCq, {5});
    add("raw-commands", raw_cmds);

    // Every admin opcode (and unknown ones) once on a brought-up card, with plausible fields.
    Seed every;
    every.command(static_cast<uint32_t>(scenic::admin::AqOpcode::kNop), {});
    every.command(kOpCreateCq, {6, 0x0, 1, 4, 0, 0});
    every.command(kOpQueryCq, {6});
    every.command(kOpCreateQp, {5, 0x0, 1, 4, 0x2000, 1, 4, 6, 6, 7, 0, 0x7000, 1, 0, 0});
    every.command(kOpModifyQp, {5, kAttrState, kQpsInit});
    every.command(kOpQueryQp, {5});
    every.command(kOpQueryQpCc, {2});
    every.command(kOpDestroyQp, {5});
    every.command(kOpDestroyCq, {6});
    every.command(kOpRegMr, {0x25a, 7, 0, 0x10, 0x2000, 0, 15});
    every.command(kOpTlbFill, {0x25a, 0, 0x10, 0x10000, 1});
    every.command(kOpTlbFillPages, {0x25a, 0, 0x10, 2, 0x30000, 1});
    every.command(kOpDeregMr, {0x25a});
    for (uint32_t op : {0x00u, 0x13u, 0x7fu, 0xf0u, 0xffu}) {
        every.command(op, {1, 2, 3});
    }
    every.events();
    add("every-opcode", every);

    // Raw admin input: SQ entries with the input's own id and phase, doorbells past the ring,
    // the CQ head moved backwards, rings re-created smaller, and the AQ disabled and enabled.
    Seed raw_aq;
    std::vector<uint8_t> e(128, 0);
    e[2] = static_cast<uint8_t>(scenic::admin::AqOpcode::kQueryQp);
    e[3] = 1;
    e[8] = 2;
    raw_aq.raw(kOpSqeRaw);
    raw_aq.w.put<uint8_t>(1).bytes(e);
    raw_aq.raw(kOpSqeRaw);
    raw_aq.w.put<uint8_t>(0).bytes(e);
    raw_aq.raw(kOpAqReg);
    raw_aq.w.put<uint8_t>(0).put<uint32_t>(0x1234);  // AQ_SQ_TAIL far ahead
    raw_aq.timer().timer();
    raw_aq.raw(kOpAqReg);
    raw_aq.w.put<uint8_t>(1).put<uint32_t>(0);  // AQ_CQ_HEAD backwards
    raw_aq.raw(kOpAqReg);
    raw_aq.w.put<uint8_t>(2).put<uint32_t>(0);  // AQ_CFG: disabled
    raw_aq.raw(kOpAqSetup);
    raw_aq.w.put<uint8_t>(0x49);
    raw_aq.command(kOpQueryQp, {2});
    raw_aq.raw(kOpAqReg);
    raw_aq.w.put<uint8_t>(7).put<uint32_t>(0x80000000u);  // AEQ_CFG: enabled, depth 1
    raw_aq.raw(kOpAqReg);
    raw_aq.w.put<uint8_t>(11).put<uint32_t>(0);  // CEQ_CFG: disabled
    raw_aq.post_send(0, SCENIC_WQE_OP_WRITE, 1, {64}).peer(0).events().poll(0, true);
    raw_aq.reset().command(kOpQueryQp, {2}).events();
    add("raw-admin", raw_aq);

    // A send that misses in the TLB (the second SGE is on a page the prologue left unfilled),
    // then the driver re-creates its rings: it must find the miss on the new AEQ and fill it,
    // and the card must go idle.
    Seed recreate;
    recreate.post_send(0, SCENIC_WQE_OP_WRITE, 1, {4096, 64}).timer();
    recreate.raw(kOpAqSetup);
    recreate.w.put<uint8_t>(0x35);  // AQ 32 entries, AEQ 64
    add("recreate-after-miss", recreate);

    // A send that misses in the TLB, then a raw SQ entry with a stale phase halts the AQ
    // (STALE_PHASE, CARD_FATAL AQ_PROTOCOL): the card keeps raising the miss, no TLB_FILL can
    // complete, and the driver must recover the card (the timeout finding in docs/fuzzing.md).
    Seed halt;
    halt.post_send(0, SCENIC_WQE_OP_WRITE, 1, {4096, 64}).timer();
    std::vector<uint8_t> stale(128, 0);
    stale[2] = static_cast<uint8_t>(scenic::admin::AqOpcode::kNop);  // phase 0: stale
    halt.raw(kOpSqeRaw);
    halt.w.put<uint8_t>(1).bytes(stale);
    add("halt-after-miss", halt);

    // The SCU platform: BAR3 windows (slot 0, a loaded-state slot, past the BAR), the per-slot
    // interrupt registers, and the status-page commands, one page over the card's own BAR0.
    namespace su = scenic::regs::scu;
    using scenic::admin::AqOpcode;
    const auto scu_op = [](AqOpcode o) { return static_cast<uint32_t>(o); };
    constexpr uint32_t page = 0x3e000;        // low half of guest RAM + 0x3e000 (RAM at 4 GiB)
    constexpr uint32_t kBar0Lo = 0xfe000000;  // fake_qemu.hpp's BAR0
    Seed scu;
    scu.scu_write(3 * 0x10000 + 8, 0x1234).scu_read(3 * 0x10000 + 8).scu_read(0, 2);
    scu.mmio_write(static_cast<uint16_t>(su::kOffset + su::kSlotIrqMask + 3 * 0x10), 0x2);
    scu.scu_write(3 * 0x10000 + 7 * 8, 0x3).scu_read(0x100000 + 8);
    scu.mmio_read(static_cast<uint16_t>(su::kOffset + su::kSlotIrqStatus + 3 * 0x10));
    scu.mmio_write(static_cast<uint16_t>(su::kOffset + su::kSlotIrqStatus + 3 * 0x10), 0x1);
    scu.command(scu_op(AqOpcode::kScuSetStatusPage), {3, 0, page, 1});
    scu.command(scu_op(AqOpcode::kScuQueryCaps), {0, 0, page + 0x1000, 1});
    scu.command(scu_op(AqOpcode::kScuSetStatusPage), {4, 0, kBar0Lo, 0});
    scu.command(scu_op(AqOpcode::kScuFlushStats), {3}).command(scu_op(AqOpcode::kScuReset), {3});
    scu.timer(1'000'000).events().reset().scu_read(3 * 0x10000);
    add("scu", scu);

    // Steering: a UDP rule into slot 3 (words as the entry's bytes from 0x08: flags, priority |
    // ethertype, ethertype_mask | proto | proto_mask, src port, dst port | mask, .., slot in
    // word 22), a frame it matches and one it does not, a bad rule, then the rule deleted.
    std::vector<uint32_t> rule(23, 0);
    rule[0] = 1;
    rule[2] = 17U << 16 | 0xffU << 24;
    rule[4] = 5000U | 0xffffU << 16;
    rule[22] = 3;
    std::vector<uint8_t> udp(128, 0);
    udp[12] = 0x08;
    udp[14] = 0x45;
    udp[23] = 17;
    udp[36] = 5000 >> 8;
    udp[37] = 5000 & 0xff;
    Seed steer;
    steer.command(scu_op(AqOpcode::kScuSteerAdd), rule);
    for (int i = 0; i < 2; ++i) {
        steer.raw(kOpRawFrame);
        steer.w.put<uint16_t>(static_cast<uint16_t>(udp.size())).bytes(udp);
        udp[37] ^= 1;
    }
    rule[0] = 0;  // no direction: bad rule
    steer.command(scu_op(AqOpcode::kScuSteerAdd), rule);
    steer.command(scu_op(AqOpcode::kScuSteerDel), {3, 0})
        .command(scu_op(AqOpcode::kScuUnload), {3});
    steer.timer(0).events();
    add("scu-steer", steer);

    // ETH TX: a plain frame, a CSUM packet in two data entries, a TSO packet over the IPv4
    // template, then a run over TX_MAX_FRAGS (docs/eth-offloads.md 1.1).
    Seed ethtx;
    ethtx.raw(kOpEthTx);
    ethtx.w.put<uint8_t>(0).put<uint8_t>(0).put<uint16_t>(0).put<uint16_t>(60);
    ethtx.raw(kOpEthTx);
    ethtx.w.put<uint8_t>(2).put<uint8_t>(0x40).put<uint16_t>(0).put<uint8_t>(1);
    ethtx.w.put<uint8_t>(0).put<uint16_t>(0).put<uint16_t>(54);
    ethtx.w.put<uint8_t>(0).put<uint16_t>(54).put<uint16_t>(400);
    ethtx.raw(kOpEthTx);
    ethtx.w.put<uint8_t>(1).put<uint8_t>(0x40).put<uint16_t>(1448).put<uint8_t>(2);
    ethtx.w.put<uint8_t>(0x20).put<uint16_t>(0).put<uint32_t>(4014);
    ethtx.raw(kOpEthTx);
    ethtx.w.put<uint8_t>(39);
    for (int i = 0; i < 40; ++i) {
        ethtx.w.put<uint8_t>(0).put<uint16_t>(static_cast<uint16_t>(i * 64)).put<uint16_t>(64);
    }
    ethtx.timer(0);
    add("eth-tx", ethtx);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir(argv[1]);
    std::filesystem::create_directories(dir);
    for (const auto& [name, bytes] : seeds()) {
        std::ofstream f(dir / name, std::ios::binary | std::ios::trunc);
        f.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
        if (!f) {
            std::fprintf(stderr, "%s: cannot write %s\n", argv[0], name.c_str());
            return 1;
        }
    }
    std::printf("%zu seeds in %s\n", seeds().size(), dir.c_str());
    return 0;
}
