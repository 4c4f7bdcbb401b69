// SPDX-License-Identifier: MIT
// scenic_regfile_scu: sources, relative to hw-rtl/, in dependency order
rtl/scenic_regs_pkg.sv
rtl/scenic_regfile.sv
rtl/scenic_regfile_scu.sv
