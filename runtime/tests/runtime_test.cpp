// SPDX-License-Identifier: MIT
// libscenic-runtime on the fake card: Code 1's calls, ownership, loads and refusals, CSRs,
// completions, interrupts and their timeout.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "scenic/fake_card.hpp"
#include "scenic/scenic.hpp"
#include "test_util.hpp"
#include "uapi/scenic_scu.h"

namespace scenic {
namespace {

using namespace std::chrono_literals;
using testing::FakeCard;

class Runtime : public ::testing::Test {
  protected:
    std::shared_ptr<FakeCard> card = std::make_shared<FakeCard>(4);
    test::TempDir dir;

    std::string write_image(const std::vector<uint8_t>& img, const std::string& name = "a.scuimg") {
        const std::string p = dir.file(name);
        write_file(p, img);
        return p;
    }
};

int errno_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ScenicError& e) {
        return e.errno_value();
    }
    return 0;
}

TEST_F(Runtime, Code1) {
    const std::string path = write_image(test::image(1, 1, "passthrough"));
    const ReconfigResult r = ScenicReconfig(0, card).reconfigure_app(2, path);
    EXPECT_EQ(r.pause, 8ms);
    EXPECT_FALSE(card->owned(2));  // ScenicReconfig is the owner for the call only
    ScenicThread t(2, 0, card);
    EXPECT_TRUE(card->owned(2));
    EXPECT_TRUE(t.csr_mapped());
    t.set_csr(0x9f3c7a2b6e41d8c5ULL, 0);
    EXPECT_EQ(card->csr(2, 0), 0x9f3c7a2b6e41d8c5ULL);  // reached the card's window
    EXPECT_EQ(t.get_csr(0), 0x9f3c7a2b6e41d8c5ULL);
    card->set_completed(2, "remote_write", 42);
    EXPECT_EQ(t.get_completed("remote_write"), 42u);
    EXPECT_EQ(t.get_completed("local_read"), 0u);
}

TEST_F(Runtime, InfoAfterLoadAndUnload) {
    ScenicReconfig r(0, card);
    const auto img = test::image(1, 1, "mypass");
    r.reconfigure_image(1, img);
    SlotInfo i = r.info(1);
    EXPECT_EQ(i.name, "mypass");
    EXPECT_EQ(i.kind, 1u);
    EXPECT_EQ(i.build_id, 0x1122334455667788ULL);
    EXPECT_EQ(i.image_sha256, check_image(img).header.payload_sha256);
    EXPECT_EQ(i.loads, 1u);
    EXPECT_EQ(state_name(i.state), "RUNNING");
    r.unload(1);
    i = r.info(1);
    EXPECT_EQ(i.name, "passthrough");
    EXPECT_EQ(i.loads, 2u);
    const auto all = r.slots();
    ASSERT_EQ(all.size(), 4u);
    EXPECT_TRUE(all[0].fixed);
    EXPECT_EQ(all[3].slot, 3u);
}

TEST_F(Runtime, BadImageIsRefusedWithItsStatusAndTheOldScuStays) {
    ScenicReconfig r(0, card);
    r.reconfigure_image(1, test::image(1, 1, "first"));
    auto bad = test::image(1, 1, "second");
    bad[400] ^= 1;  // payload: hash mismatch
    try {
        r.reconfigure_image(1, bad);
        FAIL() << "a corrupted image was loaded";
    } catch (const ScenicError& e) {
        EXPECT_EQ(e.errno_value(), ENOEXEC);
        EXPECT_EQ(e.load_status(), LoadStatus::kHashMismatch);
        EXPECT_EQ(e.status_name(), "HASH_MISMATCH");
        EXPECT_NE(std::string(e.what()).find("SHA-256"), std::string::npos) << e.what();
    }
    EXPECT_EQ(r.info(1).name, "first");
    try {
        r.reconfigure_image(1, test::image(77, 1, "nokind"));
        FAIL();
    } catch (const ScenicError& e) {
        EXPECT_EQ(e.load_status(), LoadStatus::kUnknownKind);
    }
    EXPECT_EQ(r.info(1).name, "first");
}

TEST_F(Runtime, DryRunChangesNothing) {
    ScenicReconfig r(0, card);
    ReconfigOptions o;
    o.dry_run = true;
    r.reconfigure_image(1, test::image(1, 1, "dry"), o);
    EXPECT_EQ(r.info(1).name, "passthrough");
    EXPECT_EQ(r.info(1).loads, 0u);
}

