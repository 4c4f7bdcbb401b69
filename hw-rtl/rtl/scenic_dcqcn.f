// SPDX-License-Identifier: MIT
// scenic_dcqcn: sources, relative to hw-rtl/, in dependency order
rtl/scenic_dcqcn.sv
