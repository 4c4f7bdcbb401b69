// SPDX-License-Identifier: MIT
// import scenic: a thin pybind11 wrapper of libscenic-runtime with the same names (docs/scu.md 7).
// ScenicError becomes scenic.ScenicError, an OSError with errno, status and reason; reg() takes
// any writable buffer-protocol object (a NumPy array without a copy) and keeps it alive.
#include <infiniband/verbs.h>
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <memory>

#include "scenic/fake_card.hpp"
#include "scenic/scenic.hpp"

namespace py = pybind11;

namespace {

PyObject* g_error = nullptr;  // scenic.ScenicError, created once at import

void raise_scenic_error(const scenic::ScenicError& e) {
    py::object cls = py::reinterpret_borrow<py::object>(g_error);
    py::object inst = cls(e.errno_value(), e.what());
    inst.attr("status") = static_cast<uint32_t>(e.load_status());
    inst.attr("status_name") = e.status_name();
    inst.attr("reason") = e.reason();
    PyErr_SetObject(g_error, inst.ptr());
}

py::dict counters_dict(const scenic::Counters& c) {
    py::dict d;
    for (const auto& [n, v] : c.values) {
        d[py::str(std::string(n))] = v;
    }
    return d;
}

constexpr int kDefaultAccess =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

// A registration of Python-owned memory: the object stays alive as long as the MR.
struct PyMemoryRegion {
    py::buffer owner;
    scenic::MemoryRegion mr;
};

}  // namespace

