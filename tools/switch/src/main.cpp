// SPDX-License-Identifier: MIT
// scenic-switch, the process (docs/cluster.md 3.3, 3.9, 3.11): one UDP socket per port on
// 127.0.0.1 speaking QEMU's dgram netdev format, a single thread sleeping in epoll_wait with
// one timerfd for the departure schedule and the time series, the control socket, signals.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenic/sw/config.hpp"
#include "scenic/sw/core.hpp"
#include "scenic/sw/series.hpp"
#include "scenic/sw/stats.hpp"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

namespace {

using scenic::sw::Options;
using scenic::sw::Switch;

constexpr int kSocketBuffer = 4 << 20;
constexpr size_t kBatch = 64;              // datagrams per recvmmsg / sendmmsg
constexpr size_t kReadBatchesPerWake = 8;  // per port, then the others get their turn
constexpr size_t kRxBuffer = 65536;        // a UDP_GRO read holds up to 64 KiB
constexpr size_t kGsoMaxBytes = 65000;     // one UDP_SEGMENT message, below the UDP limit
constexpr size_t kGsoMaxSegments = 64;
constexpr size_t kMaxClients = 8;
constexpr size_t kMaxLine = 4096;

// An error before READY: one line, exit status 2 (docs/cluster.md 3.11).
class StartError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

uint64_t mono_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

// An owned file descriptor.
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = std::exchange(o.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    void reset() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = -1;
    }
    [[nodiscard]] int get() const { return fd_; }

  private:
    int fd_ = -1;
};

sockaddr_in loopback(uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    return a;
}

void set_buffer(int fd, int force_opt, int opt) {
    int v = kSocketBuffer;
    // SO_*BUFFORCE needs CAP_NET_ADMIN; without it the limit is rmem_max / wmem_max.
    if (setsockopt(fd, SOL_SOCKET, force_opt, &v, sizeof v) != 0) {
        (void)setsockopt(fd, SOL_SOCKET, opt, &v, sizeof v);
    }
}

struct PortSocket {
    Fd fd;
    uint16_t local = 0;
    sockaddr_in peer{};
    uint32_t last_ovfl = 0;
    std::vector<std::vector<uint8_t>> out;  // frames to send at the end of this wake-up
};