TEST_F(Runtime, OwnershipIsExclusiveAcrossProcessesAndSharedInside) {
    ScenicThread t(2, 0, card);
    // Another process (here: a second open that does not go through this process's registry).
    int err = 0;
    EXPECT_EQ(card->open_slot(0, 2, true, &err), nullptr);
    EXPECT_EQ(err, EBUSY);
    // In this process, ScenicReconfig reuses the thread's fd: no EBUSY.
    ScenicReconfig(0, card).reconfigure_image(2, test::image(1, 1, "under-thread"));
    EXPECT_EQ(t.info().name, "under-thread");
    EXPECT_TRUE(t.info().owner_is_me);
    // A second ScenicThread of the slot shares the one fd.
    ScenicThread t2(2, 0, card);
    t2.set_csr(5, 1);
    EXPECT_EQ(t.get_csr(1), 5u);
}

TEST_F(Runtime, BusySlotIsEbusyAndSlotZeroIsEperm) {
    int err = 0;
    auto other = card->open_slot(0, 3, true, &err);  // another process owns slot 3
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(errno_of([&] { ScenicThread t(3, 0, card); }), EBUSY);
    EXPECT_EQ(errno_of([&] { ScenicReconfig(0, card).unload(3); }), EBUSY);
    EXPECT_EQ(errno_of([&] { ScenicThread t(0, 0, card); }), EPERM);
    EXPECT_EQ(errno_of([&] { ScenicThread t(9, 0, card); }), ENOENT);
    other.reset();
    EXPECT_NO_THROW(ScenicThread t(3, 0, card));
}

TEST_F(Runtime, ObserversReadButDoNotControl) {
    int err = 0;
    auto other = card->open_slot(0, 2, true, &err);  // another process owns slot 2
    ASSERT_NE(other, nullptr);
    const SlotInfo i = ScenicReconfig(0, card).info(2);  // an O_RDONLY open
    EXPECT_TRUE(i.owned);
    EXPECT_FALSE(i.owner_is_me);
    EXPECT_EQ(ScenicReconfig(0, card).counters(2).at("loads"), 0u);
    auto observer = card->open_slot(0, 2, false, &err);
    scenic_scu_csr c{};
    c.size = sizeof(c);
    EXPECT_EQ(observer->ioctl(SCENIC_SCU_IOC_CSR, &c), -EBADF);
    EXPECT_EQ(err, 0);
}

TEST_F(Runtime, ClosingTheThreadReleasesEverything) {
    {
        ScenicThread t(1, 0, card);
        t.irq_fd(0);
        EXPECT_EQ(card->open_files(), 1u);
        EXPECT_EQ(card->mappings(), 2u);
        EXPECT_GE(card->eventfd_of(1, 0), 0);
    }
    EXPECT_EQ(card->open_files(), 0u);
    EXPECT_EQ(card->mappings(), 0u);
    EXPECT_FALSE(card->owned(1));
    EXPECT_EQ(card->eventfd_of(1, 0), -1);
}

TEST_F(Runtime, MoveAssignmentReleasesTheOldSlot) {
    ScenicThread a(1, 0, card);
    a.irq_fd(0);
    ScenicThread b(2, 0, card);
    a = std::move(b);
    EXPECT_FALSE(card->owned(1));  // a's slot 1 was released, with its eventfd
    EXPECT_EQ(card->eventfd_of(1, 0), -1);
    EXPECT_TRUE(card->owned(2));
    EXPECT_EQ(a.slot(), 2u);
    a.set_csr(3, 1);
    EXPECT_EQ(card->csr(2, 1), 3u);
}

TEST_F(Runtime, CsrIndexOutsideTheWindowIsRefused) {
    ScenicThread t(1, 0, card);
    EXPECT_EQ(errno_of([&] { t.set_csr(1, 8192); }), EINVAL);
    EXPECT_EQ(errno_of([&] { t.get_csr(0xffffffffu); }), EINVAL);
    EXPECT_NO_THROW(t.set_csr(1, 8191));
}

