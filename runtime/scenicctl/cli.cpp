// SPDX-License-Identifier: MIT
// scenicctl: list, status, load, unload, csr, counters, wait-irq, policy, image info/build.
// Text for people, --json for programs (one JSON document on stdout); errors on stderr.
#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "scenic/scenic.hpp"

namespace scenic::ctl {

namespace {

using nlohmann::json;

std::string hex64(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof(b), "0x%016" PRIx64, v);
    return b;
}

std::string version(uint32_t v) {
    return std::to_string(v >> 16) + "." + std::to_string(v & 0xffff);
}

std::string kind_str(uint32_t kind) {
    const auto n = kind_name(kind);
    return std::to_string(kind) + (n.empty() ? "" : " (" + std::string(n) + ")");
}

json slot_json(const SlotInfo& s) {
    return {{"card", s.card},
            {"slot", s.slot},
            {"state", state_name(s.state)},
            {"name", s.name},
            {"kind", s.kind},
            {"kind_name", std::string(kind_name(s.kind))},
            {"kind_version", s.kind_version},
            {"build_id", hex64(s.build_id)},
            {"image_sha256", to_hex(s.image_sha256)},
            {"iface_version", version(s.iface_version)},
            {"data_width", s.data_width},
            {"owned", s.owned},
            {"fixed", s.fixed},
            {"pd_bound", s.pd_bound},
            {"qp_policy", qp_policy_name(s.qp_policy)},
            {"loads", s.loads},
            {"last_pause_ns", s.last_pause_ns},
            {"reconfig_delay_us", s.reconfig_delay_us},
            {"steer_rules", {{"used", s.steer_rules_used}, {"max", s.steer_rules_max}}},
            {"budget",
             {{"luts", s.lut_budget},
              {"ffs", s.ff_budget},
              {"bram36", s.bram_budget},
              {"dsp", s.dsp_budget}}}};
}

void slot_line(std::ostream& out, const SlotInfo& s) {
    out << "card " << s.card << " slot " << s.slot << ": " << (s.name.empty() ? "-" : s.name)
        << " kind " << kind_str(s.kind) << " v" << s.kind_version << " " << state_name(s.state)
        << (s.fixed ? " fixed" : "") << (s.owned ? " owned" : "") << "\n";
}

void slot_text(std::ostream& out, const SlotInfo& s) {
    slot_line(out, s);
    out << "  build id " << hex64(s.build_id) << ", image sha256 " << to_hex(s.image_sha256)
        << "\n  interface " << version(s.iface_version) << ", data width " << s.data_width
        << ", loads " << s.loads << ", last pause " << s.last_pause_ns << " ns, reconfig delay "
        << s.reconfig_delay_us << " us\n  qp policy " << qp_policy_name(s.qp_policy) << ", pd "
        << (s.pd_bound ? "bound" : "unbound") << ", steering rules " << s.steer_rules_used << "/"
        << s.steer_rules_max << "\n";
}

json header_json(const ImageHeader& h) {
    return {{"format_version", h.format_version},
            {"header_size", h.header_size},
            {"iface_version", version(h.iface_version)},
            {"kind", h.kind},
            {"kind_name", std::string(kind_name(h.kind))},
            {"kind_version", h.kind_version},
            {"flags", h.flags},
            {"build_id", hex64(h.build_id)},
            {"name", h.name},
            {"data_width", h.data_width},
            {"resources",
             {{"luts", h.resources.luts},
              {"ffs", h.resources.ffs},
              {"bram36", h.resources.bram36},
              {"uram", h.resources.uram},
              {"dsp", h.resources.dsp}}},
            {"payload_offset", h.payload_offset},
            {"payload_size", h.payload_size},
            {"payload_sha256", to_hex(h.payload_sha256)}};
}

void header_text(std::ostream& out, const ImageHeader& h) {
    std::string flags;
    if (h.flags & kImageMemoryPort) flags += " memory-port";
    if (h.flags & kImageFrames) flags += " frames";
    if (h.flags & kImageHasRtl) flags += " rtl";
    out << "name " << h.name << "\nkind " << kind_str(h.kind) << " version " << h.kind_version
        << "\nformat " << h.format_version << ", header " << h.header_size << " bytes, interface "
        << version(h.iface_version) << ", data width " << h.data_width << "\nflags"
        << (flags.empty() ? " none" : flags) << "\nbuild id " << hex64(h.build_id)
        << "\nresources: " << h.resources.luts << " LUTs, " << h.resources.ffs << " FFs, "
        << h.resources.bram36 << " BRAM36, " << h.resources.uram << " URAM, " << h.resources.dsp
        << " DSP\npayload " << h.payload_size << " bytes at " << h.payload_offset << ", sha256 "
        << to_hex(h.payload_sha256) << "\n";
}

json counters_json(const Counters& c) {
    json j = json::object();
    for (const auto& [n, v] : c.values) {
        j[std::string(n)] = v;
    }
    return j;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        std::shared_ptr<sys::System> sys) {
    if (!sys) {
        sys = sys::default_system();
    }
    CLI::App app{"scenicctl: the SCENIC card's stream compute units (SCUs)", "scenicctl"};
    app.require_subcommand(1);
    app.fallthrough();  // --json and --card also after the subcommand
    unsigned card = 0;
    bool as_json = false;
    app.add_option("-c,--card", card, "card number (/dev/scenic<card>)")->capture_default_str();
    app.add_flag("-j,--json", as_json, "JSON output");
    unsigned slot = 0;
    std::string path;
    std::function<int()> action;

    auto* list = app.add_subcommand("list", "cards and their slots");
    list->callback([&] {
        action = [&] {
            json j = json::array();
            for (const unsigned c : sys->cards()) {
                for (const SlotInfo& s : ScenicReconfig(c, sys).slots()) {
                    if (as_json) {
                        j.push_back(slot_json(s));
                    } else {
                        slot_line(out, s);
                    }
                }
            }
            if (as_json) {
                out << j.dump(2) << "\n";
            }
            return kExitOk;
        };
    });

    auto* status = app.add_subcommand("status", "what a slot holds (all slots without SLOT)");
    std::optional<unsigned> status_slot;
    status->add_option("slot", status_slot, "slot number");
    status->callback([&] {
        action = [&] {
            ScenicReconfig r(card, sys);
            const std::vector<SlotInfo> all =
                status_slot ? std::vector<SlotInfo>{r.info(*status_slot)} : r.slots();
            json j = json::array();
            for (const SlotInfo& s : all) {
                if (as_json) {
                    j.push_back(slot_json(s));
                } else {
                    slot_text(out, s);
                }
            }
            if (as_json) {
                out << (status_slot ? j[0] : j).dump(2) << "\n";
            }
            return kExitOk;
        };
    });

    ReconfigOptions ropt;
    unsigned drain_ms = 0;
    auto* load = app.add_subcommand("load", "load an SCU image into a slot");
    load->add_option("slot", slot, "slot number")->required();
    load->add_option("image", path, "SCU image file")->required();
    load->add_flag("--dry-run", ropt.dry_run, "check the image in the kernel and the card only");
    load->add_flag("--force", ropt.force, "swap at the drain timeout instead of giving up");
    load->add_option("--drain-timeout", drain_ms, "milliseconds (0: the kernel's 100)");
    load->callback([&] {
        action = [&] {
            ropt.drain_timeout = std::chrono::milliseconds(drain_ms);
            const ReconfigResult res = ScenicReconfig(card, sys).reconfigure_app(slot, path, ropt);
            if (as_json) {
                out << json{{"slot", slot},
                            {"dry_run", ropt.dry_run},
                            {"status", "OK"},
                            {"pause_ns", res.pause.count()},
                            {"total_ns", res.total.count()},
                            {"wall_ns", res.wall.count()}}
                           .dump(2)
                    << "\n";
            } else {
                out << "slot " << slot << ": "
                    << (ropt.dry_run ? "image accepted (dry run)" : "loaded") << ", flows paused "
                    << res.pause.count() << " ns, total " << res.total.count() << " ns\n";
            }
            return kExitOk;
        };
    });

    auto* unload = app.add_subcommand("unload", "back to the built-in passthrough");
    unload->add_option("slot", slot, "slot number")->required();
    unload->callback([&] {
        action = [&] {
            const ReconfigResult res = ScenicReconfig(card, sys).unload(slot);
            if (as_json) {
                out << json{{"slot", slot}, {"status", "OK"}, {"pause_ns", res.pause.count()}}.dump(
                           2)
                    << "\n";
            } else {
                out << "slot " << slot << ": passthrough, flows paused " << res.pause.count()
                    << " ns\n";
            }
            return kExitOk;
        };
    });

    auto* csr = app.add_subcommand("csr", "read or write one CSR of a slot (as its owner)");
    csr->require_subcommand(1);
    uint32_t index = 0;
    uint64_t value = 0;
    auto* csr_read = csr->add_subcommand("read", "read register INDEX");
    csr_read->add_option("slot", slot, "slot number")->required();
    csr_read->add_option("index", index, "register index (byte address / 8)")->required();
    csr_read->callback([&] {
        action = [&] {
            const uint64_t v = ScenicReconfig(card, sys).read_csr(slot, index);
            if (as_json) {
                out << json{{"slot", slot}, {"index", index}, {"value", v}, {"hex", hex64(v)}}.dump(
                           2)
                    << "\n";
            } else {
                out << hex64(v) << "\n";
            }
            return kExitOk;
        };
    });
    auto* csr_write = csr->add_subcommand("write", "write VALUE to register INDEX");
    csr_write->add_option("slot", slot, "slot number")->required();
    csr_write->add_option("index", index, "register index (byte address / 8)")->required();
    csr_write->add_option("value", value, "64-bit value (0x... for hex)")->required();
    csr_write->callback([&] {
        action = [&] {
            ScenicReconfig(card, sys).write_csr(slot, index, value);
            if (as_json) {
                out << json{{"slot", slot}, {"index", index}, {"value", value}}.dump(2) << "\n";
            }
            return kExitOk;
        };
    });

    auto* counters = app.add_subcommand("counters", "a slot's completion and traffic counters");
    counters->add_option("slot", slot, "slot number")->required();
    counters->callback([&] {
        action = [&] {
            const Counters c = ScenicReconfig(card, sys).counters(slot);
            if (as_json) {
                out << counters_json(c).dump(2) << "\n";
            } else {
                for (const auto& [n, v] : c.values) {
                    out << n << " " << v << "\n";
                }
            }
            return kExitOk;
        };
    });

    unsigned timeout_ms = 1000;
    auto* wait = app.add_subcommand("wait-irq", "wait for an interrupt of a slot (as its owner)");
    wait->add_option("slot", slot, "slot number")->required();
    wait->add_option("-t,--timeout", timeout_ms, "milliseconds")->capture_default_str();
    wait->callback([&] {
        action = [&] {
            ScenicThread t(slot, card, sys);
            const unsigned lines = t.wait_irq(std::chrono::milliseconds(timeout_ms));
            if (as_json) {
                out << json{{"slot", slot}, {"pending", lines}, {"timeout", lines == 0}}.dump(2)
                    << "\n";
            } else if (lines == 0) {
                out << "slot " << slot << ": no interrupt in " << timeout_ms << " ms\n";
            } else {
                out << "slot " << slot << ": lines 0x" << std::hex << lines << std::dec << "\n";
            }
            return lines == 0 ? kExitTimeout : kExitOk;
        };
    });

    auto* steer = app.add_subcommand("steer", "steering rules: fallback frames to a slot");
    steer->require_subcommand(1);
    SteerRule rule;
    std::string dir = "rx";
    std::optional<uint16_t> ethertype, src_port, dst_port;
    std::optional<unsigned> ip_proto;
    auto* steer_add = steer->add_subcommand("add", "add a rule (owner with CAP_NET_ADMIN)");
    steer_add->add_option("slot", slot, "slot number")->required();
    steer_add->add_option("--dir", dir, "rx, tx or both")
        ->capture_default_str()
        ->check(CLI::IsMember({"rx", "tx", "both"}));
    steer_add->add_option("--priority", rule.priority, "lowest wins");
    steer_add->add_option("--ethertype", ethertype, "EtherType (0x0800, ...)");
    steer_add->add_option("--ip-proto", ip_proto, "IP protocol (6 TCP, 17 UDP, ...)")
        ->check(CLI::Range(0, 255));
    steer_add->add_option("--src-ip", rule.src_ip, "address[/prefix length], IPv4 or IPv6");
    steer_add->add_option("--dst-ip", rule.dst_ip, "address[/prefix length], IPv4 or IPv6");
    steer_add->add_option("--src-port", src_port, "L4 source port");
    steer_add->add_option("--dst-port", dst_port, "L4 destination port");
    steer_add->callback([&] {
        action = [&] {
            rule.rx = dir != "tx";
            rule.tx = dir != "rx";
            rule.ethertype = ethertype;
            rule.src_port = src_port;
            rule.dst_port = dst_port;
            if (ip_proto) {
                rule.ip_proto = static_cast<uint8_t>(*ip_proto);
            }
            const uint32_t id = ScenicReconfig(card, sys).steer_add(slot, rule);
            if (as_json) {
                out << json{{"slot", slot}, {"rule_id", id}}.dump(2) << "\n";
            } else {
                out << "slot " << slot << ": rule " << id << "\n";
            }
            return kExitOk;
        };
    });
    uint32_t rule_id = 0;
    auto* steer_del = steer->add_subcommand("del", "delete a rule (owner with CAP_NET_ADMIN)");
    steer_del->add_option("slot", slot, "slot number")->required();
    steer_del->add_option("rule", rule_id, "rule id (from steer add)")->required();
    steer_del->callback([&] {
        action = [&] {
            ScenicReconfig(card, sys).steer_del(slot, rule_id);
            if (as_json) {
                out << json{{"slot", slot}, {"rule_id", rule_id}, {"deleted", true}}.dump(2)
                    << "\n";
            }
            return kExitOk;
        };
    });

    std::string policy;
    auto* pol = app.add_subcommand("policy", "which QPs may be created on a slot");
    pol->add_option("slot", slot, "slot number")->required();
    pol->add_option("policy", policy, "same-uid, bound-pd or any")
        ->required()
        ->check(CLI::IsMember({"same-uid", "bound-pd", "any"}));
    pol->callback([&] {
        action = [&] {
            ScenicReconfig(card, sys).set_policy(
                slot, static_cast<uint32_t>(qp_policy_from_name(policy)));
            if (as_json) {
                out << json{{"slot", slot}, {"qp_policy", policy}}.dump(2) << "\n";
            }
            return kExitOk;
        };
    });

    auto* image = app.add_subcommand("image", "SCU image files, offline");
    image->require_subcommand(1);
    auto* info = image->add_subcommand("info", "print and check an image's header and hash");
    info->add_option("file", path, "SCU image")->required();
    info->callback([&] {
        action = [&] {
            const auto bytes = read_file(path, kMaxImageBytes + 1);
            const ImageCheck c = check_image(bytes);
            if (as_json) {
                json j{{"file", path},
                       {"bytes", bytes.size()},
                       {"status", load_status_name(static_cast<uint32_t>(c.status))},
                       {"ok", c.ok()}};
                if (!c.ok()) {
                    j["error"] = c.detail;
                }
                if (c.header_read) {
                    j["header"] = header_json(c.header);
                }
                out << j.dump(2) << "\n";
            } else {
                if (c.header_read) {
                    header_text(out, c.header);
                }
                out << "check " << load_status_name(static_cast<uint32_t>(c.status))
                    << (c.ok() ? "" : ": " + c.detail) << "\n";
            }
            if (!c.ok()) {
                err << "scenicctl: " << path << ": "
                    << load_status_name(static_cast<uint32_t>(c.status)) << ": " << c.detail
                    << "\n";
            }
            return c.ok() ? kExitOk : kExitError;
        };
    });

    ImageSpec spec;
    std::string payload, output;
    auto* build = image->add_subcommand("build", "write an image from a payload file");
    build->add_option("--kind", spec.kind, "kind (docs/scu.md 7 registry)")->required();
    build->add_option("--kind-version", spec.kind_version, "kind version")->capture_default_str();
    build->add_option("--name", spec.name, "name (at most 31 bytes)")->required();
    build->add_option("--flags", spec.flags, "1 memory port, 2 frames, 4 has RTL");
    build->add_option("--build-id", spec.build_id, "64-bit build id (the git commit)");
    build->add_option("--luts", spec.resources.luts, "LUTs (yosys)");
    build->add_option("--ffs", spec.resources.ffs, "flip-flops (yosys)");
    build->add_option("--bram36", spec.resources.bram36, "BRAM36 (yosys)");
    build->add_option("--uram", spec.resources.uram, "URAM (yosys)");
    build->add_option("--dsp", spec.resources.dsp, "DSP (yosys)");
    build->add_option("--payload", payload, "payload file (the yosys JSON netlist)")->required();
    build->add_option("-o,--output", output, "image file to write")->required();
    build->callback([&] {
        action = [&] {
            const auto bytes = read_file(payload, kMaxImageBytes);
            std::vector<uint8_t> img;
            try {
                img = build_image(spec, bytes);
            } catch (const std::invalid_argument& e) {
                err << "scenicctl: image build: " << e.what() << "\n";
                return kExitUsage;
            }
            write_file(output, img);
            const ImageCheck c = check_image(img);
            if (as_json) {
                out << json{{"file", output},
                            {"bytes", img.size()},
                            {"header", header_json(c.header)}}
                           .dump(2)
                    << "\n";
            } else {
                out << output << ": " << img.size() << " bytes, payload sha256 "
                    << to_hex(c.header.payload_sha256) << "\n";
            }
            return kExitOk;
        };
    });

    std::vector<std::string> rev(args.rbegin(), args.rend());  // CLI11 takes them reversed
    try {
        app.parse(rev);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e, out, err);
        return rc == 0 ? kExitOk : kExitUsage;
    }
    try {
        return action ? action() : kExitUsage;
    } catch (const ScenicError& e) {
        err << "scenicctl: " << e.what();
        if (e.load_status() != LoadStatus::kOk) {
            err << " [status " << e.status_name() << "]";
        }
        err << "\n";
        if (as_json) {
            out << json{{"error", e.what()},
                        {"errno", e.errno_value()},
                        {"status", e.status_name()},
                        {"reason", e.reason()}}
                       .dump(2)
                << "\n";
        }
        return kExitError;
    }
}

}  // namespace scenic::ctl