PortSocket open_port(unsigned p, uint16_t listen, uint16_t peer) {
    PortSocket s;
    s.fd = Fd(socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (s.fd.get() < 0) {
        throw StartError("port " + std::to_string(p) + ": socket: " + std::strerror(errno));
    }
    set_buffer(s.fd.get(), SO_RCVBUFFORCE, SO_RCVBUF);
    set_buffer(s.fd.get(), SO_SNDBUFFORCE, SO_SNDBUF);
    int one = 1;
    (void)setsockopt(s.fd.get(), SOL_UDP, UDP_GRO, &one, sizeof one);  // optional: older kernels
    (void)setsockopt(s.fd.get(), SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
    const sockaddr_in a = loopback(listen);
    if (bind(s.fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
        throw StartError("--listen: port " + std::to_string(p) + " cannot bind 127.0.0.1:" +
                         std::to_string(listen) + ": " + std::strerror(errno));
    }
    sockaddr_in got{};
    socklen_t len = sizeof got;
    getsockname(s.fd.get(), reinterpret_cast<sockaddr*>(&got), &len);
    s.local = ntohs(got.sin_port);
    s.peer = loopback(peer);
    return s;
}

struct Client {
    Fd fd;
    std::string in;
};

class Process {
  public:
    explicit Process(Options o) : opt_(std::move(o)), origin_(mono_ns()) {}

    void start();
    int run();

  private:
    void add_epoll(int fd, uint64_t tag) const;
    void read_port(unsigned p);
    void flush_port(unsigned p);
    void accept_client();
    void serve_client(int fd);
    std::string command(const std::string& line);
    void arm_timer();
    void finish();

    static constexpr uint64_t kTagTimer = 100;
    static constexpr uint64_t kTagSignal = 101;
    static constexpr uint64_t kTagControl = 102;
    static constexpr uint64_t kTagClient = 1000;  // + fd

    Options opt_;
    uint64_t origin_;
    std::unique_ptr<Switch> sw_;
    std::vector<PortSocket> ports_;
    Fd epoll_;
    Fd timer_;
    Fd signal_;
    Fd control_;
    std::map<int, Client> clients_;
    std::optional<scenic::sw::Series> series_;
    uint64_t next_sample_ = 0;
    std::string json_path_;
    bool stop_ = false;
    // recvmmsg state, reused.
    std::vector<std::array<uint8_t, kRxBuffer>> rx_bufs_ =
        std::vector<std::array<uint8_t, kRxBuffer>>(kBatch);
    std::array<std::array<char, CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(uint32_t))>, kBatch>
        rx_ctl_{};
};

void Process::add_epoll(int fd, uint64_t tag) const {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = tag;
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) {
        throw StartError(std::string("epoll_ctl: ") + std::strerror(errno));
    }
}

void Process::start() {
    sw_ = std::make_unique<Switch>(
        opt_.sw,
        [this](unsigned p, std::span<const uint8_t> f) {
            ports_[p - 1].out.emplace_back(f.begin(), f.end());
        },
        origin_);
    for (unsigned p = 1; p <= opt_.sw.ports.size(); ++p) {
        ports_.push_back(open_port(p, opt_.listen[p - 1], opt_.peer[p - 1]));
    }
    epoll_ = Fd(epoll_create1(EPOLL_CLOEXEC));
    timer_ = Fd(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    signal_ = Fd(signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
    if (epoll_.get() < 0 || timer_.get() < 0 || signal_.get() < 0) {
        throw StartError(std::string("epoll/timerfd/signalfd: ") + std::strerror(errno));
    }
    for (unsigned p = 1; p <= ports_.size(); ++p) {
        add_epoll(ports_[p - 1].fd.get(), p);
    }
    add_epoll(timer_.get(), kTagTimer);
    add_epoll(signal_.get(), kTagSignal);
    if (!opt_.control.empty()) {
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        if (opt_.control.size() >= sizeof a.sun_path) {
            throw StartError("--control=" + opt_.control + ": path too long");
        }
        std::memcpy(a.sun_path, opt_.control.c_str(), opt_.control.size() + 1);
        control_ = Fd(socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        ::unlink(opt_.control.c_str());  // a stale socket of an earlier run
        if (control_.get() < 0 ||
            bind(control_.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 ||
            listen(control_.get(), static_cast<int>(kMaxClients)) != 0) {
            throw StartError("--control=" + opt_.control + ": " + std::strerror(errno));
        }
        add_epoll(control_.get(), kTagControl);
    }
    if (!opt_.series.empty() && opt_.sample_us != 0) {
        series_.emplace(opt_.series, origin_);
        next_sample_ = origin_ + opt_.sample_us * 1000;
    }
    json_path_ = opt_.stats_json;
    if (json_path_.empty() && (!opt_.series.empty() || !opt_.control.empty())) {
        const std::filesystem::path base(opt_.series.empty() ? opt_.control : opt_.series);
        json_path_ = (base.parent_path() / "switch.json").string();
    }
    std::string ready = "SCENIC-SWITCH-READY ports=";
    for (unsigned p = 1; p <= ports_.size(); ++p) {
        ready += (p > 1 ? "," : "") + std::to_string(p) + ":" + std::to_string(ports_[p - 1].local);
    }
    ready += " control=" + (opt_.control.empty() ? std::string("-") : opt_.control);
    std::cout << ready << std::endl;  // the runner waits for this line
}

void Process::read_port(unsigned p) {
    PortSocket& s = ports_[p - 1];
    scenic::sw::PortCounters& cnt = sw_->mutable_counters(p);
    std::array<mmsghdr, kBatch> msgs{};
    std::array<iovec, kBatch> iov{};
    std::array<sockaddr_in, kBatch> from{};
    for (size_t round = 0; round < kReadBatchesPerWake; ++round) {
        for (size_t i = 0; i < kBatch; ++i) {
            iov[i] = {rx_bufs_[i].data(), kRxBuffer};
            msgs[i].msg_hdr = {};
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_name = &from[i];
            msgs[i].msg_hdr.msg_namelen = sizeof from[i];
            msgs[i].msg_hdr.msg_control = rx_ctl_[i].data();
            msgs[i].msg_hdr.msg_controllen = rx_ctl_[i].size();
        }
        const int n = recvmmsg(s.fd.get(), msgs.data(), kBatch, MSG_DONTWAIT, nullptr);
        if (n <= 0) {
            return;  // EAGAIN: drained (errors such as ECONNREFUSED: nothing to read either)
        }
        const uint64_t now = mono_ns();
        for (int i = 0; i < n; ++i) {
            msghdr& h = msgs[static_cast<size_t>(i)].msg_hdr;
            const size_t len = msgs[static_cast<size_t>(i)].msg_len;
            size_t gso = 0;
            for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c)) {
                if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
                    int v = 0;
                    std::memcpy(&v, CMSG_DATA(c), sizeof v);
                    gso = v > 0 ? static_cast<size_t>(v) : 0;
                } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
                    uint32_t v = 0;
                    std::memcpy(&v, CMSG_DATA(c), sizeof v);
                    cnt.host_rx_drops += v - s.last_ovfl;  // the kernel's count is cumulative
                    s.last_ovfl = v;
                }
            }
            const sockaddr_in& a = from[static_cast<size_t>(i)];
            if (h.msg_namelen != sizeof a || a.sin_family != AF_INET ||
                a.sin_addr.s_addr != s.peer.sin_addr.s_addr || a.sin_port != s.peer.sin_port) {
                ++cnt.foreign;
                continue;
            }
            if ((h.msg_flags & MSG_TRUNC) != 0) {
                ++cnt.giant;
                continue;
            }
            const std::span<const uint8_t> data(rx_bufs_[static_cast<size_t>(i)].data(), len);
            if (gso == 0 || gso >= len) {
                sw_->receive(p, data, now);
                continue;
            }
            for (size_t off = 0; off < len; off += gso) {  // a GRO read: equal segments
                sw_->receive(p, data.subspan(off, std::min(gso, len - off)), now);
            }
        }
        if (static_cast<size_t>(n) < kBatch) {
            return;
        }
    }
}

void Process::flush_port(unsigned p) {
    PortSocket& s = ports_[p - 1];
    auto& out = s.out;
    size_t next = 0;
    std::array<mmsghdr, kBatch> msgs{};
    std::vector<iovec> iov(out.size());
    std::array<std::array<char, CMSG_SPACE(sizeof(uint16_t))>, kBatch> ctl{};
    while (next < out.size()) {
        size_t m = 0;
        for (; m < kBatch && next < out.size(); ++m) {
            // A run of equal-size frames (never 0 bytes: QEMU reads that as end of stream).
            const size_t sz = out[next].size();
            size_t run = 1;
            while (next + run < out.size() && out[next + run].size() == sz &&
                   run < kGsoMaxSegments && (run + 1) * sz <= kGsoMaxBytes) {
                ++run;
            }
            for (size_t k = 0; k < run; ++k) {
                iov[next + k] = {out[next + k].data(), sz};
            }
            msghdr& h = msgs[m].msg_hdr;
            h = {};
            h.msg_name = &s.peer;
            h.msg_namelen = sizeof s.peer;
            h.msg_iov = &iov[next];
            h.msg_iovlen = run;
            if (run > 1) {
                h.msg_control = ctl[m].data();
                h.msg_controllen = ctl[m].size();
                cmsghdr* c = CMSG_FIRSTHDR(&h);
                c->cmsg_level = SOL_UDP;
                c->cmsg_type = UDP_SEGMENT;
                c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
                const auto seg = static_cast<uint16_t>(sz);
                std::memcpy(CMSG_DATA(c), &seg, sizeof seg);
            }
            next += run;
        }
        int sent = sendmmsg(s.fd.get(), msgs.data(), static_cast<unsigned>(m), MSG_DONTWAIT);
        if (sent < 0) {
            sent = 0;
        }
        // What the kernel did not take (buffer full, peer gone) is lost, as on a wire.
        for (size_t k = static_cast<size_t>(sent); k < m; ++k) {
            sw_->mutable_counters(p).host_tx_drops += msgs[k].msg_hdr.msg_iovlen;
        }
    }
    out.clear();
}

void Process::accept_client() {
    for (size_t i = 0; i < kMaxClients; ++i) {
        Fd c(accept4(control_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (c.get() < 0) {
            return;
        }
        if (clients_.size() >= kMaxClients) {
            const char busy[] = "error: too many control clients\n";
            (void)send(c.get(), busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            continue;
        }
        const int fd = c.get();
        add_epoll(fd, kTagClient + static_cast<uint64_t>(fd));
        clients_.emplace(fd, Client{std::move(c), {}});
    }
}

void Process::serve_client(int fd) {
    auto it = clients_.find(fd);
    if (it == clients_.end()) {
        return;
    }
    Client& c = it->second;
    std::array<char, 4096> buf{};
    const ssize_t n = recv(fd, buf.data(), buf.size(), MSG_DONTWAIT);
    bool close_it = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
    if (n > 0) {
        c.in.append(buf.data(), static_cast<size_t>(n));
    }
    for (size_t pos; !close_it && (pos = c.in.find('\n')) != std::string::npos;) {
        std::string line = c.in.substr(0, pos);
        c.in.erase(0, pos + 1);
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        const std::string answer = command(line) + "\n";
        if (send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT) !=
            static_cast<ssize_t>(answer.size())) {
            close_it = true;  // a client that does not read its answers is dropped
        }
    }
    if (c.in.size() > kMaxLine) {
        const char big[] = "error: line too long\n";
        (void)send(fd, big, sizeof big - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        close_it = true;
    }
    if (close_it) {
        epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
        clients_.erase(it);
    }
}

std::string Process::command(const std::string& line) {
    const uint64_t now = mono_ns();
    const size_t sp = line.find(' ');
    const std::string verb = line.substr(0, sp);
    const std::string rest = sp == std::string::npos ? "" : line.substr(sp + 1);
    try {
        if (verb == "stats" && rest.empty()) {
            return scenic::sw::stats_json(*sw_, now, origin_).dump();
        }
        if (verb == "reset" && rest.empty()) {
            sw_->reset_counters(now);
            return "ok";
        }
        if (verb == "quit" && rest.empty()) {
            stop_ = true;
            return "ok";
        }
        if (verb == "mark") {
            if (!series_) {
                return "error: no time series (--series, --sample-us)";
            }
            series_->mark(now, rest);
            return "ok";
        }
        if (verb == "set") {
            const size_t sp2 = rest.find(' ');
            const size_t eq = rest.find('=', sp2 == std::string::npos ? 0 : sp2);
            if (sp2 == std::string::npos || eq == std::string::npos) {
                return "error: usage: set N rate=R | ecn=SPEC | pfc=on|off | faults=SPEC";
            }
            const unsigned long n = std::stoul(rest.substr(0, sp2));
            if (n < 1 || n > sw_->ports()) {
                return "error: no port " + rest.substr(0, sp2);
            }
            const auto p = static_cast<unsigned>(n);
            const std::string key = rest.substr(sp2 + 1, eq - sp2 - 1);
            const std::string val = rest.substr(eq + 1);
            if (key == "rate") {
                sw_->set_rate(p, scenic::sw::parse_rate("rate", val));
            } else if (key == "ecn") {
                sw_->set_ecn(p, scenic::sw::parse_ecn("ecn", val));
            } else if (key == "pfc") {
                sw_->set_pfc(p, scenic::sw::parse_on_off("pfc", val), now);
            } else if (key == "faults") {
                sw_->set_faults(p, val);
            } else {
                return "error: unknown key '" + key + "' (rate, ecn, pfc, faults)";
            }
            return "ok";
        }
    } catch (const std::exception& e) {
        return std::string("error: ") + e.what();
    }
    return "error: unknown command (stats, reset, set, mark, quit)";
}

void Process::arm_timer() {
    std::optional<uint64_t> t = sw_->next_deadline_ns();
    if (series_) {
        t = t ? std::min(*t, next_sample_) : next_sample_;
    }
    itimerspec its{};
    if (t) {
        const uint64_t at = std::max<uint64_t>(*t, 1);  // 0 would disarm
        its.it_value.tv_sec = static_cast<time_t>(at / 1'000'000'000);
        its.it_value.tv_nsec = static_cast<long>(at % 1'000'000'000);
    }
    timerfd_settime(timer_.get(), TFD_TIMER_ABSTIME, &its, nullptr);
}

int Process::run() {
    std::array<epoll_event, 64> evs{};
    while (!stop_) {
        arm_timer();
        const int n = epoll_wait(epoll_.get(), evs.data(), static_cast<int>(evs.size()), -1);
        if (n < 0 && errno != EINTR) {
            std::cerr << "scenic-switch: epoll_wait: " << std::strerror(errno) << '\n';
            finish();
            return 1;
        }
        for (int i = 0; i < n; ++i) {
            const uint64_t tag = evs[static_cast<size_t>(i)].data.u64;
            if (tag >= 1 && tag <= ports_.size()) {
                read_port(static_cast<unsigned>(tag));
            } else if (tag == kTagTimer) {
                uint64_t expirations = 0;
                (void)!read(timer_.get(), &expirations, sizeof expirations);
            } else if (tag == kTagSignal) {
                signalfd_siginfo si{};
                (void)!read(signal_.get(), &si, sizeof si);
                stop_ = true;
            } else if (tag == kTagControl) {
                accept_client();
            } else if (tag >= kTagClient) {
                serve_client(static_cast<int>(tag - kTagClient));
            }
        }
        const uint64_t now = mono_ns();
        sw_->advance(now);
        for (unsigned p = 1; p <= ports_.size(); ++p) {
            flush_port(p);
        }
        if (series_ && now >= next_sample_) {
            series_->sample(*sw_, now);
            const uint64_t step = opt_.sample_us * 1000;
            next_sample_ += step;
            if (next_sample_ <= now) {  // far behind (a stopped process): no burst of rows
                next_sample_ = now + step;
            }
        }
    }
    finish();
    return 0;
}

void Process::finish() {
    const uint64_t now = mono_ns();
    if (series_) {
        series_->flush();
    }
    if (!json_path_.empty()) {
        std::ofstream f(json_path_, std::ios::trunc);
        f << scenic::sw::stats_json(*sw_, now, origin_).dump(1) << '\n';
        if (!f) {
            std::cerr << "scenic-switch: " << json_path_ << ": cannot write\n";
        }
    }
    if (!opt_.control.empty()) {
        ::unlink(opt_.control.c_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    const pid_t parent = getppid();
    // Exit with the runner, as its QEMUs do; SIGTERM so that switch.json is still written.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) {
        return 1;  // the parent died before the request took effect
    }
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<std::string_view> args(argv + 1, argv + argc);
    std::unique_ptr<Process> proc;
    try {
        Options o = scenic::sw::parse_options(args);
        if (o.help) {
            std::cout << scenic::sw::usage();
            return 0;
        }
        proc = std::make_unique<Process>(std::move(o));
        proc->start();
    } catch (const std::exception& e) {
        std::cerr << "scenic-switch: " << e.what() << '\n';
        return 2;
    }
    return proc->run();
}
