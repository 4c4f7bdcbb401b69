// SPDX-License-Identifier: MIT
// scenic_cq_counter: sources, relative to hw-rtl/, in dependency order
rtl/scenic_regs_pkg.sv
rtl/scenic_cq_counter.sv