PYBIND11_MODULE(scenic, m) {
    m.doc() = "SCENIC SmartNIC SCU runtime (libscenic-runtime): ScenicReconfig, ScenicThread";
    g_error = PyErr_NewExceptionWithDoc(
        "scenic.ScenicError", "An SCU operation failed: errno, status (load status), reason.",
        PyExc_OSError, nullptr);
    m.attr("ScenicError") = py::handle(g_error);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) {
                std::rethrow_exception(p);
            }
        } catch (const scenic::ScenicError& e) {
            raise_scenic_error(e);
        }
    });
    m.attr("ACCESS_LOCAL_WRITE") = static_cast<int>(IBV_ACCESS_LOCAL_WRITE);
    m.attr("ACCESS_REMOTE_WRITE") = static_cast<int>(IBV_ACCESS_REMOTE_WRITE);
    m.attr("ACCESS_REMOTE_READ") = static_cast<int>(IBV_ACCESS_REMOTE_READ);
    m.attr("COMPLETIONS") = py::cast(std::vector<std::string>(scenic::completion_names().begin(),
                                                              scenic::completion_names().end()));

    py::class_<scenic::ReconfigResult>(m, "ReconfigResult")
        .def_property_readonly("pause_ns",
                               [](const scenic::ReconfigResult& r) { return r.pause.count(); })
        .def_property_readonly("total_ns",
                               [](const scenic::ReconfigResult& r) { return r.total.count(); })
        .def_property_readonly("wall_ns",
                               [](const scenic::ReconfigResult& r) { return r.wall.count(); })
        .def("__repr__", [](const scenic::ReconfigResult& r) {
            return "ReconfigResult(pause_ns=" + std::to_string(r.pause.count()) +
                   ", total_ns=" + std::to_string(r.total.count()) + ")";
        });

    py::class_<scenic::SlotInfo>(m, "SlotInfo")
        .def_readonly("card", &scenic::SlotInfo::card)
        .def_readonly("slot", &scenic::SlotInfo::slot)
        .def_readonly("num_slots", &scenic::SlotInfo::num_slots)
        .def_readonly("irq_lines", &scenic::SlotInfo::irq_lines)
        .def_property_readonly(
            "state", [](const scenic::SlotInfo& s) { return scenic::state_name(s.state); })
        .def_readonly("owned", &scenic::SlotInfo::owned)
        .def_readonly("fixed", &scenic::SlotInfo::fixed)
        .def_readonly("pd_bound", &scenic::SlotInfo::pd_bound)
        .def_readonly("kind", &scenic::SlotInfo::kind)
        .def_readonly("kind_version", &scenic::SlotInfo::kind_version)
        .def_readonly("build_id", &scenic::SlotInfo::build_id)
        .def_readonly("name", &scenic::SlotInfo::name)
        .def_property_readonly(
            "image_sha256",
            [](const scenic::SlotInfo& s) { return scenic::to_hex(s.image_sha256); })
        .def_readonly("loads", &scenic::SlotInfo::loads)
        .def_readonly("last_pause_ns", &scenic::SlotInfo::last_pause_ns)
        .def_readonly("reconfig_delay_us", &scenic::SlotInfo::reconfig_delay_us)
        .def_readonly("steer_rules_used", &scenic::SlotInfo::steer_rules_used)
        .def_readonly("steer_rules_max", &scenic::SlotInfo::steer_rules_max)
        .def_property_readonly(
            "qp_policy",
            [](const scenic::SlotInfo& s) { return scenic::qp_policy_name(s.qp_policy); })
        .def("__repr__", [](const scenic::SlotInfo& s) {
            return "SlotInfo(card=" + std::to_string(s.card) + ", slot=" + std::to_string(s.slot) +
                   ", name='" + s.name + "', kind=" + std::to_string(s.kind) +
                   ", state=" + scenic::state_name(s.state) + ")";
        });

    py::class_<scenic::ScenicReconfig>(m, "ScenicReconfig")
        .def(py::init([](unsigned card) { return scenic::ScenicReconfig(card); }),
             py::arg("card") = 0)
        .def(
            "reconfigure_app",
            [](scenic::ScenicReconfig& r, unsigned slot, const std::string& path, bool dry_run,
               bool force, unsigned drain_timeout_ms) {
                scenic::ReconfigOptions o;
                o.dry_run = dry_run;
                o.force = force;
                o.drain_timeout = std::chrono::milliseconds(drain_timeout_ms);
                const py::gil_scoped_release unlocked;
                return r.reconfigure_app(slot, path, o);
            },
            py::arg("slot"), py::arg("path"), py::arg("dry_run") = false, py::arg("force") = false,
            py::arg("drain_timeout_ms") = 0)
        .def(
            "unload",
            [](scenic::ScenicReconfig& r, unsigned slot) {
                const py::gil_scoped_release unlocked;
                return r.unload(slot);
            },
            py::arg("slot"))
        .def("info", &scenic::ScenicReconfig::info, py::arg("slot"))
        .def("slots", &scenic::ScenicReconfig::slots)
        .def(
            "counters",
            [](const scenic::ScenicReconfig& r, unsigned slot) {
                return counters_dict(r.counters(slot));
            },
            py::arg("slot"))
        .def(
            "steer_add",
            [](scenic::ScenicReconfig& r, unsigned slot, const std::string& dir, uint16_t priority,
               std::optional<uint16_t> ethertype, std::optional<uint8_t> ip_proto,
               const std::string& src_ip, const std::string& dst_ip,
               std::optional<uint16_t> src_port, std::optional<uint16_t> dst_port) {
                if (dir != "rx" && dir != "tx" && dir != "both") {
                    throw scenic::ScenicError(EINVAL, "steer_add",
                                              "dir '" + dir + "' is not rx, tx or both");
                }
                scenic::SteerRule rule;
                rule.rx = dir != "tx";
                rule.tx = dir != "rx";
                rule.priority = priority;
                rule.ethertype = ethertype;
                rule.ip_proto = ip_proto;
                rule.src_ip = src_ip;
                rule.dst_ip = dst_ip;
                rule.src_port = src_port;
                rule.dst_port = dst_port;
                return r.steer_add(slot, rule);
            },
            py::arg("slot"), py::kw_only(), py::arg("dir") = "rx", py::arg("priority") = 0,
            py::arg("ethertype") = py::none(), py::arg("ip_proto") = py::none(),
            py::arg("src_ip") = "", py::arg("dst_ip") = "", py::arg("src_port") = py::none(),
            py::arg("dst_port") = py::none())
        .def("steer_del", &scenic::ScenicReconfig::steer_del, py::arg("slot"), py::arg("rule_id"))
        .def(
            "set_policy",
            [](scenic::ScenicReconfig& r, unsigned slot, const std::string& policy) {
                const int p = scenic::qp_policy_from_name(policy);
                if (p < 0) {
                    throw scenic::ScenicError(
                        EINVAL, "set_policy",
                        "policy '" + policy + "' is not same-uid, bound-pd or any");
                }
                r.set_policy(slot, static_cast<uint32_t>(p));
            },
            py::arg("slot"), py::arg("policy"));

    py::class_<scenic::Buffer, std::shared_ptr<scenic::Buffer>>(m, "Buffer", py::buffer_protocol())
        .def_buffer([](scenic::Buffer& b) {
            return py::buffer_info(b.data(), 1, py::format_descriptor<uint8_t>::format(), 1,
                                   {b.size()}, {1});
        })
        .def_property_readonly("lkey", [](const scenic::Buffer& b) { return b.mr().lkey(); })
        .def_property_readonly("rkey", [](const scenic::Buffer& b) { return b.mr().rkey(); })
        .def_property_readonly(
            "addr", [](const scenic::Buffer& b) { return reinterpret_cast<uintptr_t>(b.data()); })
        .def("__len__", &scenic::Buffer::size);

    py::class_<PyMemoryRegion, std::shared_ptr<PyMemoryRegion>>(m, "MemoryRegion")
        .def_property_readonly("lkey", [](const PyMemoryRegion& r) { return r.mr.lkey(); })
        .def_property_readonly("rkey", [](const PyMemoryRegion& r) { return r.mr.rkey(); })
        .def_property_readonly(
            "addr",
            [](const PyMemoryRegion& r) { return reinterpret_cast<uintptr_t>(r.mr.addr()); })
        .def_property_readonly("length", [](const PyMemoryRegion& r) { return r.mr.length(); });

    py::class_<scenic::Qp, std::shared_ptr<scenic::Qp>>(m, "Qp").def_property_readonly(
        "qp_num", &scenic::Qp::qp_num);

    py::class_<scenic::ScenicThread>(m, "ScenicThread")
        .def(py::init([](unsigned slot, unsigned card) {
                 return std::make_unique<scenic::ScenicThread>(slot, card);
             }),
             py::arg("slot"), py::arg("card") = 0)
        .def("set_csr", &scenic::ScenicThread::set_csr, py::arg("value"), py::arg("offset"))
        .def("get_csr", &scenic::ScenicThread::get_csr, py::arg("offset"))
        .def("get_completed", &scenic::ScenicThread::get_completed, py::arg("op"))
        .def(
            "wait_irq",
            [](scenic::ScenicThread& t, int timeout_ms) {
                if (timeout_ms < 0) {
                    throw scenic::ScenicError(EINVAL, "wait_irq", "negative timeout");
                }
                const py::gil_scoped_release unlocked;
                return t.wait_irq(std::chrono::milliseconds(timeout_ms));
            },
            py::arg("timeout_ms") = 1000)
        .def("irq_fd", &scenic::ScenicThread::irq_fd, py::arg("line"))
        .def("fileno", &scenic::ScenicThread::fd)
        .def(
            "alloc",
            [](scenic::ScenicThread& t, size_t bytes) {
                return std::make_shared<scenic::Buffer>(t.alloc(bytes));
            },
            py::arg("bytes"))
        .def(
            "reg",
            [](scenic::ScenicThread& t, py::buffer obj, int access) {
                const py::buffer_info info = obj.request(true);  // writable: BufferError otherwise
                if (!PyBuffer_IsContiguous(info.view(), 'A')) {
                    throw scenic::ScenicError(EINVAL, "reg", "the buffer is not contiguous");
                }
                const auto bytes = static_cast<size_t>(info.size * info.itemsize);
                auto r = std::make_shared<PyMemoryRegion>(PyMemoryRegion{obj, {}});
                r->mr = t.reg(info.ptr, bytes, access);
                return r;
            },
            py::arg("buffer"), py::arg("access") = kDefaultAccess)
        .def(
            "create_qp",
            [](scenic::ScenicThread& t, uint32_t max_send_wr, uint32_t max_recv_wr) {
                scenic::QpAttr a;
                a.max_send_wr = max_send_wr;
                a.max_recv_wr = max_recv_wr;
                return std::make_shared<scenic::Qp>(t.create_qp(a));
            },
            py::arg("max_send_wr") = 64, py::arg("max_recv_wr") = 64)
        .def("bind_pd", &scenic::ScenicThread::bind_pd)
        .def("counters", [](const scenic::ScenicThread& t) { return counters_dict(t.counters()); })
        .def("info", &scenic::ScenicThread::info)
        .def_property_readonly("slot", &scenic::ScenicThread::slot)
        .def_property_readonly("card", &scenic::ScenicThread::card)
        .def_property_readonly("csr_mapped", &scenic::ScenicThread::csr_mapped);

    m.def(
        "image_info",
        [](const std::string& path) {
            const auto bytes = scenic::read_file(path, scenic::kMaxImageBytes + 1);
            const scenic::ImageCheck c = scenic::check_image(bytes);
            py::dict d;
            d["ok"] = c.ok();
            d["status"] = scenic::load_status_name(static_cast<uint32_t>(c.status));
            d["detail"] = c.detail;
            if (c.header_read) {
                d["name"] = c.header.name;
                d["kind"] = c.header.kind;
                d["kind_version"] = c.header.kind_version;
                d["build_id"] = c.header.build_id;
                d["payload_size"] = c.header.payload_size;
                d["payload_sha256"] = scenic::to_hex(c.header.payload_sha256);
            }
            return d;
        },
        py::arg("path"), "Header and offline check of an SCU image file.");

    // scenic.testing: the fake card of the C++ unit tests, for host tests of Python code.
    py::module_ t = m.def_submodule("testing", "A fake card for tests without the hardware");
    py::class_<scenic::testing::FakeCard, std::shared_ptr<scenic::testing::FakeCard>>(t, "FakeCard")
        .def(py::init<unsigned, unsigned>(), py::arg("num_slots") = 4, py::arg("card") = 0)
        .def("raise_irq", &scenic::testing::FakeCard::raise_irq, py::arg("slot"), py::arg("lines"))
        .def("set_completed", &scenic::testing::FakeCard::set_completed)
        .def("set_traffic", &scenic::testing::FakeCard::set_traffic)
        .def("owned", &scenic::testing::FakeCard::owned)
        .def("csr", &scenic::testing::FakeCard::csr)
        .def("kind", &scenic::testing::FakeCard::kind);
    t.def(
        "install",
        [](std::shared_ptr<scenic::testing::FakeCard> c) {
            scenic::sys::set_default_system(std::move(c));
        },
        "Make the runtime use this fake card instead of /dev/scenic*.");
    t.def("uninstall", [] { scenic::sys::set_default_system(nullptr); });
}