TEST_F(Runtime, CsrIoctlWhenTheMappingIsRefused) {
    card->refuse_mmap(true);
    ScenicThread t(1, 0, card);
    EXPECT_FALSE(t.csr_mapped());
    t.set_csr(0xabcdef, 7);
    EXPECT_EQ(card->csr(1, 7), 0xabcdefu);
    EXPECT_EQ(t.get_csr(7), 0xabcdefu);
    card->set_completed(1, "recv_send", 9);
    EXPECT_EQ(t.get_completed("recv_send"), 9u);  // COUNTERS instead of the status page
}

TEST_F(Runtime, UnknownCompletionNameIsEinval) {
    ScenicThread t(1, 0, card);
    try {
        (void)t.get_completed("remote_writes");
        FAIL();
    } catch (const ScenicError& e) {
        EXPECT_EQ(e.errno_value(), EINVAL);
        EXPECT_NE(std::string(e.what()).find("remote_write,"), std::string::npos);
    }
}

TEST_F(Runtime, WaitIrqTimesOut) {
    ScenicThread t(1, 0, card);
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(t.wait_irq(30ms), 0u);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 30ms);
    EXPECT_EQ(errno_of([&] { t.wait_irq(-1ms); }), EINVAL);
}

TEST_F(Runtime, WaitIrqReturnsThePendingLines) {
    ScenicThread t(1, 0, card);
    std::thread raiser([this] {
        std::this_thread::sleep_for(20ms);
        card->raise_irq(1, 0b0101);
    });
    const unsigned lines = t.wait_irq(2000ms);
    raiser.join();
    EXPECT_EQ(lines, 0b0101u);
    EXPECT_EQ(t.wait_irq(0ms), 0u);  // read cleared them
}

TEST_F(Runtime, InterruptsReachOnlyTheOwnerSlot) {
    ScenicThread t1(1, 0, card);
    ScenicThread t2(2, 0, card);
    card->raise_irq(2, 1);
    EXPECT_EQ(t1.wait_irq(0ms), 0u);
    EXPECT_EQ(t2.wait_irq(0ms), 1u);
}

TEST_F(Runtime, IrqFdIsSignalled) {
    ScenicThread t(1, 0, card);
    const int fd = t.irq_fd(2);
    EXPECT_EQ(t.irq_fd(2), fd);  // one per line
    pollfd p{fd, POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 0), 0);
    card->raise_irq(1, 1u << 2);
    EXPECT_EQ(::poll(&p, 1, 0), 1);
    uint64_t n = 0;
    EXPECT_EQ(::read(fd, &n, sizeof(n)), 8);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(errno_of([&] { t.irq_fd(4); }), EINVAL);  // lines 0..3
}

TEST_F(Runtime, CountersByName) {
    card->set_traffic(1, "rx_pkts_in", 11);
    card->set_completed(1, "remote_read", 3);
    const Counters c = ScenicReconfig(0, card).counters(1);
    ASSERT_EQ(c.values.size(), 27u);
    EXPECT_EQ(c.values.front().first, "remote_write");
    EXPECT_EQ(c.values.back().first, "loads");
    EXPECT_EQ(c.at("rx_pkts_in"), 11u);
    EXPECT_EQ(c.at("remote_read"), 3u);
    EXPECT_EQ(errno_of([&] { (void)c.at("nope"); }), EINVAL);
}

TEST_F(Runtime, PolicyAndCsrIoctl) {
    ScenicReconfig r(0, card);
    r.set_policy(1, 2);
    EXPECT_EQ(qp_policy_name(r.info(1).qp_policy), "any");
    EXPECT_EQ(errno_of([&] { r.set_policy(1, 7); }), EINVAL);
    r.write_csr(1, 3, 99);
    EXPECT_EQ(r.read_csr(1, 3), 99u);
    EXPECT_EQ(qp_policy_from_name("bound-pd"), 1);
    EXPECT_EQ(qp_policy_from_name("x"), -1);
}

TEST_F(Runtime, MissingImageFileIsEnoent) {
    EXPECT_EQ(errno_of([&] { ScenicReconfig(0, card).reconfigure_app(1, dir.file("none")); }),
              ENOENT);
}

TEST_F(Runtime, NoRdmaDeviceIsEnodevNotACrash) {
    ScenicThread t(1, 0, card);
    // The host has no scenic_0: the verbs side says so (code1.py in the guest uses the card).
    const int e = errno_of([&] { (void)t.pd(); });
    EXPECT_EQ(e, ENODEV);
}

}  // namespace
}  // namespace scenic
